/* SPDX-License-Identifier: MIT
 *
 * slog_search.h - finding drawables without reading the trace: the next or
 * previous drawable of some categories on some timelines from a time T, and
 * the longest N states of a window.  Subtrees whose previews say they hold
 * nothing that matches are skipped (a preview entry folded to a timeline
 * group or into the category "other" counts as "may hold"), and top-N
 * prunes subtrees whose previews' longest state cannot make the list.
 *
 * Order of drawables: by time (a state's or arrow's start, an event's or
 * counter sample's time), then kind, timeline (an arrow's source), end,
 * category and depth.  slog_search_next returns the first drawable in this
 * order whose time is > T, slog_search_prev the last one whose time is < T.
 * Returned drawables carry no args (nargs 0, args NULL).
 *
 * Thread safety: the calls fill the reader's node cache, so a reader is used
 * by one thread at a time.
 */
#ifndef SLOG_SEARCH_H
#define SLOG_SEARCH_H

#include <slog/slog_common.h>
#include <slog/slog_reader.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct slog_search_options {
    uint32_t struct_size;        /* sizeof(slog_search_options): use the INIT macro or
                                    slog_search_options_init */
    uint32_t kinds;              /* bit mask of (1u << slog_kind) of drawables; 0 = all four */
    int64_t t0, t1;              /* window [t0, t1) of slog_search_top, and of next/prev
                                    with SLOG_SEARCH_WITHIN */
    uint32_t ntimelines;
    const uint32_t *timelines;   /* NULL = all; an arrow matches by either end */
    const uint32_t *categories;  /* NULL = all */
    uint32_t ncategories;
    uint32_t flags;              /* SLOG_SEARCH_* (since 0.3; before, a reserved 0) */
    const char *name_contains;   /* NULL = any; else only categories whose name contains it */
} slog_search_options;

/** slog_search_options.flags: next/prev find only drawables whose time lies in
 *  [t0, t1), and read only the nodes that meet it: a bounded look back or
 *  ahead, whose cost does not grow with what lies outside.  @since 0.3 */
#define SLOG_SEARCH_WITHIN (1u << 0)

#define SLOG_SEARCH_OPTIONS_INIT {sizeof(slog_search_options), 0, 0, 0, 0, NULL, NULL, 0, 0, NULL}

/** What a search cost. */
typedef struct slog_search_cost {
    uint64_t nodes_visited;    /* node table entries looked at */
    uint64_t previews_read;    /* preview blobs needed */
    uint64_t nodes_decoded;    /* drawables blobs needed */
    uint64_t bytes_read;       /* compressed bytes read from the file */
    uint64_t cache_hits;       /* blobs found decoded in the cache */
} slog_search_cost;

/** Set @p o to the defaults (same as SLOG_SEARCH_OPTIONS_INIT), for bindings.
 *  @param o options to fill; must not be NULL
 *  Thread safety: any thread.  @since 0.2 */
SLOG_API void slog_search_options_init(slog_search_options *o);

/**
 * The first matching drawable whose time is after @p after.
 * @param r      an open reader (its node cache is filled)
 * @param opts   filters; must not be NULL
 * @param after  the time T, ticks; drawables at T itself are not found
 * @param out    receives the drawable (kind and union member); must not be NULL
 * @param cost   optional: receives what the search cost (NULL: not wanted)
 * @param err    optional error details
 * @retval SLOG_OK       found
 * @retval SLOG_END      no matching drawable after T
 * @retval SLOG_EINVAL   unknown timeline or category id, no category name
 *                       contains opts->name_contains, unknown kind bits
 * @retval SLOG_ECORRUPT a node met is damaged (the message names it)
 * @retval SLOG_EIO, SLOG_ENOMEM
 * Thread safety: one thread at a time per reader.  @since 0.2
 */
SLOG_API int slog_search_next(slog_reader *r, const slog_search_options *opts, int64_t after,
                              slog_item *out, slog_search_cost *cost, slog_error *err);

/**
 * The last matching drawable whose time is before @p before.
 * @param r       an open reader (its node cache is filled)
 * @param opts    filters; must not be NULL
 * @param before  the time T, ticks; drawables at T itself are not found
 * @param out     receives the drawable (kind and union member); must not be NULL
 * @param cost    optional: receives what the search cost (NULL: not wanted)
 * @param err     optional error details
 * @retval SLOG_OK       found
 * @retval SLOG_END      no matching drawable before T
 * @retval SLOG_EINVAL   as slog_search_next
 * @retval SLOG_ECORRUPT a node met is damaged (the message names it)
 * @retval SLOG_EIO, SLOG_ENOMEM
 * Thread safety: one thread at a time per reader.  @since 0.2
 */
SLOG_API int slog_search_prev(slog_reader *r, const slog_search_options *opts, int64_t before,
                              slog_item *out, slog_search_cost *cost, slog_error *err);

/**
 * The longest matching states overlapping the window [opts->t0, opts->t1)
 * (the overlap rule of queries), longest first; equal durations by start,
 * timeline, depth, category and end.  Durations are whole (end - start),
 * not clipped.
 * @param r      an open reader (its node cache is filled)
 * @param opts   window and filters; must not be NULL
 * @param out    array of *count states; must not be NULL
 * @param count  in: how many states at most (N >= 1, the length of @p out);
 *               out: how many were filled (fewer when the window holds
 *               fewer; 0 on error); must not be NULL
 * @param cost   optional: receives what the search cost
 * @param err    optional error details
 * @retval SLOG_OK
 * @retval SLOG_EINVAL   N == 0, empty or reversed window, unknown ids, no
 *                       category name contains opts->name_contains
 * @retval SLOG_ECORRUPT a node met is damaged (the message names it)
 * @retval SLOG_EIO, SLOG_ENOMEM
 * Thread safety: one thread at a time per reader.  @since 0.2
 */
SLOG_API int slog_search_top(slog_reader *r, const slog_search_options *opts, slog_state *out,
                             uint32_t *count, slog_search_cost *cost, slog_error *err);

#ifdef __cplusplus
}
#endif
#endif /* SLOG_SEARCH_H */
