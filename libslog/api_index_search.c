/* SPDX-License-Identifier: MIT
 *
 * api_index_search.c - search over an index: each input whose time range
 * can hold an answer and which holds a selected timeline and category is
 * searched in its own ids and clock, through its file; the answers come
 * back in global ids and times and are ranked again: the nearest drawable
 * in the search order of slog_search.h for next and previous, the longest
 * states for top-N.  A category name filter becomes the list of global
 * categories whose name contains it, so every input is asked the same.
 * Layer 5: api.
 */
#include <stdlib.h>
#include <string.h>

#include "api_index.h"
#include "api_options.h"
#include "util_alloc.h"
#include "util_error.h"
#include "util_sat.h"

/* The global categories the options select, name filter applied, into
 * *ids (NULL = all). */
static int search_categories(
    slog_reader *r, const slog_search_options *o, uint32_t **ids, uint32_t *n, slog_error *err)
{
    *ids = NULL;
    *n = 0;
    if (o->name_contains == NULL) {
        return SLOG_OK;
    }
    uint8_t *const sel =
        o->categories ? api_index_selection(o->categories, o->ncategories, r->ncat) : NULL;
    *ids = util_malloc((size_t)(r->ncat + 1) * sizeof **ids);
    if (*ids == NULL || (o->categories && sel == NULL)) {
        util_free(sel);
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Out of memory");
    }
    for (uint64_t c = 0; c < r->ncat; c++) {
        const char *const name = r->strings + r->cats[c].name;
        if ((sel == NULL || sel[c]) && strstr(name, o->name_contains) != NULL) {
            (*ids)[(*n)++] = (uint32_t)c;
        }
    }
    util_free(sel);
    if (*n == 0) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, r->path, "No category name contains '%s'",
                        o->name_contains);
    }
    return SLOG_OK;
}

typedef struct search_run {
    slog_reader *r;
    slog_search_options o; /* global, name filter resolved */
    uint32_t *cats;        /* resolved categories (owned) or NULL */
    api_index_part p;
    slog_search_cost cost;
} search_run;

static int run_init(search_run *s, slog_reader *r, const slog_search_options *in, slog_error *err)
{
    memset(s, 0, sizeof *s);
    s->r = r;
    int rc = api_search_options_load(&s->o, in, r->path, err);
    uint32_t n = 0;
    if (rc == SLOG_OK) {
        rc = search_categories(r, &s->o, &s->cats, &n, err);
    }
    if (rc == SLOG_OK && s->cats != NULL) {
        s->o.categories = s->cats;
        s->o.ncategories = n;
        s->o.name_contains = NULL;
    }
    if (rc == SLOG_OK) {
        const api_index_ids ids = {s->o.timelines, s->o.ntimelines, s->o.categories,
                                   s->o.ncategories};
        rc = api_index_part_init(&s->p, r, &ids, err);
    }
    return rc;
}

static void run_free(search_run *s, slog_search_cost *cost)
{
    api_index_part_free(&s->p);
    util_free(s->cats);
    if (cost != NULL) {
        *cost = s->cost;
    }
}

/* Input k's options (0: nothing of it can answer). */
static int input_options(search_run *s,
                         const ix_input *in,
                         int64_t t0,
                         int64_t t1,
                         slog_search_options *lo,
                         slog_error *err)
{
    const int want = api_index_part_of(&s->p, s->r, in, t0, t1);
    if (want < 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, s->r->path, "Out of memory");
    }
    *lo = s->o;
    lo->t0 = s->p.t0;
    lo->t1 = s->p.t1;
    lo->timelines = s->p.tl_sel ? s->p.ltl : NULL;
    lo->ntimelines = s->p.tl_sel ? s->p.nltl : 0;
    lo->categories = s->p.cat_sel ? s->p.lcat : NULL;
    lo->ncategories = s->p.cat_sel ? s->p.nlcat : 0;
    return want;
}

static void add_cost(slog_search_cost *to, const slog_search_cost *c)
{
    to->nodes_visited += c->nodes_visited;
    to->previews_read += c->previews_read;
    to->nodes_decoded += c->nodes_decoded;
    to->bytes_read += c->bytes_read;
    to->cache_hits += c->cache_hits;
}

/* The sort key of slog_search.h: time, kind, timeline, end, category, depth. */
static void key_of(const slog_item *it, int64_t k[6])
{
    const slog_state *const s = &it->u.state;
    const slog_event *const e = &it->u.event;
    const slog_arrow *const a = &it->u.arrow;
    const slog_counter *const v = &it->u.counter;
    switch (it->kind) {
    case SLOG_KIND_STATE:
        k[0] = s->start, k[2] = s->timeline, k[3] = s->end, k[4] = s->category, k[5] = s->depth;
        break;
    case SLOG_KIND_EVENT:
        k[0] = e->time, k[2] = e->timeline, k[3] = e->time, k[4] = e->category, k[5] = 0;
        break;
    case SLOG_KIND_ARROW:
        k[0] = a->start, k[2] = a->from, k[3] = a->end, k[4] = a->category, k[5] = 0;
        break;
    default:
        k[0] = v->time, k[2] = v->timeline, k[3] = v->time, k[4] = v->category, k[5] = 0;
        break;
    }
    k[1] = it->kind;
}

static int item_cmp(const slog_item *x, const slog_item *y)
{
    int64_t a[6], b[6];
    key_of(x, a);
    key_of(y, b);
    for (int i = 0; i < 6; i++) {
        if (a[i] != b[i]) {
            return a[i] < b[i] ? -1 : 1;
        }
    }
    return 0;
}

/* Input k's nearest drawable, kept in *best when nearer. */
static int search_input(search_run *s,
                        uint32_t k,
                        const api_index_seek *at,
                        slog_item *best,
                        int *have,
                        slog_error *err)
{
    const ix_input *const in = &s->r->index->t.inputs[k];
    const int fw = at->forward;
    const int within = (s->o.flags & SLOG_SEARCH_WITHIN) != 0; /* [o.t0, o.t1) bounds it too */
    int64_t lo_t = fw ? at->t : INT64_MIN, hi_t = fw ? INT64_MAX : at->t;
    lo_t = within && s->o.t0 > lo_t ? s->o.t0 : lo_t;
    hi_t = within && s->o.t1 < hi_t ? s->o.t1 : hi_t;
    slog_search_options lo;
    int rc = input_options(s, in, lo_t, hi_t, &lo, err);
    if (rc <= 0) {
        return rc;
    }
    const int64_t back = in->offset == INT64_MIN ? INT64_MAX : -in->offset;
    const int64_t lt = util_sat_add_i64(at->t, back);
    slog_reader *f = NULL;
    int file = 1;
    rc = api_index_source(s->r, k, &f, &file, err);
    slog_item it;
    slog_search_cost c;
    memset(&c, 0, sizeof c);
    if (rc == SLOG_OK) {
        rc = fw ? slog_search_next(f, &lo, lt, &it, &c, err)
                : slog_search_prev(f, &lo, lt, &it, &c, err);
        api_index_unpin(s->r, k, file);
        add_cost(&s->cost, &c);
    }
    if (rc != SLOG_OK) {
        return rc == SLOG_END ? SLOG_OK : rc;
    }
    slog_item g;
    (void)api_ixq_remap(s->r->index, in, &it, &g, NULL, NULL); /* no run: no shares */
    const int cmp = *have ? item_cmp(&g, best) : 0;
    if (!*have || (fw ? cmp < 0 : cmp > 0)) {
        *best = g;
        *have = 1;
    }
    return SLOG_OK;
}

int api_index_search(slog_reader *r,
                     const slog_search_options *o,
                     const api_index_seek *at,
                     slog_item *out,
                     slog_search_cost *cost,
                     slog_error *err)
{
    search_run s;
    int rc = run_init(&s, r, o, err);
    int have = 0;
    for (uint32_t k = 0; rc == SLOG_OK && k < r->index->t.h.ninputs; k++) {
        rc = search_input(&s, k, at, out, &have, err);
    }
    run_free(&s, cost);
    return rc != SLOG_OK ? rc : have ? SLOG_OK : SLOG_END;
}

/* ---- the longest N states ---- */

static int cmp_top(const void *a, const void *b)
{
    const slog_state *const x = a;
    const slog_state *const y = b;
    const int64_t dx = x->end - x->start, dy = y->end - y->start;
    const int64_t kx[6] = {-dx, x->start, x->timeline, x->depth, x->category, x->end};
    const int64_t ky[6] = {-dy, y->start, y->timeline, y->depth, y->category, y->end};
    for (int i = 0; i < 6; i++) {
        if (kx[i] != ky[i]) {
            return kx[i] < ky[i] ? -1 : 1;
        }
    }
    return 0;
}

/* Input k's longest states appended to all (room for n more). */
static int
top_input(search_run *s, uint32_t k, uint32_t n, slog_state *all, uint32_t *nall, slog_error *err)
{
    const ix_input *const in = &s->r->index->t.inputs[k];
    slog_search_options lo;
    int rc = input_options(s, in, s->o.t0, s->o.t1, &lo, err);
    if (rc <= 0) {
        return rc;
    }
    slog_reader *f = NULL;
    int file = 1;
    rc = api_index_source(s->r, k, &f, &file, err);
    uint32_t got = n;
    slog_search_cost c;
    memset(&c, 0, sizeof c);
    if (rc == SLOG_OK) {
        rc = slog_search_top(f, &lo, all + *nall, &got, &c, err);
        api_index_unpin(s->r, k, file);
        add_cost(&s->cost, &c);
    }
    for (uint32_t i = 0; rc == SLOG_OK && i < got; i++) {
        slog_item it = {.kind = SLOG_KIND_STATE}, g;
        it.u.state = all[*nall + i];
        (void)api_ixq_remap(s->r->index, in, &it, &g, NULL, NULL);
        all[*nall + i] = g.u.state;
    }
    *nall += rc == SLOG_OK ? got : 0;
    return rc;
}

int api_index_top(slog_reader *r,
                  const slog_search_options *o,
                  slog_state *out,
                  uint32_t *count,
                  slog_search_cost *cost,
                  slog_error *err)
{
    const uint32_t n = *count;
    *count = 0;
    if (n == 0) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, r->path, "Top-N needs N >= 1");
    }
    search_run s;
    int rc = run_init(&s, r, o, err);
    if (rc == SLOG_OK && s.o.t0 >= s.o.t1) {
        rc = util_err(err, SLOG_EINVAL, UINT64_MAX, r->path, "Top-N needs a window t0 < t1");
    }
    slog_state *const all = rc == SLOG_OK ? util_malloc((size_t)n * 2 * sizeof *all) : NULL;
    if (rc == SLOG_OK && all == NULL) {
        rc = util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Out of memory");
    }
    uint32_t nall = 0;
    for (uint32_t k = 0; rc == SLOG_OK && k < r->index->t.h.ninputs; k++) {
        rc = top_input(&s, k, n, all, &nall, err);
        qsort(all, nall, sizeof *all, cmp_top);
        nall = nall < n ? nall : n; /* keep the best n: room for the next input's n */
    }
    if (rc == SLOG_OK) {
        memcpy(out, all, (size_t)nall * sizeof *all);
        *count = nall;
    }
    util_free(all);
    run_free(&s, cost);
    return rc;
}
