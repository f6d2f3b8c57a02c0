/* SPDX-License-Identifier: MIT
 *
 * follow.c - slog-query --follow.  The first pass prints every drawable the
 * file holds; then, every interval, slog_reader_refresh grows the reader's
 * view and a query with first_node = the node count printed so far gives
 * exactly the drawables it added (doc: include/slog/slog_reader.h), so
 * each drawable is printed once, like tail -f.  A refresh that fails is
 * tried again (a reader keeps its view on error); 50 failures in a row end
 * the run.  It ends when the file says complete.  Times count from the
 * file's start when it was opened or, opened before its first drawable, from
 * the start of the first drawables printed.
 * Tools layer: public libslog headers and utils/common.
 */
#include "follow.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FOLLOW_MAX_FAILURES 50

static int fail(const follow_run *f, const char *what, const slog_error *err)
{
    return qout_report_error(f->path, what, err->code, err);
}

/* Timelines and categories again, after the writer added some. */
static int reload_tables(follow_run *f, qout_ctx *ctx)
{
    const slog_file_info *const now = slog_reader_info(f->r);
    timeline_tree_free(f->tl);
    slog_category_info *const cats = calloc((size_t)now->categories + 1, sizeof *cats);
    if (cats == NULL || timeline_tree_load(f->tl, f->r) != 0) {
        free(cats);
        return -1;
    }
    for (uint32_t i = 0; i < now->categories; i++) {
        if (slog_reader_category(f->r, i, &cats[i]) != SLOG_OK) {
            free(cats);
            return -1;
        }
    }
    free(*f->cats);
    *f->cats = cats;
    ctx->cats = cats;
    ctx->ncats = now->categories;
    ctx->tl = f->tl;
    return 0;
}

/* Print the drawables of the nodes from first_node on; flush the output. */
static int print_from(follow_run *f, qout_ctx *ctx, uint64_t first_node)
{
    slog_query_options o = f->q;
    o.t0 = INT64_MIN;
    o.t1 = INT64_MAX;
    o.resolution = 0;
    o.first_node = first_node;
    slog_query *q = NULL;
    slog_error err;
    memset(&err, 0, sizeof err);
    int rc = slog_query_create(&q, f->r, &o, &err);
    const slog_item *it = NULL;
    while (rc == SLOG_OK && (rc = slog_query_next(q, &it, &err)) == SLOG_OK) {
        if (f->fmt->item(ctx, it) != 0) {
            rc = SLOG_END; /* a write error: fflush/ferror below tell */
        }
    }
    slog_query_destroy(q);
    if (rc != SLOG_END) {
        return fail(f, "Cannot read the new drawables", &err);
    }
    if (fflush(f->out) != 0 || ferror(f->out)) {
        (void)fprintf(stderr, "%s: Failed to write the output\n", f->prog);
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

/* Wait, then refresh until it works (at most FOLLOW_MAX_FAILURES tries). */
static int wait_and_refresh(follow_run *f, qout_ctx *ctx)
{
    slog_error err;
    memset(&err, 0, sizeof err);
    for (int failures = 0; failures < FOLLOW_MAX_FAILURES; failures++) {
        const struct timespec ts = {(time_t)(f->interval_ms / 1000),
                                    (long)(f->interval_ms % 1000) * 1000000L};
        (void)nanosleep(&ts, NULL);
        bool grew = false;
        const slog_file_info before = *slog_reader_info(f->r);
        if (slog_reader_refresh(f->r, &grew, &err) == SLOG_OK) {
            const slog_file_info *const now = slog_reader_info(f->r);
            const bool tables = now->timelines != before.timelines ||
                                now->categories != before.categories;
            if (tables && reload_tables(f, ctx) != 0) {
                (void)fprintf(stderr, "%s: %s: Cannot read the timeline and category tables\n",
                              f->prog, f->path);
                return EXIT_FAILURE;
            }
            return EXIT_SUCCESS;
        }
    }
    return fail(f, "Cannot follow the file", &err);
}

/* A file opened before its first drawable has no start yet: times count
 * from the start of the first drawables printed, which then stays. */
static void take_start(slog_file_info *base, bool *known, const slog_file_info *now)
{
    if (!*known && now->start <= now->end) {
        base->start = now->start;
        base->end = now->end;
        *known = true;
    }
}

int follow_stream(follow_run *f)
{
    slog_file_info base = *f->fi; /* times stay relative to one start */
    bool known = slog_reader_info(f->r)->start <= slog_reader_info(f->r)->end;
    qout_ctx ctx = {f->out, &base, f->tl, *f->cats, f->fi->categories, NULL};
    if (f->fmt->begin(&ctx) != 0) {
        (void)fprintf(stderr, "%s: out of memory\n", f->prog);
        return EXIT_FAILURE;
    }
    uint64_t printed = 0; /* nodes whose drawables were printed */
    int status = EXIT_SUCCESS;
    for (;;) {
        const slog_file_info *const now = slog_reader_info(f->r);
        const uint64_t nodes = now->nodes;
        const bool complete = now->complete;
        if (nodes > printed) {
            take_start(&base, &known, now);
            status = print_from(f, &ctx, printed);
            printed = nodes;
        }
        if (status != EXIT_SUCCESS || complete) {
            break;
        }
        status = wait_and_refresh(f, &ctx);
        if (status != EXIT_SUCCESS) {
            break;
        }
    }
    if (f->fmt->end(&ctx) != 0 && status == EXIT_SUCCESS) {
        status = EXIT_FAILURE;
    }
    return status;
}
