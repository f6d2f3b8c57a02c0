/* SPDX-License-Identifier: MIT
 *
 * check_concurrency.c - separate readers (and a writer) used from several
 * threads at once: HDF5 calls are serialised by libslog's lock, decoding
 * runs in parallel, and every thread gets exactly the answer it gets alone.
 * CI also runs this suite under ThreadSanitizer.
 */
#include <slog/slog.h>

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NSTATES 20000u
#define NTHREADS 4

static char path[64];

static void write_trace(const char *p, uint32_t n, uint32_t seed)
{
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 2048;
    slog_writer *w;
    slog_error err;
    ck_assert_int_eq(slog_writer_create(&w, p, &o, &err), SLOG_OK);
    uint32_t tl[4], cat;
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t",
                                                  i, &tl[i], &err),
                         SLOG_OK);
    }
    ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_STATE, "s", 0, NULL, &cat, &err),
                     SLOG_OK);
    uint64_t x = seed;
    for (uint32_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        const int64_t t = (int64_t)i * 10;
        const slog_state s = {tl[i % 4], cat, t, t + 5 + (int64_t)(x >> 60), 0, 0, NULL};
        ck_assert_int_eq(slog_writer_append_state(w, &s, &err), SLOG_OK);
    }
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);
}

/* Count what a reader sees in [t0, t1) at full detail and at a resolution. */
static uint64_t count_window(const char *p, int64_t t0, int64_t t1, int64_t res)
{
    slog_reader *r;
    if (slog_reader_open(&r, p, NULL, NULL) != SLOG_OK) {
        return UINT64_MAX;
    }
    slog_query_options o = SLOG_QUERY_OPTIONS_INIT;
    o.t0 = t0;
    o.t1 = t1;
    o.resolution = res;
    slog_query *q;
    uint64_t n = 0;
    if (slog_query_create(&q, r, &o, NULL) == SLOG_OK) {
        const slog_item *it;
        while (slog_query_next(q, &it, NULL) == SLOG_OK) {
            n++;
        }
        slog_query_destroy(q);
    }
    slog_reader_destroy(r);
    return n;
}

typedef struct job {
    int64_t t0, t1, res;
    uint64_t expect;
    int ok;
} job;

static void *reader_thread(void *arg)
{
    job *const j = arg;
    j->ok = 1;
    for (int round = 0; round < 20; round++) {
        if (count_window(path, j->t0, j->t1, j->res) != j->expect) {
            j->ok = 0;
        }
    }
    return NULL;
}

static void *writer_thread(void *arg)
{
    char *const p = arg;
    write_trace(p, NSTATES, 7);
    return NULL;
}

START_TEST(test_concurrency_readers_in_parallel_agree_with_one_reader)
{
    snprintf(path, sizeof path, "/tmp/check_conc_%d.slog", (int)getpid());
    write_trace(path, NSTATES, 1);
    job jobs[NTHREADS];
    pthread_t th[NTHREADS + 1];
    for (int i = 0; i < NTHREADS; i++) {
        jobs[i].t0 = (int64_t)i * 40000;
        jobs[i].t1 = jobs[i].t0 + 30000 + i * 1000;
        jobs[i].res = i % 2 ? 100 : 0;
        jobs[i].expect = count_window(path, jobs[i].t0, jobs[i].t1, jobs[i].res);
        ck_assert_uint_gt(jobs[i].expect, 0);
    }
    char wpath[80];
    snprintf(wpath, sizeof wpath, "%s.w", path);
    for (int i = 0; i < NTHREADS; i++) {
        ck_assert_int_eq(pthread_create(&th[i], NULL, reader_thread, &jobs[i]), 0);
    }
    ck_assert_int_eq(pthread_create(&th[NTHREADS], NULL, writer_thread, wpath), 0);
    for (int i = 0; i <= NTHREADS; i++) {
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
    }
    for (int i = 0; i < NTHREADS; i++) {
        ck_assert_msg(jobs[i].ok, "thread %d saw a different answer", i);
    }
    ck_assert_uint_eq(count_window(wpath, 0, INT64_MAX, 0), NSTATES);
    unlink(path);
    unlink(wpath);
}
END_TEST

int main(void)
{
    Suite *const s = suite_create("concurrency");
    TCase *const tc = tcase_create("concurrency");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_concurrency_readers_in_parallel_agree_with_one_reader);
    suite_add_tcase(s, tc);
    SRunner *const sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
