/* SPDX-License-Identifier: MIT
 *
 * tree_read.h - the reader side of the tree: the node table, validated at
 * open so that no walk can index out of bounds (children tile their parent,
 * blobs lie inside /payload), the top-level subtrees (roots, in time order),
 * the drawables held by each subtree, and loading a node's drawables or
 * preview through the LRU node cache with its I/O cost.  A window walk
 * hands out, depth first and in time order, the nodes whose box touches a
 * window; its caller decides per node whether to descend (the api layer
 * filters and emits, as SQLite's btree asks its pager for pages).
 * Layer 4: may call format/store/codec/util.
 */
#ifndef TREE_READ_H
#define TREE_READ_H

#include "node_cache.h"
#include "store.h"

#include <slog/slog_common.h>

typedef struct tree_read {
    store *st;                /* borrowed */
    const char *path;         /* borrowed, for messages */
    const fmt_strings *fs;    /* borrowed string heap for drawables' args */
    store_node_row *nodes;    /* post-order */
    uint64_t nnodes;
    uint64_t *subtree_items;  /* drawables in each node's subtree */
    uint64_t *roots;          /* top-level subtrees, in time order */
    uint64_t nroots;
    uint32_t version;         /* file format version: >= 2 verifies CRC32Cs */
    node_cache cache;
} tree_read;

/* What loading blobs cost; the loaders add to it. */
typedef struct tree_read_cost {
    uint64_t bytes_read;      /* compressed bytes fetched from the file */
    uint64_t bytes_decoded;
    uint64_t cache_hits;
} tree_read_cost;

/* Read and validate the node rows that `sum` covers, compute roots and
 * subtree sizes, set up a cache of cache_bytes.  The caller sets t->st,
 * t->path and t->fs first (borrowed).  SLOG_OK, SLOG_ECORRUPT, SLOG_ENOMEM
 * or a store error; on error call tree_read_close. */
int tree_read_open(tree_read *t, const store_summary *sum, size_t cache_bytes, slog_error *err);
/* Free what open allocated (safe on a zeroed or half-opened struct). */
void tree_read_close(tree_read *t);

/* Height of the tallest root + 1 (0 for an empty file). */
uint32_t tree_read_depth(const tree_read *t);

/* A node's decoded drawables / preview, pinned in the cache: release with
 * node_cache_unpin.  Corrupt blobs -> SLOG_ECORRUPT naming the byte. */
int tree_read_load_drawables(tree_read *t, uint64_t node, cache_entry **out, tree_read_cost *cost,
                             slog_error *err);
int tree_read_load_preview(tree_read *t, uint64_t node, cache_entry **out, tree_read_cost *cost,
                           slog_error *err);
/* Attach the node's args to its pinned drawables entry e (from
 * tree_read_load_drawables): reads and verifies the args blob of a format-2
 * node once; nothing to do for format-1 nodes (args are in the drawables
 * blob) or nodes without args.  SLOG_OK, SLOG_ECORRUPT, SLOG_ENOMEM. */
int tree_read_load_args(tree_read *t, uint64_t node, cache_entry *e, tree_read_cost *cost,
                        slog_error *err);

/* Depth-first window walk.  tree_read_walk_next hands out the next node
 * whose box touches [w0, w1) (1), or 0 at the end; the caller calls
 * tree_read_walk_descend on it to visit its children next. */
typedef struct tree_read_walk {
    const tree_read *t;
    int64_t w0, w1;
    uint64_t *stack;
    size_t sp, cap;
    uint64_t visited;         /* nodes looked at, touching or not */
} tree_read_walk;

/* 0, or -1 when out of memory (then call tree_read_walk_free). */
int tree_read_walk_init(tree_read_walk *w, const tree_read *t, int64_t w0, int64_t w1);
int tree_read_walk_next(tree_read_walk *w, uint64_t *node);
int tree_read_walk_descend(tree_read_walk *w, uint64_t node);
/* Low-water mark: the smallest box start of the nodes still to visit
 * (INT64_MAX when none), so no drawable handed out later starts before. */
int64_t tree_read_walk_low(const tree_read_walk *w);
void tree_read_walk_free(tree_read_walk *w);

#endif /* TREE_READ_H */
