/* SPDX-License-Identifier: MIT
 *
 * trace_fdcall.h - recording a call made on a descriptor or a stream: fd,
 * the file's name, what the call asked for (count, size, offset, whence:
 * FD_NONE leaves one out), the result and errno on failure.  Calls on the
 * tracer's own files are left out.  Shared by the POSIX and stdio wrappers.
 * Layer: slog-trace preload library.
 */
#ifndef SLOG_TRACE_FDCALL_H
#define SLOG_TRACE_FDCALL_H

#include "trace_core.h"

#define FD_NONE INT64_MIN

typedef struct fd_extra {
    int64_t size;   /* stdio: item size */
    int64_t count;  /* bytes (POSIX) or items (stdio) asked for */
    int64_t offset; /* pread/pwrite/lseek/fseek offset */
    int64_t whence; /* lseek/fseek */
} fd_extra;

#define FD_EXTRA(size, count, offset, whence)                                                      \
    (&(const fd_extra){(int64_t)(size), (int64_t)(count), (int64_t)(offset), (int64_t)(whence)})

/* Record call c of category fn on fd that returned ret (errno err); errno
 * is err afterwards. */
void trace_fd_done(const trace_call *c, trace_fn fn, int fd, const fd_extra *x, int64_t ret,
                   int err);

/* The body of a wrapper on a descriptor: untraced calls go straight
 * through; traced ones are recorded with trace_fd_done. */
#define FD_CALL_BODY(type, real, fn, fd, extra, ...)                                               \
    trace_call c;                                                                                  \
    if (!trace_enter(&c)) {                                                                        \
        return real(__VA_ARGS__);                                                                  \
    }                                                                                              \
    const type r = real(__VA_ARGS__);                                                              \
    trace_fd_done(&c, fn, fd, extra, (int64_t)r, errno);                                           \
    return r

#endif /* SLOG_TRACE_FDCALL_H */
