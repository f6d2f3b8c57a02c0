/* SPDX-License-Identifier: MIT
 *
 * check_writer_bg.c - the file writer with SLOG_WRITER_BACKGROUND (the
 * tree, previews, LZ4 and HDF5 on a thread of the writer's own): a mixed
 * trace (timelines and categories defined between drawables, so that the
 * tables move while the background writes them; interned string args that
 * grow the string heap; begin/end, events, arrows, counters; flushes and a
 * rename on the way) gives the same file byte for byte as the synchronous
 * writer, with and without time bins; a writer destroyed unfinished leaves
 * the same incomplete file; invalid calls are refused at once; on_flush
 * reports the same flushes.  Under ThreadSanitizer in .ci/run.
 */
#include "ck_files.h"
#include "ck_quiet.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slog/slog.h>

#define N_RECORDS 150000 /* several 1 MiB batches */
#define FIRST_TIMELINES 60

static char tmpdir[256];

static void tmpdir_setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/check_writer_bg.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

typedef struct mixed {
    slog_writer *w;
    uint32_t ntl, cat[4];
    uint64_t flushes;
    slog_error err;
} mixed;

static void on_flush(void *ctx, const slog_flush_info *fi)
{
    mixed *const m = ctx;
    m->flushes += fi->durable ? 1u : 0u;
}

static int add_timeline(mixed *m)
{
    char name[32];
    snprintf(name, sizeof name, "thread %u", m->ntl);
    const int rc = slog_writer_add_timeline(m->w, m->ntl == 0 ? SLOG_NO_PARENT : 0,
                                            m->ntl == 0 ? SLOG_TIMELINE_PROCESS
                                                        : SLOG_TIMELINE_THREAD,
                                            name, (int64_t)m->ntl, NULL, &m->err);
    m->ntl += rc == SLOG_OK ? 1u : 0u;
    return rc;
}

static int add_categories(mixed *m, unsigned round)
{
    int rc = SLOG_OK;
    for (int k = 0; rc == SLOG_OK && k < 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "kind %d round %u", k, round);
        rc = slog_writer_add_category(m->w, (slog_kind)k, name, 0, NULL, &m->cat[k], &m->err);
    }
    return rc;
}

/* Record i of the mixed trace: a state with a string arg, a begin/end pair,
 * an event, an arrow or a counter, on one of the timelines defined so far. */
static int put_record(mixed *m, int i)
{
    const uint32_t tl = 1 + (uint32_t)i % (m->ntl - 1);
    const int64_t t = (int64_t)i * 1000;
    char file[32];
    snprintf(file, sizeof file, "/data/file-%d", i % 7000);
    const slog_arg args[2] = {{.key = "file", .type = SLOG_ARG_STRING, .v.s = file},
                              {.key = "bytes", .type = SLOG_ARG_INT, .v.i = i}};
    switch (i % 5) {
    case 0: {
        const slog_state s = {tl, m->cat[0], t, t + 700, 0, 2, args};
        return slog_writer_append_state(m->w, &s, &m->err);
    }
    case 1: {
        int rc = slog_writer_begin(m->w, tl, m->cat[0], t, args, 1, &m->err);
        rc = rc == SLOG_OK ? slog_writer_begin(m->w, tl, m->cat[0], t + 10, NULL, 0, &m->err) : rc;
        rc = rc == SLOG_OK ? slog_writer_end(m->w, tl, t + 300, &m->err) : rc;
        return rc == SLOG_OK ? slog_writer_end(m->w, tl, t + 600, &m->err) : rc;
    }
    case 2: {
        const slog_event e = {tl, m->cat[1], t + 5, 1, args + 1};
        return slog_writer_append_event(m->w, &e, &m->err);
    }
    case 3: {
        const slog_arrow a = {m->cat[2], tl, 1 + (tl % (m->ntl - 1)), t, t + 2500, 1, args};
        return slog_writer_append_arrow(m->w, &a, &m->err);
    }
    default: {
        const slog_counter c = {tl, m->cat[3], t + 7, (double)(i % 1000) * 0.5};
        return slog_writer_append_counter(m->w, &c, &m->err);
    }
    }
}

/* Records from..to-1, with definitions, flushes and a rename between. */
static int put_records(mixed *m, int from, int to)
{
    int rc = SLOG_OK;
    for (int i = from; rc == SLOG_OK && i < to; i++) {
        if (i % 2500 == 0) {
            rc = add_timeline(m);
        }
        if (rc == SLOG_OK && i % 20000 == 0) {
            rc = add_categories(m, (unsigned)(i / 20000));
        }
        if (rc == SLOG_OK && i % 40000 == 39999) {
            rc = slog_writer_flush(m->w, &m->err);
        }
        if (rc == SLOG_OK && i == 90000) {
            rc = slog_writer_set_timeline(m->w, 3, "renamed after a flush", -3, &m->err);
        }
        rc = rc == SLOG_OK ? put_record(m, i) : rc;
    }
    return rc;
}

/* Write the mixed trace (the first @p n records); finish it or not. */
static uint64_t write_mixed(const char *path, uint32_t flags, int n, int finish)
{
    mixed m;
    memset(&m, 0, sizeof m);
    slog_writer_options o;
    slog_writer_options_init(&o);
    o.flags = flags;
    o.leaf_bytes = 8192;
    o.on_flush = on_flush;
    o.on_flush_ctx = &m;
    ck_assert_int_eq(slog_writer_create(&m.w, path, &o, &m.err), SLOG_OK);
    int rc = SLOG_OK;
    while (rc == SLOG_OK && m.ntl < FIRST_TIMELINES) {
        rc = add_timeline(&m);
    }
    rc = rc == SLOG_OK ? put_records(&m, 0, n) : rc;
    ck_assert_msg(rc == SLOG_OK, "%s: %s", path, m.err.message);
    if (finish) {
        ck_assert_msg(slog_writer_finish(m.w, &m.err) == SLOG_OK, "%s", m.err.message);
    }
    slog_writer_destroy(m.w);
    return m.flushes;
}

static void same_bytes(uint32_t flags, int n, int finish)
{
    tmpdir_setup();
    char sync[512], bg[512];
    snprintf(sync, sizeof sync, "%s/sync.slog", tmpdir);
    snprintf(bg, sizeof bg, "%s/bg.slog", tmpdir);
    const uint64_t fs = write_mixed(sync, flags, n, finish);
    const uint64_t fb = write_mixed(bg, flags | SLOG_WRITER_BACKGROUND, n, finish);
    ck_assert_uint_gt(fs, 3);
    ck_assert_uint_eq(fs, fb);
    ck_assert_same_file(sync, bg);
    slog_reader *r = NULL;
    slog_error err;
    ck_assert_int_eq(slog_reader_open(&r, bg, NULL, &err), SLOG_OK);
    const slog_file_info *fi = slog_reader_info(r);
    ck_assert_int_eq(fi->complete != 0, finish != 0);
    if (finish) {
        ck_assert_uint_eq(fi->states, (uint64_t)n / 5 * 3);
        ck_assert_uint_eq(fi->timelines, FIRST_TIMELINES + (uint64_t)(n + 2499) / 2500);
    }
    slog_reader_destroy(r);
    (void)remove(sync);
    (void)remove(bg);
    (void)rmdir(tmpdir);
}

START_TEST(test_bg_same_bytes)
{
    same_bytes(0, N_RECORDS, 1);
}
END_TEST

START_TEST(test_bg_same_bytes_time_bins)
{
    same_bytes(SLOG_WRITER_TIME_BINS, N_RECORDS, 1);
}
END_TEST

START_TEST(test_bg_destroyed_unfinished)
{
    same_bytes(SLOG_WRITER_TIME_BINS, N_RECORDS - 12345, 0);
}
END_TEST

/* Invalid calls are the caller side's: refused at once, writer usable. */
START_TEST(test_bg_invalid_calls)
{
    tmpdir_setup();
    char path[512];
    snprintf(path, sizeof path, "%s/bad.slog", tmpdir);
    slog_writer_options o;
    slog_writer_options_init(&o);
    o.flags = SLOG_WRITER_BACKGROUND;
    slog_writer *w = NULL;
    slog_error err;
    uint32_t tl, cat;
    ck_assert_int_eq(slog_writer_create(&w, path, &o, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t", 0, &tl,
                                              &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_STATE, "s", 0, NULL, &cat, &err),
                     SLOG_OK);
    const slog_state bad_tl = {tl + 1, cat, 0, 10, 0, 0, NULL};
    ck_assert_int_eq(slog_writer_append_state(w, &bad_tl, &err), SLOG_EINVAL);
    const slog_state ok = {tl, cat, INT64_MIN + 10, INT64_MIN + 20, 0, 0, NULL};
    ck_assert_int_eq(slog_writer_append_state(w, &ok, &err), SLOG_OK);
    const slog_state too_wide = {tl, cat, INT64_MAX - 10, INT64_MAX - 5, 0, 0, NULL};
    ck_assert_int_eq(slog_writer_append_state(w, &too_wide, &err), SLOG_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "2^63-1"));
    ck_assert_int_eq(slog_writer_end(w, tl, 5, &err), SLOG_ESTATE);
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_append_state(w, &ok, &err), SLOG_ESTATE);
    slog_writer_destroy(w);
    slog_reader *r = NULL;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    ck_assert_uint_eq(slog_reader_info(r)->states, 1);
    slog_reader_destroy(r);
    (void)remove(path);
    (void)rmdir(tmpdir);
}
END_TEST

static Suite *writer_bg_suite(void)
{
    Suite *s = suite_create("writer_bg");
    TCase *tc = tcase_create("bg");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_bg_same_bytes);
    tcase_add_test(tc, test_bg_same_bytes_time_bins);
    tcase_add_test(tc, test_bg_destroyed_unfinished);
    tcase_add_test(tc, test_bg_invalid_calls);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(writer_bg_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
