/* SPDX-License-Identifier: MIT
 *
 * mw_merge.c - rank 0 joins the job into one file: slog_merge_files over
 * the rank files (a top timeline "rank R" each, kind SLOG_TIMELINE_RANK,
 * each rank's times moved by its merge offset) plus, when messages were
 * matched, one extra input that holds only their arrows.  That input has
 * one timeline per (rank, timeline) an arrow touches, each linked
 * (slog_merge_link) to the rank file's timeline it stands for, so the
 * arrows land between the ranks' own timelines and the extra input adds
 * no timeline of its own.  Its times are already on rank 0's clock (start
 * by the sender's offset, end by the receiver's; an end a clock error put
 * before its start is raised to it), and its arrows are written by end
 * time, so the merge streams them like any input.  It is written next to
 * the merged file and removed after.
 * libslog/mpi: the public API of libslog and libslog-merge only, plus MPI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slog/slog_merge.h>

#include "mw_internal.h"

typedef struct tl_ref {
    uint32_t rank, timeline;
} tl_ref;

static int cmp_u32(uint32_t a, uint32_t b)
{
    return (a > b) - (a < b);
}

static int cmp_ref(const void *pa, const void *pb)
{
    const tl_ref *a = pa;
    const tl_ref *b = pb;
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
static tl_ref *endpoints(const mw_arrow *a, size_t n, size_t *count)
{
    tl_ref *const v = malloc(2 * n * sizeof *v + 1);
    if (v == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        v[2 * i] = (tl_ref){(uint32_t)a[i].src, a[i].from};
        v[2 * i + 1] = (tl_ref){(uint32_t)a[i].dst, a[i].to};
    }
    qsort(v, 2 * n, sizeof *v, cmp_ref);
    size_t k = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        if (k == 0 || cmp_ref(&v[k - 1], &v[i]) != 0) {
            v[k++] = v[i];
        }
    }
    *count = k;
    return v;
}

static uint32_t ref_index(const tl_ref *v, size_t n, uint32_t rank, uint32_t timeline)
{
    const tl_ref key = {rank, timeline};
    const tl_ref *const hit = bsearch(&key, v, n, sizeof *v, cmp_ref);
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

/* The arrows on rank 0's clock, endpoints as indices of refs, by end time. */
static mw_arrow *
place_arrows(const mw_arrow *a, size_t n, const int64_t *offsets, const tl_ref *refs, size_t nrefs)
{
    mw_arrow *const v = malloc(n * sizeof *v + 1);
    if (v == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        v[i] = a[i];
        v[i].from = ref_index(refs, nrefs, (uint32_t)a[i].src, a[i].from);
        v[i].to = ref_index(refs, nrefs, (uint32_t)a[i].dst, a[i].to);
        v[i].start = shift(a[i].start, offsets[a[i].src]);
        v[i].end = shift(a[i].end, offsets[a[i].dst]);
        v[i].end = v[i].end < v[i].start ? v[i].start : v[i].end;
    }
    qsort(v, n, sizeof *v, cmp_end);
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

/* The extra input: a timeline per endpoint, then the arrows. */
static int write_arrows_file(
    const char *path, const mw_job_merge *jm, const tl_ref *refs, size_t nrefs, slog_error *e)
{
    mw_arrow *const v = place_arrows(jm->arrows, jm->narrows, jm->offsets, refs, nrefs);
    if (v == NULL) {
        return mw_fail(e, SLOG_ENOMEM, path, "Out of memory placing %zu arrows", jm->narrows);
    }
    slog_writer_options wo = SLOG_WRITER_OPTIONS_INIT;
    wo.ticks_per_second = jm->ticks_per_second;
    wo.creator = "slog-mpi messages";
    slog_writer *w = NULL;
    int rc = slog_writer_create(&w, path, &wo, e);
    for (size_t i = 0; i < nrefs && rc == SLOG_OK; i++) {
        char name[64];
        (void)snprintf(name, sizeof name, "rank %u timeline %u", refs[i].rank, refs[i].timeline);
        rc = slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_GENERIC, name, 0, NULL, e);
    }
    if (rc == SLOG_OK) {
        rc = append_arrows(w, v, jm->narrows, e);
    }
    if (rc == SLOG_OK) {
        rc = slog_writer_finish(w, e);
    }
    slog_writer_destroy(w);
    free(v);
    return rc;
}

/* Names of the inputs and their labels, in one block. */
typedef struct merge_names {
    const char **inputs;
    const char **labels;
    char *text;
} merge_names;

static int make_names(merge_names *nm, const char *dir, int ranks, const char *arrows_path)
{
    enum { LABEL_BYTES = 24 }; /* "rank -2147483648" and its NUL fit */
    const size_t per = strlen(dir) + 32 + LABEL_BYTES;
    const size_t n = (size_t)ranks + 1;
    nm->inputs = calloc(2 * n, sizeof *nm->inputs);
    nm->text = malloc(n * per);
    if (nm->inputs == NULL || nm->text == NULL) {
        return SLOG_ENOMEM;
    }
    nm->labels = nm->inputs + n;
    for (int i = 0; i < ranks; i++) {
        char *const path = nm->text + (size_t)i * per;
        char *const label = path + per - LABEL_BYTES;
        (void)snprintf(path, per - LABEL_BYTES, "%s/rank-%06d.slog", dir, i);
        (void)snprintf(label, LABEL_BYTES, "rank %d", i);
        nm->inputs[i] = path;
        nm->labels[i] = label;
    }
    nm->inputs[ranks] = arrows_path;
    return SLOG_OK;
}

static slog_merge_link *make_links(const tl_ref *refs, size_t nrefs, uint32_t arrows_input)
{
    slog_merge_link *const v = malloc(nrefs * sizeof *v + 1);
    for (size_t i = 0; v != NULL && i < nrefs; i++) {
        v[i] = (slog_merge_link){arrows_input, (uint32_t)i, refs[i].rank, refs[i].timeline};
    }
    return v;
}

static int run_merge(
    const mw_job_merge *jm, const merge_names *nm, const tl_ref *refs, size_t nrefs, slog_error *e)
{
    slog_merge_link *const links = make_links(refs, nrefs, (uint32_t)jm->ranks);
    int64_t *const offsets = calloc((size_t)jm->ranks + 1, sizeof *offsets);
    int rc = SLOG_ENOMEM;
    if (links != NULL && offsets != NULL) {
        memcpy(offsets, jm->offsets, (size_t)jm->ranks * sizeof *offsets);
        slog_merge_options mo = SLOG_MERGE_OPTIONS_INIT;
        mo.flags = jm->allow_incomplete ? SLOG_MERGE_ALLOW_INCOMPLETE : 0;
        mo.labels = nm->labels;
        mo.offsets = offsets;
        mo.top_kind = SLOG_TIMELINE_RANK;
        mo.links = links;
        mo.nlinks = nrefs;
        rc = slog_merge_files(nm->inputs, (size_t)jm->ranks + (jm->narrows > 0), jm->merged, &mo,
                              NULL, e);
    } else {
        rc = mw_fail(e, SLOG_ENOMEM, jm->merged, "Out of memory");
    }
    free(links);
    free(offsets);
    return rc;
}

/* The merge, after the arrows' input is written (when there are arrows). */
static int merge_with(const mw_job_merge *jm,
                      const tl_ref *refs,
                      size_t nrefs,
                      const char *arrows_path,
                      slog_error *e)
{
    merge_names nm = {NULL, NULL, NULL};
    int rc = make_names(&nm, jm->dir, jm->ranks, arrows_path);
    if (rc != SLOG_OK) {
        rc = mw_fail(e, SLOG_ENOMEM, jm->merged, "Out of memory");
    } else if (jm->narrows > 0) {
        rc = write_arrows_file(arrows_path, jm, refs, nrefs, e);
    }
    if (rc == SLOG_OK) {
        rc = run_merge(jm, &nm, refs, nrefs, e);
    }
    if (jm->narrows > 0) {
        (void)unlink(arrows_path);
    }
    free(nm.inputs);
    free(nm.text);
    return rc;
}

int mw_merge_job(const mw_job_merge *jm, slog_error *e)
{
    size_t nrefs = 0;
    tl_ref *const refs = endpoints(jm->arrows, jm->narrows, &nrefs);
    const size_t len = strlen(jm->merged) + sizeof ".arrows.slog";
    char *const arrows_path = malloc(len);
    int rc = SLOG_OK;
    if (refs == NULL || arrows_path == NULL) {
        rc = mw_fail(e, SLOG_ENOMEM, jm->merged, "Out of memory");
    } else {
        (void)snprintf(arrows_path, len, "%s.arrows.slog", jm->merged);
        rc = merge_with(jm, refs, nrefs, arrows_path, e);
    }
    free(arrows_path);
    free(refs);
    return rc;
}
