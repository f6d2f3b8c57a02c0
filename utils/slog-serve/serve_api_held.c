/* SPDX-License-Identifier: MIT
 *
 * serve_api_held.c - the counter values in force at a window's left edge
 * (/api/window?held=1): for each requested row that is a counter track, its
 * last sample before t0, so that a step chart starts at the edge holding
 * that value, as Perfetto and Vampir draw it, instead of starting blank at
 * the first sample inside the window (or staying blank between two samples).
 * Each is one slog_search_prev bounded to HELD_LOOKBACK window widths before
 * t0 (SLOG_SEARCH_WITHIN: it reads only what that span holds); a track with
 * no sample there starts blank, as before.  At most HELD_MAX_ROWS rows.
 * Tools layer (slog-serve): public libslog headers.
 */
#include <string.h>

#include "serve_api_held.h"

#define HELD_LOOKBACK 64   /* window widths looked back */
#define HELD_MAX_ROWS 512  /* counter rows looked at per request */

/* The start of the look back: t0 - HELD_LOOKBACK x (t1 - t0), saturated. */
static int64_t lookback_start(int64_t t0, int64_t t1)
{
    const uint64_t span = (uint64_t)t1 - (uint64_t)t0;
    const uint64_t back = span > (uint64_t)INT64_MAX / HELD_LOOKBACK ? (uint64_t)INT64_MAX
                                                                      : span * HELD_LOOKBACK;
    int64_t s;
    return __builtin_sub_overflow(t0, (int64_t)back, &s) ? INT64_MIN : s;
}

/* Append sample @p v as the batch row a query gives a counter sample. */
static int append_sample(serve_columns *c, const slog_counter *v)
{
    if (serve_columns_reserve(c, c->n + 1) != 0) {
        return -1;
    }
    const size_t i = c->n++;
    c->b.kind[i] = SLOG_KIND_COUNTER;
    c->b.of[i] = SLOG_KIND_COUNTER;
    c->b.timeline[i] = v->timeline;
    c->b.timeline_to[i] = v->timeline;
    c->b.category[i] = v->category;
    c->b.start[i] = v->time;
    c->b.end[i] = v->time;
    c->b.depth[i] = 0;
    c->b.count[i] = 1;
    c->b.inclusive[i] = 0;
    c->b.value[i] = v->value;
    return 0;
}

/* Is timeline @p tl a counter track? */
static bool counter_track(slog_reader *r, uint32_t tl)
{
    slog_timeline_info ti;
    return slog_reader_timeline(r, tl, &ti) == SLOG_OK && ti.kind == SLOG_TIMELINE_COUNTER;
}

/* Row @p tl's last counter sample in the look back, appended to @p c. */
static int held_row(slog_reader *r, const slog_query_options *q, uint32_t tl, serve_columns *c,
                    slog_error *err)
{
    slog_search_options o = SLOG_SEARCH_OPTIONS_INIT;
    o.kinds = 1u << SLOG_KIND_COUNTER;
    o.flags = SLOG_SEARCH_WITHIN;
    o.t0 = lookback_start(q->t0, q->t1);
    o.t1 = q->t0;
    o.timelines = &tl;
    o.ntimelines = 1;
    o.categories = q->categories;
    o.ncategories = q->ncategories;
    slog_item it;
    const int rc = slog_search_prev(r, &o, q->t0, &it, NULL, err);
    if (rc == SLOG_END) {
        return SLOG_OK;
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    return append_sample(c, &it.u.counter) == 0 ? SLOG_OK : SLOG_ENOMEM;
}

int serve_held_counters(const serve_lease *lease, const slog_query_options *q, serve_columns *c,
                        slog_error *err)
{
    if (lease->fi->counters == 0 || q->t0 <= lease->fi->start ||
        (q->kinds != 0 && !(q->kinds & (1u << SLOG_KIND_COUNTER)))) {
        return SLOG_OK; /* no counters, or nothing before the window */
    }
    const uint32_t rows = q->timelines != NULL ? q->ntimelines : lease->fi->timelines;
    int rc = SLOG_OK;
    for (uint32_t k = 0, seen = 0; k < rows && seen < HELD_MAX_ROWS && rc == SLOG_OK; k++) {
        const uint32_t tl = q->timelines != NULL ? q->timelines[k] : k;
        if (counter_track(lease->r, tl)) {
            seen++;
            rc = held_row(lease->r, q, tl, c, err);
        }
    }
    return rc;
}
