/* SPDX-License-Identifier: MIT
 *
 * tree_leafsum.h - totals of the open leaf's states per (timeline,
 * category), kept as the states arrive, so that closing a leaf adds one
 * entry per key to its preview summary and to its per-timeline totals
 * instead of one hash lookup per state and summary.  A summary's layout
 * (and so the preview blob's bytes) depends on the order in which keys
 * first appear and on the table growth checks between those insertions:
 * keys are replayed in first-seen order, and the one growth check that
 * state-by-state adds could make after the last insertion is made too
 * (pv_grow_check), so the blobs are the same as with state-by-state adds.  Cells sit in a dense table [timeline][category]
 * that grows up to TREE_LEAFSUM_CELLS cells; a key beyond it, a negative
 * duration or exclusive time (saturating sums of mixed signs depend on
 * their order), or a lack of memory turns the table off until the next
 * reset, and the leaf is then summarised state by state as before.
 * Layer 4: may call format/util, never slog_* API.
 */
#ifndef TREE_LEAFSUM_H
#define TREE_LEAFSUM_H

#include "node_format.h"
#include "preview.h"

#define TREE_LEAFSUM_CELLS 4096u /* cells of 40 bytes: 160 KiB at most */

/* A key's totals, with pv_entry's state arithmetic (pv_add_state: sums
 * saturate at INT64_MAX) in 40 bytes rather than an entry's 112, so the
 * table stays in the L1/L2 cache. */
typedef struct tree_leafsum_cell {
    uint64_t count;     /* 0 = unused */
    int64_t incl, excl, min, max;
} tree_leafsum_cell;

typedef struct tree_leafsum {
    tree_leafsum_cell *cells; /* [timeline * cat_dim + category] */
    uint64_t *keys;     /* timeline << 32 | category of the used cells, first-seen order */
    size_t nkeys, cap_keys;
    uint64_t last_key;  /* key of the latest state */
    uint32_t tl_dim, cat_dim; /* powers of two, 0 before the first state */
    int off;            /* this leaf is summarised state by state */
} tree_leafsum;

void tree_leafsum_init(tree_leafsum *a);
void tree_leafsum_free(tree_leafsum *a);
/* Empty (keeps memory) and on again. */
void tree_leafsum_reset(tree_leafsum *a);
/* One more state of the leaf (r as stored in its fmt_node). */
void tree_leafsum_add_state(tree_leafsum *a, const fmt_state_rec *r);
/* Whether the table holds every state added since the last reset. */
static inline int tree_leafsum_on(const tree_leafsum *a)
{
    return !a->off;
}
/* Add the totals to s, keyed (timeline, category), or (timeline, 0) when
 * by_timeline (per-timeline totals).  0, or -1 (out of memory). */
int tree_leafsum_apply(const tree_leafsum *a, pv_summary *s, const pv_fold_ctx *ctx,
                       int by_timeline);

#endif /* TREE_LEAFSUM_H */
