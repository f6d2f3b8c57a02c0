/* SPDX-License-Identifier: MIT
 *
 * node_format.c - drawables of a node: in-memory records, the columnar
 * varint encoding (one column per field, so LZ4 finds the repetition of
 * each field) of the geometry blob and of the args blob, and their
 * bounds-checked decoders (geometry versions 1, 2 and 3).  The writer keeps
 * fmt_node.encoded_bytes and args_bytes exact while appending, so leaves
 * close at their budget without trial encodings.
 * Layer 3: may use codec and util.
 */
#include "node_format.h"

#include "codec_varint.h"
#include "util_alloc.h"

#include <stddef.h>
#include <string.h>

void fmt_node_init(fmt_node *n)
{
    memset(n, 0, sizeof *n);
    fmt_nest_init(&n->nest);
    fmt_cols_init(&n->cols);
    fmt_node_reset(n);
}

void fmt_node_reset(fmt_node *n)
{
    for (int k = 0; k < 4; k++) {
        n->n[k] = 0;
        n->last[k] = 0;
    }
    n->args.len = 0;
    n->base = 0;
    n->encoded_bytes = 0;
    n->args_bytes = 0;
    n->with_args = 0;
    n->t0 = INT64_MAX;
    n->t1 = INT64_MIN;
    fmt_nest_reset(&n->nest);
    fmt_cols_reset(&n->cols);
}

void fmt_node_free(fmt_node *n)
{
    fmt_nest_free(&n->nest);
    fmt_cols_free(&n->cols);
    util_free(n->states);
    util_free(n->events);
    util_free(n->arrows);
    util_free(n->counters);
    util_buf_free(&n->args);
    memset(n, 0, sizeof *n);
}

size_t fmt_node_count(const fmt_node *n)
{
    return n->n[0] + n->n[1] + n->n[2] + n->n[3];
}

/* Header size: 2 bytes + 4 count varints + base varint (upper bound). */
static uint64_t header_bytes(const fmt_node *n)
{
    uint64_t b = 2 + codec_varint_len(codec_zigzag(n->base));
    for (int k = 0; k < 4; k++) {
        b += codec_varint_len(n->n[k]);
    }
    return b;
}

/* Delta of time t against the previous item of kind k; first item of the
 * node sets the base (the node's count is summed only for a kind's first). */
static uint64_t time_delta(fmt_node *n, int k, int64_t t)
{
    int64_t prev = n->last[k];
    if (n->n[k] == 0) {
        if (fmt_node_count(n) == 0) {
            n->base = t;
        }
        prev = n->base;
    }
    n->last[k] = t;
    return codec_zigzag((int64_t)((uint64_t)t - (uint64_t)prev));
}

static int reserve_kind(fmt_node *n, int k, void **arr, size_t elem)
{
    return n->n[k] < n->cap[k] ? 0 : util_grow(arr, &n->cap[k], n->n[k] + 1, elem);
}

static int add_args(fmt_node *n, const uint8_t *args, size_t len, uint32_t *off, uint32_t *olen)
{
    *off = (uint32_t)n->args.len;
    *olen = (uint32_t)len;
    if (len == 0) {
        return 0;
    }
    if (len > UINT32_MAX - n->args.len) {
        return -1;
    }
    return util_buf_append(&n->args, args, len);
}

/* The args blob's share of one item: its length varint and its bytes. */
static void count_args(fmt_node *n, size_t len)
{
    if (len == 0) {
        n->args_bytes++; /* the length 0, one byte */
        return;
    }
    n->args_bytes += codec_varint_len(len) + len;
    n->with_args++;
}

static void extend_box(fmt_node *n, int64_t t0, int64_t t1)
{
    if (t0 < n->t0) {
        n->t0 = t0;
    }
    if (t1 > n->t1) {
        n->t1 = t1;
    }
}

int fmt_node_add_state(fmt_node *n, const fmt_state_rec *r, const uint8_t *args, size_t args_len)
{
    void *arr = n->states;
    const int grown = reserve_kind(n, 0, &arr, sizeof *r);
    n->states = arr; /* moved by a successful grow even when the nest fails */
    if (grown != 0 || fmt_nest_reserve_state(&n->nest, r->timeline, r->depth) != 0 ||
        fmt_cols_room(&n->cols, n->encoded_bytes) != 0) {
        return -1;
    }
    fmt_state_rec *const rec = &n->states[n->n[0]]; /* filled in place, counted last */
    *rec = *r;
    const size_t old_args = n->args.len;
    if (add_args(n, args, args_len, &rec->args_off, &rec->args_len) != 0) {
        n->args.len = old_args;
        return -1;
    }
    const uint64_t d = time_delta(n, 0, r->end);
    const uint64_t dur = (uint64_t)r->end - (uint64_t)r->start;
    if ((rec->excl < 0 || (uint64_t)rec->excl > dur) && dur - (uint64_t)rec->excl > INT64_MAX) {
        rec->excl = (int64_t)dur; /* children beyond 2^63 ticks: none kept (previews add them) */
    }
    const uint64_t shown = fmt_nest_next(&n->nest, r->timeline, r->depth, r->start, r->end);
    rec->resid = (int64_t)(dur - (uint64_t)rec->excl - shown);
    /* the columns' bytes with time unit 1, written now: their length is
     * the size the leaf budget needs, and a node of unit 1 copies them */
    fmt_cols *const c = &n->cols;
    uint64_t added = fmt_cols_put_ids(c, r->timeline, r->category, d, r->depth);
    added += fmt_cols_put_duration(c, dur);
    added += fmt_cols_put_children(c, n->n[0], rec->resid);
    n->encoded_bytes += added;
    count_args(n, args_len);
    n->n[0]++;
    extend_box(n, r->start, r->end);
    return 0;
}

int fmt_node_add_event(fmt_node *n, const fmt_event_rec *r, const uint8_t *args, size_t args_len)
{
    void *arr = n->events;
    if (reserve_kind(n, 1, &arr, sizeof *r) != 0) {
        return -1;
    }
    n->events = arr;
    fmt_event_rec rec = *r;
    const size_t old_args = n->args.len;
    if (add_args(n, args, args_len, &rec.args_off, &rec.args_len) != 0) {
        n->args.len = old_args;
        return -1;
    }
    const uint64_t d = time_delta(n, 1, r->time);
    n->encoded_bytes +=
        codec_varint_len(r->timeline) + codec_varint_len(r->category) + codec_varint_len(d);
    count_args(n, args_len);
    n->events[n->n[1]++] = rec;
    extend_box(n, r->time, r->time);
    return 0;
}

int fmt_node_add_arrow(fmt_node *n, const fmt_arrow_rec *r, const uint8_t *args, size_t args_len)
{
    void *arr = n->arrows;
    if (reserve_kind(n, 2, &arr, sizeof *r) != 0) {
        return -1;
    }
    n->arrows = arr;
    fmt_arrow_rec rec = *r;
    const size_t old_args = n->args.len;
    if (add_args(n, args, args_len, &rec.args_off, &rec.args_len) != 0) {
        n->args.len = old_args;
        return -1;
    }
    const uint64_t d = time_delta(n, 2, r->end);
    n->encoded_bytes += codec_varint_len(r->category) + codec_varint_len(r->from) +
                        codec_varint_len(r->to) + codec_varint_len(d) +
                        codec_varint_len((uint64_t)r->end - (uint64_t)r->start);
    count_args(n, args_len);
    n->arrows[n->n[2]++] = rec;
    extend_box(n, r->start, r->end);
    return 0;
}

int fmt_node_add_counter(fmt_node *n, const fmt_counter_rec *r)
{
    void *arr = n->counters;
    if (reserve_kind(n, 3, &arr, sizeof *r) != 0) {
        return -1;
    }
    n->counters = arr;
    const uint64_t d = time_delta(n, 3, r->time);
    n->encoded_bytes +=
        codec_varint_len(r->timeline) + codec_varint_len(r->category) + codec_varint_len(d) + 8;
    n->counters[n->n[3]++] = *r;
    extend_box(n, r->time, r->time);
    return 0;
}

/* ---- encoding ---- */

typedef struct enc {
    uint8_t *p;
    uint64_t unit; /* time unit: every time delta, duration, children difference is a multiple */
} enc;

static void put(enc *e, uint64_t v)
{
    e->p = codec_varint_put(e->p, v);
}

#define COLUMN(type, field) sizeof(type), offsetof(type, field)

/* Columns: a field at byte `off` of each of n records `stride` bytes apart. */
static void put_u32_column(enc *e, const void *recs, size_t n, size_t stride, size_t off)
{
    const uint8_t *p = n == 0 ? NULL : (const uint8_t *)recs + off; /* recs may be NULL */
    for (size_t i = 0; i < n; i++, p += stride) {
        uint32_t v;
        memcpy(&v, p, sizeof v);
        put(e, v);
    }
}

/* Zig-zag deltas of an int64 time field, the first from base. */
static void put_time_column(enc *e, const void *recs, size_t n, size_t stride, size_t off,
                            int64_t base)
{
    const uint8_t *p = n == 0 ? NULL : (const uint8_t *)recs + off; /* recs may be NULL */
    int64_t prev = base;
    const int64_t unit = (int64_t)e->unit;
    for (size_t i = 0; i < n; i++, p += stride) {
        int64_t t;
        memcpy(&t, p, sizeof t);
        const int64_t d = (int64_t)((uint64_t)t - (uint64_t)prev);
        put(e, codec_zigzag(unit == 1 ? d : d / unit)); /* no division in the common case */
        prev = t;
    }
}

/* end - start of two int64 fields. */
static void put_duration_column(enc *e, const void *recs, size_t n, size_t stride,
                                size_t off_start, size_t off_end)
{
    const uint8_t *p = (const uint8_t *)recs;
    const uint64_t unit = e->unit;
    for (size_t i = 0; i < n; i++, p += stride) {
        int64_t s, t;
        memcpy(&s, p + off_start, sizeof s);
        memcpy(&t, p + off_end, sizeof t);
        const uint64_t dur = (uint64_t)t - (uint64_t)s;
        put(e, unit == 1 ? dur : dur / unit);
    }
}

/* The children-time differences (fmt_state_rec.resid): a bitmap of the
 * states whose difference is not 0 (bit i % 8 of byte i / 8), then those
 * differences, zig-zag, in time units.  A state whose children all lie in
 * its own node (every leaf state, most parents) costs one bit. */
static void put_resid_column(enc *e, const fmt_state_rec *v, size_t n)
{
    uint8_t *const bits = e->p;
    memset(bits, 0, (n + 7) / 8);
    e->p += (n + 7) / 8;
    for (size_t i = 0; i < n; i++) {
        if (v[i].resid != 0) {
            bits[i / 8] |= (uint8_t)(1u << (i % 8));
            put(e, codec_zigzag(v[i].resid / (int64_t)e->unit));
        }
    }
}

/* ---- the time unit: gcd of every time delta, duration and children difference ---- */

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b != 0) {
        const uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static uint64_t magnitude(int64_t d)
{
    return d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
}

static uint64_t gcd_times(uint64_t g, const void *recs, size_t n, size_t stride, size_t off,
                          int64_t base)
{
    const uint8_t *p = n == 0 ? NULL : (const uint8_t *)recs + off; /* recs may be NULL */
    int64_t prev = base;
    for (size_t i = 0; i < n && g != 1; i++, p += stride) {
        int64_t t;
        memcpy(&t, p, sizeof t);
        g = gcd(g, magnitude((int64_t)((uint64_t)t - (uint64_t)prev)));
        prev = t;
    }
    return g;
}

/* Chrome traces count microseconds, so their nanosecond times share a
 * factor of 1000: dividing it out saves a byte or two per time value. */
static uint64_t time_unit(const fmt_node *n)
{
    uint64_t g = gcd_times(0, n->states, n->n[0], COLUMN(fmt_state_rec, end), n->base);
    for (size_t i = 0; i < n->n[0] && g != 1; i++) {
        const fmt_state_rec *const r = &n->states[i];
        const uint64_t dur = (uint64_t)r->end - (uint64_t)r->start;
        g = gcd(gcd(g, dur), magnitude(r->resid));
    }
    g = gcd_times(g, n->events, n->n[1], COLUMN(fmt_event_rec, time), n->base);
    g = gcd_times(g, n->arrows, n->n[2], COLUMN(fmt_arrow_rec, end), n->base);
    for (size_t i = 0; i < n->n[2] && g != 1; i++) {
        g = gcd(g, (uint64_t)n->arrows[i].end - (uint64_t)n->arrows[i].start);
    }
    g = gcd_times(g, n->counters, n->n[3], COLUMN(fmt_counter_rec, time), n->base);
    return g == 0 || g > (uint64_t)INT64_MAX ? 1 : g;
}

static void encode_states(const fmt_node *n, enc *e)
{
    if (e->unit == 1) {
        e->p = fmt_cols_copy(&n->cols, e->p); /* the columns as the states came */
        return;
    }
    const size_t c = n->n[0];
    const fmt_state_rec *const v = n->states;
    put_u32_column(e, v, c, COLUMN(fmt_state_rec, timeline));
    put_u32_column(e, v, c, COLUMN(fmt_state_rec, category));
    put_time_column(e, v, c, COLUMN(fmt_state_rec, end), n->base);
    put_duration_column(e, v, c, sizeof *v, offsetof(fmt_state_rec, start),
                        offsetof(fmt_state_rec, end));
    put_u32_column(e, v, c, COLUMN(fmt_state_rec, depth));
    put_resid_column(e, v, c);
}

static void encode_events(const fmt_node *n, enc *e)
{
    const size_t c = n->n[1];
    const fmt_event_rec *const v = n->events;
    put_u32_column(e, v, c, COLUMN(fmt_event_rec, timeline));
    put_u32_column(e, v, c, COLUMN(fmt_event_rec, category));
    put_time_column(e, v, c, COLUMN(fmt_event_rec, time), n->base);
}

static void encode_arrows(const fmt_node *n, enc *e)
{
    const size_t c = n->n[2];
    const fmt_arrow_rec *const v = n->arrows;
    put_u32_column(e, v, c, COLUMN(fmt_arrow_rec, category));
    put_u32_column(e, v, c, COLUMN(fmt_arrow_rec, from));
    put_u32_column(e, v, c, COLUMN(fmt_arrow_rec, to));
    put_time_column(e, v, c, COLUMN(fmt_arrow_rec, end), n->base);
    put_duration_column(e, v, c, sizeof *v, offsetof(fmt_arrow_rec, start),
                        offsetof(fmt_arrow_rec, end));
}

static void encode_counters(const fmt_node *n, enc *e)
{
    const size_t c = n->n[3];
    const fmt_counter_rec *const v = n->counters;
    put_u32_column(e, v, c, COLUMN(fmt_counter_rec, timeline));
    put_u32_column(e, v, c, COLUMN(fmt_counter_rec, category));
    put_time_column(e, v, c, COLUMN(fmt_counter_rec, time), n->base);
    for (size_t i = 0; i < c; i++) {
        uint64_t bits;
        memcpy(&bits, &v[i].value, 8);
        for (int b = 0; b < 8; b++) {
            *e->p++ = (uint8_t)(bits >> (8 * b));
        }
    }
}

uint64_t fmt_node_geometry_size(const fmt_node *n)
{
    return header_bytes(n) + CODEC_VARINT_MAX + n->encoded_bytes; /* + the time unit */
}

uint64_t fmt_node_args_size(const fmt_node *n)
{
    if (n->with_args == 0) {
        return 0;
    }
    return 2 + codec_varint_len(n->n[0]) + codec_varint_len(n->n[1]) +
           codec_varint_len(n->n[2]) + n->args_bytes;
}

int fmt_node_encode(const fmt_node *n, util_buf *out)
{
    const uint64_t total = fmt_node_geometry_size(n);
    if (util_buf_reserve(out, (size_t)total + CODEC_VARINT_MAX) != 0) {
        return -1;
    }
    enc e = {out->data + out->len, time_unit(n)};
    *e.p++ = FMT_BLOB_DRAWABLES;
    *e.p++ = FMT_GEOMETRY_V3;
    for (int k = 0; k < 4; k++) {
        put(&e, n->n[k]);
    }
    put(&e, codec_zigzag(n->base));
    put(&e, e.unit);
    encode_states(n, &e);
    encode_events(n, &e);
    encode_arrows(n, &e);
    encode_counters(n, &e);
    out->len = (size_t)(e.p - out->data);
    return 0;
}

static void copy_item_args(const fmt_node *n, enc *e, uint32_t off, uint32_t len)
{
    if (len > 0) { /* no args: the buffer may be NULL */
        memcpy(e->p, n->args.data + off, len);
        e->p += len;
    }
}

int fmt_node_encode_args(const fmt_node *n, util_buf *out)
{
    const uint64_t total = fmt_node_args_size(n);
    if (total == 0) {
        return 0;
    }
    if (util_buf_reserve(out, (size_t)total) != 0) {
        return -1;
    }
    enc e = {out->data + out->len, 1};
    *e.p++ = FMT_BLOB_ARGS;
    *e.p++ = FMT_ARGS_VERSION;
    for (int k = 0; k < 3; k++) {
        put(&e, n->n[k]);
    }
    put_u32_column(&e, n->states, n->n[0], COLUMN(fmt_state_rec, args_len));
    put_u32_column(&e, n->events, n->n[1], COLUMN(fmt_event_rec, args_len));
    put_u32_column(&e, n->arrows, n->n[2], COLUMN(fmt_arrow_rec, args_len));
    /* kind by kind, each in item order: the order of the length column */
    for (size_t i = 0; i < n->n[0]; i++) {
        copy_item_args(n, &e, n->states[i].args_off, n->states[i].args_len);
    }
    for (size_t i = 0; i < n->n[1]; i++) {
        copy_item_args(n, &e, n->events[i].args_off, n->events[i].args_len);
    }
    for (size_t i = 0; i < n->n[2]; i++) {
        copy_item_args(n, &e, n->arrows[i].args_off, n->arrows[i].args_len);
    }
    out->len = (size_t)(e.p - out->data);
    return 0;
}

/* ---- args ---- */

static int put_inline_string(util_buf *out, const char *s, size_t len)
{
    uint8_t tmp[CODEC_VARINT_MAX];
    const uint8_t *const e = codec_varint_put(tmp, len);
    if (util_buf_append(out, tmp, (size_t)(e - tmp)) != 0 || util_buf_append(out, s, len) != 0) {
        return -1;
    }
    const uint8_t nul = 0;
    return util_buf_append(out, &nul, 1);
}

static int put_uvarint(util_buf *out, uint64_t v)
{
    uint8_t tmp[CODEC_VARINT_MAX];
    const uint8_t *const e = codec_varint_put(tmp, v);
    return util_buf_append(out, tmp, (size_t)(e - tmp));
}

static int encode_arg_value(const slog_arg *a, fmt_intern_fn intern, void *user, util_buf *out)
{
    uint8_t type = (uint8_t)a->type;
    switch (a->type) {
    case SLOG_ARG_STRING:
    case SLOG_ARG_JSON: {
        const char *const s = a->v.s != NULL ? a->v.s : "";
        const size_t len = strlen(s);
        const uint64_t ref = intern(user, s, len, 0);
        if (ref != UINT64_MAX) {
            type |= FMT_ARG_REF;
            return util_buf_append(out, &type, 1) != 0 ? -1 : put_uvarint(out, ref);
        }
        return util_buf_append(out, &type, 1) != 0 ? -1 : put_inline_string(out, s, len);
    }
    case SLOG_ARG_INT:
        return util_buf_append(out, &type, 1) != 0 ? -1 : put_uvarint(out, codec_zigzag(a->v.i));
    case SLOG_ARG_UINT:
        return util_buf_append(out, &type, 1) != 0 ? -1 : put_uvarint(out, a->v.u);
    case SLOG_ARG_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &a->v.d, 8);
        uint8_t b[9];
        b[0] = type;
        for (int i = 0; i < 8; i++) {
            b[1 + i] = (uint8_t)(bits >> (8 * i));
        }
        return util_buf_append(out, b, 9);
    }
    case SLOG_ARG_BOOL: {
        const uint8_t b[2] = {type, a->v.b ? 1 : 0};
        return util_buf_append(out, b, 2);
    }
    }
    return -1;
}

int fmt_args_encode(const slog_arg *args, uint32_t nargs, fmt_intern_fn intern, void *user,
                    util_buf *out)
{
    if (nargs == 0) {
        return 0;
    }
    if (put_uvarint(out, nargs) != 0) {
        return -1;
    }
    for (uint32_t i = 0; i < nargs; i++) {
        const char *const key = args[i].key != NULL ? args[i].key : "";
        const uint64_t k = intern(user, key, strlen(key), 1);
        if (k == UINT64_MAX || put_uvarint(out, k) != 0 ||
            encode_arg_value(&args[i], intern, user, out) != 0) {
            return -1;
        }
    }
    return 0;
}

const char *fmt_string_at(const fmt_strings *s, uint64_t off)
{
    if (s == NULL || off >= s->len) {
        return NULL;
    }
    return s->heap + off; /* the heap ends with NUL (checked at open) */
}

/* ---- decoding ---- */

typedef struct dec {
    const uint8_t *base, *p, *end;
    int bad;
    uint64_t unit; /* geometry v2: time unit (v1 and args: 1) */
} dec;

static uint64_t get(dec *d)
{
    if (d->p < d->end && *d->p < 0x80 && !d->bad) { /* one byte: most values of a column */
        return *d->p++;
    }
    uint64_t v = 0;
    if (!d->bad && codec_varint_get(&d->p, d->end, &v) != 0) {
        d->bad = 1;
    }
    return d->bad ? 0 : v;
}

static uint32_t get32(dec *d)
{
    if (d->p < d->end && *d->p < 0x80) { /* one byte; once d->bad is set nothing read is used */
        return *d->p++;
    }
    const uint64_t v = get(d);
    if (v > UINT32_MAX) {
        d->bad = 1;
        return 0;
    }
    return (uint32_t)v;
}

static int64_t get_time(dec *d, int64_t *prev)
{
    *prev = (int64_t)((uint64_t)*prev + (uint64_t)codec_unzigzag(get(d)) * d->unit);
    return *prev;
}

/* A duration-like value: a varint times the unit, which must not overflow. */
static uint64_t get_scaled(dec *d)
{
    const uint64_t v = get(d);
    if (v > UINT64_MAX / d->unit) {
        d->bad = 1;
        return 0;
    }
    return v * d->unit;
}

/* Exclusive time from the tagged v2 children-time column: bit 0 set, the
 * rest is the exclusive time (at most the duration); clear, the children
 * time (duration - exclusive). */
static int64_t get_exclusive(dec *d, uint64_t dur)
{
    const uint64_t v = get(d);
    const uint64_t m = v >> 1;
    if (m > UINT64_MAX / d->unit) {
        d->bad = 1;
        return 0;
    }
    if (v & 1) {
        d->bad |= m * d->unit > dur;
        return (int64_t)(m * d->unit);
    }
    return (int64_t)(dur - m * d->unit);
}

/* A v3 children difference: zig-zag, in time units, within int64. */
static int64_t get_resid(dec *d)
{
    const int64_t m = codec_unzigzag(get(d));
    const int64_t u = (int64_t)d->unit;
    if (m > INT64_MAX / u || m < INT64_MIN / u) {
        d->bad = 1;
        return 0;
    }
    return m * u;
}

/* start = end - duration, rejecting durations that would wrap below INT64_MIN */
static int64_t get_start(dec *d, int64_t end)
{
    const uint64_t dur = get_scaled(d);
    if (dur > (uint64_t)end - (uint64_t)INT64_MIN) {
        d->bad = 1;
        return end;
    }
    return (int64_t)((uint64_t)end - dur);
}

static uint64_t get_u64le(dec *d)
{
    if (d->bad || d->end - d->p < 8) {
        d->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int b = 0; b < 8; b++) {
        v |= (uint64_t)d->p[b] << (8 * b);
    }
    d->p += 8;
    return v;
}

/* Decode one arg value; strings point into the blob or the heap. */
static void decode_arg(dec *d, const fmt_strings *strings, slog_arg *a)
{
    a->key = fmt_string_at(strings, get(d));
    if (a->key == NULL || d->p >= d->end) {
        d->bad = 1;
        return;
    }
    const uint8_t type = *d->p++;
    const uint8_t base = type & (uint8_t)~FMT_ARG_REF;
    a->type = (slog_arg_type)base;
    if (base == SLOG_ARG_STRING || base == SLOG_ARG_JSON) {
        if (type & FMT_ARG_REF) {
            a->v.s = fmt_string_at(strings, get(d));
            d->bad |= a->v.s == NULL;
            return;
        }
        const uint64_t len = get(d);
        if (d->bad || len >= (uint64_t)(d->end - d->p) || d->p[len] != 0) {
            d->bad = 1;
            return;
        }
        a->v.s = (const char *)d->p;
        d->p += len + 1;
        return;
    }
    if (type & FMT_ARG_REF) {
        d->bad = 1;
        return;
    }
    switch (base) {
    case SLOG_ARG_INT:
        a->v.i = codec_unzigzag(get(d));
        break;
    case SLOG_ARG_UINT:
        a->v.u = get(d);
        break;
    case SLOG_ARG_DOUBLE: {
        const uint64_t bits = get_u64le(d);
        memcpy(&a->v.d, &bits, 8);
        break;
    }
    case SLOG_ARG_BOOL:
        if (d->p >= d->end || *d->p > 1) {
            d->bad = 1;
            return;
        }
        a->v.b = *d->p++ != 0;
        break;
    default:
        d->bad = 1;
    }
}

/* Where decoded args go: args[0..cap), of which `used` are taken. */
typedef struct args_sink {
    slog_arg *args;
    uint64_t cap;
    const fmt_strings *strings;
    uint64_t used;
} args_sink;

/* Decode the args of one item whose encoded length is len. */
static void decode_item_args(dec *d, uint64_t len, args_sink *sink, const slog_arg **args,
                             uint32_t *nargs)
{
    *args = NULL;
    *nargs = 0;
    if (len == 0 || d->bad) {
        return;
    }
    if (len > (uint64_t)(d->end - d->p)) {
        d->bad = 1;
        return;
    }
    dec sub = {d->base, d->p, d->p + len, 0, 1};
    const uint64_t n = get(&sub);
    if (sub.bad || n == 0 || n > len || sink->used + n > sink->cap) {
        d->bad = 1;
        return;
    }
    slog_arg *const a = sink->args + sink->used;
    for (uint64_t i = 0; i < n && !sub.bad; i++) {
        decode_arg(&sub, sink->strings, &a[i]);
    }
    if (sub.bad || sub.p != sub.end) {
        d->bad = 1;
        return;
    }
    sink->used += n;
    *args = a;
    *nargs = (uint32_t)n;
    d->p += len;
}

/* The items' arrays (and v2/v3's exclusive times) in one zeroed block from
 * o->slab; v1's arg array apart.  The block's bytes (its class size when it
 * came from the slab) count towards mem_bytes. */
static int alloc_items(fmt_decoded *o, int version)
{
    const size_t at[5] = {0, (size_t)o->n[0] * sizeof *o->states,
                          (size_t)o->n[1] * sizeof *o->events,
                          (size_t)o->n[2] * sizeof *o->arrows,
                          (size_t)o->n[3] * sizeof *o->counters};
    const size_t excl = version == FMT_GEOMETRY_V1 ? 0 : (size_t)o->n[0] * sizeof *o->state_excl;
    const size_t total = at[1] + at[2] + at[3] + at[4] + excl;
    uint8_t *const block = util_slab_alloc(o->slab, total + 1, &o->block_cap);
    if (block == NULL) {
        return -1;
    }
    o->block = block;
    o->states = (slog_state *)block;
    o->events = (slog_event *)(block + at[1]);
    o->arrows = (slog_arrow *)(block + at[1] + at[2]);
    o->counters = (slog_counter *)(block + at[1] + at[2] + at[3]);
    o->state_excl = version == FMT_GEOMETRY_V1 ? NULL : (int64_t *)(block + total - excl);
    o->mem_bytes = o->block_cap ? o->block_cap : total;
    if (version == FMT_GEOMETRY_V1) {
        /* args are in this blob; an arg takes at least 3 bytes */
        o->nargs = o->raw_len / 3 + 1;
        o->args = util_calloc((size_t)o->nargs, sizeof *o->args);
        o->mem_bytes += o->raw_len + (size_t)o->nargs * sizeof *o->args;
        return o->args != NULL ? 0 : -1;
    }
    return 0;
}

/* A column of n varints, each at most 32 bits, into a u32 field of the
 * items (stride bytes apart). */
static void get_u32_column(dec *d, void *items, uint64_t n, size_t stride, size_t off)
{
    dec l = *d; /* a local: the items written cannot alias it, so it stays in registers */
    uint8_t *p = (uint8_t *)items + off;
    for (uint64_t i = 0; i < n; i++, p += stride) {
        const uint32_t v = get32(&l);
        memcpy(p, &v, sizeof v);
    }
    *d = l;
}

static void get_lengths(dec *d, uint64_t *alen, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        alen[i] = get(d);
    }
}

/* Column passes: fill every field but args; v1 remembers args lengths
 * (alen), v2 reads the children-time column into excl. */
static void decode_state_columns(dec *d, fmt_decoded *o, int64_t base, uint64_t *alen)
{
    const uint64_t n = o->n[0];
    slog_state *const v = o->states;
    int64_t prev = base;
    get_u32_column(d, v, n, COLUMN(slog_state, timeline));
    get_u32_column(d, v, n, COLUMN(slog_state, category));
    dec l = *d; /* as in get_u32_column */
    for (uint64_t i = 0; i < n; i++) {
        v[i].end = get_time(&l, &prev);
    }
    for (uint64_t i = 0; i < n; i++) {
        v[i].start = get_start(&l, v[i].end);
    }
    *d = l;
    get_u32_column(d, v, n, COLUMN(slog_state, depth));
    if (alen != NULL) {
        get_lengths(d, alen, n);
        return;
    }
    const uint64_t nbits = (n + 7) / 8;
    if (d->bad || nbits > (uint64_t)(d->end - d->p)) {
        d->bad = 1;
        return;
    }
    const uint8_t *const bits = d->p;
    d->p += nbits;
    l = *d;
    int64_t *const excl = o->state_excl;
    const int pending = o->excl_pending;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t dur = (uint64_t)v[i].end - (uint64_t)v[i].start;
        const int set = (bits[i / 8] >> (i % 8)) & 1;
        if (pending) {
            excl[i] = set ? get_resid(&l) : 0; /* fmt_decoded_resolve_excl */
        } else {
            excl[i] = set ? get_exclusive(&l, dur) : (int64_t)dur;
        }
    }
    *d = l;
}

static void decode_event_columns(dec *d, fmt_decoded *o, int64_t base, uint64_t *alen)
{
    const uint64_t n = o->n[1];
    slog_event *const v = o->events;
    int64_t prev = base;
    get_u32_column(d, v, n, COLUMN(slog_event, timeline));
    get_u32_column(d, v, n, COLUMN(slog_event, category));
    for (uint64_t i = 0; i < n; i++) {
        v[i].time = get_time(d, &prev);
    }
    if (alen != NULL) {
        get_lengths(d, alen, n);
    }
}

static void decode_arrow_columns(dec *d, fmt_decoded *o, int64_t base, uint64_t *alen)
{
    const uint64_t n = o->n[2];
    slog_arrow *const v = o->arrows;
    int64_t prev = base;
    get_u32_column(d, v, n, COLUMN(slog_arrow, category));
    get_u32_column(d, v, n, COLUMN(slog_arrow, from));
    get_u32_column(d, v, n, COLUMN(slog_arrow, to));
    for (uint64_t i = 0; i < n; i++) {
        v[i].end = get_time(d, &prev);
    }
    for (uint64_t i = 0; i < n; i++) {
        v[i].start = get_start(d, v[i].end);
    }
    if (alen != NULL) {
        get_lengths(d, alen, n);
    }
}

static void decode_counter_columns(dec *d, fmt_decoded *o, int64_t base)
{
    const uint64_t n = o->n[3];
    slog_counter *const v = o->counters;
    int64_t prev = base;
    get_u32_column(d, v, n, COLUMN(slog_counter, timeline));
    get_u32_column(d, v, n, COLUMN(slog_counter, category));
    for (uint64_t i = 0; i < n; i++) {
        v[i].time = get_time(d, &prev);
    }
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t bits = get_u64le(d);
        memcpy(&v[i].value, &bits, 8);
    }
}

/* Args of every state, event and arrow, in that order, from d into sink. */
static void decode_all_args(dec *d, fmt_decoded *o, args_sink *sink, const uint64_t *alen)
{
    const uint64_t ns = o->n[0], ne = o->n[1], na = o->n[2];
    for (uint64_t i = 0; i < ns && !d->bad; i++) {
        decode_item_args(d, alen[i], sink, &o->states[i].args, &o->states[i].nargs);
    }
    for (uint64_t i = 0; i < ne && !d->bad; i++) {
        decode_item_args(d, alen[ns + i], sink, &o->events[i].args, &o->events[i].nargs);
    }
    for (uint64_t i = 0; i < na && !d->bad; i++) {
        decode_item_args(d, alen[ns + ne + i], sink, &o->arrows[i].args, &o->arrows[i].nargs);
    }
}

/* Counts of the first `kinds` kinds; each item takes at least one byte per
 * column, which bounds the allocations by the blob's length. */
static int get_counts(dec *d, uint64_t *n, int kinds, size_t len)
{
    uint64_t total = 0;
    for (int k = 0; k < kinds; k++) {
        n[k] = get(d);
        total += n[k];
        if (d->bad || n[k] > len || total > len) {
            d->bad = 1;
            return -1;
        }
    }
    return 0;
}

static int decode_fail(fmt_decoded *out, const dec *d, uint64_t *bad_offset)
{
    *bad_offset = (uint64_t)(d->p - d->base);
    out->raw = NULL; /* the caller keeps raw */
    fmt_decoded_free(out);
    return SLOG_ECORRUPT;
}

/* Version 1: the args follow the columns in the same blob. */
static void decode_v1_args(dec *d, fmt_decoded *out, const fmt_strings *strings, uint64_t *alen)
{
    args_sink sink = {out->args, out->nargs, strings, 0};
    decode_all_args(d, out, &sink, alen);
    out->args_attached = 1;
}

int fmt_node_decode(uint8_t *raw, size_t len, const fmt_strings *strings, fmt_decoded *out,
                    uint64_t *bad_offset)
{
    return fmt_node_decode_in(raw, len, strings, NULL, out, bad_offset);
}

int fmt_node_decode_in(uint8_t *raw, size_t len, const fmt_strings *strings, util_slab *slab,
                       fmt_decoded *out, uint64_t *bad_offset)
{
    memset(out, 0, sizeof *out);
    out->slab = slab;
    dec d = {raw, raw, raw + len, 0, 1};
    if (len < 2 || raw[0] != FMT_BLOB_DRAWABLES || raw[1] < FMT_GEOMETRY_V1 ||
        raw[1] > FMT_GEOMETRY_V3) {
        return decode_fail(out, &d, bad_offset);
    }
    const int version = raw[1];
    d.p += 2;
    if (get_counts(&d, out->n, 4, len) != 0) {
        return decode_fail(out, &d, bad_offset);
    }
    const int64_t base = codec_unzigzag(get(&d));
    if (version != FMT_GEOMETRY_V1) {
        d.unit = get(&d);
        if (d.bad || d.unit == 0 || d.unit > (uint64_t)INT64_MAX) {
            return decode_fail(out, &d, bad_offset);
        }
    }
    out->raw = raw;
    out->raw_len = len;
    const size_t nalen = version == FMT_GEOMETRY_V1 ? (size_t)(out->n[0] + out->n[1] + out->n[2]) : 0;
    uint64_t *const alen = util_calloc(nalen + 1, 8);
    if (alen == NULL || alloc_items(out, version) != 0) {
        util_free(alen);
        out->raw = NULL;
        fmt_decoded_free(out);
        return SLOG_ENOMEM;
    }
    out->excl_pending = version == FMT_GEOMETRY_V3;
    uint64_t *const al = version == FMT_GEOMETRY_V1 ? alen : NULL;
    decode_state_columns(&d, out, base, al);
    decode_event_columns(&d, out, base, al ? al + out->n[0] : NULL);
    decode_arrow_columns(&d, out, base, al ? al + out->n[0] + out->n[1] : NULL);
    decode_counter_columns(&d, out, base);
    if (version == FMT_GEOMETRY_V1) {
        decode_v1_args(&d, out, strings, alen);
    } else if (!d.bad && d.p != d.end) {
        d.bad = 1; /* trailing bytes */
    }
    util_free(alen);
    if (d.bad) {
        return decode_fail(out, &d, bad_offset);
    }
    if (version != FMT_GEOMETRY_V1) {
        util_free(raw); /* nothing points into it */
        out->raw = NULL;
    }
    return SLOG_OK;
}

int fmt_decoded_resolve_excl(fmt_decoded *d)
{
    if (!d->excl_pending) {
        return 0;
    }
    uint32_t max_timeline = 0;
    for (uint64_t i = 0; i < d->n[0]; i++) {
        max_timeline = d->states[i].timeline > max_timeline ? d->states[i].timeline : max_timeline;
    }
    fmt_nest nest;
    fmt_nest_init(&nest);
    if (fmt_nest_reserve(&nest, (size_t)d->n[0], max_timeline) != 0) {
        fmt_nest_free(&nest);
        return -1; /* nothing written yet: the differences are intact */
    }
    for (uint64_t i = 0; i < d->n[0]; i++) {
        const slog_state *const s = &d->states[i];
        const uint64_t dur = (uint64_t)s->end - (uint64_t)s->start;
        const uint64_t shown = fmt_nest_next(&nest, s->timeline, s->depth, s->start, s->end);
        d->state_excl[i] = (int64_t)(dur - shown - (uint64_t)d->state_excl[i]);
    }
    fmt_nest_free(&nest);
    d->excl_pending = 0;
    return 0;
}

static void clear_item_args(fmt_decoded *d)
{
    for (uint64_t i = 0; i < d->n[0]; i++) {
        d->states[i].args = NULL;
        d->states[i].nargs = 0;
    }
    for (uint64_t i = 0; i < d->n[1]; i++) {
        d->events[i].args = NULL;
        d->events[i].nargs = 0;
    }
    for (uint64_t i = 0; i < d->n[2]; i++) {
        d->arrows[i].args = NULL;
        d->arrows[i].nargs = 0;
    }
}

/* Header and length column of an args blob; lengths into alen. */
static int args_header(dec *d, const fmt_decoded *g, uint64_t *alen, size_t len)
{
    uint64_t n[3];
    if (len < 2 || d->p[0] != FMT_BLOB_ARGS || d->p[1] != FMT_ARGS_VERSION) {
        return -1;
    }
    d->p += 2;
    if (get_counts(d, n, 3, len) != 0 || n[0] != g->n[0] || n[1] != g->n[1] || n[2] != g->n[2]) {
        d->bad = 1;
        return -1;
    }
    get_lengths(d, alen, n[0] + n[1] + n[2]);
    return d->bad ? -1 : 0;
}

int fmt_args_attach(fmt_decoded *g, uint8_t *raw, size_t len, const fmt_strings *strings,
                    uint64_t *bad_offset)
{
    if (g->args_attached) {
        return SLOG_EINVAL;
    }
    dec d = {raw, raw, raw + len, 0, 1};
    uint64_t *const alen = util_calloc((size_t)(g->n[0] + g->n[1] + g->n[2]) + 1, 8);
    const uint64_t cap = len / 3 + 1; /* an arg takes at least 3 bytes */
    slog_arg *const args = util_calloc((size_t)cap, sizeof *args);
    if (alen == NULL || args == NULL) {
        util_free(alen);
        util_free(args);
        return SLOG_ENOMEM;
    }
    args_sink sink = {args, cap, strings, 0};
    if (args_header(&d, g, alen, len) == 0) {
        decode_all_args(&d, g, &sink, alen);
    } else {
        d.bad = 1;
    }
    util_free(alen);
    if (d.bad || d.p != d.end) {
        clear_item_args(g);
        util_free(args);
        *bad_offset = (uint64_t)(d.p - raw);
        return SLOG_ECORRUPT;
    }
    g->args_raw = raw;
    g->args = args;
    g->nargs = cap;
    g->args_attached = 1;
    g->mem_bytes += len + (size_t)cap * sizeof *args;
    return SLOG_OK;
}

void fmt_decoded_free(fmt_decoded *d)
{
    util_free(d->raw);
    util_free(d->args_raw);
    util_slab_free(d->slab, d->block, d->block_cap); /* states .. state_excl */
    util_free(d->args);
    memset(d, 0, sizeof *d);
}
