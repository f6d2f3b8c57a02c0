/* SPDX-License-Identifier: MIT
 *
 * util_error.h - filling slog_error records with one-line returns:
 *     return util_err(err, SLOG_ECORRUPT, off, path, "node %u: bad count", i);
 * Never allocates, so reporting SLOG_ENOMEM is safe.
 * Layer 0: libc only.
 */
#ifndef UTIL_ERROR_H
#define UTIL_ERROR_H

#include <slog/slog_common.h>

/* Fill *err (when not NULL) and return code.  source may be NULL. */
int util_err(slog_error *err, int code, uint64_t offset, const char *source, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A failure reported by a layer that does not know the file (the tree
 * builder, an allocation) gets the file's name as its source; returns
 * code.  Nothing when err is NULL, code is not an error, or a source is set. */
int util_err_source(slog_error *err, int code, const char *source);

#ifdef __clang_analyzer__
/* For the static analyzer only (clang-tidy, scan-build), which cannot see
 * util_err's body: the call's value is `code`, so a path on which a caller
 * returns util_err(..., SLOG_ENOMEM, ...) is not taken for one that returned
 * SLOG_OK with its outputs unset.  (The name inside is not expanded again:
 * it calls the function.) */
#define util_err(err, code, ...) (util_err((err), (code), __VA_ARGS__), (code))
#endif

#endif /* UTIL_ERROR_H */
