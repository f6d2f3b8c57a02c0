/* SPDX-License-Identifier: MIT
 *
 * node_format_nest.h - the children time a node's own states show
 * (geometry blob version 3, doc/FORMAT.md §10.1).  The writer computes a
 * state's exclusive time from per-(timeline, depth) accumulators of the
 * durations of the states seen one level deeper (api_writer.c); run over
 * one node's states in stored order, the same rule gives, for almost every
 * state, its children time from the node alone.  The geometry blob then
 * stores only the difference (mostly 0: one bitmap bit), and a decoder
 * that runs the same rule over the decoded states gets the writer's value
 * back exactly, whatever the arrival order was.
 *
 * Rule, per state (timeline, depth, [start, end]) in stored order: k = the
 * accumulator of (timeline, depth + 1); children = k.sum when k.sum != 0
 * and k's box lies in [start, end], else 0; k.sum = 0; then the accumulator
 * of (timeline, depth) gets the state: its box starts afresh when its sum
 * is 0, and its sum grows by end - start.  Sums wrap modulo 2^64.
 * No I/O.  Layer 3: may use codec and util.
 */
#ifndef NODE_FORMAT_NEST_H
#define NODE_FORMAT_NEST_H

#include <stddef.h>
#include <stdint.h>

typedef struct fmt_nest_slot {
    uint64_t depth;  /* depth + 1 of a state is looked up: 33 bits */
    uint32_t timeline;
    uint32_t full;   /* 0 = empty slot */
    uint64_t sum;    /* durations accumulated since the last reset */
    int64_t lo, hi;  /* their box */
} fmt_nest_slot;

/* Accumulators of timelines below FMT_NEST_DENSE_TL at depths below
 * FMT_NEST_DEPTHS sit in a dense table (row per timeline, depth d and d + 1
 * side by side: one cache line for both lookups of a state), the others in
 * the hash; which one holds a key never changes.  A dense cell is live
 * when its generation is the table's: a reset only bumps the generation. */
#define FMT_NEST_DEPTHS   16u
#define FMT_NEST_DENSE_TL 256u

typedef struct fmt_nest_cell {
    uint64_t sum;
    int64_t lo, hi;
    uint32_t gen;    /* live when == fmt_nest.gen */
} fmt_nest_cell;

typedef struct fmt_nest {
    fmt_nest_slot *slots;
    size_t cap;      /* power of two, or 0 */
    size_t used;
    fmt_nest_cell *rows; /* nrows * FMT_NEST_DEPTHS cells */
    uint32_t nrows;
    uint32_t gen;
} fmt_nest;

void fmt_nest_init(fmt_nest *n);
/* Empty, keeps memory. */
void fmt_nest_reset(fmt_nest *n);
void fmt_nest_free(fmt_nest *n);

/* Make room for `more` states on timelines <= max_timeline, so as many
 * fmt_nest_next calls cannot fail; 0 or -1 (out of memory; n unchanged). */
int fmt_nest_grow(fmt_nest *n, size_t more, uint32_t max_timeline);
static inline int fmt_nest_reserve(fmt_nest *n, size_t more, uint32_t max_timeline)
{
    if ((max_timeline < n->nrows || n->nrows == FMT_NEST_DENSE_TL) &&
        more <= n->cap / 2 && n->used <= n->cap / 2 - more) {
        return 0; /* room already: the writer's case for all but a few states */
    }
    return fmt_nest_grow(n, more, max_timeline);
}
/* Room for one more state (timeline, depth): nothing to do when both its
 * keys are dense cells of rows already made, the writer's usual case. */
static inline int fmt_nest_reserve_state(fmt_nest *n, uint32_t timeline, uint32_t depth)
{
    if (timeline < n->nrows && depth < FMT_NEST_DEPTHS - 1) {
        return 0; /* nrows <= FMT_NEST_DENSE_TL: fmt_nest_next's dense case */
    }
    return fmt_nest_reserve(n, 1, timeline);
}
/* The next state of the node: its children time by the rule above
 * (fmt_nest_next_any: any key; fmt_nest_next: inline when both keys are
 * dense, the writer's case for every state of a usual trace). */
uint64_t fmt_nest_next_any(fmt_nest *n, uint32_t timeline, uint32_t depth, int64_t start,
                           int64_t end);
static inline uint64_t fmt_nest_next(fmt_nest *n, uint32_t timeline, uint32_t depth,
                                     int64_t start, int64_t end)
{
    if (timeline >= FMT_NEST_DENSE_TL || depth >= FMT_NEST_DEPTHS - 1) {
        return fmt_nest_next_any(n, timeline, depth, start, end);
    }
    fmt_nest_cell *const self = &n->rows[(size_t)timeline * FMT_NEST_DEPTHS + depth];
    fmt_nest_cell *const kids = self + 1;
    uint64_t children = 0;
    if (kids->gen == n->gen) {
        children = kids->sum != 0 && kids->lo >= start && kids->hi <= end ? kids->sum : 0;
        kids->sum = 0;
    }
    if (self->gen != n->gen || self->sum == 0) {
        self->gen = n->gen;
        self->sum = 0;
        self->lo = start;
        self->hi = end;
    }
    self->sum += (uint64_t)end - (uint64_t)start;
    self->lo = start < self->lo ? start : self->lo;
    self->hi = end > self->hi ? end : self->hi;
    return children;
}

#endif /* NODE_FORMAT_NEST_H */
