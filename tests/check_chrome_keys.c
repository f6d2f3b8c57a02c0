/* SPDX-License-Identifier: MIT
 *
 * check_chrome_keys.c - Check suite of the Chrome importer's key ids
 * (chrome_keys.c): equal ids exactly when the mapper's string keys are
 * equal - same input and same text, an absent field differing from "",
 * no confusion across the field boundary - dense ids from 1, stable while
 * the tables grow, none (0) past the cap, and the parser's length hints
 * giving the ids strlen gives.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "chrome.h"

static chrome_event record(uint32_t input, const char *pid, const char *tid, const char *name,
                           const char *cat)
{
    chrome_event ev;
    memset(&ev, 0, sizeof ev);
    ev.input = input;
    ev.pid = pid;
    ev.tid = tid;
    ev.name = name;
    ev.cat = cat;
    return ev;
}

/* The thread_key and name_key of a record. */
static void ids(chrome_keys *k, chrome_event ev, uint32_t *thread, uint32_t *name)
{
    ck_assert_int_eq(chrome_keys_assign(k, &ev), 0);
    *thread = ev.thread_key;
    *name = ev.name_key;
}

START_TEST(test_chrome_keys_equal_text_equal_ids)
{
    chrome_keys *k = chrome_keys_create();
    ck_assert_ptr_nonnull(k);
    char pid[] = "1000", tid[] = "7", name[] = "aten::mm", cat[] = "cpu_op";
    uint32_t t1, n1, t2, n2;
    ids(k, record(0, "1000", "7", "aten::mm", "cpu_op"), &t1, &n1);
    ids(k, record(0, pid, tid, name, cat), &t2, &n2); /* other pointers, same text */
    ck_assert_uint_eq(t1, 1);
    ck_assert_uint_eq(n1, 1);
    ck_assert_uint_eq(t2, t1);
    ck_assert_uint_eq(n2, n1);
    chrome_keys_destroy(k);
}
END_TEST

/* The parser's length hints (strlen + 1, 0 = none) give the ids that
 * strlen gives, and a string too long for a hint still works. */
START_TEST(test_chrome_keys_length_hints_same_ids)
{
    chrome_keys *k = chrome_keys_create();
    ck_assert_ptr_nonnull(k);
    char longname[400];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    uint32_t t1, n1, t2, n2, t3, n3, t4, n4;
    ids(k, record(3, "42", "", "step", "cat"), &t1, &n1);
    chrome_event hinted = record(3, "42", "", "step", "cat");
    hinted.len1_pid = 3;
    hinted.len1_tid = 1;
    hinted.len1_name = 5;
    hinted.len1_cat = 4;
    ids(k, hinted, &t2, &n2);
    ck_assert_uint_eq(t2, t1);
    ck_assert_uint_eq(n2, n1);
    ids(k, record(3, "42", "", longname, "cat"), &t3, &n3);
    chrome_event hinted_long = record(3, "42", "", longname, "cat"); /* no hint: 0 */
    hinted_long.len1_pid = 3;
    ids(k, hinted_long, &t4, &n4);
    ck_assert_uint_eq(t4, t3);
    ck_assert_uint_eq(n4, n3);
    ck_assert_uint_ne(n3, n1);
    chrome_keys_destroy(k);
}
END_TEST

START_TEST(test_chrome_keys_absent_differs_from_empty)
{
    chrome_keys *k = chrome_keys_create();
    ck_assert_ptr_nonnull(k);
    uint32_t t[4], n[4];
    ids(k, record(0, "1", NULL, NULL, NULL), &t[0], &n[0]);
    ids(k, record(0, "1", "", "", NULL), &t[1], &n[1]);
    ids(k, record(0, "1", NULL, NULL, ""), &t[2], &n[2]);
    ids(k, record(0, NULL, "1", "", ""), &t[3], &n[3]);
    ck_assert_uint_ne(t[0], t[1]);
    ck_assert_uint_eq(t[0], t[2]);
    ck_assert_uint_ne(t[3], t[0]);
    ck_assert_uint_ne(t[3], t[1]);
    ck_assert_uint_ne(n[0], n[1]);
    ck_assert_uint_ne(n[0], n[2]);
    ck_assert_uint_ne(n[1], n[2]);
    ck_assert_uint_ne(n[3], n[0]);
    ck_assert_uint_ne(n[3], n[1]);
    ck_assert_uint_ne(n[3], n[2]);
    chrome_keys_destroy(k);
}
END_TEST

START_TEST(test_chrome_keys_field_boundary_and_input_count)
{
    chrome_keys *k = chrome_keys_create();
    ck_assert_ptr_nonnull(k);
    uint32_t t1, n1, t2, n2, t3, n3;
    ids(k, record(0, "ab", "c", "ab", "c"), &t1, &n1);
    ids(k, record(0, "a", "bc", "a", "bc"), &t2, &n2);
    ids(k, record(1, "ab", "c", "ab", "c"), &t3, &n3);
    ck_assert_uint_ne(t1, t2);
    ck_assert_uint_ne(n1, n2);
    ck_assert_uint_ne(t1, t3); /* another input: another thread */
    ck_assert_uint_eq(n1, n3); /* names do not depend on the input */
    chrome_keys_destroy(k);
}
END_TEST

START_TEST(test_chrome_keys_dense_and_stable_while_growing)
{
    chrome_keys *k = chrome_keys_create();
    ck_assert_ptr_nonnull(k);
    char a[32], b[32];
    for (uint32_t i = 0; i < 20000; i++) {
        (void)snprintf(a, sizeof a, "p%u", i % 97);
        (void)snprintf(b, sizeof b, "thread name %u", i);
        uint32_t t, n;
        ids(k, record(0, a, b, b, a), &t, &n);
        ck_assert_uint_eq(t, i + 1);
        ck_assert_uint_eq(n, i + 1);
    }
    for (uint32_t i = 0; i < 20000; i += 7) {
        (void)snprintf(a, sizeof a, "p%u", i % 97);
        (void)snprintf(b, sizeof b, "thread name %u", i);
        uint32_t t, n;
        ids(k, record(0, a, b, b, a), &t, &n);
        ck_assert_uint_eq(t, i + 1);
        ck_assert_uint_eq(n, i + 1);
    }
    chrome_keys_destroy(k);
}
END_TEST

START_TEST(test_chrome_keys_none_past_the_cap)
{
    chrome_keys *k = chrome_keys_create();
    ck_assert_ptr_nonnull(k);
    char a[32];
    uint32_t t = 0, n = 0;
    for (uint32_t i = 0; i <= (1u << 20); i++) {
        (void)snprintf(a, sizeof a, "%u", i);
        ids(k, record(0, "1", a, a, NULL), &t, &n);
    }
    ck_assert_uint_eq(t, 0); /* the (2^20 + 1)th: none, the strings decide */
    ck_assert_uint_eq(n, 0);
    ids(k, record(0, "1", "5", "5", NULL), &t, &n);
    ck_assert_uint_eq(t, 6); /* known ones keep theirs */
    ck_assert_uint_eq(n, 6);
    chrome_keys_destroy(k);
}
END_TEST

static Suite *chrome_keys_suite(void)
{
    Suite *s = suite_create("chrome_keys");
    TCase *tc = tcase_create("keys");
    tcase_add_test(tc, test_chrome_keys_equal_text_equal_ids);
    tcase_add_test(tc, test_chrome_keys_absent_differs_from_empty);
    tcase_add_test(tc, test_chrome_keys_length_hints_same_ids);
    tcase_add_test(tc, test_chrome_keys_field_boundary_and_input_count);
    tcase_add_test(tc, test_chrome_keys_dense_and_stable_while_growing);
    tcase_add_test(tc, test_chrome_keys_none_past_the_cap);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(chrome_keys_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
