/* SPDX-License-Identifier: MIT
 *
 * serve_encode_pack.c - the packed window encoding SLW2 (doc/VIEWER.md):
 * the 32-byte header of SLW1 with the body's length, then one record per
 * item of varints (LEB128) and zigzag deltas: the kind and summarised kind
 * in one byte, a flags byte, the timeline and start as differences from the
 * item before, the category, the length, the depth, then count, inclusive
 * time, timeline_to and value only where they differ from what the kind
 * implies; an item in the same box as the item before (timeline, start,
 * end, depth: a preview's next category) leaves those four out.  A
 * zoomed-out answer of previews takes about 9 bytes an item and a
 * full-detail one of states about 10, against 58 in SLW1; on the machine of
 * doc/PERFORMANCE.md the browser's fetch costs about 0.04 ms per KB.
 * Tools layer (slog-serve): public libslog headers and utils/common.
 */
#include "serve_encode.h"

#include <stdlib.h>

#define PACK_HEADER_BYTES 32u
#define PACK_ITEM_MAX 70u /* 2 + 5 varints of <= 10 bytes + 2 of <= 5 + 8 */

enum {
    PACK_COUNT = 0x40,     /* in the kind byte */
    PACK_INCLUSIVE = 0x80, /* in the kind byte */
    PACK_VALUE = 0x01,     /* in the flags byte */
    PACK_TIMELINE_TO = 0x02,
    PACK_SAME_BOX = 0x04
};

/* What the next record is coded against: the item before's box. */
typedef struct pack_prev {
    int64_t timeline, start, end;
    uint32_t depth;
    int any; /* an item came before */
} pack_prev;

static size_t put_varint(unsigned char *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}

static uint64_t zigzag(int64_t v)
{
    const uint64_t u = (uint64_t)v;
    return (u << 1) ^ (0 - (u >> 63));
}

/* a - b with two's complement wrap-around (the decoder wraps alike). */
static int64_t wrap_sub(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* The inclusive time a kind implies: its length for states and arrows. */
static int64_t implied_inclusive(uint8_t kind, int64_t start, int64_t end)
{
    return kind == SLOG_KIND_STATE || kind == SLOG_KIND_ARROW ? wrap_sub(end, start) : 0;
}

/* Item i's record at p; *prev holds the previous item's box. */
static size_t put_item(unsigned char *p, const slog_batch *b, size_t i, int64_t origin,
                       pack_prev *prev)
{
    const int64_t start = serve_rel_time(b->start[i], origin);
    const int64_t end = serve_rel_time(b->end[i], origin);
    const int64_t tl = b->timeline[i];
    uint64_t value_bits;
    memcpy(&value_bits, &b->value[i], sizeof value_bits);
    const int count = b->count[i] != 1;
    const int incl = b->inclusive[i] != implied_inclusive(b->kind[i], start, end); /* as decoded */
    const int to = b->timeline_to[i] != b->timeline[i];
    const int same = prev->any && tl == prev->timeline && start == prev->start &&
                     end == prev->end && b->depth[i] == prev->depth;
    size_t n = 0;
    p[n++] = (unsigned char)((b->kind[i] & 7u) | (unsigned)((b->of[i] & 7u) << 3) |
                             (count ? PACK_COUNT : 0) | (incl ? PACK_INCLUSIVE : 0));
    p[n++] = (unsigned char)((value_bits != 0 ? PACK_VALUE : 0) | (to ? PACK_TIMELINE_TO : 0) |
                             (same ? PACK_SAME_BOX : 0));
    if (!same) {
        n += put_varint(p + n, zigzag(tl - prev->timeline));
    }
    n += put_varint(p + n, (uint32_t)(b->category[i] + 1u));
    if (!same) {
        n += put_varint(p + n, zigzag(wrap_sub(start, prev->start)));
        n += put_varint(p + n, zigzag(wrap_sub(end, start)));
        n += put_varint(p + n, b->depth[i]);
    }
    if (count) {
        n += put_varint(p + n, b->count[i]);
    }
    if (incl) {
        n += put_varint(p + n, zigzag(b->inclusive[i]));
    }
    if (to) {
        n += put_varint(p + n, zigzag((int64_t)b->timeline_to[i] - tl));
    }
    if (value_bits != 0) {
        serve_put_f64(p + n, b->value[i]);
        n += 8;
    }
    *prev = (pack_prev){tl, start, end, b->depth[i], 1};
    return n;
}

int serve_encode_window_packed(const serve_columns *c, const serve_window_meta *m,
                               serve_response *res)
{
    const size_t n = c->n;
    unsigned char *const buf = malloc(PACK_HEADER_BYTES + (size_t)PACK_ITEM_MAX * n);
    if (buf == NULL) {
        return serve_error(res, SERVE_HTTP_INTERNAL, "out of memory");
    }
    static const unsigned char magic[4] = {'S', 'L', 'W', '2'}; /* not a C string */
    memcpy(buf, magic, sizeof magic);
    size_t at = PACK_HEADER_BYTES;
    pack_prev prev = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        at += put_item(buf + at, &c->b, i, m->origin, &prev);
    }
    serve_put_u32(buf + 4, (uint32_t)n);
    serve_put_u32(buf + 8, (m->cut ? 1u : 0u) | (m->incomplete ? 2u : 0u));
    serve_put_u32(buf + 12, (uint32_t)(at - PACK_HEADER_BYTES));
    serve_put_f64(buf + 16, (double)m->t0);
    serve_put_f64(buf + 24, (double)m->t1);
    serve_owned_body(res, "application/octet-stream", buf, at);
    return 0;
}
