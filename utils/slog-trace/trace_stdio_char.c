/* SPDX-License-Identifier: MIT
 *
 * trace_stdio_char.c - wrappers of the stdio calls that move one
 * character: fgetc, getc, getchar, fputc, putc, putchar, each with its
 * _unlocked entry point, and ungetc.  Every call is one record (as
 * Recorder and DFTracer do; no per-stream aggregate), under the names
 * fgetc, fputc and ungetc, with count 1 and ret 1 for the byte moved (the
 * character itself is not recorded); end of file and errors as
 * trace_stdio.h says.  An optimised program's getc_unlocked and
 * putc_unlocked are inline in <stdio.h> and reach glibc only when the
 * buffer is empty or full (__uflow, __overflow): those are not recorded.
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

#include "trace_stdio.h"

#define CHAR_BODY(real, fn, fp, short_end, ...)                                                    \
    STREAM_IO_BODY(int, real, fn, fp, STREAM_ITEMS(FD_NONE, 1), r == EOF ? -1 : 1,                 \
                   r == EOF ? (short_end) : STREAM_DONE, __VA_ARGS__)
#define GETC_BODY(real, fp, ...) CHAR_BODY(real, TRACE_FN_FGETC, fp, STREAM_SHORT_READ, __VA_ARGS__)
#define PUTC_BODY(real, fp, ...)                                                                   \
    CHAR_BODY(real, TRACE_FN_FPUTC, fp, STREAM_SHORT_WRITE, __VA_ARGS__)

int fgetc(FILE *stream)
{
    GETC_BODY(TRACE_REAL(fgetc), stream, stream);
}

int getc(FILE *stream)
{
    GETC_BODY(TRACE_REAL(getc), stream, stream);
}

int fgetc_unlocked(FILE *stream)
{
    GETC_BODY(TRACE_REAL(fgetc_unlocked), stream, stream);
}

int getc_unlocked(FILE *stream)
{
    GETC_BODY(TRACE_REAL(getc_unlocked), stream, stream);
}

int getchar(void)
{
    GETC_BODY(TRACE_REAL(getchar), stdin, );
}

int getchar_unlocked(void)
{
    GETC_BODY(TRACE_REAL(getchar_unlocked), stdin, );
}

int fputc(int c, FILE *stream)
{
    PUTC_BODY(TRACE_REAL(fputc), stream, c, stream);
}

int putc(int c, FILE *stream)
{
    PUTC_BODY(TRACE_REAL(putc), stream, c, stream);
}

int fputc_unlocked(int c, FILE *stream)
{
    PUTC_BODY(TRACE_REAL(fputc_unlocked), stream, c, stream);
}

int putc_unlocked(int c, FILE *stream)
{
    PUTC_BODY(TRACE_REAL(putc_unlocked), stream, c, stream);
}

int putchar(int c)
{
    PUTC_BODY(TRACE_REAL(putchar), stdout, c);
}

int putchar_unlocked(int c)
{
    PUTC_BODY(TRACE_REAL(putchar_unlocked), stdout, c);
}

int ungetc(int c, FILE *stream)
{
    CHAR_BODY(TRACE_REAL(ungetc), TRACE_FN_UNGETC, stream, STREAM_SHORT_WRITE, c, stream);
}
