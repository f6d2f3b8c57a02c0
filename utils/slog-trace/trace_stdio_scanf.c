/* SPDX-License-Identifier: MIT
 *
 * trace_stdio_scanf.c - wrappers of the stream scanf family: fscanf,
 * scanf, vfscanf, vscanf and the C99 entry points a program built in C99
 * mode or later calls instead (__isoc99_fscanf...: <stdio.h> redirects the
 * plain names there), recorded as fscanf with ret (the items converted,
 * -1 at end of file or on an error, then "eof" or "errno").  Each wrapper
 * calls its own real v-form, so the GNU and the C99 conversions (%a) stay
 * the program's.  The wrappers are defined under their symbol names with
 * asm labels, since <stdio.h> may redirect the C names.
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
#include <stdarg.h>
#include <stdio.h>

#include "trace_stdio.h"

typedef int vfscanf_fn(FILE *stream, const char *format, va_list ap);

/* The real v-form: vfscanf (GNU) or __isoc99_vfscanf (C99), looked up once. */
static vfscanf_fn *real_vfscanf_of(int c99)
{
    static vfscanf_fn *real[2];
    vfscanf_fn *r = __atomic_load_n(&real[c99], __ATOMIC_RELAXED);
    if (r == NULL) {
        r = __extension__(vfscanf_fn *) trace_resolve(c99 ? "__isoc99_vfscanf" : "vfscanf");
        __atomic_store_n(&real[c99], r, __ATOMIC_RELAXED);
    }
    return r;
}

static int real_vfscanf(FILE *fp, int c99, const char *format, va_list ap)
{
    return real_vfscanf_of(c99)(fp, format, ap);
}

static int traced_vfscanf(FILE *fp, int c99, const char *format, va_list ap)
{
    STREAM_INT_BODY(real_vfscanf, TRACE_FN_FSCANF, fp, STREAM_NOTHING, STREAM_SHORT_READ, fp, c99,
                    format, ap);
}

/* The four wrappers of one family, by symbol name: PREFIX is "" for the
 * GNU entry points, "__isoc99_" for the C99 ones (c99 1). */
#define SCANF_FAMILY(id, prefix, c99)                                                              \
    int trace_##id##fscanf(FILE *stream, const char *format, ...) __asm__(prefix "fscanf");        \
    int trace_##id##scanf(const char *format, ...) __asm__(prefix "scanf");                        \
    int trace_##id##vfscanf(FILE *stream, const char *format,                                      \
                            va_list ap) __asm__(prefix "vfscanf");                                 \
    int trace_##id##vscanf(const char *format, va_list ap) __asm__(prefix "vscanf");               \
    int trace_##id##fscanf(FILE *stream, const char *format, ...)                                  \
    {                                                                                              \
        va_list ap;                                                                                \
        va_start(ap, format);                                                                      \
        const int r = traced_vfscanf(stream, c99, format, ap);                                     \
        va_end(ap);                                                                                \
        return r;                                                                                  \
    }                                                                                              \
    int trace_##id##scanf(const char *format, ...)                                                 \
    {                                                                                              \
        va_list ap;                                                                                \
        va_start(ap, format);                                                                      \
        const int r = traced_vfscanf(stdin, c99, format, ap);                                      \
        va_end(ap);                                                                                \
        return r;                                                                                  \
    }                                                                                              \
    int trace_##id##vfscanf(FILE *stream, const char *format, va_list ap)                          \
    {                                                                                              \
        return traced_vfscanf(stream, c99, format, ap);                                            \
    }                                                                                              \
    int trace_##id##vscanf(const char *format, va_list ap)                                         \
    {                                                                                              \
        return traced_vfscanf(stdin, c99, format, ap);                                             \
    }

SCANF_FAMILY(gnu_, "", 0)
SCANF_FAMILY(c99_, "__isoc99_", 1)
