/* SPDX-License-Identifier: MIT
 *
 * slog_stats.h - exact statistics of a time window: per category, per
 * timeline or per both, the count of states with their inclusive and
 * exclusive time clipped to the window and their shortest, longest and mean
 * clipped duration; the counts of events and arrows; the count and the
 * min/max/mean value of counter samples.  Subtrees wholly inside the window
 * answer from their previews, so the cost is about O(log n + leaves at the
 * window's edges), not the number of drawables (doc/DESIGN.md, "Window
 * statistics").
 *
 * Semantics, for the window W = [t0, t1):
 *  - a state [s, e] belongs to W when s < t1 and (e > t0 or s == e >= t0),
 *    exactly the states a resolution-0 query returns; it counts once;
 *  - its clipped duration is min(e, t1) - max(s, t0); inclusive time is the
 *    sum of clipped durations; min, max and mean are over clipped durations
 *    (mean = inclusive / count);
 *  - sums that would pass INT64_MAX ticks stay at INT64_MAX (saturated:
 *    "at least"); the mean of such a row is then at least its min.
 *  - its direct children are the states of the same timeline at depth + 1
 *    lying inside [s, e]; its exclusive time is its clipped duration minus
 *    the clipped durations of its direct children.  The writer records the
 *    children time of each state as states arrive; it equals this
 *    definition for properly nested states appended children first
 *    (nondecreasing end time, as slog_writer_begin/end and the importers
 *    do);
 *  - events and counter samples at time t belong to W when t0 <= t < t1;
 *    arrows like states; an arrow counts on its source timeline, and a
 *    timeline filter selects it by either end, as queries do.
 *
 * Thread safety: the calls fill the reader's node cache, so a reader is used
 * by one thread at a time; a result is immutable and may be read by any
 * thread.
 */
#ifndef SLOG_STATS_H
#define SLOG_STATS_H

#include <slog/slog_common.h>
#include <slog/slog_reader.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Grouping of the rows (a bit set: category, timeline, or both). */
#define SLOG_STATS_BY_CATEGORY 1u
#define SLOG_STATS_BY_TIMELINE 2u
#define SLOG_STATS_BY_BOTH     3u

/** Timeline or category of a row that is not grouped by it. */
#define SLOG_STATS_ANY UINT32_MAX

typedef struct slog_stats_options {
    uint32_t struct_size;        /* sizeof(slog_stats_options): use the INIT macro or
                                    slog_stats_options_init */
    uint32_t by;                 /* SLOG_STATS_BY_*; 0 = by category */
    int64_t t0, t1;              /* window [t0, t1), t0 < t1 */
    uint32_t kinds;              /* bit mask of (1u << slog_kind) of drawables; 0 = all four */
    uint32_t ntimelines;
    const uint32_t *timelines;   /* NULL = all */
    const uint32_t *categories;  /* NULL = all */
    uint32_t ncategories;
    uint32_t reserved;           /* 0 */
} slog_stats_options;

#define SLOG_STATS_OPTIONS_INIT {sizeof(slog_stats_options), 0, 0, 0, 0, 0, NULL, NULL, 0, 0}

/** One row of window statistics. */
typedef struct slog_stats_row {
    slog_kind kind;       /* kind of the drawables counted */
    uint32_t category;    /* SLOG_STATS_ANY when not grouped by category */
    uint32_t timeline;    /* SLOG_STATS_ANY when not grouped by timeline */
    uint64_t count;       /* drawables in the window */
    int64_t inclusive;    /* states: summed clipped durations, ticks */
    int64_t exclusive;    /* states: inclusive minus the direct children's clipped time */
    int64_t min, max;     /* states: shortest and longest clipped duration */
    double mean;          /* states: inclusive / count; counters: mean value */
    double vmin, vmax;    /* counters: smallest and largest value (NaN samples are left
                             out; NaN only when all are); vsum and mean then NaN */
    double vsum;          /* counters: sum of the values */
} slog_stats_row;

/** The rows of one slog_stats_compute call (opaque). */
typedef struct slog_stats slog_stats;

/** What computing statistics cost. */
typedef struct slog_stats_cost {
    uint64_t nodes_visited;    /* node table entries looked at */
    uint64_t previews_used;    /* subtrees answered by their preview */
    uint64_t nodes_decoded;    /* node drawables blobs decoded (or found in the cache) */
    uint64_t bytes_read;       /* compressed bytes read from the file */
    uint64_t cache_hits;
    uint32_t exact_fallback;   /* 1: the file has no per-state exclusive time (format 1),
                                  so every node touching the window was decoded */
    uint32_t reserved;
} slog_stats_cost;

/** Set @p o to the defaults (same as SLOG_STATS_OPTIONS_INIT), for bindings.
 *  @param o options to fill; must not be NULL
 *  Thread safety: any thread.  @since 0.2 */
SLOG_API void slog_stats_options_init(slog_stats_options *o);

/**
 * Compute the statistics of a window.  Rows come sorted by timeline, then
 * kind, then category (fields not grouped by are SLOG_STATS_ANY); a group
 * with nothing in the window has no row.
 * @param out   receives the result (caller-owned, slog_stats_destroy); NULL on error
 * @param r     an open reader; its node cache is filled, so it is not const
 * @param opts  window, filters and grouping; must not be NULL
 * @param err   optional error details; NULL ignores them
 * @retval SLOG_OK
 * @retval SLOG_EINVAL   empty or reversed window, unknown timeline or category
 *                       id, unknown grouping or kind bits
 * @retval SLOG_ECORRUPT a node met on the way is damaged; the message names it
 * @retval SLOG_EIO, SLOG_ENOMEM
 * Thread safety: one thread at a time per reader.  @since 0.2
 */
SLOG_API int slog_stats_compute(slog_stats **out, slog_reader *r, const slog_stats_options *opts,
                                slog_error *err);

/** The rows of a result.
 *  @param s      a result; must not be NULL
 *  @param count  receives the number of rows; must not be NULL
 *  @retval the rows, borrowed until slog_stats_destroy (NULL when there are none)
 *  Thread safety: any thread (the result is immutable).  @since 0.2 */
SLOG_API const slog_stats_row *slog_stats_rows(const slog_stats *s, size_t *count);

/** What the computation cost.
 *  @param s    a result; must not be NULL
 *  @param out  receives the cost; must not be NULL
 *  Thread safety: any thread.  @since 0.2 */
SLOG_API void slog_stats_cost_get(const slog_stats *s, slog_stats_cost *out);

/** Release a result.
 *  @param s  a result; NULL does nothing
 *  Thread safety: any thread.  @since 0.2 */
SLOG_API void slog_stats_destroy(slog_stats *s);

#ifdef __cplusplus
}
#endif
#endif /* SLOG_STATS_H */
