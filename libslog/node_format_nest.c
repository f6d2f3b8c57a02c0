/* SPDX-License-Identifier: MIT
 *
 * node_format_nest.c - the node-local children-time rule (see
 * node_format_nest.h): an open-addressing table of accumulators keyed by
 * (timeline, depth).  The writer runs it as states are appended, the
 * decoder over a decoded blob's states, and both must agree bit for bit.
 * Layer 3: may use codec and util.
 */
#include "node_format_nest.h"

#include "util_alloc.h"

#include <string.h>

void fmt_nest_init(fmt_nest *n)
{
    memset(n, 0, sizeof *n);
    n->gen = 1;
}

void fmt_nest_reset(fmt_nest *n)
{
    if (n->used > 0) {
        memset(n->slots, 0, n->cap * sizeof *n->slots);
    }
    n->used = 0;
    if (++n->gen == 0) { /* wrapped: no cell may look live */
        if (n->nrows > 0) {
            memset(n->rows, 0, (size_t)n->nrows * FMT_NEST_DEPTHS * sizeof *n->rows);
        }
        n->gen = 1;
    }
}

void fmt_nest_free(fmt_nest *n)
{
    util_free(n->slots);
    util_free(n->rows);
    fmt_nest_init(n);
}

/* Dense rows for the timelines up to max_timeline that have any; new
 * rows are dead. */
static int reserve_rows(fmt_nest *n, uint32_t max_timeline)
{
    const uint32_t top = max_timeline < FMT_NEST_DENSE_TL ? max_timeline : FMT_NEST_DENSE_TL - 1;
    if (top < n->nrows) {
        return 0;
    }
    uint32_t rows = n->nrows ? n->nrows : 64;
    while (rows <= top) {
        rows *= 2;
    }
    fmt_nest_cell *const c = util_realloc(n->rows, (size_t)rows * FMT_NEST_DEPTHS * sizeof *c);
    if (c == NULL) {
        return -1;
    }
    memset(c + (size_t)n->nrows * FMT_NEST_DEPTHS, 0,
           (size_t)(rows - n->nrows) * FMT_NEST_DEPTHS * sizeof *c);
    n->rows = c;
    n->nrows = rows;
    return 0;
}

static size_t nest_hash(uint32_t timeline, uint64_t depth, size_t cap)
{
    uint64_t h = ((uint64_t)timeline << 32 ^ depth) * 0x9E3779B97F4A7C15ull;
    h ^= (depth >> 32) * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

/* The slot of (timeline, depth), or the empty slot where it would go. */
static fmt_nest_slot *nest_find(const fmt_nest *n, uint32_t timeline, uint64_t depth)
{
    size_t j = nest_hash(timeline, depth, n->cap);
    while (n->slots[j].full && (n->slots[j].timeline != timeline || n->slots[j].depth != depth)) {
        j = (j + 1) & (n->cap - 1);
    }
    return &n->slots[j];
}

int fmt_nest_grow(fmt_nest *n, size_t more, uint32_t max_timeline)
{
    if (more > SIZE_MAX / 4 - n->used || reserve_rows(n, max_timeline) != 0) {
        return -1;
    }
    if ((n->used + more) * 2 <= n->cap) {
        return 0;
    }
    size_t ncap = n->cap ? n->cap * 2 : 64;
    while (ncap < (n->used + more) * 2) {
        ncap *= 2;
    }
    fmt_nest_slot *const s = util_calloc(ncap, sizeof *s);
    if (s == NULL) {
        return -1;
    }
    const fmt_nest old = *n;
    n->slots = s;
    n->cap = ncap;
    for (size_t i = 0; i < old.cap; i++) {
        if (old.slots[i].full) {
            *nest_find(n, old.slots[i].timeline, old.slots[i].depth) = old.slots[i];
        }
    }
    util_free(old.slots);
    return 0;
}

/* The dense cell of (timeline, depth), NULL when the key is the hash's. */
static fmt_nest_cell *dense_cell(const fmt_nest *n, uint32_t timeline, uint64_t depth)
{
    if (timeline >= FMT_NEST_DENSE_TL || depth >= FMT_NEST_DEPTHS) {
        return NULL;
    }
    return &n->rows[(size_t)timeline * FMT_NEST_DEPTHS + depth];
}

/* The children time the accumulator of (timeline, depth + 1) shows for
 * [start, end]; that accumulator starts over. */
static uint64_t take_children(fmt_nest *n, uint32_t timeline, uint64_t depth, int64_t start,
                              int64_t end)
{
    uint64_t *sum;
    int64_t lo, hi;
    fmt_nest_cell *const c = dense_cell(n, timeline, depth);
    if (c != NULL) {
        if (c->gen != n->gen) {
            return 0;
        }
        sum = &c->sum, lo = c->lo, hi = c->hi;
    } else {
        fmt_nest_slot *const kids = nest_find(n, timeline, depth);
        if (!kids->full) {
            return 0;
        }
        sum = &kids->sum, lo = kids->lo, hi = kids->hi;
    }
    const uint64_t children = *sum != 0 && lo >= start && hi <= end ? *sum : 0;
    *sum = 0;
    return children;
}

/* The accumulator of (timeline, depth) takes [start, end]. */
static void accumulate(uint64_t *sum, int64_t *lo, int64_t *hi, int64_t start, int64_t end)
{
    if (*sum == 0) {
        *lo = start;
        *hi = end;
    }
    *sum += (uint64_t)end - (uint64_t)start;
    *lo = start < *lo ? start : *lo;
    *hi = end > *hi ? end : *hi;
}

uint64_t fmt_nest_next_any(fmt_nest *n, uint32_t timeline, uint32_t depth, int64_t start,
                           int64_t end)
{
    const uint64_t children = take_children(n, timeline, (uint64_t)depth + 1, start, end);
    fmt_nest_cell *const c = dense_cell(n, timeline, depth);
    if (c != NULL) {
        if (c->gen != n->gen) {
            c->gen = n->gen;
            c->sum = 0;
        }
        accumulate(&c->sum, &c->lo, &c->hi, start, end);
        return children;
    }
    fmt_nest_slot *const self = nest_find(n, timeline, depth);
    if (!self->full) {
        self->full = 1;
        self->timeline = timeline;
        self->depth = depth;
        n->used++;
    }
    accumulate(&self->sum, &self->lo, &self->hi, start, end);
    return children;
}
