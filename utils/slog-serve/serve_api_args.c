/* SPDX-License-Identifier: MIT
 *
 * serve_api_args.c - /api/args: the args of one drawable, asked for on a
 * click.  Drawing never decodes args (format 2 stores them apart), so the
 * click names the drawable by what the viewer drew (kind, timeline,
 * category, start, end, depth) and the server runs the tiny full-detail
 * query [start, start + 1) on that timeline and category with
 * SLOG_QUERY_ARGS: every drawable starting at `start` overlaps it, and the
 * one whose fields all match is the answer (404 when none does).  At most
 * SERVE_MAX_ARGS_SCAN drawables are looked at.
 * Tools layer (slog-serve): public libslog headers and utils/common.
 */
#include <string.h>

#include "serve_api.h"
#include "serve_encode.h"
#include "serve_params.h"

typedef struct args_req {
    unsigned kind; /* state, event, arrow or counter */
    uint32_t timeline, category, depth;
    int64_t start, end; /* absolute ticks */
} args_req;

static int
parse_args_req(const serve_request *rq, serve_response *res, const serve_lease *lease, args_req *a)
{
    static const char *const kinds[] = {"state", "event", "arrow", "counter", NULL};
    const slog_file_info *const fi = lease->fi;
    size_t kind = 0;
    uint64_t tl = 0, cat = 0, depth = 0;
    const param_u64 tls = {.hi = fi->timelines > 0 ? fi->timelines - 1 : 0, .required = true};
    const param_u64 cats = {.hi = fi->categories > 0 ? fi->categories - 1 : 0, .required = true};
    if (param_choice(rq, res, "kind", kinds, 0, &kind) != 0 ||
        param_uint64(rq, res, "timeline", tls, &tl) != 0 ||
        param_uint64(rq, res, "category", cats, &cat) != 0 ||
        param_uint64(rq, res, "depth", (param_u64){.hi = UINT32_MAX}, &depth) != 0 ||
        api_time(rq, res, "start", NULL, lease->origin, &a->start) != 0) {
        return -1;
    }
    const int64_t rel_start = a->start - lease->origin;
    if (api_time(rq, res, "end", &rel_start, lease->origin, &a->end) != 0) {
        return -1;
    }
    if (fi->timelines == 0 || fi->categories == 0 || a->start == INT64_MAX) {
        return serve_error(res, SERVE_HTTP_NOT_FOUND, "no such drawable");
    }
    a->kind = (unsigned)kind;
    a->timeline = (uint32_t)tl;
    a->category = (uint32_t)cat;
    a->depth = (uint32_t)depth;
    return 0;
}

static bool matches(const args_req *a, const slog_item *it)
{
    switch (it->kind) {
    case SLOG_KIND_STATE: {
        const slog_state *const s = &it->u.state;
        return s->timeline == a->timeline && s->category == a->category && s->start == a->start &&
               s->end == a->end && s->depth == a->depth;
    }
    case SLOG_KIND_EVENT:
        return it->u.event.timeline == a->timeline && it->u.event.category == a->category &&
               it->u.event.time == a->start;
    case SLOG_KIND_ARROW:
        return it->u.arrow.from == a->timeline && it->u.arrow.category == a->category &&
               it->u.arrow.start == a->start && it->u.arrow.end == a->end;
    case SLOG_KIND_COUNTER:
        return it->u.counter.timeline == a->timeline && it->u.counter.category == a->category &&
               it->u.counter.time == a->start;
    default:
        return false;
    }
}

static int found_answer(const slog_item *it, int64_t origin, serve_response *res)
{
    const slog_arg *args = NULL;
    uint32_t nargs = 0;
    if (it->kind == SLOG_KIND_STATE) {
        args = it->u.state.args;
        nargs = it->u.state.nargs;
    } else if (it->kind == SLOG_KIND_EVENT) {
        args = it->u.event.args;
        nargs = it->u.event.nargs;
    } else if (it->kind == SLOG_KIND_ARROW) {
        args = it->u.arrow.args;
        nargs = it->u.arrow.nargs;
    }
    serve_json j;
    if (serve_json_open(&j, res) != 0) {
        return -1;
    }
    json_begin_object(&j.w);
    json_key(&j.w, "args");
    serve_encode_args_json(&j.w, args, nargs);
    json_key(&j.w, "item");
    serve_encode_item_json(&j.w, it, origin);
    json_end_object(&j.w);
    return serve_json_close(&j, res);
}

/* Run the tiny query and answer with the first matching drawable. */
static int args_answer(const serve_lease *lease, const args_req *a, serve_response *res)
{
    slog_query_options o = SLOG_QUERY_OPTIONS_INIT;
    o.kinds = 1u << a->kind;
    o.t0 = a->start;
    o.t1 = a->start + 1;
    o.timelines = &a->timeline;
    o.ntimelines = 1;
    o.categories = &a->category;
    o.ncategories = 1;
    o.flags = SLOG_QUERY_ARGS;
    slog_query *q = NULL;
    slog_error err;
    memset(&err, 0, sizeof err);
    int rc = slog_query_create(&q, lease->r, &o, &err);
    const slog_item *it = NULL;
    for (uint32_t seen = 0; rc == SLOG_OK && seen < SERVE_MAX_ARGS_SCAN; seen++) {
        rc = slog_query_next(q, &it, &err);
        if (rc == SLOG_OK && matches(a, it)) {
            rc = found_answer(it, lease->origin, res);
            slog_query_destroy(q);
            return rc;
        }
    }
    slog_query_destroy(q);
    if (rc != SLOG_OK && rc != SLOG_END) {
        return api_slog_error(res, "Cannot read the drawable", rc, &err);
    }
    return serve_error(res, SERVE_HTTP_NOT_FOUND, "no such drawable");
}

static int args_run(const serve_ctx *ctx,
                    const serve_request *rq,
                    serve_response *res,
                    const serve_lease *lease)
{
    (void)ctx;
    args_req a;
    memset(&a, 0, sizeof a);
    int rc = parse_args_req(rq, res, lease, &a);
    if (rc == 0) {
        rc = args_answer(lease, &a, res);
    }
    return rc;
}

int api_args(const serve_ctx *ctx, const serve_request *rq, serve_response *res)
{
    return api_with_lease(ctx, rq, res, args_run);
}
