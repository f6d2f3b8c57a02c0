/* SPDX-License-Identifier: MIT
 *
 * diag.h - diagnostics for the command-line tools: printing warnings in
 * the one format all tools share
 *     slog-import: trace.json:12:7: warning: expected ',' (byte 2381)
 * with a cap per warning kind (the count is never capped, only the print).
 * Tools layer: libc only, no libslog calls.
 */
#ifndef SLOG_UTILS_DIAG_H
#define SLOG_UTILS_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Warning caps: at most `limit` prints per kind (a kind is any stable
 * pointer, usually the format string). */
#define DIAG_CAP_SLOTS 64
typedef struct diag_caps {
    const void *key[DIAG_CAP_SLOTS];
    uint64_t seen[DIAG_CAP_SLOTS];
    uint64_t total;      /* warnings reported */
    uint64_t suppressed; /* of those, not printed */
    unsigned limit;
} diag_caps;

void diag_caps_init(diag_caps *c, unsigned limit);
/* Count one warning of kind @p key; true if it should be printed.  When the
 * kind reaches its limit, *last is set so the caller can say so. */
bool diag_caps_take(diag_caps *c, const void *key, bool *last);

/*
 * Print "PROG: FILE:LINE:COL: SEVERITY: MSG (byte OFF)" to @p out.  Missing
 * parts are left out: line 0 drops LINE:COL (then a known offset is printed
 * as "FILE: byte OFF:"), an empty severity drops "SEVERITY: ", file NULL
 * drops "FILE:".
 */
typedef struct diag_where {
    const char *file;   /* NULL: none */
    uint64_t line, col; /* line 0: none */
    uint64_t offset;    /* UINT64_MAX: none */
} diag_where;

void diag_vprint(FILE *out, const char *prog, const diag_where *at, const char *severity,
                 const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));
void diag_print(FILE *out, const char *prog, const diag_where *at, const char *severity,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif /* SLOG_UTILS_DIAG_H */
