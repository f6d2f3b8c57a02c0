/* SPDX-License-Identifier: MIT
 *
 * pf_harness.c - the import-and-read-back harness of pf_harness.h.
 */
#include "pf_harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfetto_import.h"

typedef struct mem_in {
    const uint8_t *p;
    size_t n, at, chunk, fail;
} mem_in;

static long mem_read(void *user, void *buf, size_t n)
{
    mem_in *m = user;
    if (m->fail != 0 && m->at >= m->fail) {
        return -1;
    }
    size_t k = m->n - m->at;
    k = k < n ? k : n;
    if (m->chunk != 0 && k > m->chunk) {
        k = m->chunk;
    }
    memcpy(buf, m->p + m->at, k);
    m->at += k;
    return (long)k;
}

static const char *mem_error(void *user)
{
    (void)user;
    return "test read failure";
}

static void on_count(void *user, const char *what, int outcome, uint64_t n)
{
    (void)outcome;
    pfh_result *r = user;
    if (r->nrows < PFH_MAX_ROWS) {
        (void)snprintf(r->rows[r->nrows], sizeof r->rows[0], "%s", what);
        r->row_n[r->nrows++] = n;
    }
}

static void on_warn(void *user, uint64_t offset, const char *msg)
{
    pfh_result *r = user;
    if (r->nwarn < PFH_MAX_WARN) {
        r->warn_offset[r->nwarn] = offset;
        (void)snprintf(r->warn[r->nwarn++], sizeof r->warn[0], "%s", msg);
    }
}

static void args_text(char *out, size_t cap, const slog_arg *a, uint32_t n)
{
    size_t at = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < n && at < cap; i++) {
        char v[256];
        switch (a[i].type) {
        case SLOG_ARG_INT: (void)snprintf(v, sizeof v, "i:%" PRId64, a[i].v.i); break;
        case SLOG_ARG_UINT: (void)snprintf(v, sizeof v, "u:%" PRIu64, a[i].v.u); break;
        case SLOG_ARG_DOUBLE: (void)snprintf(v, sizeof v, "d:%g", a[i].v.d); break;
        case SLOG_ARG_BOOL: (void)snprintf(v, sizeof v, "b:%d", a[i].v.b ? 1 : 0); break;
        case SLOG_ARG_STRING: (void)snprintf(v, sizeof v, "s:%s", a[i].v.s); break;
        default: (void)snprintf(v, sizeof v, "j:%s", a[i].v.s); break;
        }
        at += (size_t)snprintf(out + at, cap - at, "%s=%s;", a[i].key, v);
    }
}

static void fill_item(slog_reader *rd, const slog_item *it, pfh_item *o)
{
    memset(o, 0, sizeof *o);
    o->kind = it->kind;
    const slog_arg *args = NULL;
    uint32_t nargs = 0;
    switch (it->kind) {
    case SLOG_KIND_STATE:
        o->timeline = it->u.state.timeline; o->category = it->u.state.category;
        o->t0 = it->u.state.start; o->t1 = it->u.state.end; o->depth = it->u.state.depth;
        args = it->u.state.args; nargs = it->u.state.nargs;
        break;
    case SLOG_KIND_EVENT:
        o->timeline = it->u.event.timeline; o->category = it->u.event.category;
        o->t0 = o->t1 = it->u.event.time;
        args = it->u.event.args; nargs = it->u.event.nargs;
        break;
    case SLOG_KIND_ARROW:
        o->timeline = it->u.arrow.from; o->to = it->u.arrow.to;
        o->category = it->u.arrow.category;
        o->t0 = it->u.arrow.start; o->t1 = it->u.arrow.end;
        break;
    default:
        o->timeline = it->u.counter.timeline; o->category = it->u.counter.category;
        o->t0 = o->t1 = it->u.counter.time; o->value = it->u.counter.value;
        break;
    }
    slog_timeline_info ti;
    slog_category_info ci;
    if (slog_reader_timeline(rd, o->timeline, &ti) == SLOG_OK) {
        (void)snprintf(o->tl_name, sizeof o->tl_name, "%s", ti.name);
    }
    if (it->kind == SLOG_KIND_ARROW && slog_reader_timeline(rd, o->to, &ti) == SLOG_OK) {
        (void)snprintf(o->to_name, sizeof o->to_name, "%s", ti.name);
    }
    if (slog_reader_category(rd, o->category, &ci) == SLOG_OK) {
        (void)snprintf(o->name, sizeof o->name, "%s", ci.name);
        (void)snprintf(o->group, sizeof o->group, "%s", ci.group);
    }
    args_text(o->args, sizeof o->args, args, nargs);
}

static int by_order(const void *a, const void *b)
{
    const pfh_item *x = a, *y = b;
    if (x->kind != y->kind) {
        return x->kind < y->kind ? -1 : 1;
    }
    if (x->t0 != y->t0) {
        return x->t0 < y->t0 ? -1 : 1;
    }
    if (x->t1 != y->t1) {
        return x->t1 < y->t1 ? -1 : 1;
    }
    const int c = strcmp(x->tl_name, y->tl_name);
    return c != 0 ? c : strcmp(x->name, y->name);
}

static void read_back(const char *path, pfh_result *r)
{
    slog_reader *rd = NULL;
    if (slog_reader_open(&rd, path, NULL, NULL) != SLOG_OK) {
        return;
    }
    const slog_file_info *info = slog_reader_info(rd);
    r->timelines = info->timelines;
    for (uint32_t i = 0; i < info->timelines && i < 64; i++) {
        slog_timeline_info ti;
        if (slog_reader_timeline(rd, i, &ti) == SLOG_OK) {
            (void)snprintf(r->tl_names[i], sizeof r->tl_names[0], "%s", ti.name);
            r->tl_kinds[i] = ti.kind;
            r->tl_parents[i] = ti.parent;
            r->tl_sort_keys[i] = ti.sort_key;
        }
    }
    slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    qo.t0 = INT64_MIN;
    qo.t1 = INT64_MAX;
    qo.flags = SLOG_QUERY_ARGS;
    slog_query *q = NULL;
    const slog_item *it;
    if (info->states + info->events + info->arrows + info->counters > 0 &&
        slog_query_create(&q, rd, &qo, NULL) == SLOG_OK) {
        while (slog_query_next(q, &it, NULL) == SLOG_OK && r->n < PFH_MAX_ITEMS) {
            fill_item(rd, it, &r->items[r->n++]);
        }
    }
    slog_query_destroy(q);
    slog_reader_destroy(rd);
    qsort(r->items, r->n, sizeof r->items[0], by_order);
}

pfh_result *pfh_run(const uint8_t *bytes, size_t n, size_t chunk, size_t fail_read)
{
    pfh_result *r = calloc(1, sizeof *r);
    char path[] = "/tmp/pfh_XXXXXX";
    const int fd = mkstemp(path);
    if (r == NULL || fd < 0) {
        free(r);
        return NULL;
    }
    (void)close(fd);
    slog_writer *w = NULL;
    if (slog_writer_create(&w, path, NULL, NULL) != SLOG_OK) {
        free(r);
        return NULL;
    }
    mem_in in = {bytes, n, 0, chunk, fail_read};
    const pf_hooks hooks = {r, on_count, on_warn, NULL, mem_error};
    r->rc = perfetto_import(w, mem_read, &in, &hooks, &r->err);
    (void)slog_writer_finish(w, NULL);
    slog_writer_destroy(w);
    read_back(path, r);
    (void)unlink(path);
    return r;
}

uint64_t pfh_row(const pfh_result *r, const char *what)
{
    for (size_t i = 0; i < r->nrows; i++) {
        if (strcmp(r->rows[i], what) == 0) {
            return r->row_n[i];
        }
    }
    return 0;
}

const pfh_item *pfh_find(const pfh_result *r, slog_kind k, const char *name)
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->items[i].kind == k && strcmp(r->items[i].name, name) == 0) {
            return &r->items[i];
        }
    }
    return NULL;
}

size_t pfh_count(const pfh_result *r, slog_kind k)
{
    size_t c = 0;
    for (size_t i = 0; i < r->n; i++) {
        c += r->items[i].kind == k;
    }
    return c;
}
