/* SPDX-License-Identifier: MIT
 *
 * py_window_split.c - a large full-detail window read by several threads at
 * once, straight into the rows of the DataFrame's columns.  The window
 * [t0, t1) is cut at times m1 < m2 < ...; thread j reads the slice
 * [mj, mj+1) with its own reader and keeps the items that start at or after
 * mj (a state that starts earlier also overlaps the slice before, which
 * keeps it), so every item of the window comes exactly once: an item is
 * kept by the slice its start falls in (the first slice keeps those that
 * start before t0).  Where each slice's rows go is known before any is
 * read: the rows before slice j are the items of [t0, mj) (the items that
 * start before mj), which window statistics count exactly (the same
 * overlap rule, slog_stats.h).  Each thread reads through a small staging
 * block and copies what it keeps to its rows; a slice whose count differs
 * from the statistics' makes the whole read decline, and the caller reads
 * the window in one thread.  Rows come slice after slice, each slice in
 * node order (doc/PYTHON.md).
 * Python binding layer: public libslog headers, POSIX threads.
 */
#include "py_common.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPLIT_MIN_ITEMS ((uint64_t)1 << 19) /* smaller windows: one thread (doc/PYTHON.md) */
#define SPLIT_AUTO_PARTS 4  /* at most this many threads unless asked for more */
#define SPLIT_MAX_PARTS 16
#define STAGE_ROWS 4096

typedef struct split_part {
    const char *path;   /* the part opens a reader of its own on it */
    slog_query_options q;
    int64_t keep_from;  /* items starting before it belong to an earlier part */
    py_column *cols;    /* the final columns: this part owns rows [at, at + want) */
    size_t at, want, got;
    const py_row_finish *finish;
    int rc;
    slog_error err;
} split_part;

/* Items of [t0, t1) under @p q's filters, by window statistics. */
static int count_items(slog_reader *r, const slog_query_options *q, int64_t t0, int64_t t1,
                       uint64_t *count, slog_error *err)
{
    slog_stats_options o;
    slog_stats_options_init(&o);
    o.t0 = t0;
    o.t1 = t1;
    o.kinds = q->kinds;
    o.timelines = q->timelines;
    o.ntimelines = q->ntimelines;
    o.categories = q->categories;
    o.ncategories = q->ncategories;
    *count = 0;
    if (t1 <= t0) {
        return SLOG_OK;
    }
    slog_stats *s = NULL;
    const int rc = slog_stats_compute(&s, r, &o, err);
    if (rc == SLOG_OK) {
        size_t n = 0;
        const slog_stats_row *rows = slog_stats_rows(s, &n);
        for (size_t i = 0; i < n; i++) {
            *count += rows[i].count;
        }
    }
    slog_stats_destroy(s);
    return rc;
}

/* Copy staged rows whose start is at least @p from to the part's next rows.
 * Returns -1 when they would pass the part's end (the counts disagree). */
static int keep_rows(split_part *p, const py_column *stage, size_t nstage)
{
    const int64_t *start = stage[PY_COL_START].data;
    for (size_t i = 0; i < nstage;) {
        size_t j = i;
        while (j < nstage && start[j] >= p->keep_from) {
            j++;
        }
        if (p->got + (j - i) > p->want) {
            return -1;
        }
        for (int c = 0; c < PY_NCOLS && j > i; c++) {
            const size_t e = stage[c].elem;
            if (e != 0) {
                memcpy((char *)p->cols[c].data + (p->at + p->got) * e,
                       (const char *)stage[c].data + i * e, (j - i) * e);
            }
        }
        p->got += j - i;
        i = j;
        while (i < nstage && start[i] < p->keep_from) {
            i++; /* kept by an earlier part */
        }
    }
    return 0;
}

/* Read the part's slice through @p stage; p->rc says how it went. */
static void read_part(split_part *p, slog_reader *r, py_column *stage)
{
    slog_query *q = NULL;
    p->rc = slog_query_create(&q, r, &p->q, &p->err);
    while (p->rc == SLOG_OK) {
        slog_batch b;
        size_t got = 0;
        py_window_aim(&b, stage, 0, STAGE_ROWS);
        const int rc = slog_query_next_batch(q, &b, &got, &p->err);
        if (keep_rows(p, stage, got) < 0) {
            p->rc = PY_SPLIT_DECLINED;
        } else if (rc != SLOG_OK) {
            p->rc = rc == SLOG_END ? (p->got == p->want ? SLOG_OK : PY_SPLIT_DECLINED) : rc;
            break;
        }
    }
    slog_query_destroy(q);
    if (p->rc == SLOG_OK) {
        py_window_finish_rows(p->cols, p->at, p->at + p->want, p->finish);
    }
}

static void *run_part(void *arg)
{
    split_part *p = arg;
    py_column stage[PY_NCOLS];
    memcpy(stage, p->cols, sizeof stage);
    for (int c = 0; c < PY_NCOLS; c++) {
        stage[c].data = NULL; /* its own storage, not the final rows' */
        stage[c].mapped = 0;
    }
    stage[PY_COL_NAME_CODE].elem = 0; /* made from the final rows (py_window_finish_rows) */
    slog_reader *own = NULL;
    if (py_columns_reserve(stage, PY_NCOLS, STAGE_ROWS) < 0) {
        p->rc = -100;
    } else {
        slog_reader_options o;
        slog_reader_options_init(&o);
        o.cache_bytes = PY_ONE_PASS_CACHE_BYTES;
        p->rc = slog_reader_open(&own, p->path, &o, &p->err) == SLOG_OK
                    ? SLOG_OK
                    : PY_SPLIT_DECLINED; /* e.g. the file changed: one thread */
    }
    if (own != NULL && p->rc == SLOG_OK) {
        read_part(p, own, stage);
    }
    slog_reader_destroy(own);
    py_columns_free(stage, PY_NCOLS);
    return NULL;
}

/* Parts to read at once: @p asked when set (capped), else one per core up
 * to SPLIT_AUTO_PARTS. */
static int parts_wanted(int asked)
{
    if (asked > 0) {
        return asked > SPLIT_MAX_PARTS ? SPLIT_MAX_PARTS : asked;
    }
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 2 ? 1 : cores > SPLIT_AUTO_PARTS ? SPLIT_AUTO_PARTS : (int)cores;
}

/* Cut the window into @p np equal times; fill each part's slice and rows
 * from the statistics.  SLOG_OK, PY_SPLIT_DECLINED, or an error. */
static int plan_parts(split_part *parts, int np, slog_reader *r, const slog_query_options *q,
                      uint64_t total, slog_error *err)
{
    __extension__ typedef __int128 i128;
    const i128 span = (i128)q->t1 - q->t0;
    uint64_t before = 0;
    for (int j = 0; j < np; j++) {
        const int64_t a = j == 0 ? q->t0 : (int64_t)(q->t0 + span * j / np);
        const int64_t b = j == np - 1 ? q->t1 : (int64_t)(q->t0 + span * (j + 1) / np);
        uint64_t upto = total;
        if (j < np - 1) {
            const int rc = count_items(r, q, q->t0, b, &upto, err);
            if (rc != SLOG_OK) {
                return rc;
            }
        }
        if (upto < before || upto > total) {
            return PY_SPLIT_DECLINED;
        }
        parts[j].q = *q;
        parts[j].q.t0 = a;
        parts[j].q.t1 = b;
        parts[j].keep_from = j == 0 ? INT64_MIN : a;
        parts[j].at = (size_t)before;
        parts[j].want = (size_t)(upto - before);
        before = upto;
    }
    return SLOG_OK;
}

/* Is the window too short to cut into @p np slices of a tick or more? */
static bool span_too_short(const slog_query_options *q, int np)
{
    return (uint64_t)q->t1 - (uint64_t)q->t0 < (uint64_t)np || q->t1 <= q->t0;
}

/* Run parts 1.. on threads and part 0 here; the first failure's status. */
static int run_parts(split_part *parts, int np, slog_error *err)
{
    pthread_t tid[SPLIT_MAX_PARTS];
    int started[SPLIT_MAX_PARTS] = {0};
    for (int j = 1; j < np; j++) {
        started[j] = pthread_create(&tid[j], NULL, run_part, &parts[j]) == 0;
        if (!started[j]) {
            run_part(&parts[j]);
        }
    }
    run_part(&parts[0]);
    int rc = SLOG_OK;
    for (int j = 0; j < np; j++) {
        if (j > 0 && started[j]) {
            pthread_join(tid[j], NULL);
        }
        if (rc == SLOG_OK && parts[j].rc != SLOG_OK) {
            rc = parts[j].rc;
            *err = parts[j].err;
        }
    }
    return rc;
}

int py_window_read_split(const py_split_request *w, py_column *cols, size_t *n, slog_error *err)
{
    const slog_query_options *q = w->q;
    const int np = parts_wanted(w->parts);
    uint64_t total = 0;
    *n = 0;
    if (np < 2 || q->resolution != 0 || q->flags != 0 || q->first_node != 0 ||
        cols[PY_COL_START].elem == 0 || span_too_short(q, np)) {
        return PY_SPLIT_DECLINED;
    }
    /* where the statistics cannot say (a filter they refuse, a damaged
     * node), the one-thread read answers, with its own error if any */
    slog_error ignored;
    split_part part[SPLIT_MAX_PARTS];
    memset(part, 0, sizeof part);
    if (count_items(w->r, q, q->t0, q->t1, &total, &ignored) != SLOG_OK || total == 0 ||
        (w->parts == 0 && total < SPLIT_MIN_ITEMS) || total > SIZE_MAX / 16 ||
        plan_parts(part, np, w->r, q, total, &ignored) != SLOG_OK) {
        return PY_SPLIT_DECLINED;
    }
    if (py_columns_reserve(cols, PY_NCOLS, (size_t)total) < 0) {
        return -100;
    }
    for (int j = 0; j < np; j++) {
        part[j].path = w->path;
        part[j].cols = cols;
        part[j].finish = w->finish;
    }
    const int rc = run_parts(part, np, err);
    *n = rc == SLOG_OK ? (size_t)total : 0;
    return rc;
}
