/* SPDX-License-Identifier: MIT
 *
 * check_units.c - Check suite of utils/common/units and json_out: every
 * accepted spelling of durations, percentages, counts and sizes gives the
 * exact integer, every malformed one is rejected with a reason, and the
 * formatters print exact decimal text.  Table-driven (tcase_add_loop_test).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "units.h"

typedef struct dur_case {
    const char *text;
    int64_t ns;
} dur_case;

static const dur_case dur_ok[] = {
    {"0ns", 0},
    {"250ns", 250},
    {"2us", 2000},
    {"2\xc2\xb5s", 2000},
    {"1.5ms", 1500000},
    {"3s", 3000000000},
    {"0.000000001s", 1},
    {".5us", 500},
    {"1.us", 1000},
    {"1.000000000000000000000000s", 1000000000},
    {"000000000000000000000000007ns", 7},
    {"9223372036854775807ns", INT64_MAX},
    {"9223372036.854775807s", INT64_MAX},
    {"1.250000ms", 1250000},
};

static const char *const dur_bad[] = {
    "",
    "ms",
    "1",
    "1.5",
    "1.5ns",
    "0.0000000001s",
    "-1ms",
    "1 ms",
    "1mss",
    "1m",
    "1h",
    "1..5ms",
    "1.5.3ms",
    "9223372036854775808ns",
    "10000000000s",
    ".",
    "1e3ns",
    "+1ms",
    "0x10ns",
    "99999999999999999999999ns",
};

START_TEST(test_units_duration_accepts_exact_values)
{
    const dur_case *c = &dur_ok[_i];
    int64_t v = -42;
    char why[128] = "";
    ck_assert_msg(units_parse_duration(c->text, &v, why, sizeof why) == 0, "%s: %s", c->text, why);
    ck_assert_int_eq(v, c->ns);
}
END_TEST

START_TEST(test_units_duration_rejects_malformed)
{
    int64_t v = -42;
    char why[128] = "";
    ck_assert_msg(units_parse_duration(dur_bad[_i], &v, why, sizeof why) == -1, "'%s' accepted",
                  dur_bad[_i]);
    ck_assert_int_eq(v, -42);
    ck_assert_msg(why[0] != '\0', "no reason for '%s'", dur_bad[_i]);
    ck_assert_ptr_null(strchr(why, '\n'));
}
END_TEST

START_TEST(test_units_duration_reasons_name_the_problem)
{
    int64_t v;
    char why[128];
    ck_assert_int_eq(units_parse_duration("12", &v, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "missing unit"));
    ck_assert_int_eq(units_parse_duration("1.5ns", &v, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "finer than 1 ns"));
    ck_assert_int_eq(units_parse_duration("10000000000s", &v, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "too large"));
    ck_assert_int_eq(units_parse_duration("5min", &v, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "unknown unit"));
    /* user text echoed in a reason stays on one line */
    ck_assert_int_eq(units_parse_duration("1\nms", &v, why, sizeof why), -1);
    ck_assert_ptr_null(strchr(why, '\n'));
    ck_assert_ptr_nonnull(strstr(why, "1?ms"));
    /* NULL reason buffer is allowed */
    ck_assert_int_eq(units_parse_duration("5", &v, NULL, 0), -1);
}
END_TEST

typedef struct u64_case {
    const char *text;
    uint64_t v;
} u64_case;

static const u64_case pct_ok[] = {
    {"0%", 0},
    {"10%", UINT64_C(10000000000)},
    {"12.5%", UINT64_C(12500000000)},
    {"100%", UINT64_C(100000000000)},
    {"100.000%", UINT64_C(100000000000)},
    {"0.000000001%", 1},
    {"33.333333333%", UINT64_C(33333333333)},
};

static const char *const pct_bad[] = {
    "", "%", "10", "-1%", "100.000000001%", "101%", "0.0000000001%", "1%%", "a%", "1 %",
};

START_TEST(test_units_percent_accepts_exact_values)
{
    uint64_t v = 42;
    char why[128] = "";
    ck_assert_msg(units_parse_percent(pct_ok[_i].text, &v, why, sizeof why) == 0, "%s: %s",
                  pct_ok[_i].text, why);
    ck_assert_uint_eq(v, pct_ok[_i].v);
    ck_assert(units_is_percent(pct_ok[_i].text));
}
END_TEST

START_TEST(test_units_percent_rejects_malformed)
{
    uint64_t v = 42;
    char why[128] = "";
    ck_assert_msg(units_parse_percent(pct_bad[_i], &v, why, sizeof why) == -1, "'%s' accepted",
                  pct_bad[_i]);
    ck_assert_uint_eq(v, 42);
    ck_assert(why[0] != '\0');
}
END_TEST

START_TEST(test_units_percent_applies_exactly)
{
    uint64_t p;
    ck_assert_int_eq(units_parse_percent("10%", &p, NULL, 0), 0);
    ck_assert_uint_eq(units_apply_percent(1000, p), 100);
    ck_assert_uint_eq(units_apply_percent(UINT64_MAX, UNITS_PERCENT_SCALE), UINT64_MAX);
    ck_assert_int_eq(units_parse_percent("33.333333333%", &p, NULL, 0), 0);
    ck_assert_uint_eq(units_apply_percent(UINT64_C(1000000000000), p), UINT64_C(333333333330));
    ck_assert_uint_eq(units_apply_percent(7, 0), 0);
}
END_TEST

static const u64_case count_ok[] = {
    {"0", 0},
    {"100", 100},
    {"1e8", 100000000},
    {"2.5e3", 2500},
    {"1E0", 1},
    {"10M", 10000000},
    {"3k", 3000},
    {"1.5G", 1500000000},
    {"2T", UINT64_C(2000000000000)},
    {"18446744073709551615", UINT64_MAX},
    {"1000e-3", 1},
};

static const char *const count_bad[] = {
    "", "-1", "1.5", "1e-1", "1e", "10x", "18446744073709551616", "1e20", "k", "1e999999",
};

START_TEST(test_units_count_accepts)
{
    uint64_t v = 42;
    char why[128] = "";
    ck_assert_msg(units_parse_count(count_ok[_i].text, &v, why, sizeof why) == 0, "%s: %s",
                  count_ok[_i].text, why);
    ck_assert_uint_eq(v, count_ok[_i].v);
}
END_TEST

START_TEST(test_units_count_rejects)
{
    uint64_t v = 42;
    char why[128] = "";
    ck_assert_msg(units_parse_count(count_bad[_i], &v, why, sizeof why) == -1, "'%s' accepted",
                  count_bad[_i]);
    ck_assert_uint_eq(v, 42);
    ck_assert(why[0] != '\0');
}
END_TEST

static const u64_case size_ok[] = {
    {"0", 0},
    {"512", 512},
    {"512B", 512},
    {"64KiB", 65536},
    {"1.5KiB", 1536},
    {"2MiB", 2097152},
    {"1GiB", UINT64_C(1073741824)},
    {"3kB", 3000},
    {"1.5MB", 1500000},
    {"15TiB", UINT64_C(15) << 40},
};

static const char *const size_bad[] = {
    "", "-1", "1.5", "0.1KiB", "64K", "64kib", "16777216TiB", "18446744073709551616", "x",
};

START_TEST(test_units_size_accepts)
{
    uint64_t v = 42;
    char why[128] = "";
    ck_assert_msg(units_parse_size(size_ok[_i].text, &v, why, sizeof why) == 0, "%s: %s",
                  size_ok[_i].text, why);
    ck_assert_uint_eq(v, size_ok[_i].v);
}
END_TEST

START_TEST(test_units_size_rejects)
{
    uint64_t v = 42;
    char why[128] = "";
    ck_assert_msg(units_parse_size(size_bad[_i], &v, why, sizeof why) == -1, "'%s' accepted",
                  size_bad[_i]);
    ck_assert_uint_eq(v, 42);
    ck_assert(why[0] != '\0');
}
END_TEST

START_TEST(test_units_int64_ranges)
{
    int64_t v = 0;
    ck_assert_int_eq(units_parse_int64("9223372036854775807", &v, NULL, 0), 0);
    ck_assert_int_eq(v, INT64_MAX);
    ck_assert_int_eq(units_parse_int64("-9223372036854775808", &v, NULL, 0), 0);
    ck_assert_int_eq(v, INT64_MIN);
    ck_assert_int_eq(units_parse_int64("+12", &v, NULL, 0), 0);
    ck_assert_int_eq(v, 12);
    v = 5;
    ck_assert_int_eq(units_parse_int64("9223372036854775808", &v, NULL, 0), -1);
    ck_assert_int_eq(units_parse_int64("-9223372036854775809", &v, NULL, 0), -1);
    ck_assert_int_eq(units_parse_int64("12ms", &v, NULL, 0), -1);
    ck_assert_int_eq(units_parse_int64("", &v, NULL, 0), -1);
    ck_assert_int_eq(units_parse_int64("-", &v, NULL, 0), -1);
    ck_assert_int_eq(v, 5);
}
END_TEST

START_TEST(test_units_muldiv_exact_and_checked)
{
    int64_t v = 0;
    ck_assert_int_eq(units_muldiv(INT64_MAX, 1000000000, 1000000000, &v), 0);
    ck_assert_int_eq(v, INT64_MAX);
    ck_assert_int_eq(units_muldiv(7, 10, 3, &v), 0);
    ck_assert_int_eq(v, 23);
    ck_assert_int_eq(units_muldiv_ceil(7, 10, 3, &v), 0);
    ck_assert_int_eq(v, 24);
    ck_assert_int_eq(units_muldiv_ceil(9, 10, 3, &v), 0);
    ck_assert_int_eq(v, 30);
    v = 1;
    ck_assert_int_eq(units_muldiv(INT64_MAX, 2, 1, &v), -1);
    ck_assert_int_eq(units_muldiv(1, 2, 0, &v), -1);
    ck_assert_int_eq(units_muldiv(-1, 2, 1, &v), -1);
    ck_assert_int_eq(v, 1);
}
END_TEST

START_TEST(test_units_ticks_to_ns_floors)
{
    ck_assert_int_eq(units_ticks_to_ns(12345, 1000000000), 12345);
    ck_assert_int_eq(units_ticks_to_ns(3, 1000000), 3000);
    ck_assert_int_eq(units_ticks_to_ns(7, 3), 2333333333);
    ck_assert_int_eq(units_ticks_to_ns(-7, 3), -2333333334);
    ck_assert_int_eq(units_ticks_to_ns(INT64_MAX, 1000), INT64_MAX);
    ck_assert_int_eq(units_ticks_to_ns(INT64_MIN, 1000), INT64_MIN);
    ck_assert_int_eq(units_ticks_to_ns(INT64_MAX, UINT64_C(2000000000)), INT64_MAX / 2);
}
END_TEST

typedef struct fmt_case {
    int64_t ns;
    const char *text;
} fmt_case;

static const fmt_case fmt_dur[] = {
    {0, "0ns"},         {250, "250ns"},
    {1000, "1us"},      {1500, "1.5us"},
    {1500000, "1.5ms"}, {1234567, "1.234567ms"},
    {3000000000, "3s"}, {3000000001, "3.000000001s"},
    {-2000, "-2us"},    {INT64_MIN, "-9223372036.854775808s"},
};

/* Parse formatted text back; -1 when it does not parse. */
static int64_t parse_back(const char *text)
{
    int64_t back = -1;
    return units_parse_duration(text, &back, NULL, 0) == 0 ? back : -1;
}

START_TEST(test_units_format_duration_round_trips)
{
    char buf[64];
    ck_assert_str_eq(units_format_duration(fmt_dur[_i].ns, buf, sizeof buf), fmt_dur[_i].text);
    if (fmt_dur[_i].ns >= 0) {
        ck_assert_int_eq(parse_back(buf), fmt_dur[_i].ns);
    }
}
END_TEST

START_TEST(test_units_format_us3_is_exact)
{
    char buf[64];
    ck_assert_str_eq(units_format_us3(0, buf, sizeof buf), "0.000");
    ck_assert_str_eq(units_format_us3(1, buf, sizeof buf), "0.001");
    ck_assert_str_eq(units_format_us3(1500, buf, sizeof buf), "1.500");
    ck_assert_str_eq(units_format_us3(1712195495519689047, buf, sizeof buf),
                     "1712195495519689.047");
    ck_assert_str_eq(units_format_us3(-1, buf, sizeof buf), "-0.001");
    ck_assert_str_eq(units_format_us3(INT64_MIN, buf, sizeof buf), "-9223372036854775.808");
}
END_TEST

START_TEST(test_units_format_bytes)
{
    char buf[64];
    ck_assert_str_eq(units_format_bytes(0, buf, sizeof buf), "0 B");
    ck_assert_str_eq(units_format_bytes(1023, buf, sizeof buf), "1023 B");
    ck_assert_str_eq(units_format_bytes(1024, buf, sizeof buf), "1.00 KiB");
    ck_assert_str_eq(units_format_bytes(1536, buf, sizeof buf), "1.50 KiB");
    ck_assert_str_eq(units_format_bytes(3 * 1048576 + 5243, buf, sizeof buf), "3.01 MiB");
    ck_assert_str_eq(units_format_bytes(UINT64_MAX, buf, sizeof buf), "16.00 EiB");
}
END_TEST

/* Run fn(f) into a memory buffer and return the text (caller frees). */
static char *capture_string(const char *s, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    json_write_string_n(f, s, n);
    ck_assert_int_eq(fclose(f), 0);
    return text;
}

typedef struct esc_case {
    const char *in;
    size_t n;
    const char *out;
} esc_case;

static const esc_case esc[] = {
    {"plain", 5, "\"plain\""},
    {"a\"b\\c", 5, "\"a\\\"b\\\\c\""},
    {"\n\r\t\b\f", 5, "\"\\n\\r\\t\\b\\f\""},
    {"\x01\x1f\x7f", 3, "\"\\u0001\\u001f\x7f\""},
    {"nul\0x", 5, "\"nul\\u0000x\""},
    {"caf\xc3\xa9", 5, "\"caf\xc3\xa9\""},
    {"\xe2\x82\xac\xf0\x9f\x98\x80", 7, "\"\xe2\x82\xac\xf0\x9f\x98\x80\""},
    {"a\xff"
     "b",
     3,
     "\"a\xef\xbf\xbd"
     "b\""},
    {"\xc0\xaf", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\""},                 /* overlong */
    {"\xed\xa0\x80", 3, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""}, /* surrogate */
    {"\xe2\x82", 2, "\"\xef\xbf\xbd\""},                             /* truncated */
    {"\xf4\x90\x80\x80", 4,
     "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""}, /* above U+10FFFF */
    {"\xe2\x82x", 3, "\"\xef\xbf\xbdx\""},
};

START_TEST(test_json_out_escapes_and_repairs_utf8)
{
    char *text = capture_string(esc[_i].in, esc[_i].n);
    ck_assert_str_eq(text, esc[_i].out);
    free(text);
}
END_TEST

START_TEST(test_json_out_doubles_round_trip)
{
    char buf[48];
    ck_assert_str_eq(json_format_double(3.0, buf, sizeof buf), "3.0");
    ck_assert_str_eq(json_format_double(0.1, buf, sizeof buf), "0.1");
    ck_assert_str_eq(json_format_double(-2.5, buf, sizeof buf), "-2.5");
    ck_assert_str_eq(json_format_double(1e300, buf, sizeof buf), "1e+300");
    ck_assert_str_eq(json_format_double(0.0 / 0.0, buf, sizeof buf), "null");
    ck_assert_str_eq(json_format_double(1.0 / 0.0, buf, sizeof buf), "null");
    const double awkward = 0.1 + 0.2;
    ck_assert(strtod(json_format_double(awkward, buf, sizeof buf), NULL) == awkward);
}
END_TEST

START_TEST(test_json_out_writer_commas_and_nesting)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    json_writer w;
    json_writer_init(&w, f);
    json_begin_object(&w);
    json_kv_int(&w, "a", -1);
    json_kv_uint(&w, "b", UINT64_MAX);
    json_key(&w, "c");
    json_begin_array(&w);
    json_bool(&w, true);
    json_null(&w);
    json_begin_object(&w);
    json_end_object(&w);
    json_raw(&w, "[1,2]");
    json_raw(&w, "");
    json_end_array(&w);
    json_kv_string(&w, "d", "x");
    json_kv_double(&w, "e", 2.0);
    json_kv_bool(&w, "f", false);
    json_end_object(&w);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_str_eq(text, "{\"a\":-1,\"b\":18446744073709551615,\"c\":[true,null,{},[1,2],null],"
                           "\"d\":\"x\",\"e\":2.0,\"f\":false}");
    free(text);
}
END_TEST

static const char *const json_valid[] = {
    "null",
    "true",
    "false",
    "0",
    "-0",
    "1.5e-3",
    "-12E+2",
    "\"\"",
    "\"a\\u00e9\\n\"",
    "\"caf\xc3\xa9\"",
    "[]",
    "{}",
    " [1, 2.5, null, {\"k\": [true]}] ",
    "{\"a\":{\"b\":{}}}",
};

static const char *const json_invalid[] = {
    "",
    " ",
    "nul",
    "01",
    "1.",
    ".5",
    "+1",
    "1e",
    "-",
    "[1,]",
    "[1 2]",
    "{\"a\"}",
    "{a:1}",
    "{\"a\":1,}",
    "\"abc",
    "\"\\x\"",
    "\"\\u12g4\"",
    "\"\x01\"",
    "\"\xff\"",
    "[1] [2]",
    "{\"k\":[1,2.5,null]",
    "NaN",
    "\"\xed\xa0\x80\"",
};

/* Nesting is capped at 64 levels (no recursion without bound). */
START_TEST(test_json_out_is_valid_caps_nesting)
{
    char text[2 * 65 + 1];
    for (int levels = 64; levels <= 65; levels++) {
        memset(text, '[', (size_t)levels);
        memset(text + levels, ']', (size_t)levels);
        text[(size_t)levels * 2] = '\0';
        ck_assert(json_is_valid(text) == (levels == 64));
    }
}
END_TEST

START_TEST(test_json_out_is_valid_accepts)
{
    ck_assert_msg(json_is_valid(json_valid[_i]), "rejected: %s", json_valid[_i]);
}
END_TEST

START_TEST(test_json_out_is_valid_rejects)
{
    ck_assert_msg(!json_is_valid(json_invalid[_i]), "accepted: %s", json_invalid[_i]);
}
END_TEST

START_TEST(test_json_out_raw_checked_keeps_bad_text_as_string)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    json_writer w;
    json_writer_init(&w, f);
    json_begin_array(&w);
    json_raw_checked(&w, "{\"k\":[1]}");
    json_raw_checked(&w, "{oops");
    json_raw_checked(&w, NULL);
    json_end_array(&w);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_str_eq(text, "[{\"k\":[1]},\"{oops\",null]");
    free(text);
}
END_TEST

static Suite *units_suite(void)
{
    Suite *s = suite_create("units");
    TCase *tc = tcase_create("parse");
    tcase_add_loop_test(tc, test_units_duration_accepts_exact_values, 0,
                        (int)(sizeof dur_ok / sizeof dur_ok[0]));
    tcase_add_loop_test(tc, test_units_duration_rejects_malformed, 0,
                        (int)(sizeof dur_bad / sizeof dur_bad[0]));
    tcase_add_test(tc, test_units_duration_reasons_name_the_problem);
    tcase_add_loop_test(tc, test_units_percent_accepts_exact_values, 0,
                        (int)(sizeof pct_ok / sizeof pct_ok[0]));
    tcase_add_loop_test(tc, test_units_percent_rejects_malformed, 0,
                        (int)(sizeof pct_bad / sizeof pct_bad[0]));
    tcase_add_test(tc, test_units_percent_applies_exactly);
    tcase_add_loop_test(tc, test_units_count_accepts, 0,
                        (int)(sizeof count_ok / sizeof count_ok[0]));
    tcase_add_loop_test(tc, test_units_count_rejects, 0,
                        (int)(sizeof count_bad / sizeof count_bad[0]));
    tcase_add_loop_test(tc, test_units_size_accepts, 0, (int)(sizeof size_ok / sizeof size_ok[0]));
    tcase_add_loop_test(tc, test_units_size_rejects, 0,
                        (int)(sizeof size_bad / sizeof size_bad[0]));
    tcase_add_test(tc, test_units_int64_ranges);
    tcase_add_test(tc, test_units_muldiv_exact_and_checked);
    tcase_add_test(tc, test_units_ticks_to_ns_floors);
    suite_add_tcase(s, tc);

    TCase *fmt = tcase_create("format");
    tcase_add_loop_test(fmt, test_units_format_duration_round_trips, 0,
                        (int)(sizeof fmt_dur / sizeof fmt_dur[0]));
    tcase_add_test(fmt, test_units_format_us3_is_exact);
    tcase_add_test(fmt, test_units_format_bytes);
    suite_add_tcase(s, fmt);

    TCase *js = tcase_create("json_out");
    tcase_add_loop_test(js, test_json_out_escapes_and_repairs_utf8, 0,
                        (int)(sizeof esc / sizeof esc[0]));
    tcase_add_test(js, test_json_out_doubles_round_trip);
    tcase_add_test(js, test_json_out_writer_commas_and_nesting);
    tcase_add_loop_test(js, test_json_out_is_valid_accepts, 0,
                        (int)(sizeof json_valid / sizeof json_valid[0]));
    tcase_add_loop_test(js, test_json_out_is_valid_rejects, 0,
                        (int)(sizeof json_invalid / sizeof json_invalid[0]));
    tcase_add_test(js, test_json_out_raw_checked_keeps_bad_text_as_string);
    tcase_add_test(js, test_json_out_is_valid_caps_nesting);
    suite_add_tcase(s, js);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(units_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
