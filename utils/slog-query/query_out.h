/* SPDX-License-Identifier: MIT
 *
 * query_out.h - the output formats of slog-query (table, jsonl, csv,
 * chrome) behind one small interface {begin, item, end}, and the helpers
 * they share: names of timelines, categories and preview rows, exact tick
 * to ns conversion relative to the trace's start, typed args as JSON.
 * Every format streams: one item in, its text out, nothing accumulated,
 * so a window of any size is written in constant memory.
 * Tools layer: public libslog headers and utils/common.
 */
#ifndef SLOG_QUERY_OUT_H
#define SLOG_QUERY_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <slog/slog.h>

#include "json_out.h"
#include "timeline_tree.h"

typedef struct qout_ctx {
    FILE *f;
    const slog_file_info *fi;
    const timeline_tree *tl;
    const slog_category_info *cats; /* fi->categories entries */
    uint32_t ncats;
    void *impl; /* the format's own state */
} qout_ctx;

typedef struct qout_format {
    const char *name;
    int (*begin)(qout_ctx *c);
    int (*item)(qout_ctx *c, const slog_item *it);
    int (*end)(qout_ctx *c);
} qout_format;

/* Where a drawable sits: its (first) timeline, category and time span. */
typedef struct qout_span {
    uint32_t timeline;
    uint32_t category;
    int64_t start;
    int64_t end;
} qout_span;

extern const qout_format qout_table;
extern const qout_format qout_jsonl;
extern const qout_format qout_csv;
extern const qout_format qout_chrome;

/* ---- shared helpers (query_out.c) ---- */

/** ns from the trace's start to @p ticks (exact floor; saturating). */
int64_t qout_rel_ns(const qout_ctx *c, int64_t ticks);
/** Absolute ns of @p ticks. */
int64_t qout_abs_ns(const qout_ctx *c, int64_t ticks);
/** A duration in ticks as ns. */
int64_t qout_dur_ns(const qout_ctx *c, int64_t ticks);

/** Timeline name, "" when the id is unknown. */
const char *qout_timeline_name(const qout_ctx *c, uint32_t id);
/* Print "slog-query: PATH: WHAT: MESSAGE (CODE, byte N, in SOURCE)" on
 * stderr (the byte and the file involved when the error has them: an
 * index's input); returns EXIT_FAILURE. */
int qout_report_error(const char *path, const char *what, int rc, const slog_error *err);
/** Category name; "(other)" for SLOG_CATEGORY_OTHER, "" when unknown. */
const char *qout_category_name(const qout_ctx *c, uint32_t id);
const char *qout_category_group(const qout_ctx *c, uint32_t id);

/** Name of a preview row (a timeline at folds 0..2, "block N/s" above). */
const char *qout_row_name(const qout_ctx *c, uint32_t fold, uint32_t row, char *buf, size_t len);
/** True when the preview row at @p fold is a timeline id. */
bool qout_row_is_timeline(uint32_t fold);

/** Write args as one JSON object value (after a key). */
void qout_args_json(json_writer *j, const slog_arg *args, uint32_t nargs);

/** A pixel run's dominant share in [0, 1]: of the inclusive time for states
 *  and arrows (of the count when they last no time), of the count otherwise. */
double qout_run_share(const slog_run *r);

/** Args of a state, event or arrow (0 for others). */
uint32_t qout_item_args(const slog_item *it, const slog_arg **args);

#endif /* SLOG_QUERY_OUT_H */
