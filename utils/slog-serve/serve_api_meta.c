/* SPDX-License-Identifier: MIT
 *
 * serve_api_meta.c - the endpoints that describe files: /api/files (the
 * list, by id), /api/info (slog_file_info), /api/timelines (the timeline
 * table as columns, so 10^5 rows stay compact) and /api/categories.
 * Nothing here reads a node payload.
 * Tools layer (slog-serve): public libslog headers and utils/common.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "serve_api.h"
#include "serve_params.h"

static void file_entry(const serve_ctx *ctx, size_t f, json_writer *w)
{
    serve_file_status st;
    serve_files_status(ctx->files, f, &st);
    slog_error err;
    memset(&err, 0, sizeof err);
    serve_lease lease;
    const int rc = serve_files_checkout(ctx->files, f, &lease, &err);
    json_begin_object(w);
    json_kv_uint(w, "f", f);
    json_kv_string(w, "name", st.name);
    json_kv_uint(w, "bytes", st.bytes);
    if (rc == SLOG_OK) {
        json_kv_bool(w, "complete", lease.fi->complete);
        json_kv_string(w, "state", "ready");
        serve_files_checkin(ctx->files, &lease);
    } else {
        json_kv_bool(w, "complete", false);
        json_kv_string(w, "state", "failed");
        json_kv_string(w, "error", err.message[0] != '\0' ? err.message : slog_status_name(rc));
    }
    json_end_object(w);
}

int api_files(const serve_ctx *ctx, const serve_request *rq, serve_response *res)
{
    (void)rq;
    serve_json j;
    if (serve_json_open(&j, res) != 0) {
        return -1;
    }
    json_begin_array(&j.w);
    for (size_t f = 0; f < serve_files_count(ctx->files); f++) {
        file_entry(ctx, f, &j.w);
    }
    json_end_array(&j.w);
    return serve_json_close(&j, res);
}

static void info_fields(json_writer *w, const serve_lease *lease)
{
    const slog_file_info *const fi = lease->fi;
    const bool empty = fi->start > fi->end;
    char buf[32];
    json_kv_uint(w, "format_read_version", fi->format_read_version);
    json_kv_uint(w, "format_write_version", fi->format_write_version);
    json_kv_bool(w, "complete", fi->complete);
    json_kv_uint(w, "ticks_per_second", fi->ticks_per_second);
    (void)snprintf(buf, sizeof buf, "%" PRId64, empty ? 0 : fi->start);
    json_kv_string(w, "start", buf);
    (void)snprintf(buf, sizeof buf, "%" PRId64, empty ? 0 : fi->end);
    json_kv_string(w, "end", buf);
    int64_t duration = 0;
    if (!empty && __builtin_sub_overflow(fi->end, fi->start, &duration)) {
        duration = INT64_MAX;
    }
    json_kv_int(w, "duration", duration);
    json_kv_uint(w, "states", fi->states);
    json_kv_uint(w, "events", fi->events);
    json_kv_uint(w, "arrows", fi->arrows);
    json_kv_uint(w, "counters", fi->counters);
    json_kv_uint(w, "timelines", fi->timelines);
    json_kv_uint(w, "categories", fi->categories);
    json_kv_uint(w, "nodes", fi->nodes);
    json_kv_uint(w, "depth", fi->depth);
    json_kv_uint(w, "file_bytes", fi->file_bytes);
    json_kv_string(w, "creator", fi->creator != NULL ? fi->creator : "");
}

/* Check out f's reader, write body(w, lease) as the JSON answer, check in. */
static int with_reader(const serve_ctx *ctx,
                       const serve_request *rq,
                       serve_response *res,
                       void (*body)(json_writer *w, const serve_lease *lease))
{
    serve_lease lease;
    if (api_checkout(ctx, rq, res, &lease) != 0) {
        return -1;
    }
    serve_json j;
    int rc = serve_json_open(&j, res);
    if (rc == 0) {
        body(&j.w, &lease);
        rc = serve_json_close(&j, res);
    }
    serve_files_checkin(ctx->files, &lease);
    return rc;
}

static void info_object(json_writer *w, const serve_lease *lease)
{
    json_begin_object(w);
    info_fields(w, lease);
    json_end_object(w);
}

int api_info(const serve_ctx *ctx, const serve_request *rq, serve_response *res)
{
    return with_reader(ctx, rq, res, info_object);
}

/* One column of the timeline table. */
static void timeline_column(json_writer *w, const slog_reader *r, uint32_t n, const char *key)
{
    json_key(w, key);
    json_begin_array(w);
    for (uint32_t i = 0; i < n; i++) {
        slog_timeline_info t = {i, SLOG_NO_PARENT, SLOG_TIMELINE_GENERIC, 0, ""};
        (void)slog_reader_timeline(r, i, &t); /* i < n: cannot fail */
        switch (key[0]) {
        case 'i':
            json_uint(w, t.id);
            break;
        case 'p':
            json_int(w, t.parent == SLOG_NO_PARENT ? -1 : (int64_t)t.parent);
            break;
        case 'k':
            json_uint(w, (unsigned)t.kind);
            break;
        case 'n':
            json_string(w, t.name != NULL ? t.name : "");
            break;
        default:
            json_int(w, t.sort_key);
            break;
        }
    }
    json_end_array(w);
}

static void timeline_columns(json_writer *w, const serve_lease *lease)
{
    static const char *const columns[] = {"id", "parent", "kind", "name", "sort_key"};
    json_begin_object(w);
    for (size_t c = 0; c < sizeof columns / sizeof columns[0]; c++) {
        timeline_column(w, lease->r, lease->fi->timelines, columns[c]);
    }
    json_end_object(w);
}

int api_timelines(const serve_ctx *ctx, const serve_request *rq, serve_response *res)
{
    return with_reader(ctx, rq, res, timeline_columns);
}

static void category_entry(json_writer *w, const slog_category_info *c)
{
    char rgba[16];
    (void)snprintf(rgba, sizeof rgba, "#%08" PRIx32, c->rgba);
    json_begin_object(w);
    json_kv_uint(w, "id", c->id);
    json_kv_string(w, "kind", param_kind_name((unsigned)c->kind));
    json_kv_string(w, "rgba", rgba);
    json_kv_string(w, "name", c->name != NULL ? c->name : "");
    json_kv_string(w, "group", c->group != NULL ? c->group : "");
    json_end_object(w);
}

static void category_list(json_writer *w, const serve_lease *lease)
{
    json_begin_array(w);
    for (uint32_t i = 0; i < lease->fi->categories; i++) {
        slog_category_info c = {i, SLOG_KIND_STATE, 0, "", ""};
        (void)slog_reader_category(lease->r, i, &c); /* i < categories: cannot fail */
        category_entry(w, &c);
    }
    json_end_array(w);
}

int api_categories(const serve_ctx *ctx, const serve_request *rq, serve_response *res)
{
    return with_reader(ctx, rq, res, category_list);
}
