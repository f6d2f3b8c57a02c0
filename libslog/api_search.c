/* SPDX-License-Identifier: MIT
 *
 * api_search.c - next/previous drawable from a time and the longest N
 * states of a window (slog_search.h).  Next/prev is a depth-first walk in
 * time order (reverse order for prev) that skips a subtree when its box
 * lies on the wrong side of T, when it cannot beat the best drawable found
 * so far (its box starts after it), or when its preview holds no matching
 * entry; folded rows and the category "other" count as matching, so a
 * preview never hides a drawable.  Top-N is best-first over subtrees keyed
 * by their preview's longest matching state, and stops once no subtree left
 * can beat the N-th state found.  Layer 5: api.
 */
#include "api_index.h"
#include "api_options.h"
#include "api_stats_int.h"
#include "tree_walk.h"
#include "util_alloc.h"
#include "util_error.h"

#include <stdlib.h>
#include <string.h>

typedef struct search_ctx {
    slog_reader *r;
    slog_error *err;
    uint32_t kinds;
    int64_t w0, w1;
    int within;           /* next/prev bounded to [w0, w1) */
    uint8_t *tl_sel, *cat_sel;           /* NULL = all */
    uint8_t *fold_sel[PV_FOLD_MAX + 1];  /* per fold: rows holding a selected timeline */
    uint64_t *stack;
    size_t sp, cap;
    slog_search_cost cost;
    tree_read_cost io;
} search_ctx;

static int nomem(search_ctx *c)
{
    return util_err(c->err, SLOG_ENOMEM, UINT64_MAX, c->r->path, "Cannot search");
}

/* Is next/prev bounded to the window [w0, w1) (SLOG_SEARCH_WITHIN)? */
static int bounded(const search_ctx *c)
{
    return c->within;
}

static int tl_ok(const search_ctx *c, uint32_t tl)
{
    return c->tl_sel == NULL || (tl < c->r->ntl && c->tl_sel[tl]);
}

static int cat_ok(const search_ctx *c, uint32_t cat)
{
    return c->cat_sel == NULL || (cat < c->r->ncat && c->cat_sel[cat]);
}

static int select_timelines(search_ctx *c, const slog_search_options *o)
{
    if (o->timelines == NULL) {
        return SLOG_OK;
    }
    c->tl_sel = util_calloc((size_t)c->r->ntl + 1, 1);
    if (c->tl_sel == NULL) {
        return nomem(c);
    }
    for (uint32_t i = 0; i < o->ntimelines; i++) {
        if (o->timelines[i] >= c->r->ntl) {
            return util_err(c->err, SLOG_EINVAL, UINT64_MAX, c->r->path,
                            "Unknown timeline %u in the search filter", o->timelines[i]);
        }
        c->tl_sel[o->timelines[i]] = 1;
    }
    return SLOG_OK;
}

/* Categories: the listed ones (or all) whose name contains name_contains. */
static int select_categories(search_ctx *c, const slog_search_options *o)
{
    const slog_reader *const r = c->r;
    if (o->categories == NULL && o->name_contains == NULL) {
        return SLOG_OK;
    }
    c->cat_sel = util_calloc((size_t)r->ncat + 1, 1);
    if (c->cat_sel == NULL) {
        return nomem(c);
    }
    for (uint32_t i = 0; o->categories != NULL && i < o->ncategories; i++) {
        if (o->categories[i] >= r->ncat) {
            return util_err(c->err, SLOG_EINVAL, UINT64_MAX, r->path,
                            "Unknown category %u in the search filter", o->categories[i]);
        }
        c->cat_sel[o->categories[i]] = 1;
    }
    uint64_t matched = 0;
    for (uint64_t i = 0; i < r->ncat; i++) {
        const int listed = o->categories == NULL || c->cat_sel[i];
        const char *const name = r->strings + r->cats[i].name;
        c->cat_sel[i] = listed && (o->name_contains == NULL || strstr(name, o->name_contains));
        matched += c->cat_sel[i];
    }
    if (o->name_contains != NULL && matched == 0) {
        return util_err(c->err, SLOG_EINVAL, UINT64_MAX, r->path,
                        "No category name contains '%s'", o->name_contains);
    }
    return SLOG_OK;
}

static int setup(search_ctx *c, slog_reader *r, const slog_search_options *in, slog_error *err)
{
    memset(c, 0, sizeof *c);
    c->r = r;
    c->err = err;
    slog_search_options o;
    int rc = api_search_options_load(&o, in, r->path, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if ((o.kinds & ~0xfu) != 0) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, r->path, "Unknown search kinds 0x%x",
                        o.kinds);
    }
    c->kinds = o.kinds ? o.kinds : 0xfu;
    c->w0 = o.t0;
    c->w1 = o.t1;
    c->within = (o.flags & SLOG_SEARCH_WITHIN) != 0;
    rc = select_timelines(c, &o);
    return rc == SLOG_OK ? select_categories(c, &o) : rc;
}

static void teardown(search_ctx *c, slog_search_cost *cost)
{
    util_free(c->tl_sel);
    util_free(c->cat_sel);
    for (int f = 0; f <= PV_FOLD_MAX; f++) {
        util_free(c->fold_sel[f]);
    }
    util_free(c->stack);
    if (cost != NULL) {
        *cost = c->cost;
        cost->bytes_read = c->io.bytes_read;
        cost->cache_hits = c->io.cache_hits;
    }
}

/* ---- what a preview says ---- */

/* Does preview row `row` at `fold` hold a selected timeline?  When the
 * rows cannot be computed, answer yes: never hide a drawable. */
static int row_ok(search_ctx *c, uint32_t fold, uint32_t row)
{
    if (c->tl_sel == NULL) {
        return 1;
    }
    if (fold == 0) {
        return tl_ok(c, row);
    }
    if (c->fold_sel[fold] == NULL) {
        uint8_t *const m = util_calloc((size_t)c->r->ntl + 1, 1);
        if (m == NULL) {
            return 1;
        }
        for (uint32_t tl = 0; tl < c->r->ntl; tl++) {
            const uint32_t fr = pv_fold_row(&c->r->ctx, tl, 0, fold);
            if (c->tl_sel[tl] && fr < c->r->ntl) {
                m[fr] = 1;
            }
        }
        c->fold_sel[fold] = m;
    }
    return row >= c->r->ntl || c->fold_sel[fold][row];
}

static int entry_may_match(search_ctx *c, const pv_entry *p, uint32_t fold)
{
    if (!(c->kinds & (1u << p->kind))) {
        return 0;
    }
    if (p->cat != PV_CATEGORY_OTHER && !cat_ok(c, p->cat)) {
        return 0;
    }
    return row_ok(c, fold, p->row) || (p->kind == SLOG_KIND_ARROW && row_ok(c, fold, p->row_to));
}

/* Under a timeline filter, the subtree's per-timeline totals (exact, never
 * folded) say whether it holds a selected kind on a selected timeline; a
 * preview folded over rows only says "may".  Arrows are totalled by their
 * source alone, so a search for arrows (which match by either end) cannot
 * use them. */
static int totals_may_match(const search_ctx *c, const cache_entry *e)
{
    if (c->tl_sel == NULL || !e->tls.present || (c->kinds & (1u << SLOG_KIND_ARROW))) {
        return 1;
    }
    for (uint64_t i = 0; i < e->tls.n; i++) {
        const pv_entry *const p = &e->tls.v[i];
        if ((c->kinds & (1u << p->kind)) && tl_ok(c, p->row)) {
            return 1;
        }
    }
    return 0;
}

/* From node's preview: may its subtree hold a match (*bound >= 0), and the
 * longest matching state it may hold (*bound, -1 when none). */
static int preview_bound(search_ctx *c, uint64_t node, int *may, int64_t *bound)
{
    cache_entry *e = NULL;
    const int rc = api_node_load(c->r, node, 1, &e, &c->io, c->err);
    if (rc != SLOG_OK) {
        return rc;
    }
    c->cost.previews_read++;
    *may = 0;
    *bound = -1;
    for (uint64_t i = 0; i < e->npreviews; i++) {
        const pv_entry *const p = &e->previews[i];
        if (entry_may_match(c, p, e->fold)) {
            *may = 1;
            if (p->kind == SLOG_KIND_STATE && p->max > *bound) {
                *bound = p->max;
            }
        }
    }
    if (*may && !totals_may_match(c, e)) {
        *may = 0;
        *bound = -1;
    }
    node_cache_unpin(e);
    return SLOG_OK;
}

static int push(search_ctx *c, uint64_t node)
{
    void *p = c->stack;
    if (util_grow(&p, &c->cap, c->sp + 1, sizeof *c->stack) != 0) {
        return nomem(c);
    }
    c->stack = p;
    c->stack[c->sp++] = node;
    return SLOG_OK;
}

/* Push node's children so that the earliest (forward) or the latest
 * (backward) is visited first. */
static int push_children(search_ctx *c, uint64_t node, int forward)
{
    const size_t base = c->sp;
    uint64_t j = node;
    int more;
    while ((more = tree_read_next_child(&c->r->tree, node, &j, c->err)) == 1) {
        if (push(c, j) != SLOG_OK) {
            return SLOG_ENOMEM;
        }
    }
    if (more < 0) {
        return more;
    }
    for (size_t a = base, b = c->sp; !forward && a + 1 < b; a++, b--) {
        const uint64_t t = c->stack[a];
        c->stack[a] = c->stack[b - 1];
        c->stack[b - 1] = t;
    }
    return SLOG_OK;
}

/* ---- next and previous ---- */

typedef struct item_key {
    int64_t time, end;
    uint32_t kind, timeline, category, depth;
} item_key;

typedef struct found {
    int have;
    item_key key;
    slog_item item;
} found;

static int cmp_key(const item_key *a, const item_key *b)
{
    if (a->time != b->time) {
        return a->time < b->time ? -1 : 1;
    }
    if (a->kind != b->kind) {
        return a->kind < b->kind ? -1 : 1;
    }
    if (a->timeline != b->timeline) {
        return a->timeline < b->timeline ? -1 : 1;
    }
    if (a->end != b->end) {
        return a->end < b->end ? -1 : 1;
    }
    if (a->category != b->category) {
        return a->category < b->category ? -1 : 1;
    }
    return (a->depth > b->depth) - (a->depth < b->depth);
}

static void offer(found *f, const slog_item *it, const item_key *k, int forward)
{
    const int c = f->have ? cmp_key(k, &f->key) : 0;
    if (!f->have || (forward ? c < 0 : c > 0)) {
        f->have = 1;
        f->key = *k;
        f->item = *it;
    }
}

/* Key and args-free copy of drawable i of kind k, if it passes the filters. */
static int take(const search_ctx *c, const fmt_decoded *d, int k, uint64_t i, slog_item *it,
                item_key *key)
{
    memset(it, 0, sizeof *it);
    memset(key, 0, sizeof *key);
    it->kind = (slog_kind)k;
    key->kind = (uint32_t)k;
    if (k == SLOG_KIND_STATE) {
        it->u.state = d->states[i];
        it->u.state.nargs = 0;
        it->u.state.args = NULL;
        *key = (item_key){it->u.state.start, it->u.state.end, 0u, it->u.state.timeline,
                          it->u.state.category, it->u.state.depth};
        return tl_ok(c, key->timeline) && cat_ok(c, key->category);
    }
    if (k == SLOG_KIND_EVENT) {
        it->u.event = d->events[i];
        it->u.event.nargs = 0;
        it->u.event.args = NULL;
        *key = (item_key){it->u.event.time, it->u.event.time, 1u, it->u.event.timeline,
                          it->u.event.category, 0u};
        return tl_ok(c, key->timeline) && cat_ok(c, key->category);
    }
    if (k == SLOG_KIND_ARROW) {
        it->u.arrow = d->arrows[i];
        it->u.arrow.nargs = 0;
        it->u.arrow.args = NULL;
        *key = (item_key){it->u.arrow.start, it->u.arrow.end, 2u, it->u.arrow.from,
                          it->u.arrow.category, 0u};
        return (tl_ok(c, it->u.arrow.from) || tl_ok(c, it->u.arrow.to)) &&
               cat_ok(c, key->category);
    }
    it->u.counter = d->counters[i];
    *key = (item_key){it->u.counter.time, it->u.counter.time, 3u, it->u.counter.timeline,
                      it->u.counter.category, 0u};
    return tl_ok(c, key->timeline) && cat_ok(c, key->category);
}

static int scan_node(search_ctx *c, uint64_t node, int64_t t, int forward, found *f)
{
    cache_entry *e = NULL;
    const int rc = api_node_load(c->r, node, 0, &e, &c->io, c->err);
    if (rc != SLOG_OK) {
        return rc;
    }
    c->cost.nodes_decoded++;
    const fmt_decoded *const d = &e->drawables;
    for (int k = 0; k < 4; k++) {
        for (uint64_t i = 0; (c->kinds & (1u << k)) && i < d->n[k]; i++) {
            slog_item it;
            item_key key;
            if (take(c, d, k, i, &it, &key) && (forward ? key.time > t : key.time < t) &&
                (!bounded(c) || (key.time >= c->w0 && key.time < c->w1))) {
                offer(f, &it, &key, forward);
            }
        }
    }
    node_cache_unpin(e);
    return SLOG_OK;
}

/* Can node's subtree hold a drawable beyond t (within the window, when
 * bounded) that beats f? */
static int worth_visiting(const search_ctx *c, const store_node_row *n, int64_t t, int forward,
                          const found *f)
{
    if (n->t0 > n->t1 || (bounded(c) && (n->t1 < c->w0 || n->t0 >= c->w1))) {
        return 0;
    }
    if (forward) {
        return n->t1 > t && !(f->have && n->t0 > f->key.time);
    }
    return n->t0 < t && !(f->have && n->t1 < f->key.time);
}

static int search_dir(search_ctx *c, int64_t t, int forward, found *f)
{
    tree_read *const tr = &c->r->tree;
    int rc = SLOG_OK;
    for (uint64_t i = 0; i < tr->nroots && rc == SLOG_OK; i++) {
        rc = push(c, tr->roots[forward ? tr->nroots - 1 - i : i]);
    }
    while (rc == SLOG_OK && c->sp > 0) {
        const uint64_t node = c->stack[--c->sp];
        store_node_row row;
        rc = tree_read_node(tr, node, &row, c->err);
        if (rc != SLOG_OK) {
            break;
        }
        const store_node_row *const n = &row;
        c->cost.nodes_visited++;
        if (!worth_visiting(c, n, t, forward, f)) {
            continue;
        }
        int may = 0;
        int64_t bound;
        rc = preview_bound(c, node, &may, &bound);
        if (rc != SLOG_OK || !may) {
            continue;
        }
        if (n->payload_len > 0) {
            rc = scan_node(c, node, t, forward, f);
        }
        if (rc == SLOG_OK) {
            rc = push_children(c, node, forward);
        }
    }
    return rc;
}

/* A next/prev request. */
typedef struct search_req {
    slog_reader *r;
    const slog_search_options *opts;
    int64_t t;
    int forward;
} search_req;

static int search_one(const search_req *q, slog_item *out, slog_search_cost *cost,
                      slog_error *err)
{
    search_ctx c;
    found f;
    memset(&f, 0, sizeof f);
    int rc = setup(&c, q->r, q->opts, err);
    if (rc == SLOG_OK) {
        rc = search_dir(&c, q->t, q->forward, &f);
    }
    teardown(&c, cost);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (!f.have) {
        return SLOG_END;
    }
    *out = f.item;
    return SLOG_OK;
}

int slog_search_next(slog_reader *r, const slog_search_options *opts, int64_t after,
                     slog_item *out, slog_search_cost *cost, slog_error *err)
{
    if (r->index != NULL) {
        const api_index_seek at = {after, 1};
        return api_index_search(r, opts, &at, out, cost, err);
    }
    const search_req q = {r, opts, after, 1};
    return search_one(&q, out, cost, err);
}

int slog_search_prev(slog_reader *r, const slog_search_options *opts, int64_t before,
                     slog_item *out, slog_search_cost *cost, slog_error *err)
{
    if (r->index != NULL) {
        const api_index_seek at = {before, 0};
        return api_index_search(r, opts, &at, out, cost, err);
    }
    const search_req q = {r, opts, before, 0};
    return search_one(&q, out, cost, err);
}

/* ---- the longest N states ---- */

typedef struct top_node {
    int64_t bound;
    uint64_t node;
} top_node;

typedef struct top_ctx {
    top_node *q;          /* max-heap of subtrees by bound */
    size_t nq, capq;
    slog_state *best;     /* heap of the states found, worst at the root */
    uint32_t n, have;
} top_ctx;

/* < 0 when a ranks before b: longer, then earlier, lower timeline, depth,
 * category, end. */
static int rank(const slog_state *a, const slog_state *b)
{
    const int64_t da = a->end - a->start, db = b->end - b->start;
    if (da != db) {
        return da > db ? -1 : 1;
    }
    const int64_t ka[4] = {a->start, a->timeline, a->depth, a->category};
    const int64_t kb[4] = {b->start, b->timeline, b->depth, b->category};
    for (int i = 0; i < 4; i++) {
        if (ka[i] != kb[i]) {
            return ka[i] < kb[i] ? -1 : 1;
        }
    }
    return (a->end > b->end) - (a->end < b->end);
}

static int cmp_rank(const void *a, const void *b)
{
    return rank(a, b);
}

static void best_sift_down(top_ctx *t, uint32_t i)
{
    for (;;) {
        uint32_t w = i;
        const uint32_t l = 2 * i + 1, r = l + 1;
        if (l < t->have && rank(&t->best[l], &t->best[w]) > 0) {
            w = l;
        }
        if (r < t->have && rank(&t->best[r], &t->best[w]) > 0) {
            w = r;
        }
        if (w == i) {
            return;
        }
        const slog_state tmp = t->best[i];
        t->best[i] = t->best[w];
        t->best[w] = tmp;
        i = w;
    }
}

static void offer_state(top_ctx *t, const slog_state *s)
{
    if (t->have < t->n) {
        uint32_t i = t->have++;
        t->best[i] = *s;
        while (i > 0 && rank(&t->best[(i - 1) / 2], &t->best[i]) < 0) {
            const slog_state tmp = t->best[i];
            t->best[i] = t->best[(i - 1) / 2];
            t->best[(i - 1) / 2] = tmp;
            i = (i - 1) / 2;
        }
    } else if (rank(s, &t->best[0]) < 0) {
        t->best[0] = *s;
        best_sift_down(t, 0);
    }
}

/* Can a subtree whose states last at most `bound` still make the list? */
static int may_rank(const top_ctx *t, int64_t bound)
{
    return bound >= 0 && (t->have < t->n || bound >= t->best[0].end - t->best[0].start);
}

static int queue_push(search_ctx *c, top_ctx *t, uint64_t node)
{
    int may = 0;
    int64_t bound = -1;
    const int rc = preview_bound(c, node, &may, &bound);
    if (rc != SLOG_OK || !may || !may_rank(t, bound)) {
        return rc;
    }
    void *p = t->q;
    if (util_grow(&p, &t->capq, t->nq + 1, sizeof *t->q) != 0) {
        return nomem(c);
    }
    t->q = p;
    size_t i = t->nq++;
    t->q[i] = (top_node){bound, node};
    while (i > 0 && t->q[(i - 1) / 2].bound < t->q[i].bound) {
        const top_node tmp = t->q[i];
        t->q[i] = t->q[(i - 1) / 2];
        t->q[(i - 1) / 2] = tmp;
        i = (i - 1) / 2;
    }
    return SLOG_OK;
}

static top_node queue_pop(top_ctx *t)
{
    const top_node top = t->q[0];
    t->q[0] = t->q[--t->nq];
    size_t i = 0;
    for (;;) {
        size_t w = i;
        const size_t l = 2 * i + 1, r = l + 1;
        w = l < t->nq && t->q[l].bound > t->q[w].bound ? l : w;
        w = r < t->nq && t->q[r].bound > t->q[w].bound ? r : w;
        if (w == i) {
            return top;
        }
        const top_node tmp = t->q[i];
        t->q[i] = t->q[w];
        t->q[w] = tmp;
        i = w;
    }
}

static int top_scan(search_ctx *c, top_ctx *t, uint64_t node)
{
    cache_entry *e = NULL;
    const int rc = api_node_load(c->r, node, 0, &e, &c->io, c->err);
    if (rc != SLOG_OK) {
        return rc;
    }
    c->cost.nodes_decoded++;
    const fmt_decoded *const d = &e->drawables;
    for (uint64_t i = 0; i < d->n[SLOG_KIND_STATE]; i++) {
        slog_state s = d->states[i];
        if (tl_ok(c, s.timeline) && cat_ok(c, s.category) &&
            tree_walk_overlaps(s.start, s.end, c->w0, c->w1)) {
            s.nargs = 0;
            s.args = NULL;
            offer_state(t, &s);
        }
    }
    node_cache_unpin(e);
    return SLOG_OK;
}

/* Queue node i when its box touches the window. */
static int top_offer(search_ctx *c, top_ctx *t, uint64_t i)
{
    store_node_row n;
    c->cost.nodes_visited++;
    const int rc = tree_read_node(&c->r->tree, i, &n, c->err);
    if (rc != SLOG_OK || !tree_walk_touches(&n, c->w0, c->w1)) {
        return rc;
    }
    return queue_push(c, t, i);
}

static int top_walk(search_ctx *c, top_ctx *t)
{
    tree_read *const tr = &c->r->tree;
    int rc = SLOG_OK;
    for (uint64_t i = 0; i < tr->nroots && rc == SLOG_OK; i++) {
        rc = top_offer(c, t, tr->roots[i]);
    }
    while (rc == SLOG_OK && t->nq > 0) {
        const top_node top = queue_pop(t);
        if (!may_rank(t, top.bound)) {
            break; /* the queue is ordered: nothing left can make the list */
        }
        store_node_row n;
        rc = tree_read_node(tr, top.node, &n, c->err);
        if (rc == SLOG_OK && n.counts[SLOG_KIND_STATE] > 0) {
            rc = top_scan(c, t, top.node);
        }
        uint64_t j = top.node;
        int more = rc == SLOG_OK;
        while (more && (more = tree_read_next_child(tr, top.node, &j, c->err)) == 1) {
            rc = top_offer(c, t, j);
            more = rc == SLOG_OK;
        }
        rc = more < 0 ? more : rc;
    }
    return rc;
}

static int top_check(search_ctx *c, uint32_t n)
{
    if (n == 0) {
        return util_err(c->err, SLOG_EINVAL, UINT64_MAX, c->r->path,
                        "Top-N search needs n >= 1");
    }
    if (c->w1 <= c->w0) {
        return util_err(c->err, SLOG_EINVAL, UINT64_MAX, c->r->path,
                        "Search window [%lld, %lld) is empty or reversed", (long long)c->w0,
                        (long long)c->w1);
    }
    return SLOG_OK;
}

int slog_search_top(slog_reader *r, const slog_search_options *opts, slog_state *out,
                    uint32_t *count, slog_search_cost *cost, slog_error *err)
{
    if (r->index != NULL) {
        return api_index_top(r, opts, out, count, cost, err);
    }
    const uint32_t n = *count;
    *count = 0;
    search_ctx c;
    top_ctx t;
    memset(&t, 0, sizeof t);
    int rc = setup(&c, r, opts, err);
    if (rc == SLOG_OK) {
        rc = top_check(&c, n);
    }
    const uint64_t states = r->info.states;
    t.n = states < n ? (uint32_t)states : n;
    if (rc == SLOG_OK && t.n > 0 && (c.kinds & 1u)) {
        t.best = util_calloc(t.n, sizeof *t.best);
        rc = t.best == NULL ? nomem(&c) : top_walk(&c, &t);
    }
    if (rc == SLOG_OK && t.have > 0) {
        qsort(t.best, t.have, sizeof *t.best, cmp_rank);
        memcpy(out, t.best, (size_t)t.have * sizeof *out);
        *count = t.have;
    }
    util_free(t.best);
    util_free(t.q);
    teardown(&c, cost);
    return rc;
}
