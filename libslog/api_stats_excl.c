/* SPDX-License-Identifier: MIT
 *
 * api_stats_excl.c - exclusive time of the states that the window cuts.
 * A state X crossing an edge of W has direct children of two sorts: states
 * crossing the same edge one level deeper (decoded with X, since the nodes
 * holding them cross the edge too) and states wholly inside W.  For the
 * latter, the crossing states of a timeline cut W into segments at their
 * ends; every segment has an owner, the deepest crossing state covering it.
 * The wholly inside states of a segment form a forest whose roots are the
 * owner's direct children, and exclusive times telescope over a forest, so
 * the owner's inside-children time is the summed exclusive time of the
 * segment's states: previews and decoded states add it up per segment
 * (stats_credit) without ever needing depths.  The fallback for files
 * without per-state exclusive time nests every state of the window instead.
 * Layer 5: api.
 */
#include "api_stats_int.h"

#include "util_alloc.h"
#include "util_sat.h"

#include <stdlib.h>
#include <string.h>

#define MAX_NEST_DEPTH (1u << 20)

int64_t stats_clip(const stats_ctx *c, int64_t s, int64_t e)
{
    const int64_t lo = s > c->w0 ? s : c->w0;
    const int64_t hi = e < c->w1 ? e : c->w1;
    return hi > lo ? hi - lo : 0;
}

static int cmp_tl_depth(const void *a, const void *b)
{
    const stats_xstate *const x = a, *const y = b;
    if (x->timeline != y->timeline) {
        return x->timeline < y->timeline ? -1 : 1;
    }
    if (x->depth != y->depth) {
        return x->depth < y->depth ? -1 : 1;
    }
    return (x->start > y->start) - (x->start < y->start);
}

static int cmp_tl_start(const void *a, const void *b)
{
    const stats_xstate *const x = a, *const y = b;
    if (x->timeline != y->timeline) {
        return x->timeline < y->timeline ? -1 : 1;
    }
    if (x->start != y->start) {
        return x->start < y->start ? -1 : 1;
    }
    if (x->depth != y->depth) {
        return x->depth < y->depth ? -1 : 1;
    }
    /* a zero-length state before a sibling starting with it, so that the
     * sibling, which may hold children, is the one left open */
    return (x->end > y->end) - (x->end < y->end);
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* End of the run of xs[i..] on the same timeline. */
static size_t run_end(const stats_ctx *c, size_t i)
{
    size_t j = i;
    while (j < c->nxs && c->xs[j].timeline == c->xs[i].timeline) {
        j++;
    }
    return j;
}

static int run_has_selected(const stats_ctx *c, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++) {
        if (stats_cat_ok(c, c->xs[i].category)) {
            return 1;
        }
    }
    return 0;
}

static void add_cut(const stats_ctx *c, stats_segs *g, int64_t t)
{
    if (t > c->w0 && t < c->w1) {
        g->cut[g->ncut++] = t;
    }
}

/* Owner of each segment: the deepest crossing state of xs[a..b) covering it. */
static void find_owners(const stats_ctx *c, stats_segs *g, size_t a, size_t b)
{
    for (uint32_t k = 0; k <= g->ncut; k++) {
        const int64_t lo = k == 0 ? c->w0 : g->cut[k - 1];
        const int64_t hi = k == g->ncut ? c->w1 : g->cut[k];
        g->owner[k] = UINT32_MAX;
        for (size_t i = a; i < b; i++) {
            const stats_xstate *const x = &c->xs[i];
            const int deeper = g->owner[k] == UINT32_MAX || x->depth > c->xs[g->owner[k]].depth;
            if (x->start <= lo && x->end >= hi && deeper) {
                g->owner[k] = (uint32_t)i;
            }
        }
        g->sum[k] = 0;
    }
}

/* Segments of the timeline whose crossing states are xs[a..b). */
static int build_one(stats_ctx *c, stats_segs *g, size_t a, size_t b)
{
    const size_t n = 2 * (b - a);
    g->cut = util_calloc(n + 1, sizeof *g->cut);
    g->owner = util_calloc(n + 2, sizeof *g->owner);
    g->sum = util_calloc(n + 2, sizeof *g->sum);
    if (g->cut == NULL || g->owner == NULL || g->sum == NULL) {
        return stats_nomem(c);
    }
    for (size_t i = a; i < b; i++) {
        add_cut(c, g, c->xs[i].start);
        add_cut(c, g, c->xs[i].end);
    }
    qsort(g->cut, g->ncut, sizeof *g->cut, cmp_i64);
    uint32_t u = 0;
    for (uint32_t i = 0; i < g->ncut; i++) {
        if (u == 0 || g->cut[u - 1] != g->cut[i]) {
            g->cut[u++] = g->cut[i];
        }
    }
    g->ncut = u;
    find_owners(c, g, a, b);
    return SLOG_OK;
}

static int collect_all_cuts(stats_ctx *c)
{
    size_t n = 0;
    for (uint32_t s = 0; s < c->nsegs; s++) {
        n += c->segs[s].ncut;
    }
    c->all_cuts = util_calloc(n + 1, sizeof *c->all_cuts);
    if (c->all_cuts == NULL) {
        return stats_nomem(c);
    }
    for (uint32_t s = 0; s < c->nsegs; s++) {
        memcpy(c->all_cuts + c->nall_cuts, c->segs[s].cut, c->segs[s].ncut * sizeof *c->all_cuts);
        c->nall_cuts += c->segs[s].ncut;
    }
    qsort(c->all_cuts, c->nall_cuts, sizeof *c->all_cuts, cmp_i64);
    return SLOG_OK;
}

int stats_build_segments(stats_ctx *c)
{
    if (c->nxs > 1) {
        qsort(c->xs, c->nxs, sizeof *c->xs, cmp_tl_depth);
    }
    c->seg_of = util_malloc(((size_t)c->r->ntl + 1) * sizeof *c->seg_of);
    c->segs = util_calloc(c->nxs + 1, sizeof *c->segs);
    if (c->seg_of == NULL || c->segs == NULL) {
        return stats_nomem(c);
    }
    memset(c->seg_of, 0xff, ((size_t)c->r->ntl + 1) * sizeof *c->seg_of);
    for (size_t a = 0; a < c->nxs;) {
        const size_t b = run_end(c, a);
        if (run_has_selected(c, a, b)) {
            c->seg_of[c->xs[a].timeline] = c->nsegs;
            c->segs[c->nsegs].timeline = c->xs[a].timeline;
            const int rc = build_one(c, &c->segs[c->nsegs++], a, b);
            if (rc != SLOG_OK) {
                return rc;
            }
        }
        a = b;
    }
    return collect_all_cuts(c);
}

stats_segs *stats_segs_of(const stats_ctx *c, uint32_t tl)
{
    if (c->seg_of == NULL || tl >= c->r->ntl || c->seg_of[tl] == UINT32_MAX) {
        return NULL;
    }
    return &c->segs[c->seg_of[tl]];
}

/* Number of values in sorted v[0..n) that are <= t. */
static size_t count_le(const int64_t *v, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= t) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

uint32_t stats_segment_at(const stats_segs *g, int64_t t)
{
    return (uint32_t)count_le(g->cut, g->ncut, t);
}

int stats_any_cut_inside(const stats_ctx *c, int64_t t0, int64_t t1)
{
    const size_t k = count_le(c->all_cuts, c->nall_cuts, t0);
    return k < c->nall_cuts && c->all_cuts[k] < t1;
}

int stats_cut_inside(const stats_segs *g, int64_t t0, int64_t t1)
{
    const size_t k = count_le(g->cut, g->ncut, t0);
    return k < g->ncut && g->cut[k] < t1;
}

void stats_credit(stats_ctx *c, uint32_t tl, int64_t start, int64_t excl)
{
    stats_segs *const g = stats_segs_of(c, tl);
    if (g != NULL) {
        int64_t *const seg = &g->sum[stats_segment_at(g, start)];
        *seg = util_sat_add_i64(*seg, excl);
    }
}

/* Children time of crossing state xs[i] (its run is xs[a..b)). */
static int64_t crossing_children(const stats_ctx *c, const stats_segs *g, size_t i, size_t a,
                                 size_t b)
{
    const stats_xstate *const x = &c->xs[i];
    int64_t kids = 0;
    for (size_t j = a; j < b; j++) {
        const stats_xstate *const y = &c->xs[j];
        if (y->depth == x->depth + 1 && y->start >= x->start && y->end <= x->end) {
            kids += stats_clip(c, y->start, y->end);
        }
    }
    for (uint32_t k = 0; g != NULL && k <= g->ncut; k++) {
        if (g->owner[k] == i) {
            kids = util_sat_add_i64(kids, g->sum[k]);
        }
    }
    return kids;
}

int stats_finish_crossing(stats_ctx *c)
{
    for (size_t a = 0; a < c->nxs;) {
        const size_t b = run_end(c, a);
        const stats_segs *const g = stats_segs_of(c, c->xs[a].timeline);
        for (size_t i = a; i < b; i++) {
            const stats_xstate *const x = &c->xs[i];
            if (!stats_cat_ok(c, x->category)) {
                continue;
            }
            const int64_t clip = stats_clip(c, x->start, x->end);
            const int64_t kids = crossing_children(c, g, i, a, b);
            if (stats_add_state(c, x->timeline, x->category, clip, clip - kids) != SLOG_OK) {
                return stats_nomem(c);
            }
        }
        a = b;
    }
    return SLOG_OK;
}

/* Link every state of one timeline's run xs[a..b) (sorted by start, then
 * depth) to its parent: the latest-started state one level up, when it
 * contains the state. */
static int nest_run(stats_ctx *c, size_t a, size_t b, size_t **open, size_t *cap)
{
    for (size_t i = a; i < b; i++) {
        const stats_xstate *const s = &c->xs[i];
        const uint32_t d = s->depth;
        if (d >= MAX_NEST_DEPTH) {
            continue;
        }
        const size_t old = *cap;
        void *p = *open;
        if (util_grow(&p, cap, (size_t)d + 1, sizeof **open) != 0) {
            return stats_nomem(c);
        }
        *open = p;
        for (size_t k = old; k < *cap; k++) {
            (*open)[k] = SIZE_MAX;
        }
        if (d > 0 && (*open)[d - 1] != SIZE_MAX && (*open)[d - 1] >= a) {
            stats_xstate *const parent = &c->xs[(*open)[d - 1]];
            if (parent->start <= s->start && s->end <= parent->end) {
                parent->children += stats_clip(c, s->start, s->end);
            }
        }
        (*open)[d] = i;
        for (size_t k = (size_t)d + 1; k < *cap; k++) {
            (*open)[k] = SIZE_MAX; /* deeper levels restart under this state */
        }
    }
    return SLOG_OK;
}

int stats_finish_nesting(stats_ctx *c)
{
    if (c->nxs > 1) {
        qsort(c->xs, c->nxs, sizeof *c->xs, cmp_tl_start);
    }
    size_t *open = NULL, cap = 0;
    int rc = SLOG_OK;
    for (size_t a = 0; a < c->nxs && rc == SLOG_OK;) {
        const size_t b = run_end(c, a);
        rc = nest_run(c, a, b, &open, &cap);
        a = b;
    }
    util_free(open);
    for (size_t i = 0; i < c->nxs && rc == SLOG_OK; i++) {
        const stats_xstate *const x = &c->xs[i];
        if (stats_cat_ok(c, x->category)) {
            const int64_t clip = stats_clip(c, x->start, x->end);
            rc = stats_add_state(c, x->timeline, x->category, clip, clip - x->children);
        }
    }
    return rc;
}

void stats_free_segments(stats_ctx *c)
{
    for (uint32_t s = 0; s < c->nsegs; s++) {
        util_free(c->segs[s].cut);
        util_free(c->segs[s].owner);
        util_free(c->segs[s].sum);
    }
    util_free(c->segs);
    util_free(c->seg_of);
    util_free(c->all_cuts);
    c->segs = NULL;
    c->seg_of = NULL;
    c->all_cuts = NULL;
    c->nsegs = 0;
    c->nall_cuts = 0;
}
