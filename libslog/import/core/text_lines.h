/* SPDX-License-Identifier: MIT
 *
 * text_lines.h - 1-based line:column positions of byte offsets while a text
 * input streams by (text_lines.c).  Import library, core: libc only.
 */
#ifndef SLOG_IMPORT_TEXT_LINES_H
#define SLOG_IMPORT_TEXT_LINES_H

#include <stddef.h>
#include <stdint.h>

/*
 * Line tracker over a stream read in chunks.  Offsets asked for must not
 * decrease and must lie inside the current chunk (or at its end), so every
 * byte is scanned for newlines at most once: O(input) in total whatever the
 * number of lookups.
 */
typedef struct text_lines {
    uint64_t base;             /* stream offset of buf[0] */
    const unsigned char *buf;  /* current chunk (borrowed) */
    size_t len;
    size_t pos;                /* scanned up to buf[pos] */
    uint64_t line;             /* 1-based line at buf[pos] */
    uint64_t line_start;       /* stream offset where that line starts */
} text_lines;

void text_lines_init(text_lines *d);
/* Start the next chunk; it follows the previous one in the stream.  The
 * previous chunk must still be readable, unless text_lines_chunk_done was
 * called while it was. */
void text_lines_chunk(text_lines *d, const void *buf, size_t len);
/* Count the current chunk's remaining newlines now: call it before the
 * chunk's memory is reused or unmapped. */
void text_lines_chunk_done(text_lines *d);
/* Position of stream offset @p offset (clamped to [scanned, chunk end]). */
void text_lines_locate(text_lines *d, uint64_t offset, uint64_t *line, uint64_t *col);

#endif /* SLOG_IMPORT_TEXT_LINES_H */
