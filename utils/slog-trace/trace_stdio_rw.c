/* SPDX-License-Identifier: MIT
 *
 * trace_stdio_rw.c - wrappers of the stdio calls that move blocks and
 * lines: fread, fwrite, fgets, fputs, puts, getline, getdelim, each with
 * the _unlocked and fortified (__*_chk) entry points glibc exports
 * (GNU coreutils move their data with fread_unlocked and fwrite_unlocked;
 * an optimised program's getline is __getdelim).  Every entry point of a
 * call is recorded under the plain call's name: fread and fwrite with
 * size and count (items asked) and ret (items moved), fgets with count
 * (the buffer) and ret (the length read), fputs with count (strlen, +1 for
 * puts's newline), getline with ret (bytes read).  End of file and errors
 * as trace_stdio.h says.
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
/* This file defines functions that <stdio.h> would otherwise define
 * inline when optimising (getc_unlocked, vprintf, getline...). */
#include <features.h>
#undef __USE_EXTERN_INLINES
#include <stdio.h>
#include <string.h>

#include "trace_fortify.h"
#include "trace_stdio.h"

#define ITEMS_BODY(real, fn, fp, size, n, short_end, ...)                                          \
    STREAM_IO_BODY(size_t, real, fn, fp, STREAM_ITEMS(size, n), r,                                 \
                   r < (n) ? (short_end) : STREAM_DONE, __VA_ARGS__)

size_t fread(void *ptr, size_t size, size_t n, FILE *stream)
{
    ITEMS_BODY(TRACE_REAL(fread), TRACE_FN_FREAD, stream, size, n, STREAM_SHORT_READ, ptr, size, n,
               stream);
}

size_t fread_unlocked(void *ptr, size_t size, size_t n, FILE *stream)
{
    ITEMS_BODY(TRACE_REAL(fread_unlocked), TRACE_FN_FREAD, stream, size, n, STREAM_SHORT_READ, ptr,
               size, n, stream);
}

size_t __fread_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *stream)
{
    ITEMS_BODY(TRACE_REAL(__fread_chk), TRACE_FN_FREAD, stream, size, n, STREAM_SHORT_READ, ptr,
               ptrlen, size, n, stream);
}

size_t __fread_unlocked_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *stream)
{
    ITEMS_BODY(TRACE_REAL(__fread_unlocked_chk), TRACE_FN_FREAD, stream, size, n,
               STREAM_SHORT_READ, ptr, ptrlen, size, n, stream);
}

size_t fwrite(const void *ptr, size_t size, size_t n, FILE *s)
{
    ITEMS_BODY(TRACE_REAL(fwrite), TRACE_FN_FWRITE, s, size, n, STREAM_SHORT_WRITE, ptr, size, n,
               s);
}

size_t fwrite_unlocked(const void *ptr, size_t size, size_t n, FILE *stream)
{
    ITEMS_BODY(TRACE_REAL(fwrite_unlocked), TRACE_FN_FWRITE, stream, size, n, STREAM_SHORT_WRITE,
               ptr, size, n, stream);
}

/* fgets: ret is the length read (NULL: 0 at end of file, else -1). */
#define FGETS_BODY(real, fp, n, ...)                                                               \
    STREAM_IO_BODY(char *, real, TRACE_FN_FGETS, fp, STREAM_ITEMS(FD_NONE, n),                     \
                   r != NULL ? (int64_t)strlen(r) : -1,                                            \
                   r != NULL ? STREAM_DONE : STREAM_SHORT_READ, __VA_ARGS__)

char *fgets(char *s, int n, FILE *stream)
{
    FGETS_BODY(TRACE_REAL(fgets), stream, n, s, n, stream);
}

char *fgets_unlocked(char *s, int n, FILE *stream)
{
    FGETS_BODY(TRACE_REAL(fgets_unlocked), stream, n, s, n, stream);
}

char *__fgets_chk(char *s, size_t size, int n, FILE *stream)
{
    FGETS_BODY(TRACE_REAL(__fgets_chk), stream, n, s, size, n, stream);
}

char *__fgets_unlocked_chk(char *s, size_t size, int n, FILE *stream)
{
    FGETS_BODY(TRACE_REAL(__fgets_unlocked_chk), stream, n, s, size, n, stream);
}

#define FPUTS_BODY(real, fp, bytes, ...)                                                           \
    STREAM_INT_BODY(real, TRACE_FN_FPUTS, fp, STREAM_ITEMS(FD_NONE, bytes), STREAM_SHORT_WRITE,    \
                    __VA_ARGS__)

int fputs(const char *s, FILE *stream)
{
    FPUTS_BODY(TRACE_REAL(fputs), stream, strlen(s), s, stream);
}

int fputs_unlocked(const char *s, FILE *stream)
{
    FPUTS_BODY(TRACE_REAL(fputs_unlocked), stream, strlen(s), s, stream);
}

int puts(const char *s)
{
    FPUTS_BODY(TRACE_REAL(puts), stdout, strlen(s) + 1, s);
}

#define GETLINE_BODY(real, fp, ...)                                                                \
    STREAM_IO_BODY(ssize_t, real, TRACE_FN_GETLINE, fp, STREAM_NOTHING, r,                         \
                   r < 0 ? STREAM_SHORT_READ : STREAM_DONE, __VA_ARGS__)

ssize_t getline(char **lineptr, size_t *n, FILE *stream)
{
    GETLINE_BODY(TRACE_REAL(getline), stream, lineptr, n, stream);
}

ssize_t getdelim(char **lineptr, size_t *n, int delimiter, FILE *stream)
{
    GETLINE_BODY(TRACE_REAL(getdelim), stream, lineptr, n, delimiter, stream);
}

ssize_t __getdelim(char **lineptr, size_t *n, int delimiter, FILE *stream)
{
    GETLINE_BODY(TRACE_REAL(__getdelim), stream, lineptr, n, delimiter, stream);
}
