/* SPDX-License-Identifier: MIT
 *
 * fuzz_units_parse.c - libFuzzer target for the command-line number parsers
 * and the JSON string writer of utils/common (units.c, json_out.c), which
 * take text straight from users and files.  Every parser must accept or
 * reject without reading past the text; what is accepted must satisfy its
 * contract: a duration formats and parses back to the same value, a
 * percentage is at most 100%, a count or size re-parses from its decimal
 * text; the JSON writer's output is a quoted string with no raw control
 * byte and only valid UTF-8, whatever the input bytes; raw JSON text is
 * passed through only when valid, so the output always is.
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

static void check_percent(const char *text)
{
    uint64_t v = 0;
    if (units_parse_percent(text, &v, NULL, 0) == 0) {
        CHECK(v <= UNITS_PERCENT_SCALE);
        CHECK(units_apply_percent(UINT64_MAX, v) <= UINT64_MAX);
    }
}

/* An accepted count or size re-parses from its decimal text. */
static void check_unsigned(const char *text, int (*parse)(const char *, uint64_t *, char *, size_t))
{
    uint64_t v = 0;
    if (parse(text, &v, NULL, 0) != 0) {
        return;
    }
    char dec[32];
    uint64_t back = 0;
    (void)snprintf(dec, sizeof dec, "%llu", (unsigned long long)v);
    CHECK(parse(dec, &back, NULL, 0) == 0 && back == v);
}

static void check_int64(const char *text)
{
    int64_t i = 0;
    if (units_parse_int64(text, &i, NULL, 0) != 0) {
        return;
    }
    char dec[32];
    int64_t j = 0;
    (void)snprintf(dec, sizeof dec, "%lld", (long long)i);
    CHECK(units_parse_int64(dec, &j, NULL, 0) == 0 && j == i);
}

/* Length of a UTF-8 sequence by its lead byte, 0 when it cannot lead. */
static size_t lead_length(unsigned char c)
{
    if (c < 0x80) {
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) {
        return 2;
    }
    if (c >= 0xe0 && c <= 0xef) {
        return 3;
    }
    return c >= 0xf0 && c <= 0xf4 ? 4 : 0;
}

/* Code point of the sequence at s of length len, UINT32_MAX when malformed. */
static uint32_t decode(const unsigned char *s, size_t len)
{
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    uint32_t cp = len == 1 ? s[0] : (uint32_t)(s[0] & (0x7f >> len));
    for (size_t m = 1; m < len; m++) {
        if ((s[m] & 0xc0) != 0x80) {
            return UINT32_MAX;
        }
        cp = cp << 6 | (s[m] & 0x3f);
    }
    if (cp < min_cp[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        return UINT32_MAX;
    }
    return cp;
}

/* Independent strict UTF-8 check (RFC 3629), no raw byte below 0x20. */
static int valid_json_text(const unsigned char *s, size_t n)
{
    size_t k = 0;
    while (k < n) {
        const size_t len = lead_length(s[k]);
        if (len == 0 || s[k] < 0x20 || k + len > n || decode(s + k, len) == UINT32_MAX) {
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

/* Whatever the text, json_raw_checked writes one valid JSON value. */
static void check_raw(const char *text)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (f == NULL) {
        return;
    }
    json_writer w;
    json_writer_init(&w, f);
    json_raw_checked(&w, text);
    CHECK(fclose(f) == 0);
    CHECK(json_is_valid(out));
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
    check_percent(text);
    check_unsigned(text, units_parse_count);
    check_unsigned(text, units_parse_size);
    check_int64(text);
    check_json_string(data, size);
    check_raw(text);
    free(text);
    return 0;
}
