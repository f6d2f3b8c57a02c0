/* SPDX-License-Identifier: MIT
 *
 * tree_read.h - the reader side of the tree: the node table, each row
 * validated when first read so that no walk can index out of bounds
 * (children tile their parent, blobs lie inside /payload), the top-level
 * subtrees (roots, in time order), the drawables held by each subtree, and
 * loading a node's drawables or preview through the LRU node cache with
 * its I/O cost.  The node table is read on demand in verified blocks kept
 * in a bounded cache, so opening costs O(roots), not O(nodes).  A window
 * walk hands out, depth first and in time order, the nodes whose box
 * touches a window; its caller decides per node whether to descend (the api layer
 * filters and emits, as SQLite's btree asks its pager for pages).
 * Layer 4: may call format/store/codec/util.
 */
#ifndef TREE_READ_H
#define TREE_READ_H

#include "node_cache.h"
#include "store.h"

#include <slog/slog_common.h>

/* The node table is read lazily: rows come in blocks of
 * TREE_READ_BLOCK_ROWS (one hyperslab read each), every row of a block is
 * verified when the block is loaded, and at most TREE_READ_BLOCK_SLOTS
 * blocks are kept (4 MiB of rows), whatever the file's size. */
#define TREE_READ_BLOCK_ROWS 16u
#define TREE_READ_BLOCK_SLOTS 256u

/* store_node_row.flags of an index file (doc/FORMAT.md §13): a copied node
 * whose children were not copied (its subtree is in the input file), and
 * the row that locates the input table. */
#define TREE_NODE_CUT   2u
#define TREE_NODE_INDEX 4u

typedef struct tree_read_block {
    uint64_t index;           /* block number; UINT64_MAX: slot empty */
    uint64_t used;            /* last use (tick), for eviction */
    uint64_t nrows;           /* rows loaded: the last block may grow (refresh) */
    store_node_row *rows;     /* TREE_READ_BLOCK_ROWS rows, allocated on first use */
    /* rows that failed their checks: a damaged row fails alone, its block stays usable */
    uint64_t bad[(TREE_READ_BLOCK_ROWS + 63) / 64];
} tree_read_block;

typedef struct tree_read {
    store *st;                /* borrowed */
    const char *path;         /* borrowed, for messages */
    const fmt_strings *fs;    /* borrowed string heap for drawables' args */
    uint64_t nnodes;          /* rows the summary covers (post-order) */
    uint64_t payload_bytes;   /* /payload bytes the summary covers */
    uint64_t *roots;          /* top-level subtrees, in time order */
    uint64_t nroots;
    uint32_t depth;           /* tallest root's level + 1 */
    uint32_t version;         /* file format version: >= 2 verifies CRC32Cs */
    uint64_t tick;
    tree_read_block blocks[TREE_READ_BLOCK_SLOTS];
    node_cache cache;
} tree_read;

/* What loading blobs cost; the loaders add to it. */
typedef struct tree_read_cost {
    uint64_t bytes_read;      /* compressed bytes fetched from the file */
    uint64_t bytes_decoded;
    uint64_t cache_hits;
} tree_read_cost;

/* Find the roots (the last row for a complete file; for an incomplete one,
 * walking back from the last row by subtree sizes: O(roots) rows read) and
 * set up a node cache of cache_bytes.  The caller sets t->st, t->path and
 * t->fs first (borrowed).  No other row is read: each is read and verified
 * when first used.  SLOG_OK, SLOG_ECORRUPT, SLOG_ENOMEM or a store error;
 * on error call tree_read_close. */
int tree_read_open(tree_read *t, const store_summary *sum, size_t cache_bytes, slog_error *err);
/* The same for a part of an index file's /nodes (one input's copied top
 * levels): the roots are given (rows < sum->nodes), with the input's depth,
 * and no row is read. */
typedef struct tree_read_roots {
    const uint64_t *v;        /* root rows */
    uint64_t n;
    uint32_t depth;           /* levels of the tallest */
} tree_read_roots;
int tree_read_open_roots(tree_read *t, const store_summary *sum, const tree_read_roots *roots,
                         size_t cache_bytes, slog_error *err);
/* The parts of the view a refresh changes, kept to undo it. */
typedef struct tree_read_view {
    uint64_t nnodes, payload_bytes;
    uint64_t *roots;
    uint64_t nroots;
    uint32_t depth;
} tree_read_view;

/* Grow the view to a newer summary of the same file (a live writer
 * flushed: slog_reader_refresh): the node rows the new summary covers
 * (every row already seen stays as it is; rows are append-only and a
 * node's whole subtree precedes it), new roots, depth.  Cached rows and
 * decoded blobs stay valid.  *prev receives the view before, for
 * tree_read_view_restore or tree_read_view_free.  On any error (a new root
 * fails its checks, out of memory) the view is the one before.  A summary
 * with fewer nodes or payload bytes than the current view -> SLOG_ECORRUPT. */
int tree_read_refresh(tree_read *t, const store_summary *sum, tree_read_view *prev,
                      slog_error *err);
/* Undo a refresh (prev from tree_read_refresh), or drop what it kept. */
void tree_read_view_restore(tree_read *t, tree_read_view *prev);
void tree_read_view_free(tree_read_view *prev);
/* Free what open allocated (safe on a zeroed or half-opened struct). */
void tree_read_close(tree_read *t);

/* Height of the tallest root + 1 (0 for an empty file). */
uint32_t tree_read_depth(const tree_read *t);

/* Copy node i's row (i < nnodes) into *out, reading and verifying its block
 * on first use: format-2 row CRC32C, level < 64, t0 <= t1 or an empty box,
 * subtree_nodes in 1..i+1, blobs inside the summary's /payload bytes, a
 * preview.  SLOG_OK, SLOG_ECORRUPT naming the node, SLOG_ENOMEM, store errors.
 * A row that fails its checks fails alone: the other rows of its block stay
 * readable (a tool can still reach every intact node). */
int tree_read_node(tree_read *t, uint64_t i, store_node_row *out, slog_error *err);

/* Children of node i, last child first: call with *j = i, then repeatedly:
 * 1 (*j is the next child), 0 (no more), or < 0 (error).  Checks as it goes
 * that the children's subtrees tile node i's subtree exactly (SLOG_ECORRUPT
 * naming node i otherwise). */
int tree_read_next_child(tree_read *t, uint64_t i, uint64_t *j, slog_error *err);

/* Drawables in node i's subtree: a leaf's own counts, an inner node's
 * preview totals (previews are exact totals of their subtree; folding
 * keeps totals), so an inner node's preview is loaded (and cached). */
int tree_read_subtree_items(tree_read *t, uint64_t i, uint64_t *items, tree_read_cost *cost,
                            slog_error *err);
/* The same per kind (state, event, arrow, counter), added to counts[]. */
int tree_read_subtree_counts(tree_read *t, uint64_t i, uint64_t counts[4], tree_read_cost *cost,
                             slog_error *err);

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
typedef struct tree_read_walk_slot {
    uint64_t node;
    int64_t t0;               /* its box start, for tree_read_walk_low */
} tree_read_walk_slot;

typedef struct tree_read_walk {
    tree_read *t;
    int64_t w0, w1;
    tree_read_walk_slot *stack;
    size_t sp, cap;
    uint64_t visited;         /* nodes looked at, touching or not */
} tree_read_walk;

/* SLOG_OK, or an error (then call tree_read_walk_free). */
int tree_read_walk_init(tree_read_walk *w, tree_read *t, int64_t w0, int64_t w1, slog_error *err);
/* 1 (*node set), 0 (end) or < 0 (a corrupt row, out of memory: err set). */
int tree_read_walk_next(tree_read_walk *w, uint64_t *node, slog_error *err);
/* SLOG_OK or < 0 (err set). */
int tree_read_walk_descend(tree_read_walk *w, uint64_t node, slog_error *err);
/* Low-water mark: the smallest box start of the nodes still to visit
 * (INT64_MAX when none), so no drawable handed out later starts before. */
int64_t tree_read_walk_low(const tree_read_walk *w);
void tree_read_walk_free(tree_read_walk *w);

#endif /* TREE_READ_H */
