/* SPDX-License-Identifier: MIT
 *
 * serve_api_analysis.c - the analysis endpoints: /api/stats (exact window
 * statistics, slog_stats_compute), /api/find (the next or previous drawable
 * of a category, slog_search_next/prev) and /api/top (the longest states of
 * a window, slog_search_top).  Their answers are exact and small (rows per
 * group, one item, at most SERVE_MAX_TOP items), and their cost is bounded
 * by the library (previews answer whole subtrees).
 * Tools layer (slog-serve): public libslog headers and utils/common.
 */
#include <stdlib.h>
#include <string.h>

#include "serve_api.h"
#include "serve_encode.h"
#include "serve_params.h"

/* Filters shared by the three endpoints. */
typedef struct analysis_req {
    int64_t t0, t1;
    uint32_t *rows, *cats;
    uint32_t nrows, ncats;
    uint32_t kinds;
} analysis_req;

static int parse_filters(const serve_request *rq,
                         serve_response *res,
                         const serve_lease *lease,
                         const char *cats_key,
                         analysis_req *a)
{
    return param_ids(rq, res, "rows", lease->fi->timelines, &a->rows, &a->nrows) != 0 ||
                   param_ids(rq, res, cats_key, lease->fi->categories, &a->cats, &a->ncats) != 0 ||
                   param_kinds(rq, res, "kinds", 0xfu, &a->kinds) != 0
               ? -1
               : 0;
}

static void free_filters(analysis_req *a)
{
    free(a->rows);
    free(a->cats);
}

static void id_or_null(json_writer *w, const char *key, uint32_t id)
{
    json_key(w, key);
    if (id == SLOG_STATS_ANY) {
        json_null(w);
    } else {
        json_uint(w, id);
    }
}

/* The time fields of a row the library does not time: null, so no client
 * takes a 0 for a measured duration. */
static void untimed_fields(json_writer *w)
{
    static const char *const keys[] = {"inclusive", "exclusive", "min", "max", "mean"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_key(w, keys[i]);
        json_null(w);
    }
}

static void stats_row(json_writer *w, const slog_stats_row *r)
{
    json_begin_object(w);
    json_kv_string(w, "kind", param_kind_name((unsigned)r->kind));
    id_or_null(w, "timeline", r->timeline);
    id_or_null(w, "category", r->category);
    json_kv_uint(w, "count", r->count);
    if (r->kind == SLOG_KIND_ARROW) {
        untimed_fields(w); /* the library counts arrows, it does not time them */
    } else if (r->kind == SLOG_KIND_STATE) {
        json_kv_int(w, "inclusive", r->inclusive);
        json_kv_int(w, "exclusive", r->exclusive);
        json_kv_int(w, "min", r->min);
        json_kv_int(w, "max", r->max);
        json_kv_double(w, "mean", r->mean);
    } else if (r->kind == SLOG_KIND_COUNTER) {
        json_kv_double(w, "vmin", r->vmin);
        json_kv_double(w, "vmax", r->vmax);
        json_kv_double(w, "vsum", r->vsum);
        json_kv_double(w, "mean", r->mean);
    }
    json_end_object(w);
}

static void stats_cost(json_writer *w, const slog_stats *s, double ms)
{
    slog_stats_cost k;
    slog_stats_cost_get(s, &k);
    json_key(w, "cost");
    json_begin_object(w);
    json_kv_uint(w, "nodes_visited", k.nodes_visited);
    json_kv_uint(w, "previews_used", k.previews_used);
    json_kv_uint(w, "nodes_decoded", k.nodes_decoded);
    json_kv_uint(w, "bytes_read", k.bytes_read);
    json_kv_uint(w, "cache_hits", k.cache_hits);
    json_kv_bool(w, "exact_fallback", k.exact_fallback != 0);
    json_kv_double(w, "ms", ms);
    json_end_object(w);
}

static int
stats_answer(const serve_lease *lease, const analysis_req *a, uint32_t by, serve_response *res)
{
    slog_stats_options o = SLOG_STATS_OPTIONS_INIT;
    o.by = by;
    o.t0 = a->t0;
    o.t1 = a->t1;
    o.kinds = a->kinds;
    o.timelines = a->rows;
    o.ntimelines = a->nrows;
    o.categories = a->cats;
    o.ncategories = a->ncats;
    slog_stats *s = NULL;
    slog_error err;
    memset(&err, 0, sizeof err);
    const double t = serve_now_ms();
    const int rc = slog_stats_compute(&s, lease->r, &o, &err);
    if (rc != SLOG_OK) {
        return api_slog_error(res, "Cannot compute statistics", rc, &err);
    }
    res->query_ms = serve_now_ms() - t;
    size_t n = 0;
    const slog_stats_row *const rows = slog_stats_rows(s, &n);
    serve_json j;
    int out = serve_json_open(&j, res);
    if (out == 0) {
        json_begin_object(&j.w);
        json_key(&j.w, "rows");
        json_begin_array(&j.w);
        for (size_t i = 0; i < n; i++) {
            stats_row(&j.w, &rows[i]);
        }
        json_end_array(&j.w);
        json_kv_bool(&j.w, "exact", true);
        stats_cost(&j.w, s, res->query_ms);
        json_end_object(&j.w);
        out = serve_json_close(&j, res);
    }
    slog_stats_destroy(s);
    return out;
}

static int stats_run(const serve_ctx *ctx,
                     const serve_request *rq,
                     serve_response *res,
                     const serve_lease *lease)
{
    (void)ctx;
    static const char *const bys[] = {"category", "timeline", "both", NULL};
    static const uint32_t by_flags[] = {SLOG_STATS_BY_CATEGORY, SLOG_STATS_BY_TIMELINE,
                                        SLOG_STATS_BY_BOTH};
    analysis_req a;
    memset(&a, 0, sizeof a);
    size_t by = 0;
    int rc = api_window(rq, res, lease, &a.t0, &a.t1) != 0 ||
                     parse_filters(rq, res, lease, "cats", &a) != 0 ||
                     param_choice(rq, res, "by", bys, 0, &by) != 0
                 ? -1
                 : 0;
    if (rc == 0) {
        rc = stats_answer(lease, &a, by_flags[by], res);
    }
    free_filters(&a);
    return rc;
}

int api_stats(const serve_ctx *ctx, const serve_request *rq, serve_response *res)
{
    return api_with_lease(ctx, rq, res, stats_run);
}

static void search_options(const analysis_req *a, slog_search_options *o)
{
    *o = (slog_search_options)SLOG_SEARCH_OPTIONS_INIT;
    o->kinds = a->kinds;
    o->t0 = a->t0;
    o->t1 = a->t1;
    o->timelines = a->rows;
    o->ntimelines = a->nrows;
    o->categories = a->cats;
    o->ncategories = a->ncats;
}

static void search_cost(json_writer *w, const slog_search_cost *k, double ms)
{
    json_key(w, "cost");
    json_begin_object(w);
    json_kv_uint(w, "nodes_visited", k->nodes_visited);
    json_kv_uint(w, "previews_read", k->previews_read);
    json_kv_uint(w, "nodes_decoded", k->nodes_decoded);
    json_kv_uint(w, "bytes_read", k->bytes_read);
    json_kv_uint(w, "cache_hits", k->cache_hits);
    json_kv_double(w, "ms", ms);
    json_end_object(w);
}

/* after or before: exactly one, as absolute ticks; *forward says which. */
static int parse_at(const serve_request *rq,
                    serve_response *res,
                    const serve_lease *lease,
                    int64_t *at,
                    bool *forward)
{
    const bool after = rq->get(rq, "after") != NULL;
    const bool before = rq->get(rq, "before") != NULL;
    if (after == before) {
        return serve_error(res, SERVE_HTTP_BAD_REQUEST,
                           "after, before: give exactly one of them (relative ticks)");
    }
    *forward = after;
    return api_time(rq, res, after ? "after" : "before", NULL, lease->origin, at);
}

static int find_answer(
    const serve_lease *lease, const analysis_req *a, int64_t at, bool forward, serve_response *res)
{
    slog_search_options o;
    search_options(a, &o);
    slog_item it;
    slog_search_cost cost;
    memset(&cost, 0, sizeof cost);
    slog_error err;
    memset(&err, 0, sizeof err);
    const double t = serve_now_ms();
    const int rc = forward ? slog_search_next(lease->r, &o, at, &it, &cost, &err)
                           : slog_search_prev(lease->r, &o, at, &it, &cost, &err);
    if (rc != SLOG_OK && rc != SLOG_END) {
        return api_slog_error(res, "Cannot search", rc, &err);
    }
    res->query_ms = serve_now_ms() - t;
    serve_json j;
    if (serve_json_open(&j, res) != 0) {
        return -1;
    }
    json_begin_object(&j.w);
    json_kv_bool(&j.w, "found", rc == SLOG_OK);
    if (rc == SLOG_OK) {
        json_key(&j.w, "item");
        serve_encode_item_json(&j.w, &it, lease->origin);
    }
    search_cost(&j.w, &cost, res->query_ms);
    json_end_object(&j.w);
    return serve_json_close(&j, res);
}

static int find_run(const serve_ctx *ctx,
                    const serve_request *rq,
                    serve_response *res,
                    const serve_lease *lease)
{
    (void)ctx;
    analysis_req a;
    memset(&a, 0, sizeof a);
    int64_t at = 0;
    bool forward = true;
    int rc = parse_filters(rq, res, lease, "cat", &a) != 0 ||
                     parse_at(rq, res, lease, &at, &forward) != 0
                 ? -1
                 : 0;
    if (rc == 0 && rq->get(rq, "cat") == NULL) {
        rc = serve_error(res, SERVE_HTTP_BAD_REQUEST, "cat: missing (a category id)");
    }
    if (rc == 0) {
        rc = find_answer(lease, &a, at, forward, res);
    }
    free_filters(&a);
    return rc;
}

int api_find(const serve_ctx *ctx, const serve_request *rq, serve_response *res)
{
    return api_with_lease(ctx, rq, res, find_run);
}

static int
top_answer(const serve_lease *lease, const analysis_req *a, uint32_t n, serve_response *res)
{
    slog_search_options o;
    search_options(a, &o);
    slog_state *const states = calloc(n, sizeof *states);
    if (states == NULL) {
        return serve_error(res, SERVE_HTTP_INTERNAL, "out of memory");
    }
    uint32_t count = n;
    slog_search_cost cost;
    memset(&cost, 0, sizeof cost);
    slog_error err;
    memset(&err, 0, sizeof err);
    const double t = serve_now_ms();
    int rc = slog_search_top(lease->r, &o, states, &count, &cost, &err);
    if (rc != SLOG_OK) {
        free(states);
        return api_slog_error(res, "Cannot search", rc, &err);
    }
    res->query_ms = serve_now_ms() - t;
    serve_json j;
    rc = serve_json_open(&j, res);
    if (rc == 0) {
        json_begin_object(&j.w);
        json_key(&j.w, "items");
        json_begin_array(&j.w);
        for (uint32_t i = 0; i < count; i++) {
            const slog_item it = {.kind = SLOG_KIND_STATE, .u.state = states[i]};
            serve_encode_item_json(&j.w, &it, lease->origin);
        }
        json_end_array(&j.w);
        search_cost(&j.w, &cost, res->query_ms);
        json_end_object(&j.w);
        rc = serve_json_close(&j, res);
    }
    free(states);
    return rc;
}

static int top_run(const serve_ctx *ctx,
                   const serve_request *rq,
                   serve_response *res,
                   const serve_lease *lease)
{
    (void)ctx;
    analysis_req a;
    memset(&a, 0, sizeof a);
    uint64_t n = 0;
    int rc = api_window(rq, res, lease, &a.t0, &a.t1) != 0 ||
                     parse_filters(rq, res, lease, "cat", &a) != 0 ||
                     param_uint64(rq, res, "n", (param_u64){.lo = 1, .hi = SERVE_MAX_TOP, .def = 10}, &n) != 0
                 ? -1
                 : 0;
    if (rc == 0) {
        a.kinds = 1u << SLOG_KIND_STATE;
        rc = top_answer(lease, &a, (uint32_t)n, res);
    }
    free_filters(&a);
    return rc;
}

int api_top(const serve_ctx *ctx, const serve_request *rq, serve_response *res)
{
    return api_with_lease(ctx, rq, res, top_run);
}
