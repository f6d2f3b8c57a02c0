/* SPDX-License-Identifier: MIT
 *
 * serve_api_window.c - /api/window: the items of one slog_query over
 * [t0, t1) at resolution ceil((t1 - t0) / px), filtered by rows, cats and
 * kinds, read in batches into columns and encoded as binary (default) or
 * JSON.  The answer is bounded: at most `max` items (itself at most the
 * server's cap) are kept; when the query has more, the first `max` are
 * sent and the answer says it was cut.  Reading stops there, so a
 * full-detail window over a huge file costs no more than the cap.  With
 * held=1 the counter samples in force at t0 come after the items (one per
 * counter track asked for, beyond the cap; serve_api_held.c).
 * Tools layer (slog-serve): public libslog headers and utils/common.
 */
#include <stdlib.h>
#include <string.h>

#include "serve_api.h"
#include "serve_api_held.h"
#include "serve_encode.h"
#include "serve_params.h"

typedef struct window_req {
    slog_query_options q;
    uint32_t *rows, *cats;
    uint64_t px, max;
    uint64_t held; /* 1: the counter values in force at t0 too (serve_api_held.c) */
    size_t enc; /* ENC_* */
} window_req;

enum {
    ENC_BIN = 0,
    ENC_JSON = 1,
    ENC_PACKED = 2
};

/* ceil(span / px), at least one tick. */
static int64_t resolution_of(int64_t t0, int64_t t1, uint64_t px)
{
    if (px == 0) {
        return 0;
    }
    const uint64_t span = (uint64_t)t1 - (uint64_t)t0;
    const uint64_t res = span / px + (span % px != 0);
    return res == 0 ? 1 : res > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)res;
}

static int parse_window_req(const serve_ctx *ctx,
                            const serve_request *rq,
                            serve_response *res,
                            const serve_lease *lease,
                            window_req *w)
{
    static const char *const encs[] = {"bin", "json", "packed", NULL};
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    const param_u64 max = {.lo = 1, .hi = ctx->max_items, .def = ctx->max_items};
    if (api_window(rq, res, lease, &q.t0, &q.t1) != 0 ||
        param_uint64(rq, res, "px", (param_u64){.hi = SERVE_MAX_PIXELS}, &w->px) != 0 ||
        param_ids(rq, res, "rows", lease->fi->timelines, &w->rows, &q.ntimelines) != 0 ||
        param_ids(rq, res, "cats", lease->fi->categories, &w->cats, &q.ncategories) != 0 ||
        param_kinds(rq, res, "kinds", SLOG_KINDS_ALL, &q.kinds) != 0 ||
        param_choice(rq, res, "enc", encs, ENC_BIN, &w->enc) != 0 ||
        param_uint64(rq, res, "max", max, &w->max) != 0 ||
        param_uint64(rq, res, "held", (param_u64){.hi = 1}, &w->held) != 0) {
        return -1;
    }
    q.timelines = w->rows;
    q.categories = w->cats;
    q.resolution = resolution_of(q.t0, q.t1, w->px);
    w->q = q;
    return 0;
}

/* Read up to limit items of q into c. */
static int collect(slog_query *q, serve_columns *c, size_t limit, slog_error *err)
{
    while (c->n < limit) {
        const size_t want = c->n + 4096 < limit ? c->n + 4096 : limit;
        if (serve_columns_reserve(c, want) != 0) {
            return SLOG_ENOMEM;
        }
        const size_t room = (c->b.capacity < limit ? c->b.capacity : limit) - c->n;
        slog_batch view = {room,
                           c->b.kind + c->n,
                           c->b.of + c->n,
                           c->b.timeline + c->n,
                           c->b.timeline_to + c->n,
                           c->b.category + c->n,
                           c->b.start + c->n,
                           c->b.end + c->n,
                           c->b.depth + c->n,
                           c->b.count + c->n,
                           c->b.inclusive + c->n,
                           c->b.value + c->n};
        size_t got = 0;
        const int rc = slog_query_next_batch(q, &view, &got, err);
        c->n += got;
        if (rc == SLOG_END) {
            return SLOG_OK;
        }
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    return SLOG_OK;
}

static void cost_json(json_writer *w, const slog_query *q, double ms)
{
    slog_query_stats st;
    slog_query_stats_get(q, &st);
    json_key(w, "cost");
    json_begin_object(w);
    json_kv_uint(w, "nodes_visited", st.nodes_visited);
    json_kv_uint(w, "nodes_read", st.nodes_read);
    json_kv_uint(w, "cache_hits", st.cache_hits);
    json_kv_uint(w, "bytes_read", st.bytes_read);
    json_kv_uint(w, "bytes_decoded", st.bytes_decoded);
    json_kv_double(w, "ms", ms);
    json_end_object(w);
}

static int encode_json(const serve_columns *c,
                       const serve_window_meta *m,
                       const slog_query *q,
                       double query_ms,
                       serve_response *res)
{
    serve_json j;
    if (serve_json_open(&j, res) != 0) {
        return -1;
    }
    json_begin_object(&j.w);
    json_kv_int(&j.w, "t0", m->t0);
    json_kv_int(&j.w, "t1", m->t1);
    json_kv_int(&j.w, "resolution", m->resolution);
    json_kv_bool(&j.w, "cut", m->cut);
    json_kv_bool(&j.w, "complete", !m->incomplete);
    json_kv_uint(&j.w, "n", c->n);
    json_key(&j.w, "items");
    serve_encode_window_json(&j.w, c, m->origin);
    cost_json(&j.w, q, query_ms);
    json_end_object(&j.w);
    return serve_json_close(&j, res);
}

/* Run the query and encode its answer. */
static int answer(const window_req *w, const serve_lease *lease, serve_response *res)
{
    slog_query *q = NULL;
    slog_error err;
    memset(&err, 0, sizeof err);
    serve_columns c;
    memset(&c, 0, sizeof c);
    const double t_start = serve_now_ms();
    int rc = slog_query_create(&q, lease->r, &w->q, &err);
    if (rc == SLOG_OK) {
        rc = collect(q, &c, (size_t)w->max + 1, &err);
    }
    if (rc != SLOG_OK) {
        slog_query_destroy(q);
        serve_columns_free(&c);
        return api_slog_error(res, "Cannot read the window", rc, &err);
    }
    const serve_window_meta m = {w->q.t0 - lease->origin,
                                 w->q.t1 - lease->origin,
                                 w->q.resolution,
                                 lease->origin,
                                 c.n > w->max,
                                 !lease->fi->complete};
    c.n = c.n > w->max ? (size_t)w->max : c.n;
    if (w->held) {
        rc = serve_held_counters(lease, &w->q, &c, &err);
    }
    if (rc != SLOG_OK) {
        slog_query_destroy(q);
        serve_columns_free(&c);
        return api_slog_error(res, "Cannot find the counter values in force", rc, &err);
    }
    const double t_encode = serve_now_ms();
    rc = w->enc == ENC_JSON     ? encode_json(&c, &m, q, t_encode - t_start, res)
         : w->enc == ENC_PACKED ? serve_encode_window_packed(&c, &m, res)
                                : serve_encode_window_bin(&c, &m, res);
    res->query_ms = t_encode - t_start;
    res->encode_ms = serve_now_ms() - t_encode;
    slog_query_destroy(q);
    serve_columns_free(&c);
    return rc;
}

static int window_run(const serve_ctx *ctx,
                      const serve_request *rq,
                      serve_response *res,
                      const serve_lease *lease)
{
    window_req w;
    memset(&w, 0, sizeof w);
    int rc = parse_window_req(ctx, rq, res, lease, &w);
    if (rc == 0) {
        rc = answer(&w, lease, res);
    }
    free(w.rows);
    free(w.cats);
    return rc;
}

int api_window_query(const serve_ctx *ctx, const serve_request *rq, serve_response *res)
{
    return api_with_lease(ctx, rq, res, window_run);
}
