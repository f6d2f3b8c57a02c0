/* SPDX-License-Identifier: MIT
 *
 * check_counter_overview.c - counters keep their own series at every zoom.
 * A trace of many counter timelines, each with its own counter category and
 * values in a range of its own (timeline k: k * 1000 .. k * 1000 + 999),
 * beside states enough to fold the previews, is queried over the whole
 * trace and over windows at 10 to 1000 pixels with every category
 * selected (default leaves, so the inner nodes keep their per-timeline
 * totals: a file of tiny leaves whose inner nodes have none still answers
 * folded counters there, doc/DESIGN.md).  Every counter item (a sample, a pixel run, or a preview) must
 * belong to one timeline: previews at fold 0, values within that
 * timeline's range; over the whole trace their counts add up to each
 * timeline's samples.  Before, a zoomed-out query answered one preview
 * folded over every timeline and counter ("other"), mixing watts with
 * percents, which a viewer drew on every counter row.
 * Uses only the public API.
 */
#include <check.h>
#include <slog/slog_reader.h>
#include <slog/slog_writer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NCOUNTERS 40    /* counter timelines, one category each */
#define NTHREADS 16     /* thread timelines with states */
#define NSTATE_CATS 200
#define SAMPLES 8000    /* per counter timeline: ~20 leaves of the default size */
#define STEP 1000       /* ticks between samples of one counter */

typedef struct counter_file {
    char path[128];
    uint32_t tl[NCOUNTERS];   /* timeline ids */
    slog_reader *reader;
} counter_file;

static void add_timelines(slog_writer *w, counter_file *f, uint32_t *threads)
{
    slog_error err;
    uint32_t proc = 0;
    ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, "proc", 0,
                                              &proc, &err), SLOG_OK);
    for (int k = 0; k < NTHREADS; k++) {
        ck_assert_int_eq(slog_writer_add_timeline(w, proc, SLOG_TIMELINE_THREAD, "thread", k,
                                                  &threads[k], &err), SLOG_OK);
    }
    for (int k = 0; k < NCOUNTERS; k++) {
        char name[32];
        snprintf(name, sizeof name, "counter %d", k);
        uint32_t cat = 0;
        ck_assert_int_eq(slog_writer_add_timeline(w, proc, SLOG_TIMELINE_COUNTER, name, 10 + k,
                                                  &f->tl[k], &err), SLOG_OK);
        ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_COUNTER, name, 0, NULL, &cat, &err),
                         SLOG_OK);
        ck_assert_uint_eq(cat, (uint32_t)k); /* counter k is category k */
    }
}

/* Samples of every counter in time order, a state on a thread between. */
static void write_trace(counter_file *f)
{
    snprintf(f->path, sizeof f->path, "/tmp/check_counter_overview_%d.slog", (int)getpid());
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.fanout = 2; /* default leaves; a deep tree whose upper previews fold */
    slog_writer *w = NULL;
    slog_error err;
    ck_assert_int_eq(slog_writer_create(&w, f->path, &o, &err), SLOG_OK);
    uint32_t threads[NTHREADS];
    add_timelines(w, f, threads);
    uint32_t state_cat[NSTATE_CATS];
    for (int c = 0; c < NSTATE_CATS; c++) {
        char name[32];
        snprintf(name, sizeof name, "work %d", c);
        ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_STATE, name, 0, NULL, &state_cat[c],
                                                  &err), SLOG_OK);
    }
    for (int64_t i = 0; i < SAMPLES; i++) {
        for (int k = 0; k < NCOUNTERS; k++) {
            const slog_counter c = {f->tl[k], (uint32_t)k, i * STEP + k,
                                    (double)(k * 1000 + (i * 7 + k) % 1000)};
            ck_assert_int_eq(slog_writer_append_counter(w, &c, &err), SLOG_OK);
        }
        const slog_state s = {.timeline = threads[i % NTHREADS],
                              .category = state_cat[(i * 13) % NSTATE_CATS],
                              .start = i * STEP + 50, .end = i * STEP + 900};
        ck_assert_int_eq(slog_writer_append_state(w, &s, &err), SLOG_OK);
    }
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);
    ck_assert_int_eq(slog_reader_open(&f->reader, f->path, NULL, &err), SLOG_OK);
}

/* The counter index of timeline id tl, or -1. */
static int counter_of(const counter_file *f, uint32_t tl)
{
    for (int k = 0; k < NCOUNTERS; k++) {
        if (f->tl[k] == tl) {
            return k;
        }
    }
    return -1;
}

static void check_range(int k, double vmin, double vmax, const char *what)
{
    ck_assert_msg(k >= 0, "%s on a timeline without counters", what);
    ck_assert_msg(vmin >= k * 1000 && vmax <= k * 1000 + 999,
                  "%s of counter %d holds values %g..%g: series mixed", what, k, vmin, vmax);
}

/* One counter item: its timeline's series only; its count into got[]. */
static void check_item(const counter_file *f, const slog_item *it, uint64_t *got)
{
    if (it->kind == SLOG_KIND_COUNTER) {
        const int k = counter_of(f, it->u.counter.timeline);
        check_range(k, it->u.counter.value, it->u.counter.value, "a sample");
        ck_assert_uint_eq(it->u.counter.category, (uint32_t)k);
        got[k]++;
    } else if (it->kind == SLOG_KIND_RUN && it->u.run.of == SLOG_KIND_COUNTER) {
        const int k = counter_of(f, it->u.run.timeline);
        check_range(k, it->u.run.vmin, it->u.run.vmax, "a run");
        ck_assert_uint_eq(it->u.run.category, (uint32_t)k);
        got[k] += it->u.run.count;
    } else if (it->kind == SLOG_KIND_PREVIEW && it->u.preview.of == SLOG_KIND_COUNTER) {
        const slog_preview *p = &it->u.preview;
        ck_assert_msg(p->fold == 0, "a counter preview folded over timelines (fold %u)", p->fold);
        const int k = counter_of(f, p->row);
        check_range(k, p->vmin, p->vmax, "a preview");
        got[k] += p->count;
    }
}

/* Query [t0, t1) at @p pixels, every category; the counts per counter. */
static void query_counters(counter_file *f, int64_t t0, int64_t t1, int64_t pixels, uint64_t *got)
{
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.t0 = t0;
    q.t1 = t1;
    q.resolution = (t1 - t0 + pixels - 1) / pixels;
    slog_query *qq = NULL;
    slog_error err;
    ck_assert_int_eq(slog_query_create(&qq, f->reader, &q, &err), SLOG_OK);
    memset(got, 0, NCOUNTERS * sizeof *got);
    const slog_item *it = NULL;
    int rc;
    while ((rc = slog_query_next(qq, &it, &err)) == SLOG_OK) {
        check_item(f, it, got);
    }
    ck_assert_int_eq(rc, SLOG_END);
    slog_query_destroy(qq);
}

START_TEST(test_counter_overview_keeps_series)
{
    counter_file f;
    write_trace(&f);
    const int64_t end = (int64_t)SAMPLES * STEP;
    static const int64_t pixels[] = {10, 100, 1000};
    for (size_t p = 0; p < sizeof pixels / sizeof pixels[0]; p++) {
        uint64_t got[NCOUNTERS];
        query_counters(&f, 0, end, pixels[p], got);
        for (int k = 0; k < NCOUNTERS; k++) {
            ck_assert_msg(got[k] == SAMPLES, "%lld pixels: counter %d: %llu samples of %d",
                          (long long)pixels[p], k, (unsigned long long)got[k], SAMPLES);
        }
        for (int w = 1; w <= 4; w++) { /* windows inside: every series still apart */
            query_counters(&f, end / 7 * w, end / 7 * w + end / (3 * w), pixels[p], got);
        }
    }
    slog_reader_destroy(f.reader);
    remove(f.path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("counter_overview");
    TCase *tc = tcase_create("overview");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_counter_overview_keeps_series);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
