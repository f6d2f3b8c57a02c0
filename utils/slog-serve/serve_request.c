/* SPDX-License-Identifier: MIT
 *
 * serve_request.c - request checks before an endpoint (serve_request.h):
 * pure functions of the request's text, shared by the libmicrohttpd glue
 * (serve_http.c) and the request fuzz target.
 * Tools layer (slog-serve): libc only.
 */
#include "serve_request.h"

#include <string.h>
#include <strings.h>

bool serve_raw_url_has_nul(const char *uri)
{
    for (const char *p = strchr(uri, '%'); p != NULL; p = strchr(p + 1, '%')) {
        if (p[1] == '0' && p[2] == '0') {
            return true;
        }
    }
    return false;
}

bool serve_host_allowed(const char *host, const char *bind, bool loopback)
{
    if (!loopback || host == NULL) {
        return true; /* HTTP/1.0 without Host (HTTP/1.1 without it is refused earlier) */
    }
    const char *const end = host[0] == '[' ? strchr(host, ']') : strchr(host, ':');
    const size_t len = end == NULL ? strlen(host) : (size_t)(end - host) + (host[0] == '[');
    static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strlen(names[i]) == len && strncasecmp(host, names[i], len) == 0) {
            return true;
        }
    }
    return strlen(bind) == len && strncmp(host, bind, len) == 0;
}

const char *serve_param_check_add(serve_param_check *pc, const char *key, size_t key_size,
                                  const char *value, size_t value_size)
{
    if (strlen(key) != key_size || (value != NULL && strlen(value) != value_size)) {
        return "a parameter contains a NUL byte";
    }
    for (unsigned i = 0; i < pc->n; i++) {
        if (strcmp(pc->keys[i], key) == 0) {
            return "a parameter is given twice";
        }
    }
    if (pc->n == SERVE_MAX_PARAMS) {
        return "too many parameters";
    }
    pc->keys[pc->n++] = key;
    return NULL;
}
