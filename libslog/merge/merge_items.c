/* SPDX-License-Identifier: MIT
 *
 * merge_items.c - the slice buffer.  merge_items_take turns one drawable a
 * query returned (borrowed until the next slog_query_next) into a
 * merge_item in output ids and ticks, keeps it only when its key lies in
 * the slice (key = end - 1 for start < end, start for an instant: see
 * merge_slice.c for why that gives every drawable exactly one slice), and
 * copies its args into an arena of blocks that never move, so pointers
 * stay valid until the slice is cleared.  The slice is written in
 * (end, deeper first, start, kind, arrival) order: nondecreasing end time,
 * which the writer builds its tree best from, children before their
 * parents on a timeline, which the writer's exclusive time needs, and the
 * arrival number last, so the same inputs give the same file.
 * Merge library: public libslog headers and libslog/shared only.
 */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "merge_int.h"
#include <shared_grow.h>

#define ARENA_BLOCK ((size_t)256 << 10)

struct merge_arena_block {
    merge_arena_block *next;
    size_t size, used;
    alignas(max_align_t) unsigned char data[];
};

static void *arena_alloc(merge_items *b, size_t bytes)
{
    const size_t need = (bytes + 7u) & ~(size_t)7u;
    merge_arena_block *blk = b->blocks;
    if (blk == NULL || blk->size - blk->used < need) {
        const size_t size = need > ARENA_BLOCK ? need : ARENA_BLOCK;
        blk = malloc(sizeof *blk + size);
        if (blk == NULL) {
            return NULL;
        }
        blk->next = b->blocks;
        blk->size = size;
        blk->used = 0;
        b->blocks = blk;
    }
    void *const p = blk->data + blk->used;
    blk->used += need;
    return p;
}

static const char *arena_strdup(merge_items *b, const char *s)
{
    const size_t n = strlen(s) + 1;
    char *const p = arena_alloc(b, n);
    if (p != NULL) {
        memcpy(p, s, n);
    }
    return p;
}

static int copy_args(merge_items *b, const slog_arg *args, uint32_t n, const slog_arg **out)
{
    *out = NULL;
    if (n == 0 || args == NULL) {
        return 0;
    }
    slog_arg *const c = arena_alloc(b, (size_t)n * sizeof *c);
    if (c == NULL) {
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        c[i] = args[i];
        c[i].key = arena_strdup(b, args[i].key);
        const bool text = args[i].type == SLOG_ARG_STRING || args[i].type == SLOG_ARG_JSON;
        if (text) {
            c[i].v.s = arena_strdup(b, args[i].v.s);
        }
        if (c[i].key == NULL || (text && c[i].v.s == NULL)) {
            return -1;
        }
    }
    *out = c;
    return 0;
}

/* The item's fields in input ids and ticks, with its borrowed args. */
static void unpack(const slog_item *it, merge_item *x, const slog_arg **args)
{
    memset(x, 0, sizeof *x);
    x->kind = it->kind;
    *args = NULL;
    switch (it->kind) {
    case SLOG_KIND_STATE:
        x->timeline = x->timeline_to = it->u.state.timeline;
        x->category = it->u.state.category;
        x->start = it->u.state.start;
        x->end = it->u.state.end;
        x->depth = it->u.state.depth;
        x->nargs = it->u.state.nargs;
        *args = it->u.state.args;
        break;
    case SLOG_KIND_EVENT:
        x->timeline = x->timeline_to = it->u.event.timeline;
        x->category = it->u.event.category;
        x->start = x->end = it->u.event.time;
        x->nargs = it->u.event.nargs;
        *args = it->u.event.args;
        break;
    case SLOG_KIND_ARROW:
        x->timeline = it->u.arrow.from;
        x->timeline_to = it->u.arrow.to;
        x->category = it->u.arrow.category;
        x->start = it->u.arrow.start;
        x->end = it->u.arrow.end;
        x->nargs = it->u.arrow.nargs;
        *args = it->u.arrow.args;
        break;
    default: /* counters: the query asks for the four drawable kinds only */
        x->timeline = x->timeline_to = it->u.counter.timeline;
        x->category = it->u.counter.category;
        x->start = x->end = it->u.counter.time;
        x->value = it->u.counter.value;
        break;
    }
}

/* Input ids -> output ids; false when an id is not in the input's tables. */
static bool remap(const merge_input *in, merge_item *x)
{
    if (x->timeline >= in->info->timelines || x->timeline_to >= in->info->timelines ||
        x->category >= in->info->categories) {
        return false;
    }
    x->timeline = in->tl_map[x->timeline];
    x->timeline_to = in->tl_map[x->timeline_to];
    x->category = in->cat_map[x->category];
    return true;
}

int merge_items_take(merge_items *b, merge_input *in, const slog_item *it, bool *kept,
                     slog_error *err)
{
    merge_item x;
    const slog_arg *args;
    *kept = false;
    if (it->kind > SLOG_KIND_COUNTER) { /* not asked for: a drawable query gives none */
        return SLOG_OK;
    }
    unpack(it, &x, &args);
    x.nargs = args != NULL ? x.nargs : 0;
    const int64_t s0 = x.start;
    const int64_t e0 = x.end;
    if (!merge_time_out(in, s0, &x.start) || !merge_time_out(in, e0, &x.end)) {
        return merge_err(err, SLOG_EINVAL, in->path,
                         "A drawable at %lld..%lld ticks does not fit in 64 bits once converted",
                         (long long)s0, (long long)e0);
    }
    const int64_t key = x.start < x.end ? x.end - 1 : x.start;
    if (key < b->ka || key > b->kb) {
        return SLOG_OK;
    }
    if (!remap(in, &x)) {
        return merge_err(err, SLOG_ECORRUPT, in->path,
                         "A drawable at %lld..%lld ticks names timeline %u or category %u, "
                         "which the file does not define",
                         (long long)s0, (long long)e0, x.timeline, x.category);
    }
    if (shared_grow(&b->v, &b->cap, b->n + 1, sizeof *b->v) != 0 ||
        copy_args(b, args, x.nargs, &x.args) != 0) {
        return merge_err(err, SLOG_ENOMEM, in->path, "Cannot hold a slice of drawables");
    }
    x.seq = b->seq++;
    b->v[b->n++] = x;
    in->pending[x.kind]++;
    *kept = true;
    return SLOG_OK;
}

static int cmp_item(const void *pa, const void *pb)
{
    const merge_item *const a = *(const merge_item *const *)pa;
    const merge_item *const b = *(const merge_item *const *)pb;
    if (a->end != b->end) {
        return a->end < b->end ? -1 : 1;
    }
    if (a->depth != b->depth) {
        return a->depth > b->depth ? -1 : 1; /* children first */
    }
    if (a->start != b->start) {
        return a->start < b->start ? -1 : 1;
    }
    if (a->kind != b->kind) {
        return a->kind < b->kind ? -1 : 1;
    }
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int merge_items_sort(merge_items *b)
{
    if (shared_grow(&b->order, &b->order_cap, b->n, sizeof(const merge_item *)) != 0) {
        return -1;
    }
    for (size_t i = 0; i < b->n; i++) {
        b->order[i] = &b->v[i];
    }
    if (b->n > 1) {
        qsort(b->order, b->n, sizeof(const merge_item *), cmp_item);
    }
    return 0;
}

static int append(slog_writer *w, const merge_item *x, slog_error *err)
{
    switch (x->kind) {
    case SLOG_KIND_STATE: {
        const slog_state s = {x->timeline, x->category, x->start, x->end,
                              x->depth,    x->nargs,    x->args};
        return slog_writer_append_state(w, &s, err);
    }
    case SLOG_KIND_EVENT: {
        const slog_event e = {x->timeline, x->category, x->start, x->nargs, x->args};
        return slog_writer_append_event(w, &e, err);
    }
    case SLOG_KIND_ARROW: {
        const slog_arrow a = {x->category, x->timeline, x->timeline_to, x->start,
                              x->end,      x->nargs,    x->args};
        return slog_writer_append_arrow(w, &a, err);
    }
    default: {
        const slog_counter c = {x->timeline, x->category, x->start, x->value};
        return slog_writer_append_counter(w, &c, err);
    }
    }
}

int merge_items_write(const merge_items *b, slog_writer *w, slog_merge_summary *sum,
                      slog_error *err)
{
    for (size_t i = 0; i < b->n; i++) {
        const merge_item *const x = b->order[i];
        const int rc = append(w, x, err);
        if (rc != SLOG_OK) {
            return rc;
        }
        const bool first = sum->states + sum->events + sum->arrows + sum->counters == 0;
        sum->start = first || x->start < sum->start ? x->start : sum->start;
        sum->end = first || x->end > sum->end ? x->end : sum->end;
        uint64_t *const counts[4] = {&sum->states, &sum->events, &sum->arrows, &sum->counters};
        (*counts[x->kind])++;
    }
    return SLOG_OK;
}

void merge_items_clear(merge_items *b)
{
    merge_arena_block *blk = b->blocks;
    while (blk != NULL && blk->next != NULL) { /* keep the last (oldest) block */
        merge_arena_block *const next = blk->next;
        free(blk);
        blk = next;
    }
    if (blk != NULL) {
        blk->used = 0;
    }
    b->blocks = blk;
    b->n = 0;
}

void merge_items_free(merge_items *b)
{
    merge_items_clear(b);
    free(b->blocks);
    free(b->v);
    free(b->order);
    memset(b, 0, sizeof *b);
}
