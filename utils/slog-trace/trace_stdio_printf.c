/* SPDX-License-Identifier: MIT
 *
 * trace_stdio_printf.c - wrappers of the printf family: printf, fprintf,
 * vprintf, vfprintf and their fortified __*_chk entry points (what a
 * program built with _FORTIFY_SOURCE calls), recorded as fprintf with ret
 * (the bytes written), and dprintf, vdprintf, __dprintf_chk,
 * __vdprintf_chk, which write to a descriptor past stdio's buffer,
 * recorded as dprintf.  Every entry point funnels into one traced
 * function per family, which calls the real v-form (the __*_chk one when
 * the program called a fortified name, so its checks still run).
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
/* This file defines functions that <stdio.h> would otherwise define
 * inline when optimising (getc_unlocked, vprintf, getline...). */
#include <features.h>
#undef __USE_EXTERN_INLINES
#include <stdarg.h>
#include <stdio.h>

#include "trace_fortify.h"
#include "trace_stdio.h"

/* flag of a plain (not fortified) call. */
enum { NOT_CHK = -1 };

static int real_vfprintf(FILE *fp, int flag, const char *format, va_list ap)
{
    return flag == NOT_CHK ? TRACE_REAL(vfprintf)(fp, format, ap)
                           : TRACE_REAL(__vfprintf_chk)(fp, flag, format, ap);
}

static int traced_vfprintf(FILE *fp, int flag, const char *format, va_list ap)
{
    STREAM_INT_BODY(real_vfprintf, TRACE_FN_FPRINTF, fp, STREAM_NOTHING, STREAM_SHORT_WRITE, fp,
                    flag, format, ap);
}

static int real_vdprintf(int fd, int flag, const char *format, va_list ap)
{
    return flag == NOT_CHK ? TRACE_REAL(vdprintf)(fd, format, ap)
                           : TRACE_REAL(__vdprintf_chk)(fd, flag, format, ap);
}

static int traced_vdprintf(int fd, int flag, const char *format, va_list ap)
{
    FD_CALL_BODY(int, real_vdprintf, TRACE_FN_DPRINTF, fd, STREAM_NOTHING, fd, flag, format, ap);
}

/* The body of a variadic wrapper: the traced v-form over its args. */
#define VARIADIC_BODY(traced, last, ...)                                                           \
    va_list ap;                                                                                    \
    va_start(ap, last);                                                                            \
    const int r = traced(__VA_ARGS__, ap);                                                         \
    va_end(ap);                                                                                    \
    return r

int vfprintf(FILE *s, const char *format, va_list arg)
{
    return traced_vfprintf(s, NOT_CHK, format, arg);
}

int vprintf(const char *format, va_list arg)
{
    return traced_vfprintf(stdout, NOT_CHK, format, arg);
}

int __vfprintf_chk(FILE *stream, int flag, const char *format, va_list ap)
{
    return traced_vfprintf(stream, flag, format, ap);
}

int __vprintf_chk(int flag, const char *format, va_list ap)
{
    return traced_vfprintf(stdout, flag, format, ap);
}

int fprintf(FILE *stream, const char *format, ...)
{
    VARIADIC_BODY(traced_vfprintf, format, stream, NOT_CHK, format);
}

int printf(const char *format, ...)
{
    VARIADIC_BODY(traced_vfprintf, format, stdout, NOT_CHK, format);
}

int __fprintf_chk(FILE *stream, int flag, const char *format, ...)
{
    VARIADIC_BODY(traced_vfprintf, format, stream, flag, format);
}

int __printf_chk(int flag, const char *format, ...)
{
    VARIADIC_BODY(traced_vfprintf, format, stdout, flag, format);
}

int vdprintf(int fd, const char *fmt, va_list arg)
{
    return traced_vdprintf(fd, NOT_CHK, fmt, arg);
}

int __vdprintf_chk(int fd, int flag, const char *format, va_list ap)
{
    return traced_vdprintf(fd, flag, format, ap);
}

int dprintf(int fd, const char *fmt, ...)
{
    VARIADIC_BODY(traced_vdprintf, fmt, fd, NOT_CHK, fmt);
}

int __dprintf_chk(int fd, int flag, const char *format, ...)
{
    VARIADIC_BODY(traced_vdprintf, format, fd, flag, format);
}
