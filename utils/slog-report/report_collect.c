/* SPDX-License-Identifier: MIT
 *
 * report_collect.c - one pixel-bounded query over the whole trace (states,
 * arrows and counter samples, their previews and pixel runs at span /
 * pixels ticks per pixel), whose items are kept as compact records:
 * pieces (state time per category on a row), samples (counter values) and
 * pairs (arrow counts between rows).  Each keeps the fold it came with;
 * the tables pick their fold afterwards (report_rows.c), so nothing is
 * split or guessed.  A state adds its duration to its category and, at
 * depth 0, to its row's busy time; a preview adds its inclusive time and,
 * as busy time, its exclusive time (for nested states a timeline's
 * exclusive times add up to its depth-0 time).  The query's cost and item
 * count are bounded by pixels x rows, not by the file.
 * Tools layer: public libslog headers and utils/common only.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* @p items with room for at least n + 1 elements (reallocated when full),
 * or NULL when out of memory (then @p items is untouched). */
static void *grow(void *items, size_t n, size_t *cap, size_t size)
{
    if (n < *cap) {
        return items;
    }
    const size_t next = *cap > 0 ? *cap * 2 : 256;
    void *bigger = realloc(items, next * size);
    if (bigger != NULL) {
        *cap = next;
    }
    return bigger;
}

static int add_piece(report *rp, report_piece p)
{
    report_piece *room = grow(rp->pieces, rp->npieces, &rp->cap_pieces, sizeof p);
    if (room == NULL) {
        return -1;
    }
    rp->pieces = room;
    rp->pieces[rp->npieces++] = p;
    return 0;
}

static int add_sample(report *rp, report_sample s)
{
    report_sample *room = grow(rp->samples, rp->nsamples, &rp->cap_samples, sizeof s);
    if (room == NULL) {
        return -1;
    }
    rp->samples = room;
    rp->samples[rp->nsamples++] = s;
    return 0;
}

static int add_pair(report *rp, report_pair p)
{
    report_pair *room = grow(rp->pairs, rp->npairs, &rp->cap_pairs, sizeof p);
    if (room == NULL) {
        return -1;
    }
    rp->pairs = room;
    rp->pairs[rp->npairs++] = p;
    return 0;
}

static int add_run(report *rp, const slog_run *run)
{
    if (run->of == SLOG_KIND_ARROW) {
        return add_pair(rp, (report_pair){0, run->timeline, run->timeline_to, run->count});
    }
    if (run->of == SLOG_KIND_COUNTER) {
        return add_sample(rp, (report_sample){0, run->timeline, run->category, run->count,
                                              run->vmin, run->vmax, run->vsum});
    }
    if (run->of != SLOG_KIND_STATE) {
        return 0;
    }
    int rc = 0;
    for (uint32_t i = 0; i < run->ncategories && rc == 0; i++) {
        const slog_run_share *sh = &run->categories[i];
        rc = add_piece(rp, (report_piece){0, run->timeline, sh->category, run->start, run->end,
                                          sh->inclusive, run->depth == 0 ? sh->inclusive : 0,
                                          sh->count});
    }
    return rc;
}

static int add_preview(report *rp, const slog_preview *p)
{
    switch (p->of) {
    case SLOG_KIND_STATE:
        return add_piece(rp, (report_piece){p->fold, p->row, p->category, p->start, p->end,
                                            p->inclusive, p->exclusive, p->count});
    case SLOG_KIND_ARROW:
        return add_pair(rp, (report_pair){p->fold, p->row, p->row_to, p->count});
    case SLOG_KIND_COUNTER:
        return add_sample(
            rp, (report_sample){p->fold, p->row, p->category, p->count, p->vmin, p->vmax, p->vsum});
    default:
        return 0;
    }
}

static int add_item(report *rp, const slog_item *it)
{
    switch (it->kind) {
    case SLOG_KIND_STATE: {
        const slog_state *s = &it->u.state;
        const int64_t d = s->end - s->start;
        return add_piece(rp, (report_piece){0, s->timeline, s->category, s->start, s->end, d,
                                            s->depth == 0 ? d : 0, 1});
    }
    case SLOG_KIND_ARROW:
        return add_pair(rp, (report_pair){0, it->u.arrow.from, it->u.arrow.to, 1});
    case SLOG_KIND_COUNTER: {
        const slog_counter *c = &it->u.counter;
        return add_sample(
            rp, (report_sample){0, c->timeline, c->category, 1, c->value, c->value, c->value});
    }
    case SLOG_KIND_RUN:
        return add_run(rp, &it->u.run);
    case SLOG_KIND_PREVIEW:
        return add_preview(rp, &it->u.preview);
    default:
        return 0;
    }
}

static int run_query(report *rp, slog_query *q)
{
    const slog_item *it = NULL;
    slog_error err;
    memset(&err, 0, sizeof err);
    int rc;
    while ((rc = slog_query_next(q, &it, &err)) == SLOG_OK) {
        if (add_item(rp, it) != 0) {
            (void)fprintf(stderr, REPORT_PROG ": out of memory\n");
            return EXIT_FAILURE;
        }
    }
    return rc == SLOG_END ? 0 : report_api_error(rp, "Cannot read the overview", rc, &err);
}

/* The grid's clock: pixel p covers [t0 + p * resolution, ...), and the
 * pixels cover the whole trace.  A trace of fewer ticks than pixels gets a
 * pixel per tick: at 1 tick per pixel, 1000 pixels drew a 3 ns trace on an
 * axis to 1 us. */
static void grid_clock(report *rp)
{
    report_grid *g = &rp->grid;
    g->t0 = rp->fi.start;
    const uint64_t span = (uint64_t)rp->fi.end - (uint64_t)rp->fi.start + 1;
    g->width = span < rp->cfg.pixels ? (uint32_t)span : rp->cfg.pixels;
    const uint64_t res = span / g->width + (span % g->width != 0 ? 1 : 0);
    g->resolution = res > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(res > 0 ? res : 1);
}

/* One query at @p pixels across the whole trace, items appended. */
static int collect_at(report *rp, uint32_t pixels)
{
    slog_query_options o = SLOG_QUERY_OPTIONS_INIT;
    o.kinds = (1u << SLOG_KIND_STATE) | (1u << SLOG_KIND_ARROW) | (1u << SLOG_KIND_COUNTER) |
              (1u << SLOG_KIND_PREVIEW) | (1u << SLOG_KIND_RUN);
    const uint64_t span = (uint64_t)rp->fi.end - (uint64_t)rp->fi.start + 1;
    const uint64_t res = span / pixels + (span % pixels != 0 ? 1 : 0);
    o.resolution = res > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(res > 0 ? res : 1);
    o.t0 = rp->fi.start;
    /* resolution x pixels >= the span, so the window ends after the last drawable */
    if (__builtin_mul_overflow(o.resolution, (int64_t)pixels, &o.t1) ||
        __builtin_add_overflow(o.t1, o.t0, &o.t1)) {
        o.t1 = rp->t1;
    }
    slog_query *q = NULL;
    slog_error err;
    memset(&err, 0, sizeof err);
    const int rc = slog_query_create(&q, rp->r, &o, &err);
    if (rc != SLOG_OK) {
        return report_api_error(rp, "Cannot start the overview query", rc, &err);
    }
    const int status = run_query(rp, q);
    slog_query_stats st;
    slog_query_stats_get(q, &st);
    rp->cost.bytes_read += st.bytes_read;
    rp->cost.blobs_read += st.nodes_read;
    rp->cost.query_items += st.items;
    slog_query_destroy(q);
    rp->query_pixels = pixels;
    return status;
}

static uint32_t pieces_fold(const report *rp)
{
    uint32_t fold = 0; /* the coarsest */
    for (size_t i = 0; i < rp->npieces; i++) {
        fold = rp->pieces[i].fold > fold ? rp->pieces[i].fold : fold;
    }
    return fold;
}

/* Forget the collected items (the buffers stay for the next query). */
static void collect_reset(report *rp)
{
    rp->npieces = 0;
    rp->nsamples = 0;
    rp->npairs = 0;
}

int report_collect(report *rp)
{
    grid_clock(rp);
    int rc = collect_at(rp, rp->cfg.pixels);
    const uint32_t fold = pieces_fold(rp);
    if (rc != 0 || fold == 0) {
        return rc;
    }
    /* The file summarised states per group at this zoom: where a finer
     * query brings timelines apart (small files, sparse nodes) it is worth
     * REPORT_REFINE times the pixels, a cost still bounded by pixels.  Its
     * answer is kept either way: it is never coarser. */
    collect_reset(rp);
    return collect_at(rp, rp->cfg.pixels * REPORT_REFINE);
}
