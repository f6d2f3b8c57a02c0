/* SPDX-License-Identifier: MIT
 *
 * chrome_map_span.c - the Chrome mapper's spans: per thread a stack of
 * active spans gives nesting depths (B/E and X share it); async spans (b/e,
 * legacy S/F) are matched by (cat, scope, id) keys and laid out on lanes of
 * their process, nested by a stack per key; objects (N/O/D) live on a
 * timeline of their own.  Spans left open at the end (B, X without dur, b,
 * S, N) are closed at the trace's end and flagged with arg "slog.unclosed".
 * Import library, chrome: public libslog headers, libc.
 */
#include <shared_grow.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_map_int.h"

#define UNCLOSED "slog.unclosed"

/* ------------------------------------------------------- thread spans */

_Static_assert(SLOG_MAX_DEPTH == 100000u, "the K_TOO_DEEP text names the limit");

/* A span that would nest deeper than a writer takes is skipped and
 * counted; so the stack never holds more than SLOG_MAX_DEPTH + 1 spans. */
static int push_span(chrome_map *m, thread *t, int64_t start, int64_t end, char kind,
                     chrome_event *ev)
{
    if (t->n > SLOG_MAX_DEPTH) {
        m->counts[K_TOO_DEEP]++;
        t->deep += kind == 'B';
        return 0;
    }
    if (t->cap == 0 && (t->st = calloc(2, sizeof *t->st)) != NULL) {
        t->cap = 2; /* most threads nest little: 10^6 threads * 16 spans was 0.5 GB */
    }
    if (shared_grow(&t->st, &t->cap, t->n + 1, sizeof *t->st) != 0) {
        return map_fail(m, NULL, "Out of memory");
    }
    t->st[t->n++] = (span){start, end, kind, ev != NULL ? map_hold(ev) : NULL};
    return 0;
}

/* Spans that ended by time t leave the stack (only closed X spans end). */
static void pop_ended(thread *t, int64_t ts)
{
    while (t->n > 0 && t->st[t->n - 1].kind == 'X' && t->st[t->n - 1].end <= ts) {
        t->n--;
    }
}

int map_begin(chrome_map *m, chrome_event *ev)
{
    thread *t = event_thread(m, ev);
    if (t == NULL) {
        return -1;
    }
    pop_ended(t, ev->ts);
    return push_span(m, t, ev->ts, INT64_MAX, 'B', ev);
}

/* The innermost open B that @p ev can end: its index + 1 in the stack, 0
 * for none (a late E, beyond the window, cannot end a later B). */
static size_t open_b(const thread *t, const chrome_event *ev)
{
    size_t i = t->n;
    while (i > 0 && t->st[i - 1].kind != 'B') {
        i--;
    }
    return i > 0 && t->st[i - 1].start > ev->ts ? 0 : i;
}

int map_end(chrome_map *m, chrome_event *ev)
{
    thread *t = event_thread(m, ev);
    if (t == NULL) {
        return -1;
    }
    pop_ended(t, ev->ts);
    if (t->deep > 0) {
        t->deep--; /* ends a B skipped as too deep */
        return 0;
    }
    const size_t i = open_b(t, ev);
    if (i == 0) {
        m->counts[K_E_STRAY]++;
        map_warn(m, ev, "E without a matching B (skipped)");
        return 0;
    }
    const span b = t->st[i - 1];
    memmove(t->st + i - 1, t->st + i, (t->n - i) * sizeof *t->st);
    t->n--;
    m->counts[K_BE]++;
    const state_at at = {t->tl, b.start, ev->ts, (uint32_t)(i - 1), NULL};
    const int rc = put_state(m, &at, b.ev, ev);
    map_release(b.ev);
    return rc;
}

/* The duration of an X record: 0 with *dur set, 1 when it has none (open
 * until the trace ends), -1 skipped (counted). */
static int x_duration(chrome_map *m, const chrome_event *ev, int64_t *dur, const char **flag)
{
    if (ev->flags & CEV_HAS_DUR) {
        if (ev->dur < 0) {
            m->counts[K_X_NEG]++;
            map_warn(m, ev, "X with negative dur (skipped)");
            return -1;
        }
        *dur = ev->dur;
        m->counts[K_X]++;
        return 0;
    }
    if ((ev->flags & CEV_HAS_TDUR) && ev->tdur >= 0) {
        *dur = ev->tdur;
        m->counts[K_X_TDUR]++;
        *flag = "slog.dur_from_tdur";
        return 0;
    }
    return 1;
}

int map_complete(chrome_map *m, chrome_event *ev)
{
    thread *t = event_thread(m, ev);
    if (t == NULL) {
        return -1;
    }
    pop_ended(t, ev->ts);
    const uint32_t depth = (uint32_t)t->n;
    if (depth > SLOG_MAX_DEPTH) {
        m->counts[K_TOO_DEEP]++;
        return 0;
    }
    int64_t dur = 0;
    const char *flag = NULL;
    const int has = x_duration(m, ev, &dur, &flag);
    if (has != 0) {
        /* no duration: open until the trace ends (as trace viewers do) */
        return has < 0 ? 0 : push_span(m, t, ev->ts, INT64_MAX, 'x', ev);
    }
    if (ev->ts > INT64_MAX - dur) {
        m->counts[K_BAD_TIME]++;
        return 0;
    }
    const int64_t end = ev->ts + dur;
    chrome_map_see_time(m, end);
    if (push_span(m, t, ev->ts, end, 'X', NULL) != 0) {
        return -1;
    }
    const state_at at = {t->tl, ev->ts, end, depth, flag};
    return put_state(m, &at, ev, NULL);
}

/* -------------------------------------------------------------- async */

static int async_key(chrome_map *m, const chrome_event *ev, const char *ns)
{
    m->k.n = 0;
    int rc = kb_add(&m->k, ns) | kb_addu(&m->k, ev->input) | kb_add(&m->k, ev->cat) |
             kb_add(&m->k, ev->scope) | kb_add_id_kind(&m->k, ev) | kb_add(&m->k, ev->id);
    if (ev->id_kind == 'l') {
        rc |= kb_add(&m->k, ev->pid);
    }
    return rc;
}

/* A free lane of process @p p, a new one when all are busy. */
static int lane_get(chrome_map *m, process *p, uint32_t *lane)
{
    for (size_t i = 0; i < p->nlanes; i++) {
        if (!p->lane_busy[i]) {
            p->lane_busy[i] = true;
            *lane = (uint32_t)i;
            return 0;
        }
    }
    size_t cap[2] = {p->nlanes, p->nlanes}; /* both arrays hold exactly nlanes */
    if (shared_grow(&p->lanes, &cap[0], p->nlanes + 1, sizeof *p->lanes) != 0 ||
        shared_grow(&p->lane_busy, &cap[1], p->nlanes + 1, sizeof *p->lane_busy) != 0) {
        return -1;
    }
    char name[48];
    (void)snprintf(name, sizeof name, "async %zu", p->nlanes + 1);
    if (m->out.add_timeline(m->out.user, p->tl, SLOG_TIMELINE_ASYNC, name,
                            (int64_t)p->nlanes + (1ll << 43), &p->lanes[p->nlanes]) != 0) {
        return -1;
    }
    p->lane_busy[p->nlanes] = true;
    *lane = (uint32_t)p->nlanes++;
    return 0;
}

/* The open async spans of the key in m->k, created (with a lane) if none. */
static open_async *async_open(chrome_map *m, process *p)
{
    open_async *a = shared_strmap_get(&m->asyncs, m->k.s, m->k.n);
    if (a != NULL) {
        return a;
    }
    a = calloc(1, sizeof *a);
    if (a == NULL || lane_get(m, p, &a->lane) != 0 ||
        shared_strmap_put(&m->asyncs, m->k.s, m->k.n, a) != 0) {
        free(a);
        return NULL;
    }
    a->proc = p;
    return a;
}

int async_begin(chrome_map *m, chrome_event *ev, const char *ns)
{
    process *p = event_process(m, ev); /* before the key: it uses m->k */
    if (p == NULL || async_key(m, ev, ns) != 0) {
        return map_fail(m, NULL, "Out of memory");
    }
    open_async *a = async_open(m, p);
    if (a == NULL || shared_grow(&a->st, &a->cap, a->n + 1, sizeof(chrome_event *)) != 0) {
        return map_fail(m, NULL, "Out of memory");
    }
    a->st[a->n++] = map_hold(ev);
    return 0;
}

/* The key's last span ended: its lane is free again (key still in m->k). */
static void async_release(chrome_map *m, open_async *a)
{
    a->proc->lane_busy[a->lane] = false;
    free((void *)a->st);
    free(a);
    (void)shared_strmap_put(&m->asyncs, m->k.s, m->k.n, NULL);
}

int async_end(chrome_map *m, chrome_event *ev, const char *ns, kcount ok, kcount stray)
{
    if (async_key(m, ev, ns) != 0) {
        return map_fail(m, NULL, "Out of memory");
    }
    open_async *a = shared_strmap_get(&m->asyncs, m->k.s, m->k.n);
    if (a == NULL || a->st[a->n - 1]->ts > ev->ts) {
        m->counts[stray]++; /* none open, or a late end before the open begin */
        return 0;
    }
    chrome_event *b = a->st[--a->n];
    const state_at at = {a->proc->lanes[a->lane], b->ts, ev->ts, (uint32_t)a->n, NULL};
    if (a->n == 0) {
        async_release(m, a);
    }
    m->counts[ok]++;
    const int rc = put_state(m, &at, b, ev);
    map_release(b);
    return rc;
}

/* n, T, p: an event on the lane of the open span, else on the thread. */
int async_point(chrome_map *m, chrome_event *ev, const char *ns, kcount ok)
{
    if (async_key(m, ev, ns) != 0) {
        return map_fail(m, NULL, "Out of memory");
    }
    const open_async *a = shared_strmap_get(&m->asyncs, m->k.s, m->k.n);
    uint32_t tl;
    if (a != NULL) {
        tl = a->proc->lanes[a->lane];
    } else {
        const thread *t = event_thread(m, ev);
        if (t == NULL) {
            return -1;
        }
        tl = t->tl;
    }
    m->counts[ok]++;
    return put_event(m, tl, ev, NULL, NULL, NULL);
}

/* ------------------------------------------------------------ objects */

static object *object_new(chrome_map *m, const chrome_event *ev, const char *key, size_t klen)
{
    object *o = calloc(1, sizeof *o);
    const process *p = o != NULL ? map_process(m, ev->input, ev->pid) : NULL;
    char name[512];
    (void)snprintf(name, sizeof name, "%s %s", ev->name ? ev->name : "object",
                   ev->id ? ev->id : "");
    if (p == NULL ||
        m->out.add_timeline(m->out.user, p->tl, SLOG_TIMELINE_GENERIC, name, 1ll << 44, &o->tl) !=
            0 ||
        shared_strmap_put(&m->objects, key, klen, o) != 0) {
        free(o);
        return NULL;
    }
    return o;
}

static object *get_object(chrome_map *m, const chrome_event *ev)
{
    m->k.n = 0;
    if ((kb_addu(&m->k, ev->input) | kb_add(&m->k, ev->pid) | kb_add(&m->k, ev->name) |
         kb_add_id_kind(&m->k, ev) | kb_add(&m->k, ev->id)) != 0) {
        return NULL;
    }
    object *o = shared_strmap_get(&m->objects, m->k.s, m->k.n);
    if (o != NULL) {
        return o;
    }
    const size_t klen = m->k.n;
    char *key = malloc(klen); /* map_process reuses m->k */
    if (key == NULL) {
        return NULL;
    }
    memcpy(key, m->k.s, klen);
    o = object_new(m, ev, key, klen);
    free(key);
    return o;
}

/* The life of object @p o that began with @p born ends at @p ev: a state. */
static int object_life(chrome_map *m, const object *o, chrome_event *born, chrome_event *ev,
                       chrome_event *end_args)
{
    m->counts[K_OBJ]++;
    const state_at at = {o->tl, born->ts, ev->ts, 0, NULL};
    const int rc = put_state(m, &at, born, end_args);
    map_release(born);
    return rc;
}

int map_object(chrome_map *m, chrome_event *ev, char ph)
{
    object *o = get_object(m, ev);
    if (o == NULL) {
        return map_fail(m, NULL, "Failed to define an object timeline");
    }
    if (ph == 'O') {
        m->counts[K_OBJ_SNAP]++;
        return put_event(m, o->tl, ev, NULL, NULL, NULL);
    }
    chrome_event *const born = o->born;
    if (born != NULL && born->ts > ev->ts) {
        /* late (beyond the window): before the current life began */
        m->counts[ph == 'N' ? K_LATE : K_OBJ_D_STRAY]++;
        return 0;
    }
    if (ph == 'N') { /* recreated: the old life ends here */
        o->born = map_hold(ev);
        return born != NULL ? object_life(m, o, born, ev, NULL) : 0;
    }
    if (born == NULL) {
        m->counts[K_OBJ_D_STRAY]++;
        return 0;
    }
    o->born = NULL;
    return object_life(m, o, born, ev, ev);
}

/* --------------------------------------------------------- trace end */

typedef struct close_ctx {
    chrome_map *m;
    int rc; /* != 0: only let go (destroy, or after a failure) */
} close_ctx;

/* A span open at the trace end: a state to there, flagged; @p ev released. */
static void close_one(close_ctx *cc, uint32_t tl, chrome_event *ev, int64_t start, uint32_t depth)
{
    if (cc->rc == 0) {
        const state_at at = {tl, start, map_end_time(cc->m, start), depth, UNCLOSED};
        cc->rc = put_state(cc->m, &at, ev, NULL);
    }
    map_release(ev);
}

static void close_thread(void *c, void *val)
{
    close_ctx *cc = c;
    thread *t = val;
    for (size_t i = 0; i < t->n; i++) {
        const span *s = &t->st[i];
        if (s->kind != 'X' && s->ev != NULL) {
            cc->m->counts[s->kind == 'B' ? K_B_OPEN : K_X_NODUR]++;
            close_one(cc, t->tl, s->ev, s->start, (uint32_t)i);
        }
    }
    free(t->st);
    free(t);
}

static void close_async(void *c, void *val)
{
    close_ctx *cc = c;
    open_async *a = val;
    const uint32_t tl = a->proc->lanes[a->lane];
    for (size_t i = 0; i < a->n; i++) {
        chrome_event *b = a->st[i];
        cc->m->counts[b->ph[0] == 'S' ? K_LASYNC_OPEN : K_ASYNC_OPEN]++;
        close_one(cc, tl, b, b->ts, (uint32_t)i);
    }
    free((void *)a->st);
    free(a);
}

static void close_object(void *c, void *val)
{
    close_ctx *cc = c;
    object *o = val;
    if (o->born != NULL) {
        cc->m->counts[K_OBJ_OPEN]++;
        close_one(cc, o->tl, o->born, o->born->ts, 0);
    }
    free(o);
}

int map_close_spans(chrome_map *m, bool emit)
{
    close_ctx cc = {m, emit ? 0 : 1};
    shared_strmap_clear(&m->threads, close_thread, &cc);
    shared_strmap_clear(&m->asyncs, close_async, &cc);
    shared_strmap_clear(&m->objects, close_object, &cc);
    return emit ? cc.rc : 0;
}
