/* SPDX-License-Identifier: MIT
 *
 * analysis_cli.h - slog-query's analysis modes: window statistics
 * (--stats [--by category|timeline|both]), search (--find NAME --after T or
 * --before T) and the longest states of a window (--top N).  Their options
 * are parsed here; main.c resolves the window, filters and times against
 * the file and hands them over.
 * Tools layer: public libslog headers and utils/common.
 */
#ifndef SLOG_QUERY_ANALYSIS_CLI_H
#define SLOG_QUERY_ANALYSIS_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include <slog/slog.h>

#include "query_out.h"

enum {
    AN_OPT_STATS = 300,
    AN_OPT_BY,
    AN_OPT_FIND,
    AN_OPT_AFTER,
    AN_OPT_BEFORE,
    AN_OPT_TOP
};

/* Not an analysis option: analysis_parse leaves it to the caller. */
#define AN_NOT_MINE (-3)

#define AN_LONG_OPTS                                                                            \
    {"stats", no_argument, NULL, AN_OPT_STATS}, {"by", required_argument, NULL, AN_OPT_BY},      \
        {"find", required_argument, NULL, AN_OPT_FIND},                                         \
        {"after", required_argument, NULL, AN_OPT_AFTER},                                       \
        {"before", required_argument, NULL, AN_OPT_BEFORE},                                     \
        {"top", required_argument, NULL, AN_OPT_TOP}

typedef struct analysis_opts {
    bool stats;
    uint32_t by;          /* SLOG_STATS_BY_*, 0 = not given */
    const char *find;     /* category name or name substring */
    const char *after;    /* time text, resolved by main.c */
    const char *before;
    uint64_t top;         /* 0 = not given */
} analysis_opts;

/* One option: 0 (taken), an exit status, or AN_NOT_MINE. */
int analysis_parse(int c, const char *arg, analysis_opts *a);
/* After all options: the combination is valid (0) or a usage error (2). */
int analysis_check(const analysis_opts *a, bool table_or_jsonl, bool has_categories);
/* A --after/--before time (text as one side of --window): 0 or a usage
 * error naming @p opt. */
int analysis_check_time(const char *opt, const char *text, bool absolute);
/* Is an analysis mode selected? */
bool analysis_active(const analysis_opts *a);

/* Everything a run needs, resolved against the file. */
typedef struct analysis_run {
    const analysis_opts *a;
    const char *path;
    slog_reader *r;
    const slog_query_options *q;   /* window, timeline/category/kind filters */
    int64_t at;                    /* --after/--before time, ticks */
    bool jsonl, io;
    const qout_format *fmt;        /* item format for --find/--top */
} analysis_run;

/* Run the selected mode, writing to c->f.  Returns an exit status. */
int analysis_execute(const analysis_run *run, qout_ctx *c);

#endif /* SLOG_QUERY_ANALYSIS_CLI_H */
