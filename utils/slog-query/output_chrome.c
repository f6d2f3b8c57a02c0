/* SPDX-License-Identifier: MIT
 *
 * output_chrome.c - a window as Chrome Trace Event JSON (object form,
 * "displayTimeUnit": "ns"), so it opens in Perfetto or chrome://tracing and
 * re-imports through slog-import.
 *
 * Mapping.  A timeline of kind PROCESS, or one with children, or a top-level
 * one, becomes a pid (numbered 1.. in display order); every other timeline
 * becomes a tid under its nearest pid ancestor.  process_name/thread_name
 * (and *_sort_index with the sort key) M events carry the names.
 * States are X events (name = category, cat = category group, depth implied
 * by nesting), events i (scope t), arrows s/f flow pairs with a fresh id and
 * bp "e", counter samples C events {"name": counter, args {category: v}}
 * (counter = the track's name without ".category" for a counter track
 * named that way, as importers of C events name them, else the category).
 * ts/dur are microseconds printed from integer ns with exactly three
 * fraction digits, never through a double.  Drawables on a pid timeline use
 * tid = pid.  Previews have no Chrome equivalent: state previews become X
 * events of cat "slog.preview" carrying the summary in args; the others are
 * counted in "otherData".  Pixel runs (of any kind) become X events named
 * after their dominant category, cat "slog.run", args {of, count, share,
 * inclusive_ns, categories}.
 * Tools layer: public libslog headers and utils/common.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "query_out.h"
#include "units.h"

typedef struct chrome_state {
    uint32_t *pid; /* per timeline */
    uint32_t *tid; /* per timeline; == pid for a pid timeline */
    bool *is_process;
    bool first;
    uint64_t next_flow;
    uint64_t previews_skipped;
} chrome_state;

static bool process_role(const timeline_tree *t, uint32_t id)
{
    const slog_timeline_info *ti = &t->info[id];
    return ti->kind == SLOG_TIMELINE_PROCESS || timeline_tree_nchildren(t, id) > 0 ||
           ti->parent == SLOG_NO_PARENT || ti->parent >= t->n;
}

/* pids and tids in display order, so a parent is numbered before its children */
static void assign_ids(chrome_state *st, const timeline_tree *t)
{
    uint32_t next_pid = 1;
    for (uint32_t k = 0; k < t->n; k++) {
        const uint32_t id = t->order[k];
        const uint32_t parent = t->info[id].parent;
        if (process_role(t, id) || !st->is_process[parent]) {
            st->is_process[id] = true;
            st->pid[id] = next_pid++;
            st->tid[id] = st->pid[id];
        }
    }
    /* tids above every pid, so a pid timeline's own tid (== pid) is unique */
    uint32_t next_tid = next_pid;
    for (uint32_t k = 0; k < t->n; k++) {
        const uint32_t id = t->order[k];
        if (!st->is_process[id]) {
            st->pid[id] = st->pid[t->info[id].parent];
            st->tid[id] = next_tid++;
        }
    }
}

/* Comma and newline between array elements. */
static void next_element(qout_ctx *c)
{
    chrome_state *st = c->impl;
    (void)fputs(st->first ? "\n" : ",\n", c->f);
    st->first = false;
}

/* Open an M event {"ph":"M","name":what,"pid","tid","args":{ (left open). */
static void meta_open(qout_ctx *c, json_writer *j, const char *what, uint32_t id)
{
    const chrome_state *st = c->impl;
    next_element(c);
    json_writer_init(j, c->f);
    json_begin_object(j);
    json_kv_string(j, "ph", "M");
    json_kv_string(j, "name", what);
    json_kv_uint(j, "pid", st->pid[id]);
    json_kv_uint(j, "tid", st->tid[id]);
    json_key(j, "args");
    json_begin_object(j);
}

static void meta_close(json_writer *j)
{
    json_end_object(j);
    json_end_object(j);
}

static void emit_metadata(qout_ctx *c, json_writer *j)
{
    const chrome_state *st = c->impl;
    const timeline_tree *t = c->tl;
    for (uint32_t k = 0; k < t->n; k++) {
        const uint32_t id = t->order[k];
        const slog_timeline_info *ti = &t->info[id];
        const bool proc = st->is_process[id];
        if (!proc && ti->kind == SLOG_TIMELINE_COUNTER) {
            continue; /* its samples are C events of the process, named after it */
        }
        meta_open(c, j, proc ? "process_name" : "thread_name", id);
        json_kv_string(j, "name", ti->name);
        meta_close(j);
        /* always, so an importer's default order cannot differ from ours */
        meta_open(c, j, proc ? "process_sort_index" : "thread_sort_index", id);
        json_kv_int(j, "sort_index", ti->sort_key);
        meta_close(j);
    }
}

static int chrome_begin(qout_ctx *c)
{
    chrome_state *st = calloc(1, sizeof *st);
    const uint32_t n = c->tl->n;
    if (st == NULL) {
        return -1;
    }
    c->impl = st;
    st->pid = calloc((size_t)n + 1, sizeof *st->pid);
    st->tid = calloc((size_t)n + 1, sizeof *st->tid);
    st->is_process = calloc((size_t)n + 1, sizeof *st->is_process);
    if (st->pid == NULL || st->tid == NULL || st->is_process == NULL) {
        return -1;
    }
    st->first = true;
    assign_ids(st, c->tl);
    (void)fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", c->f);
    json_writer j;
    json_writer_init(&j, c->f);
    emit_metadata(c, &j);
    return 0;
}

/* "ph", name/cat from the category (cat: @p cat when not NULL), pid/tid
 * from the timeline, "ts" from sp.start; the object stays open. */
static void event_head_named(
    qout_ctx *c, json_writer *j, const char *ph, qout_span sp, const char *cat, const char *name)
{
    const uint32_t timeline = sp.timeline;
    const uint32_t category = sp.category;
    const int64_t ts_ticks = sp.start;
    const chrome_state *st = c->impl;
    char buf[48];
    next_element(c);
    json_writer_init(j, c->f);
    json_begin_object(j);
    json_kv_string(j, "ph", ph);
    json_kv_string(j, "name", name != NULL ? name : qout_category_name(c, category));
    const char *group = cat != NULL ? cat : qout_category_group(c, category);
    if (*group != '\0') {
        json_kv_string(j, "cat", group);
    }
    const bool known = timeline < c->tl->n;
    json_kv_uint(j, "pid", known ? st->pid[timeline] : 0);
    json_kv_uint(j, "tid", known ? st->tid[timeline] : 0);
    json_key(j, "ts");
    json_raw(j, units_format_us3(qout_abs_ns(c, ts_ticks), buf, sizeof buf));
}

static void event_head(qout_ctx *c, json_writer *j, const char *ph, qout_span sp, const char *cat)
{
    event_head_named(c, j, ph, sp, cat, NULL);
}

static void dur_field(qout_ctx *c, json_writer *j, int64_t start, int64_t end)
{
    char buf[48];
    json_key(j, "dur");
    json_raw(j, units_format_us3(qout_abs_ns(c, end) - qout_abs_ns(c, start), buf, sizeof buf));
}

static void args_field(json_writer *j, const slog_item *it)
{
    const slog_arg *args;
    const uint32_t n = qout_item_args(it, &args);
    if (n > 0) {
        json_key(j, "args");
        qout_args_json(j, args, n);
    }
}

static void chrome_arrow(qout_ctx *c, json_writer *j, const slog_item *it)
{
    chrome_state *st = c->impl;
    const slog_arrow *a = &it->u.arrow;
    const uint64_t id = ++st->next_flow;
    event_head(c, j, "s", (qout_span){a->from, a->category, a->start, a->start}, NULL);
    json_kv_uint(j, "id", id);
    args_field(j, it);
    json_end_object(j);
    event_head(c, j, "f", (qout_span){a->to, a->category, a->end, a->end}, NULL);
    json_kv_uint(j, "id", id);
    json_kv_string(j, "bp", "e");
    json_end_object(j);
}

static void chrome_preview(qout_ctx *c, json_writer *j, const slog_preview *p)
{
    chrome_state *st = c->impl;
    if (p->of != SLOG_KIND_STATE || !qout_row_is_timeline(p->fold) || p->row >= c->tl->n) {
        st->previews_skipped++;
        return;
    }
    event_head(c, j, "X", (qout_span){p->row, p->category, p->start, p->end}, "slog.preview");
    dur_field(c, j, p->start, p->end);
    json_key(j, "args");
    json_begin_object(j);
    json_kv_uint(j, "fold", p->fold);
    json_kv_uint(j, "count", p->count);
    json_kv_int(j, "inclusive_ns", qout_dur_ns(c, p->inclusive));
    json_kv_int(j, "exclusive_ns", qout_dur_ns(c, p->exclusive));
    json_kv_int(j, "min_ns", qout_dur_ns(c, p->min));
    json_kv_int(j, "max_ns", qout_dur_ns(c, p->max));
    json_end_object(j);
    json_end_object(j);
}

/* A pixel run of any kind: an X event over [start, end] named after its
 * dominant category, cat "slog.run", with what it merges in args. */
static void chrome_run(qout_ctx *c, json_writer *j, const slog_run *r)
{
    event_head(c, j, "X", (qout_span){r->timeline, r->category, r->start, r->end}, "slog.run");
    dur_field(c, j, r->start, r->end);
    json_key(j, "args");
    json_begin_object(j);
    json_kv_string(j, "of", drawable_kind_name(r->of));
    json_kv_uint(j, "count", r->count);
    json_kv_double(j, "share", qout_run_share(r));
    if (r->of == SLOG_KIND_STATE || r->of == SLOG_KIND_ARROW) {
        json_kv_int(j, "inclusive_ns", qout_dur_ns(c, r->inclusive));
    }
    json_kv_uint(j, "categories", r->ncategories);
    json_end_object(j);
    json_end_object(j);
}

static void chrome_state_x(qout_ctx *c, json_writer *j, const slog_item *it)
{
    const slog_state *s = &it->u.state;
    event_head(c, j, "X", (qout_span){s->timeline, s->category, s->start, s->end}, NULL);
    dur_field(c, j, s->start, s->end);
    args_field(j, it);
    json_end_object(j);
}

static void chrome_event_i(qout_ctx *c, json_writer *j, const slog_item *it)
{
    const slog_event *e = &it->u.event;
    event_head(c, j, "i", (qout_span){e->timeline, e->category, e->time, e->time}, NULL);
    json_kv_string(j, "s", "t");
    args_field(j, it);
    json_end_object(j);
}

/* Length of the counter name when @p timeline is a counter track named
 * "NAME.SERIES" after the sample's category SERIES (what an importer of C
 * events creates), else 0: then NAME is given back and the track re-imports
 * under the same name. */
static size_t counter_track_prefix(const qout_ctx *c, uint32_t timeline, const char *series)
{
    if (timeline >= c->tl->n || c->tl->info[timeline].kind != SLOG_TIMELINE_COUNTER) {
        return 0;
    }
    const char *name = c->tl->info[timeline].name;
    const size_t n = strlen(name);
    const size_t ns = strlen(series);
    if (n < ns + 2 || name[n - ns - 1] != '.' || strcmp(name + n - ns, series) != 0) {
        return 0;
    }
    return n - ns - 1;
}

/* C event: {"name": counter, "args": {series: value}} where the series is
 * the category. */
static void chrome_counter_c(qout_ctx *c, json_writer *j, const slog_counter *k)
{
    const char *series = qout_category_name(c, k->category);
    const size_t prefix = counter_track_prefix(c, k->timeline, series);
    char *name = prefix > 0 ? strndup(c->tl->info[k->timeline].name, prefix) : NULL;
    event_head_named(c, j, "C", (qout_span){k->timeline, k->category, k->time, k->time}, NULL,
                     name);
    free(name);
    json_key(j, "args");
    json_begin_object(j);
    json_kv_double(j, series, k->value);
    json_end_object(j);
    json_end_object(j);
}

static int chrome_item(qout_ctx *c, const slog_item *it)
{
    json_writer j;
    switch (it->kind) {
    case SLOG_KIND_STATE:
        chrome_state_x(c, &j, it);
        break;
    case SLOG_KIND_EVENT:
        chrome_event_i(c, &j, it);
        break;
    case SLOG_KIND_ARROW:
        chrome_arrow(c, &j, it);
        break;
    case SLOG_KIND_COUNTER:
        chrome_counter_c(c, &j, &it->u.counter);
        break;
    case SLOG_KIND_PREVIEW:
        chrome_preview(c, &j, &it->u.preview);
        break;
    case SLOG_KIND_RUN:
        chrome_run(c, &j, &it->u.run);
        break;
    }
    return ferror(c->f) ? -1 : 0;
}

static int chrome_end(qout_ctx *c)
{
    chrome_state *st = c->impl;
    if (st == NULL) {
        return -1;
    }
    (void)fprintf(c->f,
                  "\n],\"otherData\":{\"generator\":\"slog-query\",\"previews_skipped\":%" PRIu64
                  "}}\n",
                  st->previews_skipped);
    free(st->pid);
    free(st->tid);
    free(st->is_process);
    free(st);
    c->impl = NULL;
    return 0;
}

const qout_format qout_chrome = {"chrome", chrome_begin, chrome_item, chrome_end};
