/* SPDX-License-Identifier: MIT
 *
 * check_chrome_time.c - Check suite of the Chrome importer's exact time
 * parsing (chrome_time.c): microsecond decimal text -> integer ns with no
 * double on the way (the last digit of "1712195495519689.047" survives),
 * exponents, signs, blanks of string values, sub-ns rounding flagged, and
 * rejection of non-numbers and int64 overflow; plus canonical integer ids.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "chrome.h"

typedef struct time_case {
    const char *text;
    int rc;
    int64_t ns;
    bool rounded;
} time_case;

static const time_case cases[] = {
    {"0", 0, 0, false},
    {"1", 0, 1000, false},
    {"1712195495519689.047", 0, 1712195495519689047, false},
    {"1712195495519689.0470000", 0, 1712195495519689047, false},
    {"4203669604595.407", 0, 4203669604595407, false},
    {"0.001", 0, 1, false},
    {"0.0004", 0, 0, true},
    {"0.0005", 0, 1, true},
    {"-0.0005", 0, -1, true},
    {"1.5", 0, 1500, false},
    {"-2.25", 0, -2250, false},
    {"+7", 0, 7000, false},
    {"  42  ", 0, 42000, false},
    {"1e3", 0, 1000000, false},
    {"1.5E-3", 0, 2, true},
    {"2.5e-1", 0, 250, false},
    {"12.", 0, 12000, false},
    {".5", 0, 500, false},
    {"000000000000000000000000123", 0, 123000, false},
    {"9223372036854775.807", 0, INT64_MAX, false},
    {"-9223372036854775.808", 0, INT64_MIN, false},
    {"1234567890123456.78912345", 0, 1234567890123456789, true},
    {"9223372036854775.808", -2, 0, false},
    {"1e20", -2, 0, false},
    {"99999999999999999999999", -2, 0, false},
    {"", -1, 0, false},
    {"abc", -1, 0, false},
    {"1.2.3", -1, 0, false},
    {"1e", -1, 0, false},
    {"-", -1, 0, false},
    {".", -1, 0, false},
    {"NaN", -1, 0, false},
    {"0x10", -1, 0, false},
};

START_TEST(test_chrome_time_parses_decimal_text_exactly)
{
    const time_case *c = &cases[_i];
    int64_t ns = -12345;
    bool rounded = !c->rounded;
    const int rc = chrome_time_parse(c->text, strlen(c->text), &ns, &rounded);
    ck_assert_msg(rc == c->rc, "%s: rc %d, want %d", c->text, rc, c->rc);
    if (c->rc == 0) {
        ck_assert_msg(ns == c->ns, "%s: %lld ns, want %lld", c->text, (long long)ns,
                      (long long)c->ns);
        ck_assert_msg(rounded == c->rounded, "%s: rounded %d", c->text, rounded);
    }
}
END_TEST

START_TEST(test_chrome_time_uses_only_the_given_length)
{
    int64_t ns = 0;
    bool rounded = false;
    ck_assert_int_eq(chrome_time_parse("12345", 2, &ns, &rounded), 0);
    ck_assert_int_eq(ns, 12000);
}
END_TEST

typedef struct canon_case {
    const char *text;
    bool ok;
    const char *out;
} canon_case;

static const canon_case canons[] = {
    {"7", true, "7"},       {"007", true, "7"},   {" 12 ", true, "12"}, {"-0", true, "0"},
    {"+5", true, "5"},      {"-15", true, "-15"}, {"0x1f", false, ""},  {"", false, ""},
    {"Traces", false, ""},  {"1.0", false, ""},   {"-", false, ""},
};

START_TEST(test_chrome_int_canon_unifies_numbers_and_strings)
{
    const canon_case *c = &canons[_i];
    char out[48] = "unchanged";
    const bool ok = chrome_int_canon(c->text, strlen(c->text), out, sizeof out);
    ck_assert_msg(ok == c->ok, "%s", c->text);
    if (ok) {
        ck_assert_str_eq(out, c->out);
    }
}
END_TEST

static Suite *chrome_time_suite(void)
{
    Suite *s = suite_create("chrome_time");
    TCase *tc = tcase_create("time");
    tcase_add_loop_test(tc, test_chrome_time_parses_decimal_text_exactly, 0,
                        (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, test_chrome_time_uses_only_the_given_length);
    tcase_add_loop_test(tc, test_chrome_int_canon_unifies_numbers_and_strings, 0,
                        (int)(sizeof canons / sizeof canons[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(chrome_time_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
