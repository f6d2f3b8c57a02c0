/* SPDX-License-Identifier: MIT
 *
 * serve_api.c - routing of /api/ paths to endpoints and what they share
 * (serve_api.h): the file id, reader checkout, relative times and windows.
 * Times in the API are ticks relative to the file's origin (its start);
 * converting one to absolute ticks is checked for overflow, so no request
 * value reaches the library out of range.
 * Tools layer (slog-serve): public libslog headers and utils/common.
 */
#include "serve_api.h"

#include <string.h>

#include "serve_params.h"

typedef struct route {
    const char *path;
    serve_endpoint fn;
} route;

static const route routes[] = {
    {"/api/files", api_files},         {"/api/info", api_info},
    {"/api/timelines", api_timelines}, {"/api/categories", api_categories},
    {"/api/window", api_window_query}, {"/api/stats", api_stats},
    {"/api/find", api_find},           {"/api/top", api_top},
    {"/api/args", api_args},
};

void serve_api_handle(const serve_ctx *ctx, const serve_request *rq, serve_response *res)
{
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (strcmp(rq->path, routes[i].path) == 0) {
            (void)routes[i].fn(ctx, rq, res);
            return;
        }
    }
    (void)serve_error(res, SERVE_HTTP_NOT_FOUND, "unknown endpoint (see doc/VIEWER.md)");
}

int api_slog_error(serve_response *res, const char *what, int rc, const slog_error *err)
{
    const unsigned status = rc == SLOG_EIO ? SERVE_HTTP_BUSY : SERVE_HTTP_INTERNAL;
    return serve_error(res, status, "%s: %s (%s)", what,
                       err->message[0] != '\0' ? err->message : "unknown error",
                       slog_status_name(rc));
}

int api_checkout(const serve_ctx *ctx,
                 const serve_request *rq,
                 serve_response *res,
                 serve_lease *lease)
{
    uint64_t f;
    lease->r = NULL;
    if (param_uint64(rq, res, "f", (param_u64){.hi = UINT64_MAX, .required = true}, &f) != 0) {
        return -1;
    }
    const size_t n = serve_files_count(ctx->files);
    if (f >= n) {
        return serve_error(res, SERVE_HTTP_NOT_FOUND, "f: no file %llu (files are 0..%zu)",
                           (unsigned long long)f, n - 1);
    }
    slog_error err;
    memset(&err, 0, sizeof err);
    const int rc = serve_files_checkout(ctx->files, (size_t)f, lease, &err);
    if (rc != SLOG_OK) {
        lease->r = NULL;
        return serve_error(
            res, SERVE_HTTP_BUSY, "file %llu cannot be opened now: %s (%s)", (unsigned long long)f,
            err.message[0] != '\0' ? err.message : "unknown error", slog_status_name(rc));
    }
    return 0;
}

int api_with_lease(const serve_ctx *ctx,
                   const serve_request *rq,
                   serve_response *res,
                   serve_lease_fn fn)
{
    serve_lease lease;
    if (api_checkout(ctx, rq, res, &lease) != 0) {
        return -1;
    }
    const int rc = fn(ctx, rq, res, &lease);
    serve_files_checkin(ctx->files, &lease);
    return rc;
}

int api_time(const serve_request *rq,
             serve_response *res,
             const char *key,
             const int64_t *def,
             int64_t origin,
             int64_t *out)
{
    int64_t rel;
    const param_i64 spec = {INT64_MIN, INT64_MAX, def != NULL ? *def : 0, def == NULL};
    if (param_int64(rq, res, key, spec, &rel) != 0) {
        return -1;
    }
    if (__builtin_add_overflow(origin, rel, out)) {
        return serve_error(res, SERVE_HTTP_BAD_REQUEST,
                           "%s: %lld ticks from the file's start is beyond the end of time", key,
                           (long long)rel);
    }
    return 0;
}

int api_window(const serve_request *rq,
               serve_response *res,
               const serve_lease *lease,
               int64_t *t0,
               int64_t *t1)
{
    const slog_file_info *const fi = lease->fi;
    int64_t duration = 0;
    if (fi->start <= fi->end && __builtin_sub_overflow(fi->end, fi->start, &duration)) {
        duration = INT64_MAX;
    }
    /* the whole extent, inclusive of zero-length drawables at either end */
    const int64_t whole0 = lease->origin > INT64_MIN ? -1 : 0;
    const int64_t whole1 = duration < INT64_MAX && fi->end < INT64_MAX ? duration + 1 : duration;
    if (api_time(rq, res, "t0", &whole0, lease->origin, t0) != 0 ||
        api_time(rq, res, "t1", &whole1, lease->origin, t1) != 0) {
        return -1;
    }
    if (*t1 <= *t0) {
        return serve_error(res, SERVE_HTTP_BAD_REQUEST, "t1: must be greater than t0");
    }
    return 0;
}
