/* SPDX-License-Identifier: MIT
 *
 * node_format_cols.h - a node's state columns written as the states arrive
 * (geometry blob version 3, doc/FORMAT.md §10.1): seven regions of one
 * block, one per column in the blob's order (timeline, category, end
 * delta, duration, depth, children bitmap, children differences), so that
 * closing a node copies them instead of encoding its records again.
 *
 * The bytes are those of time unit 1, what nearly every nanosecond trace
 * has; a node of another unit (a microsecond trace) encodes its records at
 * close instead, and its columns served only to count its size.  Every
 * region is at most the node's encoded_bytes long, so one compare per
 * state keeps room for the next (fmt_cols_room).
 * No I/O.  Layer 3: may use codec and util.
 */
#ifndef NODE_FORMAT_COLS_H
#define NODE_FORMAT_COLS_H

#include <stddef.h>
#include <stdint.h>

#include "codec_varint.h"

#define FMT_COLS_REGIONS 7 /* the five state columns, the bitmap, the differences */
#define FMT_COLS_BITMAP  5
#define FMT_COLS_DIFFS   6

typedef struct fmt_cols {
    uint8_t *block; /* FMT_COLS_REGIONS regions of cap bytes */
    size_t cap;
    uint8_t *at[FMT_COLS_REGIONS]; /* end of each region's bytes */
} fmt_cols;

void fmt_cols_init(fmt_cols *c);
void fmt_cols_reset(fmt_cols *c); /* empty, keeps memory */
void fmt_cols_free(fmt_cols *c);

/* Room for one more state in a node whose columns take @p encoded bytes
 * so far; 0 or -1 (out of memory; c unchanged). */
int fmt_cols_grow(fmt_cols *c, uint64_t encoded);
static inline int fmt_cols_room(fmt_cols *c, uint64_t encoded)
{
    return encoded + CODEC_VARINT_MAX + 1 <= c->cap ? 0 : fmt_cols_grow(c, encoded);
}

/* Length of region k. */
static inline size_t fmt_cols_len(const fmt_cols *c, int k)
{
    return (size_t)(c->at[k] - (c->block + (size_t)k * c->cap));
}

/* The timeline, category, end delta and depth columns; bytes added. */
static inline uint64_t fmt_cols_put_ids(
    fmt_cols *c, uint32_t timeline, uint32_t category, uint64_t end_delta_zz, uint32_t depth)
{
    if ((timeline | category | depth | end_delta_zz) < 0x80) { /* the usual case: a byte each */
        *c->at[0]++ = (uint8_t)timeline;
        *c->at[1]++ = (uint8_t)category;
        *c->at[2]++ = (uint8_t)end_delta_zz;
        *c->at[4]++ = (uint8_t)depth;
        return 4;
    }
    uint8_t *const a0 = c->at[0], *const a1 = c->at[1], *const a2 = c->at[2];
    uint8_t *const a4 = c->at[4];
    c->at[0] = codec_varint_put(a0, timeline);
    c->at[1] = codec_varint_put(a1, category);
    c->at[2] = codec_varint_put(a2, end_delta_zz);
    c->at[4] = codec_varint_put(a4, depth);
    return (uint64_t)((c->at[0] - a0) + (c->at[1] - a1) + (c->at[2] - a2) + (c->at[4] - a4));
}

/* State i's bit of the children bitmap, and its difference when not 0;
 * bytes added. */
static inline uint64_t fmt_cols_put_children(fmt_cols *c, size_t i, int64_t resid)
{
    uint64_t added = 0;
    if (i % 8 == 0) {
        *c->at[FMT_COLS_BITMAP]++ = 0;
        added++;
    }
    if (resid != 0) {
        uint8_t *const bits = c->at[FMT_COLS_BITMAP] - 1; /* state i's byte */
        *bits |= (uint8_t)(1u << (i % 8));
        uint8_t *const a6 = c->at[FMT_COLS_DIFFS];
        c->at[FMT_COLS_DIFFS] = codec_varint_put(a6, codec_zigzag(resid));
        added += (uint64_t)(c->at[FMT_COLS_DIFFS] - a6);
    }
    return added;
}

/* The duration column; bytes added. */
static inline uint64_t fmt_cols_put_duration(fmt_cols *c, uint64_t dur)
{
    uint8_t *const a3 = c->at[3];
    c->at[3] = codec_varint_put(a3, dur);
    return (uint64_t)(c->at[3] - a3);
}

/* Write the regions one after the other at p (room for their lengths);
 * returns the byte after. */
uint8_t *fmt_cols_copy(const fmt_cols *c, uint8_t *p);

#endif /* NODE_FORMAT_COLS_H */
