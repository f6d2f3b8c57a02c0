/* SPDX-License-Identifier: MIT
 *
 * serve.h - what the parts of slog-serve share: a request as the API sees it
 * (a path and a parameter getter; libmicrohttpd stays in serve_http.c), the
 * response an endpoint fills (status, content type, a malloc'd body) and the
 * server's context (the files, the limits).  serve_response.c implements the
 * response helpers: JSON bodies written through utils/common's json_writer
 * into memory, and error answers {"error": "..."}.
 * Tools layer (slog-serve): public libslog headers and utils/common.
 */
#ifndef SLOG_SERVE_H
#define SLOG_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json_out.h"

#define SERVE_HTTP_OK          200u
#define SERVE_HTTP_BAD_REQUEST 400u
#define SERVE_HTTP_FORBIDDEN   403u
#define SERVE_HTTP_NOT_FOUND   404u
#define SERVE_HTTP_NOT_ALLOWED 405u
#define SERVE_HTTP_TOO_LARGE   413u
#define SERVE_HTTP_INTERNAL    500u
#define SERVE_HTTP_BUSY        503u

/* Default and hard limits (command-line options may lower the item cap). */
#define SERVE_DEFAULT_MAX_ITEMS 250000u /* items of one window answer */
#define SERVE_MAX_PIXELS        100000u /* px of a window */
#define SERVE_MAX_TOP           1000u   /* n of /api/top */
#define SERVE_MAX_ARGS_SCAN     100000u /* drawables looked at to find one (args) */

typedef struct serve_files serve_files;

typedef struct serve_request {
    const char *path; /* URL path, decoded, without the query */
    /* Value of a query parameter, NULL when absent. */
    const char *(*get)(const struct serve_request *rq, const char *key);
    void *conn; /* for get */
} serve_request;

typedef struct serve_response {
    unsigned status;
    const char *content_type; /* static string */
    char *body;               /* malloc'd (free_body) or static */
    size_t len;
    bool free_body;
    bool cacheable;             /* static files: may be cached briefly */
    double query_ms, encode_ms; /* Server-Timing, when > 0 */
} serve_response;

typedef struct serve_ctx {
    serve_files *files;
    uint32_t max_items; /* cap of one window answer */
} serve_ctx;

/* A JSON body under construction (open_memstream). */
typedef struct serve_json {
    FILE *f;
    char *buf;
    size_t len;
    json_writer w;
} serve_json;

/* Start a JSON body; -1 when out of memory (res then holds a 500). */
int serve_json_open(serve_json *j, serve_response *res);
/* Finish it into res (200, application/json); -1 when out of memory (500). */
int serve_json_close(serve_json *j, serve_response *res);
/* Drop a body under construction (after an error was set in res). */
void serve_json_discard(serve_json *j);

/* Fill res with an error answer {"error": MESSAGE}; returns -1. */
int serve_error(serve_response *res, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Fill res with a static body. */
void serve_static_body(serve_response *res, const char *content_type, const void *data, size_t len);

/* Fill res with a 200 answer of len bytes of malloc'd data, which it then
 * owns (freed once sent). */
void serve_owned_body(serve_response *res, const char *content_type, void *data, size_t len);

/* Release a response's body. */
void serve_response_free(serve_response *res);

/* Milliseconds of a monotonic clock. */
double serve_now_ms(void);

#endif /* SLOG_SERVE_H */
