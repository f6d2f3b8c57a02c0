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

FILE *fopen(const char *path, const char *mode)
{
    OPEN_STREAM(TRACE_REAL(fopen), TRACE_FN_FOPEN, path, mode, path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
    OPEN_STREAM(TRACE_REAL(fopen64), TRACE_FN_FOPEN, path, mode, path, mode);
}

FILE *fdopen(int fd, const char *mode)
{
    OPEN_STREAM(TRACE_REAL(fdopen), TRACE_FN_FDOPEN, NULL, mode, fd, mode);
}

FILE *freopen(const char *path, const char *mode, FILE *fp)
{
    OPEN_STREAM(TRACE_REAL(freopen), TRACE_FN_FREOPEN, path, mode, path, mode, fp);
}

FILE *freopen64(const char *path, const char *mode, FILE *fp)
{
    OPEN_STREAM(TRACE_REAL(freopen64), TRACE_FN_FREOPEN, path, mode, path, mode, fp);
}

int fclose(FILE *fp)
{
    trace_call c;
    const int fd = stream_fd(fp);
    if (!trace_enter(&c)) {
        const int r = TRACE_REAL(fclose)(fp);
        if (trace_self.guard == 0) {
            fdtab_closed(fd);
        }
        return r;
    }
    const int r = TRACE_REAL(fclose)(fp);
    const int err = errno;
    trace_fd_done(&c, TRACE_FN_FCLOSE, fd, NOTHING, r, err);
    fdtab_closed(fd);
    errno = err;
    return r;
}

#define STREAM_BODY(type, real, fn, fp, extra, ...)                                                \
    FD_CALL_BODY(type, real, fn, stream_fd(fp), extra, __VA_ARGS__)

size_t fread(void *ptr, size_t size, size_t n, FILE *fp)
{
    STREAM_BODY(size_t, TRACE_REAL(fread), TRACE_FN_FREAD, fp, ITEMS(size, n), ptr, size, n, fp);
}

size_t __fread_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *fp)
{
    STREAM_BODY(size_t, TRACE_REAL(__fread_chk), TRACE_FN_FREAD, fp, ITEMS(size, n), ptr, ptrlen,
                size, n, fp);
}

size_t fwrite(const void *ptr, size_t size, size_t n, FILE *fp)
{
    STREAM_BODY(size_t, TRACE_REAL(fwrite), TRACE_FN_FWRITE, fp, ITEMS(size, n), ptr, size, n, fp);
}

int fflush(FILE *fp)
{
    STREAM_BODY(int, TRACE_REAL(fflush), TRACE_FN_FFLUSH, fp, NOTHING, fp);
}

long ftell(FILE *fp)
{
    STREAM_BODY(long, TRACE_REAL(ftell), TRACE_FN_FTELL, fp, NOTHING, fp);
}

int fputs(const char *s, FILE *fp)
{
    STREAM_BODY(int, TRACE_REAL(fputs), TRACE_FN_FPUTS, fp, ITEMS(FD_NONE, strlen(s)), s, fp);
}

/* fgets: ret is the length read, -1 for NULL (end of file or error). */
#define FGETS_BODY(real, s, size, fp, ...)                                                         \
    trace_call c;                                                                                  \
    if (!trace_enter(&c)) {                                                                        \
        return real(__VA_ARGS__);                                                                  \
    }                                                                                              \
    char *r = real(__VA_ARGS__);                                                                   \
    trace_fd_done(&c, TRACE_FN_FGETS, stream_fd(fp), ITEMS(FD_NONE, size),                          \
                  r != NULL ? (int64_t)strlen(r) : -1, errno);                                     \
    return r

char *fgets(char *s, int size, FILE *fp)
{
    FGETS_BODY(TRACE_REAL(fgets), s, size, fp, s, size, fp);
}

char *__fgets_chk(char *s, size_t size, int n, FILE *fp)
{
    FGETS_BODY(TRACE_REAL(__fgets_chk), s, n, fp, s, size, n, fp);
}

#define FSEEK_BODY(real, fp, off, whence)                                                          \
    STREAM_BODY(int, real, TRACE_FN_FSEEK, fp, FD_EXTRA(FD_NONE, FD_NONE, off, whence), fp, off,   \
                whence)

int fseek(FILE *fp, long off, int whence)
{
    FSEEK_BODY(TRACE_REAL(fseek), fp, off, whence);
}

int fseeko(FILE *fp, off_t off, int whence)
{
    FSEEK_BODY(TRACE_REAL(fseeko), fp, off, whence);
}

int fseeko64(FILE *fp, off64_t off, int whence)
{
    FSEEK_BODY(TRACE_REAL(fseeko64), fp, off, whence);
}

int vfprintf(FILE *fp, const char *fmt, va_list ap)
{
    STREAM_BODY(int, TRACE_REAL(vfprintf), TRACE_FN_FPRINTF, fp, NOTHING, fp, fmt, ap);
}

int fprintf(FILE *fp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    trace_call c;
    if (!trace_enter(&c)) {
        const int r0 = TRACE_REAL(vfprintf)(fp, fmt, ap);
        va_end(ap);
        return r0;
    }
    const int r = TRACE_REAL(vfprintf)(fp, fmt, ap);
    const int err = errno;
    va_end(ap);
    trace_fd_done(&c, TRACE_FN_FPRINTF, stream_fd(fp), NOTHING, r, err);
    return r;
}
