/* SPDX-License-Identifier: MIT
 *
 * check_tree_leafsum.c - the leaf totals of tree_leafsum.c: replayed into a
 * summary (by category or by timeline, at several fold levels), they give
 * the same table and the same encoded preview blob as adding the states one
 * by one, including when the number of keys sits at a table growth
 * threshold and when sums saturate; a key beyond the table's cap or a
 * negative exclusive time turns it off until the next reset.
 * Uses libslog's internal headers (layer 4).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tree_leafsum.h"
#include "util_buf.h"

#define NTL 100
#define NCAT 30
#define MAXSTATES 4000

static uint32_t parent[NTL], root[NTL];

static pv_fold_ctx make_ctx(void)
{
    for (uint32_t i = 0; i < NTL; i++) {
        parent[i] = i < 20 ? SLOG_NO_PARENT : i % 20; /* 20 processes, 80 threads */
        root[i] = i < 20 ? i : i % 20;
    }
    return (pv_fold_ctx){parent, root, NTL};
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* States over `keys` distinct (timeline, category) keys, each seen at
 * least once, first appearing in order 0..keys-1; the last state repeats
 * key 0 when repeat_last, else is the first of the last key.  Returns n. */
static size_t make_states(fmt_state_rec *v, size_t cap, uint64_t seed, size_t keys,
                          int repeat_last)
{
    uint64_t rng = seed;
    uint32_t tl[NTL * 8], cat[NTL * 8];
    for (size_t k = 0; k < keys; k++) {
        tl[k] = (uint32_t)(k % NTL); /* keys / NTL <= 7 < NCAT: a free category exists */
        cat[k] = (uint32_t)(rng_next(&rng) % NCAT);
        for (size_t j = 0; j < k; j++) {
            if (tl[j] == tl[k] && cat[j] == cat[k]) {
                cat[k] = (cat[k] + 1) % NCAT;
                j = (size_t)-1; /* start over */
            }
        }
    }
    const size_t needed = repeat_last ? keys : keys - 1; /* seen before the last state */
    const size_t total = keys + rng_next(&rng) % 400;
    size_t n = 0, seen = 0;
    int64_t t = 1000;
    while (n + 1 < cap && (seen < needed || (seen > 0 && n + 1 < total))) {
        size_t k;
        if (seen < needed && (seen == 0 || rng_next(&rng) % 2 == 0)) {
            k = seen++;
        } else {
            k = rng_next(&rng) % seen;
        }
        const int64_t dur = (int64_t)(rng_next(&rng) % 5000);
        v[n++] = (fmt_state_rec){.start = t, .end = t + dur, .excl = dur / 3, .timeline = tl[k],
                                 .category = cat[k]};
        t += 7;
    }
    ck_assert_uint_eq(seen, needed);
    const size_t k = repeat_last ? 0 : keys - 1;
    v[n++] = (fmt_state_rec){.start = t, .end = t + 10, .excl = 4, .timeline = tl[k],
                             .category = cat[k]};
    return n;
}

static void check_same(const fmt_state_rec *v, size_t n, uint32_t fold, int by_timeline)
{
    const pv_fold_ctx ctx = make_ctx();
    pv_summary one, all;
    pv_init(&one);
    pv_init(&all);
    one.fold = all.fold = fold;
    tree_leafsum ls;
    tree_leafsum_init(&ls);
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(pv_add_state(&one, &ctx, v[i].timeline, by_timeline ? 0 : v[i].category,
                                      v[i].end - v[i].start, v[i].excl),
                         0);
        tree_leafsum_add_state(&ls, &v[i]);
    }
    ck_assert(tree_leafsum_on(&ls));
    ck_assert_int_eq(tree_leafsum_apply(&ls, &all, &ctx, by_timeline), 0);
    ck_assert_uint_eq(one.used, all.used);
    ck_assert_uint_eq(one.cap, all.cap);
    util_buf a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    ck_assert_int_eq(pv_encode(&one, &a), 0);
    ck_assert_int_eq(pv_encode(&all, &b), 0);
    ck_assert_uint_eq(a.len, b.len);
    ck_assert_int_eq(memcmp(a.data, b.data, a.len), 0);
    util_buf_free(&a);
    util_buf_free(&b);
    pv_free(&one);
    pv_free(&all);
    tree_leafsum_free(&ls);
}

/* 44 and 89 keys reach the growth thresholds of 64 and 128 slots. */
START_TEST(test_tree_leafsum_replay_gives_same_blob)
{
    static const size_t keys[] = {1, 2, 43, 44, 45, 88, 89, 90, 300, 700};
    fmt_state_rec *const v = malloc(MAXSTATES * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        for (int repeat = 0; repeat < 2; repeat++) {
            const size_t n = make_states(v, MAXSTATES, (uint64_t)_i * 1000 + k, keys[k], repeat);
            for (uint32_t fold = 0; fold < 4; fold++) {
                check_same(v, n, fold, 0);
                check_same(v, n, fold, 1);
            }
        }
    }
    free(v);
}
END_TEST

/* Sums past INT64_MAX saturate (util_sat.h): replayed cells saturate the
 * same, at every fold level; a negative exclusive time turns the table off
 * (saturating sums of mixed signs depend on their order). */
START_TEST(test_tree_leafsum_saturating_sums_replay_same)
{
    fmt_state_rec v[64];
    const int64_t big = INT64_C(3) << 61; /* three of them pass INT64_MAX */
    for (size_t i = 0; i < 64; i++) {
        const int64_t dur = i % 3 == 0 ? big : (int64_t)i;
        v[i] = (fmt_state_rec){.start = 0, .end = dur, .excl = dur / 2,
                               .timeline = (uint32_t)(i % 5), .category = (uint32_t)(i % 2)};
    }
    for (uint32_t fold = 0; fold < 6; fold++) {
        check_same(v, 64, fold, 0);
        check_same(v, 64, fold, 1);
    }
    tree_leafsum ls;
    tree_leafsum_init(&ls);
    tree_leafsum_add_state(&ls, &v[1]);
    const fmt_state_rec neg = {.start = 0, .end = 10, .excl = -3, .timeline = 1};
    tree_leafsum_add_state(&ls, &neg);
    ck_assert(!tree_leafsum_on(&ls));
    tree_leafsum_free(&ls);
}
END_TEST

START_TEST(test_tree_leafsum_off_beyond_cap_until_reset)
{
    tree_leafsum ls;
    tree_leafsum_init(&ls);
    const fmt_state_rec a = {.start = 0, .end = 5, .excl = 5, .timeline = 3, .category = 1};
    const fmt_state_rec far = {.start = 0, .end = 5, .excl = 5, .timeline = 100000};
    tree_leafsum_add_state(&ls, &a);
    ck_assert(tree_leafsum_on(&ls));
    tree_leafsum_add_state(&ls, &far);
    ck_assert(!tree_leafsum_on(&ls));
    tree_leafsum_add_state(&ls, &a);
    ck_assert(!tree_leafsum_on(&ls));
    tree_leafsum_reset(&ls);
    ck_assert(tree_leafsum_on(&ls));
    ck_assert_uint_eq(ls.nkeys, 0);
    tree_leafsum_add_state(&ls, &a);
    ck_assert_uint_eq(ls.nkeys, 1);
    ck_assert_uint_eq(ls.cells[3 * ls.cat_dim + 1].count, 1);
    tree_leafsum_free(&ls);
}
END_TEST

static Suite *leafsum_suite(void)
{
    Suite *const s = suite_create("tree_leafsum");
    TCase *const tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_tree_leafsum_replay_gives_same_blob, 0, 4);
    tcase_add_test(tc, test_tree_leafsum_saturating_sums_replay_same);
    tcase_add_test(tc, test_tree_leafsum_off_beyond_cap_until_reset);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *const sr = srunner_create(leafsum_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
