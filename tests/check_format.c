/* SPDX-License-Identifier: MIT
 *
 * check_format.c - the format layer without I/O: geometry and args blobs
 * (node_format, format 2; a hand-made format-1 blob still decodes) and
 * preview blobs (preview) round-trip exactly, exact-size bookkeeping holds,
 * corrupt bytes are rejected with an offset and never read out of bounds,
 * and folding keeps totals exact within the budget.
 */
#include "node_format.h"
#include "preview.h"
#include "util_alloc.h"
#include "util_intern.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static uint64_t intern_cb(void *user, const char *text, size_t len, int is_key)
{
    (void)is_key;
    return util_intern_add(user, text, len, !is_key);
}

typedef struct fixture {
    util_intern strings;
    fmt_node node;
    util_buf blob;       /* geometry */
    util_buf args_blob;  /* args */
} fixture;

static void fill_node(fixture *f, unsigned n)
{
    util_intern_init(&f->strings, 1u << 20);
    fmt_node_init(&f->node);
    memset(&f->blob, 0, sizeof f->blob);
    memset(&f->args_blob, 0, sizeof f->args_blob);
    util_buf args = {0};
    for (unsigned i = 0; i < n; i++) {
        const slog_arg a[3] = {
            {"path", SLOG_ARG_STRING, {.s = (i % 3) ? "/data/file.h5" : "a-long-unique-value"}},
            {"size", SLOG_ARG_INT, {.i = -(int64_t)i * 1000}},
            {"big", SLOG_ARG_UINT, {.u = UINT64_MAX - i}},
        };
        args.len = 0;
        ck_assert_int_eq(fmt_args_encode(a, i % 4 == 0 ? 0 : 3, intern_cb, &f->strings, &args), 0);
        /* exclusive time: half the duration, or more than it (overlapping
         * children make the writer's children time exceed the duration) */
        const int64_t excl = i % 5 == 4 ? -(int64_t)i : (50 + (int64_t)i) / 2;
        const fmt_state_rec s = {(int64_t)i * 100, (int64_t)i * 100 + 50 + i, excl, i % 7, i % 5,
                                 i % 3, 0, 0, 0};
        ck_assert_int_eq(fmt_node_add_state(&f->node, &s, args.data, args.len), 0);
        const fmt_event_rec e = {(int64_t)i * 100 + 1, i % 7, 9, 0, 0};
        ck_assert_int_eq(fmt_node_add_event(&f->node, &e, args.data, args.len), 0);
        const fmt_arrow_rec r = {(int64_t)i * 90, (int64_t)i * 100, 11, i % 7, (i + 1) % 7, 0, 0};
        ck_assert_int_eq(fmt_node_add_arrow(&f->node, &r, NULL, 0), 0);
        const fmt_counter_rec c = {-(int64_t)i, (double)i * 0.5, i % 2, 12};
        ck_assert_int_eq(fmt_node_add_counter(&f->node, &c), 0);
    }
    util_buf_free(&args);
    ck_assert_int_eq(fmt_node_encode(&f->node, &f->blob), 0);
    ck_assert_int_eq(fmt_node_encode_args(&f->node, &f->args_blob), 0);
}

static void free_fixture(fixture *f)
{
    fmt_node_free(&f->node);
    util_buf_free(&f->blob);
    util_buf_free(&f->args_blob);
    util_intern_free(&f->strings);
}

static uint8_t *copy_blob(const util_buf *b)
{
    uint8_t *const p = util_malloc(b->len);
    memcpy(p, b->data, b->len);
    return p;
}

START_TEST(test_node_format_encoded_size_is_exact)
{
    fixture f;
    fill_node(&f, 500);
    ck_assert_uint_le(f.blob.len, fmt_node_geometry_size(&f.node));
    ck_assert_uint_ge(f.blob.len + 10, fmt_node_geometry_size(&f.node)); /* unit 1 */
    ck_assert_uint_eq(f.args_blob.len, fmt_node_args_size(&f.node));
    /* header: 2 bytes + 4 count varints + base varint */
    ck_assert_uint_le(f.blob.len, f.node.encoded_bytes + 2 + 4 * 10 + 10);
    /* no item with args: no args blob */
    fmt_node none;
    fmt_node_init(&none);
    const fmt_state_rec s = {1, 2, 1, 0, 0, 0, 0, 0, 0};
    ck_assert_int_eq(fmt_node_add_state(&none, &s, NULL, 0), 0);
    util_buf b = {0};
    ck_assert_int_eq(fmt_node_encode_args(&none, &b), 0);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_uint_eq(fmt_node_args_size(&none), 0);
    fmt_node_free(&none);
    free_fixture(&f);
}
END_TEST

START_TEST(test_node_format_round_trip_every_field)
{
    fixture f;
    fill_node(&f, 300);
    const fmt_strings fs = {(const char *)f.strings.heap.data, f.strings.heap.len};
    fmt_decoded d;
    uint64_t bad = 0;
    ck_assert_int_eq(fmt_node_decode(copy_blob(&f.blob), f.blob.len, &fs, &d, &bad), SLOG_OK);
    ck_assert_int_eq(fmt_decoded_resolve_excl(&d), 0);
    ck_assert_uint_eq(d.n[0], 300);
    ck_assert_uint_eq(d.n[3], 300);
    /* geometry only: no args until they are attached */
    ck_assert_int_eq(d.args_attached, 0);
    for (unsigned i = 0; i < 300; i++) {
        ck_assert_uint_eq(d.states[i].nargs, 0);
        ck_assert_ptr_null(d.states[i].args);
        ck_assert_uint_eq(d.events[i].nargs, 0);
        ck_assert_int_eq(d.state_excl[i], i % 5 == 4 ? -(int64_t)i : (50 + (int64_t)i) / 2);
    }
    ck_assert_int_eq(fmt_args_attach(&d, copy_blob(&f.args_blob), f.args_blob.len, &fs, &bad),
                     SLOG_OK);
    ck_assert_int_eq(d.args_attached, 1);
    for (unsigned i = 0; i < 300; i++) {
        const slog_state *const s = &d.states[i];
        ck_assert_int_eq(s->start, (int64_t)i * 100);
        ck_assert_int_eq(s->end, (int64_t)i * 100 + 50 + i);
        ck_assert_uint_eq(s->timeline, i % 7);
        ck_assert_uint_eq(s->category, i % 5);
        ck_assert_uint_eq(s->depth, i % 3);
        ck_assert_uint_eq(s->nargs, i % 4 == 0 ? 0 : 3);
        if (s->nargs == 3) {
            ck_assert_str_eq(s->args[0].key, "path");
            ck_assert_str_eq(s->args[0].v.s, (i % 3) ? "/data/file.h5" : "a-long-unique-value");
            ck_assert_int_eq(s->args[1].v.i, -(int64_t)i * 1000);
            ck_assert(s->args[2].type == SLOG_ARG_UINT && s->args[2].v.u == UINT64_MAX - i);
        }
        ck_assert_uint_eq(d.events[i].nargs, i % 4 == 0 ? 0 : 3);
        ck_assert_uint_eq(d.arrows[i].nargs, 0);
        ck_assert_int_eq(d.events[i].time, (int64_t)i * 100 + 1);
        ck_assert_uint_eq(d.arrows[i].from, i % 7);
        ck_assert_uint_eq(d.arrows[i].to, (i + 1) % 7);
        ck_assert_int_eq(d.arrows[i].end, (int64_t)i * 100);
        ck_assert_int_eq(d.counters[i].time, -(int64_t)i);
        ck_assert(d.counters[i].value == (double)i * 0.5);
    }
    fmt_decoded_free(&d);
    free_fixture(&f);
}
END_TEST

/* Every truncation and many single-byte corruptions: an error with an
 * offset inside the blob, or a successful decode; never a crash (ASan). */
START_TEST(test_node_format_corrupt_bytes_are_rejected_in_bounds)
{
    fixture f;
    fill_node(&f, 40);
    const fmt_strings fs = {(const char *)f.strings.heap.data, f.strings.heap.len};
    for (size_t cut = 0; cut < f.blob.len; cut++) {
        fmt_decoded d;
        uint64_t bad = UINT64_MAX;
        uint8_t *const p = copy_blob(&f.blob);
        const int rc = fmt_node_decode(p, cut, &fs, &d, &bad);
        util_free(p); /* on failure the caller keeps ownership */
        ck_assert_int_eq(rc, SLOG_ECORRUPT);
        ck_assert_uint_le(bad, cut);
    }
    unsigned ok = 0;
    for (size_t pos = 0; pos < f.blob.len; pos++) {
        uint8_t *const p = copy_blob(&f.blob);
        p[pos] ^= (uint8_t)(0x5a + pos);
        fmt_decoded d;
        uint64_t bad = UINT64_MAX;
        const int rc = fmt_node_decode(p, f.blob.len, &fs, &d, &bad);
        if (rc == SLOG_OK) {
            ok++;
            fmt_decoded_free(&d);
        } else {
            util_free(p);
            ck_assert_int_eq(rc, SLOG_ECORRUPT);
            ck_assert_uint_lt(bad, f.blob.len + 1);
        }
    }
    ck_assert_uint_lt(ok, f.blob.len); /* most corruptions are detected */
    free_fixture(&f);
}
END_TEST

/* Args blobs: every truncation and many corruptions are rejected in
 * bounds and leave the geometry as it was; counts that differ from the
 * geometry's are rejected. */
START_TEST(test_node_format_corrupt_args_blob_is_rejected_in_bounds)
{
    fixture f;
    fill_node(&f, 40);
    const fmt_strings fs = {(const char *)f.strings.heap.data, f.strings.heap.len};
    fmt_decoded d;
    uint64_t bad = 0;
    ck_assert_int_eq(fmt_node_decode(copy_blob(&f.blob), f.blob.len, &fs, &d, &bad), SLOG_OK);
    for (size_t cut = 0; cut < f.args_blob.len; cut++) {
        uint8_t *const p = copy_blob(&f.args_blob);
        ck_assert_int_eq(fmt_args_attach(&d, p, cut, &fs, &bad), SLOG_ECORRUPT);
        util_free(p); /* on failure the caller keeps ownership */
        ck_assert_uint_le(bad, cut);
        ck_assert_int_eq(d.args_attached, 0);
        for (unsigned i = 0; i < 40; i++) {
            ck_assert_uint_eq(d.states[i].nargs, 0);
        }
    }
    for (size_t pos = 0; pos < f.args_blob.len; pos++) {
        uint8_t *const p = copy_blob(&f.args_blob);
        p[pos] ^= (uint8_t)(0x5a + pos);
        const int rc = fmt_args_attach(&d, p, f.args_blob.len, &fs, &bad);
        if (rc == SLOG_OK) { /* detach for the next round */
            fmt_decoded_free(&d);
            ck_assert_int_eq(fmt_node_decode(copy_blob(&f.blob), f.blob.len, &fs, &d, &bad),
                             SLOG_OK);
        } else {
            util_free(p);
            ck_assert_int_eq(rc, SLOG_ECORRUPT);
            ck_assert_uint_le(bad, f.args_blob.len);
        }
    }
    fmt_decoded_free(&d);
    /* the args of a node with other counts */
    fixture g;
    fill_node(&g, 41);
    ck_assert_int_eq(fmt_node_decode(copy_blob(&f.blob), f.blob.len, &fs, &d, &bad), SLOG_OK);
    uint8_t *const p = copy_blob(&g.args_blob);
    ck_assert_int_eq(fmt_args_attach(&d, p, g.args_blob.len, &fs, &bad), SLOG_ECORRUPT);
    util_free(p);
    fmt_decoded_free(&d);
    free_fixture(&g);
    free_fixture(&f);
}
END_TEST

/* Decode blob b (a copy) and check its states and events against n's
 * records: times, exclusive times, and timelines, categories and depths. */
static void check_decodes_to(const util_buf *b, const fmt_node *n)
{
    uint8_t *const raw = util_malloc(b->len);
    memcpy(raw, b->data, b->len);
    fmt_decoded d;
    uint64_t bad = 0;
    ck_assert_int_eq(fmt_node_decode(raw, b->len, NULL, &d, &bad), SLOG_OK);
    ck_assert_int_eq(fmt_decoded_resolve_excl(&d), 0);
    ck_assert_uint_eq(d.n[0], n->n[0]);
    ck_assert_uint_eq(d.n[1], n->n[1]);
    for (size_t i = 0; i < n->n[0]; i++) {
        ck_assert_int_eq(d.states[i].start, n->states[i].start);
        ck_assert_int_eq(d.states[i].end, n->states[i].end);
        ck_assert_uint_eq(d.states[i].timeline, n->states[i].timeline);
        ck_assert_uint_eq(d.states[i].category, n->states[i].category);
        ck_assert_uint_eq(d.states[i].depth, n->states[i].depth);
        ck_assert_int_eq(d.state_excl[i], n->states[i].excl);
    }
    for (size_t i = 0; i < n->n[1]; i++) {
        ck_assert_int_eq(d.events[i].time, n->events[i].time);
    }
    fmt_decoded_free(&d);
}

/* Times that share a factor (microsecond traces in ns) are stored divided
 * by it, and come back exact, extreme values included. */
START_TEST(test_node_format_time_unit_round_trip)
{
    static const int64_t scale[] = {1000, 1, 1000};
    fmt_node n;
    fmt_node_init(&n);
    const int64_t s = scale[_i];
    for (int64_t i = 0; i < 200; i++) {
        const int64_t t0 = _i == 2 ? INT64_MIN / 2 + i * 7 * s : (1000 + i * 37) * s;
        const fmt_state_rec st = {t0, t0 + (i % 9) * s, (i % 3) * s, 1, 2, 0, 0, 0, 0};
        ck_assert_int_eq(fmt_node_add_state(&n, &st, NULL, 0), 0);
        const fmt_event_rec ev = {t0 + s * 3, 1, 3, 0, 0};
        ck_assert_int_eq(fmt_node_add_event(&n, &ev, NULL, 0), 0);
    }
    util_buf b = {0};
    ck_assert_int_eq(fmt_node_encode(&n, &b), 0);
    ck_assert_uint_le(b.len, fmt_node_geometry_size(&n));
    if (s > 1) { /* a byte or more saved per time value */
        ck_assert_uint_lt(b.len + 400, fmt_node_geometry_size(&n));
    }
    check_decodes_to(&b, &n);
    util_buf_free(&b);
    fmt_node_free(&n);
}
END_TEST

/* The state columns written as states arrive (node_format_cols.h) give
 * the blob the records would: values of every varint length, negative end
 * deltas and children differences; 5 or 20 microsecond states first, which
 * the later states and an event turn into unit 1 (the columns copied).  Each
 * node decodes to its records, and with unit 1 the blob is exactly the
 * size the writer counted (the header, a one-byte unit, encoded_bytes). */
START_TEST(test_node_format_columns_as_states_arrive)
{
    const int scaled = _i == 0 ? 0 : _i == 1 ? 5 : 20; /* leading states in microseconds */
    fmt_node n;
    fmt_node_init(&n);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int64_t end = 1000000;
    for (int i = 0; i < 3000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const int64_t step = i < scaled ? 1000 * (int64_t)(1 + x % 50) : (int64_t)(x % 300) - 40;
        end += step;
        const int64_t dur = i < scaled ? 1000 * (int64_t)(x >> 40 & 7) : (int64_t)(x >> 20 & 0x3ffff);
        const uint32_t tl = (uint32_t)(x >> 8) % (i % 7 == 0 ? 70000u : 100u);
        const uint32_t depth = (uint32_t)(x >> 30) % (i % 11 == 0 ? 200u : 4u);
        const int64_t excl = i % 13 == 0 ? dur / 2 : dur; /* children in other nodes */
        const fmt_state_rec st = {end - dur, end, excl, tl, (uint32_t)(x >> 50) % 300, depth, 0, 0, 0};
        ck_assert_int_eq(fmt_node_add_state(&n, &st, NULL, 0), 0);
    }
    const fmt_event_rec ev = {end + 1, 1, 3, 0, 0}; /* makes the unit 1 */
    ck_assert_int_eq(fmt_node_add_event(&n, &ev, NULL, 0), 0);
    util_buf b = {0};
    ck_assert_int_eq(fmt_node_encode(&n, &b), 0);
    ck_assert_uint_eq(b.len, fmt_node_geometry_size(&n) - (CODEC_VARINT_MAX - 1));
    check_decodes_to(&b, &n);
    util_buf_free(&b);
    fmt_node_free(&n);
}
END_TEST

/* Geometry v3: states whose children lie in the same node, appended
 * children first with the writer's exclusive time, store no children
 * value (one bitmap bit each); a parent whose children lie elsewhere
 * stores the difference; decoding gives every exclusive time back. */
START_TEST(test_node_format_children_in_node_cost_one_bit)
{
    fmt_node n;
    fmt_node_init(&n);
    for (int64_t k = 0; k < 100; k++) {
        const int64_t t = k * 1000;
        /* depth 2 [t+10, t+20], depth 1 [t+5, t+40] and [t+50, t+60], depth 0 [t, t+100] */
        const fmt_state_rec v[] = {{t + 10, t + 20, 10, 3, 1, 2, 0, 0, 0},
                                   {t + 5, t + 40, 25, 3, 1, 1, 0, 0, 0},
                                   {t + 50, t + 60, 10, 3, 1, 1, 0, 0, 0},
                                   {t, t + 100, 55, 3, 1, 0, 0, 0, 0}};
        for (size_t i = 0; i < 4; i++) {
            ck_assert_int_eq(fmt_node_add_state(&n, &v[i], NULL, 0), 0);
        }
    }
    /* one more parent whose children went to another node: 30 ticks of them */
    const fmt_state_rec lone = {200000, 200100, 70, 4, 1, 0, 0, 0, 0};
    ck_assert_int_eq(fmt_node_add_state(&n, &lone, NULL, 0), 0);
    for (size_t i = 0; i < 400; i++) {
        ck_assert_int_eq(n.states[i].resid, 0);
    }
    ck_assert_int_eq(n.states[400].resid, 30);
    util_buf b = {0};
    ck_assert_int_eq(fmt_node_encode(&n, &b), 0);
    uint8_t *const raw = util_malloc(b.len);
    memcpy(raw, b.data, b.len);
    fmt_decoded d;
    uint64_t bad = 0;
    ck_assert_int_eq(fmt_node_decode(raw, b.len, NULL, &d, &bad), SLOG_OK);
    ck_assert_int_eq(d.excl_pending, 1);
    ck_assert_int_eq(fmt_decoded_resolve_excl(&d), 0);
    for (size_t i = 0; i < 401; i++) {
        ck_assert_int_eq(d.state_excl[i], n.states[i].excl);
    }
    fmt_decoded_free(&d);
    util_buf_free(&b);
    fmt_node_free(&n);
}
END_TEST

/* A format-1 drawables blob (args inline, args-length columns, no
 * children time) still decodes, args included. */
START_TEST(test_node_format_version1_blob_decodes_with_args)
{
    static const char heap[] = "key\0value\0";
    const fmt_strings fs = {heap, sizeof heap};
    /* 'D' v1; 1 state 1 event; base zz(100); state: tl 2, cat 3, end delta 0,
     * duration 10, depth 1, args length 4; event: tl 2, cat 4, delta zz(-5),
     * args length 4; args: {key: INT 5}, {key: STRING-REF "value"} */
    static const uint8_t v1[] = {0x44, 1, 1, 1, 0, 0, 0xc8, 0x01, 2, 3, 0, 10, 1, 4,
                                 2, 4, 9, 4, 1, 0, 1, 10, 1, 0, 0x10, 4};
    uint8_t *const raw = util_malloc(sizeof v1);
    memcpy(raw, v1, sizeof v1);
    fmt_decoded d;
    uint64_t bad = 0;
    ck_assert_int_eq(fmt_node_decode(raw, sizeof v1, &fs, &d, &bad), SLOG_OK);
    ck_assert_int_eq(d.args_attached, 1);
    ck_assert_ptr_null(d.state_excl);
    ck_assert_int_eq(d.states[0].start, 90);
    ck_assert_int_eq(d.states[0].end, 100);
    ck_assert_uint_eq(d.states[0].depth, 1);
    ck_assert_uint_eq(d.states[0].nargs, 1);
    ck_assert_str_eq(d.states[0].args[0].key, "key");
    ck_assert_int_eq(d.states[0].args[0].v.i, 5);
    ck_assert_int_eq(d.events[0].time, 95);
    ck_assert_uint_eq(d.events[0].category, 4);
    ck_assert_uint_eq(d.events[0].nargs, 1);
    ck_assert_str_eq(d.events[0].args[0].v.s, "value");
    ck_assert_int_eq(fmt_args_attach(&d, NULL, 0, &fs, &bad), SLOG_EINVAL);
    fmt_decoded_free(&d);
}
END_TEST

/* Timelines 0..N-1: thread t belongs to process N + t / 4 (parents first). */
static pv_fold_ctx make_ctx(uint32_t nthreads, uint32_t **parent, uint32_t **root)
{
    const uint32_t nproc = (nthreads + 3) / 4, n = nthreads + nproc;
    *parent = util_calloc(n, sizeof **parent);
    *root = util_calloc(n, sizeof **root);
    for (uint32_t t = 0; t < n; t++) {
        (*parent)[t] = t < nthreads ? nthreads + t / 4 : SLOG_NO_PARENT;
        (*root)[t] = t < nthreads ? nthreads + t / 4 : t;
    }
    const pv_fold_ctx c = {*parent, *root, n};
    return c;
}

START_TEST(test_preview_round_trip_and_exact_sums)
{
    uint32_t *parent, *root;
    const pv_fold_ctx ctx = make_ctx(8, &parent, &root);
    pv_summary s;
    pv_init(&s);
    int64_t incl = 0;
    for (int i = 0; i < 1000; i++) {
        const int64_t dur = (int64_t)1 << (i % 40);
        incl += i % 3 == 0 ? dur : 0;
        ck_assert_int_eq(pv_add_state(&s, &ctx, (uint32_t)(i % 8), (uint32_t)(i % 3), dur, dur / 2), 0);
        ck_assert_int_eq(pv_add_counter(&s, &ctx, 1, 7, i, (double)(i % 17)), 0);
    }
    ck_assert_int_eq(pv_add_arrow(&s, &ctx, 1, 2, 5, 30), 0);
    util_buf b = {0};
    ck_assert_int_eq(pv_encode(&s, &b), 0);
    ck_assert_uint_eq(b.len, pv_encoded_size(&s));
    pv_entry *v;
    uint64_t n, bad;
    uint32_t fold = 99;
    ck_assert_int_eq(pv_decode(b.data, b.len, &v, &n, &fold, &bad), SLOG_OK);
    ck_assert_uint_eq(fold, 0);
    int64_t got = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (v[i].kind == SLOG_KIND_STATE && v[i].cat == 0) {
            got += v[i].incl;
        }
        if (v[i].kind == SLOG_KIND_COUNTER) {
            ck_assert_uint_eq(v[i].count, 1000);
            ck_assert(v[i].vmax == 16.0 && v[i].vmin == 0.0 && v[i].vlast == (double)(999 % 17));
        }
        if (v[i].kind == SLOG_KIND_ARROW) {
            ck_assert(v[i].row == 1 && v[i].row_to == 2 && v[i].min == 30);
        }
    }
    ck_assert_int_eq(got, incl);
    util_free(v);
    for (size_t cut = 0; cut < b.len; cut++) {
        ck_assert_int_eq(pv_decode(b.data, cut, &v, &n, &fold, &bad), SLOG_ECORRUPT);
    }
    util_buf_free(&b);
    pv_free(&s);
    util_free(parent);
    util_free(root);
}
END_TEST

/* 10^4 timelines x 40 categories: folding brings the preview under budget
 * and keeps count and inclusive time exact. */
START_TEST(test_preview_fold_fits_budget_and_keeps_totals)
{
    uint32_t *parent, *root;
    const pv_fold_ctx ctx = make_ctx(10000, &parent, &root);
    pv_summary s;
    pv_init(&s);
    uint64_t count = 0;
    int64_t incl = 0;
    for (uint32_t i = 0; i < 200000; i++) {
        const int64_t dur = 1 + (int64_t)(i % 1000);
        ck_assert_int_eq(pv_add_state(&s, &ctx, i % 10000, (i * 7) % 40, dur, dur), 0);
        count++;
        incl += dur;
    }
    const size_t budget = 4096;
    ck_assert_int_eq(pv_fit(&s, &ctx, budget), 0);
    ck_assert_uint_le(pv_encoded_size(&s), budget);
    ck_assert_uint_gt(s.fold, 0);
    uint64_t c2 = 0;
    int64_t i2 = 0;
    for (size_t i = 0; i < s.used; i++) {
        c2 += s.entries[i].count;
        i2 += s.entries[i].incl;
    }
    ck_assert_uint_eq(c2, count);
    ck_assert_int_eq(i2, incl);
    pv_free(&s);
    util_free(parent);
    util_free(root);
}
END_TEST

START_TEST(test_preview_fold_row_levels)
{
    uint32_t *parent, *root;
    const pv_fold_ctx ctx = make_ctx(8, &parent, &root);
    ck_assert_uint_eq(pv_fold_row(&ctx, 5, 0, 0), 5);
    ck_assert_uint_eq(pv_fold_row(&ctx, 5, 0, 1), 9);  /* thread 5 -> process 8 + 5/4 */
    ck_assert_uint_eq(pv_fold_row(&ctx, 9, 0, 1), 9);  /* a process folds to itself */
    ck_assert_uint_eq(pv_fold_row(&ctx, 5, 0, 2), 9);
    ck_assert_uint_eq(pv_fold_row(&ctx, 5, 0, 3), 4);  /* block 9 >> 1 */
    ck_assert_uint_eq(pv_fold_row(&ctx, 9, 2, 4), 2);
    util_free(parent);
    util_free(root);
}
END_TEST

int main(void)
{
    Suite *const s = suite_create("format");
    TCase *const tc = tcase_create("format");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_node_format_encoded_size_is_exact);
    tcase_add_test(tc, test_node_format_round_trip_every_field);
    tcase_add_test(tc, test_node_format_corrupt_bytes_are_rejected_in_bounds);
    tcase_add_test(tc, test_node_format_corrupt_args_blob_is_rejected_in_bounds);
    tcase_add_test(tc, test_node_format_version1_blob_decodes_with_args);
    tcase_add_test(tc, test_node_format_children_in_node_cost_one_bit);
    tcase_add_loop_test(tc, test_node_format_time_unit_round_trip, 0, 3);
    tcase_add_loop_test(tc, test_node_format_columns_as_states_arrive, 0, 3);
    tcase_add_test(tc, test_preview_round_trip_and_exact_sums);
    tcase_add_test(tc, test_preview_fold_fits_budget_and_keeps_totals);
    tcase_add_test(tc, test_preview_fold_row_levels);
    suite_add_tcase(s, tc);
    SRunner *const sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
