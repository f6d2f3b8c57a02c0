/* SPDX-License-Identifier: MIT
 *
 * check_live_refresh.c - slog_reader_refresh against a live writer (issue
 * 16 item 3): a writer process appends with a flush every step for
 * SLOG_LIVE_SECONDS (default 30) while 4 reader threads, each with its own
 * reader, refresh and query.  Every reader must see a growing, consistent
 * view: counts never decrease; the drawables a refresh adds (a query with
 * first_node = the previous node count) are each the writer's state of
 * that start time, never seen before, and add up to the new state count;
 * timelines and categories added later appear; previews plus drawables of
 * a zoomed-out query equal the state count; a query created before a
 * refresh keeps its snapshot.  After the writer finished: complete, every
 * state seen exactly once, and the same answers as a fresh open.
 */
#include "live_util.h"

#include <slog/slog.h>

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NREADERS 4
#define PER_FLUSH 50u
#define PAUSE_US 10000u

static char path[64];
static unsigned flushes;
static volatile int writer_done; /* set (under done_lock) when the writer exited */
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct follower {
    slog_reader *r;
    uint8_t *seen;          /* per state index */
    uint64_t nseen, cap, refreshes, grew;
    char fail[512];
} follower;

static int is_done(void)
{
    pthread_mutex_lock(&done_lock);
    const int d = writer_done;
    pthread_mutex_unlock(&done_lock);
    return d;
}

#define FAIL(f, ...) ((void)snprintf((f)->fail, sizeof (f)->fail, __VA_ARGS__), -1)

/* A state of the view: the writer's state of its start time, seen once. */
static int check_state(follower *f, const slog_state *s, const slog_file_info *info)
{
    const int64_t i64 = (s->start - LIVE_STATE_START(0)) / 50;
    if (i64 < 0 || (uint64_t)i64 >= f->cap) {
        return FAIL(f, "state at %lld is no state of the writer", (long long)s->start);
    }
    const uint64_t i = (uint64_t)i64;
    slog_state want = {0, 0, 0, 0, 0, 0, NULL};
    live_state_at(i, PER_FLUSH, &want.timeline, &want.category, &want.start, &want.end);
    if (s->start != want.start || s->end != want.end || s->timeline != want.timeline ||
        s->category != want.category || s->depth != 0) {
        return FAIL(f, "state %llu differs from what the writer wrote", (unsigned long long)i);
    }
    if (s->timeline >= info->timelines || s->category >= info->categories) {
        return FAIL(f, "state %llu names a timeline or category the view lacks",
                    (unsigned long long)i);
    }
    if (f->seen[i]) {
        return FAIL(f, "state %llu seen twice", (unsigned long long)i);
    }
    f->seen[i] = 1;
    f->nseen++;
    return 0;
}

/* Items of a query: states (checked when f != NULL), and preview state counts. */
static int drain(follower *f, slog_query *q, const slog_file_info *info, uint64_t *states,
                 uint64_t *previewed)
{
    const slog_item *it;
    slog_error err;
    int rc;
    while ((rc = slog_query_next(q, &it, &err)) == SLOG_OK) {
        if (it->kind == SLOG_KIND_STATE) {
            (*states)++;
            if (f != NULL && check_state(f, &it->u.state, info) != 0) {
                return -1;
            }
        } else if (it->kind == SLOG_KIND_PREVIEW && it->u.preview.of == SLOG_KIND_STATE) {
            *previewed += it->u.preview.count;
        }
    }
    return rc == SLOG_END ? 0 : FAIL(f, "query failed: %s", err.message);
}

static slog_query *whole(slog_reader *r, uint64_t first_node, int64_t resolution)
{
    slog_query_options o = SLOG_QUERY_OPTIONS_INIT;
    o.t0 = INT64_MIN;
    o.t1 = INT64_MAX;
    o.first_node = first_node;
    o.resolution = resolution;
    o.kinds = resolution > 0 ? (1u << SLOG_KIND_STATE) | (1u << SLOG_KIND_PREVIEW) : 0;
    slog_query *q = NULL;
    return slog_query_create(&q, r, &o, NULL) == SLOG_OK ? q : NULL;
}

/* A zoomed-out query: its previews and drawables add up to the states. */
static int check_previews(follower *f, const slog_file_info *info)
{
    if (info->states == 0) {
        return 0;
    }
    slog_query_options o = SLOG_QUERY_OPTIONS_INIT;
    o.t0 = info->start;
    o.t1 = info->end + 1;
    o.resolution = (o.t1 - o.t0) / 200 + 1;
    o.kinds = (1u << SLOG_KIND_STATE) | (1u << SLOG_KIND_PREVIEW);
    slog_query *q = NULL;
    uint64_t states = 0, previewed = 0;
    if (slog_query_create(&q, f->r, &o, NULL) != SLOG_OK || drain(NULL, q, info, &states,
                                                                  &previewed) != 0) {
        slog_query_destroy(q);
        return FAIL(f, "zoomed-out query failed");
    }
    slog_query_destroy(q);
    if (states + previewed != info->states) {
        return FAIL(f, "previews %llu + drawables %llu != %llu states",
                    (unsigned long long)previewed, (unsigned long long)states,
                    (unsigned long long)info->states);
    }
    return 0;
}

static int grew_consistently(follower *f, const slog_file_info *b, const slog_file_info *a)
{
    if (a->states < b->states || a->nodes < b->nodes || a->timelines < b->timelines ||
        a->categories < b->categories || (b->complete && !a->complete)) {
        return FAIL(f, "the view shrank: states %llu -> %llu, nodes %llu -> %llu",
                    (unsigned long long)b->states, (unsigned long long)a->states,
                    (unsigned long long)b->nodes, (unsigned long long)a->nodes);
    }
    return 0;
}

/* One refresh; with `held`, a query made before it must keep its snapshot. */
static int step(follower *f, int held_query, int previews)
{
    const slog_file_info before = *slog_reader_info(f->r);
    slog_query *held = held_query ? whole(f->r, 0, 0) : NULL;
    const slog_item *it = NULL;
    uint64_t held_states = 0, added = 0, unused = 0;
    if (held != NULL && slog_query_next(held, &it, NULL) == SLOG_OK) {
        held_states += it->kind == SLOG_KIND_STATE;
    }
    bool grew = false;
    slog_error err;
    if (slog_reader_refresh(f->r, &grew, &err) != SLOG_OK) {
        slog_query_destroy(held);
        return FAIL(f, "refresh failed: %s", err.message);
    }
    f->refreshes++;
    f->grew += grew;
    const slog_file_info *const info = slog_reader_info(f->r);
    int rc = grew_consistently(f, &before, info);
    if (rc == 0 && held != NULL) {
        rc = drain(NULL, held, info, &held_states, &unused);
        if (rc == 0 && held_states != before.states) {
            rc = FAIL(f, "a query held across a refresh gave %llu states, not %llu",
                      (unsigned long long)held_states, (unsigned long long)before.states);
        }
    }
    slog_query_destroy(held);
    slog_query *const q = rc == 0 ? whole(f->r, before.nodes, 0) : NULL;
    if (rc == 0 && q == NULL) {
        rc = FAIL(f, "cannot query the nodes a refresh added");
    }
    if (rc == 0) {
        rc = drain(f, q, info, &added, &unused);
    }
    if (rc == 0 && before.states + added != info->states) {
        rc = FAIL(f, "refresh added %llu states, the count grew %llu -> %llu (nodes %llu -> %llu)",
                  (unsigned long long)added, (unsigned long long)before.states,
                  (unsigned long long)info->states, (unsigned long long)before.nodes,
                  (unsigned long long)info->nodes);
    }
    slog_query_destroy(q);
    return rc == 0 && previews ? check_previews(f, info) : rc;
}

static void *follow(void *arg)
{
    follower *const f = arg;
    slog_error err;
    if (slog_reader_open(&f->r, path, NULL, &err) != SLOG_OK) {
        (void)FAIL(f, "open failed: %s", err.message);
        return NULL;
    }
    uint64_t states = 0, unused = 0;
    slog_query *const q = whole(f->r, 0, 0);
    const int rc = q == NULL ? FAIL(f, "no query") : drain(f, q, slog_reader_info(f->r), &states,
                                                           &unused);
    slog_query_destroy(q);
    if (rc != 0 || states != slog_reader_info(f->r)->states) {
        (void)(rc == 0 ? FAIL(f, "%llu states at open, %llu in a query",
                              (unsigned long long)slog_reader_info(f->r)->states,
                              (unsigned long long)states)
                       : 0);
        return NULL;
    }
    for (unsigned k = 0; !is_done(); k++) {
        if (step(f, k % 8 == 3, k % 8 == 5) != 0) {
            return NULL;
        }
        const struct timespec ts = {0, 5000000};
        (void)nanosleep(&ts, NULL);
    }
    if (step(f, 1, 1) == 0 && !slog_reader_info(f->r)->complete) {
        (void)FAIL(f, "the finished file is not complete after a refresh");
    }
    return NULL;
}

/* The followed view must be the finished file as a fresh open sees it. */
static void check_final(const follower *f, const slog_reader *fresh)
{
    const slog_file_info *const a = slog_reader_info(f->r), *const b = slog_reader_info(fresh);
    ck_assert(a->complete && b->complete);
    ck_assert_uint_eq(f->nseen, (uint64_t)flushes * PER_FLUSH);
    ck_assert_uint_eq(a->states, b->states);
    ck_assert_uint_eq(a->nodes, b->nodes);
    ck_assert_uint_eq(a->depth, b->depth);
    ck_assert_int_eq(a->start, b->start);
    ck_assert_int_eq(a->end, b->end);
    ck_assert_uint_eq(a->timelines, live_timelines_after(flushes));
    ck_assert_uint_eq(a->timelines, b->timelines);
    ck_assert_uint_eq(a->categories, b->categories);
    for (uint32_t i = 0; i < b->timelines; i++) {
        slog_timeline_info x, y;
        ck_assert_int_eq(slog_reader_timeline(f->r, i, &x), SLOG_OK);
        ck_assert_int_eq(slog_reader_timeline(fresh, i, &y), SLOG_OK);
        ck_assert_str_eq(x.name, y.name);
    }
    for (uint32_t i = 0; i < b->categories; i++) {
        slog_category_info x, y;
        ck_assert_int_eq(slog_reader_category(f->r, i, &x), SLOG_OK);
        ck_assert_int_eq(slog_reader_category(fresh, i, &y), SLOG_OK);
        ck_assert_str_eq(x.name, y.name);
    }
}

START_TEST(readers_follow_a_live_writer)
{
    const char *const env = getenv("SLOG_LIVE_SECONDS");
    const unsigned seconds = env != NULL && atoi(env) > 0 ? (unsigned)atoi(env) : 30u;
    flushes = seconds * (1000000u / PAUSE_US);
    (void)snprintf(path, sizeof path, "/tmp/check_live_refresh_%ld.slog", (long)getpid());
    const pid_t pid = live_writer_start(path, flushes, PER_FLUSH, PAUSE_US);
    ck_assert_int_gt(pid, 0);
    static follower f[NREADERS];
    pthread_t th[NREADERS];
    for (int i = 0; i < NREADERS; i++) {
        memset(&f[i], 0, sizeof f[i]);
        f[i].cap = (uint64_t)flushes * PER_FLUSH;
        f[i].seen = calloc((size_t)f[i].cap, 1);
        ck_assert_ptr_nonnull(f[i].seen);
        ck_assert_int_eq(pthread_create(&th[i], NULL, follow, &f[i]), 0);
    }
    const int writer_ok = live_writer_wait(pid);
    pthread_mutex_lock(&done_lock);
    writer_done = 1;
    pthread_mutex_unlock(&done_lock);
    for (int i = 0; i < NREADERS; i++) {
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
    }
    ck_assert(writer_ok);
    slog_reader *fresh = NULL;
    ck_assert_int_eq(slog_reader_open(&fresh, path, NULL, NULL), SLOG_OK);
    for (int i = 0; i < NREADERS; i++) {
        (void)fprintf(stderr, "# reader %d: %llu refreshes, %llu grew, %llu states seen\n", i,
                      (unsigned long long)f[i].refreshes, (unsigned long long)f[i].grew,
                      (unsigned long long)f[i].nseen);
        ck_assert_msg(f[i].fail[0] == '\0', "reader %d: %s", i, f[i].fail);
        ck_assert_uint_gt(f[i].grew, 1);
        check_final(&f[i], fresh);
        slog_reader_destroy(f[i].r);
        free(f[i].seen);
    }
    slog_reader_destroy(fresh);
    (void)unlink(path);
}
END_TEST

/* A reader in the writer's own process (HDF5 shares the open file, so the
 * reader's open is a plain one): a refresh after the payload grew past its
 * extent at open must take the new nodes, timelines and categories.  It
 * failed with "Blob at /payload byte ... ends past the dataset". */
START_TEST(a_reader_in_the_writers_process_follows_it)
{
    char p[64];
    (void)snprintf(p, sizeof p, "/tmp/check_live_refresh_self_%ld.slog", (long)getpid());
    slog_writer *w = NULL;
    slog_error err;
    uint32_t tl, cc, tl2, cs;
    ck_assert_int_eq(slog_writer_create(&w, p, NULL, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_COUNTER, "c", 0,
                                              &tl, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_COUNTER, "rss", 0, NULL, &cc, &err),
                     SLOG_OK);
    slog_counter c = {.timeline = tl, .category = cc, .time = 0, .value = 0};
    ck_assert_int_eq(slog_writer_append_counter(w, &c, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_flush(w, &err), SLOG_OK);
    slog_reader *r = NULL;
    ck_assert_int_eq(slog_reader_open(&r, p, NULL, &err), SLOG_OK);
    const uint64_t nodes0 = slog_reader_info(r)->nodes;
    ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "late", 0,
                                              &tl2, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_STATE, "s", 0, "g", &cs, &err),
                     SLOG_OK);
    const slog_state st = {.timeline = tl2, .category = cs, .start = 3, .end = 9};
    ck_assert_int_eq(slog_writer_append_state(w, &st, &err), SLOG_OK);
    for (int k = 1; k <= 50000; k++) { /* the payload grows far past its extent at open */
        c.time = k;
        c.value = k;
        ck_assert_int_eq(slog_writer_append_counter(w, &c, &err), SLOG_OK);
    }
    ck_assert_int_eq(slog_writer_flush(w, &err), SLOG_OK);
    bool grew = false;
    ck_assert_msg(slog_reader_refresh(r, &grew, &err) == SLOG_OK, "refresh: %s", err.message);
    ck_assert(grew);
    ck_assert_uint_eq(slog_reader_info(r)->counters, 50001);
    ck_assert_uint_eq(slog_reader_info(r)->timelines, 2);
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.t0 = INT64_MIN;
    q.t1 = INT64_MAX;
    q.first_node = nodes0;
    slog_query *it = NULL;
    ck_assert_int_eq(slog_query_create(&it, r, &q, &err), SLOG_OK);
    const slog_item *item;
    uint64_t n = 0;
    int rc;
    while ((rc = slog_query_next(it, &item, &err)) == SLOG_OK) {
        n++;
    }
    ck_assert_msg(rc == SLOG_END, "query: %s", err.message);
    ck_assert_uint_eq(n, 50001); /* the state and the counters added */
    slog_query_destroy(it);
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);
    ck_assert_int_eq(slog_reader_refresh(r, &grew, &err), SLOG_OK);
    ck_assert(slog_reader_info(r)->complete);
    slog_reader_destroy(r);
    (void)unlink(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("live_refresh");
    TCase *tc = tcase_create("refresh");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, readers_follow_a_live_writer);
    tcase_add_test(tc, a_reader_in_the_writers_process_follows_it);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
