/* SPDX-License-Identifier: MIT
 *
 * api_stats.c - exact window statistics (slog_stats.h).  Three steps:
 *  1. the edge walk visits the nodes whose box touches the window but is not
 *     wholly inside it (about two root-to-leaf paths), decodes their own
 *     drawables, and sets aside the wholly inside subtrees it meets;
 *  2. the states cut by the window's edges give per-timeline segments
 *     (api_stats_excl.c);
 *  3. every wholly inside subtree answers from its preview when the preview
 *     is exact for the question (rows per timeline when grouping or
 *     filtering by timeline, no "other" category when grouping or filtering
 *     by category, no segment cut inside its box on a timeline it holds),
 *     or, grouping by timeline alone, from the preview's per-timeline
 *     totals (format 3, which also credit segments under folded entries);
 *     otherwise its own drawables are decoded and its children visited.
 * Decoded wholly inside states bring their stored exclusive time; a file
 * without it (format 1) is answered by decoding every node touching the
 * window and nesting the states (stats_finish_nesting).  Every preview and
 * blob is checked against the node table, and a damaged one is an error
 * naming the node, never a wrong total.
 * Layer 5: api.
 */
#include "api_index.h"
#include "api_options.h"
#include "api_stats_int.h"
#include "tree_walk.h"
#include "util_alloc.h"
#include "util_sat.h"
#include "util_error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    NEED_FALLBACK = 2 /* internal: the file has no per-state exclusive time */
};

struct slog_stats {
    slog_stats_row *rows;
    size_t n;
    slog_stats_cost cost;
};

/* Per-state exclusive time of a decoded blob (format 2 and later; resolved
 * by decode_node), NULL without. */
static const int64_t *state_excl(const fmt_decoded *d)
{
    return d->excl_pending ? NULL : d->state_excl;
}

int stats_nomem(stats_ctx *c)
{
    return util_err(c->err, SLOG_ENOMEM, UINT64_MAX, c->r->path, "Cannot compute statistics");
}

int stats_tl_ok(const stats_ctx *c, uint32_t tl)
{
    return c->tl_sel == NULL || (tl < c->r->ntl && c->tl_sel[tl]);
}

int stats_cat_ok(const stats_ctx *c, uint32_t cat)
{
    return c->cat_sel == NULL || (cat < c->r->ncat && c->cat_sel[cat]);
}

/* ---- the group table ---- */

static size_t group_hash(uint32_t kind, uint32_t tl, uint32_t cat)
{
    uint64_t h = ((uint64_t)tl << 32 | cat) * 0x9E3779B97F4A7C15ull;
    h ^= (h >> 31) + kind * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h ^ (h >> 29));
}

static int group_rehash(stats_ctx *c)
{
    const size_t ncap = c->gcap ? c->gcap * 2 : 64;
    stats_group *const g = util_calloc(ncap, sizeof *g);
    if (g == NULL) {
        return -1;
    }
    for (size_t i = 0; i < c->gcap; i++) {
        const slog_stats_row *const r = &c->groups[i].row;
        if (c->groups[i].used) {
            size_t j = group_hash(r->kind, r->timeline, r->category) & (ncap - 1);
            while (g[j].used) {
                j = (j + 1) & (ncap - 1);
            }
            g[j] = c->groups[i];
        }
    }
    util_free(c->groups);
    c->groups = g;
    c->gcap = ncap;
    return 0;
}

slog_stats_row *stats_group_get(stats_ctx *c, uint32_t kind, uint32_t tl, uint32_t cat)
{
    tl = c->by & SLOG_STATS_BY_TIMELINE ? tl : SLOG_STATS_ANY;
    cat = c->by & SLOG_STATS_BY_CATEGORY ? cat : SLOG_STATS_ANY;
    if ((c->gn + 1) * 4 > c->gcap * 3 && group_rehash(c) != 0) {
        return NULL;
    }
    size_t j = group_hash(kind, tl, cat) & (c->gcap - 1);
    for (;; j = (j + 1) & (c->gcap - 1)) {
        stats_group *const g = &c->groups[j];
        if (!g->used) {
            memset(g, 0, sizeof *g);
            g->used = 1;
            g->row.kind = (slog_kind)kind;
            g->row.timeline = tl;
            g->row.category = cat;
            g->row.min = INT64_MAX;
            g->row.max = INT64_MIN;
            c->gn++;
            return &g->row;
        }
        if (g->row.kind == (slog_kind)kind && g->row.timeline == tl && g->row.category == cat) {
            return &g->row;
        }
    }
}

static void row_durations(slog_stats_row *r, uint64_t count, int64_t incl, int64_t excl,
                          int64_t min, int64_t max)
{
    r->count += count;
    r->inclusive = util_sat_add_i64(r->inclusive, incl);
    r->exclusive = util_sat_add_i64(r->exclusive, excl);
    r->min = min < r->min ? min : r->min;
    r->max = max > r->max ? max : r->max;
}

int stats_add_state(stats_ctx *c, uint32_t tl, uint32_t cat, int64_t clipped, int64_t excl)
{
    slog_stats_row *const r = stats_group_get(c, SLOG_KIND_STATE, tl, cat);
    if (r == NULL) {
        return stats_nomem(c);
    }
    row_durations(r, 1, clipped, excl, clipped, clipped);
    return SLOG_OK;
}

/* fmin/fmax: a NaN sample never wins over a number, whatever the order. */
static void row_values(slog_stats_row *r, uint64_t count, double vmin, double vmax, double vsum)
{
    r->vmin = r->count == 0 ? vmin : fmin(r->vmin, vmin);
    r->vmax = r->count == 0 ? vmax : fmax(r->vmax, vmax);
    r->vsum += vsum;
    r->count += count;
}

int stats_push_xstate(stats_ctx *c, const slog_state *s)
{
    void *p = c->xs;
    if (util_grow(&p, &c->capxs, c->nxs + 1, sizeof *c->xs) != 0) {
        return stats_nomem(c);
    }
    c->xs = p;
    stats_xstate *const x = &c->xs[c->nxs++];
    x->start = s->start;
    x->end = s->end;
    x->children = 0;
    x->timeline = s->timeline;
    x->category = s->category;
    x->depth = s->depth;
    return SLOG_OK;
}

static int push_u64(stats_ctx *c, uint64_t **v, size_t *n, size_t *cap, uint64_t x)
{
    void *p = *v;
    if (util_grow(&p, cap, *n + 1, sizeof **v) != 0) {
        return stats_nomem(c);
    }
    *v = p;
    (*v)[(*n)++] = x;
    return SLOG_OK;
}

static int push_loose(stats_ctx *c, uint32_t tl, int64_t start, int64_t excl)
{
    void *p = c->loose;
    if (util_grow(&p, &c->caploose, c->nloose + 1, sizeof *c->loose) != 0) {
        return stats_nomem(c);
    }
    c->loose = p;
    c->loose[c->nloose].timeline = tl;
    c->loose[c->nloose].start = start;
    c->loose[c->nloose++].excl = excl;
    return SLOG_OK;
}

/* ---- loading and checking nodes ---- */

int api_node_error(slog_reader *r, uint64_t node, int code, uint64_t off, const char *what,
                   slog_error *err)
{
    store_node_row n;
    if (tree_read_node(&r->tree, node, &n, NULL) != SLOG_OK) {
        return util_err(err, code, off, r->path, "Node %llu: %s", (unsigned long long)node, what);
    }
    return util_err(err, code, off, r->path, "Node %llu [%lld, %lld]: %s",
                    (unsigned long long)node, (long long)n.t0, (long long)n.t1, what);
}

int api_node_load(slog_reader *r, uint64_t node, int preview, cache_entry **out,
                  tree_read_cost *io, slog_error *err)
{
    slog_error local;
    memset(&local, 0, sizeof local);
    local.offset = UINT64_MAX;
    int rc = preview ? tree_read_load_preview(&r->tree, node, out, io, &local)
                     : tree_read_load_drawables(&r->tree, node, out, io, &local);
    if (rc != SLOG_OK) {
        return api_node_error(r, node, rc, local.offset, local.message, err);
    }
    store_node_row n;
    rc = tree_read_node(&r->tree, node, &n, err);
    if (rc != SLOG_OK) {
        node_cache_unpin(*out);
        *out = NULL;
        return rc;
    }
    const fmt_decoded *const d = &(*out)->drawables;
    for (int k = 0; !preview && k < 4; k++) {
        if (d->n[k] != n.counts[k]) {
            node_cache_unpin(*out);
            *out = NULL;
            return api_node_error(r, node, SLOG_ECORRUPT, UINT64_MAX,
                                  "Corrupt drawables: counts disagree with the node table", err);
        }
    }
    return SLOG_OK;
}

static int node_error(stats_ctx *c, uint64_t node, int code, uint64_t off, const char *what)
{
    return api_node_error(c->r, node, code, off, what, c->err);
}

static int load(stats_ctx *c, uint64_t node, int preview, cache_entry **out)
{
    const int rc = api_node_load(c->r, node, preview, out, &c->io, c->err);
    if (rc == SLOG_OK && !preview) {
        c->cost.nodes_decoded++;
    }
    return rc;
}

/* What the node's own row and its children's totals (a leaf child's row,
 * an inner child's preview) say its subtree holds. */
static int expected_items(stats_ctx *c, uint64_t node, uint64_t *items)
{
    store_node_row n;
    int rc = tree_read_node(&c->r->tree, node, &n, c->err);
    if (rc != SLOG_OK) {
        return rc;
    }
    *items = n.counts[0] + n.counts[1] + n.counts[2] + n.counts[3];
    uint64_t j = node;
    while ((rc = tree_read_next_child(&c->r->tree, node, &j, c->err)) == 1) {
        uint64_t k = 0;
        rc = tree_read_subtree_items(&c->r->tree, j, &k, &c->io, c->err);
        if (rc != SLOG_OK) {
            return rc;
        }
        *items += k;
    }
    return rc;
}

/* Per-timeline totals agree with the entries, kind by kind. */
static int check_tls(stats_ctx *c, uint64_t node, const cache_entry *e)
{
    int64_t sum[4][3] = {{0}}; /* count, inclusive, exclusive: entries minus totals */
    for (uint64_t i = 0; i < e->npreviews + e->tls.n; i++) {
        const int from_tls = i >= e->npreviews;
        const pv_entry *const p = from_tls ? &e->tls.v[i - e->npreviews] : &e->previews[i];
        const uint64_t sign = from_tls ? UINT64_MAX : 1; /* wrapping: -1 or +1 */
        sum[p->kind][0] = (int64_t)((uint64_t)sum[p->kind][0] + sign * p->count);
        sum[p->kind][1] = (int64_t)((uint64_t)sum[p->kind][1] + sign * (uint64_t)p->incl);
        sum[p->kind][2] = (int64_t)((uint64_t)sum[p->kind][2] + sign * (uint64_t)p->excl);
        const int durations = p->kind == SLOG_KIND_STATE || p->kind == SLOG_KIND_ARROW;
        if (from_tls && (p->count == 0 || (durations && (p->min < 0 || p->min > p->max)))) {
            sum[0][0] = 1;
        }
    }
    for (int k = 0; k < 4; k++) {
        if (sum[k][0] != 0 || sum[k][1] != 0 || sum[k][2] != 0) {
            return node_error(c, node, SLOG_ECORRUPT, UINT64_MAX,
                              "Corrupt preview: its per-timeline totals disagree with its entries");
        }
    }
    return SLOG_OK;
}

/* A preview summarises exactly the drawables of its subtree. */
static int check_preview(stats_ctx *c, uint64_t node, const cache_entry *e)
{
    uint64_t total = 0;
    for (uint64_t i = 0; i < e->npreviews; i++) {
        const pv_entry *const p = &e->previews[i];
        total += p->count;
        const int durations = p->kind == SLOG_KIND_STATE || p->kind == SLOG_KIND_ARROW;
        if (p->count == 0 ||
            (durations && (p->incl < 0 || p->min < 0 || p->min > p->max || p->excl > p->incl))) {
            return node_error(c, node, SLOG_ECORRUPT, UINT64_MAX,
                              "Corrupt preview: an entry's totals contradict each other");
        }
    }
    uint64_t expected = 0;
    const int rc = expected_items(c, node, &expected);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (total != expected) {
        return node_error(c, node, SLOG_ECORRUPT, UINT64_MAX,
                          "Corrupt preview: its counts disagree with the node table");
    }
    return e->tls.present ? check_tls(c, node, e) : SLOG_OK;
}

static int check_drawables(stats_ctx *c, uint64_t node, const fmt_decoded *d)
{
    store_node_row row;
    const int rc = tree_read_node(&c->r->tree, node, &row, c->err);
    if (rc != SLOG_OK) {
        return rc;
    }
    const store_node_row *const n = &row;
    for (uint64_t i = 0; i < d->n[SLOG_KIND_STATE]; i++) {
        const slog_state *const s = &d->states[i];
        if (s->end < s->start || s->start < n->t0 || s->end > n->t1) {
            return node_error(c, node, SLOG_ECORRUPT, UINT64_MAX,
                              "Corrupt drawables: a state lies outside the node's box");
        }
    }
    return SLOG_OK;
}

/* ---- decoded drawables ---- */

static int add_events(stats_ctx *c, const fmt_decoded *d)
{
    for (uint64_t i = 0; (c->kinds & 2u) && i < d->n[SLOG_KIND_EVENT]; i++) {
        const slog_event *const e = &d->events[i];
        if (!tree_walk_overlaps(e->time, e->time, c->w0, c->w1) || !stats_tl_ok(c, e->timeline) ||
            !stats_cat_ok(c, e->category)) {
            continue;
        }
        slog_stats_row *const r = stats_group_get(c, SLOG_KIND_EVENT, e->timeline, e->category);
        if (r == NULL) {
            return stats_nomem(c);
        }
        r->count++;
    }
    return SLOG_OK;
}

static int add_arrows(stats_ctx *c, const fmt_decoded *d)
{
    for (uint64_t i = 0; (c->kinds & 4u) && i < d->n[SLOG_KIND_ARROW]; i++) {
        const slog_arrow *const a = &d->arrows[i];
        if (!tree_walk_overlaps(a->start, a->end, c->w0, c->w1) ||
            !(stats_tl_ok(c, a->from) || stats_tl_ok(c, a->to)) || !stats_cat_ok(c, a->category)) {
            continue;
        }
        slog_stats_row *const r = stats_group_get(c, SLOG_KIND_ARROW, a->from, a->category);
        if (r == NULL) {
            return stats_nomem(c);
        }
        r->count++;
    }
    return SLOG_OK;
}

static int add_counters(stats_ctx *c, const fmt_decoded *d)
{
    for (uint64_t i = 0; (c->kinds & 8u) && i < d->n[SLOG_KIND_COUNTER]; i++) {
        const slog_counter *const k = &d->counters[i];
        if (!tree_walk_overlaps(k->time, k->time, c->w0, c->w1) || !stats_tl_ok(c, k->timeline) ||
            !stats_cat_ok(c, k->category)) {
            continue;
        }
        slog_stats_row *const r = stats_group_get(c, SLOG_KIND_COUNTER, k->timeline, k->category);
        if (r == NULL) {
            return stats_nomem(c);
        }
        row_values(r, 1, k->value, k->value, k->value);
    }
    return SLOG_OK;
}

static int add_points(stats_ctx *c, const fmt_decoded *d)
{
    int rc = add_events(c, d);
    if (rc == SLOG_OK) {
        rc = add_arrows(c, d);
    }
    return rc == SLOG_OK ? add_counters(c, d) : rc;
}

static int wholly_inside(const stats_ctx *c, int64_t s, int64_t e)
{
    return s >= c->w0 && e <= c->w1;
}

/* States of a decoded node: wholly inside ones go to their groups with
 * their stored exclusive time (and to their segment, now or later); the
 * ones the window cuts are kept for stats_finish_crossing. */
static int add_states(stats_ctx *c, const fmt_decoded *d, int edge)
{
    const int64_t *const ex = state_excl(d);
    for (uint64_t i = 0; (c->kinds & 1u) && i < d->n[SLOG_KIND_STATE]; i++) {
        const slog_state *const s = &d->states[i];
        if (!stats_tl_ok(c, s->timeline) || !tree_walk_overlaps(s->start, s->end, c->w0, c->w1)) {
            continue;
        }
        int rc = SLOG_OK;
        if (!wholly_inside(c, s->start, s->end)) {
            rc = stats_push_xstate(c, s);
        } else if (ex == NULL) {
            return NEED_FALLBACK;
        } else {
            if (stats_cat_ok(c, s->category)) {
                rc = stats_add_state(c, s->timeline, s->category, s->end - s->start, ex[i]);
            }
            if (rc == SLOG_OK && edge) {
                rc = push_loose(c, s->timeline, s->start, ex[i]);
            } else if (rc == SLOG_OK) {
                stats_credit(c, s->timeline, s->start, ex[i]);
            }
        }
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    return SLOG_OK;
}

static int decode_node(stats_ctx *c, uint64_t node, int edge)
{
    store_node_row row;
    const int got = tree_read_node(&c->r->tree, node, &row, c->err);
    if (got != SLOG_OK) {
        return got;
    }
    const store_node_row *const n = &row;
    if (n->payload_len == 0) {
        return SLOG_OK;
    }
    cache_entry *e = NULL;
    int rc = load(c, node, 0, &e);
    if (rc != SLOG_OK) {
        return rc;
    }
    rc = check_drawables(c, node, &e->drawables);
    if (rc == SLOG_OK && fmt_decoded_resolve_excl(&e->drawables) != 0) {
        rc = stats_nomem(c);
    }
    if (rc == SLOG_OK) {
        rc = add_states(c, &e->drawables, edge);
    }
    if (rc == SLOG_OK) {
        rc = add_points(c, &e->drawables);
    }
    node_cache_unpin(e);
    return rc;
}

/* ---- previews of wholly inside subtrees ---- */

static int wants_kind(const stats_ctx *c, uint8_t kind)
{
    return (c->kinds & (1u << kind)) != 0;
}

enum {
    MIX_NONE = 0, /* no selected timeline folds into the row */
    MIX_ALL = 1,  /* every timeline folding into it is selected */
    MIX_SOME = 2  /* some are: the row cannot answer for the filter */
};

/* Per row at `fold`: bit 0 when a selected timeline folds into it, bit 1
 * when an unselected one does; NULL when out of memory. */
static uint8_t *fold_filter_bits(const stats_ctx *c, uint32_t fold)
{
    uint8_t *const m = util_calloc((size_t)c->r->ntl + 1, 1);
    for (uint32_t tl = 0; m != NULL && tl < c->r->ntl; tl++) {
        const uint32_t fr = pv_fold_row(&c->r->ctx, tl, 0, fold);
        if (fr < c->r->ntl) {
            m[fr] |= c->tl_sel[tl] ? 1u : 2u;
        }
    }
    return m;
}

/* How the timeline filter selects preview row `row` at `fold`. */
static int row_mix(stats_ctx *c, uint32_t fold, uint32_t row)
{
    if (c->tl_sel == NULL) {
        return MIX_ALL;
    }
    if (fold == 0) {
        return stats_tl_ok(c, row) ? MIX_ALL : MIX_NONE;
    }
    if (fold > PV_FOLD_MAX || row >= c->r->ntl) {
        return MIX_SOME;
    }
    if (c->fold_mix[fold] == NULL) {
        c->fold_mix[fold] = fold_filter_bits(c, fold);
        if (c->fold_mix[fold] == NULL) {
            return MIX_SOME; /* refuse the preview: descending is always exact */
        }
    }
    const uint8_t v = c->fold_mix[fold][row];
    return v == 1 ? MIX_ALL : v == 3 ? MIX_SOME : MIX_NONE;
}

/* Can entry p not say whether it is selected (a row the filter splits)? */
static int entry_split(stats_ctx *c, const pv_entry *p, uint32_t fold)
{
    const int a = row_mix(c, fold, p->row);
    if (p->kind != SLOG_KIND_ARROW) {
        return a == MIX_SOME;
    }
    const int b = row_mix(c, fold, p->row_to); /* arrows: selected by either end */
    return (a == MIX_SOME && b != MIX_ALL) || (b == MIX_SOME && a != MIX_ALL);
}

/* Does entry p (rows at fold, not split) belong to the selection? */
static int entry_selected(stats_ctx *c, const pv_entry *p, uint32_t fold)
{
    if (!wants_kind(c, p->kind)) {
        return 0;
    }
    if (row_mix(c, fold, p->row) != MIX_ALL &&
        !(p->kind == SLOG_KIND_ARROW && row_mix(c, fold, p->row_to) == MIX_ALL)) {
        return 0;
    }
    return p->cat == PV_CATEGORY_OTHER || stats_cat_ok(c, p->cat);
}

/* Would a preview entry of timeline row `row` (fold 0) need splitting at a
 * segment cut inside the node's box? */
static int row_cut(const stats_ctx *c, const store_node_row *n, uint32_t row)
{
    const stats_segs *const g = stats_segs_of(c, row);
    return g != NULL && stats_cut_inside(g, n->t0, n->t1);
}

/* A folded preview cannot credit segments: is any segment owner's
 * timeline among its state rows? */
static int folded_needs_segments(const stats_ctx *c, const store_node_row *n, const cache_entry *e)
{
    for (uint32_t s = 0; s < c->nsegs; s++) {
        const stats_segs *const g = &c->segs[s];
        if (g->owner[stats_segment_at(g, n->t0)] == UINT32_MAX &&
            !stats_cut_inside(g, n->t0, n->t1)) {
            continue;
        }
        const uint32_t row = pv_fold_row(&c->r->ctx, g->timeline, 0, e->fold);
        for (uint64_t i = 0; i < e->npreviews; i++) {
            if (e->previews[i].kind == SLOG_KIND_STATE && e->previews[i].row == row) {
                return 1;
            }
        }
    }
    return 0;
}

/* Can the per-timeline totals credit the window's segments: no segment
 * cut inside the box on a timeline the node holds states of? */
static int tls_credit_ok(const stats_ctx *c, const store_node_row *n, const pv_tls *t)
{
    for (uint64_t i = 0; i < t->n; i++) {
        if (t->v[i].kind == SLOG_KIND_STATE && row_cut(c, n, t->v[i].row)) {
            return 0;
        }
    }
    return 1;
}

/* Per-timeline totals key arrows by their source: do the preview's entries
 * show that no arrow is selected by its destination alone? */
static int tls_arrows_ok(stats_ctx *c, const cache_entry *e)
{
    if (c->tl_sel == NULL || !wants_kind(c, SLOG_KIND_ARROW)) {
        return 1;
    }
    for (uint64_t i = 0; i < e->npreviews; i++) {
        const pv_entry *const p = &e->previews[i];
        if (p->kind == SLOG_KIND_ARROW && row_mix(c, e->fold, p->row) != MIX_ALL &&
            row_mix(c, e->fold, p->row_to) != MIX_NONE) {
            return 0;
        }
    }
    return 1;
}

/* How a wholly inside node's preview answers the question, if it does. */
enum { PV_USE_NONE = 0, PV_USE_ENTRIES = 1, PV_USE_TIMELINES = 2 };

static int preview_use(stats_ctx *c, const store_node_row *n, const cache_entry *e)
{
    const int need_cat = (c->by & SLOG_STATS_BY_CATEGORY) || c->cat_sel != NULL;
    const int by_tl_only = (c->by & SLOG_STATS_BY_TIMELINE) && !need_cat;
    const int tls = e->tls.present && tls_credit_ok(c, n, &e->tls);
    if (by_tl_only && tls && tls_arrows_ok(c, e)) {
        return PV_USE_TIMELINES;
    }
    if ((c->by & SLOG_STATS_BY_TIMELINE) && e->fold != 0) {
        return PV_USE_NONE;
    }
    for (uint64_t i = 0; i < e->npreviews; i++) {
        const pv_entry *const p = &e->previews[i];
        if (wants_kind(c, p->kind) && entry_split(c, p, e->fold)) {
            return PV_USE_NONE;
        }
        if (need_cat && p->cat == PV_CATEGORY_OTHER && entry_selected(c, p, e->fold)) {
            return PV_USE_NONE;
        }
        if (e->fold == 0 && p->kind == SLOG_KIND_STATE && row_cut(c, n, p->row)) {
            return PV_USE_NONE;
        }
    }
    const int credits = e->fold == 0 || c->nsegs == 0 || tls || !folded_needs_segments(c, n, e);
    return credits ? PV_USE_ENTRIES : PV_USE_NONE;
}

static int add_entry(stats_ctx *c, const pv_entry *p)
{
    slog_stats_row *const r = stats_group_get(c, p->kind, p->row, p->cat);
    if (r == NULL) {
        return stats_nomem(c);
    }
    if (p->kind == SLOG_KIND_STATE) {
        row_durations(r, p->count, p->incl, p->excl, p->min, p->max);
    } else if (p->kind == SLOG_KIND_COUNTER) {
        row_values(r, p->count, p->vmin, p->vmax, p->vsum);
    } else {
        r->count += p->count;
    }
    return SLOG_OK;
}

/* Rows from the entries or the per-timeline totals (mode); the window's
 * segments are credited the exclusive time of every category from the
 * per-timeline totals, or from the entries when they are per timeline. */
static int use_preview(stats_ctx *c, const store_node_row *n, const cache_entry *e, int mode)
{
    const int tl_rows = mode == PV_USE_TIMELINES;
    const pv_entry *const v = tl_rows ? e->tls.v : e->previews;
    const uint64_t nv = tl_rows ? e->tls.n : e->npreviews;
    for (uint64_t i = 0; i < nv; i++) {
        if (entry_selected(c, &v[i], tl_rows ? 0 : e->fold) && add_entry(c, &v[i]) != SLOG_OK) {
            return SLOG_ENOMEM;
        }
    }
    const pv_entry *const cv = e->tls.present ? e->tls.v : e->previews;
    const uint64_t nc = e->tls.present ? e->tls.n : e->fold == 0 ? e->npreviews : 0;
    for (uint64_t i = 0; i < nc; i++) {
        if (cv[i].kind == SLOG_KIND_STATE) {
            stats_credit(c, cv[i].row, n->t0, cv[i].excl);
        }
    }
    c->cost.previews_used++;
    return SLOG_OK;
}

/* One wholly inside node: its preview, or its drawables and *descend. */
static int inside_node(stats_ctx *c, uint64_t node, int *descend)
{
    *descend = 0;
    store_node_row row;
    int rc = tree_read_node(&c->r->tree, node, &row, c->err);
    if (rc != SLOG_OK) {
        return rc;
    }
    const store_node_row *const n = &row;
    if (n->t0 > n->t1) {
        return SLOG_OK; /* empty */
    }
    cache_entry *e = NULL;
    rc = load(c, node, 1, &e);
    if (rc != SLOG_OK) {
        return rc;
    }
    rc = check_preview(c, node, e);
    const int mode = rc == SLOG_OK ? preview_use(c, n, e) : PV_USE_NONE;
    const int usable = mode != PV_USE_NONE;
    if (usable) {
        rc = use_preview(c, n, e, mode);
    }
    node_cache_unpin(e);
    if (rc != SLOG_OK || usable) {
        return rc;
    }
    *descend = 1;
    return decode_node(c, node, 0);
}

static int inside_walk(stats_ctx *c, uint64_t root)
{
    uint64_t *stack = NULL;
    size_t sp = 0, cap = 0;
    int rc = push_u64(c, &stack, &sp, &cap, root);
    while (rc == SLOG_OK && sp > 0) {
        const uint64_t node = stack[--sp];
        int descend = 0;
        c->cost.nodes_visited++;
        rc = inside_node(c, node, &descend);
        uint64_t j = node;
        int more = rc == SLOG_OK && descend;
        while (more && (more = tree_read_next_child(&c->r->tree, node, &j, c->err)) == 1) {
            rc = push_u64(c, &stack, &sp, &cap, j);
            more = rc == SLOG_OK;
        }
        rc = more < 0 ? more : rc;
    }
    util_free(stack);
    return rc;
}

/* ---- the walks ---- */

static int node_inside(const stats_ctx *c, const store_node_row *n)
{
    /* points at w1 are outside, states ending at w1 inside: t1 < w1 keeps
     * both exact */
    return n->t0 <= n->t1 && n->t0 >= c->w0 && n->t1 < c->w1;
}

/* Edge walk step: a wholly inside subtree is set aside, any other node
 * decoded and descended. */
static int edge_visit(stats_ctx *c, uint64_t node, int *descend)
{
    store_node_row n;
    const int rc = tree_read_node(&c->r->tree, node, &n, c->err);
    if (rc != SLOG_OK) {
        return rc;
    }
    *descend = !node_inside(c, &n);
    if (!*descend) {
        return push_u64(c, &c->inside, &c->ninside, &c->capinside, node);
    }
    return decode_node(c, node, 1);
}

/* Visit every node whose box touches the window, descending on request. */
static int walk_touching(stats_ctx *c, int (*visit)(stats_ctx *, uint64_t, int *))
{
    tree_read_walk w;
    int rc = tree_read_walk_init(&w, &c->r->tree, c->w0, c->w1, c->err);
    uint64_t node;
    int got = 0;
    while (rc == SLOG_OK && (got = tree_read_walk_next(&w, &node, c->err)) == 1) {
        int descend = 0;
        rc = visit(c, node, &descend);
        if (rc == SLOG_OK && descend) {
            rc = tree_read_walk_descend(&w, node, c->err);
        }
    }
    rc = rc == SLOG_OK && got < 0 ? got : rc;
    c->cost.nodes_visited += w.visited;
    tree_read_walk_free(&w);
    return rc;
}

/* Fallback: every node touching the window decoded, every state kept. */
static int fallback_node(stats_ctx *c, uint64_t node, int *descend)
{
    *descend = 1;
    store_node_row n;
    int rc = tree_read_node(&c->r->tree, node, &n, c->err);
    if (rc != SLOG_OK || n.payload_len == 0) {
        return rc;
    }
    cache_entry *e = NULL;
    rc = load(c, node, 0, &e);
    if (rc != SLOG_OK) {
        return rc;
    }
    const fmt_decoded *const d = &e->drawables;
    rc = check_drawables(c, node, d);
    for (uint64_t i = 0; rc == SLOG_OK && (c->kinds & 1u) && i < d->n[SLOG_KIND_STATE]; i++) {
        const slog_state *const s = &d->states[i];
        if (stats_tl_ok(c, s->timeline) && tree_walk_overlaps(s->start, s->end, c->w0, c->w1)) {
            rc = stats_push_xstate(c, s);
        }
    }
    if (rc == SLOG_OK) {
        rc = add_points(c, d);
    }
    node_cache_unpin(e);
    return rc;
}

static int fallback_walk(stats_ctx *c)
{
    const int rc = walk_touching(c, fallback_node);
    return rc == SLOG_OK ? stats_finish_nesting(c) : rc;
}

static void reset_for_fallback(stats_ctx *c)
{
    util_free(c->groups);
    c->groups = NULL;
    c->gcap = c->gn = 0;
    c->nxs = 0;
    c->nloose = 0;
    c->ninside = 0;
    stats_free_segments(c);
    c->cost.exact_fallback = 1;
}

static int fast_path(stats_ctx *c)
{
    int rc = walk_touching(c, edge_visit);
    if (rc == SLOG_OK) {
        rc = stats_build_segments(c);
    }
    for (size_t i = 0; rc == SLOG_OK && i < c->nloose; i++) {
        stats_credit(c, c->loose[i].timeline, c->loose[i].start, c->loose[i].excl);
    }
    for (size_t i = 0; rc == SLOG_OK && i < c->ninside; i++) {
        rc = inside_walk(c, c->inside[i]);
    }
    return rc == SLOG_OK ? stats_finish_crossing(c) : rc;
}

/* ---- options and results ---- */

static int make_selection(stats_ctx *c, const slog_stats_options *o)
{
    const slog_reader *const r = c->r;
    if (o->timelines != NULL) {
        c->tl_sel = util_calloc((size_t)r->ntl + 1, 1);
        if (c->tl_sel == NULL) {
            return stats_nomem(c);
        }
        for (uint32_t i = 0; i < o->ntimelines; i++) {
            if (o->timelines[i] >= r->ntl) {
                return util_err(c->err, SLOG_EINVAL, UINT64_MAX, r->path,
                                "Unknown timeline %u in the statistics filter", o->timelines[i]);
            }
            c->tl_sel[o->timelines[i]] = 1;
        }
    }
    if (o->categories != NULL) {
        c->cat_sel = util_calloc((size_t)r->ncat + 1, 1);
        if (c->cat_sel == NULL) {
            return stats_nomem(c);
        }
        for (uint32_t i = 0; i < o->ncategories; i++) {
            if (o->categories[i] >= r->ncat) {
                return util_err(c->err, SLOG_EINVAL, UINT64_MAX, r->path,
                                "Unknown category %u in the statistics filter", o->categories[i]);
            }
            c->cat_sel[o->categories[i]] = 1;
        }
    }
    return SLOG_OK;
}

/* Load the caller's options (api_options.h: struct_size versioning) and
 * check them. */
static int read_options(stats_ctx *c, const slog_stats_options *in)
{
    slog_stats_options o;
    const int rc = api_stats_options_load(&o, in, c->r->path, c->err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (o.t1 <= o.t0) {
        return util_err(c->err, SLOG_EINVAL, UINT64_MAX, c->r->path,
                        "Statistics window [%lld, %lld) is empty or reversed", (long long)o.t0,
                        (long long)o.t1);
    }
    if (o.by > SLOG_STATS_BY_BOTH || (o.kinds & ~0xfu) != 0) {
        return util_err(c->err, SLOG_EINVAL, UINT64_MAX, c->r->path,
                        "Unknown statistics grouping %u or kinds 0x%x", o.by, o.kinds);
    }
    c->w0 = o.t0;
    c->w1 = o.t1;
    c->by = o.by ? o.by : SLOG_STATS_BY_CATEGORY;
    c->kinds = o.kinds ? o.kinds : 0xfu;
    return make_selection(c, &o);
}

static int cmp_rows(const void *a, const void *b)
{
    const slog_stats_row *const x = a, *const y = b;
    if (x->timeline != y->timeline) {
        return x->timeline < y->timeline ? -1 : 1;
    }
    if (x->kind != y->kind) {
        return x->kind < y->kind ? -1 : 1;
    }
    return (x->category > y->category) - (x->category < y->category);
}

/* A row's mean (and min/max only for states). */
static void finish_row(slog_stats_row *r)
{
    if (r->kind == SLOG_KIND_STATE) {
        r->mean = (double)r->inclusive / (double)r->count;
        if (r->inclusive == INT64_MAX && r->mean < (double)r->min) {
            r->mean = (double)r->min; /* saturated sum: a lower bound */
        }
    } else {
        r->min = r->max = 0;
        r->mean = r->kind == SLOG_KIND_COUNTER ? r->vsum / (double)r->count : 0.0;
    }
}

static int make_result(stats_ctx *c, slog_stats *s)
{
    s->rows = util_calloc(c->gn + 1, sizeof *s->rows);
    if (s->rows == NULL) {
        return stats_nomem(c);
    }
    for (size_t i = 0; i < c->gcap; i++) {
        if (c->groups[i].used) {
            slog_stats_row *const r = &s->rows[s->n++];
            *r = c->groups[i].row;
            finish_row(r);
        }
    }
    qsort(s->rows, s->n, sizeof *s->rows, cmp_rows);
    s->cost = c->cost;
    s->cost.bytes_read = c->io.bytes_read;
    s->cost.cache_hits = c->io.cache_hits;
    return SLOG_OK;
}

static void free_ctx(stats_ctx *c)
{
    util_free(c->tl_sel);
    util_free(c->cat_sel);
    for (int f = 0; f <= PV_FOLD_MAX; f++) {
        util_free(c->fold_mix[f]);
    }
    util_free(c->groups);
    util_free(c->xs);
    util_free(c->loose);
    util_free(c->inside);
    stats_free_segments(c);
}

int slog_stats_compute(slog_stats **out, slog_reader *r, const slog_stats_options *opts,
                       slog_error *err)
{
    *out = NULL;
    if (r->index != NULL) {
        return api_index_stats(out, r, opts, err);
    }
    stats_ctx c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.err = err;
    int rc = read_options(&c, opts);
    if (rc == SLOG_OK) {
        rc = fast_path(&c);
    }
    if (rc == NEED_FALLBACK) {
        reset_for_fallback(&c);
        rc = fallback_walk(&c);
    }
    slog_stats *s = NULL;
    if (rc == SLOG_OK) {
        s = util_calloc(1, sizeof *s);
        rc = s != NULL ? make_result(&c, s) : stats_nomem(&c);
    }
    free_ctx(&c);
    if (rc != SLOG_OK) {
        slog_stats_destroy(s);
        return rc;
    }
    *out = s;
    return SLOG_OK;
}

int api_stats_wrap(slog_stats **out, slog_stats_row *rows, size_t n, const slog_stats_cost *cost)
{
    slog_stats *const s = util_calloc(1, sizeof *s);
    if (s == NULL) {
        return SLOG_ENOMEM;
    }
    s->rows = rows;
    s->n = n;
    s->cost = *cost;
    *out = s;
    return SLOG_OK;
}

const slog_stats_row *slog_stats_rows(const slog_stats *s, size_t *count)
{
    *count = s->n;
    return s->n > 0 ? s->rows : NULL;
}

void slog_stats_cost_get(const slog_stats *s, slog_stats_cost *out)
{
    *out = s->cost;
}

void slog_stats_destroy(slog_stats *s)
{
    if (s == NULL) {
        return;
    }
    util_free(s->rows);
    util_free(s);
}
