/* SPDX-License-Identifier: MIT
 *
 * check_slab.c - the decoded-node slab (util_slab.h): blocks are zeroed,
 * large enough and distinct; a freed block is handed out again (zeroed);
 * mapped bytes stay within the limit, and past it blocks come from
 * util_calloc; small blocks and a NULL slab use util_calloc too.
 */
#include "util_slab.h"

#include <check.h>
#include <stdint.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define CHECK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CHECK_ASAN 1
#endif
#endif
#ifdef CHECK_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define MIB ((size_t)1 << 20)

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != 0) {
            return 0;
        }
    }
    return 1;
}

START_TEST(test_slab_blocks_are_zeroed_distinct_and_reused)
{
    util_slab s;
    util_slab_init(&s, 64 * MIB);
    enum { N = 200 };
    unsigned char *p[N];
    size_t cap[N];
    for (size_t i = 0; i < N; i++) {
        const size_t want = 3100 + i * 997;
        p[i] = util_slab_alloc(&s, want, &cap[i]);
        ck_assert_ptr_nonnull(p[i]);
        ck_assert_uint_ge(cap[i], want);
        ck_assert_uint_le(cap[i], want + want / 2 + 4096); /* classes a half power of 2 apart */
        ck_assert(all_zero(p[i], want));
        ck_assert_uint_eq((uintptr_t)p[i] % 16, 0);
        memset(p[i], 0xA5, want); /* overlapping blocks would clobber each other */
    }
    for (size_t i = 0; i < N; i++) {
        const size_t want = 3100 + i * 997;
        size_t k = 0;
        while (k < want && p[i][k] == 0xA5) {
            k++;
        }
        ck_assert_uint_eq(k, want);
    }
    ck_assert_uint_gt(s.nchunks, 0);
    const size_t chunks = s.nchunks;
    unsigned char *const first = p[7];
    const size_t first_cap = cap[7];
    util_slab_free(&s, p[7], cap[7]);
    size_t again = 0;
    unsigned char *const q = util_slab_alloc(&s, 3100 + 7 * 997, &again);
    ck_assert_ptr_eq(q, first); /* the freed block of that class */
    ck_assert_uint_eq(again, first_cap);
    ck_assert(all_zero(q, 3100 + 7 * 997));
    for (size_t i = 0; i < N; i++) {
        util_slab_free(&s, i == 7 ? q : p[i], cap[i]);
    }
    for (size_t i = 0; i < N; i++) { /* the same sizes again: no new chunk */
        p[i] = util_slab_alloc(&s, 3100 + i * 997, &cap[i]);
        ck_assert(all_zero(p[i], 3100 + i * 997));
    }
    ck_assert_uint_eq(s.nchunks, chunks);
    for (size_t i = 0; i < N; i++) {
        util_slab_free(&s, p[i], cap[i]);
    }
    util_slab_release(&s);
    ck_assert_uint_eq(s.nchunks, 0);
}
END_TEST

START_TEST(test_slab_limit_and_small_blocks_fall_back)
{
    util_slab s;
    util_slab_init(&s, 4 * MIB); /* two chunks */
    enum { N = 12 };
    void *p[N];
    size_t cap[N];
    for (size_t i = 0; i < N; i++) {
        p[i] = util_slab_alloc(&s, MIB, &cap[i]);
        ck_assert_ptr_nonnull(p[i]);
        ck_assert(all_zero(p[i], MIB));
    }
    ck_assert_uint_le(s.nchunks * 2 * MIB, 4 * MIB);
    ck_assert_uint_eq(cap[0], MIB);
    ck_assert_uint_eq(cap[N - 1], 0); /* past the limit: util_calloc */
    for (size_t i = 0; i < N; i++) {
        util_slab_free(&s, p[i], cap[i]);
    }
    size_t c = 1;
    void *const small = util_slab_alloc(&s, 100, &c);
    ck_assert_ptr_nonnull(small);
    ck_assert_uint_eq(c, 0);
    util_slab_free(&s, small, c);
    void *const big = util_slab_alloc(&s, 3 * MIB, &c); /* above the largest class */
    ck_assert_ptr_nonnull(big);
    ck_assert_uint_eq(c, 0);
    util_slab_free(&s, big, c);
    void *const none = util_slab_alloc(NULL, 10000, &c);
    ck_assert_ptr_nonnull(none);
    ck_assert_uint_eq(c, 0);
    util_slab_free(NULL, none, c);
    util_slab_release(&s);
}
END_TEST

#ifdef CHECK_ASAN
/* Under AddressSanitizer (only built there): a block's slack and a freed
 * block are poisoned. */
START_TEST(test_slab_poisons_what_is_not_handed_out)
{
    util_slab s;
    util_slab_init(&s, 8 * MIB);
    size_t cap = 0;
    unsigned char *const p = util_slab_alloc(&s, 5000, &cap);
    ck_assert_uint_eq(cap, 6144);
    ck_assert(!__asan_address_is_poisoned(p + 4999));
    ck_assert(__asan_address_is_poisoned(p + 5000 + 8));
    util_slab_free(&s, p, cap);
    ck_assert(__asan_address_is_poisoned(p + 100));
    util_slab_release(&s);
}
END_TEST
#endif

int main(void)
{
    Suite *const s = suite_create("slab");
    TCase *const tc = tcase_create("slab");
    tcase_add_test(tc, test_slab_blocks_are_zeroed_distinct_and_reused);
    tcase_add_test(tc, test_slab_limit_and_small_blocks_fall_back);
#ifdef CHECK_ASAN
    tcase_add_test(tc, test_slab_poisons_what_is_not_handed_out);
#endif
    suite_add_tcase(s, tc);
    SRunner *const r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    const int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed == 0 ? 0 : 1;
}
