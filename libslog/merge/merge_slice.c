/* SPDX-License-Identifier: MIT
 *
 * merge_slice.c - the streaming part of a merge: the output's key range
 * [lo, hi] is cut into consecutive slices [ka, kb]; for each, every input
 * is queried at full detail (with args) over the slice's window taken back
 * to its clock, and exactly the drawables whose key lies in the slice are
 * kept, sorted and appended.
 *
 * Exactly once.  key = end - 1 for a drawable with start < end, start for
 * an instant (start == end); start <= key <= end.  The reader returns
 * [s, e] for the window [w0, w1) when s < w1 && (e > w0 || (s == e &&
 * s >= w0)) (tree_walk_overlaps; the same test for states and arrows, and
 * for events and counters with s = e = time; arrows have end >= start,
 * the writer refuses others).  A key k in [w0, w1) implies both halves:
 * s <= k < w1, and e = k + 1 > w0 or s == e == k >= w0.  So a window
 * holding the key returns the drawable, and the exact key filter keeps it
 * in one slice only, since slices partition [lo, hi].  The window taken
 * back: with out = (t + off) * mult, an output key in [ka, kb] comes from
 * an input key in [floor(ka / mult) - off, floor(kb / mult) - off]; the
 * window is that widened by one input tick each side, saturated at the
 * int64 ends.  An instant at INT64_MAX of an input cannot be returned by
 * any window; the count check at the end (every input must yield what its
 * summary counts) turns such a loss into an error instead of a silent one.
 *
 * Slice width.  The base is slog_merge_options.slice_ticks, or the span
 * holding MERGE_SLICE_TARGET drawables on average.  Empty slices double
 * the width (a gap of G ticks costs log2(G / base) queries, not G / base);
 * a slice that would hold more than MERGE_SLICE_CAP drawables is dropped
 * and tried at half the width, down to the base when slice_ticks was
 * given (kept on its grid: lo + j * slice_ticks) or 1 tick otherwise; the
 * default width also follows the density (doubled when a slice holds under
 * a quarter of the target, halved above twice it).  Memory is one slice.
 * Merge library: public libslog headers only.
 */
#include <stdlib.h>
#include <string.h>

#include "merge_int.h"

typedef struct slicer {
    int64_t base;  /* the width a slice starts from */
    int64_t w;     /* the current width */
    int64_t min_w; /* narrowest width a too full slice is split down to */
    bool fixed;    /* slice_ticks given */
} slicer;

static int64_t clamp_i64(merge_i128 v)
{
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

static int64_t double_width(int64_t w)
{
    return w > INT64_MAX / 2 ? INT64_MAX : 2 * w;
}

static void slicer_init(slicer *s, const merge_ctx *m)
{
    s->fixed = m->opts.o.slice_ticks > 0;
    if (s->fixed) {
        s->base = m->opts.o.slice_ticks;
    } else {
        const merge_u128 span = (merge_u128)((uint64_t)m->hi - (uint64_t)m->lo) + 1;
        const merge_u128 w = span * MERGE_SLICE_TARGET / (m->total > 0 ? m->total : 1);
        s->base = w < 1 ? 1 : w > INT64_MAX ? INT64_MAX : (int64_t)w;
    }
    s->w = s->base;
    s->min_w = s->fixed ? s->base : 1;
}

/* The width after a slice that kept @p count drawables. */
static void slicer_adapt(slicer *s, uint64_t count)
{
    if (count == 0 || (!s->fixed && count < MERGE_SLICE_TARGET / 4)) {
        s->w = double_width(s->w);
    } else if (s->fixed) {
        s->w = s->base;
    } else if (count > 2 * MERGE_SLICE_TARGET && s->w > 1) {
        s->w /= 2;
    }
}

/* Input window [w0, w1) (its ticks) holding every drawable whose output key
 * lies in [ka, kb]; false when it misses the input's range. */
static bool input_window(const merge_input *in, int64_t ka, int64_t kb, int64_t *w0, int64_t *w1)
{
    const int64_t mult = (int64_t)in->mult;
    *w0 = clamp_i64((merge_i128)merge_floor_div(ka, mult) - in->offset - 1);
    *w1 = clamp_i64((merge_i128)merge_floor_div(kb, mult) - in->offset + 2);
    return in->info->start <= in->info->end && *w0 <= in->info->end && *w1 > in->info->start;
}

/* The drawables of one input with keys in [ka, kb] into m->items; stops
 * with *over once the slice holds more than cap. */
static int collect(merge_ctx *m, merge_input *in, int64_t ka, int64_t kb, uint64_t cap,
                   bool *over)
{
    slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    qo.kinds = 0xfu; /* the four drawable kinds */
    qo.flags = SLOG_QUERY_ARGS;
    if (!input_window(in, ka, kb, &qo.t0, &qo.t1)) {
        return SLOG_OK;
    }
    slog_query *q = NULL;
    int rc = slog_query_create(&q, in->r, &qo, m->err);
    const slog_item *it = NULL;
    while (rc == SLOG_OK && (rc = slog_query_next(q, &it, m->err)) == SLOG_OK) {
        bool kept = false;
        rc = merge_items_take(&m->items, in, it, &kept, m->err);
        if (rc == SLOG_OK && kept && m->items.n > cap) {
            *over = true;
            break;
        }
    }
    slog_query_destroy(q);
    return rc == SLOG_END ? SLOG_OK : merge_err_source(m->err, rc, in->path);
}

/* Fill the slice [ka, kb] from every input; *over when it passed cap. */
static int fill_slice(merge_ctx *m, int64_t ka, int64_t kb, uint64_t cap, bool *over)
{
    merge_items_clear(&m->items);
    m->items.ka = ka;
    m->items.kb = kb;
    *over = false;
    for (size_t i = 0; i < m->n; i++) {
        memset(m->in[i].pending, 0, sizeof m->in[i].pending);
    }
    for (size_t i = 0; i < m->n && !*over; i++) {
        const int rc = collect(m, &m->in[i], ka, kb, cap, over);
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    return SLOG_OK;
}

/* Sort and append the slice; count it per input. */
static int write_slice(merge_ctx *m)
{
    if (merge_items_sort(&m->items) != 0) {
        return merge_err(m->err, SLOG_ENOMEM, m->out, "Cannot sort a slice of %zu drawables",
                         m->items.n);
    }
    const int rc = merge_items_write(&m->items, m->w, &m->sum, m->err);
    if (rc != SLOG_OK) {
        return merge_err_source(m->err, rc, m->out);
    }
    for (size_t i = 0; i < m->n; i++) {
        for (int k = 0; k < 4; k++) {
            m->in[i].kept[k] += m->in[i].pending[k];
        }
    }
    m->sum.slices++;
    if (m->opts.o.progress != NULL) {
        const slog_merge_summary *const s = &m->sum;
        m->opts.o.progress(s->states + s->events + s->arrows + s->counters, m->total,
                           m->opts.o.user);
    }
    return SLOG_OK;
}

/* Every input must have yielded what its summary counts. */
static int check_counts(const merge_ctx *m)
{
    for (size_t i = 0; i < m->n; i++) {
        const merge_input *const in = &m->in[i];
        const uint64_t want[4] = {in->info->states, in->info->events, in->info->arrows,
                                  in->info->counters};
        if (memcmp(want, in->kept, sizeof want) != 0) {
            return merge_err(m->err, SLOG_ECORRUPT, in->path,
                             "It yielded %llu states, %llu events, %llu arrows and %llu counter "
                             "samples where its summary counts %llu, %llu, %llu and %llu",
                             (unsigned long long)in->kept[0], (unsigned long long)in->kept[1],
                             (unsigned long long)in->kept[2], (unsigned long long)in->kept[3],
                             (unsigned long long)want[0], (unsigned long long)want[1],
                             (unsigned long long)want[2], (unsigned long long)want[3]);
        }
    }
    return SLOG_OK;
}

static bool cancelled(const merge_ctx *m)
{
    return m->opts.o.cancel != NULL && atomic_load(m->opts.o.cancel) != 0;
}

int merge_slices_run(merge_ctx *m)
{
    slicer sl;
    slicer_init(&sl, m);
    for (int64_t a = m->lo; !m->empty;) {
        if (cancelled(m)) {
            return merge_err(m->err, SLOG_EINTR, m->out, "Merge cancelled");
        }
        const int64_t kb = (uint64_t)m->hi - (uint64_t)a <= (uint64_t)sl.w - 1 ? m->hi
                                                                             : a + (sl.w - 1);
        const uint64_t cap = sl.w > sl.min_w ? MERGE_SLICE_CAP : UINT64_MAX;
        bool over = false;
        int rc = fill_slice(m, a, kb, cap, &over);
        if (rc == SLOG_OK && over) {
            sl.w = sl.w / 2 > sl.min_w ? sl.w / 2 : sl.min_w; /* drop it, try half */
            continue;
        }
        rc = rc == SLOG_OK ? write_slice(m) : rc;
        if (rc != SLOG_OK) {
            return rc;
        }
        if (kb == m->hi) {
            break;
        }
        a = kb + 1;
        slicer_adapt(&sl, m->items.n);
    }
    return check_counts(m);
}
