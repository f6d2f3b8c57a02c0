/* SPDX-License-Identifier: MIT
 *
 * api_index.h - reading an index file (slog_index.h): the input table,
 * each input's view (a reader over the input's copied top levels inside
 * the index, in the input's own ids) and its file (opened on first use),
 * both kept in bounded pools, and the composite query that answers input
 * by input in global ids and times.  Not installed.
 * Layer 5: api.
 */
#ifndef API_INDEX_H
#define API_INDEX_H

#include <limits.h>

#include <slog/slog_search.h>
#include <slog/slog_stats.h>

#include "api_internal.h"
#include "node_format_index.h"

/* Open readers kept per kind; a pinned reader (in use by a query) is never
 * closed, so a pool may hold more while queries run. */
#define API_INDEX_POOL_FILES 64u
#define API_INDEX_POOL_VIEWS 64u
#define API_INDEX_POOL_MAX   64u /* the larger of the two */
/* A query at a resolution over all the timelines of an index of more inputs
 * than this is an overview: each input answers from its copied levels only
 * (doc/DESIGN.md, "Index files"). */
#define API_INDEX_OVERVIEW_INPUTS 64u
_Static_assert(API_INDEX_POOL_FILES <= API_INDEX_POOL_MAX &&
                   API_INDEX_POOL_VIEWS <= API_INDEX_POOL_MAX,
               "pool bounds fit the open list");

typedef struct api_index_pool {
    slog_reader **by_input; /* per input, NULL when closed */
    uint32_t *pins;         /* per input, queries using it */
    uint64_t *used;         /* per input, last use (tick) */
    uint32_t open[API_INDEX_POOL_MAX];
    uint32_t nopen, bound;
} api_index_pool;

struct api_index {
    ix_table t;
    char dir[PATH_MAX]; /* the index's directory, for relative input paths */
    api_index_pool files, views;
    uint64_t files_opened;
    uint64_t tick;
    uint64_t input_cache_bytes; /* node cache of each input file's reader */
};

/* Called by slog_reader_open once the tables are loaded: when the file's
 * last node row is an input table, make r an index reader (r->index set,
 * tree opened over the copied roots, info filled) and return SLOG_OK;
 * SLOG_END when r is an ordinary file (nothing done); or an error. */
int api_index_open(slog_reader *r, uint64_t cache_bytes, slog_error *err);
void api_index_free(api_index *x);

/* Input k's view or file, opened if needed and pinned: release with
 * api_index_unpin.  A file is checked against what the index recorded
 * (size, summary checksum, clock): a changed file is SLOG_ECORRUPT. */
int api_index_view(slog_reader *r, uint32_t k, slog_reader **out, slog_error *err);
int api_index_file(slog_reader *r, uint32_t k, slog_reader **out, slog_error *err);
void api_index_unpin(slog_reader *r, uint32_t k, int file);
/* What answers statistics and search for input k: its view when the index
 * holds it whole (SLOG_INDEX_COPY_ALL), else its file; *file says which
 * (for api_index_unpin). */
int api_index_source(slog_reader *r, uint32_t k, slog_reader **out, int *file, slog_error *err);

/* Local -> global ids of input in (UINT32_MAX when out of range). */
static inline uint32_t api_index_tl(const api_index *x, const ix_input *in, uint32_t l)
{
    return l < in->ntimelines ? x->t.map[in->map_first + l] : UINT32_MAX;
}
static inline uint32_t api_index_cat(const api_index *x, const ix_input *in, uint32_t c)
{
    return c < in->ncategories ? x->t.map[in->map_first + in->ntimelines + c] : UINT32_MAX;
}

/* Selections (api_index_select.c).  A bitmap over a universe of ids from
 * a list (NULL when out of memory). */
uint8_t *api_index_selection(const uint32_t *ids, uint32_t n, uint64_t universe);
/* The local ids of input in (its timelines, or with cats its categories)
 * that sel selects, into *ids (grown) and *n.  0, or -1 out of memory. */
int api_index_local_ids(const api_index *x,
                        const ix_input *in,
                        const uint8_t *sel,
                        int cats,
                        uint32_t **ids,
                        uint32_t *n);
/* [t0, t1) in input in's clock (*l0, *l1); 0 when nothing of the input
 * meets the window (or it is missing or empty). */
int api_index_local_window(const ix_input *in, int64_t t0, int64_t t1, int64_t *l0, int64_t *l1);

/* One input's part of a statistics or search request: its ids (local)
 * and window, from the global selection. */
typedef struct api_index_part {
    uint8_t *tl_sel, *cat_sel; /* global bitmaps, NULL = all */
    uint32_t *ltl, *lcat;
    uint32_t nltl, nlcat;
    int64_t t0, t1; /* local */
} api_index_part;
/* Check the global ids and make their bitmaps: SLOG_OK, SLOG_EINVAL (an
 * unknown id), SLOG_ENOMEM.  Free with api_index_part_free either way. */
typedef struct api_index_ids {
    const uint32_t *tls; /* NULL = all */
    uint32_t ntl;
    const uint32_t *cats; /* NULL = all */
    uint32_t ncat;
} api_index_ids;
int api_index_part_init(api_index_part *p,
                        slog_reader *r,
                        const api_index_ids *ids,
                        slog_error *err);
void api_index_part_free(api_index_part *p);
/* Input in's part of [t0, t1): 1 filled, 0 nothing of it selected, -1 no memory. */
int api_index_part_of(
    api_index_part *p, const slog_reader *r, const ix_input *in, int64_t t0, int64_t t1);

/* Statistics and search over an index (api_index_analysis.c): input by
 * input on the input files of the selection, results in global ids. */
int api_index_stats(slog_stats **out, slog_reader *r, const slog_stats_options *o, slog_error *err);
/* Where a search starts: after t (forward) or before it. */
typedef struct api_index_seek {
    int64_t t;
    int forward;
} api_index_seek;
int api_index_search(slog_reader *r,
                     const slog_search_options *o,
                     const api_index_seek *at,
                     slog_item *out,
                     slog_search_cost *cost,
                     slog_error *err);
int api_index_top(slog_reader *r,
                  const slog_search_options *o,
                  slog_state *out,
                  uint32_t *count,
                  slog_search_cost *cost,
                  slog_error *err);

/* The composite query (api_index_query.c), run by slog_query_*. */
typedef struct api_ixq api_ixq;
int api_ixq_create(api_ixq **out, slog_reader *r, const slog_query_options *o, slog_error *err);
/* SLOG_OK (*item filled: global ids and times), SLOG_END or an error. */
int api_ixq_next(api_ixq *x, slog_item *item, slog_error *err);
void api_ixq_stats(const api_ixq *x, slog_query_stats *out);
void api_ixq_free(api_ixq *x);
/* Item src of input in as the index says it (api_index_remap.c): global
 * ids, offset times; a run's shares are copied into *shares (grown) with
 * global ids, ascending.  0, or -1 out of memory. */
int api_ixq_remap(const api_index *x,
                  const ix_input *in,
                  const slog_item *src,
                  slog_item *dst,
                  slog_run_share **shares,
                  size_t *cap);

#endif /* API_INDEX_H */
