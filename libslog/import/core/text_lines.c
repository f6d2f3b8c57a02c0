/* SPDX-License-Identifier: MIT
 *
 * text_lines.c - line:column tracking over streamed text (moved from the
 * tools' utils/common/diag.c when the importers became a library).  The
 * tracker scans each byte at most once (memchr for newlines), because
 * importers ask for positions at nondecreasing offsets.
 * Import library, core: libc only.
 */
#include "text_lines.h"

#include <string.h>

void text_lines_init(text_lines *d)
{
    memset(d, 0, sizeof *d);
    d->line = 1;
}

static void text_lines_scan_to(text_lines *d, size_t to)
{
    while (d->pos < to) {
        const unsigned char *nl = memchr(d->buf + d->pos, '\n', to - d->pos);
        if (nl == NULL) {
            d->pos = to;
            return;
        }
        d->pos = (size_t)(nl - d->buf) + 1;
        d->line++;
        d->line_start = d->base + d->pos;
    }
}

void text_lines_chunk_done(text_lines *d)
{
    text_lines_scan_to(d, d->len);
}

void text_lines_chunk(text_lines *d, const void *buf, size_t len)
{
    text_lines_scan_to(d, d->len); /* no-op after text_lines_chunk_done */
    d->base += d->len;
    d->buf = buf;
    d->len = len;
    d->pos = 0;
}

void text_lines_locate(text_lines *d, uint64_t offset, uint64_t *line, uint64_t *col)
{
    uint64_t rel = offset > d->base ? offset - d->base : 0;
    if (rel > d->len) {
        rel = d->len;
    }
    if (rel > d->pos) {
        text_lines_scan_to(d, (size_t)rel);
    }
    const uint64_t at = d->base + (rel > d->pos ? rel : d->pos);
    *line = d->line;
    *col = at - d->line_start + 1;
}
