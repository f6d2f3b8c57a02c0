/* SPDX-License-Identifier: MIT
 *
 * tree_walk.h - the decisions of a window/zoom traversal over the node
 * table (post-order rows with subtree sizes): does a node's box touch the
 * window, is it coarse enough to stand as a preview, and which are its
 * children.  No I/O.
 * Layer 4: may call format/store/codec/util.
 */
#ifndef TREE_WALK_H
#define TREE_WALK_H

#include "store.h"

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

/* With resolution > 0 (ticks per pixel), a node spanning at most one pixel
 * is shown by its preview instead of its drawables and subtree. */
static inline int tree_walk_as_preview(const store_node_row *n, int64_t resolution)
{
    return resolution > 0 && n->preview_len > 0 &&
           (uint64_t)n->t1 - (uint64_t)n->t0 <= (uint64_t)resolution;
}

/* Children of node i, last child first: call with *j = i, then repeatedly
 * while tree_walk_next_child returns 1. */
int tree_walk_next_child(const store_node_row *nodes, uint64_t i, uint64_t *j);

#endif /* TREE_WALK_H */
