/* SPDX-License-Identifier: MIT
 *
 * report_grid.c - the overview raster: the collected pieces drawn on the
 * image's rows (report_layout.c; a piece of a group spread over the
 * group's rows by their leaf timelines).  A piece adds its
 * inclusive time to its category's colour slot and its depth-0 time to
 * the row's busy time, in every pixel it covers, split by overlap (a
 * preview's time spread evenly over its node's span, at most a few pixels
 * by the query's rule).  Colour slots are the state categories with the
 * most inclusive time in the whole trace (exact statistics), then "other".
 * Tools layer: public libslog headers and utils/common only.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define SLOTS_NAMED 12u /* categories with their own colour; the rest is "other" */

static int cmp_inclusive_desc(const void *a, const void *b)
{
    const slog_stats_row *x = a, *y = b;
    if (x->inclusive != y->inclusive) {
        return x->inclusive > y->inclusive ? -1 : 1;
    }
    return x->category < y->category ? -1 : x->category > y->category;
}

/* Colour slots: the state categories with the most inclusive time. */
static int grid_palette(report *rp)
{
    report_grid *g = &rp->grid;
    slog_stats_row *states = calloc(rp->nby_cat + 1, sizeof *states);
    g->slot_cat = calloc(SLOTS_NAMED, sizeof *g->slot_cat);
    g->slot_of = calloc((size_t)rp->fi.categories + 1, sizeof *g->slot_of);
    if (states == NULL || g->slot_cat == NULL || g->slot_of == NULL) {
        free(states);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < rp->nby_cat; i++) {
        if (rp->by_cat[i].kind == SLOG_KIND_STATE) {
            states[n++] = rp->by_cat[i];
        }
    }
    qsort(states, n, sizeof *states, cmp_inclusive_desc);
    const uint32_t named = n < SLOTS_NAMED ? (uint32_t)n : SLOTS_NAMED;
    for (uint32_t c = 0; c < rp->fi.categories; c++) {
        g->slot_of[c] = named;
    }
    for (uint32_t s = 0; s < named; s++) {
        g->slot_cat[s] = states[s].category;
        if (states[s].category < rp->fi.categories) {
            g->slot_of[states[s].category] = s;
        }
    }
    g->nslots = named + 1;
    free(states);
    return 0;
}

static uint32_t slot_of(const report *rp, uint32_t category)
{
    const report_grid *g = &rp->grid;
    return category < rp->fi.categories ? g->slot_of[category] : g->nslots - 1;
}

static uint32_t pixel_of(const report_grid *g, int64_t t)
{
    if (t <= g->t0) {
        return 0;
    }
    const uint64_t p = ((uint64_t)t - (uint64_t)g->t0) / (uint64_t)g->resolution;
    return p >= g->width ? g->width - 1 : (uint32_t)p;
}

/* Add @p share of a piece to a row's pixels, split by overlap.  States of
 * no duration weigh a thousandth of a tick, so their pixel shows their
 * colour (lightly) instead of nothing: a trace of zero-length states
 * painted an empty image. */
static void grid_add(report *rp, uint32_t row, const report_piece *pc, double share)
{
    report_grid *g = &rp->grid;
    const int64_t s = pc->start, e = pc->end;
    const uint32_t slot = slot_of(rp, pc->category);
    const double incl = pc->incl > 0 || pc->count == 0 ? (double)pc->incl : 1e-3;
    const uint32_t p0 = pixel_of(g, s);
    const uint32_t p1 = e > s ? pixel_of(g, e - 1) : p0;
    const double span = e > s ? (double)(e - s) : 1.0;
    for (uint32_t p = p0; p <= p1; p++) {
        double part = 1.0;
        if (p1 > p0) {
            const int64_t px0 = g->t0 + (int64_t)p * g->resolution;
            const int64_t lo = s > px0 ? s : px0;
            const int64_t hi = e - px0 < g->resolution ? e : px0 + g->resolution;
            part = (double)(hi - lo) / span;
        }
        const size_t cell = (size_t)row * g->width + p;
        g->weight[cell * g->nslots + slot] += (float)(incl * part * share);
        g->busy[cell] += (float)((double)pc->busy * part * share);
    }
}

/* One piece's share on one row: its pixels, and the row's totals. */
static void grid_take(report *rp, uint32_t row, const report_piece *pc, double share)
{
    grid_add(rp, row, pc, share);
    report_img_row *ir = &rp->layout.row[row];
    ir->busy += (double)pc->busy * share;
    ir->inclusive += (double)pc->incl * share;
    ir->states += (double)pc->count * share;
    ir->estimated = ir->estimated || share < 1.0;
}

int report_grid_build(report *rp)
{
    report_grid *g = &rp->grid;
    const size_t cells = (size_t)(rp->layout.n > 0 ? rp->layout.n : 1) * g->width;
    if (grid_palette(rp) != 0 ||
        (g->weight = calloc(cells * g->nslots, sizeof *g->weight)) == NULL ||
        (g->busy = calloc(cells, sizeof *g->busy)) == NULL) {
        (void)fprintf(stderr, REPORT_PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    for (size_t i = 0; i < rp->npieces; i++) {
        report_layout_spread(rp, &rp->pieces[i], grid_take);
    }
    return 0;
}
