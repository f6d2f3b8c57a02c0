/* SPDX-License-Identifier: MIT
 *
 * check_query_batch.c - slog_query_next_batch gives exactly the items of
 * slog_query_next, in the same order, as columns (the table of
 * slog_reader.h), whatever the capacity (1, 7, 4096) and whichever arrays
 * are given; on random traces at full detail and at 10 to 1000 pixels
 * (previews and pixel runs), with timeline and category filters.
 * Uses only the public API.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_ref.h"

/* Columns of one item, the reference side of the table in slog_reader.h. */
typedef struct ref_row {
    uint8_t kind, of;
    uint32_t timeline, timeline_to, category, depth;
    int64_t start, end, inclusive;
    uint64_t count;
    double value;
} ref_row;

static ref_row row_of(const slog_item *it)
{
    ref_row r = {(uint8_t)it->kind, (uint8_t)it->kind, 0, 0, 0, 0, 0, 0, 0, 1, 0.0};
    if (it->kind == SLOG_KIND_STATE) {
        const slog_state *s = &it->u.state;
        r.timeline = r.timeline_to = s->timeline, r.category = s->category, r.depth = s->depth;
        r.start = s->start, r.end = s->end, r.inclusive = s->end - s->start;
    } else if (it->kind == SLOG_KIND_EVENT) {
        r.timeline = r.timeline_to = it->u.event.timeline, r.category = it->u.event.category;
        r.start = r.end = it->u.event.time;
    } else if (it->kind == SLOG_KIND_ARROW) {
        const slog_arrow *a = &it->u.arrow;
        r.timeline = a->from, r.timeline_to = a->to, r.category = a->category;
        r.start = a->start, r.end = a->end, r.inclusive = a->end - a->start;
    } else if (it->kind == SLOG_KIND_COUNTER) {
        r.timeline = r.timeline_to = it->u.counter.timeline, r.category = it->u.counter.category;
        r.start = r.end = it->u.counter.time, r.value = it->u.counter.value;
    } else if (it->kind == SLOG_KIND_PREVIEW) {
        const slog_preview *p = &it->u.preview;
        r.of = (uint8_t)p->of, r.timeline = p->row, r.timeline_to = p->row_to;
        r.category = p->category, r.depth = p->fold, r.start = p->start, r.end = p->end;
        r.inclusive = p->inclusive, r.count = p->count, r.value = p->vlast;
    } else {
        const slog_run *u = &it->u.run;
        r.of = (uint8_t)u->of, r.timeline = u->timeline, r.timeline_to = u->timeline_to;
        r.category = u->category, r.depth = u->depth, r.start = u->start, r.end = u->end;
        r.inclusive = u->inclusive, r.count = u->count, r.value = u->vlast;
    }
    return r;
}

typedef struct batch_cols {
    uint8_t kind[4096], of[4096];
    uint32_t timeline[4096], timeline_to[4096], category[4096], depth[4096];
    int64_t start[4096], end[4096], inclusive[4096];
    uint64_t count[4096];
    double value[4096];
} batch_cols;

static void check_same(const ref_row *w, const batch_cols *c, size_t i, bool all)
{
    ck_assert_uint_eq(c->kind[i], w->kind);
    ck_assert_int_eq(c->start[i], w->start);
    ck_assert_uint_eq(c->count[i], w->count);
    if (!all) {
        return;
    }
    ck_assert_uint_eq(c->of[i], w->of);
    ck_assert_uint_eq(c->timeline[i], w->timeline);
    ck_assert_uint_eq(c->timeline_to[i], w->timeline_to);
    ck_assert_uint_eq(c->category[i], w->category);
    ck_assert_uint_eq(c->depth[i], w->depth);
    ck_assert_int_eq(c->end[i], w->end);
    ck_assert_int_eq(c->inclusive[i], w->inclusive);
    ck_assert(c->value[i] == w->value);
}

/* Run @p q item by item, then by batches of @p cap, and compare. */
static void compare(slog_reader *r, const slog_query_options *q, size_t cap, bool all)
{
    slog_query *a = NULL, *b = NULL;
    slog_error err;
    ck_assert_int_eq(slog_query_create(&a, r, q, &err), SLOG_OK);
    ck_assert_int_eq(slog_query_create(&b, r, q, &err), SLOG_OK);
    static batch_cols c;
    memset(&c, 0, sizeof c);
    slog_batch bt = {cap, c.kind, c.of, c.timeline, c.timeline_to, c.category, c.start, c.end,
                     c.depth, c.count, c.inclusive, c.value};
    if (!all) { /* a binding asking for a few columns only */
        bt.of = NULL, bt.timeline = NULL, bt.timeline_to = NULL, bt.category = NULL;
        bt.end = NULL, bt.depth = NULL, bt.inclusive = NULL, bt.value = NULL;
    }
    size_t n = 0, at = 0, total = 0;
    const slog_item *it = NULL;
    int rc;
    while ((rc = slog_query_next(a, &it, &err)) == SLOG_OK) {
        if (at == n) {
            ck_assert_int_eq(slog_query_next_batch(b, &bt, &n, &err), SLOG_OK);
            ck_assert_uint_ge(n, 1);
            ck_assert_uint_le(n, cap);
            at = 0;
        }
        const ref_row w = row_of(it);
        check_same(&w, &c, at++, all);
        total++;
    }
    ck_assert_int_eq(rc, SLOG_END);
    ck_assert_uint_eq(at, n);
    ck_assert_int_eq(slog_query_next_batch(b, &bt, &n, &err), SLOG_END);
    ck_assert_uint_eq(n, 0);
    slog_query_stats sa, sb;
    slog_query_stats_get(a, &sa);
    slog_query_stats_get(b, &sb);
    ck_assert_uint_eq(sa.items, total);
    ck_assert_uint_eq(sb.items, total);
    slog_query_destroy(a);
    slog_query_destroy(b);
}

START_TEST(test_query_batch_same_items_as_next)
{
    const tref_params p = {.seed = 0xBA7C4u + (uint64_t)_i, .timelines = 12, .states = 8000,
                           .events = 800, .arrows = 200, .counters = 800,
                           .state_categories = 6, .max_depth = 5, .base = 0, .span = 10000000,
                           .args_percent = 20};
    tref_trace t;
    ck_assert_int_eq(tref_generate(&t, &p), 0);
    char path[256];
    snprintf(path, sizeof path, "/tmp/check_query_batch_%d_%d.slog", _i, (int)getpid());
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 2048;
    slog_error err;
    ck_assert_int_eq(tref_write(&t, path, &o, TR_ORDER_END, p.seed, true, &err), SLOG_OK);
    slog_reader *r = NULL;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    static const size_t caps[] = {1, 7, 4096};
    static const int64_t pixels[] = {0, 10, 100, 1000};
    const uint32_t tls[] = {0, 3, 5}, cats[] = {1, 2};
    for (size_t k = 0; k < 4; k++) {
        slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
        q.t0 = t.start + (t.end - t.start) / 4 * (int64_t)(k % 2);
        q.t1 = t.end + 1;
        q.resolution = pixels[k] ? (q.t1 - q.t0) / pixels[k] + 1 : 0;
        if (_i == 1) {
            q.timelines = tls, q.ntimelines = 3;
        } else if (_i == 2) {
            q.categories = cats, q.ncategories = 2;
        }
        for (size_t c = 0; c < 3; c++) {
            compare(r, &q, caps[c], (c + k) % 2 == 0);
        }
    }
    slog_batch none;
    memset(&none, 0, sizeof none);
    slog_query *q0 = NULL;
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.t1 = INT64_MAX;
    ck_assert_int_eq(slog_query_create(&q0, r, &q, &err), SLOG_OK);
    size_t n = 99;
    ck_assert_int_eq(slog_query_next_batch(q0, &none, &n, &err), SLOG_EINVAL);
    ck_assert_uint_eq(n, 0);
    slog_query_destroy(q0);
    slog_reader_destroy(r);
    remove(path);
    tref_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("query_batch");
    TCase *tc = tcase_create("batch");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_query_batch_same_items_as_next, 0, 3);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
