/* SPDX-License-Identifier: MIT
 *
 * report_series.c - counter series: the counter samples, runs and
 * previews the overview query returned, merged per (row, counter) at the
 * coarsest fold among them (a counter per timeline when the file's
 * previews keep timelines apart, else per group; counts, min, max and
 * mean are exact either way).  Where the previews fold rare counters into
 * "other", the series are the counters over all timelines instead, from
 * the exact statistics by category.  The last value of each listed series
 * is found by a search backwards from the trace's end over the series'
 * timelines (slog_search_prev: it skips what the previews rule out).
 * Tools layer: public libslog headers and utils/common only.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const report *order_ctx;

/* Display order of (key, category): the row's position, then category. */
static int cmp_series(const void *a, const void *b)
{
    const report_series *x = a, *y = b;
    const report *rp = order_ctx;
    const uint32_t px = rp->series_fold <= 2 ? rp->preorder_pos[x->key] : x->key;
    const uint32_t py = rp->series_fold <= 2 ? rp->preorder_pos[y->key] : y->key;
    if (px != py) {
        return px < py ? -1 : 1;
    }
    return x->category < y->category ? -1 : x->category > y->category;
}

/* One series per sample at the series fold, then equal ones merged. */
static size_t merge_samples(report *rp, report_series *out)
{
    size_t n = 0;
    for (size_t i = 0; i < rp->nsamples; i++) {
        const report_sample *s = &rp->samples[i];
        const uint32_t k = report_key_up(rp, s->key, s->fold, rp->series_fold);
        if (k < rp->tl.n) {
            out[n++] = (report_series){k, s->category, s->count, s->vmin, s->vmax, s->vsum, 0, 0};
        }
    }
    order_ctx = rp;
    qsort(out, n, sizeof *out, cmp_series);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        report_series *last = m > 0 ? &out[m - 1] : NULL;
        if (last != NULL && last->key == out[i].key && last->category == out[i].category) {
            last->count += out[i].count;
            last->vmin = out[i].vmin < last->vmin ? out[i].vmin : last->vmin;
            last->vmax = out[i].vmax > last->vmax ? out[i].vmax : last->vmax;
            last->vsum += out[i].vsum;
        } else {
            out[m++] = out[i];
        }
    }
    return m;
}

/* The timelines of a key at the series fold. */
static uint32_t key_timelines(const report *rp, uint32_t key, uint32_t *ids)
{
    uint32_t n = 0;
    for (uint32_t t = 0; t < rp->tl.n; t++) {
        if (slog_reader_fold_row(rp->r, t, rp->series_fold) == key) {
            ids[n++] = t;
        }
    }
    return n;
}

static int series_last(report *rp, report_series *s, uint32_t *ids)
{
    slog_search_options o = SLOG_SEARCH_OPTIONS_INIT;
    o.kinds = 1u << SLOG_KIND_COUNTER;
    if (rp->series_fold != REPORT_NONE) { /* else all timelines */
        o.timelines = ids;
        o.ntimelines = rp->series_fold == 0 ? 1 : key_timelines(rp, s->key, ids);
        ids[0] = rp->series_fold == 0 ? s->key : ids[0];
    }
    o.categories = &s->category;
    o.ncategories = 1;
    slog_item it;
    slog_search_cost k;
    memset(&k, 0, sizeof k);
    slog_error err;
    memset(&err, 0, sizeof err);
    /* "other" (rare categories folded together) names no category to search */
    const bool searchable =
        (o.ntimelines > 0 || rp->series_fold == REPORT_NONE) && s->category < rp->fi.categories;
    const int rc = searchable ? slog_search_prev(rp->r, &o, rp->t1, &it, &k, &err) : SLOG_END;
    if (rc != SLOG_OK && rc != SLOG_END) {
        return report_api_error(rp, "Cannot find the last counter sample", rc, &err);
    }
    rp->cost.bytes_read += k.bytes_read;
    rp->cost.blobs_read += k.previews_read + k.nodes_decoded;
    s->has_last = rc == SLOG_OK && it.kind == SLOG_KIND_COUNTER;
    s->last = s->has_last ? it.u.counter.value : 0.0;
    return 0;
}

/* One series per counter category over all timelines, from the exact
 * statistics by category (when the file's summaries fold rare counters
 * into "other", per-row numbers of the others would be partial). */
static size_t series_by_category(report *rp, report_series *out)
{
    size_t n = 0;
    for (size_t i = 0; i < rp->nby_cat; i++) {
        const slog_stats_row *c = &rp->by_cat[i];
        if (c->kind == SLOG_KIND_COUNTER) {
            out[n++] = (report_series){REPORT_NONE, c->category, c->count, c->vmin,
                                       c->vmax,     c->vsum,     0,        0};
        }
    }
    return n;
}

int report_series_build(report *rp)
{
    uint32_t fold = 0;
    bool other = false;
    for (size_t i = 0; i < rp->nsamples; i++) {
        fold = rp->samples[i].fold > fold ? rp->samples[i].fold : fold;
        other = other || rp->samples[i].category == SLOG_CATEGORY_OTHER;
    }
    rp->series_fold = other ? REPORT_NONE : fold;
    rp->series = calloc(rp->nsamples + rp->nby_cat + 1, sizeof *rp->series);
    uint32_t *ids = calloc((size_t)rp->tl.n + 1, sizeof *ids);
    if (rp->series == NULL || ids == NULL) {
        free(ids);
        (void)fprintf(stderr, REPORT_PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    rp->series_total = other ? series_by_category(rp, rp->series) : merge_samples(rp, rp->series);
    rp->nseries = rp->series_total < rp->cfg.max_series ? rp->series_total : rp->cfg.max_series;
    int rc = 0;
    for (size_t i = 0; i < rp->nseries && rc == 0; i++) {
        rc = series_last(rp, &rp->series[i], ids);
    }
    free(ids);
    return rc;
}
