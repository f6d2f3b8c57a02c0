/* SPDX-License-Identifier: MIT
 *
 * tree_build.h - one-pass construction of the bounding-box tree.
 * The open right spine (one node per level, leaf at level 0) takes the
 * drawables; a drawable goes to the lowest open node whose partition start
 * is <= its start (the top accepts anything), so any arrival order is
 * correct and nondecreasing end time is optimal.  A leaf closes at its
 * encoded budget; a node closes once it has `fanout` children.  Nodes are
 * written in post-order as they close, each with its geometry blob, its args
 * blob (if any item has args) and its preview blob.  An inner node whose own drawables reach the budget spills
 * them as an extra pseudo-leaf child whose row is written just before the
 * node's own row, keeping post-order contiguous.  Memory: the spine only.
 * Layer 4: may call format/store/codec/util, never slog_* API.
 */
#ifndef TREE_BUILD_H
#define TREE_BUILD_H

#include "node_format.h"
#include "preview.h"
#include "store.h"

#define TREE_MAX_LEVELS 64
/* store_node_row.flags bits 8-15: k + 1 of the preview's time bins (2^k
 * ticks wide), 0 when it has none, so a reader knows without loading the
 * preview whether its bins are a pixel wide. */
#define TREE_NODE_BINS_SHIFT 8u
#define TREE_NODE_BINS_MASK  0xff00u
#define TREE_NODE_SPILL 1u /* store_node_row.flags: pseudo-leaf of late drawables (== SLOG_NODE_SPILL) */

typedef struct tree_options {
    uint32_t fanout;
    uint32_t leaf_bytes;
    uint32_t preview_bytes;
    int lz4_level;       /* geometry and preview blobs */
    int args_lz4_level;  /* args blobs: read rarely, so compressed harder */
    int time_bins;       /* leaves' previews carry time bins */
} tree_options;

typedef struct tree_builder tree_builder;

/* ctx must stay valid (its arrays may be reallocated by the caller between
 * calls) for the builder's lifetime. */
int tree_build_create(tree_builder **out, store *st, const tree_options *opts,
                      const pv_fold_ctx *ctx, slog_error *err);
int tree_build_add_state(tree_builder *tb, const fmt_state_rec *r, const uint8_t *args,
                         size_t args_len, slog_error *err);
int tree_build_add_event(tree_builder *tb, const fmt_event_rec *r, const uint8_t *args,
                         size_t args_len, slog_error *err);
int tree_build_add_arrow(tree_builder *tb, const fmt_arrow_rec *r, const uint8_t *args,
                         size_t args_len, slog_error *err);
int tree_build_add_counter(tree_builder *tb, const fmt_counter_rec *r, slog_error *err);

/* Close every open node bottom-up, so everything appended so far is in the
 * file; the closed subtree becomes one root of a forest and building goes on
 * with an empty spine. */
int tree_build_flush(tree_builder *tb, slog_error *err);

/* Flush, then join the forest under one root (the last row written). */
int tree_build_finish(tree_builder *tb, slog_error *err);

/* Nodes written so far, drawables in them per kind, tree depth (levels). */
uint64_t tree_build_nodes_written(const tree_builder *tb);
void tree_build_written_counts(const tree_builder *tb, uint64_t counts[4]);
uint32_t tree_build_depth(const tree_builder *tb);
uint64_t tree_build_payload_bytes(const tree_builder *tb);

void tree_build_destroy(tree_builder *tb);

#endif /* TREE_BUILD_H */
