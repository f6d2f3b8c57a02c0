/* SPDX-License-Identifier: MIT
 *
 * trace_stdio.h - what the stdio wrapper files share: a stream's
 * descriptor, and recording a call that moves bytes through a stream with
 * its outcome.  A read that stops at end of file is not an error: it is
 * recorded with "eof": 1 (and ret 0 where the call returns NULL or EOF);
 * only a failure (ferror set, or a bad argument) gets "errno", and it is
 * the errno that call set, never one left from an earlier call: errno is
 * cleared for the real call and put back when the call left it alone.
 * Layer: slog-trace preload library.
 */
#ifndef SLOG_TRACE_STDIO_H
#define SLOG_TRACE_STDIO_H

#include <stdio.h>

#include "trace_fdcall.h"

/* fp's descriptor, -1 for NULL. */
int stream_fd(FILE *fp);

/* How a stream call ended: done as asked, short or failed. */
typedef enum stream_end {
    STREAM_DONE = 0,
    STREAM_SHORT_READ,  /* end of file, or an error when ferror is set */
    STREAM_SHORT_WRITE  /* an error */
} stream_end;

/* Record call c of category fn on fp, whose real call ran with errno 0:
 * x's size and count, ret, then "eof" or "errno" as end says.  errno is
 * kept (0 when the call left it alone: the caller puts back the program's). */
void stream_done(const trace_call *c, trace_fn fn, FILE *fp, const fd_extra *x, int64_t ret,
                 stream_end end);

/* The body of a wrapper that moves bytes through fp: the real call's result
 * r, recorded as ret_of_r (an expression of r) and ended as end_of_r. */
#define STREAM_IO_BODY(type, real, fn, fp, extra, ret_of_r, end_of_r, ...)                         \
    trace_call call_;                                                                              \
    if (!trace_enter(&call_)) {                                                                    \
        return real(__VA_ARGS__);                                                                  \
    }                                                                                              \
    const int saved_ = errno;                                                                      \
    errno = 0;                                                                                     \
    type const r = real(__VA_ARGS__);                                                              \
    stream_done(&call_, fn, fp, extra, (int64_t)(ret_of_r), (end_of_r));                           \
    if (errno == 0) {                                                                              \
        errno = saved_;                                                                            \
    }                                                                                              \
    return r

/* A read that returns n items of n_asked (fread, fread_unlocked...). */
#define STREAM_READ_ITEMS(type, real, fn, fp, size, n_asked, ...)                                  \
    STREAM_IO_BODY(type, real, fn, fp, FD_EXTRA(size, n_asked, FD_NONE, FD_NONE), r,              \
                   r < (n_asked) ? STREAM_SHORT_READ : STREAM_DONE, __VA_ARGS__)

/* A call that returns EOF (a negative int) when it fails. */
#define STREAM_INT_BODY(real, fn, fp, extra, short_end, ...)                                       \
    STREAM_IO_BODY(int, real, fn, fp, extra, r, r < 0 ? (short_end) : STREAM_DONE, __VA_ARGS__)

#define STREAM_ITEMS(size, n) FD_EXTRA(size, n, FD_NONE, FD_NONE)
#define STREAM_NOTHING FD_EXTRA(FD_NONE, FD_NONE, FD_NONE, FD_NONE)

#endif /* SLOG_TRACE_STDIO_H */
