/* SPDX-License-Identifier: MIT
 *
 * check_merge.c - the merge library (slog_merge.h) through the public API
 * only.  Random inputs (tests/trace_ref.c: nested states, events, arrows,
 * counters, args) at different clocks, plus a crafted input with states
 * spanning the whole range, instants exactly on slice edges and drawables
 * at the very end, are merged with small slices and with the default; the
 * output read at full detail must be, as a sorted multiset of canonical
 * keys with args, exactly every input's drawables converted to the output
 * clock and remapped by name; its timelines, categories (first colour
 * wins) and whole-range statistics must be those of the inputs added up.
 * Then the refusals (a file twice by any name, the output as an input,
 * incomplete inputs, clocks without a practical exact conversion, missing,
 * foreign and damaged files, overflowing offsets), each naming the file,
 * cancellation, options, and two imported corpus traces (SLOG_IMPORT,
 * SLOG_CORPUS; skipped without them).
 */
#define _GNU_SOURCE
#include <slog/slog.h>
#include <slog/slog_merge.h>

#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_ref.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_IN 8

/* ---- temporary directory (checked fixture: one per test, in its child) ---- */

static char g_dir[128];

static void setup(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/check_merge_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g_dir));
}

static void teardown(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot remove %s\n", g_dir);
    }
}

/* A path in the test's directory that stays valid for the whole test. */
static const char *tp_keep(const char *name)
{
    static char keep[MAX_IN][256];
    static unsigned next;
    char *const b = keep[next++ % MAX_IN];
    snprintf(b, sizeof keep[0], "%s/%s", g_dir, name);
    return b;
}

/* A path in the test's directory (a few at a time: rotating buffers). */
static const char *tp(const char *name)
{
    static char bufs[16][256];
    static unsigned next;
    char *const b = bufs[next++ % 16];
    snprintf(b, sizeof bufs[0], "%s/%s", g_dir, name);
    return b;
}

/* ---- string vectors ---- */

typedef struct strvec {
    char **v;
    size_t n, cap;
} strvec;

static void sv_push(strvec *s, char *str)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        ck_assert_ptr_nonnull(s->v);
    }
    s->v[s->n++] = str;
}

static void sv_pushf(strvec *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sv_pushf(strvec *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *str = NULL;
    ck_assert_int_ge(vasprintf(&str, fmt, ap), 0);
    va_end(ap);
    sv_push(s, str);
}

static void sv_free(strvec *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i]);
    }
    free(s->v);
    memset(s, 0, sizeof *s);
}

static void sv_assert_same(strvec *a, strvec *b, const char *what)
{
    char msg[512];
    tref_sort_keys(a->v, a->n);
    tref_sort_keys(b->v, b->n);
    ck_assert_msg(tref_same_keys(a->v, a->n, b->v, b->n, msg, sizeof msg), "%s: %s", what, msg);
}

/* ---- writing inputs ---- */

static void write_random(const char *path, uint64_t seed, uint64_t tps, int64_t base, int64_t span,
                         uint32_t states, bool finish)
{
    const tref_params p = {.seed = seed,
                           .timelines = 9,
                           .states = states,
                           .events = states / 4,
                           .arrows = states / 10,
                           .counters = states / 8,
                           .state_categories = 4,
                           .max_depth = 5,
                           .base = base,
                           .span = span,
                           .args_percent = 40};
    tref_trace t;
    ck_assert_int_eq(tref_generate(&t, &p), 0);
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.ticks_per_second = tps;
    o.leaf_bytes = 2048; /* many nodes: long states land in inner nodes */
    slog_error err;
    ck_assert_int_eq(tref_write(&t, path, &o, TR_ORDER_END, seed, finish, &err), SLOG_OK);
    tref_free(&t);
}

typedef struct craft {
    slog_writer *w;
    uint32_t tl[3];
    uint32_t cat_state, cat_other_colour, cat_event, cat_arrow, cat_counter;
} craft;

static void craft_state(craft *c, uint32_t tl, uint32_t cat, int64_t s, int64_t e, uint32_t depth)
{
    static const slog_arg args[] = {{"edge", SLOG_ARG_STRING, {.s = "on a slice edge"}},
                                    {"n", SLOG_ARG_INT, {.i = -42}}};
    const slog_state st = {c->tl[tl], cat, s, e, depth, s % 3 == 0 ? 2u : 0u, args};
    ck_assert_int_eq(slog_writer_append_state(c->w, &st, NULL), SLOG_OK);
}

static void craft_points(craft *c, int64_t t)
{
    static const slog_arg args[] = {{"j", SLOG_ARG_JSON, {.s = "{\"k\":[1,2]}"}}};
    const slog_event ev = {c->tl[1], c->cat_event, t, 1, args};
    const slog_counter ctr = {c->tl[2], c->cat_counter, t, (double)t / 7.0};
    const slog_arrow ar = {c->cat_arrow, c->tl[1], c->tl[2], t, t, 0, NULL};
    ck_assert_int_eq(slog_writer_append_event(c->w, &ev, NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_append_counter(c->w, &ctr, NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_append_arrow(c->w, &ar, NULL), SLOG_OK);
    craft_state(c, 1, c->cat_state, t, t, 0); /* a zero-length state */
}

/* The crafted input (10^9 ticks/s): states over the whole range [0, 10^6],
 * instants on every multiple of 1000 up to 20000 (slice edges when slices
 * are 1000 ticks from 0), states ending on and just after edges, and a
 * state and an event at the very end (10^6).  Appended children first. */
static void write_crafted(const char *path)
{
    craft c;
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 1024;
    ck_assert_int_eq(slog_writer_create(&c.w, path, &o, NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_timeline(c.w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, "proc",
                                              3, &c.tl[0], NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_timeline(c.w, c.tl[0], SLOG_TIMELINE_THREAD, "thread 1", -2,
                                              &c.tl[1], NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_timeline(c.w, c.tl[0], SLOG_TIMELINE_COUNTER, "ctr", 9,
                                              &c.tl[2], NULL), SLOG_OK);
    /* "cat 0" with group "grp" is the random inputs' first state category: joined, their colour */
    ck_assert_int_eq(slog_writer_add_category(c.w, SLOG_KIND_STATE, "cat 0", 0xff0000ffu, "grp",
                                              &c.cat_state, NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_category(c.w, SLOG_KIND_STATE, "long", 0x00ff00ffu, NULL,
                                              &c.cat_other_colour, NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_category(c.w, SLOG_KIND_EVENT, "cat 0", 0, "grp",
                                              &c.cat_event, NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_category(c.w, SLOG_KIND_ARROW, "edge arrow", 0, NULL,
                                              &c.cat_arrow, NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_category(c.w, SLOG_KIND_COUNTER, "level", 0, NULL,
                                              &c.cat_counter, NULL), SLOG_OK);
    craft_state(&c, 1, c.cat_state, 500, 1000, 2);  /* key 999: last of slice [0, 999] */
    craft_state(&c, 1, c.cat_state, 900, 1001, 1);  /* key 1000: first of the next */
    for (int64_t t = 1000; t <= 20000; t += 1000) {
        craft_points(&c, t);
    }
    const slog_arrow across = {c.cat_arrow, c.tl[2], c.tl[1], 1500, 3000, 0, NULL};
    ck_assert_int_eq(slog_writer_append_arrow(c.w, &across, NULL), SLOG_OK);
    craft_state(&c, 0, c.cat_other_colour, 100, 500000, 1);
    craft_state(&c, 1, c.cat_state, 999000, 1000000, 0);
    const slog_event last = {c.tl[1], c.cat_event, 1000000, 0, NULL};
    ck_assert_int_eq(slog_writer_append_event(c.w, &last, NULL), SLOG_OK);
    craft_state(&c, 0, c.cat_other_colour, 0, 1000000, 0);
    ck_assert_int_eq(slog_writer_finish(c.w, NULL), SLOG_OK);
    slog_writer_destroy(c.w);
}

/* ---- the reference: inputs read at full detail, remapped by name ---- */

typedef struct names {
    strvec tl;  /* per timeline id: "label/parent/.../name" */
    strvec cat; /* per category id: "kind|name|group" */
} names;

static void read_names(slog_reader *r, const char *label, names *nm)
{
    const slog_file_info *const fi = slog_reader_info(r);
    for (uint32_t i = 0; i < fi->timelines; i++) {
        slog_timeline_info ti;
        ck_assert_int_eq(slog_reader_timeline(r, i, &ti), SLOG_OK);
        const char *const up = ti.parent == SLOG_NO_PARENT ? label : nm->tl.v[ti.parent];
        if (up == NULL) {
            sv_pushf(&nm->tl, "%s", ti.name);
        } else {
            sv_pushf(&nm->tl, "%s/%s", up, ti.name);
        }
    }
    for (uint32_t i = 0; i < fi->categories; i++) {
        slog_category_info ci;
        ck_assert_int_eq(slog_reader_category(r, i, &ci), SLOG_OK);
        sv_pushf(&nm->cat, "%d|%s|%s", (int)ci.kind, ci.name, ci.group);
    }
}

static uint32_t find_name(const strvec *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->v[i], name) == 0) {
            return (uint32_t)i;
        }
    }
    ck_abort_msg("%s not in the output", name);
    return UINT32_MAX;
}

typedef struct remap {
    uint32_t *tl, *cat; /* NULL: keep ids */
    int64_t mult, offset;
} remap;

static void remap_item(const remap *m, slog_item *it)
{
    int64_t *times[2] = {NULL, NULL};
    uint32_t *ids[3] = {NULL, NULL, NULL};
    switch (it->kind) {
    case SLOG_KIND_STATE:
        times[0] = &it->u.state.start, times[1] = &it->u.state.end;
        ids[0] = &it->u.state.timeline, ids[2] = &it->u.state.category;
        break;
    case SLOG_KIND_EVENT:
        times[0] = &it->u.event.time, ids[0] = &it->u.event.timeline;
        ids[2] = &it->u.event.category;
        break;
    case SLOG_KIND_ARROW:
        times[0] = &it->u.arrow.start, times[1] = &it->u.arrow.end;
        ids[0] = &it->u.arrow.from, ids[1] = &it->u.arrow.to, ids[2] = &it->u.arrow.category;
        break;
    default:
        times[0] = &it->u.counter.time, ids[0] = &it->u.counter.timeline;
        ids[2] = &it->u.counter.category;
        break;
    }
    for (int i = 0; i < 2; i++) {
        if (times[i] != NULL) {
            *times[i] = (*times[i] + m->offset) * m->mult;
        }
    }
    for (int i = 0; i < 3 && m->tl != NULL; i++) {
        if (ids[i] != NULL) {
            *ids[i] = i == 2 ? m->cat[*ids[i]] : m->tl[*ids[i]];
        }
    }
}

/* Every drawable of r at full detail, as keys (remapped). */
static void collect_keys(slog_reader *r, const remap *m, strvec *keys)
{
    const slog_file_info *const fi = slog_reader_info(r);
    if (fi->start > fi->end) {
        return;
    }
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.kinds = 0xfu;
    q.flags = SLOG_QUERY_ARGS;
    q.t0 = fi->start;
    q.t1 = fi->end == INT64_MAX ? INT64_MAX : fi->end + 1;
    slog_query *qq;
    slog_error err;
    ck_assert_int_eq(slog_query_create(&qq, r, &q, &err), SLOG_OK);
    const slog_item *it;
    int rc;
    while ((rc = slog_query_next(qq, &it, &err)) == SLOG_OK) {
        slog_item copy = *it;
        remap_item(m, &copy);
        sv_push(keys, tref_key_item(&copy));
    }
    ck_assert_int_eq(rc, SLOG_END);
    slog_query_destroy(qq);
}

typedef struct expect {
    const char *paths[MAX_IN];
    const char *labels[MAX_IN]; /* the label the merge is expected to use */
    int64_t offsets[MAX_IN];
    size_t n;
    uint32_t top_kind;
} expect;

static void expect_timelines(const expect *x, size_t i, slog_reader *in, strvec *want)
{
    sv_pushf(want, "%s|%u|%zu", x->labels[i], x->top_kind, i);
    names nm = {0};
    read_names(in, x->labels[i], &nm);
    for (size_t k = 0; k < nm.tl.n; k++) {
        slog_timeline_info ti;
        ck_assert_int_eq(slog_reader_timeline(in, (uint32_t)k, &ti), SLOG_OK);
        sv_pushf(want, "%s|%u|%lld", nm.tl.v[k], (unsigned)ti.kind, (long long)ti.sort_key);
    }
    sv_free(&nm.tl);
    sv_free(&nm.cat);
}

static void output_timelines(slog_reader *out, const names *onm, strvec *got)
{
    for (size_t k = 0; k < onm->tl.n; k++) {
        slog_timeline_info ti;
        ck_assert_int_eq(slog_reader_timeline(out, (uint32_t)k, &ti), SLOG_OK);
        sv_pushf(got, "%s|%u|%lld", onm->tl.v[k], (unsigned)ti.kind, (long long)ti.sort_key);
    }
}

/* One input against the output: its drawables as keys, its timelines, the
 * colours of the categories it brought first. */
static void expect_input(const expect *x, size_t i, slog_reader *out, const names *onm,
                         strvec *want, strvec *want_tl, bool *colour_taken)
{
    slog_reader *in;
    ck_assert_int_eq(slog_reader_open(&in, x->paths[i], NULL, NULL), SLOG_OK);
    names nm = {0};
    read_names(in, x->labels[i], &nm);
    remap m = {calloc(nm.tl.n + 1, sizeof(uint32_t)), calloc(nm.cat.n + 1, sizeof(uint32_t)),
               (int64_t)(slog_reader_info(out)->ticks_per_second /
                         slog_reader_info(in)->ticks_per_second),
               x->offsets[i]};
    for (size_t k = 0; k < nm.tl.n; k++) {
        m.tl[k] = find_name(&onm->tl, nm.tl.v[k]);
    }
    for (size_t k = 0; k < nm.cat.n; k++) {
        m.cat[k] = find_name(&onm->cat, nm.cat.v[k]);
        slog_category_info a, b;
        ck_assert_int_eq(slog_reader_category(in, (uint32_t)k, &a), SLOG_OK);
        ck_assert_int_eq(slog_reader_category(out, m.cat[k], &b), SLOG_OK);
        if (!colour_taken[m.cat[k]]) {
            ck_assert_uint_eq(a.rgba, b.rgba); /* the first input's colour */
            colour_taken[m.cat[k]] = true;
        }
    }
    collect_keys(in, &m, want);
    expect_timelines(x, i, in, want_tl);
    free(m.tl);
    free(m.cat);
    sv_free(&nm.tl);
    sv_free(&nm.cat);
    slog_reader_destroy(in);
}

/* The output holds exactly the inputs' drawables, timelines and categories. */
/* Every input's writer finished: then, and only then, the output says complete. */
static bool inputs_complete(const expect *x)
{
    bool all = true;
    for (size_t i = 0; i < x->n; i++) {
        slog_reader *r;
        ck_assert_int_eq(slog_reader_open(&r, x->paths[i], NULL, NULL), SLOG_OK);
        all = all && slog_reader_info(r)->complete;
        slog_reader_destroy(r);
    }
    return all;
}

static void check_output(const expect *x, const char *outpath)
{
    slog_reader *out;
    ck_assert_int_eq(slog_reader_open(&out, outpath, NULL, NULL), SLOG_OK);
    ck_assert_int_eq(slog_reader_info(out)->complete, inputs_complete(x));
    names onm = {0};
    read_names(out, NULL, &onm);
    strvec want = {0}, got = {0}, want_tl = {0}, got_tl = {0};
    bool *const taken = calloc(onm.cat.n + 1, sizeof *taken);
    for (size_t i = 0; i < x->n; i++) {
        expect_input(x, i, out, &onm, &want, &want_tl, taken);
    }
    for (size_t k = 0; k < onm.cat.n; k++) {
        ck_assert_msg(taken[k], "category %s comes from no input", onm.cat.v[k]);
    }
    const remap none = {NULL, NULL, 1, 0};
    collect_keys(out, &none, &got);
    ck_assert_uint_gt(got.n, 0);
    sv_assert_same(&want, &got, "drawables");
    output_timelines(out, &onm, &got_tl);
    sv_assert_same(&want_tl, &got_tl, "timelines");
    free(taken);
    sv_free(&want), sv_free(&got), sv_free(&want_tl), sv_free(&got_tl);
    sv_free(&onm.tl), sv_free(&onm.cat);
    slog_reader_destroy(out);
}

/* ---- whole-range statistics: the output's equal the inputs' added up ---- */

typedef struct stat_acc {
    char key[160];
    uint64_t count;
    int64_t inclusive, exclusive;
    double vmin, vmax, vsum;
} stat_acc;

static stat_acc *stat_find(stat_acc *v, size_t *n, const char *key)
{
    for (size_t i = 0; i < *n; i++) {
        if (strcmp(v[i].key, key) == 0) {
            return &v[i];
        }
    }
    ck_assert_uint_lt(*n, 256);
    stat_acc *const a = &v[(*n)++];
    memset(a, 0, sizeof *a);
    snprintf(a->key, sizeof a->key, "%s", key);
    a->vmin = INFINITY;
    a->vmax = -INFINITY;
    return a;
}

static void stats_add(const char *path, int64_t mult, stat_acc *v, size_t *n)
{
    slog_reader *r;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, NULL), SLOG_OK);
    const slog_file_info *const fi = slog_reader_info(r);
    names nm = {0};
    read_names(r, "", &nm);
    slog_stats_options so = SLOG_STATS_OPTIONS_INIT;
    so.t0 = fi->start;
    so.t1 = fi->end + 1;
    slog_stats *st;
    ck_assert_int_eq(slog_stats_compute(&st, r, &so, NULL), SLOG_OK);
    size_t nrows = 0;
    const slog_stats_row *rows = slog_stats_rows(st, &nrows);
    for (size_t i = 0; i < nrows; i++) {
        stat_acc *const a = stat_find(v, n, nm.cat.v[rows[i].category]);
        a->count += rows[i].count;
        a->inclusive += rows[i].inclusive * mult;
        a->exclusive += rows[i].exclusive * mult;
        if (rows[i].kind == SLOG_KIND_COUNTER) {
            a->vmin = fmin(a->vmin, rows[i].vmin);
            a->vmax = fmax(a->vmax, rows[i].vmax);
            a->vsum += rows[i].vsum;
        }
    }
    slog_stats_destroy(st);
    sv_free(&nm.tl), sv_free(&nm.cat);
    slog_reader_destroy(r);
}

static void check_stats(const expect *x, const char *outpath, uint64_t out_tps)
{
    stat_acc want[256], got[256];
    size_t nw = 0, ng = 0;
    for (size_t i = 0; i < x->n; i++) {
        slog_reader *r;
        ck_assert_int_eq(slog_reader_open(&r, x->paths[i], NULL, NULL), SLOG_OK);
        const int64_t mult = (int64_t)(out_tps / slog_reader_info(r)->ticks_per_second);
        const bool empty = slog_reader_info(r)->start > slog_reader_info(r)->end;
        slog_reader_destroy(r);
        if (!empty) {
            stats_add(x->paths[i], mult, want, &nw);
        }
    }
    stats_add(outpath, 1, got, &ng);
    ck_assert_uint_eq(nw, ng);
    for (size_t i = 0; i < nw; i++) {
        const stat_acc *const g = stat_find(got, &ng, want[i].key);
        ck_assert_msg(g->count == want[i].count && g->inclusive == want[i].inclusive &&
                          g->exclusive == want[i].exclusive,
                      "%s: count %llu/%llu inclusive %lld/%lld exclusive %lld/%lld", want[i].key,
                      (unsigned long long)g->count, (unsigned long long)want[i].count,
                      (long long)g->inclusive, (long long)want[i].inclusive,
                      (long long)g->exclusive, (long long)want[i].exclusive);
        ck_assert(g->vmin == want[i].vmin && g->vmax == want[i].vmax);
        ck_assert(fabs(g->vsum - want[i].vsum) <= 1e-9 * fmax(1.0, fabs(want[i].vsum)));
    }
}

/* ---- the merges ---- */

static uint64_t g_progress_calls, g_progress_done, g_progress_total;

static void on_progress(uint64_t done, uint64_t total, void *user)
{
    ck_assert_ptr_eq(user, &g_progress_calls);
    ck_assert_uint_ge(done, g_progress_done);
    g_progress_calls++;
    g_progress_done = done;
    g_progress_total = total;
}

/* Three inputs: random at 10^9 and at 10^6 ticks/s (times 1000..901000
 * once converted) and the crafted one, whose range [0, 10^6] is the
 * output's. */
static void write_three(expect *x)
{
    write_random(tp("a.slog"), 11, 1000000000u, 1000, 990000, 3000, true);
    write_random(tp("b.slog"), 12, 1000000u, 1, 900, 2000, true);
    write_crafted(tp("c.slog"));
    static const char *const labels[] = {"a", "b", "c"};
    memset(x, 0, sizeof *x);
    x->n = 3;
    for (size_t i = 0; i < 3; i++) {
        x->paths[i] = tp_keep(i == 0 ? "a.slog" : i == 1 ? "b.slog" : "c.slog");
        x->labels[i] = labels[i];
    }
}

static int merge_expect(const expect *x, const char *out, slog_merge_options *o,
                        slog_merge_summary *s, slog_error *err)
{
    memset(err, 0xff, sizeof *err);
    return slog_merge_files(x->paths, x->n, out, o, s, err);
}

START_TEST(test_merge_small_slices_exact)
{
    expect x;
    write_three(&x);
    slog_merge_options o = SLOG_MERGE_OPTIONS_INIT;
    o.slice_ticks = 1000; /* edges on the crafted instants */
    o.progress = on_progress;
    o.user = &g_progress_calls;
    slog_merge_summary s;
    slog_error err;
    ck_assert_int_eq(merge_expect(&x, tp("out.slog"), &o, &s, &err), SLOG_OK);
    ck_assert_uint_eq(s.ticks_per_second, 1000000000u);
    ck_assert_uint_eq(s.inputs, 3);
    ck_assert_uint_eq(s.incomplete_inputs, 0);
    ck_assert(s.output_created);
    ck_assert_int_eq(s.start, 0);
    ck_assert_int_eq(s.end, 1000000);
    ck_assert_uint_ge(s.slices, 100); /* dense enough that most slices hold something */
    ck_assert_uint_eq(g_progress_calls, s.slices);
    ck_assert_uint_eq(g_progress_done, g_progress_total);
    ck_assert_uint_eq(g_progress_done, s.states + s.events + s.arrows + s.counters);
    check_output(&x, tp("out.slog"));
    check_stats(&x, tp("out.slog"), s.ticks_per_second);
}
END_TEST

START_TEST(test_merge_default_slice_exact)
{
    expect x;
    write_three(&x);
    slog_merge_summary s;
    slog_error err;
    ck_assert_int_eq(merge_expect(&x, tp("out.slog"), NULL, &s, &err), SLOG_OK);
    ck_assert_uint_eq(s.slices, 1); /* few drawables: one slice */
    check_output(&x, tp("out.slog"));
    check_stats(&x, tp("out.slog"), s.ticks_per_second);
}
END_TEST

/* Labels, offsets (one negative, before scaling), a rank kind, odd slices. */
START_TEST(test_merge_labels_offsets_ranks)
{
    expect x;
    write_three(&x);
    const char *const labels[] = {"rank 0", NULL, "rank 2"};
    const int64_t offsets[] = {0, -1500, 123};
    x.labels[0] = "rank 0";
    x.labels[2] = "rank 2";
    memcpy(x.offsets, offsets, sizeof offsets);
    x.top_kind = SLOG_TIMELINE_RANK;
    slog_merge_options o = SLOG_MERGE_OPTIONS_INIT;
    o.labels = labels;
    o.offsets = offsets;
    o.top_kind = SLOG_TIMELINE_RANK;
    o.slice_ticks = 777;
    slog_merge_summary s;
    slog_error err;
    ck_assert_int_eq(merge_expect(&x, tp("out.slog"), &o, &s, &err), SLOG_OK);
    ck_assert_int_lt(s.start, 0);
    check_output(&x, tp("out.slog"));
}
END_TEST

/* A writer with one thread timeline "t", a state category "s" and an
 * event category "e". */
static slog_writer *simple_writer(const char *path, uint32_t *tl, uint32_t *cs, uint32_t *ce)
{
    slog_writer *w;
    ck_assert_int_eq(slog_writer_create(&w, path, NULL, NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t", 0, tl,
                                              NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_STATE, "s", 0, NULL, cs, NULL),
                     SLOG_OK);
    ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_EVENT, "e", 0, NULL, ce, NULL),
                     SLOG_OK);
    return w;
}

/* A burst of 300000 events in 1000 ticks among states over 10^9 ticks:
 * the default slice (span x 2^16 / drawables) would hold the whole burst,
 * so it is split until it fits; still exact. */
START_TEST(test_merge_dense_burst_splits)
{
    uint32_t tl, cs, ce;
    slog_writer *w = simple_writer(tp("burst.slog"), &tl, &cs, &ce);
    for (int64_t i = 0; i < 300000; i++) {
        const slog_event e = {tl, ce, 5000 + i / 300, 0, NULL};
        ck_assert_int_eq(slog_writer_append_event(w, &e, NULL), SLOG_OK);
    }
    for (int64_t i = 0; i < 100; i++) {
        const slog_state st = {tl, cs, i * 10000000, i * 10000000 + 5000000, 0, 0, NULL};
        ck_assert_int_eq(slog_writer_append_state(w, &st, NULL), SLOG_OK);
    }
    ck_assert_int_eq(slog_writer_finish(w, NULL), SLOG_OK);
    slog_writer_destroy(w);
    write_random(tp("a.slog"), 5, 1000000000u, 0, 1000000000, 3000, true);
    expect x = {.paths = {tp("burst.slog"), tp("a.slog")}, .labels = {"burst", "a"}, .n = 2};
    slog_merge_summary s;
    slog_error err;
    ck_assert_int_eq(merge_expect(&x, tp("out.slog"), NULL, &s, &err), SLOG_OK);
    ck_assert_uint_eq(s.events, 300000 + 750);
    ck_assert_uint_ge(s.slices, 3);
    check_output(&x, tp("out.slog"));
}
END_TEST

/* Drawables at the int64 end: no overflow, the last slice takes them; an
 * instant at INT64_MAX, which no query window can return, is reported. */
START_TEST(test_merge_int64_end)
{
    uint32_t tl, cs, ce;
    slog_writer *w = simple_writer(tp("end.slog"), &tl, &cs, &ce);
    const slog_event e = {tl, ce, INT64_MAX - 1, 0, NULL};
    const slog_state st = {tl, cs, INT64_MAX - 100, INT64_MAX, 0, 0, NULL};
    ck_assert_int_eq(slog_writer_append_event(w, &e, NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_append_state(w, &st, NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_finish(w, NULL), SLOG_OK);
    slog_writer_destroy(w);
    expect x = {.paths = {tp("end.slog")}, .labels = {"end"}, .n = 1};
    slog_merge_options o = SLOG_MERGE_OPTIONS_INIT;
    o.slice_ticks = 7;
    slog_merge_summary s;
    slog_error err;
    ck_assert_int_eq(merge_expect(&x, tp("out.slog"), &o, &s, &err), SLOG_OK);
    ck_assert_int_eq(s.end, INT64_MAX);
    check_output(&x, tp("out.slog"));

    w = simple_writer(tp("max.slog"), &tl, &cs, &ce);
    const slog_event at_max = {tl, ce, INT64_MAX, 0, NULL};
    ck_assert_int_eq(slog_writer_append_event(w, &at_max, NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_finish(w, NULL), SLOG_OK);
    slog_writer_destroy(w);
    x.paths[0] = tp("max.slog");
    ck_assert_int_eq(merge_expect(&x, tp("out2.slog"), NULL, &s, &err), SLOG_ECORRUPT);
    ck_assert_str_eq(err.source, tp("max.slog"));
}
END_TEST

/* ---- refusals, each naming the file ---- */

static void assert_refused(const char *const *in, size_t n, const char *out, int code,
                           const char *source, uint32_t flags)
{
    slog_merge_options o = SLOG_MERGE_OPTIONS_INIT;
    o.flags = flags;
    slog_merge_summary s;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    ck_assert_int_eq(slog_merge_files(in, n, out, &o, &s, &err), code);
    ck_assert_int_eq(err.code, code);
    ck_assert_str_eq(err.source, source);
    ck_assert(strlen(err.message) > 0 && strchr(err.message, '\n') == NULL);
    ck_assert(!s.output_created);
    ck_assert_int_ne(access(out, F_OK), 0); /* nothing written */
}

START_TEST(test_merge_same_file_twice)
{
    write_random(tp("x.slog"), 1, 1000000000u, 0, 10000, 50, true);
    ck_assert_int_eq(chdir(g_dir), 0);
    ck_assert_int_eq(link("x.slog", "hard.slog"), 0);
    const char *const same[] = {"x.slog", "x.slog"};
    assert_refused(same, 2, "o.slog", SLOG_EINVAL, "x.slog", 0);
    const char *const dot[] = {"x.slog", "./x.slog"};
    assert_refused(dot, 2, "o.slog", SLOG_EINVAL, "./x.slog", 0);
    const char *const hard[] = {"hard.slog", "x.slog"};
    assert_refused(hard, 2, "o.slog", SLOG_EINVAL, "x.slog", 0);
}
END_TEST

START_TEST(test_merge_output_is_input)
{
    write_random(tp("x.slog"), 1, 1000000000u, 0, 10000, 50, true);
    write_random(tp("y.slog"), 2, 1000000000u, 0, 10000, 50, true);
    ck_assert_int_eq(chdir(g_dir), 0);
    ck_assert_int_eq(link("x.slog", "hard.slog"), 0);
    struct stat before, after;
    ck_assert_int_eq(stat("x.slog", &before), 0);
    slog_merge_summary s;
    slog_error err;
    const char *const in[] = {"y.slog", "x.slog"};
    ck_assert_int_eq(slog_merge_files(in, 2, "x.slog", NULL, &s, &err), SLOG_EINVAL);
    ck_assert_str_eq(err.source, "x.slog");
    ck_assert_int_eq(slog_merge_files(in, 2, "hard.slog", NULL, &s, &err), SLOG_EINVAL);
    ck_assert_str_eq(err.source, "x.slog");
    ck_assert(!s.output_created);
    ck_assert_int_eq(stat("x.slog", &after), 0);
    ck_assert_int_eq(before.st_size, after.st_size);
    ck_assert_int_eq(before.st_mtime, after.st_mtime);
    slog_reader *r;
    ck_assert_int_eq(slog_reader_open(&r, "x.slog", NULL, NULL), SLOG_OK);
    ck_assert(slog_reader_info(r)->complete);
    slog_reader_destroy(r);
}
END_TEST

START_TEST(test_merge_incomplete_input)
{
    write_random(tp("done.slog"), 3, 1000000000u, 0, 100000, 400, true);
    write_random(tp("cut.slog"), 4, 1000000u, 0, 100, 400, false); /* flushed, not finished */
    slog_reader *r;
    ck_assert_int_eq(slog_reader_open(&r, tp("cut.slog"), NULL, NULL), SLOG_OK);
    ck_assert(!slog_reader_info(r)->complete);
    slog_reader_destroy(r);
    expect x = {.paths = {tp("done.slog"), tp("cut.slog")}, .labels = {"done", "cut"}, .n = 2};
    assert_refused(x.paths, 2, tp("out.slog"), SLOG_ESTATE, tp("cut.slog"), 0);
    slog_merge_options o = SLOG_MERGE_OPTIONS_INIT;
    o.flags = SLOG_MERGE_ALLOW_INCOMPLETE;
    slog_merge_summary s;
    slog_error err;
    ck_assert_int_eq(merge_expect(&x, tp("out.slog"), &o, &s, &err), SLOG_OK);
    ck_assert_uint_eq(s.incomplete_inputs, 1);
    check_output(&x, tp("out.slog")); /* every drawable cut.slog holds */
    ck_assert_int_eq(slog_reader_open(&r, tp("out.slog"), NULL, NULL), SLOG_OK);
    ck_assert_msg(!slog_reader_info(r)->complete, "a merge of an incomplete input says complete");
    slog_reader_destroy(r);
}
END_TEST

START_TEST(test_merge_clocks_without_exact_conversion)
{
    write_random(tp("p.slog"), 5, 999999937u, 0, 1000, 20, true);  /* a prime */
    write_random(tp("q.slog"), 6, 1000000007u, 0, 1000, 20, true); /* another */
    const char *const in[] = {tp("p.slog"), tp("q.slog")};
    slog_error err;
    slog_merge_summary s;
    ck_assert_int_eq(slog_merge_files(in, 2, tp("out.slog"), NULL, &s, &err), SLOG_EINVAL);
    ck_assert_str_eq(err.source, tp("q.slog"));
    ck_assert_ptr_nonnull(strstr(err.message, "p.slog (999999937 ticks/s)"));
    ck_assert_ptr_nonnull(strstr(err.message, "q.slog (1000000007 ticks/s)"));
    ck_assert_int_ne(access(tp("out.slog"), F_OK), 0);
}
END_TEST

START_TEST(test_merge_missing_and_foreign_files)
{
    write_random(tp("x.slog"), 1, 1000000000u, 0, 10000, 50, true);
    const char *const missing[] = {tp("x.slog"), tp("nope.slog")};
    assert_refused(missing, 2, tp("out.slog"), SLOG_EIO, tp("nope.slog"), 0);
    FILE *const f = fopen(tp("text.slog"), "w");
    ck_assert_ptr_nonnull(f);
    fputs("not a trace\n", f);
    fclose(f);
    const char *const foreign[] = {tp("x.slog"), tp("text.slog")};
    assert_refused(foreign, 2, tp("out.slog"), SLOG_EFORMAT, tp("text.slog"), 0);
}
END_TEST

/* Flip bytes in the middle of the first /payload chunk (located by
 * tests/corrupt/h5map, $H5MAP): the merge fails with the file's name and
 * leaves its output marked incomplete. */
START_TEST(test_merge_damaged_input)
{
    const char *const h5map = getenv("H5MAP");
    if (h5map == NULL) {
        return;
    }
    write_random(tp("x.slog"), 1, 1000000000u, 0, 1000000, 3000, true);
    write_random(tp("bad.slog"), 2, 1000000000u, 0, 1000000, 3000, true);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' '%s'", h5map, tp("bad.slog"));
    FILE *const p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    char line[256], name[64];
    unsigned long long addr = 0, len = 0;
    bool found = false;
    while (!found && fgets(line, sizeof line, p) != NULL) {
        found = sscanf(line, "chunk %llu %llu %63s", &addr, &len, name) == 3 &&
                strcmp(name, "payload") == 0;
    }
    pclose(p);
    ck_assert_msg(found, "no payload chunk");
    FILE *const f = fopen(tp("bad.slog"), "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, (long)(addr + len / 2), SEEK_SET), 0);
    for (int i = 0; i < 64; i++) {
        fputc(0x5a ^ i, f);
    }
    fclose(f);
    const char *const in[] = {tp("x.slog"), tp("bad.slog")};
    slog_merge_summary s;
    slog_error err;
    const int rc = slog_merge_files(in, 2, tp("out.slog"), NULL, &s, &err);
    ck_assert_int_lt(rc, 0);
    ck_assert_str_eq(err.source, tp("bad.slog"));
    ck_assert(s.output_created);
    slog_reader *r;
    ck_assert_int_eq(slog_reader_open(&r, tp("out.slog"), NULL, NULL), SLOG_OK);
    ck_assert(!slog_reader_info(r)->complete);
    slog_reader_destroy(r);
}
END_TEST

START_TEST(test_merge_offset_overflow_and_bad_options)
{
    write_random(tp("x.slog"), 1, 1000000u, 0, 10000, 50, true);
    write_random(tp("y.slog"), 2, 1000000000u, 0, 10000, 50, true);
    const char *const in[] = {tp("x.slog"), tp("y.slog")};
    const int64_t offsets[] = {INT64_MAX / 1000, 0};
    slog_merge_options o = SLOG_MERGE_OPTIONS_INIT;
    o.offsets = offsets;
    slog_merge_summary s;
    slog_error err;
    ck_assert_int_eq(slog_merge_files(in, 2, tp("out.slog"), &o, &s, &err), SLOG_EINVAL);
    ck_assert_str_eq(err.source, tp("x.slog"));
    o.offsets = NULL;
    o.flags = 0x80u;
    ck_assert_int_eq(slog_merge_files(in, 2, tp("out.slog"), &o, &s, &err), SLOG_EINVAL);
    o.flags = 0;
    o.struct_size = 2;
    ck_assert_int_eq(slog_merge_files(in, 2, tp("out.slog"), &o, &s, &err), SLOG_EINVAL);
    ck_assert_int_eq(slog_merge_files(in, 0, tp("out.slog"), NULL, &s, &err), SLOG_EINVAL);
    slog_writer_options wo = SLOG_WRITER_OPTIONS_INIT;
    wo.ticks_per_second = 3000000000u; /* a common multiple of 10^6 and 10^9 */
    slog_merge_options_init(&o);
    o.writer = &wo;
    ck_assert_int_eq(slog_merge_files(in, 2, tp("out.slog"), &o, &s, &err), SLOG_OK);
    ck_assert_uint_eq(s.ticks_per_second, 3000000000u);
    wo.ticks_per_second = 1500000000u; /* 10^9 does not divide it */
    ck_assert_int_eq(slog_merge_files(in, 2, tp("out2.slog"), &o, &s, &err), SLOG_EINVAL);
    ck_assert_str_eq(err.source, tp("y.slog"));
}
END_TEST

START_TEST(test_merge_cancelled)
{
    write_random(tp("x.slog"), 1, 1000000000u, 0, 1000000, 500, true);
    const char *const in[] = {tp("x.slog")};
    slog_merge_atomic_int stop;
    atomic_init(&stop, 1);
    slog_merge_options o = SLOG_MERGE_OPTIONS_INIT;
    o.cancel = &stop;
    slog_merge_summary s;
    slog_error err;
    ck_assert_int_eq(slog_merge_files(in, 1, tp("out.slog"), &o, &s, &err), SLOG_EINTR);
    ck_assert(s.output_created);
    slog_reader *r;
    ck_assert_int_eq(slog_reader_open(&r, tp("out.slog"), NULL, NULL), SLOG_OK);
    ck_assert(!slog_reader_info(r)->complete);
    slog_reader_destroy(r);
}
END_TEST

/* An empty input (no drawables) beside a full one. */
START_TEST(test_merge_empty_input)
{
    slog_writer *w;
    ck_assert_int_eq(slog_writer_create(&w, tp("empty.slog"), NULL, NULL), SLOG_OK);
    ck_assert_int_eq(slog_writer_finish(w, NULL), SLOG_OK);
    slog_writer_destroy(w);
    write_random(tp("x.slog"), 1, 1000000000u, 0, 1000000, 300, true);
    expect x = {.paths = {tp("empty.slog"), tp("x.slog")}, .labels = {"empty", "x"}, .n = 2};
    slog_merge_summary s;
    slog_error err;
    ck_assert_int_eq(merge_expect(&x, tp("out.slog"), NULL, &s, &err), SLOG_OK);
    check_output(&x, tp("out.slog"));
    x.n = 1;
    ck_assert_int_eq(merge_expect(&x, tp("out2.slog"), NULL, &s, &err), SLOG_OK);
    ck_assert_uint_eq(s.states + s.events + s.arrows + s.counters, 0);
    ck_assert_uint_eq(s.timelines, 1);
}
END_TEST

/* Two real traces of different formats, imported by slog-import. */
/* Links (slog_merge_options.links, the MPI writer's hook): a timeline of a
 * later input stands for one of an earlier input.  Fully linked, the input
 * adds no timeline at all; partly linked, it keeps a top timeline for the
 * rest.  Bad links are refused. */
static void write_linked(const char *path, uint32_t ntl)
{
    slog_writer *w;
    uint32_t tl[3], cat;
    ck_assert_int_eq(slog_writer_create(&w, path, NULL, NULL), SLOG_OK);
    for (uint32_t i = 0; i < ntl; i++) {
        char name[16];
        snprintf(name, sizeof name, "own %u", i);
        ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, name,
                                                  0, &tl[i], NULL), SLOG_OK);
    }
    ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_EVENT, "linked ev", 0, NULL, &cat,
                                              NULL), SLOG_OK);
    for (uint32_t i = 0; i < ntl; i++) {
        const slog_event e = {tl[i], cat, 5000 + (int64_t)i, 0, NULL};
        ck_assert_int_eq(slog_writer_append_event(w, &e, NULL), SLOG_OK);
    }
    ck_assert_int_eq(slog_writer_finish(w, NULL), SLOG_OK);
    slog_writer_destroy(w);
}

/* The output timeline of every "linked ev" event, by time - 5000. */
static void linked_rows(const char *path, uint32_t *rows, uint32_t n)
{
    slog_reader *r;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, NULL), SLOG_OK);
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.kinds = 1u << SLOG_KIND_EVENT;
    q.t0 = 5000;
    q.t1 = 5000 + (int64_t)n;
    slog_query *qq;
    ck_assert_int_eq(slog_query_create(&qq, r, &q, NULL), SLOG_OK);
    const slog_item *it;
    while (slog_query_next(qq, &it, NULL) == SLOG_OK) {
        slog_category_info ci;
        ck_assert_int_eq(slog_reader_category(r, it->u.event.category, &ci), SLOG_OK);
        if (strcmp(ci.name, "linked ev") == 0) {
            rows[it->u.event.time - 5000] = it->u.event.timeline;
        }
    }
    slog_query_destroy(qq);
    slog_reader_destroy(r);
}

START_TEST(test_merge_links)
{
    write_random(tp("a.slog"), 21, 1000000000u, 1000, 100000, 300, true);
    write_linked(tp("all.slog"), 2);
    write_linked(tp("part.slog"), 3);
    const char *const in[] = {tp("a.slog"), tp("all.slog")};
    const slog_merge_link links[] = {{1, 0, 0, 3}, {1, 1, 0, 5}};
    slog_merge_options o = SLOG_MERGE_OPTIONS_INIT;
    o.links = links;
    o.nlinks = 2;
    slog_merge_summary s;
    slog_error err;
    ck_assert_int_eq(slog_merge_files(in, 2, tp("out.slog"), &o, &s, &err), SLOG_OK);
    slog_reader *r;
    ck_assert_int_eq(slog_reader_open(&r, tp("a.slog"), NULL, NULL), SLOG_OK);
    const uint32_t a_tl = slog_reader_info(r)->timelines;
    slog_reader_destroy(r);
    ck_assert_uint_eq(s.timelines, 1 + a_tl); /* no top timeline, nothing new for all.slog */
    uint32_t rows[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    linked_rows(tp("out.slog"), rows, 2);
    ck_assert_uint_eq(rows[0], 1 + 3); /* a's top is 0, its timeline i is 1 + i */
    ck_assert_uint_eq(rows[1], 1 + 5);

    const char *const in2[] = {tp("a.slog"), tp("part.slog")};
    ck_assert_int_eq(slog_merge_files(in2, 2, tp("out2.slog"), &o, &s, &err), SLOG_OK);
    ck_assert_uint_eq(s.timelines, 1 + a_tl + 2); /* a top timeline and "own 2" */
    linked_rows(tp("out2.slog"), rows, 3);
    ck_assert_uint_eq(rows[0], 4);
    ck_assert_uint_eq(rows[1], 6);
    ck_assert_uint_eq(rows[2], 1 + a_tl + 1);

    const slog_merge_link twice[] = {{1, 0, 0, 3}, {1, 0, 0, 4}};
    const slog_merge_link later[] = {{0, 0, 1, 0}};
    const slog_merge_link range[] = {{1, 7, 0, 3}};
    const slog_merge_link *const bad[] = {twice, later, range};
    const size_t nbad[] = {2, 1, 1};
    for (size_t i = 0; i < NELEM(bad); i++) {
        o.links = bad[i];
        o.nlinks = nbad[i];
        ck_assert_int_eq(slog_merge_files(in, 2, tp("bad.slog"), &o, &s, &err), SLOG_EINVAL);
        ck_assert(!s.output_created); /* refused before anything is written */
    }
    o.links = NULL;
    ck_assert_int_eq(slog_merge_files(in, 2, tp("bad.slog"), &o, &s, &err), SLOG_EINVAL);
    ck_assert_int_ne(access(tp("bad.slog"), F_OK), 0);
}
END_TEST

/* The timeline i of path: name, kind, parent, sort key as "name|kind|parent|key". */
static void timeline_line(slog_reader *r, uint32_t i, char *buf, size_t n)
{
    slog_timeline_info ti;
    ck_assert_int_eq(slog_reader_timeline(r, i, &ti), SLOG_OK);
    snprintf(buf, n, "%s|%u|%d|%lld", ti.name, (unsigned)ti.kind,
             ti.parent == SLOG_NO_PARENT ? -1 : (int)ti.parent, (long long)ti.sort_key);
}

/* SLOG_MERGE_LABEL_ROOT: an input of one root has that root, renamed by
 * its label, as its top (kind top_kind, else its own; its drawables stay
 * on it); an input of two roots gets a new top as without the flag. */
START_TEST(test_merge_label_root)
{
    write_linked(tp("one.slog"), 1);
    write_linked(tp("two.slog"), 2);
    const char *const in[] = {tp("one.slog"), tp("two.slog")};
    const char *const labels[] = {"rank 0 (p)", "two"};
    slog_merge_options o = SLOG_MERGE_OPTIONS_INIT;
    o.labels = labels;
    o.flags = SLOG_MERGE_LABEL_ROOT;
    slog_merge_summary s;
    slog_error err;
    for (uint32_t kind = 0; kind <= SLOG_TIMELINE_RANK; kind += SLOG_TIMELINE_RANK) {
        o.top_kind = kind;
        ck_assert_int_eq(slog_merge_files(in, 2, tp("out.slog"), &o, &s, &err), SLOG_OK);
        ck_assert_uint_eq(s.timelines, 4); /* the renamed root; "two" and its two roots */
        slog_reader *r;
        ck_assert_int_eq(slog_reader_open(&r, tp("out.slog"), NULL, NULL), SLOG_OK);
        ck_assert_uint_eq(slog_reader_info(r)->timelines, 4);
        char want[4][64], got[64];
        snprintf(want[0], 64, "rank 0 (p)|%u|-1|0", kind ? kind : SLOG_TIMELINE_THREAD);
        snprintf(want[1], 64, "two|%u|-1|1", kind);
        snprintf(want[2], 64, "own 0|%u|1|0", SLOG_TIMELINE_THREAD);
        snprintf(want[3], 64, "own 1|%u|1|0", SLOG_TIMELINE_THREAD);
        for (uint32_t i = 0; i < 4; i++) {
            timeline_line(r, i, got, sizeof got);
            ck_assert_str_eq(got, want[i]);
        }
        slog_reader_destroy(r);
        uint32_t rows[2] = {UINT32_MAX, UINT32_MAX};
        linked_rows(tp("out.slog"), rows, 2);
        ck_assert_uint_eq(rows[1], 3); /* two.slog's second root's event */
    }
    const char *const one[] = {tp("one.slog")};
    ck_assert_int_eq(slog_merge_files(one, 1, tp("alone.slog"), &o, &s, &err), SLOG_OK);
    uint32_t rows[1] = {UINT32_MAX};
    linked_rows(tp("alone.slog"), rows, 1);
    ck_assert_uint_eq(rows[0], 0); /* on the renamed root itself */
}
END_TEST

START_TEST(test_merge_corpus_imports)
{
    const char *const imp = getenv("SLOG_IMPORT");
    const char *const corpus = getenv("SLOG_CORPUS");
    static const char *const files[] = {"catapult/big_trace.json", "mpe/ring_mpilog.clog2"};
    char src[2][512];
    for (size_t i = 0; i < NELEM(files); i++) {
        snprintf(src[i], sizeof src[i], "%s/%s", corpus != NULL ? corpus : "", files[i]);
        if (imp == NULL || corpus == NULL || access(src[i], R_OK) != 0) {
            fprintf(stderr, "# corpus or slog-import missing: skipped\n");
            return;
        }
    }
    expect x = {.paths = {tp_keep("chrome.slog"), tp_keep("mpe.slog")},
                .labels = {"chrome", "mpe"},
                .n = 2};
    uint64_t counts[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < NELEM(files); i++) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "'%s' -q '%s' -o '%s'", imp, src[i], x.paths[i]);
        ck_assert_int_eq(system(cmd), 0);
        slog_reader *r;
        ck_assert_int_eq(slog_reader_open(&r, x.paths[i], NULL, NULL), SLOG_OK);
        const slog_file_info *const fi = slog_reader_info(r);
        counts[0] += fi->states, counts[1] += fi->events;
        counts[2] += fi->arrows, counts[3] += fi->counters;
        slog_reader_destroy(r);
    }
    slog_merge_summary s;
    slog_error err;
    ck_assert_int_eq(merge_expect(&x, tp("out.slog"), NULL, &s, &err), SLOG_OK);
    ck_assert_uint_eq(s.states, counts[0]);
    ck_assert_uint_eq(s.events, counts[1]);
    ck_assert_uint_eq(s.arrows, counts[2]);
    ck_assert_uint_eq(s.counters, counts[3]);
    ck_assert_uint_gt(counts[0] + counts[2], 0);
    check_output(&x, tp("out.slog"));
    check_stats(&x, tp("out.slog"), s.ticks_per_second);
}
END_TEST

int main(void)
{
    Suite *const s = suite_create("merge");
    TCase *const exact = tcase_create("exact");
    tcase_add_checked_fixture(exact, setup, teardown);
    tcase_set_timeout(exact, 120);
    tcase_add_test(exact, test_merge_small_slices_exact);
    tcase_add_test(exact, test_merge_default_slice_exact);
    tcase_add_test(exact, test_merge_labels_offsets_ranks);
    tcase_add_test(exact, test_merge_dense_burst_splits);
    tcase_add_test(exact, test_merge_int64_end);
    tcase_add_test(exact, test_merge_empty_input);
    tcase_add_test(exact, test_merge_links);
    tcase_add_test(exact, test_merge_label_root);
    tcase_add_test(exact, test_merge_corpus_imports);
    suite_add_tcase(s, exact);
    TCase *const refused = tcase_create("refused");
    tcase_add_checked_fixture(refused, setup, teardown);
    tcase_set_timeout(refused, 60);
    tcase_add_test(refused, test_merge_same_file_twice);
    tcase_add_test(refused, test_merge_output_is_input);
    tcase_add_test(refused, test_merge_incomplete_input);
    tcase_add_test(refused, test_merge_clocks_without_exact_conversion);
    tcase_add_test(refused, test_merge_missing_and_foreign_files);
    tcase_add_test(refused, test_merge_damaged_input);
    tcase_add_test(refused, test_merge_offset_overflow_and_bad_options);
    tcase_add_test(refused, test_merge_cancelled);
    suite_add_tcase(s, refused);
    SRunner *const sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
