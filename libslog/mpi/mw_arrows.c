/* SPDX-License-Identifier: MIT
 *
 * mw_arrows.c - rank 0 writes the matched messages as one more input of
 * the job, DIR/arrows.slog, that holds only their arrows: one timeline per
 * (rank, timeline) an arrow touches (the endpoints, sorted), each standing
 * for that rank file's timeline (mw_inputs.c links them), so the arrows
 * land between the ranks' own timelines in the index and the merge.  Its
 * times are already on rank 0's clock (start by the sender's offset, end
 * by the receiver's; an end a clock error put before its start is raised
 * to it), and its arrows are written by end time, so a merge streams them
 * like any input.  It stays in the directory: the index names it.
 * libslog/mpi: the public API of libslog only, plus MPI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mw_internal.h"

static int cmp_u32(uint32_t a, uint32_t b)
{
    return (a > b) - (a < b);
}

static int cmp_endpoint(const void *pa, const void *pb)
{
    const mw_endpoint *a = pa;
    const mw_endpoint *b = pb;
    const int c = cmp_u32(a->rank, b->rank);
    return c != 0 ? c : cmp_u32(a->timeline, b->timeline);
}

static int cmp_end(const void *pa, const void *pb)
{
    const mw_arrow *a = pa;
    const mw_arrow *b = pb;
    return (a->end > b->end) - (a->end < b->end);
}

/* The distinct endpoints of the arrows, sorted; NULL when memory is short. */
static mw_endpoint *endpoints(const mw_arrow *a, size_t n, size_t *count)
{
    mw_endpoint *const v = malloc(2 * n * sizeof *v + 1);
    if (v == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        v[2 * i] = (mw_endpoint){(uint32_t)a[i].src, a[i].from};
        v[2 * i + 1] = (mw_endpoint){(uint32_t)a[i].dst, a[i].to};
    }
    qsort(v, 2 * n, sizeof *v, cmp_endpoint);
    size_t k = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        if (k == 0 || cmp_endpoint(&v[k - 1], &v[i]) != 0) {
            v[k++] = v[i];
        }
    }
    *count = k;
    return v;
}

static uint32_t end_index(const mw_endpoint *v, size_t n, uint32_t rank, uint32_t timeline)
{
    const mw_endpoint key = {rank, timeline};
    const mw_endpoint *const hit = bsearch(&key, v, n, sizeof *v, cmp_endpoint);
    return (uint32_t)(hit - v); /* every endpoint is there */
}

static int64_t shift(int64_t t, int64_t off)
{
    if (off > 0 && t > INT64_MAX - off) {
        return INT64_MAX;
    }
    if (off < 0 && t < INT64_MIN - off) {
        return INT64_MIN;
    }
    return t + off;
}

/* The arrows on rank 0's clock, endpoints as indices of ends, by end time. */
static mw_arrow *place_arrows(const mw_arrows_job *aj, const mw_endpoint *ends, size_t nends)
{
    const mw_arrow *const a = aj->arrows;
    mw_arrow *const v = malloc(aj->narrows * sizeof *v + 1);
    if (v == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < aj->narrows; i++) {
        v[i] = a[i];
        v[i].from = end_index(ends, nends, (uint32_t)a[i].src, a[i].from);
        v[i].to = end_index(ends, nends, (uint32_t)a[i].dst, a[i].to);
        v[i].start = shift(a[i].start, aj->offsets[a[i].src]);
        v[i].end = shift(a[i].end, aj->offsets[a[i].dst]);
        v[i].end = v[i].end < v[i].start ? v[i].start : v[i].end;
    }
    qsort(v, aj->narrows, sizeof *v, cmp_end);
    return v;
}

static int append_arrows(slog_writer *w, const mw_arrow *v, size_t n, slog_error *e)
{
    uint32_t cat = 0;
    int rc = slog_writer_add_category(w, SLOG_KIND_ARROW, "MPI message", 0, "mpi", &cat, e);
    for (size_t i = 0; i < n && rc == SLOG_OK; i++) {
        const slog_arg args[4] = {
            {.key = "tag", .type = SLOG_ARG_INT, .v.i = v[i].tag},
            {.key = "bytes", .type = SLOG_ARG_INT, .v.i = v[i].bytes},
            {.key = "src", .type = SLOG_ARG_INT, .v.i = v[i].src},
            {.key = "dst", .type = SLOG_ARG_INT, .v.i = v[i].dst},
        };
        const slog_arrow a = {cat, v[i].from, v[i].to, v[i].start, v[i].end, 4, args};
        rc = slog_writer_append_arrow(w, &a, e);
    }
    return rc;
}

/* The file: a timeline per endpoint, then the arrows. */
static int write_file(const mw_arrows_job *aj, const mw_endpoint *ends, size_t nends, slog_error *e)
{
    mw_arrow *const v = place_arrows(aj, ends, nends);
    if (v == NULL) {
        return mw_fail(e, SLOG_ENOMEM, aj->path, "Out of memory placing %zu arrows", aj->narrows);
    }
    slog_writer_options wo = SLOG_WRITER_OPTIONS_INIT;
    wo.ticks_per_second = aj->ticks_per_second;
    wo.creator = "slog-mpi messages";
    slog_writer *w = NULL;
    int rc = slog_writer_create(&w, aj->path, &wo, e);
    for (size_t i = 0; i < nends && rc == SLOG_OK; i++) {
        char name[64];
        (void)snprintf(name, sizeof name, "rank %u timeline %u", ends[i].rank, ends[i].timeline);
        rc = slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_GENERIC, name, 0, NULL, e);
    }
    if (rc == SLOG_OK) {
        rc = append_arrows(w, v, aj->narrows, e);
    }
    if (rc == SLOG_OK) {
        rc = slog_writer_finish(w, e);
    }
    slog_writer_destroy(w);
    free(v);
    return rc;
}

int mw_arrows_write(const mw_arrows_job *aj, mw_endpoint **ends, size_t *nends, slog_error *e)
{
    *nends = 0;
    *ends = endpoints(aj->arrows, aj->narrows, nends);
    if (*ends == NULL) {
        return mw_fail(e, SLOG_ENOMEM, aj->path, "Out of memory");
    }
    const int rc = write_file(aj, *ends, *nends, e);
    if (rc != SLOG_OK) {
        (void)unlink(aj->path);
        free(*ends);
        *ends = NULL;
        *nends = 0;
    }
    return rc;
}
