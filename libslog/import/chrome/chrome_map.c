/* SPDX-License-Identifier: MIT
 *
 * chrome_map.c - Trace Event phases -> libslog drawables (doc/IMPORT-CHROME.md
 * is the phase-by-phase contract): the mapper's entry points, the checks
 * every record passes, and the dispatch by phase to the files that map each
 * kind (chrome_map_int.h lists them, with the record ownership rule).
 * Events arrive sorted by ts (stage 1); drawables leave through a second
 * window ordered by end time (chrome_map_out.c).
 *
 * X events with equal ts are held briefly and taken longest first, so a
 * parent written after its child (common: X is written when it ends) still
 * nests correctly.
 * Import library, chrome: public libslog headers, libc.
 */
#include <shared_grow.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_map_int.h"

static const struct {
    const char *what;
    import_outcome outcome;
} kinfo[K_COUNT] = {
    [K_BE] = {"B/E -> state", IMPORT_IMPORTED},
    [K_E_STRAY] = {"E without B", IMPORT_SKIPPED},
    [K_B_OPEN] = {"B left open (closed at trace end)", IMPORT_REPAIRED},
    [K_TOO_DEEP] = {"span nested deeper than 100000 levels", IMPORT_SKIPPED},
    [K_X] = {"X -> state", IMPORT_IMPORTED},
    [K_X_TDUR] = {"X without dur (tdur used)", IMPORT_REPAIRED},
    [K_X_NODUR] = {"X without dur (closed at trace end)", IMPORT_REPAIRED},
    [K_X_NEG] = {"X with negative dur", IMPORT_SKIPPED},
    [K_INSTANT] = {"i/I/R -> event", IMPORT_IMPORTED},
    [K_COUNTER] = {"C -> counter sample", IMPORT_IMPORTED},
    [K_COUNTER_BAD] = {"C series value not a number", IMPORT_SKIPPED},
    [K_COUNTER_EMPTY] = {"C without series", IMPORT_SKIPPED},
    [K_ASYNC] = {"b/e -> async state", IMPORT_IMPORTED},
    [K_ASYNC_N] = {"n -> event", IMPORT_IMPORTED},
    [K_ASYNC_E_STRAY] = {"e without b", IMPORT_SKIPPED},
    [K_ASYNC_OPEN] = {"b left open (closed at trace end)", IMPORT_REPAIRED},
    [K_LASYNC] = {"S/F -> async state", IMPORT_IMPORTED},
    [K_LASYNC_STEP] = {"T/p -> async step event", IMPORT_IMPORTED},
    [K_LASYNC_F_STRAY] = {"F without S", IMPORT_SKIPPED},
    [K_LASYNC_OPEN] = {"S left open (closed at trace end)", IMPORT_REPAIRED},
    [K_FLOW] = {"s/t/f -> arrow", IMPORT_IMPORTED},
    [K_FLOW_STRAY] = {"f without s", IMPORT_SKIPPED},
    [K_FLOW_OPEN] = {"s/t never finished", IMPORT_SKIPPED},
    [K_FLOW_BACK] = {"flow ending before its start", IMPORT_SKIPPED},
    [K_BIND] = {"flow_out/flow_in -> arrow", IMPORT_IMPORTED},
    [K_BIND_STRAY] = {"flow_in without flow_out", IMPORT_SKIPPED},
    [K_BIND_OPEN] = {"flow_out never bound", IMPORT_SKIPPED},
    [K_OBJ] = {"N/D -> object state", IMPORT_IMPORTED},
    [K_OBJ_SNAP] = {"O -> snapshot event", IMPORT_IMPORTED},
    [K_OBJ_D_STRAY] = {"D without N", IMPORT_SKIPPED},
    [K_OBJ_OPEN] = {"N never deleted (closed at trace end)", IMPORT_REPAIRED},
    [K_M_PNAME] = {"M process_name", IMPORT_IMPORTED},
    [K_M_TNAME] = {"M thread_name", IMPORT_IMPORTED},
    [K_M_PSORT] = {"M process_sort_index", IMPORT_IMPORTED},
    [K_M_TSORT] = {"M thread_sort_index", IMPORT_IMPORTED},
    [K_M_LABELS] = {"M process_labels", IMPORT_IMPORTED},
    [K_M_OTHER] = {"M other (not mapped)", IMPORT_SKIPPED},
    [K_SAMPLE] = {"P -> sample event", IMPORT_IMPORTED},
    [K_SAMPLE_TOP] = {"samples[] -> sample event", IMPORT_IMPORTED},
    [K_CLOCK] = {"c -> clock sync event", IMPORT_IMPORTED},
    [K_MEM] = {"V/v -> memory dump event", IMPORT_IMPORTED},
    [K_CTX] = {"(/) context", IMPORT_SKIPPED},
    [K_EMPTY] = {"{} empty event", IMPORT_SKIPPED},
    [K_NO_PH] = {"event without ph", IMPORT_SKIPPED},
    [K_NO_TS] = {"event without ts", IMPORT_SKIPPED},
    [K_BAD_TIME] = {"ts/dur not a number or out of range", IMPORT_SKIPPED},
    [K_UNKNOWN] = {"unknown phase", IMPORT_SKIPPED},
    [K_LATE] = {"out of order beyond --sort-window", IMPORT_REPAIRED},
};

/* ---------------------------------------------------------- diagnostics */

void map_set_input(chrome_map *m, uint32_t input)
{
    if (m->cfg.input_names != NULL && input < m->cfg.ninputs) {
        m->ctx->display_name = m->cfg.input_names[input];
    }
}

int map_fail(chrome_map *m, const chrome_event *ev, const char *what)
{
    if (m->failed) {
        return 1; /* reported once */
    }
    m->failed = 1;
    const char *why = m->out.last_error != NULL ? m->out.last_error(m->out.user) : NULL;
    const char *const sep = why != NULL ? ": " : "";
    why = why != NULL ? why : "";
    if (ev != NULL) {
        map_set_input(m, ev->input);
        return import_fail(m->ctx, ev->line, ev->col, ev->offset, "%s%s%s", what, sep, why);
    }
    return import_fail(m->ctx, 0, 0, UINT64_MAX, "%s%s%s", what, sep, why);
}

int64_t map_end_time(const chrome_map *m, int64_t start)
{
    return m->trace_end > start ? m->trace_end : start;
}

void chrome_map_see_time(chrome_map *m, int64_t t)
{
    if (!m->any_time || t > m->trace_end) {
        m->trace_end = t;
        m->any_time = true;
    }
}

/* ------------------------------------------------------------- phases */

static int map_instant(chrome_map *m, chrome_event *ev, bool global, bool process_scope)
{
    uint32_t tl;
    if (global) {
        if (map_global(m, ev->input, &tl) != 0) {
            return map_fail(m, NULL, "Failed to define a timeline");
        }
    } else if (process_scope) {
        const process *p = event_process(m, ev);
        if (p == NULL) {
            return map_fail(m, NULL, "Failed to define a timeline");
        }
        tl = p->tl;
    } else {
        const thread *t = event_thread(m, ev);
        if (t == NULL) {
            return -1;
        }
        tl = t->tl;
    }
    return put_event(m, tl, ev, NULL, NULL, NULL);
}

/* Phases that are one event each: instants, clock syncs, memory dumps,
 * context marks; 1 when @p ph is not one of them. */
static int dispatch_point(chrome_map *m, chrome_event *ev, char ph)
{
    switch (ph) {
    case 'i':
    case 'I':
    case 'R': {
        const char *const sc = ev->s != NULL ? ev->s : "t"; /* scope: g, p or t */
        m->counts[K_INSTANT]++;
        return map_instant(m, ev, sc[0] == 'g', sc[0] == 'p');
    }
    case 'c':
        m->counts[K_CLOCK]++;
        return map_instant(m, ev, true, false);
    case 'V':
    case 'v':
        m->counts[K_MEM]++;
        return map_instant(m, ev, ph == 'V', ph == 'v');
    case '(':
    case ')':
        m->counts[K_CTX]++;
        return 0;
    default:
        m->counts[K_UNKNOWN]++;
        return 0;
    }
}

static int dispatch(chrome_map *m, chrome_event *ev)
{
    const char ph = ev->ph[0];
    if (ev->ph[1] != '\0') {
        m->counts[K_UNKNOWN]++;
        return 0;
    }
    if (maybe_bind(m, ev) != 0) {
        return -1;
    }
    switch (ph) {
    case 'B':
        return map_begin(m, ev);
    case 'E':
        return map_end(m, ev);
    case 'X':
        return map_complete(m, ev);
    case 'C':
        return map_counter(m, ev);
    case 'b':
        return async_begin(m, ev, "b");
    case 'e':
        return async_end(m, ev, "b", K_ASYNC, K_ASYNC_E_STRAY);
    case 'n':
        return async_point(m, ev, "b", K_ASYNC_N);
    case 'S':
        return async_begin(m, ev, "S");
    case 'T':
    case 'p':
        return async_point(m, ev, "S", K_LASYNC_STEP);
    case 'F':
        return async_end(m, ev, "S", K_LASYNC, K_LASYNC_F_STRAY);
    case 's':
    case 't':
    case 'f':
        return map_flow(m, ev, ph);
    case 'N':
    case 'O':
    case 'D':
        return map_object(m, ev, ph);
    case 'P':
        return map_sample(m, ev);
    default:
        return dispatch_point(m, ev, ph);
    }
}

/* ----------------------------------------------------------- X groups */

static int xgroup_cmp(const void *a, const void *b)
{
    const chrome_event *x = *(chrome_event *const *)a;
    const chrome_event *y = *(chrome_event *const *)b;
    const int64_t dx = (x->flags & CEV_HAS_DUR) ? x->dur : INT64_MAX;
    const int64_t dy = (y->flags & CEV_HAS_DUR) ? y->dur : INT64_MAX;
    if (dx != dy) {
        return dx > dy ? -1 : 1; /* longest (the parent) first */
    }
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int xgroup_flush(chrome_map *m)
{
    if (m->nx > 1) { /* mostly one: X events rarely share a ts */
        qsort((void *)m->xgroup, m->nx, sizeof(chrome_event *), xgroup_cmp);
    }
    int rc = 0;
    for (size_t i = 0; i < m->nx; i++) {
        rc = rc == 0 ? dispatch(m, m->xgroup[i]) : rc;
        map_release(m->xgroup[i]);
    }
    m->nx = 0;
    return rc;
}

static int xgroup_add(chrome_map *m, chrome_event *ev)
{
    if (shared_grow(&m->xgroup, &m->capx, m->nx + 1, sizeof(chrome_event *)) != 0) {
        return map_fail(m, NULL, "Out of memory");
    }
    m->xgroup[m->nx++] = map_hold(ev);
    return 0;
}

static bool is_x(const chrome_event *ev)
{
    return ev->ph[0] == 'X' && ev->ph[1] == '\0';
}

/* ---------------------------------------------------------- the record */

/* Records without what every phase needs are skipped, counted and warned
 * (each message is a literal: it is its warning cap's key): true when @p ev
 * is one. */
static bool skipped(chrome_map *m, const chrome_event *ev)
{
    if (ev->flags & CEV_EMPTY) {
        m->counts[K_EMPTY]++;
        map_warn(m, ev, "empty event {} (skipped)");
    } else if (ev->flags & CEV_BAD_TIME) {
        m->counts[K_BAD_TIME]++;
        map_warn(m, ev, "ts, dur or tdur is not a number in microseconds or out of range (skipped)");
    } else if (ev->ph[0] == '\0' && !(ev->flags & CEV_SAMPLE)) {
        m->counts[K_NO_PH]++;
        map_warn(m, ev, "event without ph (skipped)");
    } else if (!(ev->flags & CEV_HAS_TS)) {
        m->counts[K_NO_TS]++;
        map_warn(m, ev, "event without ts (skipped)");
    } else {
        return false;
    }
    return true;
}

/* One record in stage-1 order; borrowed (holders take their own holds). */
static int map_record(chrome_map *m, chrome_event *ev)
{
    if (m->failed) {
        return -1;
    }
    if (skipped(m, ev)) {
        return 0;
    }
    if (ev->ts < m->watermark) {
        m->counts[K_LATE]++;
    } else {
        m->watermark = ev->ts;
    }
    chrome_map_see_time(m, ev->ts);
    /* X events of one ts are held and taken parent first */
    if (m->nx > 0 && (m->xgroup[0]->ts != ev->ts || !is_x(ev)) && xgroup_flush(m) != 0) {
        return -1;
    }
    int rc;
    if (ev->flags & CEV_SAMPLE) {
        rc = map_sample(m, ev);
    } else if (is_x(ev)) {
        rc = xgroup_add(m, ev);
    } else {
        rc = dispatch(m, ev);
    }
    return rc != 0 || m->failed ? -1 : map_drain(m, false, true);
}

int chrome_map_event(chrome_map *m, chrome_event *ev)
{
    map_hold(ev);
    const int rc = map_record(m, ev);
    map_release(ev);
    return rc;
}

/* ------------------------------------------------------------ lifetime */

int chrome_map_finish(chrome_map *m)
{
    if (m->failed || xgroup_flush(m) != 0 || map_flush_deferred(m) != 0) {
        return -1;
    }
    const int rc = map_close_spans(m, true);
    map_close_flows(m, true);
    if (rc != 0 || m->failed) {
        return -1;
    }
    return map_drain(m, true, true);
}

bool chrome_map_failed(const chrome_map *m)
{
    return m->failed != 0;
}

void chrome_map_report(chrome_map *m)
{
    for (int i = 0; i < K_COUNT; i++) {
        import_count(m->ctx, kinfo[i].what, kinfo[i].outcome, m->counts[i]);
    }
}

/* The maps walked at the end with effects on the output (spans closed at
 * the trace end, in bucket order) keep the byte-wise FNV hash that order has
 * always followed; the others, walked only to count or free, use the faster
 * chrome_hash. */
static uint64_t fast_hash(const char *key, size_t n)
{
    return chrome_hash(0, key, n);
}

int chrome_map_create(chrome_map **out, const chrome_out *o, import_ctx *ctx,
                      const chrome_map_config *cfg)
{
    chrome_map *m = calloc(1, sizeof *m);
    if (m == NULL) {
        return -1;
    }
    m->out = *o;
    m->ctx = ctx;
    m->cfg = *cfg;
    m->watermark = INT64_MIN;
    shared_strmap *const fast[] = {&m->procs, &m->cats,  &m->counters, &m->flows,
                                   &m->binds, &m->frames, &m->early_f};
    for (size_t i = 0; i < sizeof fast / sizeof fast[0]; i++) {
        shared_strmap_init(fast[i], fast_hash);
    }
    shared_strmap_init(&m->threads, NULL);
    shared_strmap_init(&m->asyncs, NULL);
    shared_strmap_init(&m->objects, NULL);
    chrome_window_init(&m->out_win);
    *out = m;
    return 0;
}

void chrome_map_destroy(chrome_map *m)
{
    if (m == NULL) {
        return;
    }
    (void)map_close_spans(m, false);
    map_close_flows(m, false);
    for (size_t i = 0; i < m->nx; i++) {
        map_release(m->xgroup[i]);
    }
    free((void *)m->xgroup);
    map_free_samples(m);
    map_free_output(m);
    map_free_timelines(m);
    free(m);
}
