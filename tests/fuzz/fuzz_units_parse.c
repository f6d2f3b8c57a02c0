/* SPDX-License-Identifier: MIT
 *
 * fuzz_units_parse.c - libFuzzer target for the command-line number parsers
 * and the JSON string writer of utils/common (units.c, json_out.c), which
 * take text straight from users and files.  Every parser must accept or
 * reject without reading past the text; what is accepted must satisfy its
 * contract: a duration formats and parses back to the same value, a
 * percentage is at most 100%, a count or size re-parses from its decimal
 * text; the JSON writer's output is a quoted string with no raw control
 * byte and only valid UTF-8, whatever the input bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            (void)fprintf(stderr, "fuzz_units_parse: %s failed\n", #cond);                         \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static void check_duration(const char *text)
{
    char why[128];
    int64_t ns = -1;
    if (units_parse_duration(text, &ns, why, sizeof why) != 0) {
        CHECK(why[0] != '\0' && strchr(why, '\n') == NULL);
        return;
    }
    CHECK(ns >= 0);
    char buf[64];
    int64_t back = -1;
    CHECK(units_parse_duration(units_format_duration(ns, buf, sizeof buf), &back, NULL, 0) == 0);
    CHECK(back == ns);
    char us[64];
    (void)units_format_us3(ns, us, sizeof us);
    CHECK(strchr(us, '.') != NULL && strlen(strchr(us, '.')) == 4);
}

static void check_numbers(const char *text)
{
    uint64_t v = 0;
    if (units_parse_percent(text, &v, NULL, 0) == 0) {
        CHECK(v <= UNITS_PERCENT_SCALE);
        CHECK(units_apply_percent(UINT64_MAX, v) <= UINT64_MAX);
    }
    char dec[32];
    uint64_t back = 0;
    if (units_parse_count(text, &v, NULL, 0) == 0) {
        (void)snprintf(dec, sizeof dec, "%llu", (unsigned long long)v);
        CHECK(units_parse_count(dec, &back, NULL, 0) == 0 && back == v);
    }
    if (units_parse_size(text, &v, NULL, 0) == 0) {
        (void)snprintf(dec, sizeof dec, "%llu", (unsigned long long)v);
        CHECK(units_parse_size(dec, &back, NULL, 0) == 0 && back == v);
    }
    int64_t i = 0;
    if (units_parse_int64(text, &i, NULL, 0) == 0) {
        (void)snprintf(dec, sizeof dec, "%lld", (long long)i);
        int64_t j = 0;
        CHECK(units_parse_int64(dec, &j, NULL, 0) == 0 && j == i);
    }
}

/* Independent strict UTF-8 check (RFC 3629), no raw byte below 0x20. */
static int valid_json_text(const unsigned char *s, size_t n)
{
    size_t k = 0;
    while (k < n) {
        const unsigned char c = s[k];
        size_t len = c < 0x80                 ? 1
                     : c >= 0xc2 && c <= 0xdf ? 2
                     : c >= 0xe0 && c <= 0xef ? 3
                     : c >= 0xf0 && c <= 0xf4 ? 4
                                              : 0;
        if (len == 0 || c < 0x20 || k + len > n) {
            return 0;
        }
        uint32_t cp = len == 1 ? c : (uint32_t)(c & (0x7f >> len));
        for (size_t m = 1; m < len; m++) {
            if ((s[k + m] & 0xc0) != 0x80) {
                return 0;
            }
            cp = cp << 6 | (s[k + m] & 0x3f);
        }
        static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min_cp[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            return 0;
        }
        k += len;
    }
    return 1;
}

static void check_json_string(const uint8_t *data, size_t size)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (f == NULL) {
        return;
    }
    json_write_string_n(f, (const char *)data, size);
    CHECK(fclose(f) == 0);
    CHECK(len >= 2 && out[0] == '"' && out[len - 1] == '"');
    CHECK(valid_json_text((const unsigned char *)out, len));
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL) {
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    check_duration(text);
    check_numbers(text);
    check_json_string(data, size);
    free(text);
    return 0;
}
