/* SPDX-License-Identifier: MIT
 *
 * trace_stdio.c - wrappers of the stdio calls that open, close and
 * position a stream: fopen, fdopen, freopen (with 64-bit names), fclose,
 * fseek, fseeko, ftell, ftello, fflush; and stream_done (trace_stdio.h), which
 * records the calls that move bytes (trace_stdio_rw.c, trace_stdio_char.c,
 * trace_stdio_printf.c).  A stream is recorded by its descriptor and file
 * name; byte counts are those the call asked for, so a buffered fwrite
 * shows when the program wrote, not when stdio passed the bytes to the
 * kernel.
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
#include <stdio.h>

#include "trace_fdtab.h"
#include "trace_stdio.h"

#define NOTHING STREAM_NOTHING

int stream_fd(FILE *fp)
{
    return fp != NULL ? fileno(fp) : -1;
}

static void opt_int(trace_args *a, const char *key, int64_t v)
{
    if (v != FD_NONE) {
        targ_int(a, key, v);
    }
}

/* A short read is an end of file when feof is set, unless this call failed
 * (ferror set and errno set by it: a sticky ferror of an earlier call
 * does not count). */
void stream_done(const trace_call *c, trace_fn fn, FILE *fp, const fd_extra *x, int64_t ret,
                 stream_end end)
{
    const int err = errno;
    const int fd = stream_fd(fp);
    if (fdtab_own(fd)) {
        trace_skip(c);
        errno = err;
        return;
    }
    const bool eof = end == STREAM_SHORT_READ && fp != NULL && feof_unlocked(fp) != 0 &&
                     (ferror_unlocked(fp) == 0 || err == 0);
    trace_args a = {.n = 0};
    targ_int(&a, "fd", fd);
    targ_str(&a, "path", fdtab_path(fd));
    opt_int(&a, "size", x->size);
    opt_int(&a, "count", x->count);
    targ_int(&a, "ret", eof && ret < 0 ? 0 : ret);
    if (eof) {
        targ_int(&a, "eof", 1);
    } else if (end != STREAM_DONE && err != 0) {
        targ_int(&a, "errno", err);
    }
    trace_leave(c, fn, &a);
    errno = err;
}

/* An open that gave fp (NULL: failed): path, mode, the descriptor. */
static FILE *stream_opened(const trace_call *c, bool traced, trace_fn fn, const char *path,
                           const char *mode, FILE *fp)
{
    const int err = errno;
    const int fd = stream_fd(fp);
    if (trace_self.guard == 0 && path != NULL) {
        fdtab_opened(fd, path);
    }
    if (traced && (fd >= 0 ? fdtab_own(fd) : trace_path_own(path))) {
        trace_skip(c);
    } else if (traced) {
        trace_args a = {.n = 0};
        targ_str(&a, "path", path != NULL ? path : fdtab_path(fd));
        targ_str(&a, "mode", mode);
        targ_result(&a, fd, err);
        trace_leave(c, fn, &a);
    }
    errno = err;
    return fp;
}

#define OPEN_STREAM(real, fn, path, mode, ...)                                                     \
    trace_call c;                                                                                  \
    const bool traced = trace_enter(&c);                                                           \
    FILE *fp_ = real(__VA_ARGS__);                                                                 \
    return stream_opened(&c, traced, fn, path, mode, fp_)

FILE *fopen(const char *filename, const char *modes)
{
    OPEN_STREAM(TRACE_REAL(fopen), TRACE_FN_FOPEN, filename, modes, filename, modes);
}

FILE *fopen64(const char *filename, const char *modes)
{
    OPEN_STREAM(TRACE_REAL(fopen64), TRACE_FN_FOPEN, filename, modes, filename, modes);
}

FILE *fdopen(int fd, const char *modes)
{
    OPEN_STREAM(TRACE_REAL(fdopen), TRACE_FN_FDOPEN, NULL, modes, fd, modes);
}

FILE *freopen(const char *filename, const char *modes, FILE *stream)
{
    OPEN_STREAM(TRACE_REAL(freopen), TRACE_FN_FREOPEN, filename, modes, filename, modes, stream);
}

FILE *freopen64(const char *filename, const char *modes, FILE *stream)
{
    OPEN_STREAM(TRACE_REAL(freopen64), TRACE_FN_FREOPEN, filename, modes, filename, modes, stream);
}

int fclose(FILE *stream)
{
    trace_call c;
    const int fd = stream_fd(stream);
    if (!trace_enter(&c)) {
        if (trace_self.guard == 0) {
            (void)fdtab_closing(fd);
        }
        return TRACE_REAL(fclose)(stream);
    }
    /* Name and record before the close (then the number may be another
     * thread's, as in close). */
    const bool own = fdtab_own(fd);
    const char *path = fdtab_closing(fd);
    const int r = TRACE_REAL(fclose)(stream);
    const int err = errno;
    if (own) {
        trace_skip(&c);
    } else {
        trace_args a = {.n = 0};
        targ_int(&a, "fd", fd);
        targ_str(&a, "path", path);
        targ_result(&a, r, err);
        trace_leave(&c, TRACE_FN_FCLOSE, &a);
    }
    errno = err;
    return r;
}

#define STREAM_BODY(type, real, fn, fp, extra, ...)                                                \
    FD_CALL_BODY(type, real, fn, stream_fd(fp), extra, __VA_ARGS__)

int fflush(FILE *stream)
{
    STREAM_BODY(int, TRACE_REAL(fflush), TRACE_FN_FFLUSH, stream, NOTHING, stream);
}

long ftell(FILE *stream)
{
    STREAM_BODY(long, TRACE_REAL(ftell), TRACE_FN_FTELL, stream, NOTHING, stream);
}

off_t ftello(FILE *stream)
{
    STREAM_BODY(off_t, TRACE_REAL(ftello), TRACE_FN_FTELL, stream, NOTHING, stream);
}

off64_t ftello64(FILE *stream)
{
    STREAM_BODY(off64_t, TRACE_REAL(ftello64), TRACE_FN_FTELL, stream, NOTHING, stream);
}

#define FSEEK_BODY(real, fp, off, whence)                                                          \
    STREAM_BODY(int, real, TRACE_FN_FSEEK, fp, FD_EXTRA(FD_NONE, FD_NONE, off, whence), fp, off,   \
                whence)

int fseek(FILE *stream, long off, int whence)
{
    FSEEK_BODY(TRACE_REAL(fseek), stream, off, whence);
}

int fseeko(FILE *stream, off_t off, int whence)
{
    FSEEK_BODY(TRACE_REAL(fseeko), stream, off, whence);
}

int fseeko64(FILE *stream, off64_t off, int whence)
{
    FSEEK_BODY(TRACE_REAL(fseeko64), stream, off, whence);
}
