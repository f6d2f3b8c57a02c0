/* SPDX-License-Identifier: MIT
 *
 * api_writer_apply.c - the apply side of the file writer (api_writer_int.h):
 * takes checked drawables, computes their exclusive time, feeds the tree
 * builder, and appends the tables and the summary to the file every
 * flush_nodes nodes, so a killed writer leaves a consistent file up to its
 * last flush.  Runs on the calling thread, or on the background thread of
 * a SLOG_WRITER_BACKGROUND writer (then only this file touches the store).
 *
 * Exclusive time of a state = its duration minus the durations of its
 * direct children; exact when each timeline's states arrive children first
 * (begin/end, or end-time order), which is the writer's optimal order.
 * Layer 5: api.
 */
#include <string.h>

#include "api_writer_int.h"
#include "util_alloc.h"
#include "util_error.h"
#include "util_sat.h"

static void note_times(slog_writer *w, int64_t t0, int64_t t1)
{
    w->t_min = t0 < w->t_min ? t0 : w->t_min;
    w->t_max = t1 > w->t_max ? t1 : w->t_max;
}

/* Exclusive time from the per-timeline child accumulators (see header). */
static int64_t exclusive_time(slog_writer *w, uint32_t tl, uint32_t depth, int64_t s, int64_t e)
{
    timeline_acc *const ta = &w->a_acc[tl];
    const size_t need = (size_t)depth + 2;
    if (need > ta->cap) {
        /* grow by small steps: 10^5 timelines each keep one of these */
        const size_t cap = need + 2;
        void *const p = util_realloc(ta->acc, cap * sizeof *ta->acc);
        if (p == NULL) {
            return e - s; /* degrade gracefully: no children subtracted */
        }
        memset((child_acc *)p + ta->cap, 0, (cap - ta->cap) * sizeof *ta->acc);
        ta->acc = p;
        ta->cap = cap;
    }
    child_acc *const kids = &ta->acc[depth + 1];
    int64_t excl = e - s;
    if (kids->sum > 0 && kids->lo >= s && kids->hi <= e) {
        excl -= kids->sum;
    }
    kids->sum = 0;
    child_acc *const self = &ta->acc[depth];
    if (self->sum == 0) {
        self->lo = s;
        self->hi = e;
    }
    self->sum = util_sat_add_i64(self->sum, e - s);
    self->lo = s < self->lo ? s : self->lo;
    self->hi = e > self->hi ? e : self->hi;
    return excl;
}

/* A new timeline: its parent and root for the previews' row folding. */
static int apply_timeline(slog_writer *w, uint32_t id, uint32_t parent, uint32_t root)
{
    if (id >= w->a_cap) {
        const size_t cap = w->a_cap ? w->a_cap * 2 : 64;
        void *p;
        if ((p = util_realloc(w->a_parent, cap * sizeof *w->a_parent)) == NULL) {
            return -1;
        }
        w->a_parent = p;
        if ((p = util_realloc(w->a_root, cap * sizeof *w->a_root)) == NULL) {
            return -1;
        }
        w->a_root = p;
        if ((p = util_realloc(w->a_acc, cap * sizeof *w->a_acc)) == NULL) {
            return -1;
        }
        w->a_acc = p;
        w->a_cap = cap;
        w->ctx.parent = w->a_parent;
        w->ctx.root = w->a_root;
    }
    w->a_parent[id] = parent;
    w->a_root[id] = root;
    memset(&w->a_acc[id], 0, sizeof w->a_acc[id]);
    w->a_ntl = (size_t)id + 1;
    w->ctx.ntimelines = (uint32_t)w->a_ntl;
    return 0;
}

/* After every drawable: flush every flush_nodes nodes. */
static int after_add(slog_writer *w, int rc, slog_error *err)
{
    if (rc == SLOG_OK && tree_build_nodes_written(w->tb) - w->nodes_at_flush >= w->flush_nodes) {
        rc = api_writer_flush_tables(w, 0, err);
    }
    return rc;
}

int api_writer_apply_state(slog_writer *w, fmt_state_rec *s, const uint8_t *args,
                           size_t args_len, slog_error *err)
{
    if (w->bg != NULL) { /* a synchronous writer's range is the caller's (flush_tables) */
        note_times(w, s->start, s->end);
    }
    s->excl = exclusive_time(w, s->timeline, s->depth, s->start, s->end);
    return after_add(w, tree_build_add_state(w->tb, s, args, args_len, err), err);
}

int api_writer_apply(slog_writer *w, const wrec *r, const uint8_t *args, slog_error *err)
{
    switch (r->op) {
    case WOP_STATE: {
        fmt_state_rec s = r->u.s;
        return api_writer_apply_state(w, &s, args, r->args_len, err);
    }
    case WOP_EVENT:
        note_times(w, r->u.e.time, r->u.e.time);
        return after_add(w, tree_build_add_event(w->tb, &r->u.e, args, r->args_len, err), err);
    case WOP_ARROW:
        note_times(w, r->u.a.start, r->u.a.end);
        return after_add(w, tree_build_add_arrow(w->tb, &r->u.a, args, r->args_len, err), err);
    case WOP_COUNTER:
        note_times(w, r->u.c.time, r->u.c.time);
        return after_add(w, tree_build_add_counter(w->tb, &r->u.c, err), err);
    case WOP_TIMELINE:
        if (apply_timeline(w, r->u.tl.id, r->u.tl.parent, r->u.tl.root) != 0) {
            return util_err(err, SLOG_ENOMEM, UINT64_MAX, w->path, "Cannot add a timeline");
        }
        return SLOG_OK;
    case WOP_TABLES:
        w->a_strings = (size_t)r->u.tables.strings;
        w->a_ncat = (size_t)r->u.tables.ncat;
        return SLOG_OK;
    default:
        return util_err(err, SLOG_EINVAL, UINT64_MAX, w->path, "Bad writer record %u",
                        r->op);
    }
}

int api_writer_apply_batch(void *ctx, const uint8_t *batch, size_t len, slog_error *err)
{
    slog_writer *const w = ctx;
    size_t at = 0;
    int rc = SLOG_OK;
    while (rc == SLOG_OK && at < len) {
        const wrec *const r = (const wrec *)(const void *)(batch + at);
        at += sizeof *r;
        rc = api_writer_apply(w, r, batch + at, err);
        at += ((size_t)r->args_len + 7u) & ~(size_t)7u;
    }
    return rc == SLOG_OK ? SLOG_OK : util_err_source(err, rc, w->path);
}

static void tell_flush(const slog_writer *w, const store_summary *sum, bool durable)
{
    if (w->on_flush != NULL) {
        slog_flush_info fi = {sum->nodes, {0, 0, 0, 0}, sum->complete != 0, durable};
        memcpy(fi.counts, sum->counts, sizeof fi.counts);
        w->on_flush(w->on_flush_ctx, &fi);
    }
}

/* How far /strings must reach for the timeline rows this flush writes: a
 * background writer's caller may name a timeline (set_timeline) after the
 * last record it handed over.  The name reached the heap before the row
 * took it, and the row is read under grow_mu, so the heap up to its end is
 * there to append. */
static size_t strings_needed(const slog_writer *w)
{
    const char *const heap = (const char *)w->strings.heap.data;
    size_t need = w->a_strings;
    for (size_t i = 0; i < w->a_ntl; i++) {
        const uint64_t name = w->tls[i].name;
        if ((i >= w->tl_written || w->tl_dirty[i]) && name >= need) {
            need = (size_t)name + strlen(heap + name) + 1;
        }
    }
    return need;
}

/* The rows added or renamed since the last flush (under grow_mu when a
 * background shares the tables). */
static int append_tables(slog_writer *w, slog_error *err)
{
    int rc = SLOG_OK;
    const util_buf *const heap = &w->strings.heap;
    const size_t need = strings_needed(w);
    if (need > w->strings_written) {
        rc = store_append_strings(w->st, heap->data + w->strings_written,
                                  need - w->strings_written, err);
        w->strings_written = rc == SLOG_OK ? need : w->strings_written;
    }
    for (size_t i = 0; i < w->tl_written && rc == SLOG_OK; i++) {
        if (w->tl_dirty[i]) {
            rc = store_update_timeline(w->st, &w->tls[i], err);
            w->tl_dirty[i] = 0;
        }
    }
    if (rc == SLOG_OK && w->a_ntl > w->tl_written) {
        rc = store_append_timelines(w->st, w->tls + w->tl_written, w->a_ntl - w->tl_written, err);
        w->tl_written = rc == SLOG_OK ? w->a_ntl : w->tl_written;
    }
    if (rc == SLOG_OK && w->a_ncat > w->cat_written) {
        rc = store_append_categories(w->st, w->cats + w->cat_written, w->a_ncat - w->cat_written,
                                     err);
        w->cat_written = rc == SLOG_OK ? w->a_ncat : w->cat_written;
    }
    return rc;
}

int api_writer_flush_tables(slog_writer *w, uint32_t complete, slog_error *err)
{
    if (w->bg == NULL) {
        w->a_strings = w->strings.heap.len;
        w->a_ncat = w->ncat;
        w->t_min = w->c_tmin;
        w->t_max = w->c_tmax;
    }
    if (w->bg != NULL) {
        pthread_mutex_lock(&w->grow_mu);
    }
    int rc = append_tables(w, err);
    if (w->bg != NULL) {
        pthread_mutex_unlock(&w->grow_mu);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    store_summary sum;
    memset(&sum, 0, sizeof sum);
    sum.complete = complete;
    sum.depth = tree_build_depth(w->tb);
    sum.start = w->t_min;
    sum.end = w->t_max;
    tree_build_written_counts(w->tb, sum.counts);
    sum.nodes = tree_build_nodes_written(w->tb);
    sum.timelines = w->a_ntl;
    sum.categories = w->a_ncat;
    sum.strings_bytes = w->strings_written;
    sum.payload_bytes = tree_build_payload_bytes(w->tb);
    /* Everything the summary covers reaches the file before the summary:
     * a live reader (or a crash) that sees it finds all it counts. */
    rc = store_flush(w->st, err);
    if (rc == SLOG_OK) {
        tell_flush(w, &sum, false);
        rc = store_write_summary(w->st, &sum, err);
    }
    if (rc == SLOG_OK) {
        rc = store_flush(w->st, err);
    }
    if (rc == SLOG_OK) {
        tell_flush(w, &sum, true);
    }
    w->nodes_at_flush = sum.nodes;
    return rc;
}

void api_writer_apply_free(slog_writer *w)
{
    for (size_t i = 0; i < w->a_ntl; i++) {
        util_free(w->a_acc[i].acc);
    }
    util_free(w->a_acc);
    util_free(w->a_parent);
    util_free(w->a_root);
}
