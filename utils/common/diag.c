/* SPDX-License-Identifier: MIT
 *
 * diag.c - capped, uniformly formatted warnings of the command-line tools
 * (the line:column tracker over streamed text moved to the import library:
 * libslog/import/core/text_lines.c).  Tools layer: libc only.
 */
#include "diag.h"

#include <string.h>

void diag_caps_init(diag_caps *c, unsigned limit)
{
    memset(c, 0, sizeof *c);
    c->limit = limit;
}

bool diag_caps_take(diag_caps *c, const void *key, bool *last)
{
    *last = false;
    c->total++;
    /* Open addressing on the pointer value; a full table shares the last
     * slot, which only makes the cap coarser, never the count wrong. */
    size_t h = ((uintptr_t)key >> 4) % DIAG_CAP_SLOTS;
    for (size_t probe = 0; probe < DIAG_CAP_SLOTS; probe++) {
        const size_t i = (h + probe) % DIAG_CAP_SLOTS;
        if (c->key[i] == key || c->key[i] == NULL) {
            h = i;
            break;
        }
    }
    c->key[h] = key;
    const uint64_t n = ++c->seen[h];
    if (n > c->limit) {
        c->suppressed++;
        return false;
    }
    *last = n == c->limit;
    return true;
}

void diag_vprint(FILE *out, const char *prog, const diag_where *at, const char *severity,
                 const char *fmt, va_list ap)
{
    (void)fprintf(out, "%s: ", prog);
    if (at->file != NULL) {
        if (at->line > 0) {
            (void)fprintf(out, "%s:%llu:%llu: ", at->file, (unsigned long long)at->line,
                          (unsigned long long)at->col);
        } else if (at->offset != UINT64_MAX) {
            (void)fprintf(out, "%s: byte %llu: ", at->file, (unsigned long long)at->offset);
        } else {
            (void)fprintf(out, "%s: ", at->file);
        }
    }
    if (severity != NULL && severity[0] != '\0') {
        (void)fprintf(out, "%s: ", severity);
    }
    (void)vfprintf(out, fmt, ap);
    if (at->line > 0 && at->offset != UINT64_MAX) {
        (void)fprintf(out, " (byte %llu)", (unsigned long long)at->offset);
    }
    (void)fputc('\n', out);
}

void diag_print(FILE *out, const char *prog, const diag_where *at, const char *severity,
                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vprint(out, prog, at, severity, fmt, ap);
    va_end(ap);
}
