/* SPDX-License-Identifier: MIT
 *
 * serve_request.h - the checks slog-serve makes on a request before it
 * reaches an endpoint, without libmicrohttpd, so a fuzz target
 * (tests/fuzz/fuzz_serve_request.c) can run them with the API behind
 * them and no socket: a raw URL holding "%00", the query parameters (at
 * most SERVE_MAX_PARAMS, none twice, none with a NUL byte) and, on a
 * loopback address, the Host header naming a loopback host.
 * Tools layer (slog-serve): libc only.
 */
#ifndef SLOG_SERVE_REQUEST_H
#define SLOG_SERVE_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#define SERVE_MAX_PARAMS 32

/* The raw URL (before decoding) contains "%00": a decoded path would end
 * at the NUL ("/index.html%00.js" would look like "/index.html"). */
bool serve_raw_url_has_nul(const char *uri);

/* Host (NULL when absent: HTTP/1.0) without its port is a loopback name or
 * the bind address; always true when the server is not on loopback. */
bool serve_host_allowed(const char *host, const char *bind, bool loopback);

/* The parameters seen so far of one request (keys borrowed). */
typedef struct serve_param_check {
    const char *keys[SERVE_MAX_PARAMS];
    unsigned n;
} serve_param_check;

/* Take one more parameter: NULL when it is fine, else what is wrong
 * (a NUL byte, given twice, too many). */
const char *serve_param_check_add(serve_param_check *pc, const char *key, size_t key_size,
                                  const char *value, size_t value_size);

#endif /* SLOG_SERVE_REQUEST_H */
