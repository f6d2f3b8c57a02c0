/* SPDX-License-Identifier: MIT
 *
 * check_search.c - slog_search_next/prev/top against a brute-force
 * reference over random traces (trace_ref.c): from random times, with
 * category, name-substring, timeline and kind filters, rare categories
 * (so that previews prune) and many timelines (so that previews fold);
 * top-N over random windows.  Bad arguments are rejected.  Public API only.
 */
#include "ck_quiet.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_ref.h"

typedef struct sr_config {
    uint32_t timelines, states, events, arrows, counters, cats, depth;
    uint32_t leaf_bytes, fanout;
    tref_order order;
} sr_config;

static const sr_config configs[] = {
    {1, 3000, 200, 50, 200, 3, 6, 1024, 2, TR_ORDER_END},
    {17, 5000, 500, 200, 300, 30, 4, 1024, 4, TR_ORDER_SHUFFLED},
    {300, 5000, 500, 300, 300, 4, 3, 1024, 2, TR_ORDER_BEGIN_END},
    {64, 6000, 400, 400, 200, 60, 5, 2048, 3, TR_ORDER_REVERSED},
};
#define NCONFIGS ((int)(sizeof configs / sizeof configs[0]))

typedef struct sr_file {
    tref_trace trace;
    char path[256];
    slog_reader *reader;
} sr_file;

static void sr_open(sr_file *f, int i)
{
    const sr_config *c = &configs[i];
    const tref_params p = {.seed = 0x5ea4u + (uint64_t)i * 7u, .timelines = c->timelines,
                           .states = c->states, .events = c->events, .arrows = c->arrows,
                           .counters = c->counters, .state_categories = c->cats,
                           .max_depth = c->depth, .base = 1000, .span = 50000000,
                           .args_percent = 10};
    memset(f, 0, sizeof *f);
    ck_assert_int_eq(tref_generate(&f->trace, &p), 0);
    snprintf(f->path, sizeof f->path, "/tmp/check_search_%d_%d.slog", i, (int)getpid());
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = c->leaf_bytes;
    o.fanout = c->fanout;
    slog_error err;
    int rc = tref_write(&f->trace, f->path, &o, c->order, p.seed, true, &err);
    ck_assert_msg(rc == SLOG_OK, "write: %s", err.message);
    rc = slog_reader_open(&f->reader, f->path, NULL, &err);
    ck_assert_msg(rc == SLOG_OK, "open: %s", err.message);
}

static void sr_close(sr_file *f)
{
    slog_reader_destroy(f->reader);
    remove(f->path);
    tref_free(&f->trace);
}

/* ---- the reference ---- */

static int listed(const uint32_t *ids, uint32_t n, uint32_t x)
{
    for (uint32_t i = 0; ids != NULL && i < n; i++) {
        if (ids[i] == x) {
            return 1;
        }
    }
    return ids == NULL;
}

static int ref_match(const sr_file *f, const tref_item *it, const slog_search_options *o)
{
    const uint32_t kinds = o->kinds ? o->kinds : 0xfu;
    char name[32];
    snprintf(name, sizeof name, "cat %u", it->category);
    if (!(kinds & (1u << it->kind)) || !listed(o->categories, o->ncategories, it->category) ||
        (o->name_contains != NULL && strstr(name, o->name_contains) == NULL)) {
        return 0;
    }
    (void)f;
    if ((o->flags & SLOG_SEARCH_WITHIN) && (it->start < o->t0 || it->start >= o->t1)) {
        return 0; /* a drawable's search time is its start (a point's time) */
    }
    return listed(o->timelines, o->ntimelines, it->timeline) ||
           (it->kind == SLOG_KIND_ARROW && listed(o->timelines, o->ntimelines, it->to));
}

typedef struct ref_key {
    int64_t time, end;
    uint32_t kind, timeline, category, depth;
} ref_key;

static ref_key key_of(const tref_item *it)
{
    const ref_key k = {it->start, it->end, (uint32_t)it->kind, it->timeline, it->category,
                       it->kind == SLOG_KIND_STATE ? it->depth : 0u};
    return k;
}

static ref_key key_of_item(const slog_item *it)
{
    switch (it->kind) {
    case SLOG_KIND_STATE:
        return (ref_key){it->u.state.start, it->u.state.end, 0u, it->u.state.timeline,
                         it->u.state.category, it->u.state.depth};
    case SLOG_KIND_EVENT:
        return (ref_key){it->u.event.time, it->u.event.time, 1u, it->u.event.timeline,
                         it->u.event.category, 0u};
    case SLOG_KIND_ARROW:
        return (ref_key){it->u.arrow.start, it->u.arrow.end, 2u, it->u.arrow.from,
                         it->u.arrow.category, 0u};
    default:
        return (ref_key){it->u.counter.time, it->u.counter.time, 3u, it->u.counter.timeline,
                         it->u.counter.category, 0u};
    }
}

static int cmp_key(const ref_key *a, const ref_key *b)
{
    const int64_t x[6] = {a->time, a->kind, a->timeline, a->end, a->category, a->depth};
    const int64_t y[6] = {b->time, b->kind, b->timeline, b->end, b->category, b->depth};
    for (int i = 0; i < 6; i++) {
        if (x[i] != y[i]) {
            return x[i] < y[i] ? -1 : 1;
        }
    }
    return 0;
}

/* Reference next (forward) or prev: 1 and *out when found. */
static int ref_search(const sr_file *f, const slog_search_options *o, int64_t t, int forward,
                      ref_key *out)
{
    int have = 0;
    for (size_t i = 0; i < f->trace.nitems; i++) {
        const tref_item *it = &f->trace.items[i];
        if (!ref_match(f, it, o) || (forward ? it->start <= t : it->start >= t)) {
            continue;
        }
        const ref_key k = key_of(it);
        const int c = have ? cmp_key(&k, out) : 0;
        if (!have || (forward ? c < 0 : c > 0)) {
            *out = k;
            have = 1;
        }
    }
    return have;
}

static int ref_rank(const tref_item *a, const tref_item *b)
{
    const int64_t x[6] = {b->end - b->start, a->start, a->timeline, a->depth, a->category, a->end};
    const int64_t y[6] = {a->end - a->start, b->start, b->timeline, b->depth, b->category, b->end};
    for (int i = 0; i < 6; i++) {
        if (x[i] != y[i]) {
            return x[i] < y[i] ? -1 : 1;
        }
    }
    return 0;
}

static int cmp_rank_ptr(const void *a, const void *b)
{
    return ref_rank(*(const tref_item *const *)a, *(const tref_item *const *)b);
}

/* ---- tests ---- */

static void random_options(const sr_file *f, tref_rng *rng, slog_search_options *o,
                           uint32_t *tls, uint32_t *cat, char *sub)
{
    const unsigned pick = (unsigned)tref_rng_below(rng, 8);
    if (pick & 1u) {
        *cat = (uint32_t)tref_rng_below(rng, f->trace.ncategories);
        o->categories = cat;
        o->ncategories = 1;
    } else if (tref_rng_chance(rng, 50)) {
        snprintf(sub, 16, "cat %u", (unsigned)tref_rng_below(rng, 3) + 1);
        o->name_contains = sub;
    }
    if (pick & 2u) {
        o->ntimelines = 0;
        for (uint32_t i = 0; i < f->trace.ntimelines; i++) {
            if (tref_rng_chance(rng, 10) || o->ntimelines == 0) {
                tls[o->ntimelines++] = i;
            }
        }
        o->timelines = tls;
    }
    if (pick & 4u) {
        o->kinds = 1u << tref_rng_below(rng, 4);
    }
}

static void check_one_direction(const sr_file *f, const slog_search_options *o, int64_t t,
                                int forward)
{
    slog_item it;
    slog_search_cost cost;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    const int rc = forward ? slog_search_next(f->reader, o, t, &it, &cost, &err)
                           : slog_search_prev(f->reader, o, t, &it, &cost, &err);
    ref_key want;
    const int have = ref_search(f, o, t, forward, &want);
    ck_assert_msg(rc == (have ? SLOG_OK : SLOG_END), "%s from %lld: %s (%s), reference %s",
                  forward ? "next" : "prev", (long long)t, slog_status_name(rc), err.message,
                  have ? "found" : "none");
    if (have) {
        const ref_key got = key_of_item(&it);
        ck_assert_msg(cmp_key(&got, &want) == 0,
                      "%s from %lld: got kind %u tl %u cat %u [%lld, %lld], reference kind %u "
                      "tl %u cat %u [%lld, %lld]",
                      forward ? "next" : "prev", (long long)t, got.kind, got.timeline,
                      got.category, (long long)got.time, (long long)got.end, want.kind,
                      want.timeline, want.category, (long long)want.time, (long long)want.end);
    }
}

START_TEST(test_search_next_prev_match_reference)
{
    sr_file f;
    sr_open(&f, _i);
    tref_rng rng;
    tref_rng_seed(&rng, 0x1234u + (uint64_t)_i);
    uint32_t *tls = calloc(f.trace.ntimelines + 1, sizeof *tls);
    ck_assert_ptr_nonnull(tls);
    for (int k = 0; k < 150; k++) {
        slog_search_options o = SLOG_SEARCH_OPTIONS_INIT;
        uint32_t cat;
        char sub[16];
        random_options(&f, &rng, &o, tls, &cat, sub);
        const int64_t span = f.trace.end - f.trace.start;
        int64_t t = f.trace.start - span / 20 + tref_rng_range(&rng, 0, span + span / 10);
        if (tref_rng_chance(&rng, 20)) {
            t = f.trace.items[tref_rng_below(&rng, f.trace.nitems)].start; /* ties at T */
        }
        check_one_direction(&f, &o, t, 1);
        check_one_direction(&f, &o, t, 0);
        /* the same, bounded to a window around T (SLOG_SEARCH_WITHIN) */
        o.flags = SLOG_SEARCH_WITHIN;
        o.t0 = t - tref_rng_range(&rng, 0, span / 8);
        o.t1 = t + tref_rng_range(&rng, 0, span / 8);
        check_one_direction(&f, &o, t, 1);
        check_one_direction(&f, &o, t, 0);
    }
    free(tls);
    sr_close(&f);
}
END_TEST

static void check_top(const sr_file *f, const slog_search_options *o, uint32_t n,
                      const tref_item **all)
{
    size_t m = 0;
    for (size_t i = 0; i < f->trace.nitems; i++) {
        const tref_item *it = &f->trace.items[i];
        if (it->kind == SLOG_KIND_STATE && ref_match(f, it, o) &&
            tref_overlaps(it->start, it->end, o->t0, o->t1)) {
            all[m++] = it;
        }
    }
    qsort(all, m, sizeof *all, cmp_rank_ptr);
    slog_state *got = calloc(n, sizeof *got);
    uint32_t count = n;
    slog_error err;
    const int rc = slog_search_top(f->reader, o, got, &count, NULL, &err);
    ck_assert_msg(rc == SLOG_OK, "top: %s", err.message);
    ck_assert_uint_eq(count, m < n ? m : n);
    for (uint32_t i = 0; i < count; i++) {
        const tref_item *e = all[i];
        ck_assert_msg(got[i].start == e->start && got[i].end == e->end &&
                          got[i].timeline == e->timeline && got[i].category == e->category &&
                          got[i].depth == e->depth,
                      "top %u [%lld, %lld) #%u: [%lld, %lld] tl %u, reference [%lld, %lld] tl %u",
                      n, (long long)o->t0, (long long)o->t1, i, (long long)got[i].start,
                      (long long)got[i].end, got[i].timeline, (long long)e->start,
                      (long long)e->end, e->timeline);
    }
    free(got);
}

START_TEST(test_search_top_matches_reference)
{
    sr_file f;
    sr_open(&f, _i);
    tref_rng rng;
    tref_rng_seed(&rng, 0x9876u + (uint64_t)_i);
    uint32_t *tls = calloc(f.trace.ntimelines + 1, sizeof *tls);
    const tref_item **all = calloc(f.trace.nitems + 1, sizeof *all);
    ck_assert(tls != NULL && all != NULL);
    static const uint32_t ns[] = {1, 3, 10, 100};
    for (int k = 0; k < 60; k++) {
        slog_search_options o = SLOG_SEARCH_OPTIONS_INIT;
        uint32_t cat;
        char sub[16];
        random_options(&f, &rng, &o, tls, &cat, sub);
        o.kinds = 0;
        const int64_t span = f.trace.end - f.trace.start;
        o.t0 = f.trace.start + tref_rng_range(&rng, -span / 10, span);
        o.t1 = o.t0 + tref_rng_range(&rng, 1, tref_rng_chance(&rng, 50) ? span / 20 : span);
        check_top(&f, &o, ns[k % 4], all);
    }
    free(tls);
    free(all);
    sr_close(&f);
}
END_TEST

static void expect_einval(int rc, const slog_error *err, const char *word)
{
    ck_assert_int_eq(rc, SLOG_EINVAL);
    ck_assert_msg(strstr(err->message, word) != NULL, "message '%s' lacks '%s'", err->message,
                  word);
}

START_TEST(test_search_bad_arguments_rejected)
{
    sr_file f;
    sr_open(&f, 0);
    slog_search_options o = SLOG_SEARCH_OPTIONS_INIT;
    slog_item it;
    slog_state st;
    uint32_t count = 7;
    (void)count;
    slog_error err;
    o.t0 = 10;
    o.t1 = 20;
    count = 0;
    expect_einval(slog_search_top(f.reader, &o, &st, &count, NULL, &err), &err, "n >= 1");
    ck_assert_uint_eq(count, 0);
    o.t1 = 5;
    count = 1;
    expect_einval(slog_search_top(f.reader, &o, &st, &count, NULL, &err), &err, "reversed");
    ck_assert_uint_eq(count, 0);
    o.t1 = 20;
    o.name_contains = "no such thing";
    expect_einval(slog_search_next(f.reader, &o, 0, &it, NULL, &err), &err, "no such thing");
    o.name_contains = NULL;
    const uint32_t bad = 999;
    o.categories = &bad;
    o.ncategories = 1;
    expect_einval(slog_search_prev(f.reader, &o, 0, &it, NULL, &err), &err, "category 999");
    o.categories = NULL;
    o.timelines = &bad;
    o.ntimelines = 1;
    expect_einval(slog_search_next(f.reader, &o, 0, &it, NULL, &err), &err, "timeline 999");
    o.timelines = NULL;
    o.ntimelines = 0;
    o.flags = 1u << 5; /* no such flag */
    expect_einval(slog_search_next(f.reader, &o, 0, &it, NULL, &err), &err, "flags");
    sr_close(&f);
}
END_TEST

static Suite *search_suite(void)
{
    Suite *s = suite_create("search");
    TCase *tc = tcase_create("reference");
    tcase_set_timeout(tc, 240);
    tcase_add_loop_test(tc, test_search_next_prev_match_reference, 0, NCONFIGS);
    tcase_add_loop_test(tc, test_search_top_matches_reference, 0, NCONFIGS);
    tcase_add_test(tc, test_search_bad_arguments_rejected);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(search_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
