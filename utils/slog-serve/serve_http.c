/* SPDX-License-Identifier: MIT
 *
 * serve_http.c - libmicrohttpd glue (serve_http.h).  The daemon runs a pool
 * of worker threads (each request is answered in the thread that read it;
 * the reader pools of serve_files.c make that safe).  Limits are set where
 * libmicrohttpd enforces them: a connection's memory (so an over-long URL
 * or header is answered 414/431 before it reaches us), a connection count
 * and an idle timeout (so slow or partial requests cannot hold a worker).
 * Before a request reaches an endpoint it must be GET or HEAD without a
 * body, carry at most SERVE_MAX_PARAMS parameters, none twice and none with
 * a NUL byte, and, on a loopback address, name a loopback Host (a web page
 * that rebinds its DNS name to 127.0.0.1 cannot read the traces).
 * Tools layer (slog-serve): libmicrohttpd, libc, serve.h.
 */
#include "serve_http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_api.h"
#include "serve_request.h"
#include "serve_static.h"

#define SERVE_CONN_MEMORY (64u * 1024u)
#define SERVE_CONN_LIMIT  256u

struct serve_http {
    struct MHD_Daemon *daemon;
    const serve_ctx *ctx;
    char bind[64];
    int loopback;
    uint16_t port;
};

/* Markers kept in a request's state between libmicrohttpd's calls: a new
 * request (NULL, or raw_nul when its raw URL holds "%00"), headers checked,
 * an unannounced body seen. */
static int raw_nul, headers_seen, body_seen;

/* Called with the raw URL before libmicrohttpd decodes it (a decoded path
 * ends at a NUL, so "/index.html%00.js" would look like "/index.html"); the
 * result is the request's first state. */
static void *on_raw_url(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    (void)conn;
    return serve_raw_url_has_nul(uri) ? &raw_nul : NULL;
}

int serve_http_is_loopback(const char *bind)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, bind, &a4) == 1) {
        return (ntohl(a4.s_addr) >> 24) == 127;
    }
    return inet_pton(AF_INET6, bind, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

/* The Host header without its port is one of the loopback names. */
static int host_allowed(const serve_http *h, struct MHD_Connection *conn)
{
    return serve_host_allowed(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host"), h->bind,
                              h->loopback != 0);
}

typedef struct param_check {
    serve_param_check seen;
    const char *problem;
} param_check;

static enum MHD_Result check_param(void *cls,
                                   enum MHD_ValueKind kind,
                                   const char *key,
                                   size_t key_size,
                                   const char *value,
                                   size_t value_size)
{
    (void)kind;
    param_check *const pc = cls;
    pc->problem = serve_param_check_add(&pc->seen, key, key_size, value, value_size);
    return pc->problem == NULL ? MHD_YES : MHD_NO;
}

static const char *get_param(const serve_request *rq, const char *key)
{
    const char *const v = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, key);
    if (v == NULL) {
        /* "?key" without '=' is present with no value: treat it as empty */
        const int present = MHD_lookup_connection_value_n(rq->conn, MHD_GET_ARGUMENT_KIND, key,
                                                          strlen(key), NULL, NULL) == MHD_YES;
        return present ? "" : NULL;
    }
    return v;
}

static void add_headers(struct MHD_Response *r, const serve_response *res)
{
    char timing[96];
    (void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, res->content_type);
    (void)MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
                                  res->cacheable ? "no-cache" : "no-store");
    (void)MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    (void)MHD_add_response_header(r, "X-Frame-Options", "DENY");
    (void)MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    if (res->status == SERVE_HTTP_NOT_ALLOWED) {
        (void)MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    }
    if (res->query_ms > 0 || res->encode_ms > 0) {
        (void)snprintf(timing, sizeof timing, "query;dur=%.3f, encode;dur=%.3f", res->query_ms,
                       res->encode_ms);
        (void)MHD_add_response_header(r, "Server-Timing", timing);
    }
}

/* Queue res on the connection (its body is handed over). */
static enum MHD_Result send_response(struct MHD_Connection *conn, serve_response *res)
{
    struct MHD_Response *r =
        res->free_body
            ? MHD_create_response_from_buffer_with_free_callback(res->len, res->body, free)
            : MHD_create_response_from_buffer(res->len, res->body, MHD_RESPMEM_PERSISTENT);
    if (r == NULL) {
        serve_response_free(res);
        return MHD_NO;
    }
    res->free_body = false; /* the response owns it now */
    add_headers(r, res);
    const enum MHD_Result ok = MHD_queue_response(conn, res->status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result send_error(struct MHD_Connection *conn, unsigned status, const char *msg)
{
    serve_response res = {0};
    (void)serve_error(&res, status, "%s", msg);
    return send_response(conn, &res);
}

static void answer_static(const char *url, serve_response *res)
{
    const serve_asset *const a = serve_static_find(url);
    if (a == NULL) {
        (void)serve_error(res, SERVE_HTTP_NOT_FOUND, "no such page");
        return;
    }
    res->status = SERVE_HTTP_OK;
    serve_static_body(res, a->content_type, a->data, a->len);
    res->cacheable = true;
}

static enum MHD_Result
answer(serve_http *h, struct MHD_Connection *conn, const char *url, const char *version)
{
    if (strcmp(version, MHD_HTTP_VERSION_1_0) != 0 &&
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST) == NULL) {
        return send_error(conn, SERVE_HTTP_BAD_REQUEST, "Host: missing (HTTP/1.1 needs it)");
    }
    param_check pc = {.seen = {.n = 0}, .problem = NULL};
    (void)MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND, check_param, &pc);
    if (pc.problem != NULL) {
        return send_error(conn, SERVE_HTTP_BAD_REQUEST, pc.problem);
    }
    if (!host_allowed(h, conn)) {
        return send_error(conn, SERVE_HTTP_FORBIDDEN,
                          "Host: this server answers only to a loopback host name");
    }
    serve_response res = {0};
    if (strncmp(url, "/api/", 5) == 0) {
        const serve_request rq = {url, get_param, conn};
        serve_api_handle(h->ctx, &rq, &res);
    } else {
        answer_static(url, &res);
    }
    return send_response(conn, &res);
}

/* A request body is announced by Content-Length (non-zero) or chunking. */
static int has_body(struct MHD_Connection *conn)
{
    const char *const len =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    const char *const te =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
    return te != NULL || (len != NULL && strspn(len, "0") != strlen(len));
}

// NOLINTNEXTLINE(readability-function-size): MHD_AccessHandlerCallback's parameters
static enum MHD_Result on_request(void *cls,
                                  struct MHD_Connection *conn,
                                  const char *url,
                                  const char *method,
                                  const char *version,
                                  const char *upload_data,
                                  size_t *upload_size,
                                  void **state)
{
    (void)upload_data;
    if (*state == NULL || *state == &raw_nul) {
        const bool nul = *state == &raw_nul;
        *state = &headers_seen;
        if (nul) {
            return send_error(conn, SERVE_HTTP_BAD_REQUEST, "the URL contains %00");
        }
        if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
            return send_error(conn, SERVE_HTTP_NOT_ALLOWED, "only GET and HEAD are served");
        }
        if (has_body(conn)) {
            return send_error(conn, SERVE_HTTP_TOO_LARGE, "a request must not have a body");
        }
        return MHD_YES;
    }
    if (*upload_size != 0) {
        *upload_size = 0; /* a body nobody announced: refused once it is read */
        *state = &body_seen;
        return MHD_YES;
    }
    if (*state == &body_seen) {
        return send_error(conn, SERVE_HTTP_TOO_LARGE, "a request must not have a body");
    }
    return answer(cls, conn, url, version);
}

/* The listening address, or -1 when bind is not a numeric address. */
static int make_addr(const serve_http_options *o, struct sockaddr_storage *ss, int *v6)
{
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *const a4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *const a6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, o->bind, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons(o->port);
        *v6 = 0;
        return 0;
    }
    if (inet_pton(AF_INET6, o->bind, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons(o->port);
        *v6 = 1;
        return 0;
    }
    return -1;
}

int serve_http_start(
    serve_http **out, const serve_ctx *ctx, const serve_http_options *o, char *why, size_t why_len)
{
    struct sockaddr_storage ss;
    int v6 = 0;
    *out = NULL;
    if (make_addr(o, &ss, &v6) != 0 || strlen(o->bind) >= sizeof((serve_http *)0)->bind) {
        (void)snprintf(why, why_len, "--bind: '%s' is not a numeric IPv4 or IPv6 address", o->bind);
        return -1;
    }
    serve_http *const h = calloc(1, sizeof *h);
    if (h == NULL) {
        (void)snprintf(why, why_len, "out of memory");
        return -1;
    }
    h->ctx = ctx;
    (void)snprintf(h->bind, sizeof h->bind, "%s", o->bind);
    h->loopback = serve_http_is_loopback(o->bind);
    const unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | (v6 ? MHD_USE_IPv6 : 0u);
    h->daemon = MHD_start_daemon(flags, o->port, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR,
                                 (struct sockaddr *)&ss, MHD_OPTION_THREAD_POOL_SIZE,
                                 (unsigned)o->threads, MHD_OPTION_CONNECTION_LIMIT,
                                 SERVE_CONN_LIMIT, MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_s,
                                 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_CONN_MEMORY,
                                 MHD_OPTION_URI_LOG_CALLBACK, on_raw_url, NULL, MHD_OPTION_END);
    if (h->daemon == NULL) {
        (void)snprintf(why, why_len,
                       "Cannot listen on %s port %u (in use, or not an address "
                       "of this machine)",
                       o->bind, (unsigned)o->port);
        free(h);
        return -1;
    }
    const union MHD_DaemonInfo *const info =
        MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info != NULL ? info->port : o->port;
    *out = h;
    return 0;
}

uint16_t serve_http_port(const serve_http *h)
{
    return h->port;
}

void serve_http_stop(serve_http *h)
{
    if (h == NULL) {
        return;
    }
    MHD_stop_daemon(h->daemon);
    free(h);
}
