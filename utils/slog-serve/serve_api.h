/* SPDX-License-Identifier: MIT
 *
 * serve_api.h - the read-only HTTP API of slog-serve (doc/VIEWER.md): a
 * table from path to endpoint, and what the endpoints share (the file id
 * parameter, checking a reader out, reporting a library error).  Each
 * serve_api_*.c file owns a group of endpoints.
 * Tools layer (slog-serve): public libslog headers and utils/common.
 */
#ifndef SLOG_SERVE_API_H
#define SLOG_SERVE_API_H

#include <slog/slog.h>

#include "serve.h"
#include "serve_files.h"

typedef int (*serve_endpoint)(const serve_ctx *ctx, const serve_request *rq, serve_response *res);

/* Answer an /api/ request into res (an unknown endpoint is a 404). */
void serve_api_handle(const serve_ctx *ctx, const serve_request *rq, serve_response *res);

/* Parameter f (a file id) checked against the files, then a reader checked
 * out; 0, or -1 with res filled (400 malformed, 404 unknown id, 503 when
 * the file cannot be opened now). */
int api_checkout(const serve_ctx *ctx,
                 const serve_request *rq,
                 serve_response *res,
                 serve_lease *lease);

/* What an endpoint does with a checked-out reader. */
typedef int (*serve_lease_fn)(const serve_ctx *ctx,
                              const serve_request *rq,
                              serve_response *res,
                              const serve_lease *lease);

/* api_checkout, fn, check in: the frame of every endpoint that reads file f. */
int api_with_lease(const serve_ctx *ctx,
                   const serve_request *rq,
                   serve_response *res,
                   serve_lease_fn fn);

/* res <- a 500 (503 for SLOG_EIO) naming what failed; returns -1. */
int api_slog_error(serve_response *res, const char *what, int rc, const slog_error *err);

/* A relative time parameter as absolute ticks: key relative (default *def;
 * def NULL: the parameter is required), origin added without overflow. */
int api_time(const serve_request *rq,
             serve_response *res,
             const char *key,
             const int64_t *def,
             int64_t origin,
             int64_t *out);

/* The window [t0, t1) of parameters t0 and t1 (absent: the file's whole
 * extent), as absolute ticks; t1 > t0 checked. */
int api_window(const serve_request *rq,
               serve_response *res,
               const serve_lease *lease,
               int64_t *t0,
               int64_t *t1);

/* The endpoints. */
int api_files(const serve_ctx *ctx, const serve_request *rq, serve_response *res);
int api_info(const serve_ctx *ctx, const serve_request *rq, serve_response *res);
int api_timelines(const serve_ctx *ctx, const serve_request *rq, serve_response *res);
int api_categories(const serve_ctx *ctx, const serve_request *rq, serve_response *res);
int api_window_query(const serve_ctx *ctx, const serve_request *rq, serve_response *res);
int api_stats(const serve_ctx *ctx, const serve_request *rq, serve_response *res);
int api_find(const serve_ctx *ctx, const serve_request *rq, serve_response *res);
int api_top(const serve_ctx *ctx, const serve_request *rq, serve_response *res);
int api_args(const serve_ctx *ctx, const serve_request *rq, serve_response *res);

#endif /* SLOG_SERVE_API_H */
