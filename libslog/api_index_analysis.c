/* SPDX-License-Identifier: MIT
 *
 * api_index_analysis.c - window statistics over an index.  Each
 * input that meets the window and holds a selected timeline and category
 * answers in its own ids and clock, from its file (statistics need the
 * edges' drawables, which the copied top levels do not hold); results come
 * back in global ids: the rows of all inputs summed per (timeline, kind,
 * category).
 * Layer 5: api.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_index.h"
#include "api_options.h"
#include "api_stats_int.h"
#include "util_alloc.h"
#include "util_error.h"
#include "util_sat.h"

/* ---- statistics ---- */

typedef struct rows {
    slog_stats_row *v;
    size_t n, cap;
} rows;

static int add_rows(rows *acc, const api_index *x, const ix_input *in, const slog_stats *s)
{
    size_t n = 0;
    const slog_stats_row *const src = slog_stats_rows(s, &n);
    void *p = acc->v;
    if (n > 0 && util_grow(&p, &acc->cap, acc->n + n, sizeof *acc->v) != 0) {
        return -1;
    }
    acc->v = p;
    for (size_t i = 0; i < n; i++) {
        slog_stats_row row = src[i];
        if (row.timeline != SLOG_STATS_ANY) {
            row.timeline = api_index_tl(x, in, row.timeline);
        }
        if (row.category != SLOG_STATS_ANY) {
            row.category = api_index_cat(x, in, row.category);
        }
        acc->v[acc->n++] = row;
    }
    return 0;
}

static int cmp_row(const void *a, const void *b)
{
    const slog_stats_row *const x = a;
    const slog_stats_row *const y = b;
    if (x->timeline != y->timeline) {
        return x->timeline < y->timeline ? -1 : 1;
    }
    if (x->kind != y->kind) {
        return x->kind < y->kind ? -1 : 1;
    }
    return x->category < y->category ? -1 : x->category > y->category;
}

static void fold_row(slog_stats_row *to, const slog_stats_row *r)
{
    to->min = r->min < to->min ? r->min : to->min;
    to->max = r->max > to->max ? r->max : to->max;
    to->vmin = fmin(to->vmin, r->vmin); /* a NaN never wins over a number */
    to->vmax = fmax(to->vmax, r->vmax);
    to->count += r->count;
    to->inclusive = util_sat_add_i64(to->inclusive, r->inclusive);
    to->exclusive = util_sat_add_i64(to->exclusive, r->exclusive);
    to->vsum += r->vsum;
    if (to->kind == SLOG_KIND_STATE) {
        to->mean = to->count ? (double)to->inclusive / (double)to->count : 0.0;
    } else {
        to->mean = to->kind == SLOG_KIND_COUNTER && to->count ? to->vsum / (double)to->count : 0.0;
    }
}

/* Sort, and sum the rows of one key. */
static size_t merge_rows(rows *acc)
{
    if (acc->n == 0) {
        return 0;
    }
    qsort(acc->v, acc->n, sizeof *acc->v, cmp_row);
    size_t w = 0;
    for (size_t i = 1; i < acc->n; i++) {
        if (cmp_row(&acc->v[w], &acc->v[i]) == 0) {
            fold_row(&acc->v[w], &acc->v[i]);
        } else {
            acc->v[++w] = acc->v[i];
        }
    }
    return w + 1;
}

static void add_cost(slog_stats_cost *to, const slog_stats *s)
{
    slog_stats_cost c;
    slog_stats_cost_get(s, &c);
    to->nodes_visited += c.nodes_visited;
    to->previews_used += c.previews_used;
    to->nodes_decoded += c.nodes_decoded;
    to->bytes_read += c.bytes_read;
    to->cache_hits += c.cache_hits;
    to->exact_fallback |= c.exact_fallback;
}

/* A statistics request over an index, input by input. */
typedef struct stats_run {
    slog_reader *r;
    slog_stats_options o; /* global */
    api_index_part p;
    rows acc; /* the inputs' rows, global ids */
    slog_stats_cost cost;
} stats_run;

/* Input k's statistics added to s->acc. */
static int stats_input(stats_run *s, uint32_t k, slog_error *err)
{
    slog_reader *const r = s->r;
    const ix_input *const in = &r->index->t.inputs[k];
    api_index_part *const p = &s->p;
    const int want = api_index_part_of(p, r, in, s->o.t0, s->o.t1);
    if (want <= 0) {
        return want < 0 ? util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Out of memory") : 0;
    }
    slog_stats_options lo = s->o;
    lo.t0 = p->t0;
    lo.t1 = p->t1;
    lo.timelines = p->tl_sel ? p->ltl : NULL;
    lo.ntimelines = p->tl_sel ? p->nltl : 0;
    lo.categories = p->cat_sel ? p->lcat : NULL;
    lo.ncategories = p->cat_sel ? p->nlcat : 0;
    slog_reader *f = NULL;
    int file = 1;
    int rc = api_index_source(r, k, &f, &file, err);
    slog_stats *st = NULL;
    if (rc == SLOG_OK) {
        rc = slog_stats_compute(&st, f, &lo, err);
        api_index_unpin(r, k, file);
    }
    if (rc == SLOG_OK) {
        add_cost(&s->cost, st);
        rc = add_rows(&s->acc, r->index, in, st) == 0
                 ? SLOG_OK
                 : util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Out of memory");
    }
    slog_stats_destroy(st);
    return rc;
}

int api_index_stats(slog_stats **out,
                    slog_reader *r,
                    const slog_stats_options *opts,
                    slog_error *err)
{
    stats_run s;
    memset(&s, 0, sizeof s);
    s.r = r;
    int rc = api_stats_options_load(&s.o, opts, r->path, err);
    if (rc == SLOG_OK && s.o.t0 >= s.o.t1) {
        rc = util_err(err, SLOG_EINVAL, UINT64_MAX, r->path, "Statistics need t0 < t1");
    }
    if (rc == SLOG_OK) {
        const api_index_ids ids = {s.o.timelines, s.o.ntimelines, s.o.categories, s.o.ncategories};
        rc = api_index_part_init(&s.p, r, &ids, err);
    }
    for (uint32_t k = 0; rc == SLOG_OK && k < r->index->t.h.ninputs; k++) {
        rc = stats_input(&s, k, err);
    }
    api_index_part_free(&s.p);
    if (rc == SLOG_OK) {
        rc = api_stats_wrap(out, s.acc.v, merge_rows(&s.acc), &s.cost);
        if (rc == SLOG_ENOMEM) {
            rc = util_err(err, rc, UINT64_MAX, r->path, "Out of memory");
        }
    }
    if (rc != SLOG_OK) {
        util_free(s.acc.v);
    }
    return rc;
}
