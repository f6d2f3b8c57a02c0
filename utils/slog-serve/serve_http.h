/* SPDX-License-Identifier: MIT
 *
 * serve_http.h - slog-serve's HTTP side (libmicrohttpd): a daemon with a
 * pool of worker threads that answers GET and HEAD only, checks the request
 * (no body, bounded headers and parameters, a loopback Host when bound to
 * loopback), then hands /api/ paths to serve_api.c and every other path to
 * the embedded static files.
 * Tools layer (slog-serve): libmicrohttpd, libc, serve.h.
 */
#ifndef SLOG_SERVE_HTTP_H
#define SLOG_SERVE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "serve.h"

typedef struct serve_http_options {
    const char *bind;   /* numeric IPv4 or IPv6 address */
    uint16_t port;      /* 0: any free port */
    uint32_t threads;   /* worker threads */
    unsigned timeout_s; /* an idle or slow connection is closed after it */
} serve_http_options;

typedef struct serve_http serve_http;

/* Start listening; 0, or -1 with the reason in why. */
int serve_http_start(
    serve_http **out, const serve_ctx *ctx, const serve_http_options *o, char *why, size_t why_len);

/* The port listened on. */
uint16_t serve_http_port(const serve_http *h);

/* True when the address is a loopback one (127.0.0.0/8, ::1). */
int serve_http_is_loopback(const char *bind);

/* Stop (waits for the requests in progress) and release; NULL does nothing. */
void serve_http_stop(serve_http *h);

#endif /* SLOG_SERVE_HTTP_H */
