/* SPDX-License-Identifier: MIT
 *
 * fuzz_serve_request.c - libFuzzer target for what slog-serve parses of a
 * request, without a socket: the raw-URL check, the query parameters
 * (split and %-decoded as libmicrohttpd hands them over, then checked by
 * serve_request.c), the Host check, and every /api/ endpoint with its
 * strict parameter parsing (serve_params.c) answering over a small trace
 * written once with the public writer.  The input is "HOST\nTARGET": the
 * Host header ("-" for none) and the request target (path?query).
 * Any response is fine; a crash, a leak or a hang is not.
 */
#include <slog/slog.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve_api.h"
#include "serve_files.h"
#include "serve_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz_params {
    char *keys[SERVE_MAX_PARAMS + 1];
    char *values[SERVE_MAX_PARAMS + 1]; /* NULL: "key" without '=' */
    unsigned n;
} fz_params;

static serve_files *files;

static int write_trace(const char *path)
{
    slog_writer *w;
    if (slog_writer_create(&w, path, NULL, NULL) != SLOG_OK) {
        return -1;
    }
    uint32_t p, t[2], c[4];
    (void)slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, "proc", 0, &p, NULL);
    (void)slog_writer_add_timeline(w, p, SLOG_TIMELINE_THREAD, "t0", 0, &t[0], NULL);
    (void)slog_writer_add_timeline(w, p, SLOG_TIMELINE_THREAD, "t1", 1, &t[1], NULL);
    static const char *const names[4] = {"work", "mark", "msg", "mem"};
    for (int k = 0; k < 4; k++) {
        (void)slog_writer_add_category(w, (slog_kind)k, names[k], 0, NULL, &c[k], NULL);
    }
    for (int64_t i = 0; i < 300; i++) {
        const slog_arg a = {.key = "i", .type = SLOG_ARG_INT, .v.i = i};
        const slog_state s = {t[i % 2], c[0], i * 100, i * 100 + 90, 0, 1, &a};
        const slog_event e = {t[i % 2], c[1], i * 100 + 5, 0, NULL};
        const slog_arrow m = {c[2], t[0], t[1], i * 100, i * 100 + 50, 0, NULL};
        const slog_counter v = {p, c[3], i * 100, (double)i};
        (void)slog_writer_append_state(w, &s, NULL);
        (void)slog_writer_append_event(w, &e, NULL);
        (void)slog_writer_append_arrow(w, &m, NULL);
        (void)slog_writer_append_counter(w, &v, NULL);
    }
    const int rc = slog_writer_finish(w, NULL);
    slog_writer_destroy(w);
    return rc == SLOG_OK ? 0 : -1;
}

static int setup(void)
{
    static char path[] = "/tmp/fuzz_serve_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) {
        return -1;
    }
    (void)close(fd);
    const serve_source src[1] = {{path, path, NULL}};
    const serve_files_budget budget = {1, 8u << 20};
    size_t servable = 0;
    if (write_trace(path) != 0 || serve_files_create(&files, src, 1, budget, &servable) != 0) {
        return -1;
    }
    return servable == 1 ? 0 : -1;
}

static int hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* %XX and '+' decoded in place (as libmicrohttpd does for arguments). */
static void unescape(char *s, int plus)
{
    char *o = s;
    for (; *s; s++) {
        if (*s == '%' && hex(s[1]) >= 0 && hex(s[2]) >= 0) {
            *o++ = (char)(hex(s[1]) * 16 + hex(s[2]));
            s += 2;
        } else {
            *o++ = plus && *s == '+' ? ' ' : *s;
        }
    }
    *o = '\0';
}

/* Split the query into params; NULL when fine, else the 400's reason. */
static const char *split_query(char *q, fz_params *ps)
{
    serve_param_check pc = {.n = 0};
    for (char *save = NULL, *kv = strtok_r(q, "&", &save); kv != NULL;
         kv = strtok_r(NULL, "&", &save)) {
        char *const eq = strchr(kv, '=');
        if (eq != NULL) {
            *eq = '\0';
            unescape(eq + 1, 1);
        }
        unescape(kv, 1);
        const char *const why = serve_param_check_add(&pc, kv, strlen(kv), eq ? eq + 1 : NULL,
                                                      eq ? strlen(eq + 1) : 0);
        if (why != NULL) {
            return why;
        }
        ps->keys[ps->n] = kv;
        ps->values[ps->n++] = eq ? eq + 1 : NULL;
    }
    return NULL;
}

static const char *get_param(const serve_request *rq, const char *key)
{
    const fz_params *const ps = rq->conn;
    for (unsigned i = 0; i < ps->n; i++) {
        if (strcmp(ps->keys[i], key) == 0) {
            return ps->values[i] != NULL ? ps->values[i] : "";
        }
    }
    return NULL;
}

static void handle(char *host, char *target)
{
    if (serve_raw_url_has_nul(target)) {
        return;
    }
    fz_params ps = {.n = 0};
    char *const q = strchr(target, '?');
    if (q != NULL) {
        *q = '\0';
        if (split_query(q + 1, &ps) != NULL) {
            return;
        }
    }
    unescape(target, 0);
    if (!serve_host_allowed(strcmp(host, "-") == 0 ? NULL : host, "127.0.0.1", true) ||
        strncmp(target, "/api/", 5) != 0) {
        return;
    }
    const serve_ctx ctx = {files, 2000};
    const serve_request rq = {target, get_param, &ps};
    serve_response res = {0};
    serve_api_handle(&ctx, &rq, &res);
    if (res.free_body) {
        free(res.body);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (files == NULL && setup() != 0) {
        abort(); /* the target cannot run without its trace */
    }
    char *const text = malloc(size + 1);
    if (text == NULL) {
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    char *const nl = strchr(text, '\n');
    if (nl != NULL && strlen(text) == size) { /* a NUL byte would cut the request */
        *nl = '\0';
        handle(text, nl + 1);
    }
    free(text);
    return 0;
}
