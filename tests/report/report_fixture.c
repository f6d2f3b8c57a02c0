/* SPDX-License-Identifier: MIT
 *
 * report_fixture.c - writes the small traces the slog-report tests need,
 * through the public writer only:
 *   hostile     names made to break a page: markup and a script tag in a
 *               category, quotes and an <img> in a timeline, control
 *               characters, invalid UTF-8, U+2028/U+2029; with arrows and
 *               counters
 *   empty       timelines and categories but no drawable
 *   nostates    events, arrows and counter samples but no state
 *   manycats    1200 categories, 400 of each kind but arrows, one drawable each
 *   zerolen     states of no duration only (a Chrome "X" without "dur"),
 *               over fewer ticks than pixels
 *   incomplete  drawables flushed, then the writer destroyed unfinished
 *   nested      10^4 threads under 100 processes (rows fold to processes)
 *   flat        10^4 top-level ranks (rows fold to blocks of ranks)
 * Usage: report_fixture KIND OUT.slog.  Exit 0, or 1 with the reason.
 * Tests layer: public libslog headers only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slog/slog.h>

#define MANY 10000u

static int check(int rc, const slog_error *err, const char *what)
{
    if (rc != SLOG_OK) {
        (void)fprintf(stderr, "report_fixture: %s: %s (%s)\n", what, err->message,
                      slog_status_name(rc));
        exit(1);
    }
    return rc;
}

static void state(slog_writer *w, uint32_t tl, uint32_t cat, int64_t s, int64_t e, uint32_t depth)
{
    slog_error err;
    const slog_state st = {tl, cat, s, e, depth, 0, NULL};
    check(slog_writer_append_state(w, &st, &err), &err, "append state");
}

static void arrow(slog_writer *w, uint32_t cat, uint32_t from, uint32_t to, int64_t s, int64_t e)
{
    slog_error err;
    const slog_arrow a = {cat, from, to, s, e, 0, NULL};
    check(slog_writer_append_arrow(w, &a, &err), &err, "append arrow");
}

static void counter(slog_writer *w, uint32_t tl, uint32_t cat, int64_t t, double v)
{
    slog_error err;
    const slog_counter c = {tl, cat, t, v};
    check(slog_writer_append_counter(w, &c, &err), &err, "append counter");
}

static uint32_t timeline(slog_writer *w, uint32_t parent, slog_timeline_kind kind, const char *name)
{
    slog_error err;
    uint32_t id = 0;
    check(slog_writer_add_timeline(w, parent, kind, name, 0, &id, &err), &err, "add timeline");
    return id;
}

static uint32_t category(slog_writer *w, slog_kind kind, const char *name, const char *group)
{
    slog_error err;
    uint32_t id = 0;
    check(slog_writer_add_category(w, kind, name, 0, group, &id, &err), &err, "add category");
    return id;
}

static void write_hostile(slog_writer *w)
{
    const uint32_t p = timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, "proc <b>&amp;</b>");
    const uint32_t t0 = timeline(w, p, SLOG_TIMELINE_THREAD, "\"><img src=x onerror=alert(1)>");
    const uint32_t t1 = timeline(w, p, SLOG_TIMELINE_THREAD, "bad \xff\xfe utf8 \x01\x1b[31m");
    /* U+2028 and U+2029: line breaks to a JSON Lines reader that splits on
     * every Unicode line break (JSON text may hold them raw) */
    const uint32_t t2 = timeline(w, p, SLOG_TIMELINE_THREAD, "line\xe2\x80\xa8sep\xe2\x80\xa9");
    const uint32_t evil = category(w, SLOG_KIND_STATE, "<script>alert(1)</script>", "</style>");
    const uint32_t quote = category(w, SLOG_KIND_STATE, "it's \"quoted\" & </script>", NULL);
    const uint32_t msg = category(w, SLOG_KIND_ARROW, "<iframe src=//evil>", NULL);
    const uint32_t cnt = category(w, SLOG_KIND_COUNTER, "</table><h1>x", NULL);
    for (int64_t i = 0; i < 50; i++) {
        const int64_t base = 1000 + i * 100;
        state(w, t0, quote, base + 10, base + 40, 1);
        state(w, t0, evil, base, base + 80, 0);
        state(w, t1, quote, base + 5, base + 95, 0);
        state(w, t2, evil, base + 50, base + 60, 0);
        arrow(w, msg, t0, t1, base + 20, base + 60);
        counter(w, p, cnt, base, (double)i * 1.5);
    }
}

static void write_empty(slog_writer *w)
{
    const uint32_t p = timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, "idle process");
    (void)timeline(w, p, SLOG_TIMELINE_THREAD, "idle thread");
    (void)category(w, SLOG_KIND_STATE, "never used", NULL);
}

/* Instant events, arrows and counter samples on two threads, no state. */
static void write_no_states(slog_writer *w)
{
    const uint32_t p = timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, "gpu");
    const uint32_t a = timeline(w, p, SLOG_TIMELINE_THREAD, "queue a");
    const uint32_t b = timeline(w, p, SLOG_TIMELINE_THREAD, "queue b");
    const uint32_t mark = category(w, SLOG_KIND_EVENT, "mark", NULL);
    const uint32_t msg = category(w, SLOG_KIND_ARROW, "signal", NULL);
    const uint32_t load = category(w, SLOG_KIND_COUNTER, "load", NULL);
    slog_error err;
    for (int64_t i = 0; i < 100; i++) {
        const slog_event e = {(i & 1) != 0 ? a : b, mark, i * 1000, 0, NULL};
        check(slog_writer_append_event(w, &e, &err), &err, "append event");
        arrow(w, msg, a, b, i * 1000, i * 1000 + 300);
        counter(w, p, load, i * 1000, (double)(i % 7));
    }
}

/* 400 state, event and counter categories each, every one used once
 * (states of different lengths, so the longest ones are listed first). */
static void write_many_categories(slog_writer *w)
{
    const uint32_t t = timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "main");
    slog_error err;
    char name[32];
    for (int64_t i = 0; i < 400; i++) {
        (void)snprintf(name, sizeof name, "state %d", (int)i);
        state(w, t, category(w, SLOG_KIND_STATE, name, NULL), i * 1000, i * 1000 + 1 + i % 37, 0);
        (void)snprintf(name, sizeof name, "event %d", (int)i);
        const slog_event e = {t, category(w, SLOG_KIND_EVENT, name, NULL), i * 1000 + 500, 0, NULL};
        check(slog_writer_append_event(w, &e, &err), &err, "append event");
        (void)snprintf(name, sizeof name, "counter %d", (int)i);
        counter(w, t, category(w, SLOG_KIND_COUNTER, name, NULL), i * 1000 + 600, (double)i);
    }
}

/* Twenty states of no duration on one thread, 10 ns apart (the trace is
 * shorter in ticks than the overview's pixels). */
static void write_zero_length(slog_writer *w)
{
    const uint32_t t = timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "main");
    const uint32_t mark = category(w, SLOG_KIND_STATE, "instant slice", NULL);
    for (int64_t i = 0; i < 20; i++) {
        state(w, t, mark, i * 10, i * 10, 0);
    }
}

/* Two threads under a process, 200 states each, then a flush. */
static void write_incomplete(slog_writer *w)
{
    const uint32_t p = timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, "writer");
    const uint32_t a = timeline(w, p, SLOG_TIMELINE_THREAD, "worker a");
    const uint32_t b = timeline(w, p, SLOG_TIMELINE_THREAD, "worker b");
    const uint32_t work = category(w, SLOG_KIND_STATE, "work", NULL);
    const uint32_t wait = category(w, SLOG_KIND_STATE, "wait", NULL);
    for (int64_t i = 0; i < 200; i++) {
        state(w, a, (i & 1) != 0 ? work : wait, i * 1000, i * 1000 + 700, 0);
        state(w, b, (i & 2) != 0 ? work : wait, i * 1000 + 100, i * 1000 + 900, 0);
    }
    slog_error err;
    check(slog_writer_flush(w, &err), &err, "flush");
}

/* MANY timelines, each with a few states and one arrow to a neighbour. */
static void write_many(slog_writer *w, int nested)
{
    const uint32_t compute = category(w, SLOG_KIND_STATE, "compute", NULL);
    const uint32_t comm = category(w, SLOG_KIND_STATE, "communicate", NULL);
    const uint32_t send = category(w, SLOG_KIND_ARROW, "send", NULL);
    uint32_t *ids = calloc(MANY, sizeof *ids);
    if (ids == NULL) {
        exit(1);
    }
    char name[64];
    uint32_t proc = SLOG_NO_PARENT;
    for (uint32_t i = 0; i < MANY; i++) {
        if (nested && i % 100 == 0) {
            (void)snprintf(name, sizeof name, "process %u", i / 100);
            proc = timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, name);
        }
        (void)snprintf(name, sizeof name, nested ? "thread %u" : "rank %u", i);
        ids[i] = timeline(w, proc, nested ? SLOG_TIMELINE_THREAD : SLOG_TIMELINE_RANK, name);
    }
    for (int64_t step = 0; step < 4; step++) {
        for (uint32_t i = 0; i < MANY; i++) {
            const int64_t t = step * 10000 + (int64_t)(i % 97) * 10;
            state(w, ids[i], (i + (uint32_t)step) % 3 == 0 ? comm : compute, t, t + 6000, 0);
            arrow(w, send, ids[i], ids[(i + 1) % MANY], t + 6000, t + 6500);
        }
    }
    free(ids);
}

/* report_fixture index OUT IN...: an index over the inputs. */
static int write_index(int argc, char **argv)
{
    slog_error err;
    check(slog_index_write((const char *const *)(argv + 3), (size_t)(argc - 3), argv[2], NULL, NULL,
                           &err),
          &err, "index");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 3 && strcmp(argv[1], "index") == 0) {
        return write_index(argc, argv);
    }
    if (argc != 3) {
        (void)fprintf(
            stderr,
            "usage: report_fixture hostile|empty|nostates|manycats|zerolen|incomplete|nested|flat "
            "OUT\n"
            "       report_fixture index OUT IN...\n");
        return 2;
    }
    const char *kind = argv[1];
    slog_writer *w = NULL;
    slog_error err;
    check(slog_writer_create(&w, argv[2], NULL, &err), &err, "create");
    if (strcmp(kind, "hostile") == 0) {
        write_hostile(w);
    } else if (strcmp(kind, "empty") == 0) {
        write_empty(w);
    } else if (strcmp(kind, "nostates") == 0) {
        write_no_states(w);
    } else if (strcmp(kind, "manycats") == 0) {
        write_many_categories(w);
    } else if (strcmp(kind, "zerolen") == 0) {
        write_zero_length(w);
    } else if (strcmp(kind, "incomplete") == 0) {
        write_incomplete(w);
        slog_writer_destroy(w); /* no finish: the file stays incomplete */
        return 0;
    } else if (strcmp(kind, "nested") == 0 || strcmp(kind, "flat") == 0) {
        write_many(w, strcmp(kind, "nested") == 0);
    } else {
        (void)fprintf(stderr, "report_fixture: unknown kind '%s'\n", kind);
        slog_writer_destroy(w);
        return 2;
    }
    check(slog_writer_finish(w, &err), &err, "finish");
    slog_writer_destroy(w);
    return 0;
}
