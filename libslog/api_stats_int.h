/* SPDX-License-Identifier: MIT
 *
 * api_stats_int.h - shared state of window statistics: the group table
 * (one slog_stats_row per (kind, timeline, category) key), the states that
 * cross the window's edges, and the per-timeline segments between their
 * ends (doc/DESIGN.md, "Window statistics").  api_stats.c walks the tree;
 * api_stats_excl.c turns crossing states and segment sums into exclusive
 * times, and holds the decode-everything fallback for format-1 files.
 * Not installed.  Layer 5: api.
 */
#ifndef API_STATS_INT_H
#define API_STATS_INT_H

#include "api_internal.h"

#include <slog/slog_stats.h>

typedef struct stats_group {
    uint32_t used;
    slog_stats_row row;
} stats_group;

/* A state met in a decoded node that the window cuts (or, in the fallback,
 * every state of the window). */
typedef struct stats_xstate {
    int64_t start, end;
    int64_t children;       /* clipped time of direct children found so far */
    uint32_t timeline, category, depth;
} stats_xstate;

/* The segments of one timeline that has crossing states: cuts are the
 * crossing states' ends inside (w0, w1), sorted; segment k is
 * [cut[k-1], cut[k]) with cut[-1] = w0 and cut[ncut] = w1. */
typedef struct stats_segs {
    int64_t *cut;
    uint32_t ncut;
    uint32_t *owner;        /* per segment: deepest crossing state covering it, or UINT32_MAX */
    int64_t *sum;           /* per segment: summed exclusive time of the states inside it */
    uint32_t timeline;
} stats_segs;

/* A wholly inside state decoded at the edges, credited once segments exist. */
typedef struct stats_loose {
    int64_t start, excl;
    uint32_t timeline;
} stats_loose;

typedef struct stats_ctx {
    slog_reader *r;
    int64_t w0, w1;
    uint32_t by, kinds;
    uint8_t *tl_sel, *cat_sel;   /* NULL = all */
    uint8_t *fold_mix[PV_FOLD_MAX + 1]; /* per fold, per row: filter bits (api_stats.c) */
    stats_group *groups;
    size_t gcap, gn;
    stats_xstate *xs;            /* crossing states (fallback: all states) */
    size_t nxs, capxs;
    uint32_t *seg_of;            /* per timeline: index in segs, or UINT32_MAX */
    stats_segs *segs;
    uint32_t nsegs;
    int64_t *all_cuts;           /* every cut of every timeline, sorted */
    size_t nall_cuts;
    stats_loose *loose;
    size_t nloose, caploose;
    uint64_t *inside;            /* nodes wholly inside the window, met at the edges */
    size_t ninside, capinside;
    slog_stats_cost cost;
    tree_read_cost io;
    slog_error *err;
} stats_ctx;

/* Load a node's preview or drawables (checked against the node table);
 * errors name the node (index and box).  Shared with api_search.c. */
int api_node_load(slog_reader *r, uint64_t node, int preview, cache_entry **out,
                  tree_read_cost *io, slog_error *err);
int api_node_error(slog_reader *r, uint64_t node, int code, uint64_t off, const char *what,
                   slog_error *err);

/* A result made of rows (util_malloc'ed, taken over; sorted by timeline,
 * kind, category).  SLOG_OK or SLOG_ENOMEM (rows are then not taken). */
int api_stats_wrap(slog_stats **out, slog_stats_row *rows, size_t n, const slog_stats_cost *cost);

/* Selection tests. */
int stats_tl_ok(const stats_ctx *c, uint32_t tl);
int stats_cat_ok(const stats_ctx *c, uint32_t cat);

/* The group of (kind, timeline, category) under the grouping; NULL: no memory. */
slog_stats_row *stats_group_get(stats_ctx *c, uint32_t kind, uint32_t tl, uint32_t cat);
/* Add one state with its clipped duration and exclusive time. */
int stats_add_state(stats_ctx *c, uint32_t tl, uint32_t cat, int64_t clipped, int64_t excl);

int stats_nomem(stats_ctx *c);
int stats_push_xstate(stats_ctx *c, const slog_state *s);

/* Clipped duration of [s, e] in the window. */
int64_t stats_clip(const stats_ctx *c, int64_t s, int64_t e);

/* After the edge walk: segments of the timelines with selected crossing
 * states.  0 or an error. */
int stats_build_segments(stats_ctx *c);
/* Segment of timeline tl holding time t, or UINT32_MAX when tl has none. */
stats_segs *stats_segs_of(const stats_ctx *c, uint32_t tl);
uint32_t stats_segment_at(const stats_segs *g, int64_t t);
/* Is there a cut of any timeline strictly inside (t0, t1)? */
int stats_any_cut_inside(const stats_ctx *c, int64_t t0, int64_t t1);
int stats_cut_inside(const stats_segs *g, int64_t t0, int64_t t1);
/* Credit a fully inside state's exclusive time to its segment. */
void stats_credit(stats_ctx *c, uint32_t tl, int64_t start, int64_t excl);
/* Exclusive time of the selected crossing states into their groups. */
int stats_finish_crossing(stats_ctx *c);
/* Fallback: c->xs holds every state of the window on the selected
 * timelines; compute their exclusive times by nesting and add them. */
int stats_finish_nesting(stats_ctx *c);
void stats_free_segments(stats_ctx *c);

#endif /* API_STATS_INT_H */
