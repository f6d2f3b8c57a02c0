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
 * Only the rows a query asks for decide it: a second trace keeps its
 * threads and its counter tracks under two processes, so that where a
 * preview folds rows to processes the threads' row holds no counters; a
 * query of the threads alone must answer the same items, reading the same
 * blobs, whether it asks for counters or not (the counters folded on the
 * other row do not send it to read a leaf's samples).
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

/* NSTATE_CATS state categories ("work 0", ...) into cat. */
static void add_state_categories(slog_writer *w, uint32_t *cat)
{
    slog_error err;
    for (int c = 0; c < NSTATE_CATS; c++) {
        char name[32];
        snprintf(name, sizeof name, "work %d", c);
        ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_STATE, name, 0, NULL, &cat[c], &err),
                         SLOG_OK);
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
    add_state_categories(w, state_cat);
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

/* ---- rows the query does not ask for ---- */

#define SPLIT_THREADS 4
#define SPLIT_COUNTERS 8
#define SPLIT_SAMPLES 4000 /* per timeline: 8 leaves of the default size */
#define ITEM_WORDS 8

typedef struct split_file {
    char path[128];
    uint32_t threads[SPLIT_THREADS];
    uint32_t counters[SPLIT_COUNTERS]; /* counter k: category k */
    slog_reader *reader;
} split_file;

/* Threads under one process, counter tracks under another. */
static void add_split_timelines(slog_writer *w, split_file *f)
{
    slog_error err;
    uint32_t threads = 0, counters = 0;
    ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, "threads",
                                              0, &threads, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, "counters",
                                              1, &counters, &err), SLOG_OK);
    for (int k = 0; k < SPLIT_THREADS; k++) {
        ck_assert_int_eq(slog_writer_add_timeline(w, threads, SLOG_TIMELINE_THREAD, "thread", k,
                                                  &f->threads[k], &err), SLOG_OK);
    }
    for (int k = 0; k < SPLIT_COUNTERS; k++) {
        char name[32];
        snprintf(name, sizeof name, "counter %d", k);
        uint32_t cat = 0;
        ck_assert_int_eq(slog_writer_add_timeline(w, counters, SLOG_TIMELINE_COUNTER, name, k,
                                                  &f->counters[k], &err), SLOG_OK);
        ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_COUNTER, name, 0, NULL, &cat, &err),
                         SLOG_OK);
        ck_assert_uint_eq(cat, (uint32_t)k);
    }
}

/* A sample of every counter and a state on every thread per step: leaf
 * previews fold their rows to the two processes (200 state categories). */
static void write_split_trace(split_file *f)
{
    snprintf(f->path, sizeof f->path, "/tmp/check_counter_overview_split_%d.slog", (int)getpid());
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    slog_writer *w = NULL;
    slog_error err;
    ck_assert_int_eq(slog_writer_create(&w, f->path, &o, &err), SLOG_OK);
    add_split_timelines(w, f);
    uint32_t state_cat[NSTATE_CATS];
    add_state_categories(w, state_cat);
    for (int64_t i = 0; i < SPLIT_SAMPLES; i++) {
        for (int k = 0; k < SPLIT_COUNTERS; k++) {
            const slog_counter c = {f->counters[k], (uint32_t)k, i * STEP + k,
                                    (double)(k * 1000 + i % 1000)};
            ck_assert_int_eq(slog_writer_append_counter(w, &c, &err), SLOG_OK);
        }
        for (int k = 0; k < SPLIT_THREADS; k++) {
            const slog_state s = {.timeline = f->threads[k],
                                  .category = state_cat[(i * 13 + k) % NSTATE_CATS],
                                  .start = i * STEP + 50, .end = i * STEP + 900};
            ck_assert_int_eq(slog_writer_append_state(w, &s, &err), SLOG_OK);
        }
    }
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);
    ck_assert_int_eq(slog_reader_open(&f->reader, f->path, NULL, &err), SLOG_OK);
}

/* What a query answered (each item as ITEM_WORDS words) and which blobs
 * it needed (slog_query_read_nodes). */
typedef struct answer {
    uint64_t *items;
    size_t nitems, cap;
    uint64_t *read;
    size_t nread;
    uint64_t folded; /* previews at fold > 0 */
} answer;

/* Words of an item: kind, what it summarises (with a preview's fold),
 * row, row_to or depth, category, start, end, count (the trace has no
 * events or arrows). */
static void item_words(const slog_item *it, uint64_t *v)
{
    memset(v, 0, ITEM_WORDS * sizeof *v);
    v[0] = (uint64_t)it->kind;
    if (it->kind == SLOG_KIND_STATE) {
        const slog_state *s = &it->u.state;
        const uint64_t w[ITEM_WORDS] = {v[0], 0, s->timeline, s->depth, s->category,
                                        (uint64_t)s->start, (uint64_t)s->end, 1};
        memcpy(v, w, sizeof w);
    } else if (it->kind == SLOG_KIND_COUNTER) {
        const slog_counter *c = &it->u.counter;
        const uint64_t w[ITEM_WORDS] = {v[0], 0, c->timeline, 0, c->category,
                                        (uint64_t)c->time, (uint64_t)c->time, 1};
        memcpy(v, w, sizeof w);
    } else if (it->kind == SLOG_KIND_PREVIEW) {
        const slog_preview *p = &it->u.preview;
        const uint64_t w[ITEM_WORDS] = {v[0], (uint64_t)p->of | (uint64_t)p->fold << 8, p->row,
                                        p->row_to, p->category, (uint64_t)p->start,
                                        (uint64_t)p->end, p->count};
        memcpy(v, w, sizeof w);
    } else if (it->kind == SLOG_KIND_RUN) {
        const slog_run *r = &it->u.run;
        const uint64_t w[ITEM_WORDS] = {v[0], (uint64_t)r->of, r->timeline, r->depth,
                                        r->category, (uint64_t)r->start, (uint64_t)r->end,
                                        r->count};
        memcpy(v, w, sizeof w);
    }
}

static void answer_add(answer *a, const slog_item *it)
{
    if (a->nitems == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 1024;
        a->items = realloc(a->items, a->cap * ITEM_WORDS * sizeof *a->items);
        ck_assert_ptr_nonnull(a->items);
    }
    item_words(it, &a->items[a->nitems++ * ITEM_WORDS]);
    a->folded += it->kind == SLOG_KIND_PREVIEW && it->u.preview.fold > 0;
}

/* The whole trace at @p pixels: the threads only (@p threads_only) or every
 * timeline, with counters or without. */
static void query_split(const split_file *f, int64_t pixels, int threads_only, int counters,
                        answer *a)
{
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.t0 = 0;
    q.t1 = (int64_t)SPLIT_SAMPLES * STEP;
    q.resolution = (q.t1 + pixels - 1) / pixels;
    q.kinds = counters ? SLOG_KINDS_ALL : SLOG_KINDS_ALL & ~(1u << SLOG_KIND_COUNTER);
    if (threads_only) {
        q.timelines = f->threads;
        q.ntimelines = SPLIT_THREADS;
    }
    slog_query *qq = NULL;
    slog_error err;
    ck_assert_int_eq(slog_query_create(&qq, f->reader, &q, &err), SLOG_OK);
    memset(a, 0, sizeof *a);
    const slog_item *it = NULL;
    int rc;
    while ((rc = slog_query_next(qq, &it, &err)) == SLOG_OK) {
        answer_add(a, it);
    }
    ck_assert_int_eq(rc, SLOG_END);
    const uint64_t *read = slog_query_read_nodes(qq, &a->nread);
    a->read = malloc((a->nread + 1) * sizeof *a->read);
    ck_assert_ptr_nonnull(a->read);
    memcpy(a->read, read, a->nread * sizeof *read);
    slog_query_destroy(qq);
}

static void answer_free(answer *a)
{
    free(a->items);
    free(a->read);
}

/* The leaves' previews fold the threads onto one row and the counters onto
 * another.  A query of the threads asks for no row with counters: asking
 * for counters too must change nothing, neither its items nor the blobs it
 * reads (a leaf standing as its preview keeps its own entries instead of
 * reading its counter samples, which the query would all filter out).
 * Every timeline at once does read those samples: the premise. */
START_TEST(test_counter_overview_unselected_rows_cost_nothing)
{
    split_file f;
    write_split_trace(&f);
    static const int64_t pixels[] = {10, 30, 100, 300, 1000};
    int premise = 0;
    for (size_t p = 0; p < sizeof pixels / sizeof pixels[0]; p++) {
        answer with, without, all_with, all_without;
        query_split(&f, pixels[p], 1, 1, &with);
        query_split(&f, pixels[p], 1, 0, &without);
        ck_assert_msg(with.nitems == without.nitems &&
                          memcmp(with.items, without.items,
                                 with.nitems * ITEM_WORDS * sizeof *with.items) == 0,
                      "%lld pixels: asking for counters changed the threads' items (%zu, not %zu)",
                      (long long)pixels[p], with.nitems, without.nitems);
        ck_assert_msg(with.nread == without.nread &&
                          memcmp(with.read, without.read, with.nread * sizeof *with.read) == 0,
                      "%lld pixels: asking for counters read %zu blobs, not %zu: counter samples "
                      "of rows the query does not show",
                      (long long)pixels[p], with.nread, without.nread);
        query_split(&f, pixels[p], 0, 1, &all_with);
        query_split(&f, pixels[p], 0, 0, &all_without);
        premise |= with.folded > 0 && all_with.nread > all_without.nread;
        answer_free(&with);
        answer_free(&without);
        answer_free(&all_with);
        answer_free(&all_without);
    }
    ck_assert_msg(premise, "no leaf stood as a folded preview whose counters come from its "
                           "samples: the trace no longer tests the rows");
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
    tcase_add_test(tc, test_counter_overview_unselected_rows_cost_nothing);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
