/* SPDX-License-Identifier: MIT
 *
 * serve_encode.h - the encodings of query answers (doc/VIEWER.md): the
 * columns of a window (slog_batch arrays grown as items come), encoded as
 * the binary SLW1 layout or as JSON items; one drawable as a JSON item.
 * Every time written is relative to the file's origin.
 * Tools layer (slog-serve): public libslog headers and utils/common.
 */
#ifndef SLOG_SERVE_ENCODE_H
#define SLOG_SERVE_ENCODE_H

#include <string.h>

#include <slog/slog.h>

#include "serve.h"

/* Items of a window as columns: entry i of every array of b is item i. */
typedef struct serve_columns {
    size_t n;     /* items held */
    slog_batch b; /* b.capacity: entries allocated */
} serve_columns;

/* What the binary header and the JSON envelope echo. */
typedef struct serve_window_meta {
    int64_t t0, t1; /* relative ticks */
    int64_t resolution;
    int64_t origin;  /* subtracted from every time */
    bool cut;        /* more items than the cap */
    bool incomplete; /* the file's writer has not finished */
} serve_window_meta;

/* Grow to hold at least want entries; -1 when out of memory. */
int serve_columns_reserve(serve_columns *c, size_t want);
void serve_columns_free(serve_columns *c);

/* The columns as the binary SLW1 layout into res (application/octet-stream);
 * -1 when out of memory (res then holds a 500). */
int serve_encode_window_bin(const serve_columns *c,
                            const serve_window_meta *m,
                            serve_response *res);

/* The columns as the packed SLW2 layout (one varint record per item, about
 * a quarter of SLW1's bytes) into res; -1 when out of memory (res then holds
 * a 500).  serve_encode_pack.c. */
int serve_encode_window_packed(const serve_columns *c,
                               const serve_window_meta *m,
                               serve_response *res);

/* t - origin, saturated (a hostile file cannot make it overflow). */
static inline int64_t serve_rel_time(int64_t t, int64_t origin)
{
    int64_t d;
    if (__builtin_sub_overflow(t, origin, &d)) {
        return t < origin ? INT64_MIN : INT64_MAX;
    }
    return d;
}

/* Little-endian stores. */
static inline void serve_put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static inline void serve_put_f64(unsigned char *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    for (int i = 0; i < 8; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

/* The columns as a JSON array of items, written to w. */
void serve_encode_window_json(json_writer *w, const serve_columns *c, int64_t origin);

/* One drawable (state, event, arrow or counter) as a JSON item. */
void serve_encode_item_json(json_writer *w, const slog_item *it, int64_t origin);

/* An arg list as a JSON object {"key": value, ...}. */
void serve_encode_args_json(json_writer *w, const slog_arg *args, uint32_t n);

#endif /* SLOG_SERVE_ENCODE_H */
