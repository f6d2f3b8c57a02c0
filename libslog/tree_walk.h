/* SPDX-License-Identifier: MIT
 *
 * tree_walk.h - the decisions of a window/zoom traversal over the node
 * table (post-order rows with subtree sizes): does a node's box touch the
 * window, is it coarse enough to stand as a preview (children are
 * enumerated by tree_read_next_child, which checks their tiling).  No I/O.
 * Layer 4: may call format/store/codec/util.
 */
#ifndef TREE_WALK_H
#define TREE_WALK_H

#include "preview.h"
#include "store.h"
#include "tree_build.h"

/* A node's box [t0, t1] (closed) touches the window [w0, w1). */
static inline int tree_walk_touches(const store_node_row *n, int64_t w0, int64_t w1)
{
    return n->t0 <= n->t1 && n->t0 < w1 && n->t1 >= w0;
}

/* Drawable [s, e] overlaps [w0, w1): states with s < w1 and e > w0;
 * points (s == e) with w0 <= s < w1. */
static inline int tree_walk_overlaps(int64_t s, int64_t e, int64_t w0, int64_t w1)
{
    return s < w1 && (e > w0 || (s == e && s >= w0));
}

/* Dense nodes at most this many pixels wide are shown as previews. */
#define TREE_WALK_DENSE_PIXELS 16u

/* A node's time bins are fine enough to draw it from its preview when they
 * are at most this many pixels wide.  One bin step (k + 1) doubles their
 * width, and the writer raises k until a leaf's bins fit their budget, so a
 * leaf's bins sit anywhere in a factor of 2 around a pixel: at 1 pixel, a
 * leaf that needed one more step was read whole (the NCCL corpus trace's
 * first leaf, 1.44-pixel bins, 46.6 KB of geometry for a 1000-pixel view:
 * doc/DESIGN.md, "Time bins").  2 pixels keeps previews 8 times finer than
 * the TREE_WALK_DENSE_PIXELS cap a node without bins stands at. */
#define TREE_WALK_BIN_PIXELS 2u
_Static_assert(TREE_WALK_BIN_PIXELS <= 2u, "resolution x TREE_WALK_BIN_PIXELS fits a uint64");

/* Bins 2^k ticks wide are at most TREE_WALK_BIN_PIXELS pixels wide. */
static inline int tree_walk_bins_fine(uint32_t k, int64_t resolution)
{
    return k < 63 && resolution > 0 &&
           ((uint64_t)1 << k) <= (uint64_t)resolution * TREE_WALK_BIN_PIXELS;
}

/* The k of a node's preview bins from its row (63 when it has none). */
static inline uint32_t tree_walk_bins_k(const store_node_row *n)
{
    const uint32_t k1 = (n->flags & TREE_NODE_BINS_MASK) >> TREE_NODE_BINS_SHIFT;
    return k1 == 0 || k1 > 63 ? 63 : k1 - 1;
}

/* The density rule.  With resolution > 0 (ticks per pixel), a node stands
 * as its preview instead of its drawables and subtree when its detail is
 * finer than a pixel: it spans less than one pixel, or its subtree holds
 * more than one drawable per pixel per row, rows being those present in
 * its preview (restricted to the query's selection): items > pixels x rows,
 * and it is at most TREE_WALK_DENSE_PIXELS wide or its preview's time bins
 * are at most TREE_WALK_BIN_PIXELS wide (the node's row says their width;
 * the caller checks the bins it loaded agree).  Other nodes are
 * descended, so previews keep the time resolution of a few pixels, and a
 * node read in full holds about one drawable per pixel and row: bytes read
 * stay near pixels x rows.
 * tree_walk_preview_candidate says 0 (never a preview), 1 (a preview
 * whatever its rows) or 2 (a preview when items > pixels x rows: count
 * the rows, then ask tree_walk_as_preview). */
static inline int tree_walk_preview_candidate(const store_node_row *n, uint64_t subtree_items,
                                              int64_t resolution)
{
    if (resolution <= 0 || n->preview_len == 0) {
        return 0;
    }
    const uint64_t span = (uint64_t)n->t1 - (uint64_t)n->t0;
    const uint64_t pixels = span / (uint64_t)resolution;
    if (pixels == 0) {
        return 1;
    }
    if (subtree_items <= pixels) {
        return 0;
    }
    return pixels <= TREE_WALK_DENSE_PIXELS ||
                   tree_walk_bins_fine(tree_walk_bins_k(n), resolution)
               ? 2
               : 0;
}

static inline int tree_walk_as_preview(const store_node_row *n, uint64_t subtree_items,
                                       uint64_t rows, int64_t resolution)
{
    const int c = tree_walk_preview_candidate(n, subtree_items, resolution);
    if (c != 2) {
        return c;
    }
    const uint64_t pixels = ((uint64_t)n->t1 - (uint64_t)n->t0) / (uint64_t)resolution;
    return subtree_items / (rows ? rows : 1) > pixels;
}

#endif /* TREE_WALK_H */
