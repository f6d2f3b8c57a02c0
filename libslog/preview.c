/* SPDX-License-Identifier: MIT
 *
 * preview.c - building subtree summaries (preview.h): a summary's life
 * (init, reset, free), the row folding and time-bin arithmetic the other
 * preview files share, and adding drawables (or a caller's totals) under
 * their folded key as exact int64 sums that saturate.  A binned add first
 * grows the summary's box and, when more than PV_BINS_MAX bins would cover
 * it, widens the bins (a re-key, preview_merge.c).  The entries live in
 * preview_table.c; fitting to a budget is preview_fit.c and
 * preview_bins_fit.c; the blob codec is preview_encode.c and
 * preview_decode.c.
 * Layer 3: may use codec and util.
 */
#include "preview_int.h"

#include "util_alloc.h"
#include "util_sat.h"

#include <assert.h>
#include <math.h>
#include <string.h>

uint32_t pv_fold_row(const pv_fold_ctx *ctx, uint32_t row, uint32_t from, uint32_t to)
{
    if (to <= from) {
        return row;
    }
    if (from == 0) {
        const uint32_t p = row < ctx->ntimelines ? ctx->parent[row] : SLOG_NO_PARENT;
        row = p == SLOG_NO_PARENT ? row : p;
        from = 1;
        if (to == 1) {
            return row;
        }
    }
    if (from == 1) {
        row = row < ctx->ntimelines ? ctx->root[row] : row;
        from = 2;
        if (to == 2) {
            return row;
        }
    }
    const uint32_t shift = to - from;
    return shift >= 32 ? 0 : row >> shift;
}

void pv_init(pv_summary *s)
{
    memset(s, 0, sizeof *s);
    s->lo = INT64_MAX;
    s->hi = INT64_MIN;
}

void pv_init_binned(pv_summary *s)
{
    pv_init(s);
    s->binned = 1;
}

int64_t pv_bin_of(int64_t t, uint32_t k)
{
    if (k >= 63) {
        return t < 0 ? -1 : 0;
    }
    /* floor division without relying on the sign behaviour of >> */
    return t >= 0 ? t >> k : -(int64_t)((uint64_t)(-(t + 1)) >> k) - 1;
}

uint32_t pv_bins_kmin(int64_t t0, int64_t t1)
{
    uint32_t k = 0;
    while (k < 63 && (uint64_t)pv_bin_of(t1, k) - (uint64_t)pv_bin_of(t0, k) >= PV_BINS_MAX) {
        k++;
    }
    return k;
}

void pv_reset(pv_summary *s)
{
    if (s->cap > 0) {
        memset(s->index, 0, s->cap * sizeof *s->index);
    }
    if (s->ndropped > 0) {
        memset(s->dropped, 0, s->ndropped);
    }
    s->used = 0;
    s->fold = 0;
    s->k = 0;
    s->lo = INT64_MAX;
    s->hi = INT64_MIN;
}

void pv_free(pv_summary *s)
{
    const uint8_t binned = s->binned;
    util_free(s->index);
    util_free(s->entries);
    util_free(s->dropped);
    pv_init(s);
    s->binned = binned;
}

static void add_duration(pv_entry *e, int64_t dur)
{
    e->count++;
    e->incl = util_sat_add_i64(e->incl, dur);
    if (dur < e->min) {
        e->min = dur;
    }
    if (dur > e->max) {
        e->max = dur;
    }
}

int pv_add_state(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat, int64_t dur,
                 int64_t excl)
{
    const uint32_t row = pv_fold_row(ctx, tl, 0, s->fold);
    pv_entry *const e = pv_table_lookup(s, SLOG_KIND_STATE, row, row, pv_map_category(s, cat), 0);
    if (e == NULL) {
        return -1;
    }
    add_duration(e, dur);
    e->excl = util_sat_add_i64(e->excl, excl);
    return 0;
}

int pv_add_totals(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat,
                  const pv_entry *e)
{
    const uint32_t row = pv_fold_row(ctx, tl, 0, s->fold);
    pv_entry *const d = pv_table_lookup(s, e->kind, row, row, pv_map_category(s, cat), 0);
    if (d == NULL) {
        return -1;
    }
    pv_entry_add(d, e);
    return 0;
}

int pv_add_event(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat)
{
    const uint32_t row = pv_fold_row(ctx, tl, 0, s->fold);
    pv_entry *const e = pv_table_lookup(s, SLOG_KIND_EVENT, row, row, pv_map_category(s, cat), 0);
    if (e == NULL) {
        return -1;
    }
    e->count++;
    return 0;
}

int pv_add_arrow(pv_summary *s, const pv_fold_ctx *ctx, uint32_t from, uint32_t to, uint32_t cat,
                 int64_t dur)
{
    const uint32_t r0 = pv_fold_row(ctx, from, 0, s->fold);
    const uint32_t r1 = pv_fold_row(ctx, to, 0, s->fold);
    pv_entry *const e = pv_table_lookup(s, SLOG_KIND_ARROW, r0, r1, pv_map_category(s, cat), 0);
    if (e == NULL) {
        return -1;
    }
    add_duration(e, dur);
    return 0;
}

/* e += src for counter entries (src may be a single sample); fmin/fmax:
 * a NaN sample never wins over a number, whatever the order. */
static void add_counter_values(pv_entry *e, const pv_entry *src)
{
    e->vmin = e->count == 0 ? src->vmin : fmin(e->vmin, src->vmin);
    e->vmax = e->count == 0 ? src->vmax : fmax(e->vmax, src->vmax);
    e->vsum += src->vsum;
    if (src->last_time >= e->last_time) {
        e->last_time = src->last_time;
        e->vlast = src->vlast;
    }
    e->count += src->count;
}

/* One counter sample added to e. */
static void add_sample(pv_entry *e, int64_t time, double value)
{
    pv_entry one;
    memset(&one, 0, sizeof one);
    one.count = 1;
    one.vmin = one.vmax = one.vsum = one.vlast = value;
    one.last_time = time;
    add_counter_values(e, &one);
}

int pv_add_counter(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat,
                   int64_t time, double value)
{
    const uint32_t row = pv_fold_row(ctx, tl, 0, s->fold);
    pv_entry *const e = pv_table_lookup(s, SLOG_KIND_COUNTER, row, row, pv_map_category(s, cat), 0);
    if (e == NULL) {
        return -1;
    }
    add_sample(e, time, value);
    return 0;
}

void pv_entry_add(pv_entry *dst, const pv_entry *src)
{
    if (src->kind == SLOG_KIND_COUNTER) {
        add_counter_values(dst, src);
        return;
    }
    dst->count += src->count;
    dst->incl = util_sat_add_i64(dst->incl, src->incl);
    dst->excl = util_sat_add_i64(dst->excl, src->excl);
    if (src->min < dst->min) {
        dst->min = src->min;
    }
    if (src->max > dst->max) {
        dst->max = src->max;
    }
}

/* Extend a binned summary's box by [start, end], coarsen its bins to keep
 * at most PV_BINS_MAX over it, and give the bin of start. */
static int bin_at(pv_summary *s, const pv_fold_ctx *ctx, int64_t start, int64_t end,
                  int64_t *bin)
{
    if (start < s->lo || end > s->hi) {
        s->lo = start < s->lo ? start : s->lo;
        s->hi = end > s->hi ? end : s->hi;
        uint32_t k = s->k; /* the box only grows: so does k */
        while (k < 63 && (uint64_t)pv_bin_of(s->hi, k) - (uint64_t)pv_bin_of(s->lo, k) >=
                             PV_BINS_MAX) {
            k++;
        }
        if (k > s->k && pv_rekey(s, ctx, s->fold, k) != 0) {
            return -1;
        }
    }
    *bin = pv_bin_of(start, s->k);
    return 0;
}

/* The entry of a binned summary for a drawable from..to (rows), starting
 * at start and ending at end; NULL when out of memory. */
static pv_entry *bins_entry(pv_summary *s, const pv_fold_ctx *ctx, uint8_t kind, pv_bin_key key,
                            int64_t start, int64_t end)
{
    int64_t bin = 0;
    if (bin_at(s, ctx, start, end, &bin) != 0) {
        return NULL;
    }
    const uint32_t r0 = pv_fold_row(ctx, key.from, 0, s->fold);
    const uint32_t r1 = pv_fold_row(ctx, key.to, 0, s->fold);
    return pv_table_lookup(s, kind, r0, r1, pv_map_category(s, key.cat), bin);
}

void pv_bins_span(pv_summary *s, int64_t t0, int64_t t1)
{
    assert(s->used == 0);
    s->lo = t0 < s->lo ? t0 : s->lo;
    s->hi = t1 > s->hi ? t1 : s->hi;
    const uint32_t k = pv_bins_kmin(s->lo, s->hi);
    s->k = k > s->k ? k : s->k;
}

int pv_bins_add_state(pv_summary *s, const pv_fold_ctx *ctx, pv_bin_key key, int64_t start,
                      int64_t end, int64_t excl)
{
    pv_entry *const e = bins_entry(s, ctx, SLOG_KIND_STATE, key, start, end);
    if (e == NULL) {
        return -1;
    }
    add_duration(e, end - start);
    e->excl = util_sat_add_i64(e->excl, excl);
    return 0;
}

int pv_bins_add_event(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat,
                      int64_t time)
{
    const pv_bin_key key = {tl, tl, cat};
    pv_entry *const e = bins_entry(s, ctx, SLOG_KIND_EVENT, key, time, time);
    if (e == NULL) {
        return -1;
    }
    e->count++;
    return 0;
}

int pv_bins_add_arrow(pv_summary *s, const pv_fold_ctx *ctx, pv_bin_key key, int64_t start,
                      int64_t end)
{
    pv_entry *const e = bins_entry(s, ctx, SLOG_KIND_ARROW, key, start, end);
    if (e == NULL) {
        return -1;
    }
    add_duration(e, end - start);
    return 0;
}

int pv_bins_add_counter(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat,
                        int64_t time, double value)
{
    const pv_bin_key key = {tl, tl, cat};
    pv_entry *const e = bins_entry(s, ctx, SLOG_KIND_COUNTER, key, time, time);
    if (e == NULL) {
        return -1;
    }
    add_sample(e, time, value);
    return 0;
}
