/* SPDX-License-Identifier: MIT
 *
 * api_query.c - window/zoom queries: filters and emission.  The tree
 * layer (tree_read) walks the nodes whose box touches the window, depth
 * first in time order, and loads blobs through the node cache; this file
 * decides per node (the density rule of tree_walk.h, counting the rows of
 * the node's preview) whether it stands as its preview (one item per
 * preview entry, or, when the node is a pixel wide or more and its
 * preview's time bins are at most TREE_WALK_BIN_PIXELS wide, one per (row,
 * category, pixel) summing the bins that start in that pixel) or yields its
 * own drawables and is descended, filters by kind, timeline and category,
 * hands sub-pixel drawables to the pixel-run accumulator (api_pixel.c),
 * records every blob the query needed with its cost, and fills batches
 * (straight from a node's decoded drawables when no pixel run can come
 * between them, else item by item).
 * Layer 5: api.
 */
#include "api_index.h"
#include "api_internal.h"
#include "api_options.h"
#include "api_pixel.h"
#include "tree_walk.h"
#include "util_alloc.h"
#include "util_error.h"

#include <slog/slog_verify.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(PV_CATEGORY_OTHER == SLOG_CATEGORY_OTHER, "category other");

struct slog_query {
    slog_reader *r;
    int64_t w0, w1, resolution;
    uint32_t kinds;             /* bit mask of slog_kind */
    uint32_t preview_of;        /* kinds of drawables whose previews are wanted */
    int previews;               /* previews wanted */
    uint8_t *tl_sel;            /* per timeline, NULL = all */
    uint8_t *cat_sel;           /* per category, NULL = all */
    uint64_t ntl, ncat;         /* the reader's counts at creation (its snapshot) */
    uint64_t first_node;        /* nodes below it are skipped with their subtrees */
    uint32_t *sel_list;         /* selected timelines (for preview rows) */
    uint32_t nsel;
    uint8_t *fold_sel[PV_FOLD_MAX + 1]; /* per fold, per row: a selected timeline folds to it
                                            (made on first use; sized to the largest such row) */
    uint32_t fold_nrows[PV_FOLD_MAX + 1];
    uint32_t *row_mark;         /* per timeline: count_rows' stamp of the rows seen */
    uint32_t row_stamp;
    tree_read_walk walk;
    cache_entry *cur;           /* pinned entry being emitted */
    store_node_row cur_node;  /* a copy of the current node's row */
    int cur_kind;               /* 0..3 drawables, 4 previews */
    int cur_binned;             /* previews emitted per pixel from the bins */
    int cur_counters;           /* where a preview's counters come from (counter_source) */
    uint64_t cur_tl_index;      /* the next per-timeline total to look at */
    uint64_t cur_id;            /* the current node's index */
    uint32_t cur_kinds;         /* kinds the current drawables blob emits */
    int want_args;              /* SLOG_QUERY_ARGS: load and emit args */
    uint64_t cur_index;
    slog_item item;
    slog_query_stats stats;
    uint64_t *read_nodes;
    size_t nread, cap_read;
    int runs;                   /* merge sub-pixel drawables into pixel runs */
    int drained;                /* the walk ended and every cell was queued */
    pix_acc pix;
    int failed;
    int single;                 /* slog_query_create_node: one node's drawables, any time */
    uint64_t single_node;
    int single_done;
    api_ixq *ix;                /* a query over an index (api_index_query.c) */
    int cut_as_preview;         /* an index overview: a CUT node stands as its preview */
};

static int build_selection(slog_query *q, const slog_query_options *o, slog_error *err)
{
    const slog_reader *const r = q->r;
    if (o->timelines != NULL) {
        q->tl_sel = util_calloc((size_t)r->ntl + 1, 1);
        q->sel_list = util_calloc((size_t)o->ntimelines + 1, sizeof *q->sel_list);
        if (q->tl_sel == NULL || q->sel_list == NULL) {
            return util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Cannot create the query");
        }
        for (uint32_t i = 0; i < o->ntimelines; i++) {
            if (o->timelines[i] >= r->ntl) {
                return util_err(err, SLOG_EINVAL, UINT64_MAX, r->path, "Unknown timeline %u",
                                o->timelines[i]);
            }
            if (!q->tl_sel[o->timelines[i]]) {
                q->tl_sel[o->timelines[i]] = 1;
                q->sel_list[q->nsel++] = o->timelines[i];
            }
        }
    }
    if (o->categories != NULL) {
        q->cat_sel = util_calloc((size_t)r->ncat + 1, 1);
        if (q->cat_sel == NULL) {
            return util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Cannot create the query");
        }
        for (uint32_t i = 0; i < o->ncategories; i++) {
            if (o->categories[i] >= r->ncat) {
                return util_err(err, SLOG_EINVAL, UINT64_MAX, r->path, "Unknown category %u",
                                o->categories[i]);
            }
            q->cat_sel[o->categories[i]] = 1;
        }
    }
    return SLOG_OK;
}

/* A new query of loaded, checked options (no walk yet): SLOG_OK or an error. */
static int query_new(slog_query **out, slog_reader *r, const slog_query_options *opts,
                     slog_error *err)
{
    *out = NULL;
    slog_query *const q = util_calloc(1, sizeof *q);
    if (q == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Cannot create the query");
    }
    q->r = r;
    q->ntl = r->ntl;
    q->ncat = r->ncat;
    q->first_node = opts->first_node;
    q->w0 = opts->t0;
    q->w1 = opts->t1;
    q->resolution = opts->resolution;
    /* real drawables by their bits; previews with their own bit, of the
     * drawable kinds asked for (of every kind when none is) */
    q->kinds = opts->kinds ? opts->kinds : SLOG_KINDS_ALL;
    q->preview_of = q->kinds & 0xfu ? q->kinds & 0xfu : 0xfu;
    q->previews = (q->kinds & (1u << SLOG_KIND_PREVIEW)) != 0;
    q->cur_kind = -1;
    q->want_args = (opts->flags & SLOG_QUERY_ARGS) != 0; /* 0 from an older struct */
    q->runs = q->resolution > 0 && (q->kinds & (1u << SLOG_KIND_RUN)) != 0;
    pix_init(&q->pix, q->w0, q->w1, q->resolution > 0 ? q->resolution : 1);
    const int rc = build_selection(q, opts, err);
    if (rc != SLOG_OK) {
        slog_query_destroy(q);
        return rc;
    }
    *out = q;
    return SLOG_OK;
}

/* A query over an index: the composite runs it, this struct carries it. */
static int index_query_new(slog_query **out, slog_reader *r, const slog_query_options *o,
                           slog_error *err)
{
    slog_query *const q = util_calloc(1, sizeof *q);
    if (q == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Cannot create the query");
    }
    q->r = r;
    const int rc = api_ixq_create(&q->ix, r, o, err);
    if (rc != SLOG_OK) {
        util_free(q);
        return rc;
    }
    *out = q;
    return SLOG_OK;
}

int slog_query_create(slog_query **out, slog_reader *r, const slog_query_options *opts,
                      slog_error *err)
{
    *out = NULL;
    slog_query_options o;
    if (opts == NULL) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, r->path, "A query needs options");
    }
    int rc = api_query_options_load(&o, opts, r->path, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (o.t1 < o.t0 || o.resolution < 0 || (o.first_node > 0 && o.resolution > 0)) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, r->path,
                        "Query window must satisfy t0 <= t1 and resolution >= 0 (0 with "
                        "first_node)");
    }
    if ((o.kinds & ~SLOG_KINDS_ALL) != 0) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, r->path,
                        "Unknown query kinds 0x%x (this libslog %s knows 0x%x)", o.kinds,
                        SLOG_VERSION_STRING, SLOG_KINDS_ALL);
    }
    slog_query *q;
    if (r->index != NULL) {
        return index_query_new(out, r, &o, err);
    }
    rc = query_new(&q, r, &o, err);
    if (rc == SLOG_OK) {
        rc = tree_read_walk_init(&q->walk, &r->tree, q->w0, q->w1, err);
    }
    if (rc != SLOG_OK) {
        slog_query_destroy(q);
        return rc;
    }
    *out = q;
    return SLOG_OK;
}

int slog_query_create_node(slog_query **out, slog_reader *r, uint64_t index,
                           const slog_query_options *opts, slog_error *err)
{
    *out = NULL;
    if (r->index != NULL) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, r->path,
                        "An index's nodes are copies: query its input files' nodes");
    }
    if (index >= r->tree.nnodes) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, r->path, "No node %llu (the file has %llu)",
                        (unsigned long long)index, (unsigned long long)r->tree.nnodes);
    }
    slog_query_options o = SLOG_QUERY_OPTIONS_INIT;
    if (opts != NULL) {
        const int rc = api_query_options_load(&o, opts, r->path, err);
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    o.kinds &= 0xfu; /* drawables only: no previews, no pixel runs */
    o.t0 = INT64_MIN;
    o.t1 = INT64_MAX;
    o.resolution = 0;
    slog_query *q;
    const int rc = query_new(&q, r, &o, err);
    if (rc == SLOG_OK) {
        q->single = 1;
        q->single_node = index;
        *out = q;
    }
    return rc;
}

void slog_query_destroy(slog_query *q)
{
    if (q == NULL) {
        return;
    }
    api_ixq_free(q->ix);
    node_cache_unpin(q->cur);
    util_free(q->tl_sel);
    util_free(q->cat_sel);
    util_free(q->sel_list);
    for (int i = 0; i <= PV_FOLD_MAX; i++) {
        util_free(q->fold_sel[i]);
    }
    util_free(q->row_mark);
    tree_read_walk_free(&q->walk);
    pix_free(&q->pix);
    util_free(q->read_nodes);
    util_free(q);
}

void api_query_cut_as_preview(slog_query *q)
{
    q->cut_as_preview = 1;
}

void slog_query_stats_get(const slog_query *q, slog_query_stats *out)
{
    if (q->ix != NULL) {
        api_ixq_stats(q->ix, out);
        out->items = q->stats.items;
        return;
    }
    *out = q->stats;
}

const uint64_t *slog_query_read_nodes(const slog_query *q, size_t *count)
{
    *count = q->nread;
    return q->read_nodes;
}

/* ---- loading blobs (through the tree layer) ---- */

static int record_read(slog_query *q, uint64_t node)
{
    void *p = q->read_nodes;
    if (util_grow(&p, &q->cap_read, q->nread + 1, sizeof *q->read_nodes) != 0) {
        return -1;
    }
    q->read_nodes = p;
    q->read_nodes[q->nread++] = node;
    q->stats.nodes_read++;
    return 0;
}

/* Load a node's drawables or preview (pinned), recording the read and its cost. */
static int load_blob(slog_query *q, uint64_t node, int preview, cache_entry **e,
                     slog_error *err)
{
    if (record_read(q, node) != 0) {
        /* SLOG_ENOMEM returned as such, not through util_err's result: the
         * analyzer cannot see util_err and would take *e as set on this path */
        (void)util_err(err, SLOG_ENOMEM, UINT64_MAX, q->r->path, "Cannot record a read");
        return SLOG_ENOMEM;
    }
    tree_read *const t = &q->r->tree;
    tree_read_cost cost = {0, 0, 0};
    int rc = preview ? tree_read_load_preview(t, node, e, &cost, err)
                     : tree_read_load_drawables(t, node, e, &cost, err);
    if (rc == SLOG_OK && !preview && q->want_args) {
        rc = tree_read_load_args(t, node, *e, &cost, err);
        if (rc != SLOG_OK) {
            node_cache_unpin(*e);
        }
    }
    q->stats.bytes_read += cost.bytes_read;
    q->stats.bytes_decoded += cost.bytes_decoded;
    q->stats.cache_hits += cost.cache_hits;
    return rc;
}

/* Pixels of a node's width at the query's resolution (> 0). */
static uint64_t node_pixels(const slog_query *q, const store_node_row *n)
{
    return ((uint64_t)n->t1 - (uint64_t)n->t0) / (uint64_t)q->resolution;
}

/* Does a preview node emit per pixel from its bins: at least a pixel wide,
 * bins at most TREE_WALK_BIN_PIXELS wide (tree_walk.h)? */
static int emits_bins(const slog_query *q, const store_node_row *n, const cache_entry *e)
{
    return q->resolution > 0 && e->bins.n > 0 && node_pixels(q, n) >= 1 &&
           tree_walk_bins_fine(e->bins.k, q->resolution);
}

static int preview_matches(slog_query *q, uint32_t fold, const pv_entry *p);

/* Would a summary answer counters folded over timelines or into "other"
 * (on the rows the query asks for)?  Such an entry mixes unrelated series
 * (watts with percents, one device with another): drawn as any one row's
 * series it would be wrong. */
static int counters_mixed(slog_query *q, const pv_entry *v, uint64_t n, uint32_t fold)
{
    for (uint64_t i = 0; i < n; i++) {
        if (v[i].kind == SLOG_KIND_COUNTER && (fold > 0 || v[i].cat == PV_CATEGORY_OTHER) &&
            preview_matches(q, fold, &v[i])) {
            return 1;
        }
    }
    return 0;
}

/* Where a preview's counters come from.  Its own entries, unless they mix
 * series while every category is selected (per-timeline totals and a
 * leaf's samples cannot leave a category out): then an inner node's
 * per-timeline totals (one preview per timeline, fold 0, category "other":
 * all counters of that timeline, exact for a timeline of one counter), or
 * a leaf's counter samples themselves (at most as many leaves as pixels
 * reach here, since a narrower one is folded into an inner node). */
enum { COUNTERS_OWN, COUNTERS_TIMELINES, COUNTERS_SAMPLES };

static int counter_source(slog_query *q, const store_node_row *n, const cache_entry *e,
                          int binned)
{
    if (q->cat_sel != NULL || !(q->preview_of & (1u << SLOG_KIND_COUNTER)) ||
        !(binned ? counters_mixed(q, e->bins.cells, e->bins.n, e->bins.fold)
                 : counters_mixed(q, e->previews, e->npreviews, e->fold))) {
        return COUNTERS_OWN;
    }
    if (e->tls.present) {
        return COUNTERS_TIMELINES;
    }
    const int leaf = n->subtree_nodes == 1 && n->payload_len > 0 &&
                     n->counts[SLOG_KIND_COUNTER] > 0 && (q->kinds & (1u << SLOG_KIND_COUNTER));
    return leaf ? COUNTERS_SAMPLES : COUNTERS_OWN;
}

/* Make a pinned entry the current emission source (node i, n its row). */
static void set_current(slog_query *q, uint64_t i, const store_node_row *n, cache_entry *e,
                        int preview)
{
    q->cur = e;
    q->cur_id = i;
    q->cur_node = *n;
    q->cur_kind = preview ? SLOG_KIND_PREVIEW : 0;
    q->cur_kinds = q->kinds;
    q->cur_binned = preview && emits_bins(q, &q->cur_node, e);
    q->cur_counters = preview ? counter_source(q, n, e, q->cur_binned) : COUNTERS_OWN;
    q->cur_index = 0;
    q->cur_tl_index = 0;
}

static int open_blob(slog_query *q, uint64_t node, const store_node_row *n, int preview,
                     slog_error *err)
{
    cache_entry *e = NULL;
    const int rc = load_blob(q, node, preview, &e, err);
    if (rc == SLOG_OK) {
        set_current(q, node, n, e, preview);
    }
    return rc;
}

static int wants_drawables(const slog_query *q, const store_node_row *n)
{
    for (int k = 0; k < 4; k++) {
        if ((q->kinds & (1u << k)) && n->counts[k] > 0) {
            return 1;
        }
    }
    return 0;
}

static int decide_preview(slog_query *q, uint64_t i, const store_node_row *n, cache_entry **pv,
                          slog_error *err);

/* Visit the next node on the stack; sets q->cur when it has something to
 * emit.  Returns SLOG_OK, SLOG_END or an error. */
static int visit_single(slog_query *q, slog_error *err)
{
    if (q->single_done) {
        return SLOG_END;
    }
    q->single_done = 1;
    store_node_row row;
    const int rc = tree_read_node(&q->r->tree, q->single_node, &row, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (row.payload_len > 0 && wants_drawables(q, &row)) {
        return open_blob(q, q->single_node, &row, 0, err);
    }
    return SLOG_OK;
}

static int visit_next(slog_query *q, slog_error *err)
{
    if (q->single) {
        return visit_single(q, err);
    }
    uint64_t i = 0;
    const uint64_t before = q->walk.visited;
    const int got = tree_read_walk_next(&q->walk, &i, err);
    q->stats.nodes_visited += q->walk.visited - before;
    if (got <= 0) {
        return got < 0 ? got : SLOG_END;
    }
    if (i < q->first_node) {
        return SLOG_OK; /* with its subtree, which precedes it */
    }
    store_node_row row;
    int rc = tree_read_node(&q->r->tree, i, &row, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    const store_node_row *const n = &row;
    cache_entry *pv = NULL;
    int dense = decide_preview(q, i, n, &pv, err);
    if (dense < 0) {
        return dense;
    }
    if (dense == 0 && (n->flags & TREE_NODE_CUT) && q->resolution > 0 &&
        (q->cut_as_preview || node_pixels(q, n) <= TREE_WALK_DENSE_PIXELS)) {
        dense = 1; /* an index's copy ends here: zoomed out, its preview stands for it */
    }
    if (dense > 0 && !q->previews) {
        node_cache_unpin(pv);
        return SLOG_OK;
    }
    if (dense > 0) {
        if (pv != NULL) {
            set_current(q, i, n, pv, 1);
            return SLOG_OK;
        }
        return open_blob(q, i, n, 1, err);
    }
    if (n->flags & TREE_NODE_CUT) {
        return API_ECUT; /* an index's copy ends here: its input file has the rest */
    }
    rc = tree_read_walk_descend(&q->walk, i, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (n->payload_len > 0 && wants_drawables(q, n)) {
        return open_blob(q, i, n, 0, err);
    }
    return SLOG_OK;
}

/* ---- filters and emission ---- */

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The rows of fold `fold` that selected timelines fold to, marked (each is
 * at most the largest selected timeline id: a parent, a root, or an id
 * shifted right).  0, or -1 without memory. */
static int make_fold_sel(slog_query *q, uint32_t fold)
{
    uint32_t top = 0;
    for (uint32_t i = 0; i < q->nsel; i++) {
        const uint32_t row = pv_fold_row(&q->r->ctx, q->sel_list[i], 0, fold);
        top = row > top ? row : top;
    }
    uint8_t *const sel = util_calloc((size_t)top + 1, 1);
    if (sel == NULL) {
        return -1;
    }
    for (uint32_t i = 0; i < q->nsel; i++) {
        sel[pv_fold_row(&q->r->ctx, q->sel_list[i], 0, fold)] = 1;
    }
    q->fold_sel[fold] = sel;
    q->fold_nrows[fold] = top + 1;
    return 0;
}

/* Is a preview row at `fold` made of at least one selected timeline? */
static int row_selected(slog_query *q, uint32_t fold, uint32_t row)
{
    if (q->tl_sel == NULL) {
        return 1;
    }
    if (fold == 0) {
        return row < q->ntl && q->tl_sel[row];
    }
    if (q->fold_sel[fold] == NULL && make_fold_sel(q, fold) != 0) {
        return 1; /* cannot filter: show rather than hide */
    }
    return row < q->fold_nrows[fold] && q->fold_sel[fold][row];
}

static int tl_ok(const slog_query *q, uint32_t tl)
{
    return q->tl_sel == NULL || (tl < q->ntl && q->tl_sel[tl]);
}

static int cat_ok(const slog_query *q, uint32_t cat)
{
    return q->cat_sel == NULL || (cat < q->ncat && q->cat_sel[cat]);
}

static void to_public_preview(const pv_entry *e, uint32_t fold, const store_node_row *n,
                              slog_preview *v)
{
    /* every field set by stores (a memset of the struct became a slow rep stos) */
    *v = (slog_preview){.of = (slog_kind)e->kind,
                        .fold = fold,
                        .row = e->row,
                        .row_to = e->row_to,
                        .category = e->cat, /* PV_CATEGORY_OTHER == SLOG_CATEGORY_OTHER */
                        .start = n->t0,
                        .end = n->t1,
                        .count = e->count};
    if (e->kind == SLOG_KIND_STATE || e->kind == SLOG_KIND_ARROW) {
        v->inclusive = e->incl;
        v->exclusive = e->excl;
        v->min = e->min;
        v->max = e->max;
    } else if (e->kind == SLOG_KIND_COUNTER) {
        v->vmin = e->vmin;
        v->vmax = e->vmax;
        v->vsum = e->vsum;
        v->vlast = e->vlast;
    }
}

/* Does a preview entry summarise drawables the query asks for?  "Other"
 * (rare categories folded together) may hold selected categories: kept. */
static int preview_matches(slog_query *q, uint32_t fold, const pv_entry *p)
{
    if (!(q->preview_of & (1u << p->kind)) ||
        (p->cat != PV_CATEGORY_OTHER && !cat_ok(q, p->cat))) {
        return 0;
    }
    return row_selected(q, fold, p->row) ||
           (p->kind == SLOG_KIND_ARROW && row_selected(q, fold, p->row_to));
}

/* Rows present in a preview, the sorted way: for rows beyond the timeline
 * table, which only a damaged file has. */
static int count_rows_sorted(slog_query *q, const cache_entry *e, uint64_t *rows)
{
    uint32_t *const v = util_malloc(((size_t)e->npreviews + 1) * sizeof *v);
    if (v == NULL) {
        return -1;
    }
    size_t n = 0;
    for (uint64_t i = 0; i < e->npreviews; i++) {
        if (preview_matches(q, e->fold, &e->previews[i])) {
            v[n++] = e->previews[i].row;
        }
    }
    qsort(v, n, sizeof *v, cmp_u32);
    uint64_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        distinct += i == 0 || v[i] != v[i - 1];
    }
    util_free(v);
    *rows = distinct;
    return 0;
}

/* Rows present in a preview: distinct rows of the entries that match, each
 * counted when first marked with this call's stamp (no sort, no memory per
 * call).  0, or -1 without memory. */
static int count_rows(slog_query *q, const cache_entry *e, uint64_t *rows)
{
    if (q->row_mark == NULL) {
        q->row_mark = util_calloc((size_t)q->ntl + 1, sizeof *q->row_mark);
        if (q->row_mark == NULL) {
            return -1;
        }
    }
    if (++q->row_stamp == 0) { /* wrapped: forget every mark */
        memset(q->row_mark, 0, ((size_t)q->ntl + 1) * sizeof *q->row_mark);
        q->row_stamp = 1;
    }
    uint64_t distinct = 0;
    for (uint64_t i = 0; i < e->npreviews; i++) {
        const pv_entry *const p = &e->previews[i];
        if (!preview_matches(q, e->fold, p)) {
            continue;
        }
        if (p->row >= q->ntl) {
            return count_rows_sorted(q, e, rows);
        }
        distinct += q->row_mark[p->row] != q->row_stamp;
        q->row_mark[p->row] = q->row_stamp;
    }
    *rows = distinct;
    return 0;
}

/* The drawables of node i's subtree: a leaf's own counts; an inner node's
 * preview totals (exact for its subtree), its preview loaded (pinned in
 * *pv) since the density rule then needs its rows too. */
static int subtree_items(slog_query *q, uint64_t i, const store_node_row *n, cache_entry **pv,
                         uint64_t *items, slog_error *err)
{
    *items = n->counts[0] + n->counts[1] + n->counts[2] + n->counts[3];
    if (n->subtree_nodes == 1) {
        return SLOG_OK;
    }
    const int rc = load_blob(q, i, 1, pv, err);
    if (rc != SLOG_OK || *pv == NULL) {
        return rc != SLOG_OK ? rc : util_err(err, SLOG_ENOMEM, UINT64_MAX, q->r->path,
                                             "Cannot read a preview");
    }
    *items = (*pv)->preview_items;
    return SLOG_OK;
}

static int drop_preview(cache_entry **pv, int verdict)
{
    node_cache_unpin(*pv);
    *pv = NULL;
    return verdict;
}

/* Does node i stand as its preview (tree_walk.h's density rule)?  1 (with
 * *pv pinned when its preview was loaded to count its items and rows), 0,
 * or an error (< 0).  The subtree's items are read only for a node 1..16
 * pixels wide, the only width where the rule asks for them. */
static int decide_preview(slog_query *q, uint64_t i, const store_node_row *n, cache_entry **pv,
                          slog_error *err)
{
    const int span = tree_walk_preview_candidate(n, UINT64_MAX, q->resolution);
    if (span != 2) {
        return span;
    }
    uint64_t items = 0;
    int rc = subtree_items(q, i, n, pv, &items, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (tree_walk_preview_candidate(n, items, q->resolution) != 2) {
        return drop_preview(pv, 0);
    }
    rc = *pv == NULL ? load_blob(q, i, 1, pv, err) : SLOG_OK;
    if (rc != SLOG_OK) {
        return rc;
    }
    /* each entry has one row: dense with as many rows as entries is dense
     * with the rows there are, without counting them */
    uint64_t rows = (*pv)->npreviews;
    if (!tree_walk_as_preview(n, items, rows, q->resolution) && count_rows(q, *pv, &rows) != 0) {
        drop_preview(pv, 0);
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, q->r->path, "Cannot read a preview");
    }
    int dense = tree_walk_as_preview(n, items, rows, q->resolution);
    if (dense && node_pixels(q, n) > TREE_WALK_DENSE_PIXELS && !emits_bins(q, n, *pv)) {
        dense = 0; /* wide, and its bins are coarser than its box allows */
    }
    return dense ? dense : drop_preview(pv, 0);
}

static int emit_preview(slog_query *q)
{
    const cache_entry *const e = q->cur;
    while (q->cur_index < e->npreviews) {
        const pv_entry *const p = &e->previews[q->cur_index++];
        if ((q->cur_counters != COUNTERS_OWN && p->kind == SLOG_KIND_COUNTER) ||
            !preview_matches(q, e->fold, p)) {
            continue;
        }
        q->item.kind = SLOG_KIND_PREVIEW;
        to_public_preview(p, e->fold, &q->cur_node, &q->item.u.preview);
        return 1;
    }
    return 0;
}

static int same_key(const pv_entry *a, const pv_entry *b)
{
    return a->kind == b->kind && a->row == b->row && a->row_to == b->row_to && a->cat == b->cat;
}

/* Pixel of a bin: that of its start (not before the node's), clamped to
 * the window's pixels, so items stay within the pixels drawn. */
static int64_t cell_pixel(const slog_query *q, const store_node_row *n, int64_t bin, uint32_t k)
{
    int64_t t = bin * ((int64_t)1 << k); /* representable: pv_decode checked */
    t = t < n->t0 ? n->t0 : t;
    if (t <= q->w0 || q->w1 <= q->w0) {
        return 0;
    }
    const uint64_t res = (uint64_t)q->resolution;
    const uint64_t p = ((uint64_t)t - (uint64_t)q->w0) / res;
    const uint64_t last = ((uint64_t)q->w1 - (uint64_t)q->w0 - 1) / res;
    return (int64_t)(p < last ? p : last);
}

/* The box of a preview summed from cells: from the first cell's bin start
 * to the last one's bin end - 1 + the longest duration (v->max, which
 * to_public_preview set for states and arrows, 0 for the other kinds: every
 * drawable summed lies inside), clipped to the node's box, stretched to
 * touch the window (cells clamped into its edge pixels); min and max
 * duration (the group's) bounded by the box. */
static void cells_box(const slog_query *q, const store_node_row *n, int64_t first_bin,
                      int64_t last_bin, uint32_t k, slog_preview *v)
{
    const int64_t w = (int64_t)1 << k; /* bins bounds are int64: pv_decode checked */
    const int64_t s = first_bin * w;
    const int64_t e = last_bin * w + (w - 1);
    const uint64_t d = v->max > 0 ? (uint64_t)v->max : 0;
    v->start = s > n->t0 ? s : n->t0;
    if (d >= (uint64_t)n->t1 - (uint64_t)n->t0) {
        v->end = n->t1; /* a damaged max: the node's box still holds them */
    } else {
        v->end = e > n->t1 - (int64_t)d ? n->t1 : e + (int64_t)d;
    }
    v->end = v->end < q->w0 ? q->w0 : v->end;       /* n->t1 >= w0: n touches */
    v->start = v->start > q->w1 ? q->w1 : v->start; /* n->t0 < w1 */
    if ((v->of == SLOG_KIND_STATE || v->of == SLOG_KIND_ARROW) && v->max > v->end - v->start) {
        v->max = v->end - v->start; /* each drawable lies in the box */
        v->min = v->min < v->max ? v->min : v->max;
    }
}

/* One preview per (row, category, pixel) of the current node's bins: the
 * sum of the cells of that key whose bins start in the pixel (cells are
 * grouped by key, bins ascending). */
static int emit_bins(slog_query *q)
{
    const pv_bins *const b = &q->cur->bins;
    const store_node_row *const n = &q->cur_node;
    while (q->cur_index < b->n) {
        const pv_entry *const c = &b->cells[q->cur_index++];
        if ((q->cur_counters != COUNTERS_OWN && c->kind == SLOG_KIND_COUNTER) ||
            !preview_matches(q, b->fold, c)) {
            continue;
        }
        const int64_t px = cell_pixel(q, n, c->bin, b->k);
        pv_entry acc = *c;
        while (q->cur_index < b->n && same_key(c, &b->cells[q->cur_index]) &&
               cell_pixel(q, n, b->cells[q->cur_index].bin, b->k) == px) {
            pv_entry_add(&acc, &b->cells[q->cur_index++]);
        }
        q->item.kind = SLOG_KIND_PREVIEW;
        slog_preview *const v = &q->item.u.preview;
        to_public_preview(&acc, b->fold, n, v);
        cells_box(q, n, c->bin, b->cells[q->cur_index - 1].bin, b->k, v);
        return 1;
    }
    return 0;
}

/* One preview per counter timeline of the current node's per-timeline
 * totals (COUNTERS_TIMELINES): its box, category "other". */
static int emit_timeline_counters(slog_query *q)
{
    const pv_tls *const t = &q->cur->tls;
    while (q->cur_tl_index < t->n) {
        const pv_entry *const p = &t->v[q->cur_tl_index++];
        if (p->kind != SLOG_KIND_COUNTER || !row_selected(q, 0, p->row)) {
            continue;
        }
        q->item.kind = SLOG_KIND_PREVIEW;
        to_public_preview(p, 0, &q->cur_node, &q->item.u.preview);
        q->item.u.preview.category = SLOG_CATEGORY_OTHER;
        return 1;
    }
    return 0;
}

/* Does [s, e] meet the window?  A single-node query takes everything. */
static int in_window(const slog_query *q, int64_t s, int64_t e)
{
    return q->single || tree_walk_overlaps(s, e, q->w0, q->w1);
}

/* Does the query want this drawable: in the window, on a timeline and of a
 * category it asks for (an arrow: either end's timeline)? */
static int state_wanted(const slog_query *q, const slog_state *s)
{
    return in_window(q, s->start, s->end) && tl_ok(q, s->timeline) && cat_ok(q, s->category);
}

static int event_wanted(const slog_query *q, const slog_event *e)
{
    return in_window(q, e->time, e->time) && tl_ok(q, e->timeline) && cat_ok(q, e->category);
}

static int arrow_wanted(const slog_query *q, const slog_arrow *a)
{
    return in_window(q, a->start, a->end) && (tl_ok(q, a->from) || tl_ok(q, a->to)) &&
           cat_ok(q, a->category);
}

static int counter_wanted(const slog_query *q, const slog_counter *c)
{
    return in_window(q, c->time, c->time) && tl_ok(q, c->timeline) && cat_ok(q, c->category);
}

static int emit_state(slog_query *q, const fmt_decoded *d)
{
    while (q->cur_index < d->n[SLOG_KIND_STATE]) {
        const slog_state *const s = &d->states[q->cur_index++];
        if (state_wanted(q, s)) {
            q->item.kind = SLOG_KIND_STATE;
            q->item.u.state = *s;
            return 1;
        }
    }
    return 0;
}

static int emit_event(slog_query *q, const fmt_decoded *d)
{
    while (q->cur_index < d->n[SLOG_KIND_EVENT]) {
        const slog_event *const e = &d->events[q->cur_index++];
        if (event_wanted(q, e)) {
            q->item.kind = SLOG_KIND_EVENT;
            q->item.u.event = *e;
            return 1;
        }
    }
    return 0;
}

static int emit_arrow(slog_query *q, const fmt_decoded *d)
{
    while (q->cur_index < d->n[SLOG_KIND_ARROW]) {
        const slog_arrow *const a = &d->arrows[q->cur_index++];
        if (arrow_wanted(q, a)) {
            q->item.kind = SLOG_KIND_ARROW;
            q->item.u.arrow = *a;
            return 1;
        }
    }
    return 0;
}

static int emit_counter(slog_query *q, const fmt_decoded *d)
{
    while (q->cur_index < d->n[SLOG_KIND_COUNTER]) {
        const slog_counter *const c = &d->counters[q->cur_index++];
        if (counter_wanted(q, c)) {
            q->item.kind = SLOG_KIND_COUNTER;
            q->item.u.counter = *c;
            return 1;
        }
    }
    return 0;
}

/* Emit the next matching item of the current blob; 0 when exhausted. */
static int emit_from_current(slog_query *q)
{
    if (q->cur_kind == SLOG_KIND_PREVIEW) {
        const int got = q->cur_binned ? emit_bins(q) : emit_preview(q);
        return got || (q->cur_counters == COUNTERS_TIMELINES && emit_timeline_counters(q));
    }
    const fmt_decoded *const d = &q->cur->drawables;
    for (; q->cur_kind < 4; q->cur_kind++, q->cur_index = 0) {
        if (!(q->cur_kinds & (1u << q->cur_kind))) {
            continue;
        }
        int got = 0;
        switch (q->cur_kind) {
        case SLOG_KIND_STATE:
            got = emit_state(q, d);
            break;
        case SLOG_KIND_EVENT:
            got = emit_event(q, d);
            break;
        case SLOG_KIND_ARROW:
            got = emit_arrow(q, d);
            break;
        default:
            got = emit_counter(q, d);
            break;
        }
        if (got) {
            return 1;
        }
    }
    return 0;
}

/* Args are emitted only when asked for, even if a cached node has them
 * (format-1 nodes always do): the answer does not depend on the cache. */
static void strip_args(slog_query *q)
{
    if (q->want_args) {
        return;
    }
    switch (q->item.kind) {
    case SLOG_KIND_STATE:
        q->item.u.state.args = NULL;
        q->item.u.state.nargs = 0;
        break;
    case SLOG_KIND_EVENT:
        q->item.u.event.args = NULL;
        q->item.u.event.nargs = 0;
        break;
    case SLOG_KIND_ARROW:
        q->item.u.arrow.args = NULL;
        q->item.u.arrow.nargs = 0;
        break;
    default:
        break;
    }
}

/* The current blob is exhausted: release it, queue the runs no later node
 * can add to.  A leaf's preview whose counters come from its samples
 * (COUNTERS_SAMPLES) goes on with its drawables blob, counters only. */
static int finish_current(slog_query *q, slog_error *err)
{
    const int samples = q->cur_kind == SLOG_KIND_PREVIEW && q->cur_counters == COUNTERS_SAMPLES;
    node_cache_unpin(q->cur);
    q->cur = NULL;
    if (samples) {
        const store_node_row n = q->cur_node;
        const int rc = open_blob(q, q->cur_id, &n, 0, err);
        q->cur_kinds = 1u << SLOG_KIND_COUNTER;
        return rc;
    }
    if (q->runs && pix_flush(&q->pix, tree_read_walk_low(&q->walk)) != 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, q->r->path, "Cannot merge pixel runs");
    }
    return SLOG_OK;
}

/* Next item of the current blob, sub-pixel drawables going into runs:
 * 1 an item is in q->item, 0 the blob is exhausted, < 0 an error. */
static int next_from_current(slog_query *q, slog_error *err)
{
    while (emit_from_current(q)) {
        strip_args(q);
        if (!q->runs || q->item.kind == SLOG_KIND_PREVIEW) {
            return 1;
        }
        const int taken = pix_offer(&q->pix, &q->item);
        if (taken < 0) {
            return util_err(err, SLOG_ENOMEM, UINT64_MAX, q->r->path, "Cannot merge pixel runs");
        }
        if (taken == 0) {
            return 1;
        }
    }
    return 0;
}

/* The walk ended: queue every cell left, once (then SLOG_OK), or SLOG_END. */
static int drain_runs(slog_query *q, slog_error *err)
{
    if (!q->runs || q->drained) {
        return SLOG_END;
    }
    q->drained = 1;
    if (pix_flush(&q->pix, INT64_MAX) != 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, q->r->path, "Cannot merge pixel runs");
    }
    return SLOG_OK;
}

/* Advance to the next item: SLOG_OK (it is in q->item), SLOG_END or an
 * error. */
static int advance(slog_query *q, slog_error *err)
{
    if (q->ix != NULL) {
        return api_ixq_next(q->ix, &q->item, err);
    }
    for (;;) {
        if (pix_next(&q->pix, &q->item)) {
            return SLOG_OK;
        }
        int rc = SLOG_OK;
        if (q->cur != NULL) {
            rc = next_from_current(q, err);
            if (rc != 0) {
                return rc > 0 ? SLOG_OK : rc;
            }
            rc = finish_current(q, err);
        } else {
            rc = visit_next(q, err);
        }
        if (rc == SLOG_END) {
            rc = drain_runs(q, err);
        }
        if (rc != SLOG_OK) {
            return rc;
        }
    }
}

int slog_query_next(slog_query *q, const slog_item **item, slog_error *err)
{
    *item = NULL;
    if (q->failed) {
        return util_err(err, SLOG_ESTATE, UINT64_MAX, q->r->path,
                        "Cannot continue a query after an error");
    }
    const int rc = advance(q, err);
    if (rc == SLOG_OK) {
        q->stats.items++;
        *item = &q->item;
        return SLOG_OK;
    }
    if (rc != SLOG_END) {
        q->failed = 1;
    }
    return rc;
}

/* ---- batches ---- */

/* One item as the columns of a batch (the table of slog_reader.h). */
typedef struct batch_row {
    uint8_t kind, of;
    uint32_t timeline, timeline_to, category, depth;
    int64_t start, end, inclusive;
    uint64_t count;
    double value;
} batch_row;

static void row_of_summary(const slog_item *it, batch_row *c)
{
    if (it->kind == SLOG_KIND_PREVIEW) {
        const slog_preview *const p = &it->u.preview;
        *c = (batch_row){SLOG_KIND_PREVIEW, (uint8_t)p->of, p->row, p->row_to, p->category,
                         p->fold, p->start, p->end, p->inclusive, p->count, p->vlast};
        return;
    }
    const slog_run *const r = &it->u.run;
    *c = (batch_row){SLOG_KIND_RUN, (uint8_t)r->of, r->timeline, r->timeline_to, r->category,
                     r->depth, r->start, r->end, r->inclusive, r->count, r->vlast};
}

static void row_of(const slog_item *it, batch_row *c)
{
    const uint8_t k = (uint8_t)it->kind;
    switch (it->kind) {
    case SLOG_KIND_STATE: {
        const slog_state *const s = &it->u.state;
        *c = (batch_row){k, k, s->timeline, s->timeline, s->category, s->depth, s->start, s->end,
                         s->end - s->start, 1, 0.0};
        break;
    }
    case SLOG_KIND_EVENT: {
        const slog_event *const e = &it->u.event;
        *c = (batch_row){k, k, e->timeline, e->timeline, e->category, 0, e->time, e->time, 0, 1,
                         0.0};
        break;
    }
    case SLOG_KIND_ARROW: {
        const slog_arrow *const a = &it->u.arrow;
        *c = (batch_row){k, k, a->from, a->to, a->category, 0, a->start, a->end,
                         a->end - a->start, 1, 0.0};
        break;
    }
    case SLOG_KIND_COUNTER: {
        const slog_counter *const v = &it->u.counter;
        *c = (batch_row){k, k, v->timeline, v->timeline, v->category, 0, v->time, v->time, 0, 1,
                         v->value};
        break;
    }
    default:
        row_of_summary(it, c);
        break;
    }
}

/* Row i of a batch. */
static void batch_put_row(const slog_batch *b, size_t i, const batch_row *r)
{
#define PUT(col) \
    if (b->col != NULL) { \
        b->col[i] = r->col; \
    }
    PUT(kind)
    PUT(of)
    PUT(timeline)
    PUT(timeline_to)
    PUT(category)
    PUT(start)
    PUT(end)
    PUT(depth)
    PUT(count)
    PUT(inclusive)
    PUT(value)
#undef PUT
}

/* Fill column col of a batch for states s[0..n) from entry at on, when the
 * caller gave that column. */
#define BATCH_COLUMN(col, v) \
    if (c->col != NULL) { \
        for (size_t k = 0; k < n; k++) { \
            c->col[at + k] = (v); \
        } \
    }

/* States s[0..n) as items at.. of a batch whose arrays are c (a copy in
 * the caller's locals: stores through the arrays cannot move them), one
 * column at a time: first what says what and where ... */
static void batch_put_state_ids(const slog_batch *c, size_t at, const slog_state *s, size_t n)
{
    BATCH_COLUMN(kind, SLOG_KIND_STATE)
    BATCH_COLUMN(of, SLOG_KIND_STATE)
    BATCH_COLUMN(timeline, s[k].timeline)
    BATCH_COLUMN(timeline_to, s[k].timeline)
    BATCH_COLUMN(category, s[k].category)
    BATCH_COLUMN(depth, s[k].depth)
}

/* ... then the times and totals. */
static void batch_put_state_times(const slog_batch *c, size_t at, const slog_state *s, size_t n)
{
    BATCH_COLUMN(start, s[k].start)
    BATCH_COLUMN(end, s[k].end)
    BATCH_COLUMN(count, 1)
    BATCH_COLUMN(inclusive, s[k].end - s[k].start)
    BATCH_COLUMN(value, 0.0)
}
#undef BATCH_COLUMN

/* The current node's states from q->cur_index into c from entry at on:
 * each run of wanted states column by column.  Returns the new fill. */
static size_t batch_states(slog_query *q, const slog_batch *c, size_t at)
{
    const slog_state *const v = q->cur->drawables.states;
    const size_t end = q->cur->drawables.n[SLOG_KIND_STATE];
    size_t i = q->cur_index;
    while (i < end && at < c->capacity) {
        const size_t lim = end - i < c->capacity - at ? end : i + (c->capacity - at);
        size_t j = i;
        while (j < lim && state_wanted(q, &v[j])) {
            j++;
        }
        batch_put_state_ids(c, at, &v[i], j - i);
        batch_put_state_times(c, at, &v[i], j - i);
        at += j - i;
        i = j + (j < lim); /* past the run and the state that ended it */
    }
    q->cur_index = i;
    return at;
}

/* Item i of kind k (event, arrow or counter) of the current node as a
 * batch row, when the query wants it. */
static int other_row(const slog_query *q, const fmt_decoded *d, unsigned k, size_t i,
                     batch_row *r)
{
    slog_item it;
    it.kind = (slog_kind)k;
    if (k == SLOG_KIND_EVENT) {
        it.u.event = d->events[i];
        if (!event_wanted(q, &it.u.event)) {
            return 0;
        }
    } else if (k == SLOG_KIND_ARROW) {
        it.u.arrow = d->arrows[i];
        if (!arrow_wanted(q, &it.u.arrow)) {
            return 0;
        }
    } else {
        it.u.counter = d->counters[i];
        if (!counter_wanted(q, &it.u.counter)) {
            return 0;
        }
    }
    row_of(&it, r);
    return 1;
}

/* The current node's items of kind q->cur_kind (not states) from
 * q->cur_index into c, row by row.  Returns the new fill. */
static size_t batch_others(slog_query *q, const slog_batch *c, size_t at)
{
    const fmt_decoded *const d = &q->cur->drawables;
    const unsigned k = (unsigned)q->cur_kind; /* 1 to 3 here */
    size_t i = q->cur_index;
    for (; i < d->n[k] && at < c->capacity; i++) {
        batch_row r;
        if (other_row(q, d, k, i, &r)) {
            batch_put_row(c, at++, &r);
        }
    }
    q->cur_index = i;
    return at;
}

/*
 * The current node's drawables straight into the batch from entry at on,
 * while nothing can come between them: no index query, and no pixel runs
 * (at full detail nothing is merged).  The same items in the same order as
 * emit_from_current gives them one by one, without an slog_item each for
 * states.  The last kind is left exhausted, not passed: advance() then
 * finishes the node as it always does.  Returns the batch's new fill.
 */
static size_t batch_current(slog_query *q, const slog_batch *b, size_t at)
{
    if (q->ix != NULL || q->runs || q->cur == NULL) {
        return at;
    }
    const slog_batch c = *b; /* in locals: stores through the arrays cannot move them */
    const size_t first = at;
    while (q->cur_kind < SLOG_KIND_PREVIEW && at < c.capacity) {
        if (q->kinds & (1u << q->cur_kind)) {
            at = q->cur_kind == SLOG_KIND_STATE ? batch_states(q, &c, at) : batch_others(q, &c, at);
            if (q->cur_index < q->cur->drawables.n[q->cur_kind]) {
                break; /* the batch is full */
            }
        }
        if (q->cur_kind + 1 == SLOG_KIND_PREVIEW) {
            break;
        }
        q->cur_kind++;
        q->cur_index = 0;
    }
    q->stats.items += at - first;
    return at;
}

int slog_query_next_batch(slog_query *q, slog_batch *cols, size_t *n, slog_error *err)
{
    *n = 0;
    if (cols->capacity == 0) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, q->r->path, "Batch capacity must be > 0");
    }
    if (q->failed) {
        return util_err(err, SLOG_ESTATE, UINT64_MAX, q->r->path,
                        "Cannot continue a query after an error");
    }
    while ((*n = batch_current(q, cols, *n)) < cols->capacity) {
        const int rc = advance(q, err);
        if (rc == SLOG_END) {
            return *n > 0 ? SLOG_OK : SLOG_END;
        }
        if (rc != SLOG_OK) {
            q->failed = 1;
            return rc;
        }
        q->stats.items++;
        batch_row row;
        row_of(&q->item, &row);
        batch_put_row(cols, (*n)++, &row);
    }
    return SLOG_OK;
}
