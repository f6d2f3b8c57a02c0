/* SPDX-License-Identifier: MIT
 *
 * util_error.c - slog_error filling and status names.
 * Layer 0: libc only.
 */
#include "util_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The name in parentheses: util_error.h's analyzer-only macro stays out of it. */
int(util_err)(slog_error *err, int code, uint64_t offset, const char *source, const char *fmt, ...)
{
    if (err == NULL || fmt == NULL) {
        return code;
    }
    err->code = code;
    err->offset = offset;
    (void)snprintf(err->source, sizeof err->source, "%s", source != NULL ? source : "");
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(err->message, sizeof err->message, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized): va_start above; analyzer false positive
    va_end(ap);
    if (n < 0) {
        err->message[0] = '\0';
    }
    return code;
}

int util_err_source(slog_error *err, int code, const char *source)
{
    if (err != NULL && code < 0 && err->source[0] == '\0' && source != NULL) {
        (void)snprintf(err->source, sizeof err->source, "%s", source);
    }
    return code;
}
