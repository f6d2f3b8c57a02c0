/* SPDX-License-Identifier: MIT
 *
 * report_data.c - opening the trace and gathering the report in order: the
 * file's facts, the category and timeline tables, window statistics of the
 * whole trace by category (answered by the root previews), the longest
 * states (slog_search_top, pruned by previews), then the overview query
 * and what is built from it (report_collect.c, report_rows.c,
 * report_grid.c, report_matrix.c, report_series.c).  Statistics by
 * timeline are asked for only where previews answer them (format 3,
 * REPORT_BY_TIMELINE_MAX): on older files they decode every node (10^8
 * states: 27 s, 1.6 GiB), so per-row numbers come from the pixel-bounded
 * query instead.  The cost of every call is added up.
 * Tools layer: public libslog headers and utils/common only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "units.h"

/* The file the error is in when it is not the trace itself: an index's
 * input file (a missing one said only "No such file or directory"). */
int report_api_error(const report *rp, const char *what, int rc, const slog_error *err)
{
    const bool other =
        err != NULL && err->source[0] != '\0' && strcmp(err->source, rp->cfg.path) != 0;
    (void)fprintf(stderr, REPORT_PROG ": %s: %s: %s (%s%s%s)\n", rp->cfg.path, what,
                  err != NULL && err->message[0] != '\0' ? err->message : "unknown error",
                  slog_status_name(rc), other ? ", in " : "", other ? err->source : "");
    return EXIT_FAILURE;
}

static int out_of_memory(void)
{
    (void)fprintf(stderr, REPORT_PROG ": out of memory\n");
    return EXIT_FAILURE;
}

/* Bytes the process has read(2) so far (page cache hits included), or
 * UINT64_MAX where /proc/self/io is not available. */
static uint64_t os_read_bytes(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    if (f == NULL) {
        return UINT64_MAX;
    }
    uint64_t v = UINT64_MAX;
    char line[128];
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "rchar: %" SCNu64, &v) == 1) {
            break;
        }
    }
    (void)fclose(f);
    return v;
}

static double now_ms(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int load_tables(report *rp)
{
    const uint32_t n = rp->fi.categories;
    rp->cats = calloc((size_t)n + 1, sizeof *rp->cats);
    if (rp->cats == NULL) {
        return out_of_memory();
    }
    for (uint32_t i = 0; i < n; i++) {
        if (slog_reader_category(rp->r, i, &rp->cats[i]) != SLOG_OK) {
            return report_api_error(rp, "Cannot read the category table", SLOG_ECORRUPT, NULL);
        }
    }
    if (timeline_tree_load(&rp->tl, rp->r) != 0) {
        return report_api_error(rp, "Cannot read the timeline table", SLOG_ECORRUPT, NULL);
    }
    rp->preorder_pos = calloc((size_t)rp->tl.n + 1, sizeof *rp->preorder_pos);
    if (rp->preorder_pos == NULL) {
        return out_of_memory();
    }
    for (uint32_t i = 0; i < rp->tl.n; i++) {
        rp->preorder_pos[rp->tl.order[i]] = i;
    }
    return 0;
}

/* An index's queries read its input files too: their number and bytes
 * (the inputs copied whole into it, and missing ones, are never read). */
static void index_inputs(report *rp)
{
    const uint32_t n = slog_reader_index_inputs(rp->r);
    for (uint32_t i = 0; i < n; i++) {
        slog_index_input_info in;
        if (slog_reader_index_input(rp->r, i, &in) == SLOG_OK && !in.embedded &&
            in.state != SLOG_INDEX_INPUT_MISSING) {
            rp->ninputs++;
            rp->inputs_bytes += in.file_bytes;
        }
    }
}

uint64_t report_data_bytes(const report *rp)
{
    return rp->fi.file_bytes + rp->inputs_bytes;
}

const char *report_data_words(const report *rp, char *buf, size_t len)
{
    char a[32], b[32];
    if (rp->ninputs == 0) {
        (void)snprintf(buf, len, "the file's %s",
                       units_format_bytes(rp->fi.file_bytes, a, sizeof a));
    } else {
        (void)snprintf(buf, len, "the index's %s and its %" PRIu32 " input file%s' %s",
                       units_format_bytes(rp->fi.file_bytes, a, sizeof a), rp->ninputs,
                       rp->ninputs == 1 ? "" : "s",
                       units_format_bytes(rp->inputs_bytes, b, sizeof b));
    }
    return buf;
}

static int open_file(report *rp)
{
    slog_error err;
    memset(&err, 0, sizeof err);
    const int rc = slog_reader_open(&rp->r, rp->cfg.path, NULL, &err);
    if (rc == SLOG_EFORMAT) {
        /* a Chrome JSON, an OTF2 archive or an MPE .slog2: "Not an HDF5 file"
         * alone does not say what to do */
        (void)fprintf(stderr,
                      REPORT_PROG ": %s: Cannot open: %s (%s): not a libslog file; convert "
                                  "other traces with slog-import first\n",
                      rp->cfg.path, err.message, slog_status_name(rc));
        return EXIT_FAILURE;
    }
    if (rc != SLOG_OK) {
        return report_api_error(rp, "Cannot open", rc, &err);
    }
    rp->fi = *slog_reader_info(rp->r);
    index_inputs(rp);
    rp->has_data = rp->fi.start <= rp->fi.end;
    /* the whole extent, inclusive, as slog-query's default window */
    rp->t0 = rp->has_data && rp->fi.start > INT64_MIN ? rp->fi.start - 1 : rp->fi.start;
    rp->t1 = rp->has_data && rp->fi.end < INT64_MAX ? rp->fi.end + 1 : rp->fi.end;
    return load_tables(rp);
}

/* Statistics of the whole trace, rows copied out of the result. */
static int whole_stats(report *rp, uint32_t by, uint32_t kinds, slog_stats_row **rows, size_t *n)
{
    slog_stats_options o = SLOG_STATS_OPTIONS_INIT;
    o.by = by;
    o.kinds = kinds;
    o.t0 = rp->t0;
    o.t1 = rp->t1;
    slog_stats *s = NULL;
    slog_error err;
    memset(&err, 0, sizeof err);
    const int rc = slog_stats_compute(&s, rp->r, &o, &err);
    if (rc != SLOG_OK) {
        return report_api_error(rp, "Cannot compute statistics", rc, &err);
    }
    size_t count = 0;
    const slog_stats_row *src = slog_stats_rows(s, &count);
    *rows = calloc(count + 1, sizeof **rows);
    if (*rows == NULL) {
        slog_stats_destroy(s);
        return out_of_memory();
    }
    if (count > 0) {
        memcpy(*rows, src, count * sizeof *src);
    }
    *n = count;
    slog_stats_cost k;
    slog_stats_cost_get(s, &k);
    rp->cost.bytes_read += k.bytes_read;
    rp->cost.blobs_read += k.previews_used + k.nodes_decoded;
    slog_stats_destroy(s);
    return 0;
}

static void add_search_cost(report *rp, const slog_search_cost *k)
{
    rp->cost.bytes_read += k->bytes_read;
    rp->cost.blobs_read += k->previews_read + k->nodes_decoded;
}

static int gather_top(report *rp)
{
    rp->top = calloc((size_t)rp->cfg.top + 1, sizeof *rp->top);
    if (rp->top == NULL) {
        return out_of_memory();
    }
    slog_search_options o = SLOG_SEARCH_OPTIONS_INIT;
    o.kinds = 1u << SLOG_KIND_STATE;
    o.t0 = rp->t0;
    o.t1 = rp->t1;
    rp->ntop = rp->cfg.top;
    slog_search_cost k;
    memset(&k, 0, sizeof k);
    slog_error err;
    memset(&err, 0, sizeof err);
    const int rc = slog_search_top(rp->r, &o, rp->top, &rp->ntop, &k, &err);
    if (rc != SLOG_OK) {
        return report_api_error(rp, "Cannot find the longest states", rc, &err);
    }
    add_search_cost(rp, &k);
    return 0;
}

/* Everything that needs a time range; skipped for a file without drawables. */
static int gather_numbers(report *rp)
{
    int rc = whole_stats(rp, SLOG_STATS_BY_CATEGORY, 0, &rp->by_cat, &rp->nby_cat);
    if (rc == 0 && rp->fi.format_write_version >= REPORT_BY_TIMELINE_FORMAT &&
        rp->fi.timelines <= REPORT_BY_TIMELINE_MAX) {
        rc =
            whole_stats(rp, SLOG_STATS_BY_TIMELINE, 1u << SLOG_KIND_STATE, &rp->by_tl, &rp->nby_tl);
    }
    if (rc == 0) {
        rc = gather_top(rp);
    }
    if (rc == 0) {
        rc = report_collect(rp);
    }
    if (rc == 0) {
        rc = report_rows_build(rp);
    }
    if (rc == 0) {
        rc = report_layout_build(rp);
    }
    if (rc == 0) {
        rc = report_grid_build(rp);
        report_layout_exact_totals(rp);
    }
    if (rc == 0) {
        rc = report_matrix_build(rp);
    }
    if (rc == 0) {
        rc = report_series_build(rp);
    }
    return rc;
}

int report_gather(report *rp)
{
    const double t_start = now_ms();
    const uint64_t os_start = os_read_bytes();
    int rc = open_file(rp);
    if (rc == 0 && rp->has_data) {
        rc = gather_numbers(rp);
    }
    const uint64_t os_end = os_read_bytes();
    rp->cost.os_read =
        os_start != UINT64_MAX && os_end != UINT64_MAX ? os_end - os_start : UINT64_MAX;
    rp->cost.ms = now_ms() - t_start;
    return rc;
}

void report_free(report *rp)
{
    free(rp->rows.key);
    free(rp->rows.first);
    free(rp->rows.last);
    free(rp->rows.members);
    free(rp->rows.leaves);
    free(rp->rows.row_of_key);
    free(rp->layout.row);
    free(rp->layout.up);
    free(rp->layout.base);
    free(rp->grid.slot_cat);
    free(rp->grid.slot_of);
    free(rp->grid.weight);
    free(rp->grid.busy);
    free(rp->matrix.key);
    free(rp->matrix.side_fold);
    free(rp->matrix.count);
    free(rp->pieces);
    free(rp->samples);
    free(rp->pairs);
    free(rp->series);
    free(rp->top);
    free(rp->by_cat);
    free(rp->by_tl);
    free(rp->cats);
    free(rp->preorder_pos);
    timeline_tree_free(&rp->tl);
    slog_reader_destroy(rp->r);
    rp->r = NULL;
}
