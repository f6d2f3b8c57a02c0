/* SPDX-License-Identifier: MIT
 *
 * check_format_nest.c - the node-local children-time rule of
 * node_format_nest.c against a plain reference (a linear list of
 * accumulators) on random states whose timelines and depths fall on both
 * sides of the dense table's bounds (FMT_NEST_DENSE_TL, FMT_NEST_DEPTHS),
 * with resets in between, as the writer and the decoder run it.
 * Uses libslog's internal headers (layer 3).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "node_format_nest.h"

#define NSTATES 6000

typedef struct ref_acc {
    uint32_t timeline;
    uint64_t depth;
    uint64_t sum;
    int64_t lo, hi;
} ref_acc;

typedef struct ref {
    ref_acc v[NSTATES + 1];
    size_t n;
} ref;

static ref_acc *ref_find(ref *r, uint32_t timeline, uint64_t depth, int create)
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->v[i].timeline == timeline && r->v[i].depth == depth) {
            return &r->v[i];
        }
    }
    if (!create) {
        return NULL;
    }
    r->v[r->n] = (ref_acc){timeline, depth, 0, 0, 0};
    return &r->v[r->n++];
}

/* The rule of node_format_nest.h, written out plainly. */
static uint64_t ref_next(ref *r, uint32_t timeline, uint32_t depth, int64_t start, int64_t end)
{
    uint64_t children = 0;
    ref_acc *const k = ref_find(r, timeline, (uint64_t)depth + 1, 0);
    if (k != NULL) {
        if (k->sum != 0 && k->lo >= start && k->hi <= end) {
            children = k->sum;
        }
        k->sum = 0;
    }
    ref_acc *const s = ref_find(r, timeline, depth, 1);
    if (s->sum == 0) {
        s->lo = start;
        s->hi = end;
    }
    s->sum += (uint64_t)end - (uint64_t)start;
    s->lo = start < s->lo ? start : s->lo;
    s->hi = end > s->hi ? end : s->hi;
    return children;
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Nested calls on 16 timelines (0..7 and 250..257: the dense bound is
 * 256) up to depth 24 (the dense bound is 16), emitted as they end. */
START_TEST(test_format_nest_matches_reference_across_bounds)
{
    static ref r;
    static int64_t stack[16][25];
    uint32_t depth[16] = {0};
    uint64_t rng = 77 + (uint64_t)_i;
    fmt_nest n;
    fmt_nest_init(&n);
    r.n = 0;
    int64_t t = 0;
    uint64_t nonzero = 0;
    for (int i = 0; i < NSTATES;) {
        const uint64_t x = rng_next(&rng);
        const uint32_t k = (uint32_t)(x % 16);
        const uint32_t tl = k < 8 ? k : 242 + k;
        t += 1 + (int64_t)((x >> 8) % 5);
        if (depth[k] == 0 || (depth[k] < 24 && ((x >> 16) & 1))) {
            stack[k][depth[k]++] = t;
            continue;
        }
        const uint32_t d = --depth[k];
        if ((x >> 20) % 900 == 0) { /* a node closes */
            fmt_nest_reset(&n);
            r.n = 0;
        }
        ck_assert_int_eq(fmt_nest_reserve(&n, 1, tl), 0);
        const uint64_t got = fmt_nest_next(&n, tl, d, stack[k][d], t);
        const uint64_t want = ref_next(&r, tl, d, stack[k][d], t);
        ck_assert_uint_eq(got, want);
        nonzero += want != 0;
        i++;
    }
    ck_assert_uint_gt(nonzero, NSTATES / 4); /* the rule found children, not only zeros */
    fmt_nest_free(&n);
}
END_TEST

static Suite *nest_suite(void)
{
    Suite *const s = suite_create("format_nest");
    TCase *const tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_format_nest_matches_reference_across_bounds, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *const sr = srunner_create(nest_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
