/* SPDX-License-Identifier: MIT
 *
 * check_thread_memory.c - the threaded writer's memory bound, white-box:
 * the test holds the writer's definitions lock (api_thread.h), which stops
 * the background at its next buffer, so the queue fills deterministically.
 * Waiting mode: the appending thread waits (stats.waits), the queue never
 * holds more than queue_bytes, and once the background goes on every
 * drawable is in the file.  Drop mode: appends never wait, the lost
 * records are counted, and what is in the file is what was appended,
 * exactly (a state whose begin or end was dropped is not written).
 * Begins never ended stop at SLOG_MAX_DEPTH open states.
 * Fork: the fork prepare handler, called by the test, keeps the background idle.
 */
#include "ck_quiet.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_thread.h"

#include <slog/slog.h>

#define PAIRS 20000u

static char path[256];

static void path_setup(void)
{
    snprintf(path, sizeof path, "/tmp/check_thread_memory_%d.slog", (int)getpid());
}

static void path_teardown(void)
{
    remove(path);
}

/* A state as appended: nested three deep in a repeating pattern. */
typedef struct app_state {
    int64_t start, end;
    uint32_t depth;
} app_state;

typedef struct appender {
    slog_location *loc; /* opened before the test holds the definitions lock */
    uint32_t cat;
    app_state *states;
    size_t n;
    int failed;
} appender;

/* Appends a state, then a depth-0 state around two depth-1 states, the
 * second around a depth-2 state, until PAIRS states; records them in order
 * of their end. */
static void *append_main(void *arg)
{
    appender *const a = arg;
    slog_location *const loc = a->loc;
    int64_t t = 0;
    /* one state first, so that buffers end inside the pattern's states */
    int first = slog_location_begin(loc, a->cat, t++, NULL, 0);
    first |= slog_location_end(loc, t);
    a->states[a->n++] = (app_state){0, t++, 0};
    a->failed = first != SLOG_OK;
    while (a->n + 4 <= PAIRS) {
        const int64_t s0 = t++, s1 = t++;
        int rc = slog_location_begin(loc, a->cat, s0, NULL, 0);
        rc |= slog_location_begin(loc, a->cat, s1, NULL, 0);
        rc |= slog_location_end(loc, t);
        a->states[a->n++] = (app_state){s1, t++, 1};
        const int64_t s2 = t++, s3 = t++;
        rc |= slog_location_begin(loc, a->cat, s2, NULL, 0);
        rc |= slog_location_begin(loc, a->cat, s3, NULL, 0);
        rc |= slog_location_end(loc, t);
        a->states[a->n++] = (app_state){s3, t++, 2};
        rc |= slog_location_end(loc, t);
        a->states[a->n++] = (app_state){s2, t++, 1};
        rc |= slog_location_end(loc, t);
        a->states[a->n++] = (app_state){s0, t++, 0};
        /* drop mode may answer SLOG_ENOMEM; waiting mode only SLOG_OK */
        if (rc != SLOG_OK && rc != SLOG_ENOMEM) {
            a->failed = 1;
        }
    }
    slog_location_close(loc);
    return NULL;
}

static slog_twriter *create(uint32_t flags, uint32_t *cat, slog_location **loc)
{
    slog_twriter_options o = SLOG_TWRITER_OPTIONS_INIT;
    o.buffer_bytes = 4096;
    o.queue_bytes = 8192;
    o.flags = flags;
    slog_twriter *tw;
    ck_assert_int_eq(slog_twriter_create(&tw, path, &o, NULL), SLOG_OK);
    ck_assert_int_eq(slog_twriter_category(tw, SLOG_KIND_STATE, "s", cat, NULL), SLOG_OK);
    ck_assert_int_eq(slog_twriter_open_location(tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t", loc,
                                                NULL),
                     SLOG_OK);
    return tw;
}

/* Every state of the file; fills *n. */
static slog_state *read_states(size_t *n)
{
    slog_reader *r;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, NULL), SLOG_OK);
    ck_assert(slog_reader_info(r)->complete);
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.t0 = INT64_MIN / 2;
    q.t1 = INT64_MAX / 2;
    slog_query *it;
    ck_assert_int_eq(slog_query_create(&it, r, &q, NULL), SLOG_OK);
    slog_state *out = malloc(PAIRS * sizeof *out);
    size_t k = 0;
    const slog_item *item;
    int rc;
    while ((rc = slog_query_next(it, &item, NULL)) == SLOG_OK) {
        ck_assert_int_eq(item->kind, SLOG_KIND_STATE);
        ck_assert_uint_lt(k, PAIRS);
        out[k++] = item->u.state;
    }
    ck_assert_int_eq(rc, SLOG_END);
    slog_query_destroy(it);
    slog_reader_destroy(r);
    *n = k;
    return out;
}

START_TEST(test_thread_memory_full_queue_waits)
{
    uint32_t cat;
    slog_location *loc;
    slog_twriter *const tw = create(0, &cat, &loc);
    appender a = {loc, cat, malloc(PAIRS * sizeof(app_state)), 0, 0};
    pthread_mutex_lock(&tw->def_mu); /* the background stops at its next buffer */
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, append_main, &a), 0);
    slog_twriter_stats st;
    do {
        usleep(1000);
        slog_twriter_get_stats(tw, &st);
    } while (st.waits == 0); /* the appender waits for room: it cannot finish */
    ck_assert_uint_le(st.peak_queue_bytes, 8192);
    pthread_mutex_unlock(&tw->def_mu);
    pthread_join(th, NULL);
    ck_assert(!a.failed);
    ck_assert_int_eq(slog_twriter_finish(tw, NULL), SLOG_OK);
    slog_twriter_get_stats(tw, &st);
    ck_assert_uint_eq(st.dropped, 0);
    ck_assert_uint_eq(st.records, a.n);
    /* + the closed location's last buffer, which close queues without waiting */
    ck_assert_uint_le(st.peak_queue_bytes, 8192 + 4096);
    slog_twriter_destroy(tw);
    size_t n;
    slog_state *const got = read_states(&n);
    ck_assert_uint_eq(n, a.n);
    free(got);
    free(a.states);
}
END_TEST

static int by_start(const void *x, const void *y)
{
    const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

START_TEST(test_thread_memory_drop_counts_and_keeps_pairs)
{
    uint32_t cat;
    slog_location *loc;
    slog_twriter *const tw = create(SLOG_TWRITER_DROP, &cat, &loc);
    appender a = {loc, cat, malloc(PAIRS * sizeof(app_state)), 0, 0};
    pthread_mutex_lock(&tw->def_mu);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, append_main, &a), 0);
    pthread_join(th, NULL); /* never waits, even with the background stopped */
    ck_assert(!a.failed);
    slog_twriter_stats st;
    slog_twriter_get_stats(tw, &st);
    ck_assert_uint_eq(st.waits, 0);
    ck_assert_uint_gt(st.dropped, 0);
    ck_assert_uint_le(st.peak_queue_bytes, 8192 + 4096); /* as above */
    pthread_mutex_unlock(&tw->def_mu);
    ck_assert_int_eq(slog_twriter_finish(tw, NULL), SLOG_OK);
    slog_twriter_get_stats(tw, &st);
    slog_twriter_destroy(tw);
    size_t n;
    slog_state *const got = read_states(&n);
    ck_assert_uint_lt(n, a.n);
    ck_assert_uint_eq(n, st.records);
    /* starts are unique: match each written state with its appended one */
    qsort(a.states, a.n, sizeof *a.states, by_start);
    for (size_t i = 0; i < n; i++) {
        const app_state *const s = bsearch(&got[i].start, a.states, a.n, sizeof *a.states,
                                           by_start);
        ck_assert_msg(s != NULL, "state at %lld was never appended", (long long)got[i].start);
        ck_assert_uint_eq(got[i].depth, s->depth);
        ck_assert_int_eq(got[i].end, s->end);
    }
    ck_assert_uint_eq(st.truncated, 0);
    free(got);
    free(a.states);
}
END_TEST

/* Begins never ended (a tracer that misses its ends) stop at the deepest
 * nesting a file holds: the next begin is refused at once, so neither the
 * location nor the background keeps more open states (8 million such
 * begins held 336 MB and all returned SLOG_OK). */
START_TEST(test_thread_memory_open_states_stop_at_max_depth)
{
    uint32_t cat;
    slog_location *loc;
    slog_twriter *const tw = create(0, &cat, &loc);
    int64_t t = 0;
    for (uint32_t i = 0; i <= SLOG_MAX_DEPTH; i++) {
        ck_assert_int_eq(slog_location_begin(loc, cat, t++, NULL, 0), SLOG_OK);
    }
    ck_assert_int_eq(slog_location_begin(loc, cat, t, NULL, 0), SLOG_EINVAL);
    ck_assert_uint_eq(slog_location_depth(loc), SLOG_MAX_DEPTH + 1);
    ck_assert_int_eq(slog_location_end(loc, t), SLOG_OK);
    ck_assert_int_eq(slog_location_begin(loc, cat, t, NULL, 0), SLOG_OK); /* room again */
    slog_location_close(loc);
    ck_assert_int_eq(slog_twriter_finish(tw, NULL), SLOG_OK);
    slog_twriter_stats st;
    slog_twriter_get_stats(tw, &st);
    ck_assert_uint_eq(st.records, SLOG_MAX_DEPTH + 2);
    ck_assert_uint_eq(st.rejected, 0);
    slog_twriter_destroy(tw);
}
END_TEST

/* A fork in progress (its prepare handler run, as fork() does) keeps the
 * background idle, so that the child inherits no lock it held (an
 * allocator's: api_thread_fork.c): records handed over meanwhile wait, and
 * the background writes them by itself once the fork is over. */
START_TEST(test_thread_memory_fork_holds_background)
{
    uint32_t cat;
    slog_location *loc;
    slog_twriter *const tw = create(0, &cat, &loc);
    tw_atfork_prepare();
    for (int64_t t = 0; t < 200; t += 2) { /* 100 states: one buffer */
        ck_assert_int_eq(slog_location_begin(loc, cat, t, NULL, 0), SLOG_OK);
        ck_assert_int_eq(slog_location_end(loc, t + 1), SLOG_OK);
    }
    slog_location_close(loc); /* queued without waiting */
    usleep(200000);           /* a free background takes it within a millisecond */
    slog_twriter_stats st;
    slog_twriter_get_stats(tw, &st);
    ck_assert_uint_eq(st.records, 0);
    tw_atfork_parent();
    do {
        usleep(1000);
        slog_twriter_get_stats(tw, &st);
    } while (st.records < 100); /* no finish needed: the background went on */
    ck_assert_int_eq(slog_twriter_finish(tw, NULL), SLOG_OK);
    slog_twriter_get_stats(tw, &st);
    ck_assert_uint_eq(st.records, 100);
    slog_twriter_destroy(tw);
    size_t n;
    slog_state *const got = read_states(&n);
    ck_assert_uint_eq(n, 100);
    free(got);
}
END_TEST

static Suite *thread_memory_suite(void)
{
    Suite *s = suite_create("thread_memory");
    TCase *tc = tcase_create("thread_memory");
    tcase_add_checked_fixture(tc, path_setup, path_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_thread_memory_full_queue_waits);
    tcase_add_test(tc, test_thread_memory_drop_counts_and_keeps_pairs);
    tcase_add_test(tc, test_thread_memory_fork_holds_background);
    tcase_add_test(tc, test_thread_memory_open_states_stop_at_max_depth);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(thread_memory_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
