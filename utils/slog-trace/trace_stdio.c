/* SPDX-License-Identifier: MIT
 *
 * trace_stdio.c - wrappers of the stdio calls: fopen, fdopen, freopen
 * (with 64-bit names), fclose, fread, fwrite (and the fortified
 * __fread_chk), fseek, fseeko, ftell, fflush, fgets, fputs, fprintf and
 * vfprintf.  A stream is recorded by its descriptor and file name; byte
 * counts are those the call asked for, so a buffered fwrite shows when the
 * program wrote, not when stdio passed the bytes to the kernel.
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "trace_fdcall.h"
#include "trace_fdtab.h"
#include "trace_fortify.h"

#define NOTHING FD_EXTRA(FD_NONE, FD_NONE, FD_NONE, FD_NONE)
#define ITEMS(size, n) FD_EXTRA(size, n, FD_NONE, FD_NONE)

static int stream_fd(FILE *fp)
{
    return fp != NULL ? fileno(fp) : -1;
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
        const int r = TRACE_REAL(fclose)(stream);
        if (trace_self.guard == 0) {
            fdtab_closed(fd);
        }
        return r;
    }
    const int r = TRACE_REAL(fclose)(stream);
    const int err = errno;
    trace_fd_done(&c, TRACE_FN_FCLOSE, fd, NOTHING, r, err);
    fdtab_closed(fd);
    errno = err;
    return r;
}

#define STREAM_BODY(type, real, fn, fp, extra, ...)                                                \
    FD_CALL_BODY(type, real, fn, stream_fd(fp), extra, __VA_ARGS__)

size_t fread(void *ptr, size_t size, size_t n, FILE *stream)
{
    STREAM_BODY(size_t, TRACE_REAL(fread), TRACE_FN_FREAD, stream, ITEMS(size, n), ptr, size, n,
                stream);
}

size_t __fread_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *stream)
{
    STREAM_BODY(size_t, TRACE_REAL(__fread_chk), TRACE_FN_FREAD, stream, ITEMS(size, n), ptr,
                ptrlen, size, n, stream);
}

size_t fwrite(const void *ptr, size_t size, size_t n, FILE *s)
{
    STREAM_BODY(size_t, TRACE_REAL(fwrite), TRACE_FN_FWRITE, s, ITEMS(size, n), ptr, size, n, s);
}

int fflush(FILE *stream)
{
    STREAM_BODY(int, TRACE_REAL(fflush), TRACE_FN_FFLUSH, stream, NOTHING, stream);
}

long ftell(FILE *stream)
{
    STREAM_BODY(long, TRACE_REAL(ftell), TRACE_FN_FTELL, stream, NOTHING, stream);
}

int fputs(const char *s, FILE *stream)
{
    STREAM_BODY(int, TRACE_REAL(fputs), TRACE_FN_FPUTS, stream, ITEMS(FD_NONE, strlen(s)), s,
                stream);
}

/* fgets: ret is the length read, -1 for NULL (end of file or error). */
#define FGETS_BODY(real, s, size, fp, ...)                                                         \
    trace_call c;                                                                                  \
    if (!trace_enter(&c)) {                                                                        \
        return real(__VA_ARGS__);                                                                  \
    }                                                                                              \
    char *r = real(__VA_ARGS__);                                                                   \
    trace_fd_done(&c, TRACE_FN_FGETS, stream_fd(fp), ITEMS(FD_NONE, size),                         \
                  r != NULL ? (int64_t)strlen(r) : -1, errno);                                     \
    return r

char *fgets(char *s, int n, FILE *stream)
{
    FGETS_BODY(TRACE_REAL(fgets), s, n, stream, s, n, stream);
}

char *__fgets_chk(char *s, size_t size, int n, FILE *stream)
{
    FGETS_BODY(TRACE_REAL(__fgets_chk), s, n, stream, s, size, n, stream);
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

int vfprintf(FILE *s, const char *format, va_list arg)
{
    STREAM_BODY(int, TRACE_REAL(vfprintf), TRACE_FN_FPRINTF, s, NOTHING, s, format, arg);
}

int fprintf(FILE *stream, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    trace_call c;
    if (!trace_enter(&c)) {
        const int r0 = TRACE_REAL(vfprintf)(stream, format, ap);
        va_end(ap);
        return r0;
    }
    const int r = TRACE_REAL(vfprintf)(stream, format, ap);
    const int err = errno;
    va_end(ap);
    trace_fd_done(&c, TRACE_FN_FPRINTF, stream_fd(stream), NOTHING, r, err);
    return r;
}
