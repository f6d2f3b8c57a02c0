/* SPDX-License-Identifier: MIT
 *
 * tree_build.c - the one-pass bounding-box tree builder (see tree_build.h).
 * Closing a node: summarise its own drawables into its preview summary
 * (which already holds the summaries of its closed children and spills),
 * for a leaf or spill also into time bins (preview.h; inner nodes carry
 * none: doc/DESIGN.md, "Time bins"), write the geometry, args and preview
 * blobs (each with its CRC32C; the
 * store seals the row with its own CRC), write the rows of its
 * spills and its own row, then hand bounding box, subtree size and summary
 * to the parent.  Eager closing: a parent closes as soon as its last child
 * closed.
 * Layer 4: may call format/store/codec/util, never slog_* API.
 */
#include "tree_build.h"

#include "codec_crc32c.h"
#include "tree_leafsum.h"
#include "util_alloc.h"
#include "util_error.h"

#include <string.h>

/* A leaf's bin section may take this many node-level leaf preview budgets,
 * and at most 1/TREE_BINS_GEOMETRY_DIV of the leaf's geometry blob
 * (doc/DESIGN.md, "Time bins"). */
#define TREE_BINS_LEAF_MUL      3u
#define TREE_BINS_GEOMETRY_DIV  8u
/* An open node keeps per-timeline totals while they hold at most
 * preview_bytes / TREE_TLS_ENTRIES_DIV entries (an entry takes at least 3
 * bytes encoded, so more would never fit a preview): the writer's memory
 * stays bounded with 10^5 timelines. */
#define TREE_TLS_ENTRIES_DIV    8u
/* Per-timeline totals are written from this level up (doc/DESIGN.md,
 * "Per-timeline totals": leaves' would cost 2.4 MB of a 10^7-state file and
 * save decoding at most one leaf per window edge). */
#define TREE_TLS_MIN_LEVEL      1u

typedef struct open_node {
    fmt_node items;          /* drawables placed directly here */
    pv_summary sum;          /* closed children + spills */
    pv_summary tls;          /* per-timeline totals of the subtree (fold 0, no categories) */
    int tls_lost;            /* they outgrew TREE_TLS_ENTRIES_DIV: none for this subtree */
    int64_t b;               /* partition start */
    int64_t t0, t1;          /* box of closed children and spills */
    uint64_t subtree;        /* rows written for closed children and spills */
    uint32_t children;
    store_node_row *spills;  /* deferred rows, written before the node's own */
    size_t nspills, cap_spills;
} open_node;

struct tree_builder {
    store *st;
    tree_options opt;
    const pv_fold_ctx *ctx;
    open_node level[TREE_MAX_LEVELS];
    uint32_t top;            /* open levels */
    int64_t frontier;        /* end of the last closed leaf */
    uint64_t nodes_written;
    uint64_t written[4];
    uint32_t max_levels;
    uint64_t payload_extent; /* decoded bytes of /payload used (whole chunks) */
    pv_summary forest_sum;   /* summaries of the subtrees closed by flushes */
    pv_summary forest_tls;   /* and their per-timeline totals */
    int forest_tls_lost;
    pv_summary bins;         /* time bins of the leaf being written */
    int64_t forest_t0, forest_t1;
    uint64_t forest_roots;
    uint32_t forest_level;   /* highest level among them */
    util_buf scratch;
    tree_leafsum leafsum;    /* totals of level 0's states by (timeline, category) */
    codec_lz4_gate geometry, args, preview; /* how each kind of blob is compressed */
};

static void open_reset(open_node *n, int64_t b)
{
    const uint32_t fold = n->sum.fold;
    fmt_node_reset(&n->items);
    pv_reset(&n->sum);
    pv_reset(&n->tls);
    n->tls_lost = 0;
    /* Siblings look alike: start at the fold the last one needed, so a busy
     * level does not refold every node from timeline rows again. */
    n->sum.fold = fold;
    n->b = b;
    n->t0 = INT64_MAX;
    n->t1 = INT64_MIN;
    n->subtree = 0;
    n->children = 0;
    n->nspills = 0;
}

int tree_build_create(tree_builder **out, store *st, const tree_options *opts,
                      const pv_fold_ctx *ctx, slog_error *err)
{
    tree_builder *const tb = util_calloc(1, sizeof *tb);
    if (tb == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, NULL, "Cannot allocate the tree builder");
    }
    tb->st = st;
    tb->opt = *opts;
    /* geometry and previews at the fast level skip LZ4 while they do not
     * shrink; HC levels always try (they ask for size over speed) */
    tb->geometry = (codec_lz4_gate){opts->lz4_level, opts->lz4_level <= 1, 0};
    tb->args = (codec_lz4_gate){opts->args_lz4_level, 0, 0};
    tb->preview = tb->geometry;
    tb->ctx = ctx;
    for (int i = 0; i < TREE_MAX_LEVELS; i++) {
        fmt_node_init(&tb->level[i].items);
        pv_init(&tb->level[i].sum);
        pv_init(&tb->level[i].tls);
    }
    open_reset(&tb->level[0], INT64_MIN);
    tb->top = 1;
    tb->max_levels = 1;
    tb->frontier = INT64_MIN;
    pv_init(&tb->forest_sum);
    pv_init(&tb->forest_tls);
    pv_init_binned(&tb->bins);
    tree_leafsum_init(&tb->leafsum);
    tb->forest_t0 = INT64_MAX;
    tb->forest_t1 = INT64_MIN;
    *out = tb;
    return SLOG_OK;
}

void tree_build_destroy(tree_builder *tb)
{
    if (tb == NULL) {
        return;
    }
    for (int i = 0; i < TREE_MAX_LEVELS; i++) {
        fmt_node_free(&tb->level[i].items);
        pv_free(&tb->level[i].sum);
        pv_free(&tb->level[i].tls);
        util_free(tb->level[i].spills);
    }
    util_buf_free(&tb->scratch);
    pv_free(&tb->forest_sum);
    pv_free(&tb->forest_tls);
    pv_free(&tb->bins);
    tree_leafsum_free(&tb->leafsum);
    util_free(tb);
}

uint64_t tree_build_nodes_written(const tree_builder *tb)
{
    return tb->nodes_written;
}

void tree_build_written_counts(const tree_builder *tb, uint64_t counts[4])
{
    memcpy(counts, tb->written, sizeof tb->written);
}

uint32_t tree_build_depth(const tree_builder *tb)
{
    return tb->max_levels;
}

uint64_t tree_build_payload_bytes(const tree_builder *tb)
{
    return tb->payload_extent;
}

/* Append a blob and keep the /payload extent (blobs fill whole chunks). */
static int append_blob(tree_builder *tb, codec_lz4_gate *gate, uint64_t *off, slog_error *err)
{
    const int rc =
        store_append_blob_gated(tb->st, tb->scratch.data, tb->scratch.len, gate, off, err);
    if (rc == SLOG_OK) {
        const uint64_t chunk = tb->opt.leaf_bytes;
        tb->payload_extent = *off + (tb->scratch.len + chunk - 1) / chunk * chunk;
    }
    return rc;
}

static int oom(slog_error *err)
{
    return util_err(err, SLOG_ENOMEM, UINT64_MAX, NULL, "Cannot allocate memory for the tree");
}

/* Lowest open node that may hold a drawable starting at start. */
static uint32_t place(const tree_builder *tb, int64_t start)
{
    for (uint32_t i = 0; i + 1 < tb->top; i++) {
        if (tb->level[i].b <= start) {
            return i;
        }
    }
    return tb->top - 1;
}

/* Add the node's own drawables to a summary; its states from ls when that
 * holds them all (a leaf: tree_leafsum.h), else one by one. */
static int summarise_items(const fmt_node *it, const tree_leafsum *ls, pv_summary *sum,
                           const pv_fold_ctx *ctx)
{
    if (ls != NULL && tree_leafsum_on(ls)) {
        if (tree_leafsum_apply(ls, sum, ctx, 0) != 0) {
            return -1;
        }
    }
    for (size_t i = 0; (ls == NULL || !tree_leafsum_on(ls)) && i < it->n[SLOG_KIND_STATE]; i++) {
        const fmt_state_rec *const s = &it->states[i];
        if (pv_add_state(sum, ctx, s->timeline, s->category, s->end - s->start, s->excl) != 0) {
            return -1;
        }
    }
    for (size_t i = 0; i < it->n[SLOG_KIND_EVENT]; i++) {
        if (pv_add_event(sum, ctx, it->events[i].timeline, it->events[i].category) != 0) {
            return -1;
        }
    }
    for (size_t i = 0; i < it->n[SLOG_KIND_ARROW]; i++) {
        const fmt_arrow_rec *const a = &it->arrows[i];
        if (pv_add_arrow(sum, ctx, a->from, a->to, a->category, a->end - a->start) != 0) {
            return -1;
        }
    }
    for (size_t i = 0; i < it->n[SLOG_KIND_COUNTER]; i++) {
        const fmt_counter_rec *const c = &it->counters[i];
        if (pv_add_counter(sum, ctx, c->timeline, c->category, c->time, c->value) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Add the node's own drawables to its per-timeline totals: fold 0, one
 * category (0) for all, arrows keyed by their source timeline; states as
 * in summarise_items. */
static int summarise_timelines(const fmt_node *it, const tree_leafsum *ls, pv_summary *tls,
                               const pv_fold_ctx *ctx)
{
    if (ls != NULL && tree_leafsum_on(ls)) {
        if (tree_leafsum_apply(ls, tls, ctx, 1) != 0) {
            return -1;
        }
    }
    for (size_t i = 0; (ls == NULL || !tree_leafsum_on(ls)) && i < it->n[SLOG_KIND_STATE]; i++) {
        const fmt_state_rec *const s = &it->states[i];
        if (pv_add_state(tls, ctx, s->timeline, 0, s->end - s->start, s->excl) != 0) {
            return -1;
        }
    }
    for (size_t i = 0; i < it->n[SLOG_KIND_EVENT]; i++) {
        if (pv_add_event(tls, ctx, it->events[i].timeline, 0) != 0) {
            return -1;
        }
    }
    for (size_t i = 0; i < it->n[SLOG_KIND_ARROW]; i++) {
        const fmt_arrow_rec *const a = &it->arrows[i];
        if (pv_add_arrow(tls, ctx, a->from, a->from, 0, a->end - a->start) != 0) {
            return -1;
        }
    }
    for (size_t i = 0; i < it->n[SLOG_KIND_COUNTER]; i++) {
        const fmt_counter_rec *const c = &it->counters[i];
        if (pv_add_counter(tls, ctx, c->timeline, 0, c->time, c->value) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Give up per-timeline totals once they hold too many entries. */
static void tls_bound(const tree_builder *tb, pv_summary *tls, int *lost)
{
    if (!*lost && tls->used > tb->opt.preview_bytes / TREE_TLS_ENTRIES_DIV) {
        *lost = 1;
        pv_free(tls);
    }
}

/* n's own drawables into its per-timeline totals, and those into up's
 * (its parent's, or the forest's). */
static int tls_close(tree_builder *tb, open_node *n, const tree_leafsum *ls, pv_summary *up,
                     int *up_lost)
{
    if (!n->tls_lost && summarise_timelines(&n->items, ls, &n->tls, tb->ctx) != 0) {
        return -1;
    }
    tls_bound(tb, &n->tls, &n->tls_lost);
    if (*up_lost) {
        return 0;
    }
    if (n->tls_lost) {
        *up_lost = 1;
        pv_free(up);
        return 0;
    }
    if (pv_merge(up, &n->tls, tb->ctx) != 0) {
        return -1;
    }
    tls_bound(tb, up, up_lost);
    return 0;
}

/* Preview budget of a node at `level`: 1/32 of a leaf at level 0, growing by
 * sqrt(2) per level up to preview_bytes.  Level L then costs about
 * 3 % x 2^(-L/2) of the payload, about 10 % in all (doc/DESIGN.md). */
static size_t preview_budget(const tree_builder *tb, uint32_t level)
{
    uint64_t b = tb->opt.leaf_bytes / 32;
    b <<= level / 2;
    if (level % 2) {
        b = b * 181 / 128;
    }
    if (b < 256) {
        b = 256;
    }
    return b < tb->opt.preview_bytes ? (size_t)b : tb->opt.preview_bytes;
}

/* Add a leaf's drawables to the binned summary bins. */
static int summarise_bins(const fmt_node *it, pv_summary *bins, const pv_fold_ctx *ctx)
{
    for (size_t i = 0; i < it->n[SLOG_KIND_STATE]; i++) {
        const fmt_state_rec *const s = &it->states[i];
        const pv_bin_key key = {s->timeline, s->timeline, s->category};
        if (pv_bins_add_state(bins, ctx, key, s->start, s->end, s->excl) != 0) {
            return -1;
        }
    }
    for (size_t i = 0; i < it->n[SLOG_KIND_EVENT]; i++) {
        const fmt_event_rec *const e = &it->events[i];
        if (pv_bins_add_event(bins, ctx, e->timeline, e->category, e->time) != 0) {
            return -1;
        }
    }
    for (size_t i = 0; i < it->n[SLOG_KIND_ARROW]; i++) {
        const fmt_arrow_rec *const a = &it->arrows[i];
        const pv_bin_key key = {a->from, a->to, a->category};
        if (pv_bins_add_arrow(bins, ctx, key, a->start, a->end) != 0) {
            return -1;
        }
    }
    for (size_t i = 0; i < it->n[SLOG_KIND_COUNTER]; i++) {
        const fmt_counter_rec *const c = &it->counters[i];
        if (pv_bins_add_counter(bins, ctx, c->timeline, c->category, c->time, c->value) != 0) {
            return -1;
        }
    }
    return 0;
}

/* The time bins of a leaf or spill (level 0: its drawables are its whole
 * subtree) fitted to their budget into tb->bins; NULL for inner nodes.
 * Their k goes to the row's flags. */
static int leaf_bins(tree_builder *tb, const fmt_node *it, store_node_row *row,
                     pv_summary **out)
{
    *out = NULL;
    if (!tb->opt.time_bins || row->level != 0 || fmt_node_count(it) == 0) {
        return 0;
    }
    pv_reset(&tb->bins);
    pv_bins_span(&tb->bins, it->t0, it->t1);
    size_t budget = TREE_BINS_LEAF_MUL * preview_budget(tb, 0);
    if (row->payload_len / TREE_BINS_GEOMETRY_DIV < budget) {
        budget = (size_t)(row->payload_len / TREE_BINS_GEOMETRY_DIV);
    }
    if (summarise_bins(it, &tb->bins, tb->ctx) != 0 ||
        pv_bins_fit(&tb->bins, tb->ctx, budget) != 0) {
        return -1;
    }
    row->flags |= (tb->bins.k + 1) << TREE_NODE_BINS_SHIFT;
    *out = &tb->bins;
    return 0;
}

/* An open node's summary collects its children's unfolded summaries; fold
 * it once it holds far more than its own budget, so the writer's memory
 * stays bounded (about 4 budgets per level). */
static int keep_bounded(const tree_builder *tb, pv_summary *sum, uint32_t level)
{
    const size_t budget = preview_budget(tb, level);
    if (sum->used * 8 <= 4 * budget) {
        return 0; /* an entry takes at least 8 bytes encoded: cheap test */
    }
    return pv_fit(sum, tb->ctx, 2 * budget);
}

/* Append the blob in scratch (if not empty); its offset, length and
 * CRC32C go to the row's members. */
static int put_blob(tree_builder *tb, codec_lz4_gate *gate, uint64_t *off, uint64_t *len,
                    uint32_t *crc, slog_error *err)
{
    if (tb->scratch.len == 0) {
        return SLOG_OK;
    }
    *len = tb->scratch.len;
    *crc = codec_crc32c(0, tb->scratch.data, tb->scratch.len);
    return append_blob(tb, gate, off, err);
}

/* Write the geometry and args blobs of it (if any) and the preview blob of
 * sum into row, each with its CRC32C. */
static int write_blobs(tree_builder *tb, const fmt_node *it, pv_summary *sum,
                       const pv_summary *tls, store_node_row *row, slog_error *err)
{
    if (fmt_node_count(it) > 0) {
        tb->scratch.len = 0;
        int rc = fmt_node_encode(it, &tb->scratch) != 0 ? oom(err) : SLOG_OK;
        if (rc == SLOG_OK) {
            rc = put_blob(tb, &tb->geometry, &row->payload_off, &row->payload_len,
                          &row->payload_crc, err);
        }
        tb->scratch.len = 0;
        if (rc == SLOG_OK && fmt_node_encode_args(it, &tb->scratch) != 0) {
            rc = oom(err);
        }
        if (rc == SLOG_OK) {
            rc = put_blob(tb, &tb->args, &row->args_off, &row->args_len, &row->args_crc, err);
        }
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    pv_summary *bins = NULL;
    if (pv_fit(sum, tb->ctx, preview_budget(tb, row->level)) != 0 ||
        leaf_bins(tb, it, row, &bins) != 0) {
        return oom(err);
    }
    const size_t budget = preview_budget(tb, row->level);
    if (tls != NULL && (row->level < TREE_TLS_MIN_LEVEL || pv_tl_encoded_size(tls) > budget)) {
        tls = NULL; /* the totals get the entries' budget, or are left out */
    }
    tb->scratch.len = 0;
    if (pv_encode_all(sum, bins, tls, &tb->scratch) != 0) {
        return oom(err);
    }
    row->preview_len = tb->scratch.len;
    row->preview_crc = codec_crc32c(0, tb->scratch.data, tb->scratch.len);
    return append_blob(tb, &tb->preview, &row->preview_off, err);
}

static void row_counts(store_node_row *row, const fmt_node *it)
{
    for (int k = 0; k < 4; k++) {
        row->counts[k] = it->n[k];
    }
}

static void box_extend(int64_t *t0, int64_t *t1, int64_t a, int64_t b)
{
    if (a < *t0) {
        *t0 = a;
    }
    if (b > *t1) {
        *t1 = b;
    }
}

/* Write an inner node's own drawables as a pseudo-leaf child now. */
static int spill(tree_builder *tb, open_node *n, slog_error *err)
{
    void *spills = n->spills; /* through a void *: no store_node_row * written as void * */
    const int grown = util_grow(&spills, &n->cap_spills, n->nspills + 1, sizeof *n->spills);
    n->spills = spills;
    if (grown != 0) {
        return oom(err);
    }
    store_node_row row;
    memset(&row, 0, sizeof row);
    row.level = 0;
    row.flags = TREE_NODE_SPILL;
    row.t0 = n->items.t0;
    row.t1 = n->items.t1;
    row.subtree_nodes = 1;
    row_counts(&row, &n->items);
    pv_summary sum;
    pv_init(&sum);
    int rc = summarise_items(&n->items, NULL, &sum, tb->ctx) != 0 ? oom(err) : SLOG_OK;
    if (rc == SLOG_OK && pv_merge(&n->sum, &sum, tb->ctx) != 0) {
        rc = oom(err);
    }
    if (rc == SLOG_OK && !n->tls_lost &&
        summarise_timelines(&n->items, NULL, &n->tls, tb->ctx) != 0) {
        rc = oom(err);
    }
    tls_bound(tb, &n->tls, &n->tls_lost);
    if (rc == SLOG_OK) {
        rc = write_blobs(tb, &n->items, &sum, NULL, &row, err);
    }
    pv_free(&sum);
    if (rc != SLOG_OK) {
        return rc;
    }
    n->spills[n->nspills++] = row;
    box_extend(&n->t0, &n->t1, row.t0, row.t1);
    n->subtree++;
    fmt_node_reset(&n->items);
    return pv_fit(&n->sum, tb->ctx, tb->opt.preview_bytes) != 0 ? oom(err) : SLOG_OK;
}

static int close_level(tree_builder *tb, uint32_t i, int finishing, slog_error *err);

/* The parent of level i, opened above the top if needed; NULL when i is the
 * top and the tree is finishing (i is then the root). */
static open_node *parent_of(tree_builder *tb, uint32_t i, int finishing, slog_error *err)
{
    if (i + 1 == tb->top) {
        if (finishing) {
            return NULL;
        }
        if (tb->top == TREE_MAX_LEVELS) {
            (void)util_err(err, SLOG_EINVAL, UINT64_MAX, NULL, "Tree deeper than %d levels",
                           TREE_MAX_LEVELS);
            return NULL;
        }
        open_reset(&tb->level[tb->top], INT64_MIN);
        tb->top++;
        if (tb->top > tb->max_levels) {
            tb->max_levels = tb->top;
        }
    }
    return &tb->level[i + 1];
}

static void count_written(tree_builder *tb, const open_node *n, const store_node_row *row)
{
    tb->nodes_written += 1 + n->nspills;
    for (size_t s = 0; s < n->nspills; s++) {
        for (int k = 0; k < 4; k++) {
            tb->written[k] += n->spills[s].counts[k];
        }
    }
    for (int k = 0; k < 4; k++) {
        tb->written[k] += row->counts[k];
    }
}

/* The totals of a closing leaf's states (tree_leafsum.h), added as they
 * arrived; NULL above level 0. */
static const tree_leafsum *leaf_totals(const tree_builder *tb, uint32_t i)
{
    return i == 0 ? &tb->leafsum : NULL;
}

/* A leaf was written as @p row: the frontier moves past it and its totals empty. */
static void leaf_closed(tree_builder *tb, const store_node_row *row)
{
    if (row->t1 > tb->frontier) {
        tb->frontier = row->t1;
    }
    tree_leafsum_reset(&tb->leafsum);
}

/* Close level i: its summary goes to the parent unfolded (the parent's
 * budget is larger, so it may keep more detail), then is fitted to its own
 * budget and written with the drawables, spill rows and its own row. */
static int close_level(tree_builder *tb, uint32_t i, int finishing, slog_error *err)
{
    open_node *const n = &tb->level[i];
    store_node_row row;
    memset(&row, 0, sizeof row);
    row.level = i;
    row.t0 = n->t0;
    row.t1 = n->t1;
    box_extend(&row.t0, &row.t1, n->items.t0, n->items.t1);
    row.subtree_nodes = 1 + n->subtree;
    row_counts(&row, &n->items);
    const tree_leafsum *const ls = leaf_totals(tb, i);
    if (summarise_items(&n->items, ls, &n->sum, tb->ctx) != 0) {
        return oom(err);
    }
    open_node *const p = parent_of(tb, i, finishing, err);
    if (p == NULL && !(finishing && i + 1 == tb->top)) {
        return SLOG_EINVAL;
    }
    /* the top of a finishing spine becomes a root of the forest */
    pv_summary *const up = p != NULL ? &p->sum : &tb->forest_sum;
    if (pv_merge(up, &n->sum, tb->ctx) != 0 || keep_bounded(tb, up, i + 1) != 0 ||
        tls_close(tb, n, ls, p != NULL ? &p->tls : &tb->forest_tls,
                  p != NULL ? &p->tls_lost : &tb->forest_tls_lost) != 0) {
        return oom(err);
    }
    int rc = write_blobs(tb, &n->items, &n->sum, n->tls_lost ? NULL : &n->tls, &row, err);
    if (rc == SLOG_OK && n->nspills > 0) {
        rc = store_append_nodes(tb->st, n->spills, n->nspills, err);
    }
    if (rc == SLOG_OK) {
        rc = store_append_nodes(tb->st, &row, 1, err);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    count_written(tb, n, &row);
    if (i == 0) {
        leaf_closed(tb, &row);
    }
    open_reset(n, tb->frontier);
    if (p == NULL) {
        tb->forest_roots++;
        box_extend(&tb->forest_t0, &tb->forest_t1, row.t0, row.t1);
        tb->forest_level = i > tb->forest_level ? i : tb->forest_level;
        return SLOG_OK;
    }
    p->children++;
    p->subtree += row.subtree_nodes;
    box_extend(&p->t0, &p->t1, row.t0, row.t1);
    if (!finishing && p->children >= tb->opt.fanout) {
        return close_level(tb, i + 1, 0, err);
    }
    return SLOG_OK;
}

static int node_full(tree_builder *tb, uint32_t i, slog_error *err)
{
    return i == 0 ? close_level(tb, 0, 0, err) : spill(tb, &tb->level[i], err);
}

/* Inline, so the common case (room left) costs two compares per append. */
static inline int after_add(tree_builder *tb, uint32_t i, slog_error *err)
{
    const fmt_node *const it = &tb->level[i].items;
    /* A node closes when its geometry blob fills the budget (32 bytes of
     * slack for the header): drawing reads geometry only, so that is what
     * the budget bounds.  The args blob, read only for args, may grow to 4
     * budgets (doc/DESIGN.md). */
    if (it->encoded_bytes + 32 < tb->opt.leaf_bytes &&
        it->args_bytes + 32 < 4 * (uint64_t)tb->opt.leaf_bytes) {
        return SLOG_OK;
    }
    return node_full(tb, i, err);
}

int tree_build_add_state(tree_builder *tb, const fmt_state_rec *r, const uint8_t *args,
                         size_t args_len, slog_error *err)
{
    const uint32_t i = place(tb, r->start);
    fmt_node *const it = &tb->level[i].items;
    if (fmt_node_add_state(it, r, args, args_len) != 0) {
        return oom(err);
    }
    if (i == 0) { /* as stored: the node may have clamped its exclusive time */
        tree_leafsum_add_state(&tb->leafsum, &it->states[it->n[SLOG_KIND_STATE] - 1]);
    }
    return after_add(tb, i, err);
}

int tree_build_add_event(tree_builder *tb, const fmt_event_rec *r, const uint8_t *args,
                         size_t args_len, slog_error *err)
{
    const uint32_t i = place(tb, r->time);
    if (fmt_node_add_event(&tb->level[i].items, r, args, args_len) != 0) {
        return oom(err);
    }
    return after_add(tb, i, err);
}

int tree_build_add_arrow(tree_builder *tb, const fmt_arrow_rec *r, const uint8_t *args,
                         size_t args_len, slog_error *err)
{
    const uint32_t i = place(tb, r->start);
    if (fmt_node_add_arrow(&tb->level[i].items, r, args, args_len) != 0) {
        return oom(err);
    }
    return after_add(tb, i, err);
}

int tree_build_add_counter(tree_builder *tb, const fmt_counter_rec *r, slog_error *err)
{
    const uint32_t i = place(tb, r->time);
    if (fmt_node_add_counter(&tb->level[i].items, r) != 0) {
        return oom(err);
    }
    return after_add(tb, i, err);
}

static int node_is_empty(const open_node *n)
{
    return fmt_node_count(&n->items) == 0 && n->children == 0 && n->nspills == 0;
}

/* Close every open node bottom-up; the top one becomes a root of the
 * forest and the spine starts again empty. */
int tree_build_flush(tree_builder *tb, slog_error *err)
{
    for (uint32_t i = 0; i < tb->top; i++) {
        if (node_is_empty(&tb->level[i])) {
            continue;
        }
        const int rc = close_level(tb, i, 1, err);
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    tb->top = 1;
    return SLOG_OK;
}

/* After flushes the file holds several subtrees: one more row above them
 * all (its subtree is every row) makes the tree whole again. */
static int write_super_root(tree_builder *tb, slog_error *err)
{
    store_node_row row;
    memset(&row, 0, sizeof row);
    row.level = tb->forest_level + 1;
    row.t0 = tb->forest_t0;
    row.t1 = tb->forest_t1;
    row.subtree_nodes = tb->nodes_written + 1;
    const fmt_node none = {.t0 = INT64_MAX, .t1 = INT64_MIN};
    int rc = write_blobs(tb, &none, &tb->forest_sum,
                         tb->forest_tls_lost ? NULL : &tb->forest_tls, &row, err);
    if (rc == SLOG_OK) {
        rc = store_append_nodes(tb->st, &row, 1, err);
    }
    if (rc == SLOG_OK) {
        tb->nodes_written++;
        tb->max_levels = row.level + 1 > tb->max_levels ? row.level + 1 : tb->max_levels;
    }
    return rc;
}

int tree_build_finish(tree_builder *tb, slog_error *err)
{
    const int rc = tree_build_flush(tb, err);
    if (rc != SLOG_OK || tb->forest_roots <= 1) {
        return rc;
    }
    return write_super_root(tb, err);
}
