/* SPDX-License-Identifier: MIT
 *
 * check_node_cache.c - the reader's LRU of decoded blobs: lookups after
 * many insertions and evictions (hash with backward-shift deletion), the
 * byte budget, least-recently-used order and pinning.
 */
#include "node_cache.h"
#include "util_alloc.h"

#include <check.h>
#include <stdlib.h>

static cache_entry *entry(uint64_t key, size_t bytes)
{
    cache_entry *const e = util_calloc(1, sizeof *e);
    e->key = key;
    e->bytes = bytes;
    return e;
}

START_TEST(test_node_cache_keeps_budget_and_finds_survivors)
{
    node_cache c;
    node_cache_init(&c, 100 * 10);
    for (uint64_t k = 0; k < 5000; k++) {
        ck_assert_int_eq(node_cache_put(&c, entry(k * 65536, 10)), 0);
        node_cache_unpin(node_cache_get(&c, k * 65536)); /* the put's pin */
        node_cache_unpin(c.head);
    }
    ck_assert_uint_le(c.bytes, 1000);
    ck_assert_uint_eq(c.n, 100);
    for (uint64_t k = 0; k < 4900; k++) {
        ck_assert_ptr_null(node_cache_get(&c, k * 65536));
    }
    for (uint64_t k = 4900; k < 5000; k++) {
        cache_entry *const e = node_cache_get(&c, k * 65536);
        ck_assert_ptr_nonnull(e);
        ck_assert_uint_eq(e->key, k * 65536);
        node_cache_unpin(e);
    }
    node_cache_free(&c);
}
END_TEST

START_TEST(test_node_cache_evicts_least_recently_used_and_never_pinned)
{
    node_cache c;
    node_cache_init(&c, 30);
    cache_entry *const pinned = entry(1, 10);
    ck_assert_int_eq(node_cache_put(&c, pinned), 0); /* stays pinned */
    ck_assert_int_eq(node_cache_put(&c, entry(2, 10)), 0);
    node_cache_unpin(node_cache_get(&c, 2));
    node_cache_unpin(c.head);
    ck_assert_int_eq(node_cache_put(&c, entry(3, 10)), 0);
    node_cache_unpin(node_cache_get(&c, 3));
    node_cache_unpin(c.head);
    node_cache_unpin(node_cache_get(&c, 2)); /* 2 is now more recent than 3 */
    ck_assert_int_eq(node_cache_put(&c, entry(4, 10)), 0); /* over budget: 3 goes */
    ck_assert_ptr_null(node_cache_get(&c, 3));
    cache_entry *const two = node_cache_get(&c, 2);
    ck_assert_ptr_nonnull(two);
    node_cache_unpin(two);
    ck_assert_ptr_eq(node_cache_get(&c, 1), pinned);
    node_cache_unpin(pinned);
    node_cache_unpin(pinned);
    node_cache_free(&c);
}
END_TEST

int main(void)
{
    Suite *const s = suite_create("node_cache");
    TCase *const tc = tcase_create("node_cache");
    tcase_add_test(tc, test_node_cache_keeps_budget_and_finds_survivors);
    tcase_add_test(tc, test_node_cache_evicts_least_recently_used_and_never_pinned);
    suite_add_tcase(s, tc);
    SRunner *const sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
