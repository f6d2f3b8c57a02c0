/* SPDX-License-Identifier: MIT
 *
 * json_out.h - small helpers to write JSON that is always valid: string
 * escaping (control characters as \uXXXX or the short escapes, invalid UTF-8
 * replaced by U+FFFD so the output is valid UTF-8 whatever the input), numbers
 * that round-trip (doubles in the shortest form that reads back, NaN and
 * infinities as null), and a tiny writer that tracks commas between members
 * and elements of nested objects and arrays.
 * Tools layer: libc only.
 */
#ifndef SLOG_UTILS_JSON_OUT_H
#define SLOG_UTILS_JSON_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Write @p s (NUL-terminated; NULL writes null) as a quoted JSON string. */
void json_write_string(FILE *f, const char *s);

/** Write @p n bytes at @p s as a quoted JSON string. */
void json_write_string_n(FILE *f, const char *s, size_t n);

/**
 * Format a double so that strtod reads back the same value, always with a
 * '.' or an exponent so it stays a double when re-read; NaN and infinities
 * give "null".  @return @p buf (at least 32 bytes).
 */
const char *json_format_double(double d, char *buf, size_t len);

#define JSON_MAX_DEPTH 32

/** A streaming writer: compact output, commas and nesting tracked. */
typedef struct json_writer {
    FILE *f;
    unsigned depth;
    bool need_comma[JSON_MAX_DEPTH + 1];
    bool after_key;
} json_writer;

void json_writer_init(json_writer *w, FILE *f);
void json_begin_object(json_writer *w);
void json_end_object(json_writer *w);
void json_begin_array(json_writer *w);
void json_end_array(json_writer *w);
/** Member key; the next value call writes its value. */
void json_key(json_writer *w, const char *key);
void json_string(json_writer *w, const char *s);
void json_int(json_writer *w, int64_t v);
void json_uint(json_writer *w, uint64_t v);
void json_double(json_writer *w, double v);
void json_bool(json_writer *w, bool v);
void json_null(json_writer *w);
/** A value given as JSON text, written unchanged ("null" when NULL or empty). */
void json_raw(json_writer *w, const char *text);
/** Same, but text that is not one valid JSON value (RFC 8259, strict UTF-8,
 *  nesting up to 64) is written as a JSON string instead. */
void json_raw_checked(json_writer *w, const char *text);

/** True when @p text is exactly one JSON value (whitespace around allowed). */
bool json_is_valid(const char *text);

/* Shorthands for one member. */
void json_kv_string(json_writer *w, const char *key, const char *s);
void json_kv_int(json_writer *w, const char *key, int64_t v);
void json_kv_uint(json_writer *w, const char *key, uint64_t v);
void json_kv_double(json_writer *w, const char *key, double v);
void json_kv_bool(json_writer *w, const char *key, bool v);

#endif /* SLOG_UTILS_JSON_OUT_H */
