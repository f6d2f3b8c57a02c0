/* SPDX-License-Identifier: MIT
 *
 * check_stats.c - window statistics (slog_stats.h) against a brute-force
 * reference over random traces (trace_ref.c): nested call trees on 1 to
 * 300 timelines, events, arrows and counters, small leaves and several
 * fanouts; windows at random positions and lengths (most cut states), at
 * state boundaries and over the whole trace; grouped by category, timeline
 * and both, with and without timeline, category and kind filters.  Counts,
 * inclusive and exclusive time, min and max agree to the tick (exclusive
 * time is checked for the arrival orders the writer's exclusive time is
 * defined for: end-sorted and begin/end).  Bad arguments are rejected.
 * Public API only.
 */
#include "ck_quiet.h"
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_ref.h"

typedef struct st_config {
    uint32_t timelines, states, events, arrows, counters, cats, depth;
    int64_t base, span;
    uint32_t leaf_bytes, fanout;
    tref_order order;
} st_config;

static const st_config configs[] = {
    {1, 3000, 200, 50, 200, 3, 6, 0, 1000000, 1024, 2, TR_ORDER_END},
    {3, 4000, 300, 100, 300, 5, 5, 1000000000000, 1000000000, 2048, 3, TR_ORDER_BEGIN_END},
    {17, 5000, 500, 200, 300, 8, 4, -500000000000, 50000, 1024, 4, TR_ORDER_BEGIN_END},
    {100, 6000, 400, 300, 400, 6, 5, 0, 100000000, 4096, 8, TR_ORDER_END},
    {300, 5000, 500, 300, 300, 4, 3, 12345, 10000000, 1024, 2, TR_ORDER_END},
    {5, 8000, 300, 100, 500, 4, 7, 0, 10000000, 4096, 2, TR_ORDER_BEGIN_END},
    {64, 6000, 400, 400, 200, 40, 5, 999, 300000000, 1024, 7, TR_ORDER_END},
    {8, 3000, 200, 100, 100, 4, 6, 0, 5000000, 1024, 3, TR_ORDER_SHUFFLED},
    /* many timelines x categories: every preview folds its (row, category)
     * entries; per-timeline rows come from the per-timeline totals */
    {24, 8000, 400, 300, 300, 60, 5, 0, 100000000, 16384, 2, TR_ORDER_END},
};
#define NCONFIGS ((int)(sizeof configs / sizeof configs[0]))

typedef struct st_file {
    tref_trace trace;
    char path[256];
    slog_reader *reader;
    size_t *parent;  /* per item: index of the parent state, SIZE_MAX if none */
    int exact_excl;  /* the arrival order defines exclusive time */
} st_file;

/* Parent of every state with a positive duration: the state one level up
 * on the same timeline that contains it (unique for proper nesting). */
static void find_parents(st_file *f)
{
    const tref_trace *t = &f->trace;
    f->parent = malloc((t->nitems + 1) * sizeof *f->parent);
    ck_assert_ptr_nonnull(f->parent);
    for (size_t i = 0; i < t->nitems; i++) {
        const tref_item *c = &t->items[i];
        f->parent[i] = SIZE_MAX;
        if (c->kind != SLOG_KIND_STATE || c->depth == 0 || c->end == c->start) {
            continue;
        }
        for (size_t j = 0; j < t->nitems; j++) {
            const tref_item *p = &t->items[j];
            if (p->kind == SLOG_KIND_STATE && p->timeline == c->timeline &&
                p->depth + 1 == c->depth && p->start <= c->start && c->end <= p->end &&
                p->end > p->start) {
                f->parent[i] = j;
                break;
            }
        }
    }
}

static void st_open(st_file *f, int i)
{
    const st_config *c = &configs[i];
    const tref_params p = {.seed = 0x57a7u + (uint64_t)i * 104729u,
                           .timelines = c->timelines,
                           .states = c->states,
                           .events = c->events,
                           .arrows = c->arrows,
                           .counters = c->counters,
                           .state_categories = c->cats,
                           .max_depth = c->depth,
                           .base = c->base,
                           .span = c->span,
                           .args_percent = 10};
    memset(f, 0, sizeof *f);
    ck_assert_int_eq(tref_generate(&f->trace, &p), 0);
    snprintf(f->path, sizeof f->path, "/tmp/check_stats_%d_%d.slog", i, (int)getpid());
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = c->leaf_bytes;
    o.fanout = c->fanout;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    int rc = tref_write(&f->trace, f->path, &o, c->order, p.seed ^ 0x77u, true, &err);
    ck_assert_msg(rc == SLOG_OK, "config %d: write: %s", i, err.message);
    rc = slog_reader_open(&f->reader, f->path, NULL, &err);
    ck_assert_msg(rc == SLOG_OK, "config %d: open: %s", i, err.message);
    f->exact_excl = c->order == TR_ORDER_END || c->order == TR_ORDER_BEGIN_END;
    find_parents(f);
}

static void st_close(st_file *f)
{
    slog_reader_destroy(f->reader);
    remove(f->path);
    tref_free(&f->trace);
    free(f->parent);
}

/* ---- the reference ---- */

typedef struct ref_table {
    slog_stats_row *rows; /* dense by (kind, timeline, category) */
    uint32_t ntl, ncat;
    uint32_t by;
} ref_table;

static int64_t clip(int64_t s, int64_t e, int64_t t0, int64_t t1)
{
    const int64_t lo = s > t0 ? s : t0, hi = e < t1 ? e : t1;
    return hi > lo ? hi - lo : 0;
}

static slog_stats_row *ref_row(ref_table *r, uint32_t kind, uint32_t tl, uint32_t cat)
{
    const uint32_t t = r->by & SLOG_STATS_BY_TIMELINE ? tl : r->ntl;
    const uint32_t c = r->by & SLOG_STATS_BY_CATEGORY ? cat : r->ncat;
    slog_stats_row *row = &r->rows[((size_t)kind * (r->ntl + 1) + t) * (r->ncat + 1) + c];
    if (row->count == 0) {
        row->kind = (slog_kind)kind;
        row->timeline = t == r->ntl ? SLOG_STATS_ANY : t;
        row->category = c == r->ncat ? SLOG_STATS_ANY : c;
        row->min = INT64_MAX;
        row->max = INT64_MIN;
    }
    return row;
}

static int in_list(const uint32_t *ids, uint32_t n, uint32_t x)
{
    if (ids == NULL) {
        return 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (ids[i] == x) {
            return 1;
        }
    }
    return 0;
}

static int ref_selected(const tref_item *it, const slog_stats_options *o)
{
    const uint32_t kinds = o->kinds ? o->kinds : 0xfu;
    if (!(kinds & (1u << it->kind)) || !in_list(o->categories, o->ncategories, it->category)) {
        return 0;
    }
    if (it->kind == SLOG_KIND_ARROW) {
        return in_list(o->timelines, o->ntimelines, it->timeline) ||
               in_list(o->timelines, o->ntimelines, it->to);
    }
    return in_list(o->timelines, o->ntimelines, it->timeline);
}

static void ref_add(ref_table *r, const tref_item *it, const slog_stats_options *o, int64_t kids)
{
    slog_stats_row *row = ref_row(r, it->kind, it->timeline, it->category);
    if (it->kind == SLOG_KIND_STATE) {
        const int64_t d = clip(it->start, it->end, o->t0, o->t1);
        row->inclusive += d;
        row->exclusive += d - kids;
        row->min = d < row->min ? d : row->min;
        row->max = d > row->max ? d : row->max;
    } else if (it->kind == SLOG_KIND_COUNTER) {
        if (row->count == 0 || it->value < row->vmin) {
            row->vmin = it->value;
        }
        if (row->count == 0 || it->value > row->vmax) {
            row->vmax = it->value;
        }
        row->vsum += it->value;
    }
    row->count++;
}

static int cmp_rows(const void *a, const void *b)
{
    const slog_stats_row *x = a, *y = b;
    if (x->timeline != y->timeline) {
        return x->timeline < y->timeline ? -1 : 1;
    }
    if (x->kind != y->kind) {
        return x->kind < y->kind ? -1 : 1;
    }
    return (x->category > y->category) - (x->category < y->category);
}

/* Reference rows of a window, sorted like slog_stats_rows. */
static slog_stats_row *reference(const st_file *f, const slog_stats_options *o, size_t *n)
{
    const tref_trace *t = &f->trace;
    ref_table r = {NULL, t->ntimelines, t->ncategories, o->by ? o->by : SLOG_STATS_BY_CATEGORY};
    const size_t cells = 4 * ((size_t)r.ntl + 1) * (r.ncat + 1);
    r.rows = calloc(cells, sizeof *r.rows);
    int64_t *kids = calloc(t->nitems + 1, sizeof *kids);
    ck_assert(r.rows != NULL && kids != NULL);
    for (size_t i = 0; i < t->nitems; i++) {
        const tref_item *it = &t->items[i];
        if (f->parent[i] != SIZE_MAX && tref_overlaps(it->start, it->end, o->t0, o->t1)) {
            kids[f->parent[i]] += clip(it->start, it->end, o->t0, o->t1);
        }
    }
    for (size_t i = 0; i < t->nitems; i++) {
        const tref_item *it = &t->items[i];
        if (ref_selected(it, o) && tref_overlaps(it->start, it->end, o->t0, o->t1)) {
            ref_add(&r, it, o, kids[i]);
        }
    }
    size_t m = 0;
    for (size_t i = 0; i < cells; i++) {
        if (r.rows[i].count > 0) {
            r.rows[m++] = r.rows[i];
        }
    }
    qsort(r.rows, m, sizeof *r.rows, cmp_rows);
    free(kids);
    *n = m;
    return r.rows;
}

/* ---- comparing ---- */

static void compare_with(const st_file *f, slog_reader *r, const slog_stats_options *o,
                         const char *what)
{
    size_t nref = 0, ngot = 0;
    slog_stats_row *ref = reference(f, o, &nref);
    slog_stats *s = NULL;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    const int rc = slog_stats_compute(&s, r, o, &err);
    ck_assert_msg(rc == SLOG_OK, "%s: %s: %s", what, slog_status_name(rc), err.message);
    const slog_stats_row *got = slog_stats_rows(s, &ngot);
    slog_stats_cost cost;
    slog_stats_cost_get(s, &cost);
    /* format 2 stores every state's exclusive time: no decode-all fallback */
    ck_assert(cost.exact_fallback == 0 || slog_reader_info(r)->format_write_version < 2);
    ck_assert_msg(ngot == nref, "%s [%lld, %lld) by %u: %zu rows, reference %zu", what,
                  (long long)o->t0, (long long)o->t1, o->by, ngot, nref);
    for (size_t i = 0; i < nref; i++) {
        const slog_stats_row *g = &got[i], *e = &ref[i];
        ck_assert_msg(g->kind == e->kind && g->timeline == e->timeline &&
                          g->category == e->category && g->count == e->count,
                      "%s [%lld, %lld) by %u row %zu: kind %d tl %u cat %u count %llu, "
                      "reference kind %d tl %u cat %u count %llu",
                      what, (long long)o->t0, (long long)o->t1, o->by, i, g->kind, g->timeline,
                      g->category, (unsigned long long)g->count, e->kind, e->timeline,
                      e->category, (unsigned long long)e->count);
        if (e->kind == SLOG_KIND_STATE) {
            ck_assert_msg(g->inclusive == e->inclusive && g->min == e->min && g->max == e->max,
                          "%s [%lld, %lld) row %zu (tl %u cat %u): incl %lld min %lld max %lld, "
                          "reference %lld %lld %lld",
                          what, (long long)o->t0, (long long)o->t1, i, e->timeline, e->category,
                          (long long)g->inclusive, (long long)g->min, (long long)g->max,
                          (long long)e->inclusive, (long long)e->min, (long long)e->max);
            ck_assert_msg(!f->exact_excl || g->exclusive == e->exclusive,
                          "%s [%lld, %lld) by %u row %zu (tl %u cat %u): exclusive %lld, "
                          "reference %lld",
                          what, (long long)o->t0, (long long)o->t1, o->by, i, e->timeline,
                          e->category, (long long)g->exclusive, (long long)e->exclusive);
            ck_assert(g->mean == (double)g->inclusive / (double)g->count);
        } else if (e->kind == SLOG_KIND_COUNTER) {
            ck_assert_msg(g->vmin == e->vmin && g->vmax == e->vmax &&
                              fabs(g->vsum - e->vsum) <= 1e-9 * (fabs(e->vsum) + 1.0),
                          "%s: counter row %zu: min %g max %g sum %g, reference %g %g %g", what,
                          i, g->vmin, g->vmax, g->vsum, e->vmin, e->vmax, e->vsum);
        }
    }
    slog_stats_destroy(s);
    free(ref);
}

static void compare_rows(const st_file *f, const slog_stats_options *o, const char *what)
{
    compare_with(f, f->reader, o, what);
}

/* A random window: mostly random edges (cutting states), sometimes a
 * state's own start or end. */
static void random_window(const st_file *f, tref_rng *rng, int64_t *t0, int64_t *t1)
{
    const tref_trace *t = &f->trace;
    const int64_t span = t->end - t->start + 1;
    if (tref_rng_chance(rng, 30)) {
        const tref_item *a = &t->items[tref_rng_below(rng, t->nitems)];
        const tref_item *b = &t->items[tref_rng_below(rng, t->nitems)];
        const int64_t x = tref_rng_chance(rng, 50) ? a->start : a->end;
        const int64_t y = tref_rng_chance(rng, 50) ? b->start : b->end;
        *t0 = x < y ? x : y;
        *t1 = x < y ? y : x + 1;
        return;
    }
    *t0 = t->start - span / 20 + tref_rng_range(rng, 0, span);
    const int64_t len = tref_rng_chance(rng, 50) ? tref_rng_range(rng, 1, span / 50 + 1)
                                                  : tref_rng_range(rng, 1, span);
    *t1 = *t0 + len;
}

static void random_filters(const st_file *f, tref_rng *rng, slog_stats_options *o, uint32_t *tls,
                           uint32_t *cats)
{
    const tref_trace *t = &f->trace;
    const unsigned pick = (unsigned)tref_rng_below(rng, 4);
    if (pick & 1u) {
        /* a random subset, or (as slog-query --timeline does) whole subtrees,
         * which folded previews can answer */
        const int subtrees = tref_rng_chance(rng, 50);
        const uint32_t top = (uint32_t)tref_rng_below(rng, t->ntimelines);
        o->ntimelines = 0;
        for (uint32_t i = 0; i < t->ntimelines; i++) {
            uint32_t root = i;
            while (t->parent[root] != SLOG_NO_PARENT) {
                root = t->parent[root];
            }
            if (subtrees ? root == top || root % 5 == 1 : tref_rng_chance(rng, 40)) {
                tls[o->ntimelines++] = i;
            }
        }
        o->timelines = tls;
    }
    if (pick & 2u) {
        o->ncategories = 0;
        for (uint32_t i = 0; i < t->ncategories; i++) {
            if (tref_rng_chance(rng, 50)) {
                cats[o->ncategories++] = i;
            }
        }
        o->categories = cats;
    }
    if (tref_rng_chance(rng, 20)) {
        o->kinds = 1u << tref_rng_below(rng, 4);
    }
}

/* ---- tests ---- */

START_TEST(test_stats_random_windows_match_reference)
{
    st_file f;
    st_open(&f, _i);
    tref_rng rng;
    tref_rng_seed(&rng, 0xabcdefu + (uint64_t)_i);
    uint32_t *tls = calloc(f.trace.ntimelines + 1, sizeof *tls);
    uint32_t *cats = calloc(f.trace.ncategories + 1, sizeof *cats);
    ck_assert(tls != NULL && cats != NULL);
    for (int w = 0; w < 60; w++) {
        slog_stats_options o = SLOG_STATS_OPTIONS_INIT;
        random_window(&f, &rng, &o.t0, &o.t1);
        if (w % 2) {
            random_filters(&f, &rng, &o, tls, cats);
        }
        for (uint32_t by = 1; by <= 3; by++) {
            o.by = by;
            compare_rows(&f, &o, w % 2 ? "filtered window" : "window");
        }
    }
    free(tls);
    free(cats);
    st_close(&f);
}
END_TEST

START_TEST(test_stats_whole_trace_matches_reference)
{
    st_file f;
    st_open(&f, _i);
    slog_stats_options o;
    slog_stats_options_init(&o);
    o.t0 = f.trace.start;
    o.t1 = f.trace.end + 1;
    for (uint32_t by = 0; by <= 3; by++) {
        o.by = by;
        compare_rows(&f, &o, "whole trace");
    }
    st_close(&f);
}
END_TEST

static void expect_einval(slog_reader *r, const slog_stats_options *o, const char *word)
{
    slog_stats *s = (slog_stats *)1;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    const int rc = slog_stats_compute(&s, r, o, &err);
    ck_assert_int_eq(rc, SLOG_EINVAL);
    ck_assert_int_eq(err.code, SLOG_EINVAL);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err.message, word) != NULL, "message '%s' lacks '%s'", err.message, word);
}

START_TEST(test_stats_bad_arguments_rejected)
{
    st_file f;
    st_open(&f, 1);
    slog_stats_options o = SLOG_STATS_OPTIONS_INIT;
    o.t0 = o.t1 = f.trace.start + 10;
    expect_einval(f.reader, &o, "empty");
    o.t1 = o.t0 - 5;
    expect_einval(f.reader, &o, "reversed");
    o.t1 = o.t0 + 100;
    const uint32_t bad = f.trace.ntimelines;
    o.timelines = &bad;
    o.ntimelines = 1;
    expect_einval(f.reader, &o, "timeline");
    o.timelines = NULL;
    const uint32_t badcat = f.trace.ncategories + 3;
    o.categories = &badcat;
    o.ncategories = 1;
    expect_einval(f.reader, &o, "category");
    o.categories = NULL;
    o.by = 4;
    expect_einval(f.reader, &o, "grouping");
    st_close(&f);
}
END_TEST

/* An older, smaller options struct (without the filters) still works. */
START_TEST(test_stats_older_options_struct)
{
    st_file f;
    st_open(&f, 0);
    slog_stats_options o = SLOG_STATS_OPTIONS_INIT;
    o.t0 = f.trace.start;
    o.t1 = f.trace.end + 1;
    o.kinds = 1;
    o.timelines = (const uint32_t *)8; /* beyond the old size: must be ignored */
    o.struct_size = (uint32_t)offsetof(slog_stats_options, ntimelines);
    slog_stats *s = NULL;
    ck_assert_int_eq(slog_stats_compute(&s, f.reader, &o, NULL), SLOG_OK);
    size_t n = 0;
    const slog_stats_row *rows = slog_stats_rows(s, &n);
    uint64_t states = 0;
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(rows[i].kind, SLOG_KIND_STATE);
        states += rows[i].count;
    }
    ck_assert_uint_eq(states, f.trace.count[SLOG_KIND_STATE]);
    slog_stats_destroy(s);
    st_close(&f);
}
END_TEST

/* Damaged copies (one byte flipped, at offsets all over the file): statistics
 * are either exactly the reference or an error; damage met in a node is
 * SLOG_ECORRUPT or SLOG_EIO naming the node. */
START_TEST(test_stats_damage_is_an_error_naming_the_node)
{
    st_file f;
    st_open(&f, 4);
    FILE *in = fopen(f.path, "rb");
    ck_assert_ptr_nonnull(in);
    static unsigned char bytes[8 << 20];
    const size_t size = fread(bytes, 1, sizeof bytes, in);
    fclose(in);
    ck_assert(size > 0 && size < sizeof bytes);
    char damaged[300];
    snprintf(damaged, sizeof damaged, "%s.damaged", f.path);
    slog_stats_options o = SLOG_STATS_OPTIONS_INIT;
    o.t0 = f.trace.start;
    o.t1 = f.trace.end + 1;
    int named = 0;
    for (size_t k = 1; k < 160; k++) {
        const size_t off = size * k / 160;
        bytes[off] ^= 0x5a;
        FILE *out = fopen(damaged, "wb");
        ck_assert(out != NULL && fwrite(bytes, 1, size, out) == size);
        fclose(out);
        bytes[off] ^= 0x5a;
        slog_reader *r = NULL;
        if (slog_reader_open(&r, damaged, NULL, NULL) != SLOG_OK) {
            continue;
        }
        for (uint32_t by = 1; by <= 3; by += 2) {
            o.by = by;
            slog_stats *s = NULL;
            slog_error err;
            memset(&err, 0xff, sizeof err);
            const int rc = slog_stats_compute(&s, r, &o, &err);
            if (rc == SLOG_OK) {
                slog_stats_destroy(s);
                compare_with(&f, r, &o, "damaged copy"); /* unharmed parts: exact */
                continue;
            }
            ck_assert_msg(rc == SLOG_ECORRUPT || rc == SLOG_EIO, "flip at %zu: %s", off,
                          slog_status_name(rc));
            ck_assert_int_eq(err.code, rc);
            named += strncmp(err.message, "Node ", 5) == 0;
        }
        slog_reader_destroy(r);
    }
    remove(damaged);
    ck_assert_msg(named > 0, "no flip reached a node");
    st_close(&f);
}
END_TEST

/* With few timelines and categories the root's preview is exact: whole-trace
 * statistics read it and nothing else; an 80 % window decodes under a third
 * of the nodes (the edge paths: 8 of 31 with format 3's larger leaves). */
START_TEST(test_stats_previews_answer_inside)
{
    st_file f;
    st_open(&f, 0);
    slog_stats_options o = SLOG_STATS_OPTIONS_INIT;
    o.t0 = f.trace.start;
    o.t1 = f.trace.end + 1;
    slog_stats *s = NULL;
    ck_assert_int_eq(slog_stats_compute(&s, f.reader, &o, NULL), SLOG_OK);
    slog_stats_cost c;
    slog_stats_cost_get(s, &c);
    ck_assert_uint_eq(c.previews_used, 1);
    ck_assert_uint_eq(c.nodes_decoded, 0);
    slog_stats_destroy(s);
    const int64_t span = f.trace.end - f.trace.start;
    o.t0 = f.trace.start + span / 10;
    o.t1 = f.trace.start + span / 10 * 9;
    ck_assert_int_eq(slog_stats_compute(&s, f.reader, &o, NULL), SLOG_OK);
    slog_stats_cost_get(s, &c);
    const uint64_t nodes = slog_reader_info(f.reader)->nodes;
    ck_assert_msg(c.previews_used > 0 && c.nodes_decoded * 3 < nodes,
                  "80 %% window: %llu previews, %llu of %llu nodes decoded",
                  (unsigned long long)c.previews_used, (unsigned long long)c.nodes_decoded,
                  (unsigned long long)nodes);
    slog_stats_destroy(s);
    st_close(&f);
}
END_TEST

/* Nodes decoded by statistics of [t0, t1) grouped by `by`. */
static uint64_t decoded_by(slog_reader *r, int64_t t0, int64_t t1, uint32_t by)
{
    slog_stats_options o = SLOG_STATS_OPTIONS_INIT;
    o.t0 = t0;
    o.t1 = t1;
    o.by = by;
    slog_stats *s = NULL;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    const int rc = slog_stats_compute(&s, r, &o, &err);
    ck_assert_msg(rc == SLOG_OK, "by %u: %s", by, err.message);
    slog_stats_cost c;
    slog_stats_cost_get(s, &c);
    ck_assert(c.exact_fallback == 0);
    slog_stats_destroy(s);
    return c.nodes_decoded;
}

/* 24 timelines x 60 categories fold every (row, category) preview, so
 * grouping by timeline used to decode the whole window (the whole trace:
 * every node).  With per-timeline totals it decodes O(depth) nodes: the
 * edge paths, the leaves holding the ends of the states the window cuts
 * (as grouping by category does), and beside each edge the few small
 * subtrees whose budget is below the totals' size (here levels 0-3, 16 KiB
 * leaves: a constant number of leaves per edge).  Checked: the whole trace
 * from the root's totals (0 nodes decoded, was 343), and at most 8 x depth
 * nodes per window on a tree of more than 20 x depth nodes (measured:
 * 29-63 at depth 9, against 244-340 of 346 before); grouping by both (no totals
 * per pair) still decodes most of a wide window. */
START_TEST(test_stats_by_timeline_decodes_log_n_nodes)
{
    tref_trace t;
    const tref_params p = {.seed = 0x71e5u, .timelines = 24, .states = 400000, .events = 3000,
                           .arrows = 1000, .counters = 2000, .state_categories = 60,
                           .max_depth = 5, .base = 0, .span = 1000000000, .args_percent = 0};
    ck_assert_int_eq(tref_generate(&t, &p), 0);
    char path[256];
    snprintf(path, sizeof path, "/tmp/check_stats_tl_%d.slog", (int)getpid());
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 16384;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    ck_assert_int_eq(tref_write(&t, path, &o, TR_ORDER_END, 3, true, &err), SLOG_OK);
    slog_reader *r = NULL;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    const uint64_t nodes = slog_reader_info(r)->nodes;
    const uint64_t depth = slog_reader_info(r)->depth;
    ck_assert_msg(nodes > 20 * depth, "%llu nodes, depth %llu", (unsigned long long)nodes,
                  (unsigned long long)depth);
    ck_assert_uint_le(decoded_by(r, t.start, t.end + 1, SLOG_STATS_BY_TIMELINE), 2);
    tref_rng rng;
    tref_rng_seed(&rng, 99);
    const int64_t span = t.end - t.start;
    for (int w = 0; w < 20; w++) {
        const int64_t t0 = t.start + tref_rng_range(&rng, 0, span / 4);
        const int64_t t1 = t.end - tref_rng_range(&rng, 0, span / 4);
        const uint64_t got = decoded_by(r, t0, t1, SLOG_STATS_BY_TIMELINE);
        ck_assert_msg(got <= 8 * depth, "window %d: %llu nodes decoded, depth %llu", w,
                      (unsigned long long)got, (unsigned long long)depth);
        if (w == 0) {
            const uint64_t both = decoded_by(r, t0, t1, SLOG_STATS_BY_BOTH);
            ck_assert_msg(both * 4 > nodes, "by both decoded %llu of %llu nodes",
                          (unsigned long long)both, (unsigned long long)nodes);
        }
    }
    slog_reader_destroy(r);
    remove(path);
    tref_free(&t);
}
END_TEST

/* A NaN counter sample is left out of vmin and vmax whatever the order of
 * the samples (NaN only when all are): {1, NaN, 3} and {NaN, 1, 3} gave
 * 1..3 and NaN..NaN, in statistics and in previews alike. */
static void check_nan_order(const double *v, const char *what)
{
    char p[64];
    (void)snprintf(p, sizeof p, "/tmp/check_stats_nan_%d.slog", (int)getpid());
    slog_writer *w = NULL;
    slog_error err;
    uint32_t tl, cc;
    ck_assert_int_eq(slog_writer_create(&w, p, NULL, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_COUNTER, "t", 0,
                                              &tl, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_COUNTER, "c", 0, NULL, &cc, &err),
                     SLOG_OK);
    for (int i = 0; i < 3; i++) {
        const slog_counter c = {tl, cc, 10 + i, v[i]};
        ck_assert_int_eq(slog_writer_append_counter(w, &c, &err), SLOG_OK);
    }
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);
    slog_reader *r = NULL;
    ck_assert_int_eq(slog_reader_open(&r, p, NULL, &err), SLOG_OK);
    slog_stats_options so = SLOG_STATS_OPTIONS_INIT;
    so.t0 = 0;
    so.t1 = 100;
    slog_stats *st = NULL;
    ck_assert_int_eq(slog_stats_compute(&st, r, &so, &err), SLOG_OK);
    size_t n = 0;
    const slog_stats_row *row = slog_stats_rows(st, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_msg(row->vmin == 1.0 && row->vmax == 3.0, "%s: statistics %g..%g", what, row->vmin,
                  row->vmax);
    slog_stats_destroy(st);
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.t0 = 0;
    q.t1 = 100;
    q.resolution = 1000;
    slog_query *it = NULL;
    ck_assert_int_eq(slog_query_create(&it, r, &q, &err), SLOG_OK);
    const slog_item *item;
    int summaries = 0;
    while (slog_query_next(it, &item, &err) == SLOG_OK) {
        const double lo = item->kind == SLOG_KIND_RUN ? item->u.run.vmin : item->u.preview.vmin;
        const double hi = item->kind == SLOG_KIND_RUN ? item->u.run.vmax : item->u.preview.vmax;
        if (item->kind == SLOG_KIND_RUN || item->kind == SLOG_KIND_PREVIEW) {
            summaries++;
            ck_assert_msg(lo == 1.0 && hi == 3.0, "%s: kind %d %g..%g", what, item->kind, lo, hi);
        }
    }
    ck_assert_int_gt(summaries, 0);
    slog_query_destroy(it);
    slog_reader_destroy(r);
    (void)unlink(p);
}

START_TEST(test_stats_nan_counter_samples_left_out_of_min_max)
{
    const double a[3] = {1.0, NAN, 3.0}, b[3] = {NAN, 1.0, 3.0}, c[3] = {3.0, 1.0, NAN};
    check_nan_order(a, "1, NaN, 3");
    check_nan_order(b, "NaN, 1, 3");
    check_nan_order(c, "3, 1, NaN");
}
END_TEST

static Suite *stats_suite(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("reference");
    tcase_set_timeout(tc, 240);
    tcase_add_loop_test(tc, test_stats_random_windows_match_reference, 0, NCONFIGS);
    tcase_add_loop_test(tc, test_stats_whole_trace_matches_reference, 0, NCONFIGS);
    tcase_add_test(tc, test_stats_bad_arguments_rejected);
    tcase_add_test(tc, test_stats_older_options_struct);
    tcase_add_test(tc, test_stats_damage_is_an_error_naming_the_node);
    tcase_add_test(tc, test_stats_previews_answer_inside);
    tcase_add_test(tc, test_stats_by_timeline_decodes_log_n_nodes);
    tcase_add_test(tc, test_stats_nan_counter_samples_left_out_of_min_max);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(stats_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
