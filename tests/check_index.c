/* SPDX-License-Identifier: MIT
 *
 * check_index.c - index files (slog_index.h) through the public API only.
 * Small deterministic inputs are written with the public writer in a
 * temporary directory (per input: a process timeline with 2 or 3 threads,
 * nested states through begin/end, events, arrows between its threads,
 * counter samples, args on some drawables; categories defined in another
 * order per input, one only in input 2, one name with another group in
 * input 3).  An index over them must answer, in global ids and times,
 * exactly what the inputs say (compared by timeline paths and category
 * names, never raw ids) and what slog_merge_files makes of the same inputs:
 * full detail, offsets and labels, zoomed-out answers from the copied top
 * levels alone (no input file opened, counts exact), timeline and category
 * filters that open only the inputs they need, statistics, search, args,
 * verification; refusals when writing (a file twice, an index as input,
 * two clocks, missing and incomplete inputs, both accepted by their flags,
 * an empty input); inputs changed or deleted after indexing; byte flips in
 * the input table's /payload chunk (located by tests/corrupt/h5map) and in
 * the file's last 4 KiB; the whole directory moved; refresh and
 * first_node; more inputs than the reader keeps open.  Test cases
 * "bug_*" hold known library bugs (tests/meson.build: should_fail).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slog/slog.h>
#include <slog/slog_index.h>
#include <slog/slog_merge.h>

#include "ck_quiet.h"

#define NIN  4
#define WIDE ((int64_t)1 << 60) /* a window [-WIDE, WIDE) holds everything */

/* ---- temporary directory (checked fixture: one per test, in its child) ---- */

static char g_dir[128];
static char g_moved[160];

static void teardown(void)
{
    if (g_dir[0] == '\0') {
        return;
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", g_dir, g_moved);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot remove %s\n", g_dir);
    }
    g_dir[0] = '\0';
}

static void setup(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/check_index_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g_dir));
    snprintf(g_moved, sizeof g_moved, "%s_moved", g_dir);
}

/* A path in the test's directory (rotating buffers: a few at a time). */
static const char *tp(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *tp(const char *fmt, ...)
{
    static char bufs[32][256];
    static unsigned next;
    char name[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    char *const b = bufs[next++ % 32];
    snprintf(b, sizeof bufs[0], "%s/%s", g_dir, name);
    return b;
}

/* ---- deterministic inputs ---- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int64_t rng_range(rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

typedef struct gen {
    slog_writer *w;
    rng r;
    uint32_t sc[4]; /* state categories by name index */
    uint32_t extra; /* input 2: "only_r2"; input 3: "compute" of group "gpu"; else UINT32_MAX */
    uint64_t states, args_serial;
} gen;

static const char *const state_names[4] = {"compute", "mpi_send", "mpi_recv", "io_write"};

#define WCHECK(call)                                                                               \
    do {                                                                                           \
        slog_error e_ = {0};                                                                       \
        const int rc_ = (call);                                                                    \
        ck_assert_msg(rc_ == SLOG_OK, "%s: %s (%s)", #call, slog_status_name(rc_), e_.message);    \
    } while (0)
#define WE (&e_)

/* One state and its nested children through begin/end, from *t on. */
static void gen_state(gen *g, uint32_t tl, uint32_t depth, int64_t *t)
{
    uint32_t cat = g->sc[rng_next(&g->r) % 4];
    if (g->extra != UINT32_MAX && rng_next(&g->r) % 5 == 0) {
        cat = g->extra;
    }
    char file[32];
    snprintf(file, sizeof file, "f%llu.c", (unsigned long long)(g->args_serial % 17));
    const slog_arg args[2] = {
        {.key = "iter", .type = SLOG_ARG_INT, .v.i = (int64_t)g->args_serial - 40},
        {.key = "file", .type = SLOG_ARG_STRING, .v.s = file},
    };
    const bool with_args = g->args_serial++ % 7 == 0;
    WCHECK(slog_writer_begin(g->w, tl, cat, *t, with_args ? args : NULL, with_args ? 2 : 0, WE));
    *t += rng_range(&g->r, 200, 3000);
    const int64_t kids = depth < 3 ? rng_range(&g->r, 0, 3) : 0;
    for (int64_t k = 0; k < kids; k++) {
        gen_state(g, tl, depth + 1, t);
        *t += rng_range(&g->r, 1, 500);
    }
    WCHECK(slog_writer_end(g->w, tl, *t, WE));
    g->states++;
}

/* The timelines and the categories other than the states' of an input
 * being written (write_input). */
typedef struct gen_ids {
    int input;
    uint32_t th[3], nthreads;
    uint32_t mark, msg, mem, flops; /* flops: UINT32_MAX when the input has none */
} gen_ids;

/* Process "pid <100 + input>" and its threads: 2, or 3 for odd shapes. */
static void gen_timelines(gen *g, gen_ids *ids)
{
    char name[64];
    snprintf(name, sizeof name, "pid %d", 100 + ids->input);
    uint32_t proc = 0;
    WCHECK(
        slog_writer_add_timeline(g->w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, name, 0, &proc, WE));
    ids->nthreads = 2 + (uint32_t)(ids->input % 4 % 2);
    for (uint32_t k = 0; k < ids->nthreads; k++) {
        snprintf(name, sizeof name, "thread %u", k);
        WCHECK(slog_writer_add_timeline(g->w, proc, SLOG_TIMELINE_THREAD, name, (int64_t)k + 1,
                                        &ids->th[k], WE));
    }
}

/* The categories: the 4 state names in another order per shape, mark,
 * only_r2 (shape 2) or compute of group gpu (shape 3), msg, mem_bytes and
 * flops (odd shapes). */
static void gen_categories(gen *g, gen_ids *ids)
{
    const int shape = ids->input % 4;
    for (int k = 0; k < 4; k++) {
        const int n = (k + shape) % 4;
        WCHECK(slog_writer_add_category(g->w, SLOG_KIND_STATE, state_names[n], 0, "app", &g->sc[n],
                                        WE));
    }
    ids->flops = UINT32_MAX;
    WCHECK(slog_writer_add_category(g->w, SLOG_KIND_EVENT, "mark", 0, "ev", &ids->mark, WE));
    if (shape == 2) {
        WCHECK(slog_writer_add_category(g->w, SLOG_KIND_STATE, "only_r2", 0, "app", &g->extra, WE));
    }
    if (shape == 3) {
        WCHECK(slog_writer_add_category(g->w, SLOG_KIND_STATE, "compute", 0, "gpu", &g->extra, WE));
    }
    WCHECK(slog_writer_add_category(g->w, SLOG_KIND_ARROW, "msg", 0, NULL, &ids->msg, WE));
    WCHECK(slog_writer_add_category(g->w, SLOG_KIND_COUNTER, "mem_bytes", 0, NULL, &ids->mem, WE));
    if (shape % 2 == 1) {
        WCHECK(
            slog_writer_add_category(g->w, SLOG_KIND_COUNTER, "flops", 0, NULL, &ids->flops, WE));
    }
}

/* What goes with top-level state number `serial`, [start, end] on thread
 * k: events (some with args), every third an arrow to the next thread,
 * counter samples. */
static void
gen_extras(gen *g, const gen_ids *ids, uint32_t k, uint64_t serial, int64_t start, int64_t end)
{
    const uint32_t tl = ids->th[k];
    const slog_arg eargs[2] = {
        {.key = "x", .type = SLOG_ARG_DOUBLE, .v.d = (double)serial * 0.25},
        {.key = "ok", .type = SLOG_ARG_BOOL, .v.b = serial % 2 == 0},
    };
    const bool ea = serial % 3 == 0;
    const slog_event ev = {tl, ids->mark, end - 1, ea ? 2u : 0u, ea ? eargs : NULL};
    WCHECK(slog_writer_append_event(g->w, &ev, WE));
    if (serial % 2 == 0) {
        const slog_event ev2 = {tl, ids->mark, start + 7, 0, NULL};
        WCHECK(slog_writer_append_event(g->w, &ev2, WE));
    }
    if (serial % 3 == 1) {
        const slog_arg aargs[1] = {{.key = "bytes", .type = SLOG_ARG_UINT, .v.u = 64u * serial}};
        const bool aa = serial % 2 == 1;
        const uint32_t to = ids->th[(k + 1) % ids->nthreads];
        const slog_arrow a = {ids->msg, tl, to, start, end + 5, aa ? 1u : 0u, aa ? aargs : NULL};
        WCHECK(slog_writer_append_arrow(g->w, &a, WE));
    }
    const slog_counter c = {tl, ids->mem, start,
                            (double)(ids->input * 1000 + (int)(serial % 4096)) * 0.5};
    WCHECK(slog_writer_append_counter(g->w, &c, WE));
    if (ids->flops != UINT32_MAX && serial % 2 == 0) {
        const slog_counter c2 = {tl, ids->flops, end, (double)serial * 1.5};
        WCHECK(slog_writer_append_counter(g->w, &c2, WE));
    }
}

/* The thread furthest behind among those with states left to write
 * (UINT32_MAX: none has). */
static uint32_t
gen_next_thread(const gen_ids *ids, const int64_t *now, const uint64_t *done, uint32_t nstates)
{
    uint32_t k = UINT32_MAX;
    for (uint32_t j = 0; j < ids->nthreads; j++) {
        if (done[j] < nstates / ids->nthreads && (k == UINT32_MAX || now[j] < now[k])) {
            k = j;
        }
    }
    return k;
}

/* Input `input` of a set (its shape depends on input % 4), seeded by seed,
 * about nstates states; finished unless !finish (flushed, then destroyed). */
static void
write_input(const char *path, int input, uint64_t seed, uint32_t nstates, uint64_t tps, bool finish)
{
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 512;
    o.ticks_per_second = tps;
    gen g;
    memset(&g, 0, sizeof g);
    g.r.s = seed * 7919u + (uint64_t)input;
    g.extra = UINT32_MAX;
    WCHECK(slog_writer_create(&g.w, path, &o, WE));
    gen_ids ids = {.input = input};
    gen_timelines(&g, &ids);
    gen_categories(&g, &ids);
    const int64_t base = (int64_t)input * 200000 + 1000;
    uint64_t serial = 0;
    int64_t now[3];
    uint64_t done[3] = {0, 0, 0};
    for (uint32_t k = 0; k < ids.nthreads; k++) {
        now[k] = base + rng_range(&g.r, 0, 5000);
    }
    /* one top-level state at a time on the thread that is the furthest behind */
    uint32_t k;
    while ((k = gen_next_thread(&ids, now, done, nstates)) != UINT32_MAX) {
        const uint64_t before = g.states;
        const int64_t start = now[k];
        gen_state(&g, ids.th[k], 0, &now[k]);
        done[k] += g.states - before;
        serial++;
        gen_extras(&g, &ids, k, serial, start, now[k]);
        now[k] += rng_range(&g.r, 100, 4000);
    }
    if (finish) {
        WCHECK(slog_writer_finish(g.w, WE));
    } else {
        WCHECK(slog_writer_flush(g.w, WE));
    }
    slog_writer_destroy(g.w);
}

static slog_reader *open_reader(const char *path)
{
    slog_reader *r = NULL;
    slog_error err;
    const int rc = slog_reader_open(&r, path, NULL, &err);
    ck_assert_msg(rc == SLOG_OK, "open %s: %s: %s", path, slog_status_name(rc), err.message);
    return r;
}

static char g_in[NIN][256];
static const char *g_inputs[NIN];
static const char *const g_labels[NIN] = {"r0", "r1", "r2", "r3"};

/* The standard inputs r0..r3.slog of the test's directory. */
static void make_inputs(uint32_t nstates)
{
    for (int i = 0; i < NIN; i++) {
        snprintf(g_in[i], sizeof g_in[i], "%s/r%d.slog", g_dir, i);
        g_inputs[i] = g_in[i];
        write_input(g_in[i], i, 1, nstates, 0, true);
    }
}

static void index_write(const char *const *in,
                        size_t n,
                        const char *out,
                        const slog_index_options *o,
                        slog_index_summary *s)
{
    slog_error err;
    const int rc = slog_index_write(in, n, out, o, s, &err);
    ck_assert_msg(rc == SLOG_OK, "slog_index_write %s: %s: %s (%s)", out, slog_status_name(rc),
                  err.message, err.source);
}

/* ---- names: timeline paths and category keys of a reader ---- */

typedef struct names {
    uint32_t ntl, ncat;
    char **tl;  /* per timeline: "label/pid 100/thread 0" */
    char **cat; /* per category: "kind:name:group" */
} names;

static const char *tl_path(names *n, slog_reader *r, uint32_t id, const char *prefix)
{
    if (n->tl[id] != NULL) {
        return n->tl[id];
    }
    slog_timeline_info ti;
    ck_assert_int_eq(slog_reader_timeline(r, id, &ti), SLOG_OK);
    char buf[1024];
    if (ti.parent == SLOG_NO_PARENT) {
        snprintf(buf, sizeof buf, "%s%s", prefix, ti.name);
    } else {
        ck_assert_uint_lt(ti.parent, n->ntl);
        snprintf(buf, sizeof buf, "%s/%s", tl_path(n, r, ti.parent, prefix), ti.name);
    }
    n->tl[id] = strdup(buf);
    return n->tl[id];
}

/* prefix: put before top-level timelines' names ("r1/" for an input read
 * alone, "" for an index or a merged file). */
static void names_load(names *n, slog_reader *r, const char *prefix)
{
    const slog_file_info *const f = slog_reader_info(r);
    n->ntl = f->timelines;
    n->ncat = f->categories;
    n->tl = calloc(n->ntl + 1u, sizeof *n->tl);
    n->cat = calloc(n->ncat + 1u, sizeof *n->cat);
    ck_assert(n->tl != NULL && n->cat != NULL);
    for (uint32_t i = 0; i < n->ntl; i++) {
        (void)tl_path(n, r, i, prefix);
    }
    for (uint32_t i = 0; i < n->ncat; i++) {
        slog_category_info ci;
        ck_assert_int_eq(slog_reader_category(r, i, &ci), SLOG_OK);
        char buf[512];
        snprintf(buf, sizeof buf, "%d:%s:%s", (int)ci.kind, ci.name, ci.group);
        n->cat[i] = strdup(buf);
    }
}

static void names_free(names *n)
{
    for (uint32_t i = 0; i < n->ntl; i++) {
        free(n->tl[i]);
    }
    for (uint32_t i = 0; i < n->ncat; i++) {
        free(n->cat[i]);
    }
    free(n->tl);
    free(n->cat);
    memset(n, 0, sizeof *n);
}

static const char *nm_tl(const names *n, uint32_t id)
{
    ck_assert_msg(id < n->ntl, "timeline id %u of %u", id, n->ntl);
    return n->tl[id];
}

static const char *nm_cat(const names *n, uint32_t id)
{
    ck_assert_msg(id < n->ncat, "category id %u of %u", id, n->ncat);
    return n->cat[id];
}

/* Global ids (of n) of the timelines whose path starts with prefix. */
static uint32_t tl_ids(const names *n, const char *prefix, uint32_t *out, uint32_t cap)
{
    uint32_t k = 0;
    const size_t len = strlen(prefix);
    for (uint32_t i = 0; i < n->ntl; i++) {
        if (strncmp(n->tl[i], prefix, len) == 0 &&
            (n->tl[i][len] == '\0' || n->tl[i][len] == '/')) {
            ck_assert_uint_lt(k, cap);
            out[k++] = i;
        }
    }
    return k;
}

/* ---- keys: a sorted multiset of canonical drawables ---- */

typedef struct keys {
    char **v;
    size_t n, cap;
} keys;

static void keys_push(keys *k, char *s)
{
    ck_assert_ptr_nonnull(s);
    if (k->n == k->cap) {
        k->cap = k->cap ? k->cap * 2 : 1024;
        k->v = realloc(k->v, k->cap * sizeof *k->v);
        ck_assert_ptr_nonnull(k->v);
    }
    k->v[k->n++] = s;
}

static void keys_free(keys *k)
{
    for (size_t i = 0; i < k->n; i++) {
        free(k->v[i]);
    }
    free(k->v);
    memset(k, 0, sizeof *k);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void keys_sort(keys *k)
{
    if (k->n > 1) {
        qsort(k->v, k->n, sizeof *k->v, cmp_str);
    }
}

/* Both sorted; the first difference is the failure message. */
static void keys_same(const keys *a, const keys *b, const char *what)
{
    size_t i = 0;
    while (i < a->n && i < b->n && strcmp(a->v[i], b->v[i]) == 0) {
        i++;
    }
    ck_assert_msg(i == a->n && i == b->n,
                  "%s: %zu and %zu items, first difference at %zu: '%s' vs '%s'", what, a->n, b->n,
                  i, i < a->n ? a->v[i] : "(end)", i < b->n ? b->v[i] : "(end)");
}

static void put_args(FILE *f, uint32_t nargs, const slog_arg *a)
{
    for (uint32_t i = 0; i < nargs; i++) {
        fprintf(f, "|%s=", a[i].key);
        switch (a[i].type) {
        case SLOG_ARG_STRING:
        case SLOG_ARG_JSON:
            fprintf(f, "%d:%s", (int)a[i].type, a[i].v.s);
            break;
        case SLOG_ARG_INT:
            fprintf(f, "i:%lld", (long long)a[i].v.i);
            break;
        case SLOG_ARG_UINT:
            fprintf(f, "u:%llu", (unsigned long long)a[i].v.u);
            break;
        case SLOG_ARG_DOUBLE:
            fprintf(f, "d:%.17g", a[i].v.d);
            break;
        default:
            fprintf(f, "b:%d", (int)a[i].v.b);
            break;
        }
    }
}

/* Canonical key of a drawable: kind, timeline path(s), category, times
 * (+ off), depth, value, args when with_args. */
static char *item_key(const names *n, const slog_item *it, int64_t off, bool with_args)
{
    char *s = NULL;
    size_t len = 0;
    FILE *const f = open_memstream(&s, &len);
    ck_assert_ptr_nonnull(f);
    switch (it->kind) {
    case SLOG_KIND_STATE: {
        const slog_state *const x = &it->u.state;
        fprintf(f, "S|%s|%s|%lld|%lld|%u", nm_tl(n, x->timeline), nm_cat(n, x->category),
                (long long)(x->start + off), (long long)(x->end + off), x->depth);
        if (with_args) {
            put_args(f, x->nargs, x->args);
        }
        break;
    }
    case SLOG_KIND_EVENT: {
        const slog_event *const x = &it->u.event;
        fprintf(f, "E|%s|%s|%lld", nm_tl(n, x->timeline), nm_cat(n, x->category),
                (long long)(x->time + off));
        if (with_args) {
            put_args(f, x->nargs, x->args);
        }
        break;
    }
    case SLOG_KIND_ARROW: {
        const slog_arrow *const x = &it->u.arrow;
        fprintf(f, "A|%s>%s|%s|%lld|%lld", nm_tl(n, x->from), nm_tl(n, x->to),
                nm_cat(n, x->category), (long long)(x->start + off), (long long)(x->end + off));
        if (with_args) {
            put_args(f, x->nargs, x->args);
        }
        break;
    }
    case SLOG_KIND_COUNTER: {
        const slog_counter *const x = &it->u.counter;
        fprintf(f, "C|%s|%s|%lld|%.17g", nm_tl(n, x->timeline), nm_cat(n, x->category),
                (long long)(x->time + off), x->value);
        break;
    }
    default:
        ck_abort_msg("item_key of kind %d", (int)it->kind);
    }
    fclose(f);
    return s;
}

/* What one query returned. */
typedef struct qres {
    int rc; /* SLOG_END when it ran to its end */
    slog_error err;
    uint64_t drawables, previews, runs;
    uint64_t sum[4];    /* per kind: drawables + previews' counts + runs' counts */
    uint64_t with_args; /* drawables carrying args */
} qres;

static void add_item(qres *q, const slog_item *it)
{
    switch (it->kind) {
    case SLOG_KIND_PREVIEW:
        q->previews++;
        ck_assert_int_lt((int)it->u.preview.of, 4);
        q->sum[it->u.preview.of] += it->u.preview.count;
        break;
    case SLOG_KIND_RUN:
        q->runs++;
        ck_assert_int_lt((int)it->u.run.of, 4);
        q->sum[it->u.run.of] += it->u.run.count;
        break;
    default:
        q->drawables++;
        q->sum[it->kind]++;
        q->with_args += (it->kind == SLOG_KIND_STATE && it->u.state.nargs > 0) ||
                        (it->kind == SLOG_KIND_EVENT && it->u.event.nargs > 0) ||
                        (it->kind == SLOG_KIND_ARROW && it->u.arrow.nargs > 0);
        break;
    }
}

/* Run a query to its end; keys of its drawables (times + off) into out when
 * not NULL.  Returns the status the query ended with. */
static int run_query(
    slog_reader *r, const slog_query_options *o, const names *n, int64_t off, keys *out, qres *res)
{
    memset(res, 0, sizeof *res);
    slog_query *q = NULL;
    int rc = slog_query_create(&q, r, o, &res->err);
    const slog_item *it = NULL;
    while (rc == SLOG_OK && (rc = slog_query_next(q, &it, &res->err)) == SLOG_OK) {
        add_item(res, it);
        if (out != NULL && it->kind < SLOG_KIND_PREVIEW) {
            keys_push(out, item_key(n, it, off, (o->flags & SLOG_QUERY_ARGS) != 0));
        }
    }
    slog_query_destroy(q);
    res->rc = rc;
    return rc;
}

static slog_query_options full_query(int64_t t0, int64_t t1)
{
    slog_query_options o = SLOG_QUERY_OPTIONS_INIT;
    o.t0 = t0;
    o.t1 = t1;
    return o;
}

/* Keys of a reader's drawables at full detail in [t0, t1), sorted. */
static void reader_keys(slog_reader *r,
                        const char *prefix,
                        int64_t t0,
                        int64_t t1,
                        uint32_t flags,
                        const uint32_t *tls,
                        uint32_t ntl,
                        keys *out)
{
    names n;
    names_load(&n, r, prefix);
    slog_query_options o = full_query(t0, t1);
    o.flags = flags;
    o.timelines = tls;
    o.ntimelines = ntl;
    qres q;
    run_query(r, &o, &n, 0, out, &q);
    ck_assert_msg(q.rc == SLOG_END, "query: %s: %s", slog_status_name(q.rc), q.err.message);
    names_free(&n);
    keys_sort(out);
}

/* What an index over inputs[which] (labels, offsets) must answer at full
 * detail in the global window [t0, t1): each input's drawables, read from
 * the input itself, named under its label and moved by its offset. */
static void expected_keys(const char *const *inputs,
                          const char *const *labels,
                          const int64_t *offsets,
                          size_t n,
                          const bool *which,
                          int64_t t0,
                          int64_t t1,
                          uint32_t flags,
                          keys *out)
{
    for (size_t i = 0; i < n; i++) {
        if (which != NULL && !which[i]) {
            continue;
        }
        slog_reader *const r = open_reader(inputs[i]);
        char prefix[128];
        snprintf(prefix, sizeof prefix, "%s/", labels[i]);
        names nm;
        names_load(&nm, r, prefix);
        const int64_t off = offsets ? offsets[i] : 0;
        slog_query_options o = full_query(t0 - off, t1 - off);
        o.flags = flags;
        qres q;
        run_query(r, &o, &nm, off, out, &q);
        ck_assert_msg(q.rc == SLOG_END, "input %zu: %s", i, q.err.message);
        names_free(&nm);
        slog_reader_destroy(r);
    }
    keys_sort(out);
}

static void
merge_inputs(const char *const *inputs, size_t n, const char *out, const int64_t *offsets)
{
    slog_merge_summary ms;
    slog_error err;
    slog_merge_options mo = SLOG_MERGE_OPTIONS_INIT;
    mo.offsets = offsets;
    const int rc = slog_merge_files(inputs, n, out, &mo, &ms, &err);
    ck_assert_msg(rc == SLOG_OK, "merge: %s: %s", slog_status_name(rc), err.message);
}

static uint64_t total_drawables(const slog_file_info *f)
{
    return f->states + f->events + f->arrows + f->counters;
}

/* slog_reader_verify's reports: the inputs that cannot be read at all. */
typedef struct damage_log {
    uint64_t whole_inputs, nodes;
    char messages[1024];
} damage_log;

static int on_damage(const slog_node_damage *d, void *user)
{
    damage_log *const l = user;
    if (d->index == UINT64_MAX) {
        l->whole_inputs++;
        const size_t used = strlen(l->messages);
        snprintf(l->messages + used, sizeof l->messages - used, "%s; ", d->message);
    } else {
        l->nodes++;
    }
    return SLOG_OK;
}

/* Input i of the index ix, asked for by its number. */
static slog_index_input_info index_input(const slog_reader *ix, uint32_t i)
{
    slog_index_input_info in;
    ck_assert_int_eq(slog_reader_index_input(ix, i, &in), SLOG_OK);
    return in;
}

/* Whether input i's file is open in ix's pool now. */
static bool input_opened(const slog_reader *ix, uint32_t i)
{
    return index_input(ix, i).opened;
}

/* Category id of the key "kind:name:group" (UINT32_MAX when none). */
static uint32_t cat_id(const names *n, const char *key)
{
    for (uint32_t c = 0; c < n->ncat; c++) {
        if (strcmp(n->cat[c], key) == 0) {
            return c;
        }
    }
    return UINT32_MAX;
}

/* Start and end of the file at path. */
static void file_range(const char *path, int64_t *start, int64_t *end)
{
    slog_reader *const r = open_reader(path);
    *start = slog_reader_info(r)->start;
    *end = slog_reader_info(r)->end;
    slog_reader_destroy(r);
}

/* The whole of r zoomed out to the given resolution, with flags: it runs
 * to its end, and its counts (drawables, previews' and runs') add up to
 * every drawable of r. */
static void check_zoomed_totals(slog_reader *r, int64_t resolution, uint32_t flags)
{
    const slog_file_info *const f = slog_reader_info(r);
    slog_query_options q = full_query(f->start, f->end + 1);
    q.resolution = resolution;
    q.flags = flags;
    qres res;
    run_query(r, &q, NULL, 0, NULL, &res);
    ck_assert_msg(res.rc == SLOG_END, "%s", res.err.message);
    ck_assert_uint_eq(res.sum[0] + res.sum[1] + res.sum[2] + res.sum[3], total_drawables(f));
}

/* ix at full detail over everything answers what in[which] (labels lab)
 * hold, named under their labels. */
static void check_as_inputs(slog_reader *ix,
                            const char *const *in,
                            const char *const *lab,
                            size_t n,
                            const bool *which,
                            const char *what)
{
    keys want = {0}, got = {0};
    expected_keys(in, lab, NULL, n, which, -WIDE, WIDE, 0, &want);
    reader_keys(ix, "", -WIDE, WIDE, 0, NULL, 0, &got);
    keys_same(&got, &want, what);
    keys_free(&got);
    keys_free(&want);
}

/* ---- 1. full detail: the union of the inputs, and the merged file ---- */

/* What the standard inputs hold together, each read alone. */
typedef struct totals {
    uint64_t counts[4]; /* per kind */
    int64_t start, end;
    uint32_t timelines; /* theirs, plus one top timeline per input */
} totals;

/* The totals of the standard inputs, none of them an index. */
static void input_totals(totals *t)
{
    memset(t, 0, sizeof *t);
    t->start = INT64_MAX;
    t->end = INT64_MIN;
    t->timelines = NIN;
    for (int i = 0; i < NIN; i++) {
        slog_reader *const r = open_reader(g_inputs[i]);
        const slog_file_info *const f = slog_reader_info(r);
        t->counts[0] += f->states;
        t->counts[1] += f->events;
        t->counts[2] += f->arrows;
        t->counts[3] += f->counters;
        t->start = f->start < t->start ? f->start : t->start;
        t->end = f->end > t->end ? f->end : t->end;
        t->timelines += f->timelines;
        ck_assert_uint_eq(slog_reader_index_inputs(r), 0);
        ck_assert_uint_eq(slog_reader_index_files_opened(r), 0);
        slog_reader_destroy(r);
    }
}

/* slog_index_write's summary of the index over the standard inputs. */
static void check_summary(const slog_index_summary *s, const totals *t)
{
    ck_assert_uint_eq(s->inputs, NIN);
    ck_assert_uint_eq(s->missing, 0);
    ck_assert_uint_eq(s->incomplete, 0);
    ck_assert_uint_eq(s->timelines, t->timelines);
    /* 4 state names of group app, only_r2, compute of group gpu, mark, msg, mem_bytes, flops */
    ck_assert_uint_eq(s->categories, 10);
    ck_assert_uint_eq(s->states, t->counts[0]);
    ck_assert_uint_eq(s->events, t->counts[1]);
    ck_assert_uint_eq(s->arrows, t->counts[2]);
    ck_assert_uint_eq(s->counters, t->counts[3]);
    ck_assert_uint_gt(s->copied_nodes, 0);
    struct stat st;
    ck_assert_int_eq(stat(tp("idx.slog"), &st), 0);
    ck_assert_uint_eq(s->file_bytes, (uint64_t)st.st_size);
}

/* What the reader of that index says of the whole. */
static void check_index_info(const slog_reader *ix, const totals *t)
{
    const slog_file_info *const f = slog_reader_info(ix);
    ck_assert(f->complete);
    ck_assert_uint_eq(f->ticks_per_second, 1000000000u);
    ck_assert_uint_eq(f->states, t->counts[0]);
    ck_assert_uint_eq(f->events, t->counts[1]);
    ck_assert_uint_eq(f->arrows, t->counts[2]);
    ck_assert_uint_eq(f->counters, t->counts[3]);
    ck_assert_int_eq(f->start, t->start);
    ck_assert_int_eq(f->end, t->end);
    ck_assert_uint_eq(f->timelines, t->timelines);
    ck_assert_uint_eq(f->categories, 10);
    ck_assert_uint_eq(slog_reader_index_inputs(ix), NIN);
}

/* Its input table: paths relative to the index, labels as top timelines,
 * sizes, counts and ranges as each input says; no input past the last. */
static void check_input_table(const slog_reader *ix)
{
    for (uint32_t i = 0; i < NIN; i++) {
        slog_index_input_info in;
        ck_assert_int_eq(slog_reader_index_input(ix, i, &in), SLOG_OK);
        char want[32];
        snprintf(want, sizeof want, "r%u.slog", i);
        ck_assert_str_eq(in.path, want); /* relative: the inputs lie beside the index */
        ck_assert_int_eq(in.state, SLOG_INDEX_INPUT_OK);
        ck_assert_int_eq(in.offset, 0);
        ck_assert(!in.opened);
        struct stat st;
        ck_assert_int_eq(stat(g_inputs[i], &st), 0);
        ck_assert_uint_eq(in.file_bytes, (uint64_t)st.st_size);
        slog_timeline_info ti;
        ck_assert_int_eq(slog_reader_timeline(ix, in.top_timeline, &ti), SLOG_OK);
        ck_assert_str_eq(ti.name, g_labels[i]);
        ck_assert_uint_eq(ti.parent, SLOG_NO_PARENT);
        slog_reader *const r = open_reader(g_inputs[i]);
        const slog_file_info *const fi = slog_reader_info(r);
        ck_assert_uint_eq(in.counts[0], fi->states);
        ck_assert_uint_eq(in.counts[1], fi->events);
        ck_assert_uint_eq(in.counts[2], fi->arrows);
        ck_assert_uint_eq(in.counts[3], fi->counters);
        ck_assert_int_eq(in.start, fi->start);
        ck_assert_int_eq(in.end, fi->end);
        slog_reader_destroy(r);
    }
    slog_index_input_info none;
    ck_assert_int_eq(slog_reader_index_input(ix, NIN, &none), SLOG_EINVAL);
}

/* ix (its full-detail keys: got) answers as slog_merge_files' output over
 * the standard inputs, with the same hierarchy and category table in the
 * same order. */
static void check_as_merged(slog_reader *ix, const keys *got)
{
    merge_inputs(g_inputs, NIN, tp("merged.slog"), NULL);
    slog_reader *const m = open_reader(tp("merged.slog"));
    keys merged = {0};
    reader_keys(m, "", -WIDE, WIDE, 0, NULL, 0, &merged);
    keys_same(got, &merged, "index vs the merged file");
    keys_free(&merged);
    names ni, nmg;
    names_load(&ni, ix, "");
    names_load(&nmg, m, "");
    ck_assert_uint_eq(ni.ntl, nmg.ntl);
    ck_assert_uint_eq(ni.ncat, nmg.ncat);
    for (uint32_t i = 0; i < ni.ntl; i++) {
        ck_assert_str_eq(ni.tl[i], nmg.tl[i]);
    }
    for (uint32_t i = 0; i < ni.ncat; i++) {
        ck_assert_str_eq(ni.cat[i], nmg.cat[i]);
    }
    names_free(&ni);
    names_free(&nmg);
    slog_reader_destroy(m);
}

/* A batch query over everything gives the n items one by one does. */
static void check_batch(slog_reader *ix, size_t n)
{
    slog_query_options o = full_query(-WIDE, WIDE);
    slog_query *q = NULL;
    ck_assert_int_eq(slog_query_create(&q, ix, &o, NULL), SLOG_OK);
    uint8_t kind[256];
    int64_t bs[256];
    slog_batch b = {.capacity = 256, .kind = kind, .start = bs};
    size_t nb = 0, total = 0;
    int rc;
    while ((rc = slog_query_next_batch(q, &b, &nb, NULL)) == SLOG_OK) {
        total += nb;
    }
    ck_assert_int_eq(rc, SLOG_END);
    ck_assert_uint_eq(total, n);
    slog_query_stats qs;
    slog_query_stats_get(q, &qs);
    ck_assert_uint_eq(qs.items, n);
    slog_query_destroy(q);
}

/* The index read with a small node cache: the same n drawables, args and all. */
static void check_small_cache(size_t n)
{
    const slog_reader_options ro = {sizeof ro, 0, 16 << 10};
    slog_reader *small = NULL;
    ck_assert_int_eq(slog_reader_open(&small, tp("idx.slog"), &ro, NULL), SLOG_OK);
    keys again = {0};
    reader_keys(small, "", -WIDE, WIDE, SLOG_QUERY_ARGS, NULL, 0, &again);
    ck_assert_uint_eq(again.n, n);
    keys_free(&again);
    slog_reader_destroy(small);
}

/* Verification: the copied levels and every input file, all intact. */
static void check_verified_intact(slog_reader *ix)
{
    damage_log dl;
    memset(&dl, 0, sizeof dl);
    slog_verify_totals vt;
    slog_error err;
    ck_assert_int_eq(slog_reader_verify(ix, on_damage, &dl, &vt, &err), SLOG_OK);
    ck_assert_uint_eq(dl.whole_inputs + dl.nodes, 0);
    ck_assert_uint_eq(vt.nodes_damaged, 0);
    ck_assert_uint_eq(vt.drawables_lost, 0);
    ck_assert_uint_gt(vt.nodes, 0);
}

START_TEST(test_full_detail_union_and_merge)
{
    make_inputs(2000);
    slog_index_summary s;
    index_write(g_inputs, NIN, tp("idx.slog"), NULL, &s);
    /* what the summary and the reader say of the whole */
    totals t;
    input_totals(&t);
    check_summary(&s, &t);
    slog_reader *const ix = open_reader(tp("idx.slog"));
    check_index_info(ix, &t);
    check_input_table(ix);

    /* every drawable once, named as in its input */
    keys want = {0}, got = {0};
    expected_keys(g_inputs, g_labels, NULL, NIN, NULL, -WIDE, WIDE, 0, &want);
    ck_assert_uint_eq(want.n, total_drawables(slog_reader_info(ix)));
    reader_keys(ix, "", -WIDE, WIDE, 0, NULL, 0, &got);
    keys_same(&got, &want, "index vs the inputs");
    /* the same as slog_merge_files makes of the inputs */
    check_as_merged(ix, &got);
    /* a batch gives the same items; so does a small node cache */
    check_batch(ix, want.n);
    check_small_cache(want.n);
    check_verified_intact(ix);
    keys_free(&want);
    keys_free(&got);
    slog_reader_destroy(ix);
}
END_TEST

/* ---- 2. offsets ---- */

/* The input table of an index with offsets off and top timelines labelled
 * lab of kind rank: each input's range [in_start, in_end] moved; the
 * index's range theirs. */
static void check_offset_table(const slog_reader *ix,
                               const char *const *lab,
                               const int64_t *off,
                               const int64_t *in_start,
                               const int64_t *in_end)
{
    int64_t start = INT64_MAX, end = INT64_MIN;
    for (uint32_t i = 0; i < NIN; i++) {
        slog_index_input_info in;
        ck_assert_int_eq(slog_reader_index_input(ix, i, &in), SLOG_OK);
        slog_timeline_info ti;
        ck_assert_int_eq(slog_reader_timeline(ix, in.top_timeline, &ti), SLOG_OK);
        ck_assert_str_eq(ti.name, lab[i]);
        ck_assert_int_eq(ti.kind, SLOG_TIMELINE_RANK);
        ck_assert_int_eq(ti.sort_key, (int64_t)i);
        ck_assert_int_eq(in.offset, off[i]);
        ck_assert_int_eq(in.start, in_start[i] + off[i]);
        ck_assert_int_eq(in.end, in_end[i] + off[i]);
        start = in.start < start ? in.start : start;
        end = in.end > end ? in.end : end;
    }
    const slog_file_info *const f = slog_reader_info(ix);
    ck_assert_int_eq(f->start, start);
    ck_assert_int_eq(f->end, end);
}

/* A window [g0, g1) in global time, in the middle of input 2 moved: the
 * inputs moved by off, many of them input 2's; without the offsets, other
 * drawables of input 2. */
static void check_offset_window(
    slog_reader *ix, const char *const *lab, const int64_t *off, int64_t g0, int64_t g1)
{
    keys want = {0}, got = {0};
    expected_keys(g_inputs, lab, off, NIN, NULL, g0, g1, 0, &want);
    reader_keys(ix, "", g0, g1, 0, NULL, 0, &got);
    keys_same(&got, &want, "offsets, a window");
    size_t of2 = 0;
    for (size_t i = 0; i < got.n; i++) {
        of2 += strstr(got.v[i], "|rank 2/") != NULL;
    }
    ck_assert_uint_gt(of2, 10);
    keys_free(&want);
    keys_free(&got);

    /* the same window without the offsets: other drawables of input 2 */
    const bool only2[NIN] = {false, false, true, false};
    expected_keys(g_inputs, lab, NULL, NIN, only2, g0, g1, 0, &want);
    expected_keys(g_inputs, lab, off, NIN, only2, g0, g1, 0, &got);
    ck_assert_uint_gt(want.n, 0);
    ck_assert(want.n != got.n || strcmp(want.v[0], got.v[0]) != 0);
    keys_free(&want);
    keys_free(&got);
}

/* Previews and runs name timelines and categories of the index (n), a
 * run's categories in increasing order. */
static void check_item_ids(const slog_item *it, const names *n)
{
    if (it->kind == SLOG_KIND_PREVIEW) {
        ck_assert_uint_lt(it->u.preview.row, n->ntl);
        ck_assert_uint_lt(it->u.preview.row_to, n->ntl);
        ck_assert(it->u.preview.category < n->ncat ||
                  it->u.preview.category == SLOG_CATEGORY_OTHER);
    } else if (it->kind == SLOG_KIND_RUN) {
        ck_assert_uint_lt(it->u.run.timeline, n->ntl);
        ck_assert_uint_lt(it->u.run.timeline_to, n->ntl);
        for (uint32_t c = 0; c < it->u.run.ncategories; c++) {
            ck_assert_uint_lt(it->u.run.categories[c].category, n->ncat);
            ck_assert(c == 0 ||
                      it->u.run.categories[c - 1].category < it->u.run.categories[c].category);
        }
    }
}

/* The time span [*s0, *s1] an item covers, of any kind. */
static void item_span(const slog_item *it, int64_t *s0, int64_t *s1)
{
    switch (it->kind) {
    case SLOG_KIND_PREVIEW:
        *s0 = it->u.preview.start, *s1 = it->u.preview.end;
        break;
    case SLOG_KIND_RUN:
        *s0 = it->u.run.start, *s1 = it->u.run.end;
        break;
    case SLOG_KIND_STATE:
        *s0 = it->u.state.start, *s1 = it->u.state.end;
        break;
    case SLOG_KIND_ARROW:
        *s0 = it->u.arrow.start, *s1 = it->u.arrow.end;
        break;
    case SLOG_KIND_EVENT:
        *s0 = *s1 = it->u.event.time;
        break;
    default:
        *s0 = *s1 = it->u.counter.time;
        break;
    }
}

/* The whole index (names n) zoomed out to px pixels: totals exact, every
 * item (previews, runs) in the moved range and naming known ids. */
static void check_zoom_in_range(slog_reader *ix, const names *n, int px)
{
    const slog_file_info *const f = slog_reader_info(ix);
    slog_query_options q = full_query(f->start, f->end + 1);
    q.resolution = (f->end - f->start + 1) / px;
    slog_query *qq = NULL;
    ck_assert_int_eq(slog_query_create(&qq, ix, &q, NULL), SLOG_OK);
    const slog_item *it = NULL;
    qres res;
    memset(&res, 0, sizeof res);
    int rc;
    while ((rc = slog_query_next(qq, &it, &res.err)) == SLOG_OK) {
        add_item(&res, it);
        check_item_ids(it, n);
        int64_t s0 = 0, s1 = 0;
        item_span(it, &s0, &s1);
        ck_assert_msg(s0 >= f->start && s1 <= f->end && s0 <= s1,
                      "kind %d [%lld, %lld] outside [%lld, %lld]", (int)it->kind, (long long)s0,
                      (long long)s1, (long long)f->start, (long long)f->end);
    }
    ck_assert_int_eq(rc, SLOG_END);
    ck_assert_uint_eq(res.sum[0] + res.sum[1] + res.sum[2] + res.sum[3], total_drawables(f));
    slog_query_destroy(qq);
}

START_TEST(test_offsets)
{
    make_inputs(1000);
    int64_t in_start[NIN], in_end[NIN];
    for (uint32_t i = 0; i < NIN; i++) {
        file_range(g_inputs[i], &in_start[i], &in_end[i]);
    }
    /* input 1 later by half its span, input 2 earlier by a third of its own */
    const int64_t off[NIN] = {0, (in_end[1] - in_start[1]) / 2, -(in_end[2] - in_start[2]) / 3,
                              123};
    /* labels (a NULL entry: the file name) and ranks as top timelines */
    const char *const labels[NIN] = {"rank 0", NULL, "rank 2", NULL};
    const char *const lab[NIN] = {"rank 0", "r1", "rank 2", "r3"};
    slog_index_options o = SLOG_INDEX_OPTIONS_INIT;
    o.offsets = off;
    o.labels = labels;
    o.top_kind = SLOG_TIMELINE_RANK;
    index_write(g_inputs, NIN, tp("idx.slog"), &o, NULL);
    slog_reader *const ix = open_reader(tp("idx.slog"));
    check_offset_table(ix, lab, off, in_start, in_end);

    /* everything, moved */
    keys want = {0}, got = {0};
    expected_keys(g_inputs, lab, off, NIN, NULL, -WIDE, WIDE, 0, &want);
    reader_keys(ix, "", -WIDE, WIDE, 0, NULL, 0, &got);
    keys_same(&got, &want, "offsets, whole range");
    keys_free(&want);
    keys_free(&got);

    /* a window in global time: the middle of input 2, moved */
    const int64_t mid = (in_start[2] + in_end[2]) / 2;
    const int64_t g0 = mid + off[2], g1 = mid + off[2] + (in_end[2] - in_start[2]) / 20;
    check_offset_window(ix, lab, off, g0, g1);

    /* a window before input 1's moved range holds nothing of it */
    names n;
    names_load(&n, ix, "");
    uint32_t tls[16];
    const uint32_t ntl = tl_ids(&n, "r1", tls, 16);
    ck_assert_uint_ge(ntl, 3);
    reader_keys(ix, "", in_start[1], in_start[1] + off[1], 0, tls, ntl, &got);
    ck_assert_uint_eq(got.n, 0);
    keys_free(&got);

    /* zoomed out: totals exact, every item (previews, runs) in the moved range */
    for (int px = 20; px <= 2000; px *= 10) {
        check_zoom_in_range(ix, &n, px);
    }
    names_free(&n);
    slog_reader_destroy(ix);
}
END_TEST

/* ---- 3. zoomed out: the copy answers; zoomed in: the files ---- */

/* Nodes of the standard inputs together, each at least 4 levels deep. */
static uint64_t deep_input_nodes(void)
{
    uint64_t input_nodes = 0;
    for (int i = 0; i < NIN; i++) {
        slog_reader *const r = open_reader(g_inputs[i]);
        input_nodes += slog_reader_info(r)->nodes;
        ck_assert_uint_ge(slog_reader_info(r)->depth, 4);
        slog_reader_destroy(r);
    }
    return input_nodes;
}

/* The whole index zoomed out (q): answered from the copy, no input file
 * opened, counts exact, few items; then only previews, of states. */
static void check_zoomed_out_copy(slog_reader *ix, slog_query_options *q)
{
    const slog_file_info *const f = slog_reader_info(ix);
    qres res;
    run_query(ix, q, NULL, 0, NULL, &res);
    ck_assert_msg(res.rc == SLOG_END, "%s", res.err.message);
    ck_assert_uint_eq(slog_reader_index_files_opened(ix), 0);
    for (uint32_t i = 0; i < NIN; i++) {
        ck_assert(!input_opened(ix, i));
    }
    ck_assert_uint_eq(res.sum[0], f->states);
    ck_assert_uint_eq(res.sum[1], f->events);
    ck_assert_uint_eq(res.sum[2], f->arrows);
    ck_assert_uint_eq(res.sum[3], f->counters);
    ck_assert_uint_gt(res.previews + res.runs, 0);
    ck_assert_uint_lt(res.drawables + res.previews + res.runs, total_drawables(f) / 2);

    /* only previews, of states */
    q->kinds = (1u << SLOG_KIND_PREVIEW) | (1u << SLOG_KIND_STATE);
    run_query(ix, q, NULL, 0, NULL, &res);
    ck_assert_msg(res.rc == SLOG_END, "%s", res.err.message);
    ck_assert_uint_eq(res.sum[0], f->states);
    ck_assert_uint_eq(res.sum[1] + res.sum[2] + res.sum[3], 0);
    ck_assert_uint_eq(slog_reader_index_files_opened(ix), 0);
}

/* Full detail on a small window [w0, w1) needs the files, and is exact. */
static void check_zoomed_in_files(slog_reader *ix, int64_t w0, int64_t w1)
{
    keys want = {0}, got = {0};
    reader_keys(ix, "", w0, w1, 0, NULL, 0, &got);
    ck_assert_uint_gt(slog_reader_index_files_opened(ix), 0);
    expected_keys(g_inputs, g_labels, NULL, NIN, NULL, w0, w1, 0, &want);
    ck_assert_uint_gt(want.n, 0);
    keys_same(&got, &want, "zoomed in");
    keys_free(&want);
    keys_free(&got);
    uint32_t open_now = 0;
    for (uint32_t i = 0; i < NIN; i++) {
        open_now += input_opened(ix, i);
    }
    const bool any_open = open_now > 0;
    ck_assert(any_open);
}

/* With the default budget (256 KiB) the whole of these inputs is copied:
 * even full detail opens no file. */
static void check_whole_copied(void)
{
    slog_index_summary s;
    index_write(g_inputs, NIN, tp("whole.slog"), NULL, &s);
    slog_reader *const ix = open_reader(tp("whole.slog"));
    const slog_file_info *const f = slog_reader_info(ix);
    keys got = {0};
    reader_keys(ix, "", -WIDE, WIDE, 0, NULL, 0, &got);
    ck_assert_uint_eq(got.n, total_drawables(f));
    ck_assert_uint_eq(slog_reader_index_files_opened(ix), 0);
    keys_free(&got);
    slog_reader_destroy(ix);
}

START_TEST(test_zoom_uses_copy)
{
    make_inputs(3000);
    const uint64_t input_nodes = deep_input_nodes();
    slog_index_options o = SLOG_INDEX_OPTIONS_INIT;
    o.copy_bytes = 24 << 10;
    slog_index_summary s;
    index_write(g_inputs, NIN, tp("idx.slog"), &o, &s);
    /* a copy of the top levels only */
    ck_assert_uint_gt(s.copied_nodes, NIN);
    ck_assert_uint_lt(s.copied_nodes, input_nodes);
    ck_assert_uint_le(s.copied_bytes, (uint64_t)NIN * o.copy_bytes);

    slog_reader *const ix = open_reader(tp("idx.slog"));
    const slog_file_info *const f = slog_reader_info(ix);
    const int64_t span = f->end - f->start + 1;
    slog_query_options q = full_query(f->start, f->end + 1);
    q.resolution = span / 50;
    check_zoomed_out_copy(ix, &q);

    /* zoomed in: full detail on a small window needs the files, and is exact */
    const int64_t w0 = f->start + span / 2, w1 = w0 + span / 100;
    check_zoomed_in_files(ix, w0, w1);

    /* the zoomed-out answer again, and at other zooms: totals stay exact */
    const int64_t pixels[] = {50, 200, 1000, 5};
    for (size_t k = 0; k < sizeof pixels / sizeof pixels[0]; k++) {
        check_zoomed_totals(ix, span / pixels[k], 0);
    }
    slog_reader_destroy(ix);
    check_whole_copied();
}
END_TEST

/* ---- 4. a timeline filter opens only the inputs it needs ---- */

/* Input 2's timelines (of the index's n): only its file opened, and
 * exactly its drawables. */
static void check_one_input_filter(slog_reader *ix, const names *n)
{
    uint32_t tls[16];
    const uint32_t ntl = tl_ids(n, "r2", tls, 16);
    ck_assert_uint_eq(ntl, 4); /* r2, its process, 2 threads */
    keys want = {0}, got = {0};
    reader_keys(ix, "", -WIDE, WIDE, 0, tls, ntl, &got);
    ck_assert_uint_eq(slog_reader_index_files_opened(ix), 1);
    for (uint32_t i = 0; i < NIN; i++) {
        ck_assert(input_opened(ix, i) == (i == 2));
    }
    for (size_t i = 0; i < got.n; i++) {
        ck_assert_msg(strncmp(got.v[i] + 2, "r2/", 3) == 0, "%s", got.v[i]);
    }
    const bool only2[NIN] = {false, false, true, false};
    expected_keys(g_inputs, g_labels, NULL, NIN, only2, -WIDE, WIDE, 0, &want);
    keys_same(&got, &want, "input 2's timelines");
    keys_free(&want);
    keys_free(&got);
}

/* Keep the keys that mention timeline path a or b. */
static void keys_keep_either(keys *k, const char *a, const char *b)
{
    size_t w = 0;
    for (size_t i = 0; i < k->n; i++) {
        if (strstr(k->v[i], a) != NULL || strstr(k->v[i], b) != NULL) {
            k->v[w++] = k->v[i];
        } else {
            free(k->v[i]);
        }
    }
    k->n = w;
}

/* One thread of input 1 and one of input 3: states, events and counters
 * of that thread, arrows by either end. */
static void check_two_threads(slog_reader *ix, const names *n)
{
    uint32_t two[2];
    ck_assert_uint_eq(tl_ids(n, "r1/pid 101/thread 1", &two[0], 1), 1);
    ck_assert_uint_eq(tl_ids(n, "r3/pid 103/thread 0", &two[1], 1), 1);
    keys want = {0}, got = {0};
    reader_keys(ix, "", -WIDE, WIDE, 0, two, 2, &got);
    ck_assert_uint_gt(got.n, 0);
    for (size_t i = 0; i < got.n; i++) {
        ck_assert_msg(strstr(got.v[i], "r1/pid 101/thread 1") != NULL ||
                          strstr(got.v[i], "r3/pid 103/thread 0") != NULL,
                      "%s", got.v[i]);
    }
    const bool both[NIN] = {false, true, false, true};
    expected_keys(g_inputs, g_labels, NULL, NIN, both, -WIDE, WIDE, 0, &want);
    keys_keep_either(&want, "r1/pid 101/thread 1", "r3/pid 103/thread 0");
    keys_same(&got, &want, "two threads");
    keys_free(&want);
    keys_free(&got);
}

/* A category filter on another reader of the index: only_r2 lives in
 * input 2 alone, so at most one file is opened. */
static void check_category_filter(const names *n)
{
    slog_reader *const ix2 = open_reader(tp("idx.slog"));
    uint32_t only = cat_id(n, "0:only_r2:app");
    ck_assert_uint_ne(only, UINT32_MAX);
    slog_query_options q = full_query(-WIDE, WIDE);
    q.categories = &only;
    q.ncategories = 1;
    qres res;
    run_query(ix2, &q, n, 0, NULL, &res);
    ck_assert_int_eq(res.rc, SLOG_END);
    ck_assert_uint_gt(res.drawables, 0);
    ck_assert_uint_le(slog_reader_index_files_opened(ix2), 1);
    slog_reader_destroy(ix2);
}

START_TEST(test_timeline_filter)
{
    make_inputs(1500);
    slog_index_options o = SLOG_INDEX_OPTIONS_INIT;
    o.copy_bytes = 8 << 10;
    index_write(g_inputs, NIN, tp("idx.slog"), &o, NULL);
    slog_reader *const ix = open_reader(tp("idx.slog"));
    names n;
    names_load(&n, ix, "");
    check_one_input_filter(ix, &n);
    check_two_threads(ix, &n);
    check_category_filter(&n);
    names_free(&n);
    slog_reader_destroy(ix);
}
END_TEST

/* ---- 5. statistics and search: as over the merged file ---- */

static void stats_keys(slog_reader *r, const names *n, const slog_stats_options *o, keys *out)
{
    slog_stats *s = NULL;
    slog_error err;
    const int rc = slog_stats_compute(&s, r, o, &err);
    ck_assert_msg(rc == SLOG_OK, "stats: %s: %s", slog_status_name(rc), err.message);
    size_t nrows = 0;
    const slog_stats_row *const rows = slog_stats_rows(s, &nrows);
    for (size_t i = 0; i < nrows; i++) {
        const slog_stats_row *const w = &rows[i];
        char *k = NULL;
        const int len =
            asprintf(&k, "%s|%d|%s|%llu|%lld|%lld|%lld|%lld|%.17g|%.17g|%.17g|%.17g",
                     w->timeline == SLOG_STATS_ANY ? "*" : nm_tl(n, w->timeline), (int)w->kind,
                     w->category == SLOG_STATS_ANY ? "*" : nm_cat(n, w->category),
                     (unsigned long long)w->count, (long long)w->inclusive, (long long)w->exclusive,
                     (long long)w->min, (long long)w->max, w->mean, w->vmin, w->vmax, w->vsum);
        ck_assert_int_gt(len, 0);
        keys_push(out, k);
    }
    slog_stats_destroy(s);
    keys_sort(out);
}

static char *search_key(const names *n, int rc, const slog_item *it)
{
    if (rc != SLOG_OK) {
        char *k = NULL;
        ck_assert_int_gt(asprintf(&k, "rc %d", rc), 0);
        return k;
    }
    return item_key(n, it, 0, false);
}

/* The index and the merged file over the same inputs and offsets, their
 * names, and three windows: everything, a third, a small one. */
typedef struct pair {
    slog_reader *rd[2]; /* the index, the merged file */
    names n[2];
    const slog_file_info *f; /* the merged file's */
    int64_t span;
    int64_t win[3][2];
} pair;

/* Statistics of p->rd[j] grouped by `by` in window w, with filter (0
 * none, 1 kinds, 2 the timelines of r1, 3 two categories), as keys. */
static void stats_case_keys(const pair *p, int j, int w, uint32_t by, int filter, keys *out)
{
    slog_stats_options o = SLOG_STATS_OPTIONS_INIT;
    o.by = by;
    o.t0 = p->win[w][0];
    o.t1 = p->win[w][1];
    uint32_t tls[16], cats[2];
    if (filter == 1) {
        o.kinds = (1u << SLOG_KIND_STATE) | (1u << SLOG_KIND_COUNTER);
    } else if (filter == 2) {
        o.ntimelines = tl_ids(&p->n[j], "r1", tls, 16);
        o.timelines = tls;
    } else if (filter == 3) {
        cats[0] = cat_id(&p->n[j], "0:compute:app");
        cats[1] = cat_id(&p->n[j], "3:mem_bytes:");
        ck_assert(cats[0] != UINT32_MAX && cats[1] != UINT32_MAX);
        o.categories = cats;
        o.ncategories = 2;
    }
    stats_keys(p->rd[j], &p->n[j], &o, out);
}

/* Statistics of case (w, by, filter): the same rows over both. */
static void check_stats_case(const pair *p, int w, uint32_t by, int filter)
{
    keys k[2] = {{0}, {0}};
    for (int j = 0; j < 2; j++) {
        stats_case_keys(p, j, w, by, filter, &k[j]);
    }
    ck_assert_uint_gt(k[0].n, 0);
    char what[96];
    snprintf(what, sizeof what, "stats window %d by %u filter %d", w, by, filter);
    keys_same(&k[0], &k[1], what);
    keys_free(&k[0]);
    keys_free(&k[1]);
}

/* Statistics: every grouping, windows, kind, timeline and category
 * filters give the same rows over both. */
static void check_stats_as_merged(const pair *p)
{
    for (int w = 0; w < 3; w++) {
        for (uint32_t by = 1; by <= 3; by++) {
            for (int filter = 0; filter < 4; filter++) {
                check_stats_case(p, w, by, filter);
            }
        }
    }
}

/* What search variant (0 anything, 1 states named mpi, 2 events and
 * counters, 3 the timelines of r1, 4 named only, 5 two categories and a
 * name) finds next (forward) or previous from t over p->rd[j], as a key. */
static char *search_case_key(const pair *p, int j, int variant, int64_t t, int forward)
{
    slog_search_options o = SLOG_SEARCH_OPTIONS_INIT;
    uint32_t tls[16];
    if (variant == 1) {
        o.kinds = 1u << SLOG_KIND_STATE;
        o.name_contains = "mpi";
    } else if (variant == 2) {
        o.kinds = (1u << SLOG_KIND_EVENT) | (1u << SLOG_KIND_COUNTER);
    } else if (variant == 3) {
        o.ntimelines = tl_ids(&p->n[j], "r1", tls, 16);
        o.timelines = tls;
    } else if (variant == 4) {
        o.name_contains = "only";
    }
    uint32_t cats[2];
    if (variant == 5) { /* categories and a name: both must hold */
        cats[0] = cat_id(&p->n[j], "0:compute:app");
        cats[1] = cat_id(&p->n[j], "0:mpi_send:app");
        o.categories = cats;
        o.ncategories = 2;
        o.name_contains = "mpi";
    }
    slog_item it;
    slog_error err;
    const int rc = forward ? slog_search_next(p->rd[j], &o, t, &it, NULL, &err)
                           : slog_search_prev(p->rd[j], &o, t, &it, NULL, &err);
    ck_assert_msg(rc == SLOG_OK || rc == SLOG_END, "search: %s", err.message);
    return search_key(&p->n[j], rc, &it);
}

/* Search variant from t, next (forward) or previous: the same drawable
 * (or none) over both. */
static void check_search_case(const pair *p, int variant, int64_t t, int forward)
{
    char *got[2];
    for (int j = 0; j < 2; j++) {
        got[j] = search_case_key(p, j, variant, t, forward);
    }
    ck_assert_msg(strcmp(got[0], got[1]) == 0, "search variant %d %s %lld: index '%s', merged '%s'",
                  variant, forward ? "next" : "prev", (long long)t, got[0], got[1]);
    free(got[0]);
    free(got[1]);
}

/* Next and previous from times across the range, with filters: the same
 * drawable (or none) over both. */
static void check_search_as_merged(const pair *p)
{
    for (int variant = 0; variant < 6; variant++) {
        for (int step = -1; step <= 41; step++) {
            const int64_t t = p->f->start + p->span * step / 40 + (step % 3) * 17;
            for (int forward = 0; forward < 2; forward++) {
                check_search_case(p, variant, t, forward);
            }
        }
    }
}

/* The 25 longest states of p->rd[j] in window w, of variant (0 all, 1
 * named comp, 2 the timelines of r3), into top; how many. */
static uint32_t top_case(const pair *p, int j, int w, int variant, slog_state *top)
{
    slog_search_options o = SLOG_SEARCH_OPTIONS_INIT;
    o.t0 = p->win[w][0];
    o.t1 = p->win[w][1];
    uint32_t tls[16];
    if (variant == 1) {
        o.name_contains = "comp";
    } else if (variant == 2) {
        o.ntimelines = tl_ids(&p->n[j], "r3", tls, 16);
        o.timelines = tls;
    }
    uint32_t count = 25;
    slog_error err;
    const int rc = slog_search_top(p->rd[j], &o, top, &count, NULL, &err);
    ck_assert_msg(rc == SLOG_OK, "top: %s", err.message);
    return count;
}

/* Top-N in every window and variant: the same states in the same order. */
static void check_top_as_merged(const pair *p)
{
    for (int w = 0; w < 3; w++) {
        for (int variant = 0; variant < 3; variant++) {
            slog_state top[2][25];
            uint32_t count[2];
            for (int j = 0; j < 2; j++) {
                count[j] = top_case(p, j, w, variant, top[j]);
            }
            ck_assert_uint_eq(count[0], count[1]);
            ck_assert(w > 0 || count[0] == 25);
            for (uint32_t i = 0; i < count[0]; i++) {
                slog_item a = {.kind = SLOG_KIND_STATE}, b = {.kind = SLOG_KIND_STATE};
                a.u.state = top[0][i];
                b.u.state = top[1][i];
                char *ka = item_key(&p->n[0], &a, 0, false);
                char *kb = item_key(&p->n[1], &b, 0, false);
                ck_assert_msg(strcmp(ka, kb) == 0, "top window %d variant %d #%u: '%s' vs '%s'", w,
                              variant, i, ka, kb);
                free(ka);
                free(kb);
            }
        }
    }
}

/* Refusals as over a file: a name no category has, an empty window, a
 * timeline past the last (of n). */
static void check_search_stats_refusals(slog_reader *ix, const names *n)
{
    slog_search_options o = SLOG_SEARCH_OPTIONS_INIT;
    o.name_contains = "no such name";
    slog_item it;
    ck_assert_int_eq(slog_search_next(ix, &o, 0, &it, NULL, NULL), SLOG_EINVAL);
    slog_stats_options so = SLOG_STATS_OPTIONS_INIT;
    so.t0 = so.t1 = 5;
    slog_stats *s = NULL;
    ck_assert_int_eq(slog_stats_compute(&s, ix, &so, NULL), SLOG_EINVAL);
    const uint32_t bad = n->ntl;
    so.t1 = 6;
    so.timelines = &bad;
    so.ntimelines = 1;
    ck_assert_int_eq(slog_stats_compute(&s, ix, &so, NULL), SLOG_EINVAL);
}

START_TEST(test_stats_and_search_as_merged)
{
    make_inputs(1500);
    /* clock offsets, the same for both */
    const int64_t off[NIN] = {0, 777, -150000, 20011};
    slog_index_options io = SLOG_INDEX_OPTIONS_INIT;
    io.copy_bytes = 16 << 10;
    io.offsets = off;
    index_write(g_inputs, NIN, tp("idx.slog"), &io, NULL);
    merge_inputs(g_inputs, NIN, tp("merged.slog"), off);
    pair p = {.rd = {open_reader(tp("idx.slog")), open_reader(tp("merged.slog"))}};
    names_load(&p.n[0], p.rd[0], "");
    names_load(&p.n[1], p.rd[1], "");
    const slog_file_info *const f = slog_reader_info(p.rd[1]);
    ck_assert_int_eq(slog_reader_info(p.rd[0])->start, f->start);
    ck_assert_int_eq(slog_reader_info(p.rd[0])->end, f->end);
    const int64_t span = f->end - f->start + 1;
    const int64_t win[3][2] = {{f->start, f->end + 1},
                               {f->start + span / 3, f->start + span / 2},
                               {f->start + span / 7, f->start + span / 7 + span / 97}};
    p.f = f;
    p.span = span;
    memcpy(p.win, win, sizeof win);

    check_stats_as_merged(&p);
    check_search_as_merged(&p);
    check_top_as_merged(&p);
    check_search_stats_refusals(p.rd[0], &p.n[0]);

    names_free(&p.n[0]);
    names_free(&p.n[1]);
    slog_reader_destroy(p.rd[0]);
    slog_reader_destroy(p.rd[1]);
}
END_TEST

/* ---- 6. args come from the input files ---- */

START_TEST(test_args)
{
    make_inputs(1000);
    index_write(g_inputs, NIN, tp("idx.slog"), NULL, NULL);
    slog_reader *const ix = open_reader(tp("idx.slog"));
    keys want = {0}, got = {0}, merged = {0};
    expected_keys(g_inputs, g_labels, NULL, NIN, NULL, -WIDE, WIDE, SLOG_QUERY_ARGS, &want);
    reader_keys(ix, "", -WIDE, WIDE, SLOG_QUERY_ARGS, NULL, 0, &got);
    keys_same(&got, &want, "args");
    size_t with = 0;
    for (size_t i = 0; i < got.n; i++) {
        with += strstr(got.v[i], "|iter=i:") != NULL || strstr(got.v[i], "|x=d:") != NULL ||
                strstr(got.v[i], "|bytes=u:") != NULL;
    }
    ck_assert_uint_gt(with, got.n / 20);
    ck_assert_uint_gt(slog_reader_index_files_opened(ix), 0);
    merge_inputs(g_inputs, NIN, tp("merged.slog"), NULL);
    slog_reader *const m = open_reader(tp("merged.slog"));
    reader_keys(m, "", -WIDE, WIDE, SLOG_QUERY_ARGS, NULL, 0, &merged);
    keys_same(&got, &merged, "args vs the merged file");
    keys_free(&want);
    keys_free(&got);
    keys_free(&merged);

    /* zoomed out with args: the drawables that come back carry theirs */
    const slog_file_info *const f = slog_reader_info(ix);
    check_zoomed_totals(ix, (f->end - f->start) / 50, SLOG_QUERY_ARGS);
    slog_reader_destroy(m);
    slog_reader_destroy(ix);
}
END_TEST

/* ---- 7. bad inputs ---- */

static int index_err(const char *const *in,
                     size_t n,
                     const char *out,
                     uint32_t flags,
                     slog_error *err,
                     slog_index_summary *s)
{
    slog_index_options o = SLOG_INDEX_OPTIONS_INIT;
    o.flags = flags;
    memset(err, 0, sizeof *err);
    return slog_index_write(in, n, out, &o, s, err);
}

/* Refused by name: the same file twice (by name, by another name), the
 * output as the first input (a later one: test_output_among_inputs), an
 * index as an input, no input, bad options. */
static void check_refused_names(void)
{
    slog_error err;
    const char *in[3] = {g_inputs[0], g_inputs[1], g_inputs[0]};
    ck_assert_int_eq(index_err(in, 3, tp("a.slog"), 0, &err, NULL), SLOG_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.source, "r0.slog"));
    in[2] = tp("./r1.slog");
    ck_assert_int_eq(index_err(in, 3, tp("a.slog"), 0, &err, NULL), SLOG_EINVAL);
    ck_assert_int_eq(access(tp("a.slog"), F_OK), -1);
    /* the output as the first input */
    index_write(in, 2, tp("a.slog"), NULL, NULL);
    in[0] = tp("a.slog");
    ck_assert_int_eq(index_err(in, 2, tp("a.slog"), 0, &err, NULL), SLOG_EINVAL);
    ck_assert_int_eq(access(tp("a.slog"), F_OK), 0);
    /* an index as an input */
    in[0] = g_inputs[2];
    in[1] = tp("a.slog");
    ck_assert_int_eq(index_err(in, 2, tp("b.slog"), 0, &err, NULL), SLOG_EINVAL);
    ck_assert_msg(strstr(err.message, "index") != NULL, "%s", err.message);
    /* no input; bad options */
    ck_assert_int_eq(index_err(in, 0, tp("b.slog"), 0, &err, NULL), SLOG_EINVAL);
    slog_index_options bad = SLOG_INDEX_OPTIONS_INIT;
    bad.top_kind = 99;
    ck_assert_int_eq(slog_index_write(g_inputs, 1, tp("b.slog"), &bad, NULL, NULL), SLOG_EINVAL);
}

/* Two clocks: refused, naming the input with the other one. */
static void check_two_clocks(void)
{
    slog_error err;
    write_input(tp("us.slog"), 1, 9, 200, 1000000, true);
    const char *const in[2] = {g_inputs[0], tp("us.slog")};
    const int rc = index_err(in, 2, tp("b.slog"), 0, &err, NULL);
    ck_assert_msg(rc == SLOG_EINVAL, "two clocks: %s: %s (%s)", slog_status_name(rc), err.message,
                  err.source);
    ck_assert_msg(strstr(err.message, "clock") != NULL, "%s", err.message);
    ck_assert_ptr_nonnull(strstr(err.source, "us.slog"));
}

/* The index b.slog over in (r0, gone, r1) with the missing input 1: its
 * entry and empty top timeline "gone"; the others answer, statistics too. */
static void check_missing_answers(const char *const *in)
{
    slog_reader *const ix = open_reader(tp("b.slog"));
    ck_assert_uint_eq(slog_reader_index_inputs(ix), 3);
    slog_index_input_info ii = index_input(ix, 1);
    ck_assert_int_eq(ii.state, SLOG_INDEX_INPUT_MISSING);
    ck_assert_uint_eq(ii.counts[0] + ii.counts[1] + ii.counts[2] + ii.counts[3], 0);
    ck_assert_uint_ne(ii.top_timeline, UINT32_MAX);
    slog_timeline_info ti;
    ck_assert_int_eq(slog_reader_timeline(ix, ii.top_timeline, &ti), SLOG_OK);
    ck_assert_str_eq(ti.name, "gone");
    ck_assert_uint_eq(ti.parent, SLOG_NO_PARENT);
    /* the others answer; the missing one's top timeline is empty */
    const char *const lab[3] = {"r0", "gone", "r1"};
    const bool present[3] = {true, false, true};
    check_as_inputs(ix, in, lab, 3, present, "with a missing input");
    keys got = {0};
    reader_keys(ix, "", -WIDE, WIDE, 0, &ii.top_timeline, 1, &got);
    ck_assert_uint_eq(got.n, 0);
    keys_free(&got);
    slog_stats_options so = SLOG_STATS_OPTIONS_INIT;
    so.t0 = -WIDE;
    so.t1 = WIDE;
    slog_stats *st = NULL;
    slog_error err;
    ck_assert_int_eq(slog_stats_compute(&st, ix, &so, &err), SLOG_OK);
    slog_stats_destroy(st);
    slog_reader_destroy(ix);
}

/* A missing input: refused, naming it, unless allowed. */
static void check_missing_input(void)
{
    slog_error err;
    slog_index_summary s;
    const char *const in[3] = {g_inputs[0], tp("gone.slog"), g_inputs[1]};
    ck_assert_int_eq(index_err(in, 3, tp("b.slog"), 0, &err, NULL), SLOG_EIO);
    ck_assert_ptr_nonnull(strstr(err.source, "gone.slog"));
    ck_assert_int_eq(index_err(in, 3, tp("b.slog"), SLOG_INDEX_ALLOW_MISSING, &err, &s), SLOG_OK);
    ck_assert_uint_eq(s.inputs, 3);
    ck_assert_uint_eq(s.missing, 1);
    check_missing_answers(in);
}

/* An empty input (timelines, no drawable) is fine: the index has r3's
 * range and drawables; nothing is found on the empty one's 5 timelines. */
static void check_empty_input(void)
{
    slog_error err;
    slog_index_summary s;
    write_input(tp("empty.slog"), 1, 3, 0, 0, true);
    const char *const in[2] = {tp("empty.slog"), g_inputs[3]};
    ck_assert_int_eq(index_err(in, 2, tp("e.slog"), 0, &err, &s), SLOG_OK);
    slog_reader *const ix = open_reader(tp("e.slog"));
    slog_reader *const r3 = open_reader(g_inputs[3]);
    ck_assert_int_eq(slog_reader_info(ix)->start, slog_reader_info(r3)->start);
    ck_assert_int_eq(slog_reader_info(ix)->end, slog_reader_info(r3)->end);
    ck_assert_uint_eq(total_drawables(slog_reader_info(ix)), total_drawables(slog_reader_info(r3)));
    slog_reader_destroy(r3);
    const slog_index_input_info ii = index_input(ix, 0);
    ck_assert_int_eq(ii.state, SLOG_INDEX_INPUT_OK);
    ck_assert_uint_eq(ii.counts[0] + ii.counts[1] + ii.counts[2] + ii.counts[3], 0);
    const char *const lab3[2] = {"empty", "r3"};
    check_as_inputs(ix, in, lab3, 2, NULL, "with an empty input");
    names nx;
    names_load(&nx, ix, "");
    uint32_t etl[8];
    const uint32_t netl = tl_ids(&nx, "empty", etl, 8);
    ck_assert_uint_eq(netl, 5);
    slog_item sit;
    slog_search_options seo = SLOG_SEARCH_OPTIONS_INIT;
    seo.timelines = etl;
    seo.ntimelines = netl;
    ck_assert_int_eq(slog_search_next(ix, &seo, -WIDE, &sit, NULL, NULL), SLOG_END);
    names_free(&nx);
    slog_reader_destroy(ix);
}

/* An incomplete input: refused, naming it, unless allowed; then the index
 * is incomplete and answers what the input holds. */
static void check_incomplete_input(void)
{
    slog_error err;
    slog_index_summary s;
    write_input(tp("cut.slog"), 2, 5, 400, 0, false);
    const char *const in[2] = {g_inputs[0], tp("cut.slog")};
    ck_assert_int_eq(index_err(in, 2, tp("c.slog"), 0, &err, NULL), SLOG_ESTATE);
    ck_assert_ptr_nonnull(strstr(err.source, "cut.slog"));
    ck_assert_int_eq(index_err(in, 2, tp("c.slog"), SLOG_INDEX_ALLOW_INCOMPLETE, &err, &s),
                     SLOG_OK);
    ck_assert_uint_eq(s.incomplete, 1);
    slog_reader *const ix = open_reader(tp("c.slog"));
    ck_assert(!slog_reader_info(ix)->complete);
    ck_assert_int_eq(index_input(ix, 0).state, SLOG_INDEX_INPUT_OK);
    const slog_index_input_info ii = index_input(ix, 1);
    ck_assert_int_eq(ii.state, SLOG_INDEX_INPUT_INCOMPLETE);
    ck_assert_uint_gt(ii.counts[0], 0);
    const char *const lab2[2] = {"r0", "cut"};
    check_as_inputs(ix, in, lab2, 2, NULL, "with an incomplete input");
    slog_reader_destroy(ix);
}

START_TEST(test_bad_inputs)
{
    make_inputs(300);
    check_refused_names();
    check_two_clocks();
    check_missing_input();
    check_empty_input();
    check_incomplete_input();
}
END_TEST

/* The output named again among the inputs, after the first: refused, and
 * the file it names (here an index, in the merge test a trace) is left as
 * it was: slog_index_write checks every input path before it creates the
 * index (it once met the clash only at the later input, after creating the
 * index over that file, and then removed it). */
START_TEST(test_output_among_inputs)
{
    make_inputs(200);
    write_input(tp("t.slog"), 3, 4, 200, 0, true);
    struct stat tbefore;
    ck_assert_int_eq(stat(tp("t.slog"), &tbefore), 0);
    const char *in[3] = {g_inputs[2], g_inputs[3], tp("t.slog")};
    slog_error err;
    ck_assert_int_eq(index_err(in, 3, tp("t.slog"), 0, &err, NULL), SLOG_EINVAL);
    struct stat after;
    const bool kept = stat(tp("t.slog"), &after) == 0;
    const bool same = kept && after.st_size == tbefore.st_size;
    teardown(); /* a failing test's child exits without its checked teardown */
    ck_assert_msg(kept, "input t.slog (the output, given as input 2) removed by the refused index");
    ck_assert_msg(same, "input t.slog (the output, given as input 2) changed by the refused index");
}
END_TEST

/* slog_index_options follow the struct_size rule of slog_common.h, as
 * slog_merge_options and the reader's options do: 0 means every default, a
 * larger struct whose unknown bytes are zero is accepted, 1..3 and a
 * non-zero reserved member or unknown flag bit are SLOG_EINVAL. */
/* When rc is not want, note "[what: <rc's name><tail>] " at the end of
 * broken (of cap bytes). */
static void
note_broken(char *broken, size_t cap, int rc, int want, const char *what, const char *tail)
{
    if (rc != want) {
        const size_t used = strlen(broken);
        snprintf(broken + used, cap - used, "[%s: %s%s] ", what, slog_status_name(rc), tail);
    }
}

START_TEST(test_options_struct_size_rule)
{
    make_inputs(100);
    struct {
        slog_index_options o;
        uint64_t newer[2];
    } big;
    memset(&big, 0, sizeof big);
    slog_index_options_init(&big.o);
    slog_index_options d = SLOG_INDEX_OPTIONS_INIT;
    ck_assert_int_eq(memcmp(&big.o, &d, sizeof d), 0);
    ck_assert_uint_eq(d.struct_size, sizeof d);
    /* every case is tried; the failure lists all that broke the rule */
    char broken[1024] = "";
    char what[64];
    int rc;
    slog_error err;
    /* struct_size 0: defaults */
    d.struct_size = 0;
    rc = slog_index_write(g_inputs, 2, tp("a.slog"), &d, NULL, &err);
    note_broken(broken, sizeof broken, rc, SLOG_OK, "struct_size 0", ", not defaults");
    /* a newer caller's larger struct, unknown bytes zero: accepted */
    big.o.struct_size = (uint32_t)sizeof big;
    rc = slog_index_write(g_inputs, 2, tp("b.slog"), &big.o, NULL, &err);
    snprintf(what, sizeof what, "struct_size %zu with a zero tail", sizeof big);
    note_broken(broken, sizeof broken, rc, SLOG_OK, what, ", not accepted");
    /* ... and with a non-zero unknown member: refused */
    big.newer[1] = 1;
    rc = slog_index_write(g_inputs, 2, tp("c.slog"), &big.o, NULL, NULL);
    note_broken(broken, sizeof broken, rc, SLOG_EINVAL, "a non-zero member past the struct", "");
    /* struct_size 1..3, a non-zero reserved member, an unknown flag bit */
    slog_index_options o = SLOG_INDEX_OPTIONS_INIT;
    o.struct_size = 2;
    rc = slog_index_write(g_inputs, 2, tp("c.slog"), &o, NULL, NULL);
    note_broken(broken, sizeof broken, rc, SLOG_EINVAL, "struct_size 2", ", not SLOG_EINVAL");
    o.struct_size = (uint32_t)sizeof o;
    o.reserved = 1;
    rc = slog_index_write(g_inputs, 2, tp("c.slog"), &o, NULL, NULL);
    note_broken(broken, sizeof broken, rc, SLOG_EINVAL, "reserved 1", ", not SLOG_EINVAL");
    o.reserved = 0;
    o.flags = 1u << 7;
    rc = slog_index_write(g_inputs, 2, tp("c.slog"), &o, NULL, NULL);
    note_broken(broken, sizeof broken, rc, SLOG_EINVAL, "unknown flag bit 7", ", not SLOG_EINVAL");
    teardown(); /* a failing test's child exits without its checked teardown */
    ck_assert_msg(broken[0] == '\0', "slog_index_options break the struct_size rule: %s", broken);
}
END_TEST

/* ---- 12. more inputs than the reader keeps open ---- */

enum {
    MANY = 70
};

/* MANY small inputs m00..m69.slog, their paths into in, labels into lab. */
static void make_many_inputs(const char **in, const char **lab)
{
    static char names_buf[MANY][256];
    static char label_buf[MANY][16];
    for (int i = 0; i < MANY; i++) {
        snprintf(names_buf[i], sizeof names_buf[i], "%s/m%02d.slog", g_dir, i);
        snprintf(label_buf[i], sizeof label_buf[i], "m%02d", i);
        in[i] = names_buf[i];
        lab[i] = label_buf[i];
        write_input(in[i], i, 11, 24, 0, true);
    }
}

/* Everything of the index over MANY inputs, twice (the second query
 * reopens what the pool closed): what the inputs hold (want); some files
 * open at the end, not all. */
static void check_pool_reopens(slog_reader *ix, const keys *want)
{
    keys got = {0};
    for (int pass = 0; pass < 2; pass++) {
        reader_keys(ix, "", -WIDE, WIDE, SLOG_QUERY_ARGS, NULL, 0, &got);
        keys_same(&got, want, "70 inputs");
        keys_free(&got);
        if (pass == 0) {
            ck_assert_uint_eq(slog_reader_index_files_opened(ix), MANY);
        } else {
            ck_assert_uint_gt(slog_reader_index_files_opened(ix), MANY);
        }
    }
    uint32_t open_now = 0;
    for (uint32_t i = 0; i < MANY; i++) {
        open_now += input_opened(ix, i);
    }
    ck_assert_uint_gt(open_now, 0);
    ck_assert_uint_lt(open_now, MANY);
}

/* Statistics over every file count every drawable; the first 6 arrows
 * come in order; the 10 longest states in decreasing length. */
static void check_stats_search_all(slog_reader *ix)
{
    const slog_file_info *const f = slog_reader_info(ix);
    slog_stats_options so = SLOG_STATS_OPTIONS_INIT;
    so.by = SLOG_STATS_BY_CATEGORY;
    so.t0 = f->start;
    so.t1 = f->end + 1;
    slog_stats *st = NULL;
    ck_assert_int_eq(slog_stats_compute(&st, ix, &so, NULL), SLOG_OK);
    size_t nrows = 0;
    const slog_stats_row *const rows = slog_stats_rows(st, &nrows);
    uint64_t counted = 0;
    for (size_t i = 0; i < nrows; i++) {
        counted += rows[i].count;
    }
    ck_assert_uint_eq(counted, total_drawables(f));
    slog_stats_destroy(st);
    slog_search_options se = SLOG_SEARCH_OPTIONS_INIT;
    slog_item it;
    int64_t t = -WIDE;
    uint64_t found = 0;
    se.kinds = 1u << SLOG_KIND_ARROW;
    while (found < 6 && slog_search_next(ix, &se, t, &it, NULL, NULL) == SLOG_OK) {
        ck_assert_int_gt(it.u.arrow.start, t);
        t = it.u.arrow.start;
        found++;
    }
    ck_assert_uint_eq(found, 6);
    slog_state top[10];
    uint32_t ntop = 10;
    se.kinds = 0;
    se.t0 = f->start;
    se.t1 = f->end + 1;
    ck_assert_int_eq(slog_search_top(ix, &se, top, &ntop, NULL, NULL), SLOG_OK);
    ck_assert_uint_eq(ntop, 10);
    for (uint32_t i = 1; i < ntop; i++) {
        ck_assert_int_ge(top[i - 1].end - top[i - 1].start, top[i].end - top[i].start);
    }
}

/* MANY queries alive at once, each on its own input's timelines with args
 * (so its file is read): every file is open, MANY - 64 of them past the
 * pool's bound; once the queries end, the pool is back within its bound. */
static void check_pool_bound_after_pins(slog_reader *ix)
{
    names n;
    names_load(&n, ix, "");
    static uint32_t tls[MANY][16];
    slog_query *q[MANY];
    for (int i = 0; i < MANY; i++) {
        char label[16];
        snprintf(label, sizeof label, "m%02d", i);
        slog_query_options o = full_query(-WIDE, WIDE);
        o.flags = SLOG_QUERY_ARGS;
        o.timelines = tls[i];
        o.ntimelines = tl_ids(&n, label, tls[i], 16);
        ck_assert_uint_gt(o.ntimelines, 0);
        ck_assert_int_eq(slog_query_create(&q[i], ix, &o, NULL), SLOG_OK);
        const slog_item *it = NULL;
        ck_assert_int_eq(slog_query_next(q[i], &it, NULL), SLOG_OK); /* its input pinned */
    }
    uint32_t open_now = 0;
    for (uint32_t i = 0; i < MANY; i++) {
        open_now += input_opened(ix, i);
    }
    ck_assert_uint_eq(open_now, MANY);
    for (int i = 0; i < MANY; i++) {
        slog_query_destroy(q[i]);
    }
    open_now = 0;
    for (uint32_t i = 0; i < MANY; i++) {
        open_now += input_opened(ix, i);
    }
    ck_assert_uint_eq(open_now, 64); /* API_INDEX_POOL_FILES */
    names_free(&n);
}

START_TEST(test_many_inputs)
{
    const char *in[MANY], *lab[MANY];
    make_many_inputs(in, lab);
    slog_index_options o = SLOG_INDEX_OPTIONS_INIT;
    o.copy_bytes = 1024;
    slog_index_summary s;
    index_write(in, MANY, tp("idx.slog"), &o, &s);
    ck_assert_uint_eq(s.inputs, MANY);
    slog_reader *const ix = open_reader(tp("idx.slog"));
    const slog_file_info *const f = slog_reader_info(ix);
    keys want = {0};
    expected_keys(in, lab, NULL, MANY, NULL, -WIDE, WIDE, SLOG_QUERY_ARGS, &want);
    ck_assert_uint_eq(want.n, total_drawables(f));
    check_pool_reopens(ix, &want);
    check_pool_bound_after_pins(ix);
    /* zoomed out over every view; statistics and search over every file */
    check_zoomed_totals(ix, (f->end - f->start + 1) / 40, 0);
    check_stats_search_all(ix);
    keys_free(&want);
    slog_reader_destroy(ix);
}
END_TEST

/* ---- 8. inputs changed or deleted after indexing ---- */

/* Input 1 changed, input 2 deleted: a query on r1's timelines is
 * SLOG_ECORRUPT "changed", naming it; one on r2's names r2.slog; the whole
 * trace, and statistics over it, need both. */
static void check_changed_and_deleted(slog_reader *ix, const names *n)
{
    uint32_t tls[16];
    uint32_t ntl = tl_ids(n, "r1", tls, 16);
    slog_query_options q = full_query(-WIDE, WIDE);
    q.timelines = tls;
    q.ntimelines = ntl;
    qres res;
    run_query(ix, &q, n, 0, NULL, &res);
    ck_assert_int_eq(res.rc, SLOG_ECORRUPT);
    ck_assert_msg(strstr(res.err.message, "changed") != NULL, "%s", res.err.message);
    ck_assert_ptr_nonnull(strstr(res.err.source, "r1.slog"));

    ntl = tl_ids(n, "r2", tls, 16);
    q.ntimelines = ntl;
    run_query(ix, &q, n, 0, NULL, &res);
    ck_assert_int_lt(res.rc, 0);
    ck_assert_msg(strstr(res.err.source, "r2.slog") != NULL ||
                      strstr(res.err.message, "r2.slog") != NULL,
                  "%s: %s (%s)", slog_status_name(res.rc), res.err.message, res.err.source);

    /* the whole trace needs both */
    q.timelines = NULL;
    q.ntimelines = 0;
    run_query(ix, &q, n, 0, NULL, &res);
    ck_assert_int_lt(res.rc, 0);
    slog_stats_options so = SLOG_STATS_OPTIONS_INIT;
    so.t0 = -WIDE;
    so.t1 = WIDE;
    slog_stats *st = NULL;
    ck_assert_int_eq(slog_stats_compute(&st, ix, &so, NULL), SLOG_ECORRUPT);
    ck_assert_ptr_null(st);
}

/* Inputs 0 and 3 still answer, exactly: queries, statistics and search on
 * their timelines; a search over everything fails. */
static void check_unchanged_answer(slog_reader *ix, const names *n)
{
    uint32_t tls[16];
    uint32_t ntl = tl_ids(n, "r0", tls, 16);
    ntl += tl_ids(n, "r3", tls + ntl, 16 - ntl);
    keys want = {0}, got = {0};
    reader_keys(ix, "", -WIDE, WIDE, 0, tls, ntl, &got);
    const bool which[NIN] = {true, false, false, true};
    expected_keys(g_inputs, g_labels, NULL, NIN, which, -WIDE, WIDE, 0, &want);
    keys_same(&got, &want, "the unchanged inputs");
    keys_free(&want);
    keys_free(&got);
    slog_stats_options so = SLOG_STATS_OPTIONS_INIT;
    so.t0 = -WIDE;
    so.t1 = WIDE;
    so.timelines = tls;
    so.ntimelines = ntl;
    slog_stats *st = NULL;
    ck_assert_int_eq(slog_stats_compute(&st, ix, &so, NULL), SLOG_OK);
    slog_stats_destroy(st);
    slog_search_options se = SLOG_SEARCH_OPTIONS_INIT;
    se.timelines = tls;
    se.ntimelines = ntl;
    slog_item it;
    ck_assert_int_eq(slog_search_next(ix, &se, -WIDE, &it, NULL, NULL), SLOG_OK);
    se.timelines = NULL;
    se.ntimelines = 0;
    ck_assert_int_lt(slog_search_next(ix, &se, -WIDE, &it, NULL, NULL), 0);
}

/* Verification reports inputs 1 and 2, each as a whole, by name: all
 * their drawables lost. */
static void check_verify_two_lost(slog_reader *ix)
{
    damage_log dl;
    memset(&dl, 0, sizeof dl);
    slog_verify_totals vt;
    ck_assert_int_eq(slog_reader_verify(ix, on_damage, &dl, &vt, NULL), SLOG_OK);
    ck_assert_uint_eq(dl.whole_inputs, 2);
    ck_assert_uint_eq(dl.nodes, 0);
    ck_assert_msg(strstr(dl.messages, "r1.slog") != NULL && strstr(dl.messages, "r2.slog") != NULL,
                  "%s", dl.messages);
    const slog_index_input_info i1 = index_input(ix, 1);
    const slog_index_input_info i2 = index_input(ix, 2);
    ck_assert_uint_eq(vt.drawables_lost, i1.counts[0] + i1.counts[1] + i1.counts[2] + i1.counts[3] +
                                             i2.counts[0] + i2.counts[1] + i2.counts[2] +
                                             i2.counts[3]);
}

START_TEST(test_inputs_changed_after)
{
    make_inputs(1200);
    slog_index_options o = SLOG_INDEX_OPTIONS_INIT;
    o.copy_bytes = 8 << 10;
    index_write(g_inputs, NIN, tp("idx.slog"), &o, NULL);
    write_input(g_inputs[1], 1, 77, 900, 0, true); /* other content */
    ck_assert_int_eq(unlink(g_inputs[2]), 0);

    slog_reader *const ix = open_reader(tp("idx.slog"));
    names n;
    names_load(&n, ix, "");
    check_changed_and_deleted(ix, &n);
    check_unchanged_answer(ix, &n);
    check_verify_two_lost(ix);
    names_free(&n);
    slog_reader_destroy(ix);
}
END_TEST

/* ---- 9. a damaged index: clean errors or the same answer ---- */

static void flip_at(int fd, off_t at, uint8_t x)
{
    uint8_t b = 0;
    ck_assert_int_eq(pread(fd, &b, 1, at), 1);
    b ^= x;
    ck_assert_int_eq(pwrite(fd, &b, 1, at), 1);
}

static bool clean_code(int rc)
{
    return rc == SLOG_EIO || rc == SLOG_ECORRUPT || rc == SLOG_EFORMAT || rc == SLOG_EVERSION ||
           rc == SLOG_ENOMEM;
}

/* Offsets [off, off+len) of /payload's chunks by tests/corrupt/h5map
 * ($H5MAP), the last one (the input table's) into *off, *len; false
 * without h5map. */
static bool last_payload_chunk(const char *path, uint64_t *off, uint64_t *len)
{
    const char *const h5map = getenv("H5MAP");
    if (h5map == NULL || access(h5map, X_OK) != 0) {
        return false;
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' '%s'", h5map, path);
    FILE *const p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    char line[512];
    bool found = false;
    while (fgets(line, sizeof line, p) != NULL) {
        unsigned long long a = 0, l = 0;
        char name[64];
        if (sscanf(line, "chunk %llu %llu %63s", &a, &l, name) == 3 &&
            strcmp(name, "payload") == 0 && (!found || a > *off)) {
            *off = a;
            *len = l;
            found = true;
        }
    }
    pclose(p);
    return found;
}

/* Tallies of the flips of test_damaged_index. */
typedef struct flips {
    uint64_t tried, opened, same, failed, chunk_failed;
} flips;

/* Flip one bit of the byte at `at` of the index (path, open as fd), then
 * open and query the whole of it: the same want drawables, or a clean
 * error with a message (counted in chunk_failed too when in_chunk); the
 * bit flipped back. */
static void try_flip(int fd, const char *path, uint64_t at, uint64_t want, bool in_chunk, flips *fl)
{
    const uint8_t x = (uint8_t)(1u << (at % 8));
    flip_at(fd, (off_t)at, x);
    fl->tried++;
    slog_reader *r = NULL;
    slog_error err;
    int rc = slog_reader_open(&r, path, NULL, &err);
    if (rc == SLOG_OK) {
        fl->opened++;
        slog_query_options q = full_query(-WIDE, WIDE);
        qres res;
        run_query(r, &q, NULL, 0, NULL, &res);
        rc = res.rc;
        err = res.err;
        if (rc == SLOG_END) {
            ck_assert_msg(res.drawables == want, "flip at %llu: %llu drawables instead of %llu",
                          (unsigned long long)at, (unsigned long long)res.drawables,
                          (unsigned long long)want);
            fl->same++;
        }
        slog_reader_destroy(r);
    }
    if (rc != SLOG_END) {
        ck_assert_msg(clean_code(rc), "flip at %llu: %s (%s)", (unsigned long long)at,
                      slog_status_name(rc), err.message);
        ck_assert_msg(err.message[0] != '\0', "flip at %llu: no message", (unsigned long long)at);
        fl->failed++;
        fl->chunk_failed += in_chunk;
    }
    flip_at(fd, (off_t)at, x);
}

/* Stored bytes of the chunk at c0 (clen bytes) up to the end of its first
 * LZ4 block: the rest of a short blob's chunk is zero blocks of padding
 * that no reader decodes (doc/FORMAT.md §5.1). */
static uint64_t first_block_end(int fd, uint64_t c0, uint64_t clen)
{
    unsigned char head[16];
    if (clen < sizeof head || pread(fd, head, sizeof head, (off_t)c0) != (ssize_t)sizeof head) {
        return clen;
    }
    const uint64_t first = 16 + ((uint64_t)head[12] << 24 | (uint64_t)head[13] << 16 |
                                 (uint64_t)head[14] << 8 | head[15]);
    return first < clen ? first : clen;
}

/* Flip, one at a time, every byte of the last /payload chunk (the input
 * table's: h5map locates it; it does not lie in the file's last KiBs,
 * HDF5's metadata does) up to the end of its first block, at most its last
 * 4 KiB of those, and every fourth byte of the file's last 4 KiB.  Whether
 * h5map located the chunk; the length flipped into *clen. */
static bool flip_all(const char *path, uint64_t want, flips *fl, uint64_t *clen)
{
    const int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    struct stat st;
    ck_assert_int_eq(fstat(fd, &st), 0);
    const uint64_t size = (uint64_t)st.st_size;
    uint64_t c0 = 0;
    *clen = 0;
    const bool mapped = last_payload_chunk(path, &c0, clen);
    if (mapped) {
        *clen = first_block_end(fd, c0, *clen);
    }
    if (*clen > 4096) {
        c0 += *clen - 4096;
        *clen = 4096;
    }
    const uint64_t tail = size > 4096 ? size - 4096 : 0;
    for (int pass = 0; pass < 2; pass++) {
        const uint64_t lo = pass == 0 ? c0 : tail;
        const uint64_t hi = pass == 0 ? c0 + (mapped ? *clen : 0) : size;
        for (uint64_t at = lo; at < hi; at += pass == 0 ? 1 : 4) {
            if (pass == 1 && mapped && at >= c0 && at < c0 + *clen) {
                continue; /* done in pass 0 */
            }
            try_flip(fd, path, at, want, pass == 0, fl);
        }
    }
    close(fd);
    return mapped;
}

START_TEST(test_damaged_index)
{
    make_inputs(150);
    index_write(g_inputs, 3, tp("idx.slog"), NULL, NULL);
    slog_reader *ix = open_reader(tp("idx.slog"));
    const uint64_t want = total_drawables(slog_reader_info(ix));
    slog_reader_destroy(ix);
    const char *const path = tp("idx.slog");
    flips fl;
    memset(&fl, 0, sizeof fl);
    uint64_t clen = 0;
    const bool mapped = flip_all(path, want, &fl, &clen);
    ck_assert_uint_gt(fl.tried, 1000);
    ck_assert_uint_eq(fl.same + fl.failed, fl.tried);
    ck_assert_uint_gt(fl.failed, 0);
    ck_assert_uint_gt(fl.opened, 0);
    if (mapped) { /* the input table and the copied blobs are checked */
        ck_assert_uint_gt(fl.chunk_failed, clen / 2);
    }
    /* restored: the same answer */
    ix = open_reader(path);
    qres res;
    slog_query_options q = full_query(-WIDE, WIDE);
    run_query(ix, &q, NULL, 0, NULL, &res);
    ck_assert_int_eq(res.rc, SLOG_END);
    ck_assert_uint_eq(res.drawables, want);
    slog_reader_destroy(ix);
}
END_TEST

/* ---- 10. relative paths: the directory moves, the index still answers ---- */

/* idx.slog in the moved directory: its inputs named relative to it, all
 * opened, answering what they held before the move (want). */
static void check_moved_index(const keys *want)
{
    char path[256];
    snprintf(path, sizeof path, "%s/idx.slog", g_moved);
    slog_reader *const ix = open_reader(path);
    for (uint32_t i = 0; i < NIN; i++) {
        const slog_index_input_info ii = index_input(ix, i);
        char name[32];
        snprintf(name, sizeof name, "r%u.slog", i);
        ck_assert_str_eq(ii.path, name);
    }
    keys got = {0};
    reader_keys(ix, "", -WIDE, WIDE, SLOG_QUERY_ARGS, NULL, 0, &got);
    ck_assert_uint_eq(slog_reader_index_files_opened(ix), NIN);
    keys_same(&got, want, "moved directory");
    keys_free(&got);
    slog_reader_destroy(ix);
}

/* rel.slog (inputs r3, ./r0 named relative to the working directory) in
 * the moved directory: answers everything; sub/idx.slog, naming absolute
 * paths, does not follow: a clean error naming the path. */
static void check_moved_relative(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/rel.slog", g_moved);
    slog_reader *ix = open_reader(path);
    ck_assert_str_eq(index_input(ix, 0).path, "r3.slog");
    ck_assert_str_eq(index_input(ix, 1).path, "r0.slog");
    qres res;
    const slog_query_options q = full_query(-WIDE, WIDE);
    run_query(ix, &q, NULL, 0, NULL, &res);
    ck_assert_msg(res.rc == SLOG_END, "%s", res.err.message);
    ck_assert_uint_eq(res.drawables, total_drawables(slog_reader_info(ix)));
    slog_reader_destroy(ix);

    snprintf(path, sizeof path, "%s/sub/idx.slog", g_moved);
    ix = open_reader(path);
    run_query(ix, &q, NULL, 0, NULL, &res);
    ck_assert_int_eq(res.rc, SLOG_EIO);
    ck_assert_ptr_nonnull(strstr(res.err.source, g_dir));
    slog_reader_destroy(ix);
}

START_TEST(test_relative_paths)
{
    make_inputs(800);
    slog_index_options o = SLOG_INDEX_OPTIONS_INIT;
    o.copy_bytes = 4 << 10;
    index_write(g_inputs, NIN, tp("idx.slog"), &o, NULL);
    /* an index in a subdirectory names the inputs by absolute path */
    ck_assert_int_eq(mkdir(tp("sub"), 0700), 0);
    index_write(g_inputs, 2, tp("sub/idx.slog"), &o, NULL);
    slog_reader *const ix = open_reader(tp("sub/idx.slog"));
    ck_assert_str_eq(index_input(ix, 1).path, g_inputs[1]);
    slog_reader_destroy(ix);
    /* inputs and index named relative to the working directory */
    char cwd[512];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(g_dir), 0);
    const char *const rel[2] = {"r3.slog", "./r0.slog"};
    index_write(rel, 2, "rel.slog", &o, NULL);
    ck_assert_int_eq(chdir("/"), 0);

    keys want = {0};
    expected_keys(g_inputs, g_labels, NULL, NIN, NULL, -WIDE, WIDE, SLOG_QUERY_ARGS, &want);
    ck_assert_int_eq(rename(g_dir, g_moved), 0);
    check_moved_index(&want);
    keys_free(&want);
    check_moved_relative();
    ck_assert_int_eq(rename(g_moved, g_dir), 0);
    ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

/* ---- 11. refresh and first_node ---- */

START_TEST(test_refresh_and_first_node)
{
    make_inputs(300);
    index_write(g_inputs, NIN, tp("idx.slog"), NULL, NULL);
    slog_reader *const ix = open_reader(tp("idx.slog"));
    const uint64_t nodes = slog_reader_info(ix)->nodes;
    bool grew = true;
    slog_error err;
    ck_assert_int_eq(slog_reader_refresh(ix, &grew, &err), SLOG_OK);
    ck_assert(!grew);
    ck_assert_uint_eq(slog_reader_info(ix)->nodes, nodes);
    ck_assert_int_eq(slog_reader_refresh(ix, NULL, NULL), SLOG_OK);
    slog_query_options q = full_query(-WIDE, WIDE);
    q.first_node = 1;
    slog_query *qq = NULL;
    ck_assert_int_eq(slog_query_create(&qq, ix, &q, &err), SLOG_EINVAL);
    ck_assert_ptr_null(qq);
    q.first_node = 0;
    const uint32_t bad_tl = slog_reader_info(ix)->timelines;
    q.timelines = &bad_tl;
    q.ntimelines = 1;
    ck_assert_int_eq(slog_query_create(&qq, ix, &q, &err), SLOG_EINVAL);
    q.timelines = NULL;
    q.ntimelines = 0;
    const uint32_t bad_cat = slog_reader_info(ix)->categories;
    q.categories = &bad_cat;
    q.ncategories = 1;
    ck_assert_int_eq(slog_query_create(&qq, ix, &q, &err), SLOG_EINVAL);
    /* still answers after all that */
    q.categories = NULL;
    q.ncategories = 0;
    qres res;
    run_query(ix, &q, NULL, 0, NULL, &res);
    ck_assert_int_eq(res.rc, SLOG_END);
    ck_assert_uint_eq(res.drawables, total_drawables(slog_reader_info(ix)));
    slog_reader_destroy(ix);
}
END_TEST

int main(void)
{
    Suite *const s = suite_create("index");
    TCase *const t = tcase_create("index");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_full_detail_union_and_merge);
    tcase_add_test(t, test_offsets);
    tcase_add_test(t, test_zoom_uses_copy);
    tcase_add_test(t, test_timeline_filter);
    tcase_add_test(t, test_stats_and_search_as_merged);
    tcase_add_test(t, test_args);
    tcase_add_test(t, test_bad_inputs);
    tcase_add_test(t, test_inputs_changed_after);
    tcase_add_test(t, test_damaged_index);
    tcase_add_test(t, test_relative_paths);
    tcase_add_test(t, test_refresh_and_first_node);
    tcase_add_test(t, test_many_inputs);
    tcase_add_test(t, test_output_among_inputs);
    tcase_add_test(t, test_options_struct_size_rule);
    suite_add_tcase(s, t);
    SRunner *const sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
