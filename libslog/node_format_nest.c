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
}

void fmt_nest_reset(fmt_nest *n)
{
    if (n->used > 0) {
        memset(n->slots, 0, n->cap * sizeof *n->slots);
    }
    n->used = 0;
}

void fmt_nest_free(fmt_nest *n)
{
    util_free(n->slots);
    fmt_nest_init(n);
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

int fmt_nest_reserve(fmt_nest *n, size_t more)
{
    if (more > SIZE_MAX / 4 - n->used) {
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

uint64_t fmt_nest_next(fmt_nest *n, uint32_t timeline, uint32_t depth, int64_t start,
                       int64_t end)
{
    uint64_t children = 0;
    fmt_nest_slot *const kids = nest_find(n, timeline, (uint64_t)depth + 1);
    if (kids->full) {
        if (kids->sum != 0 && kids->lo >= start && kids->hi <= end) {
            children = kids->sum;
        }
        kids->sum = 0;
    }
    fmt_nest_slot *const self = nest_find(n, timeline, depth);
    if (!self->full) {
        self->full = 1;
        self->timeline = timeline;
        self->depth = depth;
        n->used++;
    }
    if (self->sum == 0) {
        self->lo = start;
        self->hi = end;
    }
    self->sum += (uint64_t)end - (uint64_t)start;
    self->lo = start < self->lo ? start : self->lo;
    self->hi = end > self->hi ? end : self->hi;
    return children;
}
