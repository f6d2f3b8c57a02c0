/* SPDX-License-Identifier: MIT
 *
 * serve_encode.c - window and item encodings (serve_encode.h).  The binary
 * layout is the one doc/VIEWER.md fixes: a 32-byte header, then one array
 * per column, each starting at an 8-byte aligned offset, little-endian, so
 * the browser wraps each in a typed array without parsing.  Times become
 * doubles relative to the file's origin (exact below 2^53 ticks).  JSON
 * items carry the same columns, times as exact integers.
 * Tools layer (slog-serve): public libslog headers and utils/common.
 */
#include "serve_encode.h"

#include <stdlib.h>
#include <string.h>

#include "serve_params.h"

#define BIN_HEADER_BYTES 32u

/* One item as the columns of slog_batch. */
typedef struct item_row {
    uint8_t kind, of;
    uint32_t timeline, timeline_to, category, depth;
    int64_t start, end;
    uint64_t count;
    int64_t inclusive;
    double value;
} item_row;

/* old grown to cap entries of elem bytes; on failure old stays and *ok
 * becomes false. */
static void *grown(void *old, size_t cap, size_t elem, bool *ok)
{
    void *const p = realloc(old, cap * elem);
    if (p == NULL) {
        *ok = false;
        return old;
    }
    return p;
}

int serve_columns_reserve(serve_columns *c, size_t want)
{
    if (want <= c->b.capacity) {
        return 0;
    }
    size_t cap = c->b.capacity > 0 ? c->b.capacity : 1024;
    while (cap < want) {
        cap *= 2;
    }
    slog_batch *const b = &c->b;
    bool ok = true;
    b->kind = grown(b->kind, cap, sizeof *b->kind, &ok);
    b->of = grown(b->of, cap, sizeof *b->of, &ok);
    b->timeline = grown(b->timeline, cap, sizeof *b->timeline, &ok);
    b->timeline_to = grown(b->timeline_to, cap, sizeof *b->timeline_to, &ok);
    b->category = grown(b->category, cap, sizeof *b->category, &ok);
    b->start = grown(b->start, cap, sizeof *b->start, &ok);
    b->end = grown(b->end, cap, sizeof *b->end, &ok);
    b->depth = grown(b->depth, cap, sizeof *b->depth, &ok);
    b->count = grown(b->count, cap, sizeof *b->count, &ok);
    b->inclusive = grown(b->inclusive, cap, sizeof *b->inclusive, &ok);
    b->value = grown(b->value, cap, sizeof *b->value, &ok);
    if (!ok) {
        return -1; /* grown columns keep their data; capacity stays what all hold */
    }
    b->capacity = cap;
    return 0;
}

void serve_columns_free(serve_columns *c)
{
    free(c->b.kind);
    free(c->b.of);
    free(c->b.timeline);
    free(c->b.timeline_to);
    free(c->b.category);
    free(c->b.start);
    free(c->b.end);
    free(c->b.depth);
    free(c->b.count);
    free(c->b.inclusive);
    free(c->b.value);
    memset(c, 0, sizeof *c);
}

static size_t align8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

/* Writers of one column; each returns the aligned end offset. */
static size_t put_times(unsigned char *buf, size_t at, const int64_t *t, size_t n, int64_t origin)
{
    for (size_t i = 0; i < n; i++) {
        serve_put_f64(buf + at + 8 * i, (double)serve_rel_time(t[i], origin));
    }
    return at + 8 * n;
}

static size_t put_doubles_u64(unsigned char *buf, size_t at, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        serve_put_f64(buf + at + 8 * i, (double)v[i]);
    }
    return at + 8 * n;
}

static size_t put_doubles_i64(unsigned char *buf, size_t at, const int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        serve_put_f64(buf + at + 8 * i, (double)v[i]);
    }
    return at + 8 * n;
}

static size_t put_doubles(unsigned char *buf, size_t at, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        serve_put_f64(buf + at + 8 * i, v[i]);
    }
    return at + 8 * n;
}

static size_t put_u32s(unsigned char *buf, size_t at, const uint32_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        serve_put_u32(buf + at + 4 * i, v[i]);
    }
    return align8(at + 4 * n);
}

static size_t put_u8s(unsigned char *buf, size_t at, const uint8_t *v, size_t n)
{
    if (n > 0) {
        memcpy(buf + at, v, n);
    }
    return align8(at + n);
}

static void put_header(unsigned char *buf, const serve_columns *c, const serve_window_meta *m)
{
    static const unsigned char magic[4] = {'S', 'L', 'W', '1'}; /* not a C string */
    memcpy(buf, magic, sizeof magic);
    serve_put_u32(buf + 4, (uint32_t)c->n);
    serve_put_u32(buf + 8, (m->cut ? 1u : 0u) | (m->incomplete ? 2u : 0u));
    serve_put_u32(buf + 12, 0);
    serve_put_f64(buf + 16, (double)m->t0);
    serve_put_f64(buf + 24, (double)m->t1);
}

int serve_encode_window_bin(const serve_columns *c, const serve_window_meta *m, serve_response *res)
{
    const size_t n = c->n;
    const size_t bytes = BIN_HEADER_BYTES + (size_t)40 * n + 4 * align8(4 * n) + 2 * align8(n);
    unsigned char *const buf = calloc(1, bytes);
    if (buf == NULL) {
        return serve_error(res, SERVE_HTTP_INTERNAL, "out of memory");
    }
    put_header(buf, c, m);
    size_t at = BIN_HEADER_BYTES;
    at = put_times(buf, at, c->b.start, n, m->origin);
    at = put_times(buf, at, c->b.end, n, m->origin);
    at = put_doubles_u64(buf, at, c->b.count, n);
    at = put_doubles_i64(buf, at, c->b.inclusive, n);
    at = put_doubles(buf, at, c->b.value, n);
    at = put_u32s(buf, at, c->b.timeline, n);
    at = put_u32s(buf, at, c->b.timeline_to, n);
    at = put_u32s(buf, at, c->b.category, n);
    at = put_u32s(buf, at, c->b.depth, n);
    at = put_u8s(buf, at, c->b.kind, n);
    at = put_u8s(buf, at, c->b.of, n);
    serve_owned_body(res, "application/octet-stream", buf, at);
    return 0;
}

static void write_row(json_writer *w, const item_row *r, int64_t origin)
{
    json_begin_object(w);
    json_kv_string(w, "kind", param_kind_name(r->kind));
    json_kv_string(w, "of", param_kind_name(r->of));
    json_kv_uint(w, "timeline", r->timeline);
    json_kv_uint(w, "timeline_to", r->timeline_to);
    json_kv_uint(w, "category", r->category);
    json_kv_int(w, "start", serve_rel_time(r->start, origin));
    json_kv_int(w, "end", serve_rel_time(r->end, origin));
    json_kv_uint(w, "depth", r->depth);
    json_kv_uint(w, "count", r->count);
    json_kv_int(w, "inclusive", r->inclusive);
    json_kv_double(w, "value", r->value);
    json_end_object(w);
}

void serve_encode_window_json(json_writer *w, const serve_columns *c, int64_t origin)
{
    const slog_batch *const b = &c->b;
    json_begin_array(w);
    for (size_t i = 0; i < c->n; i++) {
        const item_row r = {b->kind[i],     b->of[i],        b->timeline[i], b->timeline_to[i],
                            b->category[i], b->depth[i],     b->start[i],    b->end[i],
                            b->count[i],    b->inclusive[i], b->value[i]};
        write_row(w, &r, origin);
    }
    json_end_array(w);
}

/* A drawable as the batch columns (slog_reader.h's table). */
static item_row row_of_item(const slog_item *it)
{
    item_row r = {(uint8_t)it->kind, (uint8_t)it->kind, 0, 0, 0, 0, 0, 0, 1, 0, 0.0};
    switch (it->kind) {
    case SLOG_KIND_STATE: {
        const slog_state *const s = &it->u.state;
        r.timeline = r.timeline_to = s->timeline;
        r.category = s->category;
        r.start = s->start;
        r.end = s->end;
        r.depth = s->depth;
        r.inclusive = serve_rel_time(s->end, s->start);
        break;
    }
    case SLOG_KIND_EVENT:
        r.timeline = r.timeline_to = it->u.event.timeline;
        r.category = it->u.event.category;
        r.start = r.end = it->u.event.time;
        break;
    case SLOG_KIND_ARROW:
        r.timeline = it->u.arrow.from;
        r.timeline_to = it->u.arrow.to;
        r.category = it->u.arrow.category;
        r.start = it->u.arrow.start;
        r.end = it->u.arrow.end;
        r.inclusive = serve_rel_time(r.end, r.start);
        break;
    default: /* counter: previews and runs never come one by one */
        r.timeline = r.timeline_to = it->u.counter.timeline;
        r.category = it->u.counter.category;
        r.start = r.end = it->u.counter.time;
        r.value = it->u.counter.value;
        break;
    }
    return r;
}

void serve_encode_item_json(json_writer *w, const slog_item *it, int64_t origin)
{
    const item_row r = row_of_item(it);
    write_row(w, &r, origin);
}

void serve_encode_args_json(json_writer *w, const slog_arg *args, uint32_t n)
{
    json_begin_object(w);
    for (uint32_t i = 0; i < n; i++) {
        json_key(w, args[i].key != NULL ? args[i].key : "");
        switch (args[i].type) {
        case SLOG_ARG_STRING:
            json_string(w, args[i].v.s);
            break;
        case SLOG_ARG_INT:
            json_int(w, args[i].v.i);
            break;
        case SLOG_ARG_UINT:
            json_uint(w, args[i].v.u);
            break;
        case SLOG_ARG_DOUBLE:
            json_double(w, args[i].v.d);
            break;
        case SLOG_ARG_BOOL:
            json_bool(w, args[i].v.b);
            break;
        default:
            json_raw_checked(w, args[i].v.s);
            break;
        }
    }
    json_end_object(w);
}
