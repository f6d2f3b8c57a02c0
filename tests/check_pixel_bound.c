/* SPDX-License-Identifier: MIT
 *
 * check_pixel_bound.c - pixel-bounded output (issue 11, item 2) against a
 * brute-force reference on random traces of several shapes (few and many
 * timelines, shallow and deep nesting, events, arrows, counters), written
 * with the public writer API (trace_ref.c) and queried at 10 to 1000
 * pixels:
 *   1. the bound: at most PIXEL_BOUND_C x pixels x rows x depth levels
 *      items, rows = timelines + counter series, depth levels = deepest
 *      state depth + 1;
 *   2. merging: no two sub-pixel items (runs, or drawables lying within one
 *      pixel) share a (kind, row, pixel) cell, and every run merges at
 *      least two drawables that each lie within its pixel;
 *   3. exact totals: per category, count and inclusive time of drawables,
 *      runs (their per-category shares) and previews add up to the
 *      reference over the whole trace, and over a window without previews.
 * Uses only the public API.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_ref.h"

/* The constant of the stated bound (doc/DESIGN.md, "Pixel runs"). */
#define PIXEL_BOUND_C 4

typedef struct shape {
    uint32_t timelines, states, events, arrows, counters, cats, depth;
    uint32_t leaf_bytes, fanout;
    tref_order order;
} shape;

static const shape shapes[] = {
    {4, 20000, 2000, 0, 2000, 4, 3, 2048, 2, TR_ORDER_END},
    {300, 20000, 1000, 0, 1000, 6, 2, 1024, 4, TR_ORDER_SHUFFLED},
    {2, 20000, 500, 0, 500, 5, 12, 4096, 2, TR_ORDER_BEGIN_END},
    {16, 15000, 1000, 1000, 1000, 8, 5, 1024, 3, TR_ORDER_END},
    {1000, 10000, 1000, 0, 1000, 3, 4, 2048, 2, TR_ORDER_REVERSED},
};
#define NSHAPES ((int)(sizeof shapes / sizeof shapes[0]))
#define NSEEDS 3

typedef struct bound_file {
    tref_trace trace;
    char path[256];
    slog_reader *reader;
    uint32_t depth_levels;   /* deepest state depth + 1 */
    uint32_t series;         /* distinct (timeline, counter category) */
} bound_file;

static uint32_t count_series(const tref_trace *t)
{
    uint64_t *keys = malloc((t->nitems + 1) * sizeof *keys);
    ck_assert_ptr_nonnull(keys);
    size_t n = 0;
    for (size_t i = 0; i < t->nitems; i++) {
        if (t->items[i].kind == SLOG_KIND_COUNTER) {
            keys[n++] = (uint64_t)t->items[i].timeline << 32 | t->items[i].category;
        }
    }
    uint32_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) {
            seen = keys[j] == keys[i];
        }
        distinct += !seen;
    }
    free(keys);
    return distinct;
}

/* The bound's depth levels and counter series of f's trace. */
static void bound_measure(bound_file *f)
{
    for (size_t k = 0; k < f->trace.nitems; k++) {
        const tref_item *it = &f->trace.items[k];
        if (it->kind == SLOG_KIND_STATE && it->depth + 1 > f->depth_levels) {
            f->depth_levels = it->depth + 1;
        }
    }
    f->depth_levels = f->depth_levels ? f->depth_levels : 1;
    f->series = count_series(&f->trace);
}

static void bound_open(bound_file *f, int i)
{
    const shape *s = &shapes[i / NSEEDS];
    const tref_params p = {.seed = 0xB0u + (uint64_t)i * 104729u,
                           .timelines = s->timelines,
                           .states = s->states,
                           .events = s->events,
                           .arrows = s->arrows,
                           .counters = s->counters,
                           .state_categories = s->cats,
                           .max_depth = s->depth,
                           .base = 1000,
                           .span = 50000000,
                           .args_percent = 10};
    memset(f, 0, sizeof *f);
    ck_assert_int_eq(tref_generate(&f->trace, &p), 0);
    snprintf(f->path, sizeof f->path, "/tmp/check_pixel_bound_%d_%d.slog", i, (int)getpid());
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = s->leaf_bytes;
    o.fanout = s->fanout;
    slog_error err;
    ck_assert_int_eq(tref_write(&f->trace, f->path, &o, s->order, p.seed, true, &err), SLOG_OK);
    ck_assert_int_eq(slog_reader_open(&f->reader, f->path, NULL, &err), SLOG_OK);
    bound_measure(f);
}

static void bound_close(bound_file *f)
{
    slog_reader_destroy(f->reader);
    remove(f->path);
    tref_free(&f->trace);
}

/* ---- the reference side of merging ---- */

typedef struct cell_key {
    uint32_t kind, a, b;
    uint64_t pixel;
} cell_key;

static uint64_t pixel_of(int64_t t, int64_t t0, int64_t t1, int64_t res)
{
    const int64_t c = t < t0 ? t0 : (t >= t1 ? t1 - 1 : t);
    return (uint64_t)(c - t0) / (uint64_t)res;
}

/* Does [s, e] lie within one pixel once clipped to [t0, t1)?  Its pixel. */
static bool within_pixel(int64_t s, int64_t e, int64_t t0, int64_t t1, int64_t res, uint64_t *px)
{
    const int64_t cs = s < t0 ? t0 : s;
    const int64_t ce = e > t1 ? t1 : e;
    *px = pixel_of(cs, t0, t1, res);
    return ce <= cs || pixel_of(ce - 1, t0, t1, res) == *px;
}

static void drawable_key(const slog_item *it, cell_key *k, int64_t *s, int64_t *e, uint32_t *cat)
{
    k->kind = (uint32_t)it->kind;
    switch (it->kind) {
    case SLOG_KIND_STATE:
        k->a = it->u.state.timeline, k->b = it->u.state.depth, *cat = it->u.state.category;
        *s = it->u.state.start, *e = it->u.state.end;
        break;
    case SLOG_KIND_EVENT:
        k->a = it->u.event.timeline, k->b = 0, *cat = it->u.event.category;
        *s = *e = it->u.event.time;
        break;
    case SLOG_KIND_ARROW:
        k->a = it->u.arrow.from, k->b = it->u.arrow.to, *cat = it->u.arrow.category;
        *s = it->u.arrow.start, *e = it->u.arrow.end;
        break;
    default:
        k->a = it->u.counter.timeline, k->b = it->u.counter.category;
        *cat = it->u.counter.category;
        *s = *e = it->u.counter.time;
        break;
    }
}

static int cmp_cell(const void *x, const void *y)
{
    const cell_key *p = x, *q = y;
    if (p->kind != q->kind) {
        return p->kind < q->kind ? -1 : 1;
    }
    if (p->a != q->a) {
        return p->a < q->a ? -1 : 1;
    }
    if (p->b != q->b) {
        return p->b < q->b ? -1 : 1;
    }
    return (p->pixel > q->pixel) - (p->pixel < q->pixel);
}

/* Totals per category, and the sub-pixel cells seen. */
typedef struct tally {
    uint64_t *count;
    int64_t *incl;
    bool other[4];            /* some of this kind folded into "other" */
    cell_key *cells;
    size_t ncells;
} tally;

static void tally_init(tally *t, uint32_t ncat, size_t items)
{
    memset(t, 0, sizeof *t);
    t->count = calloc(ncat, sizeof *t->count);
    t->incl = calloc(ncat, sizeof *t->incl);
    t->cells = malloc((items + 1) * sizeof *t->cells);
    ck_assert(t->count && t->incl && t->cells);
}

static void tally_free(tally *t)
{
    free(t->count);
    free(t->incl);
    free(t->cells);
}

static void tally_result(tally *t, const tref_result *res, const slog_query_options *q)
{
    for (size_t i = 0; i < res->nkeys; i++) {
        cell_key k;
        int64_t s = 0, e = 0;
        uint32_t cat = 0;
        drawable_key(&res->items[i], &k, &s, &e, &cat);
        t->count[cat]++;
        t->incl[cat] += e - s;
        if (within_pixel(s, e, q->t0, q->t1, q->resolution, &k.pixel)) {
            t->cells[t->ncells++] = k;
        }
    }
    for (size_t i = 0; i < res->nruns; i++) {
        const slog_run *r = &res->runs[i];
        uint64_t px = 0;
        ck_assert_uint_ge(r->count, 2);
        ck_assert_msg(within_pixel(r->start, r->end, q->t0, q->t1, q->resolution, &px),
                      "a run spreads over several pixels");
        uint64_t n = 0;
        for (uint32_t c = 0; c < r->ncategories; c++) {
            t->count[r->categories[c].category] += r->categories[c].count;
            t->incl[r->categories[c].category] += r->categories[c].inclusive;
            n += r->categories[c].count;
        }
        ck_assert_uint_eq(n, r->count);
        const uint32_t b = r->of == SLOG_KIND_STATE   ? r->depth
                           : r->of == SLOG_KIND_ARROW ? r->timeline_to
                           : r->of == SLOG_KIND_EVENT ? 0
                                                      : r->category;
        t->cells[t->ncells++] = (cell_key){(uint32_t)r->of, r->timeline, b,
                                           pixel_of(r->start < q->t0 ? q->t0 : r->start, q->t0,
                                                    q->t1, q->resolution)};
    }
    for (size_t i = 0; i < res->npreviews; i++) {
        const slog_preview *p = &res->previews[i];
        if (p->category == SLOG_CATEGORY_OTHER) {
            t->other[p->of] = true;
            continue;
        }
        t->count[p->category] += p->count;
        t->incl[p->category] += p->of == SLOG_KIND_STATE || p->of == SLOG_KIND_ARROW
                                    ? p->inclusive
                                    : 0;
    }
}

/* Each sub-pixel cell holds at most one item. */
static void check_cells(tally *t)
{
    qsort(t->cells, t->ncells, sizeof *t->cells, cmp_cell);
    for (size_t i = 1; i < t->ncells; i++) {
        ck_assert_msg(cmp_cell(&t->cells[i - 1], &t->cells[i]) != 0,
                      "two items in the cell kind %u row (%u, %u) pixel %llu", t->cells[i].kind,
                      t->cells[i].a, t->cells[i].b, (unsigned long long)t->cells[i].pixel);
    }
}

/* Reference totals of the drawables overlapping [t0, t1) against the tally. */
static void check_totals(const tref_trace *tr, const tally *t, const slog_query_options *q,
                         bool exact)
{
    uint64_t *want_n = calloc(tr->ncategories, sizeof *want_n);
    int64_t *want_i = calloc(tr->ncategories, sizeof *want_i);
    ck_assert(want_n && want_i);
    for (size_t i = 0; i < tr->nitems; i++) {
        const tref_item *it = &tr->items[i];
        if (tref_overlaps(it->start, it->end, q->t0, q->t1)) {
            want_n[it->category]++;
            want_i[it->category] += it->end - it->start;
        }
    }
    for (uint32_t c = 0; c < tr->ncategories; c++) {
        if (t->other[tr->ckind[c]]) {
            continue;
        }
        if (exact) {
            ck_assert_msg(t->count[c] == want_n[c] && t->incl[c] == want_i[c],
                          "category %u: count %llu inclusive %lld, reference %llu and %lld", c,
                          (unsigned long long)t->count[c], (long long)t->incl[c],
                          (unsigned long long)want_n[c], (long long)want_i[c]);
        } else {
            ck_assert_uint_ge(t->count[c], want_n[c]); /* previews hold whole subtrees */
        }
    }
    free(want_n);
    free(want_i);
}

static double run_one(bound_file *f, int64_t t0, int64_t t1, int64_t pixels, bool whole)
{
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.t0 = t0;
    q.t1 = t1;
    q.resolution = (t1 - t0 + pixels - 1) / pixels;
    const uint64_t px = (uint64_t)((t1 - t0 + q.resolution - 1) / q.resolution);
    tref_result res;
    ck_assert_int_eq(tref_run_query(f->reader, &q, &res), SLOG_END);
    const uint64_t items = res.nkeys + res.nruns + res.npreviews;
    const uint64_t unit = px * (f->trace.ntimelines + f->series) * f->depth_levels;
    ck_assert_msg(items <= PIXEL_BOUND_C * unit,
                  "%llu items for %llu pixels x (%u timelines + %u series) x %u levels",
                  (unsigned long long)items, (unsigned long long)px, f->trace.ntimelines,
                  f->series, f->depth_levels);
    tally t;
    tally_init(&t, f->trace.ncategories, res.nkeys + res.nruns);
    tally_result(&t, &res, &q);
    check_cells(&t);
    check_totals(&f->trace, &t, &q, whole || res.npreviews == 0);
    tally_free(&t);
    tref_result_free(&res);
    return (double)items / (double)unit;
}

START_TEST(test_pixel_bound_holds_and_totals_add_up)
{
    bound_file f;
    bound_open(&f, _i);
    const tref_trace *t = &f.trace;
    tref_rng rng;
    tref_rng_seed(&rng, 77u + (uint64_t)_i);
    static const int64_t pixels[] = {10, 100, 1000};
    double worst = 0;
    for (size_t k = 0; k < sizeof pixels / sizeof pixels[0]; k++) {
        double r = run_one(&f, t->start, t->end + 1, pixels[k], true);
        worst = r > worst ? r : worst;
        for (int w = 0; w < 4; w++) {
            const int64_t span = t->end + 1 - t->start;
            const int64_t a = t->start + tref_rng_range(&rng, 0, span - 2);
            const int64_t b = a + 1 + tref_rng_range(&rng, 0, (t->end + 1 - a) / (1 + w * 10));
            r = run_one(&f, a, b, pixels[k], false);
            worst = r > worst ? r : worst;
        }
    }
    fprintf(stderr, "shape %d seed %d: items / (pixels x rows x levels) at most %.3f\n",
            _i / NSEEDS, _i % NSEEDS, worst);
    bound_close(&f);
}
END_TEST

/* The merging is real: some resolution gives runs, hence fewer items than
 * the same query without the run bit, which returns the drawables
 * themselves; the drawables returned plus those the runs merge are exactly
 * the drawables of the query without runs. */
START_TEST(test_pixel_bound_runs_replace_dense_drawables)
{
    bound_file f;
    bound_open(&f, 0);
    const tref_trace *t = &f.trace;
    static const int64_t pixels[] = {300, 1000, 3000, 10000, 30000};
    bool merged = false;
    for (size_t k = 0; k < sizeof pixels / sizeof pixels[0] && !merged; k++) {
        slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
        q.t0 = t->start;
        q.t1 = t->end + 1;
        q.resolution = (q.t1 - q.t0) / pixels[k] + 1;
        tref_result with, without;
        ck_assert_int_eq(tref_run_query(f.reader, &q, &with), SLOG_END);
        q.kinds = SLOG_KINDS_ALL & ~(1u << SLOG_KIND_RUN);
        ck_assert_int_eq(tref_run_query(f.reader, &q, &without), SLOG_END);
        ck_assert_uint_eq(without.nruns, 0);
        ck_assert_uint_eq(with.npreviews, without.npreviews);
        uint64_t merged_n = 0;
        for (size_t i = 0; i < with.nruns; i++) {
            merged_n += with.runs[i].count;
        }
        /* every drawable comes back once: as itself or inside one run */
        ck_assert_uint_eq(with.nkeys + merged_n, without.nkeys);
        merged = with.nruns > 0 && with.nkeys + with.nruns < without.nkeys;
        tref_result_free(&with);
        tref_result_free(&without);
    }
    ck_assert_msg(merged, "no resolution merged the drawables into runs");
    bound_close(&f);
}
END_TEST

/* Is a preview's box some node's box (a node's whole preview) rather than
 * a pixel summed from a node's time bins? */
static bool is_node_box(slog_reader *r, const slog_preview *p)
{
    const uint64_t nodes = slog_reader_info(r)->nodes;
    for (uint64_t i = 0; i < nodes; i++) {
        slog_node_info ni;
        ck_assert_int_eq(slog_reader_node(r, i, &ni), SLOG_OK);
        if (ni.start == p->start && ni.end == p->end) {
            return true;
        }
    }
    return false;
}

/* A short trace at 64 KiB leaves, written with time bins: few wide dense
 * leaves. */
static void bins_open(bound_file *f, uint64_t seed, const char *tag, int i)
{
    const tref_params p = {.seed = seed, .timelines = 6, .states = 40000,
                           .events = 2000, .arrows = 1000, .counters = 1000,
                           .state_categories = 12, .max_depth = 3, .base = -777,
                           .span = 80000000, .args_percent = 0};
    memset(f, 0, sizeof *f);
    ck_assert_int_eq(tref_generate(&f->trace, &p), 0);
    snprintf(f->path, sizeof f->path, "/tmp/check_pixel_%s_%d_%d.slog", tag, i, (int)getpid());
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.flags = SLOG_WRITER_TIME_BINS;
    slog_error err;
    ck_assert_int_eq(tref_write(&f->trace, f->path, &o, TR_ORDER_END, p.seed, true, &err), SLOG_OK);
    ck_assert_int_eq(slog_reader_open(&f->reader, f->path, NULL, &err), SLOG_OK);
    bound_measure(f);
}

/* Few wide dense leaves (a short trace at 64 KiB leaves): the overview
 * stands on the leaves' time bins, one preview per (row, category, pixel),
 * instead of reading their drawables; totals per kind stay exact and the
 * output pixel-bounded. */
START_TEST(test_pixel_bound_bins_stand_for_wide_leaves)
{
    bound_file f;
    bins_open(&f, 4242u + (uint64_t)_i, "bins", _i);
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.t0 = f.trace.start;
    q.t1 = f.trace.end + 1;
    q.resolution = (q.t1 - q.t0 + 199) / 200; /* leaves ~30 pixels wide */
    tref_result res;
    ck_assert_int_eq(tref_run_query(f.reader, &q, &res), SLOG_END);
    uint64_t got[4] = {0}, binned = 0;
    for (size_t i = 0; i < res.nkeys; i++) {
        got[res.items[i].kind]++;
    }
    for (size_t i = 0; i < res.nruns; i++) {
        got[res.runs[i].of] += res.runs[i].count;
    }
    for (size_t i = 0; i < res.npreviews; i++) {
        const slog_preview *v = &res.previews[i];
        got[v->of] += v->count;
        binned += !is_node_box(f.reader, v);
        ck_assert(v->start <= v->end && v->end >= q.t0 && v->start < q.t1);
    }
    for (int k = 0; k < 4; k++) {
        ck_assert_uint_eq(got[k], f.trace.count[k]);
    }
    ck_assert_msg(binned > 0, "no preview came from time bins");
    ck_assert_uint_le(res.nkeys + res.nruns + res.npreviews,
                      PIXEL_BOUND_C * 200u * (f.trace.ntimelines + 1) * 4u);
    tref_result_free(&res);
    bound_close(&f);
}
END_TEST

/* Is t some node's box start (a bin start the reader clipped to its node)? */
static bool is_node_start(slog_reader *r, int64_t t)
{
    const uint64_t nodes = slog_reader_info(r)->nodes;
    for (uint64_t i = 0; i < nodes; i++) {
        slog_node_info ni;
        ck_assert_int_eq(slog_reader_node(r, i, &ni), SLOG_OK);
        if (ni.start == t) {
            return true;
        }
    }
    return false;
}

/* The previews of a whole-trace query at `res` ticks per pixel: how many
 * were summed from time bins, and the finest bin width they show (the
 * largest power of two dividing every bin start, 0 when none). */
static uint64_t binned_previews(bound_file *f, int64_t res, uint64_t *width)
{
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.t0 = f->trace.start;
    q.t1 = f->trace.end + 1;
    q.resolution = res;
    tref_result r;
    ck_assert_int_eq(tref_run_query(f->reader, &q, &r), SLOG_END);
    uint64_t binned = 0, bits = 0; /* the lowest bit set in a start is its power of two */
    for (size_t i = 0; i < r.npreviews; i++) {
        const slog_preview *v = &r.previews[i];
        if (is_node_box(f->reader, v)) {
            continue;
        }
        binned++;
        if (!is_node_start(f->reader, v->start)) {
            bits |= (uint64_t)v->start;
        }
    }
    tref_result_free(&r);
    *width = bits & (0 - bits);
    return binned;
}

/* A leaf's bins one step coarser than a pixel (the writer raises their
 * width by powers of two to fit their budget) still stand for it: at 3/4
 * of the finest bin width, bins are 1.33 pixels wide; the overview comes
 * from them, within the bound, with exact totals. */
START_TEST(test_pixel_bound_bins_up_to_two_pixels_stand)
{
    bound_file f;
    bins_open(&f, 5151u + (uint64_t)_i, "bins2", _i);
    const int64_t span = f.trace.end + 1 - f.trace.start;
    uint64_t width = 0;
    ck_assert_uint_gt(binned_previews(&f, (span + 199) / 200, &width), 0);
    ck_assert_uint_ge(width, 4);
    const int64_t res = (int64_t)(width / 4 * 3);
    uint64_t coarse = 0;
    ck_assert_uint_gt(binned_previews(&f, res, &coarse), 0);
    ck_assert_uint_eq(coarse, width); /* the same bins, now 1.33 pixels wide */
    run_one(&f, f.trace.start, f.trace.end + 1, (span + res - 1) / res, true);
    bound_close(&f);
}
END_TEST

static Suite *pixel_bound_suite(void)
{
    Suite *s = suite_create("pixel_bound");
    TCase *tc = tcase_create("bound");
    tcase_set_timeout(tc, 240);
    tcase_add_loop_test(tc, test_pixel_bound_holds_and_totals_add_up, 0, NSHAPES * NSEEDS);
    tcase_add_test(tc, test_pixel_bound_runs_replace_dense_drawables);
    tcase_add_loop_test(tc, test_pixel_bound_bins_stand_for_wide_leaves, 0, 3);
    tcase_add_loop_test(tc, test_pixel_bound_bins_up_to_two_pixels_stand, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(pixel_bound_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
