/* SPDX-License-Identifier: MIT
 *
 * follow.h - slog-query --follow: print a file's drawables, then those a
 * live writer flushes (slog_reader_refresh), each exactly once, until the
 * writer finishes the file.
 * Tools layer: public libslog headers and utils/common.
 */
#ifndef SLOG_QUERY_FOLLOW_H
#define SLOG_QUERY_FOLLOW_H

#include <stdio.h>

#include <slog/slog.h>

#include "query_out.h"
#include "timeline_tree.h"

typedef struct follow_run {
    const char *prog, *path;
    slog_reader *r;
    FILE *out;
    const qout_format *fmt;
    const slog_file_info *fi;   /* at open: times stay relative to its start (or the first) */
    slog_query_options q;       /* kinds, flags, timeline and category filters */
    timeline_tree *tl;          /* reloaded when the writer adds timelines */
    slog_category_info **cats;  /* reloaded when it adds categories (malloc'ed) */
    unsigned interval_ms;       /* between refreshes */
} follow_run;

/* Returns the exit status: 0 once the file is complete and all of it was
 * printed, 1 on an error (reported on stderr). */
int follow_stream(follow_run *f);

#endif /* SLOG_QUERY_FOLLOW_H */
