/* SPDX-License-Identifier: MIT
 *
 * serve_response.c - response bodies of slog-serve (serve.h): JSON written
 * with utils/common's json_writer into an open_memstream buffer (so the
 * escaping rules of every tool apply: valid UTF-8, numbers that round-trip),
 * and error answers {"error": "..."} whose message names the parameter and
 * what was expected.  A failure to allocate becomes a static 500 answer,
 * never a crash.
 * Tools layer (slog-serve): libc and utils/common.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve.h"

static const char oom_body[] = "{\"error\":\"out of memory\"}";

static void set_oom(serve_response *res)
{
    serve_response_free(res);
    res->status = SERVE_HTTP_INTERNAL;
    serve_static_body(res, "application/json", oom_body, sizeof oom_body - 1);
}

void serve_static_body(serve_response *res, const char *content_type, const void *data, size_t len)
{
    res->content_type = content_type;
    /* never written (free_body is false); the body is not const because
     * libmicrohttpd's MHD_create_response_from_buffer takes a void * */
    res->body = (char *)(uintptr_t)data; // NOLINT(performance-no-int-to-ptr): see above
    res->len = len;
    res->free_body = false;
}

void serve_owned_body(serve_response *res, const char *content_type, void *data, size_t len)
{
    serve_response_free(res);
    res->status = SERVE_HTTP_OK;
    res->content_type = content_type;
    res->body = data;
    res->len = len;
    res->free_body = true;
}

void serve_response_free(serve_response *res)
{
    if (res->free_body) {
        free(res->body);
    }
    res->body = NULL;
    res->len = 0;
    res->free_body = false;
}

int serve_json_open(serve_json *j, serve_response *res)
{
    j->buf = NULL;
    j->len = 0;
    j->f = open_memstream(&j->buf, &j->len);
    if (j->f == NULL) {
        set_oom(res);
        return -1;
    }
    json_writer_init(&j->w, j->f);
    return 0;
}

void serve_json_discard(serve_json *j)
{
    if (j->f != NULL) {
        (void)fclose(j->f);
    }
    free(j->buf);
    j->f = NULL;
    j->buf = NULL;
}

int serve_json_close(serve_json *j, serve_response *res)
{
    const bool bad = ferror(j->f) != 0;
    const int closed = fclose(j->f);
    j->f = NULL;
    if (bad || closed != 0 || j->buf == NULL) {
        free(j->buf);
        j->buf = NULL;
        set_oom(res);
        return -1;
    }
    serve_response_free(res);
    res->status = SERVE_HTTP_OK;
    res->content_type = "application/json";
    res->body = j->buf;
    res->len = j->len;
    res->free_body = true;
    j->buf = NULL;
    return 0;
}

int serve_error(serve_response *res, unsigned status, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above; analyzer false positive
    (void)vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    serve_json j;
    if (serve_json_open(&j, res) != 0) {
        return -1;
    }
    json_begin_object(&j.w);
    json_kv_string(&j.w, "error", msg);
    json_end_object(&j.w);
    if (serve_json_close(&j, res) == 0) {
        res->status = status;
    }
    return -1;
}

double serve_now_ms(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
