/* SPDX-License-Identifier: MIT
 *
 * check_faults.c - fault injection (issue 16 item 5) and the writer's lock.
 * This executable interposes pwrite() and ftruncate(), the calls through
 * which HDF5 writes a file, with a countdown (fail the n-th call with EIO,
 * or every call from the n-th on with ENOSPC, as a full disk does), and
 * drives libslog's allocation countdown (util_alloc_fail_after).  For every
 * n until a run succeeds, writing a small trace must end in a clean error
 * (a code, one line of message naming the file), never a crash; the file
 * left behind either does not open or opens incomplete, and a full query
 * then returns only drawables that were written, exactly as many as the
 * file says.  Reading under allocation faults gives the right answer or a
 * clean error.  ASan (CI) checks that no failure path leaks.
 * Test layer: libslog's internal static library (for the countdown).
 */
#define _GNU_SOURCE
/* HDF5 imports pwrite and ftruncate by these names; with the build's
 * _FILE_OFFSET_BITS=64 the headers would rename ours to pwrite64 (off_t is
 * 64 bits on the 64-bit platforms we support either way). */
#undef _FILE_OFFSET_BITS
#include "ck_quiet.h"
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <slog/slog.h>

#include "util_alloc.h"

#define N_STATES 3000
#define N_TIMELINES 4

/* ---- the countdown behind pwrite and ftruncate ---- */

static long io_countdown = -1; /* -1: off; else calls left before failing */
static int io_sticky;          /* fail every call once failed (a full disk) */
static int io_failed;

static int io_should_fail(void)
{
    if (io_countdown < 0) {
        return 0;
    }
    if (io_countdown == 0) {
        io_failed = 1;
        if (!io_sticky) {
            io_countdown = -1;
        }
        errno = io_sticky ? ENOSPC : EIO;
        return 1;
    }
    io_countdown--;
    return 0;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (real == NULL) {
        *(void **)&real = dlsym(RTLD_NEXT, "pwrite");
    }
    return io_should_fail() ? -1 : real(fd, buf, n, off);
}

int ftruncate(int fd, off_t len);
int ftruncate(int fd, off_t len)
{
    static int (*real)(int, off_t);
    if (real == NULL) {
        *(void **)&real = dlsym(RTLD_NEXT, "ftruncate");
    }
    return io_should_fail() ? -1 : real(fd, len);
}

/* ---- a small trace ---- */

static char dir[256];
static uint32_t writer_flags; /* SLOG_WRITER_BACKGROUND for the background's runs */

static void dir_setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/check_faults.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void state_of(int i, slog_state *s)
{
    memset(s, 0, sizeof *s);
    s->timeline = 1 + (uint32_t)(i % N_TIMELINES);
    s->category = (uint32_t)(i % 3);
    s->start = (int64_t)i * 100 + (i * 7919) % 37;
    s->end = s->start + 10 + (i * 104729) % 50;
}

/* Writes the trace; the first failing call's code (SLOG_OK when none). */
static int write_trace(const char *path, slog_error *err)
{
    slog_writer_options o;
    slog_writer_options_init(&o);
    o.leaf_bytes = 1024; /* many nodes, so many writes */
    o.flags = writer_flags;
    slog_writer *w = NULL;
    int rc = slog_writer_create(&w, path, &o, err);
    uint32_t id = 0;
    for (int t = 0; rc == SLOG_OK && t <= N_TIMELINES; t++) {
        char name[32];
        snprintf(name, sizeof name, "t%d", t);
        rc = slog_writer_add_timeline(w, t == 0 ? SLOG_NO_PARENT : 0,
                                      t == 0 ? SLOG_TIMELINE_PROCESS : SLOG_TIMELINE_THREAD, name,
                                      (int64_t)t, &id, err);
    }
    for (int c = 0; rc == SLOG_OK && c < 3; c++) {
        char name[32];
        snprintf(name, sizeof name, "c%d", c);
        rc = slog_writer_add_category(w, SLOG_KIND_STATE, name, 0, NULL, &id, err);
    }
    for (int i = 0; rc == SLOG_OK && i < N_STATES; i++) {
        slog_state s;
        state_of(i, &s);
        rc = slog_writer_append_state(w, &s, err);
        if (rc == SLOG_OK && i % 500 == 499) {
            rc = slog_writer_flush(w, err);
        }
    }
    if (rc == SLOG_OK) {
        rc = slog_writer_finish(w, err);
    }
    slog_writer_destroy(w);
    return rc;
}

static int written(const slog_state *got)
{
    const int i = (int)(got->start / 100);
    slog_state want;
    state_of(i, &want);
    return i >= 0 && i < N_STATES && got->timeline == want.timeline &&
           got->category == want.category && got->start == want.start && got->end == want.end;
}

/* What the file holds after a failed run: no file, or an incomplete one
 * whose full query yields exactly its count of drawables, each written; a
 * file that says complete (the last close failed after everything was
 * flushed) holds every drawable. */
static void check_left_behind(const char *path)
{
    slog_reader *r = NULL;
    slog_error err;
    if (slog_reader_open(&r, path, NULL, &err) != SLOG_OK) {
        ck_assert_int_lt(err.code, 0);
        return;
    }
    const slog_file_info *fi = slog_reader_info(r);
    slog_query *q = NULL;
    slog_query_options qo;
    slog_query_options_init(&qo);
    qo.t0 = INT64_MIN;
    qo.t1 = INT64_MAX;
    ck_assert_int_eq(slog_query_create(&q, r, &qo, &err), SLOG_OK);
    const slog_item *it;
    uint64_t n = 0;
    int rc;
    while ((rc = slog_query_next(q, &it, &err)) == SLOG_OK) {
        ck_assert_int_eq(it->kind, SLOG_KIND_STATE);
        ck_assert_msg(written(&it->u.state), "a drawable that was never written");
        n++;
    }
    ck_assert_int_eq(rc, SLOG_END);
    ck_assert_uint_eq(n, fi->states);
    ck_assert_msg(!fi->complete || n == N_STATES, "%s says complete with %llu of %d states", path,
                  (unsigned long long)n, N_STATES);
    slog_query_destroy(q);
    slog_reader_destroy(r);
}

static void check_error(const slog_error *err, int rc, const char *path)
{
    ck_assert_int_lt(rc, 0);
    ck_assert_int_eq(err->code, rc);
    ck_assert_msg(err->message[0] != '\0', "no message");
    ck_assert_msg(strchr(err->message, '\n') == NULL, "message on two lines: %s", err->message);
    ck_assert_msg(strstr(err->source, path) != NULL || strstr(err->message, path) != NULL,
                  "the error does not name %s: %s / %s", path, err->source, err->message);
}

/* n = 0, 1, ... until the run succeeds: the n-th pwrite/ftruncate fails. */
static void fail_each_write(int sticky)
{
    dir_setup();
    for (long n = 0;; n++) {
        char path[512];
        snprintf(path, sizeof path, "%s/w%ld.slog", dir, n);
        slog_error err;
        io_countdown = n;
        io_sticky = sticky;
        io_failed = 0;
        const int rc = write_trace(path, &err);
        io_countdown = -1;
        if (!io_failed) {
            fprintf(stderr, "# %s: %ld failing runs before one succeeded\n",
                    sticky ? "disk full from the n-th write" : "n-th write fails", n);
            ck_assert_int_eq(rc, SLOG_OK);
            check_left_behind(path);
            ck_assert_int_gt(n, 10);
            return;
        }
        if (rc != SLOG_OK) {
            check_error(&err, rc, path);
        }
        check_left_behind(path);
        (void)remove(path);
    }
}

START_TEST(test_faults_each_write_fails_once)
{
    fail_each_write(0);
}
END_TEST

START_TEST(test_faults_disk_full_from_each_write)
{
    fail_each_write(1);
}
END_TEST

/* The same with the file built on the writer's background thread: its
 * failures reach the caller (at the next flush or finish) as clean errors. */
START_TEST(test_faults_background_write_fails)
{
    writer_flags = SLOG_WRITER_BACKGROUND;
    fail_each_write(0);
    fail_each_write(1);
    writer_flags = 0;
}
END_TEST

static void fail_each_allocation(void)
{
    dir_setup();
    for (size_t n = 0;; n++) {
        char path[512];
        snprintf(path, sizeof path, "%s/a%zu.slog", dir, n);
        slog_error err;
        util_alloc_fail_after(n);
        const int rc = write_trace(path, &err);
        util_alloc_fail_after((size_t)-1);
        if (rc == SLOG_OK) {
            fprintf(stderr, "# n-th allocation fails: %zu failing runs before one succeeded\n", n);
            check_left_behind(path);
            ck_assert_uint_gt(n, 10);
            return;
        }
        check_error(&err, rc, path);
        check_left_behind(path);
        (void)remove(path);
    }
}

START_TEST(test_faults_each_allocation_fails)
{
    fail_each_allocation();
}
END_TEST

START_TEST(test_faults_background_allocation_fails)
{
    writer_flags = SLOG_WRITER_BACKGROUND;
    fail_each_allocation();
    writer_flags = 0;
}
END_TEST

/* Reading under allocation faults: the whole answer or a clean error. */
START_TEST(test_faults_reader_allocation_fails)
{
    dir_setup();
    char path[512];
    snprintf(path, sizeof path, "%s/r.slog", dir);
    slog_error err;
    ck_assert_int_eq(write_trace(path, &err), SLOG_OK);
    for (size_t n = 0;; n++) {
        util_alloc_fail_after(n);
        slog_reader *r = NULL;
        int rc = slog_reader_open(&r, path, NULL, &err);
        slog_query *q = NULL;
        slog_query_options qo;
        slog_query_options_init(&qo);
        qo.t0 = INT64_MIN;
        qo.t1 = INT64_MAX;
        rc = rc == SLOG_OK ? slog_query_create(&q, r, &qo, &err) : rc;
        uint64_t count = 0;
        const slog_item *it;
        while (rc == SLOG_OK && (rc = slog_query_next(q, &it, &err)) == SLOG_OK) {
            ck_assert_msg(written(&it->u.state), "a drawable that was never written");
            count++;
        }
        util_alloc_fail_after((size_t)-1);
        slog_query_destroy(q);
        slog_reader_destroy(r);
        if (rc == SLOG_END) {
            fprintf(stderr, "# reading, n-th allocation fails: %zu failing runs\n", n);
            ck_assert_uint_eq(count, N_STATES);
            ck_assert_uint_gt(n, 3);
            return;
        }
        check_error(&err, rc, path);
    }
}
END_TEST

/* The writer on a disk that fills up: the calls after the failure say
 * what it was (an MPI rank's finish reports only that later error). */
START_TEST(test_faults_writer_failed_names_cause)
{
    dir_setup();
    char path[512];
    snprintf(path, sizeof path, "%s/w.slog", dir);
    slog_writer_options o;
    slog_writer_options_init(&o);
    o.leaf_bytes = 1024;
    slog_writer *w = NULL;
    slog_error err;
    ck_assert_int_eq(slog_writer_create(&w, path, &o, &err), SLOG_OK);
    uint32_t id;
    ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t", 0,
                                              &id, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_STATE, "c", 0, NULL, &id, &err),
                     SLOG_OK);
    io_countdown = 0;
    io_sticky = 1;
    int rc = SLOG_OK;
    for (int64_t i = 0; rc == SLOG_OK && i < 100000; i++) {
        const slog_state s = {0, 0, i * 10, i * 10 + 5, 0, 0, NULL};
        rc = slog_writer_append_state(w, &s, &err);
    }
    ck_assert_int_eq(rc, SLOG_EIO);
    const slog_state s = {0, 0, 0, 5, 0, 0, NULL};
    memset(&err, 0xff, sizeof err);
    ck_assert_int_eq(slog_writer_append_state(w, &s, &err), SLOG_ESTATE);
    ck_assert_msg(strstr(err.message, "No space left on device") != NULL, "%s", err.message);
    memset(&err, 0xff, sizeof err);
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_ESTATE);
    ck_assert_msg(strstr(err.message, "No space left on device") != NULL, "%s", err.message);
    ck_assert_msg(strchr(err.message, '\n') == NULL, "%s", err.message);
    io_countdown = -1;
    slog_writer_destroy(w);
}
END_TEST

/* A threaded writer at @p path whose leaves close every KiB (the disk is
 * reached soon). */
static slog_twriter *small_leaf_twriter(const char *path)
{
    slog_writer_options wo;
    slog_writer_options_init(&wo);
    wo.leaf_bytes = 1024;
    slog_twriter_options o;
    slog_twriter_options_init(&o);
    o.writer = &wo;
    slog_twriter *tw = NULL;
    ck_assert_int_eq(slog_twriter_create(&tw, path, &o, NULL), SLOG_OK);
    return tw;
}

/* The threaded writer on a disk that fills up: flush and finish return
 * the first error, whose message names the cause (later calls on the
 * failed file writer only say it failed), and appends and definitions are
 * refused from then on, as slog_thread.h says. */
START_TEST(test_faults_twriter_disk_full_keeps_cause)
{
    dir_setup();
    char path[512];
    snprintf(path, sizeof path, "%s/tw.slog", dir);
    slog_error err;
    slog_twriter *const tw = small_leaf_twriter(path);
    slog_location *a = NULL, *b = NULL;
    uint32_t cat;
    ck_assert_int_eq(slog_twriter_open_location(tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "a",
                                                &a, &err), SLOG_OK);
    ck_assert_int_eq(slog_twriter_category(tw, SLOG_KIND_STATE, "c", &cat, &err), SLOG_OK);
    io_countdown = 0; /* the disk is full from now on */
    io_sticky = 1;
    /* 1000 states stay in the location's buffer (32 of 64 KiB), so the
     * background sees them, and fails, only at the flush */
    for (int64_t i = 0; i < 1000; i++) {
        ck_assert_int_eq(slog_location_begin(a, cat, i * 10, NULL, 0), SLOG_OK);
        ck_assert_int_eq(slog_location_end(a, i * 10 + 5), SLOG_OK);
    }
    memset(&err, 0xff, sizeof err);
    ck_assert_int_eq(slog_twriter_flush(tw, &err), SLOG_EIO);
    ck_assert_int_eq(err.code, SLOG_EIO);
    ck_assert_msg(strstr(err.message, "No space left on device") != NULL, "%s", err.message);
    ck_assert_int_eq(slog_location_begin(a, cat, 10000, NULL, 0), SLOG_ESTATE);
    ck_assert_int_eq(slog_twriter_open_location(tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "b",
                                                &b, &err), SLOG_ESTATE);
    memset(&err, 0xff, sizeof err);
    ck_assert_int_eq(slog_twriter_finish(tw, &err), SLOG_EIO);
    ck_assert_int_eq(err.code, SLOG_EIO);
    ck_assert_msg(strstr(err.message, "No space left on device") != NULL, "%s", err.message);
    io_countdown = -1;
    slog_twriter_stats st;
    slog_twriter_get_stats(tw, &st);
    ck_assert_uint_ge(st.dropped, 1);
    slog_location_close(a);
    slog_twriter_destroy(tw);
    slog_reader *r = NULL;
    if (slog_reader_open(&r, path, NULL, &err) == SLOG_OK) {
        ck_assert(!slog_reader_info(r)->complete);
        slog_reader_destroy(r);
    }
}
END_TEST

/* Drawables a full query of @p path yields (UINT64_MAX when it does not open). */
static uint64_t drawables_in(const char *path)
{
    slog_reader *r = NULL;
    if (slog_reader_open(&r, path, NULL, NULL) != SLOG_OK) {
        return UINT64_MAX;
    }
    slog_query_options qo;
    slog_query_options_init(&qo);
    qo.t0 = INT64_MIN;
    qo.t1 = INT64_MAX;
    slog_query *q = NULL;
    ck_assert_int_eq(slog_query_create(&q, r, &qo, NULL), SLOG_OK);
    const slog_item *it;
    uint64_t n = 0;
    while (slog_query_next(q, &it, NULL) == SLOG_OK) {
        n++;
    }
    slog_query_destroy(q);
    slog_reader_destroy(r);
    return n;
}

/* The threaded writer's disk fills after its n-th write, n = 0, 1, ...
 * (a flush every 500 states): once flush or finish failed, stats.records
 * is what reached the disk, the drawables a reader of the file finds
 * (it counted every state the file writer took in memory). */
static int twriter_fill_disk(const char *path, long n, uint64_t *records)
{
    slog_twriter *const tw = small_leaf_twriter(path);
    slog_location *loc = NULL;
    uint32_t cat = 0;
    ck_assert_int_eq(slog_twriter_open_location(tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t",
                                                &loc, NULL), SLOG_OK);
    ck_assert_int_eq(slog_twriter_category(tw, SLOG_KIND_STATE, "c", &cat, NULL), SLOG_OK);
    io_countdown = n;
    io_sticky = 1;
    int rc = SLOG_OK;
    for (int64_t i = 0; rc == SLOG_OK && i < N_STATES; i++) {
        rc = slog_location_begin(loc, cat, i * 10, NULL, 0);
        rc = rc == SLOG_OK ? slog_location_end(loc, i * 10 + 5) : rc;
        rc = rc == SLOG_OK && i % 500 == 499 ? slog_twriter_flush(tw, NULL) : rc;
    }
    slog_location_close(loc);
    const int frc = slog_twriter_finish(tw, NULL);
    slog_twriter_stats st;
    slog_twriter_get_stats(tw, &st);
    *records = st.records;
    slog_twriter_destroy(tw); /* the disk still full */
    io_countdown = -1;
    return rc != SLOG_OK ? rc : frc;
}

START_TEST(test_faults_twriter_records_reached_disk)
{
    dir_setup();
    long unopened = 0;
    for (long n = 0;; n += 7) {
        char path[512];
        snprintf(path, sizeof path, "%s/tr%ld.slog", dir, n);
        uint64_t records = 0;
        const int rc = twriter_fill_disk(path, n, &records);
        if (rc == SLOG_OK) {
            ck_assert_uint_eq(records, N_STATES);
            fprintf(stderr, "# threaded writer, disk full from the n-th write: n up to %ld, %ld "
                            "files left that do not open\n", n, unopened);
            return;
        }
        const uint64_t in_file = drawables_in(path);
        unopened += in_file == UINT64_MAX;
        ck_assert_msg(records == in_file || (in_file == UINT64_MAX && records == 0),
                      "n %ld: stats.records %llu, the file holds %lld", n,
                      (unsigned long long)records, (long long)in_file);
    }
}
END_TEST

/* The threaded writer with the n-th allocation failing, n = 0, 1, ...:
 * clean codes, no crash, and the file (if any) opens. */
static int twriter_run(const char *path)
{
    slog_twriter_options o;
    slog_twriter_options_init(&o);
    o.buffer_bytes = 4096;
    slog_twriter *tw = NULL;
    slog_error err;
    int rc = slog_twriter_create(&tw, path, &o, &err);
    if (rc != SLOG_OK) {
        return rc;
    }
    slog_location *loc = NULL;
    uint32_t cat = 0;
    rc = slog_twriter_open_location(tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t", &loc, &err);
    if (rc == SLOG_OK) {
        rc = slog_twriter_category(tw, SLOG_KIND_STATE, "c", &cat, &err);
    }
    for (int64_t i = 0; rc == SLOG_OK && i < 2000; i++) {
        const slog_arg a = {"k", SLOG_ARG_STRING, {.s = "value"}};
        int r = slog_location_begin(loc, cat, i * 10, &a, 1);
        r = r == SLOG_OK ? slog_location_end(loc, i * 10 + 5) : r;
        if (r != SLOG_OK && r != SLOG_ENOMEM) {
            rc = r;
        }
    }
    slog_location_close(loc);
    const int frc = slog_twriter_finish(tw, &err);
    slog_twriter_destroy(tw);
    return rc != SLOG_OK ? rc : frc;
}

START_TEST(test_faults_twriter_allocation_fails)
{
    dir_setup();
    int oks = 0;
    for (size_t n = 0;; n++) {
        char path[512];
        snprintf(path, sizeof path, "%s/ta%zu.slog", dir, n);
        util_alloc_fail_after(n);
        const int rc = twriter_run(path);
        util_alloc_fail_after((size_t)-1);
        oks = rc == SLOG_OK ? oks + 1 : 0;
        if (oks == 50) {
            fprintf(stderr, "# threaded writer, n-th allocation fails: %zu runs\n", n);
            return;
        }
        ck_assert_msg(rc == SLOG_OK || rc == SLOG_ENOMEM || rc == SLOG_ESTATE || rc == SLOG_EIO,
                      "n %zu: rc %d", n, rc);
        slog_reader *r = NULL;
        slog_error err;
        if (slog_reader_open(&r, path, NULL, &err) == SLOG_OK) {
            slog_reader_destroy(r);
        }
        (void)remove(path);
    }
}
END_TEST

/* Two writers on one path: the second is refused before it truncates
 * anything; the first finishes a complete file; readers open it meanwhile. */
START_TEST(test_faults_second_writer_refused)
{
    dir_setup();
    char path[512];
    snprintf(path, sizeof path, "%s/two.slog", dir);
    slog_error err;
    slog_writer *w1 = NULL, *w2 = NULL;
    ck_assert_int_eq(slog_writer_create(&w1, path, NULL, &err), SLOG_OK);
    uint32_t id;
    ck_assert_int_eq(slog_writer_add_timeline(w1, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t", 0,
                                              &id, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_category(w1, SLOG_KIND_STATE, "c", 0, NULL, &id, &err),
                     SLOG_OK);
    const slog_state s = {0, 0, 10, 20, 0, 0, NULL};
    ck_assert_int_eq(slog_writer_append_state(w1, &s, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_flush(w1, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_create(&w2, path, NULL, &err), SLOG_EIO);
    ck_assert_ptr_null(w2);
    ck_assert_msg(strstr(err.message, "another writer") != NULL, "%s", err.message);
    slog_reader *r = NULL;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    ck_assert_uint_eq(slog_reader_info(r)->states, 1);
    slog_reader_destroy(r);
    ck_assert_int_eq(slog_writer_finish(w1, &err), SLOG_OK);
    slog_writer_destroy(w1);
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    ck_assert(slog_reader_info(r)->complete);
    ck_assert_uint_eq(slog_reader_info(r)->states, 1);
    slog_reader_destroy(r);
    /* the lock went with the writer: the path can be written again */
    ck_assert_int_eq(slog_writer_create(&w2, path, NULL, &err), SLOG_OK);
    slog_writer_destroy(w2);
}
END_TEST

static Suite *faults_suite(void)
{
    Suite *s = suite_create("faults");
    TCase *tc = tcase_create("faults");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_faults_each_write_fails_once);
    tcase_add_test(tc, test_faults_disk_full_from_each_write);
    tcase_add_test(tc, test_faults_each_allocation_fails);
    tcase_add_test(tc, test_faults_background_write_fails);
    tcase_add_test(tc, test_faults_background_allocation_fails);
    tcase_add_test(tc, test_faults_reader_allocation_fails);
    tcase_add_test(tc, test_faults_second_writer_refused);
    tcase_add_test(tc, test_faults_twriter_disk_full_keeps_cause);
    tcase_add_test(tc, test_faults_writer_failed_names_cause);
    tcase_add_test(tc, test_faults_twriter_allocation_fails);
    tcase_add_test(tc, test_faults_twriter_records_reached_disk);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(faults_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
