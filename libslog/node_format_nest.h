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

typedef struct fmt_nest {
    fmt_nest_slot *slots;
    size_t cap;      /* power of two, or 0 */
    size_t used;
} fmt_nest;

void fmt_nest_init(fmt_nest *n);
/* Empty, keeps memory. */
void fmt_nest_reset(fmt_nest *n);
void fmt_nest_free(fmt_nest *n);

/* Make room for `more` states, so as many fmt_nest_next calls cannot
 * fail; 0 or -1 (out of memory; n unchanged). */
int fmt_nest_reserve(fmt_nest *n, size_t more);
/* The next state of the node: its children time by the rule above. */
uint64_t fmt_nest_next(fmt_nest *n, uint32_t timeline, uint32_t depth, int64_t start,
                       int64_t end);

#endif /* NODE_FORMAT_NEST_H */
