/* SPDX-License-Identifier: MIT
 *
 * output_chrome.c - a window as Chrome Trace Event JSON (object form,
 * "displayTimeUnit": "ns"), so it opens in Perfetto or chrome://tracing and
 * re-imports through slog-import.
 *
 * Mapping.  A timeline of kind PROCESS, or one with children, or a top-level
 * one, becomes a pid (numbered 1.. in display order); every other timeline
 * becomes a tid under its nearest pid ancestor.  process_name/thread_name
 * (and *_sort_index with the sort key) M events carry the names, written
 * just before the first drawable of their timeline (and of its pid): only
 * the timelines the output holds are named, in constant memory.
 * States are X events (name = category, cat = category group, depth implied
 * by nesting), events i with the scope the Chrome importer reads back ("g"
 * on its top-level "global" timeline, "p" on another pid timeline, "t" on
 * a tid), arrows s/f flow pairs with a fresh id and bp "e", counter samples
 * C events {"name": counter, "id": id, args {category: v}} (on a counter
 * track "NAME.SERIES" or "NAME[ID].SERIES" of the category SERIES of group
 * NAME, as the importer of C events names them, NAME and ID; on another
 * "PREFIX.SERIES" track, PREFIX; else the category): a Chrome trace keeps
 * every drawable's timeline path (tests/chrome_roundtrip.py).
 * ts/dur are microseconds printed from integer ns with exactly three
 * fraction digits, never through a double.  Drawables on a pid timeline use
 * tid = pid (but for instants, they come back on a thread of the process
 * when re-imported: Chrome has no slices on a process).  Previews have no
 * Chrome equivalent: state previews become X events of cat "slog.preview"
 * carrying the summary in args; the others are counted in "otherData".
 * Pixel runs (of any kind) become X events named after their dominant
 * category, cat "slog.run", args {of, count, share, inclusive_ns,
 * categories}.
 * Tools layer: public libslog headers and utils/common.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "query_out.h"
#include "units.h"

/* What a timeline becomes. */
typedef struct chrome_tl {
    uint32_t pid;
    uint32_t tid; /* == pid for a pid timeline */
    bool is_process;
    bool is_global; /* the Chrome importer's "global": its instants are "s":"g" */
    bool named;     /* its M events are written */
} chrome_tl;

typedef struct chrome_state {
    chrome_tl *tl; /* per timeline */
    bool first;
    uint64_t next_flow;
    uint64_t previews_skipped;
} chrome_state;

static bool is_root(const timeline_tree *t, uint32_t id)
{
    return t->info[id].parent == SLOG_NO_PARENT || t->info[id].parent >= t->n;
}

static bool process_role(const timeline_tree *t, uint32_t id)
{
    return t->info[id].kind == SLOG_TIMELINE_PROCESS || timeline_tree_nchildren(t, id) > 0 ||
           is_root(t, id);
}

/* The timeline the Chrome importer makes for global-scoped instants of a
 * single input (one of several inputs gets "global (FILE)": exported as a
 * process of that name, so that it keeps its name). */
static bool is_global(const timeline_tree *t, uint32_t id)
{
    return t->info[id].kind == SLOG_TIMELINE_GENERIC && is_root(t, id) &&
           timeline_tree_nchildren(t, id) == 0 && strcmp(t->info[id].name, "global") == 0;
}

/* pids and tids in display order, so a parent is numbered before its children */
static void assign_ids(chrome_tl *tl, const timeline_tree *t)
{
    uint32_t next_pid = 1;
    for (uint32_t k = 0; k < t->n; k++) {
        const uint32_t id = t->order[k];
        const uint32_t parent = t->info[id].parent;
        if (process_role(t, id) || !tl[parent].is_process) {
            tl[id].is_process = true;
            tl[id].is_global = is_global(t, id);
            tl[id].pid = next_pid++;
            tl[id].tid = tl[id].pid;
        }
    }
    /* tids above every pid, so a pid timeline's own tid (== pid) is unique */
    uint32_t next_tid = next_pid;
    for (uint32_t k = 0; k < t->n; k++) {
        const uint32_t id = t->order[k];
        if (!tl[id].is_process) {
            tl[id].pid = tl[t->info[id].parent].pid;
            tl[id].tid = next_tid++;
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
    json_kv_uint(j, "pid", st->tl[id].pid);
    json_kv_uint(j, "tid", st->tl[id].tid);
    json_key(j, "args");
    json_begin_object(j);
}

static void meta_close(json_writer *j)
{
    json_end_object(j);
    json_end_object(j);
}

/* The name and (always, so an importer's default order cannot differ from
 * ours) the sort index of timeline @p id, once. */
static void write_names(qout_ctx *c, uint32_t id)
{
    chrome_state *st = c->impl;
    const bool proc = st->tl[id].is_process;
    json_writer j;
    st->tl[id].named = true;
    meta_open(c, &j, proc ? "process_name" : "thread_name", id);
    json_kv_string(&j, "name", c->tl->info[id].name);
    meta_close(&j);
    meta_open(c, &j, proc ? "process_sort_index" : "thread_sort_index", id);
    json_kv_int(&j, "sort_index", c->tl->info[id].sort_key);
    meta_close(&j);
}

/* Before the first drawable of timeline @p id: the M events of its pid
 * timeline, then its own, so only exported timelines are named.  A counter
 * track has none: its samples are C events of the process, named after it. */
static void name_timeline(qout_ctx *c, uint32_t id)
{
    chrome_state *st = c->impl;
    if (id >= c->tl->n || st->tl[id].named) {
        return;
    }
    if (!st->tl[id].is_process) {
        const uint32_t parent = c->tl->info[id].parent;
        if (!st->tl[parent].named) {
            write_names(c, parent);
        }
        if (c->tl->info[id].kind == SLOG_TIMELINE_COUNTER) {
            st->tl[id].named = true;
            return;
        }
    }
    write_names(c, id);
}

static int chrome_begin(qout_ctx *c)
{
    chrome_state *st = calloc(1, sizeof *st);
    const uint32_t n = c->tl->n;
    if (st == NULL) {
        return -1;
    }
    c->impl = st;
    st->tl = calloc((size_t)n + 1, sizeof *st->tl);
    if (st->tl == NULL) {
        return -1;
    }
    st->first = true;
    assign_ids(st->tl, c->tl);
    (void)fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", c->f);
    return 0;
}

/* "ph", name/cat from the category (cat: @p cat when not NULL), pid/tid
 * from the timeline, "ts" from sp.start; the object stays open.  The
 * timeline is named first, unless this is an instant on the global
 * timeline (written "s":"g", it needs no pid). */
static void event_head_named(
    qout_ctx *c, json_writer *j, const char *ph, qout_span sp, const char *cat, const char *name)
{
    const uint32_t timeline = sp.timeline;
    const uint32_t category = sp.category;
    const int64_t ts_ticks = sp.start;
    const chrome_state *st = c->impl;
    const bool known = timeline < c->tl->n;
    char buf[48];
    if (known && !(ph[0] == 'i' && st->tl[timeline].is_global)) {
        name_timeline(c, timeline);
    }
    next_element(c);
    json_writer_init(j, c->f);
    json_begin_object(j);
    json_kv_string(j, "ph", ph);
    json_kv_string(j, "name", name != NULL ? name : qout_category_name(c, category));
    const char *group = cat != NULL ? cat : qout_category_group(c, category);
    if (*group != '\0') {
        json_kv_string(j, "cat", group);
    }
    json_kv_uint(j, "pid", known ? st->tl[timeline].pid : 0);
    json_kv_uint(j, "tid", known ? st->tl[timeline].tid : 0);
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

/* An instant keeps its scope: "g" on the global timeline, "p" on a pid
 * timeline (the Chrome importer puts them back there, not on a thread),
 * "t" on a thread. */
static void chrome_event_i(qout_ctx *c, json_writer *j, const slog_item *it)
{
    const slog_event *e = &it->u.event;
    const chrome_state *st = c->impl;
    const char *scope = "t";
    if (e->timeline < c->tl->n && st->tl[e->timeline].is_process) {
        scope = st->tl[e->timeline].is_global ? "g" : "p";
    }
    event_head(c, j, "i", (qout_span){e->timeline, e->category, e->time, e->time}, NULL);
    json_kv_string(j, "s", scope);
    args_field(j, it);
    json_end_object(j);
}

/* The counter a sample re-imports under (strings allocated; NULL: none, or
 * no memory).  On a counter track named "NAME.SERIES" or "NAME[ID].SERIES"
 * for the sample's category SERIES of group NAME (how the Chrome importer
 * names series SERIES of counter NAME, with or without an id), NAME and ID:
 * track and category come back as they were.  On another track named
 * "PREFIX.SERIES", PREFIX (the track keeps its name); otherwise none, and
 * the series names the counter. */
typedef struct counter_name {
    char *name;
    char *id;
} counter_name;

static counter_name counter_name_of(const qout_ctx *c, const slog_counter *k, const char *series)
{
    counter_name out = {NULL, NULL};
    if (k->timeline >= c->tl->n || c->tl->info[k->timeline].kind != SLOG_TIMELINE_COUNTER) {
        return out;
    }
    const char *track = c->tl->info[k->timeline].name;
    const char *group = qout_category_group(c, k->category);
    const size_t n = strlen(track);
    const size_t ns = strlen(series);
    const size_t ng = strlen(group);
    if (n < ns + 1 || track[n - ns - 1] != '.' || strcmp(track + n - ns, series) != 0) {
        return out;
    }
    const size_t head = n - ns - 1; /* NAME or NAME[ID] */
    const bool of_group = strncmp(track, group, ng) == 0;
    if (of_group && head == ng) {
        out.name = strndup(group, ng);
    } else if (of_group && head >= ng + 2 && track[ng] == '[' && track[head - 1] == ']') {
        out.name = strndup(group, ng);
        out.id = strndup(track + ng + 1, head - ng - 2);
    } else if (head > 0) {
        out.name = strndup(track, head);
    }
    return out;
}

/* C event: {"name": counter, "id": id, "args": {series: value}} where the
 * series is the category. */
static void chrome_counter_c(qout_ctx *c, json_writer *j, const slog_counter *k)
{
    const char *series = qout_category_name(c, k->category);
    counter_name cn = counter_name_of(c, k, series);
    event_head_named(c, j, "C", (qout_span){k->timeline, k->category, k->time, k->time}, NULL,
                     cn.name);
    if (cn.id != NULL) {
        json_kv_string(j, "id", cn.id);
    }
    free(cn.name);
    free(cn.id);
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
    free(st->tl);
    free(st);
    c->impl = NULL;
    return 0;
}

const qout_format qout_chrome = {"chrome", chrome_begin, chrome_item, chrome_end};
