/* SPDX-License-Identifier: MIT
 *
 * chrome_map_out.c - the Chrome mapper's drawables on their way out: each
 * waits in a bounded window ordered by end time (children before parents at
 * equal end), which is the writer's optimal order, holding the records its
 * args point into; it leaves when the window overflows, or when nothing
 * later can end before it (the watermark).  Written pendings are kept for
 * reuse while their memory is in cache.
 * Import library, chrome: public libslog headers, libc.
 */
#include <stdlib.h>
#include <string.h>

#include "chrome_map_int.h"

#define SPARE_MAX 4096 /* written pendings kept for reuse */

/* A pending lets go of what it holds (records, own args and string). */
static void pending_clear(pending *p)
{
    map_release(p->ev[0]);
    if (p->ev[1] != p->ev[0]) {
        map_release(p->ev[1]);
    }
    free(p->own_args);
    free(p->own_str);
}

static void pending_free(pending *p)
{
    pending_clear(p);
    free(p);
}

static int write_drawable(chrome_map *m, const pending *p)
{
    switch (p->kind) {
    case SLOG_KIND_STATE:
        return m->out.state(m->out.user, &p->u.s);
    case SLOG_KIND_EVENT:
        return m->out.event(m->out.user, &p->u.e);
    case SLOG_KIND_ARROW:
        return m->out.arrow(m->out.user, &p->u.a);
    case SLOG_KIND_COUNTER:
    default:
        return m->out.counter(m->out.user, &p->u.c);
    }
}

static int emit_one(chrome_map *m, pending *p)
{
    m->held -= p->bytes;
    const int rc = write_drawable(m, p);
    if (m->nspare < SPARE_MAX) {
        /* keep the block: the next pending reuses it while in cache */
        pending_clear(p);
        p->next_spare = m->spare;
        m->spare = p;
        m->nspare++;
    } else {
        pending_free(p);
    }
    if (rc != 0) {
        return map_fail(m, NULL, "Failed to write a drawable");
    }
    return 0;
}

/* Every later drawable ends at or after its start, which is at or after the
 * watermark: those ending before it can go.  Called with upto only between
 * input records, when everything a record produces has been submitted. */
int map_drain(chrome_map *m, bool all, bool upto)
{
    for (;;) {
        const chrome_wentry *top = chrome_window_top(&m->out_win);
        if (top == NULL) {
            return 0;
        }
        const bool over = m->cfg.window == 0 || chrome_window_size(&m->out_win) > m->cfg.window ||
                          m->held > m->cfg.window_bytes;
        if (!all && !over && (!upto || top->k1 >= m->watermark)) {
            return 0;
        }
        if (emit_one(m, chrome_window_pop(&m->out_win)) != 0) {
            return -1;
        }
    }
}

static pending *new_pending(chrome_map *m, slog_kind kind, int64_t start, int64_t end)
{
    pending *p = m->spare;
    if (p != NULL) {
        m->spare = p->next_spare;
        m->nspare--;
        memset(p, 0, sizeof *p);
    } else {
        p = calloc(1, sizeof *p);
    }
    if (p == NULL) {
        return NULL;
    }
    p->kind = kind;
    p->start = start;
    p->end = end;
    p->seq = m->out_seq++;
    return p;
}

/* The pending holds its records from here on. */
static void pending_hold(pending *p, chrome_event *a, chrome_event *b)
{
    p->ev[0] = a != NULL ? map_hold(a) : NULL;
    p->ev[1] = b != NULL && b != a ? map_hold(b) : p->ev[0];
}

/* The last tie: at equal end and start (a span nested in one of the same
 * interval) the deeper first, for the writer subtracts a child's time from
 * its parent only when the child comes first (speedscope's matching-x:
 * beta kept the gamma inside it, its thread 120% busy); then arrival. */
static uint64_t tie_key(const pending *p)
{
    const uint64_t depth = p->kind == SLOG_KIND_STATE ? p->u.s.depth : 0;
    return ((SLOG_MAX_DEPTH - depth) << 46) | (p->seq & ((UINT64_C(1) << 46) - 1));
}

static int submit(chrome_map *m, pending *p)
{
    p->bytes = sizeof *p + (p->ev[0] != NULL ? chrome_event_weight(p->ev[0]) : 0) +
               (p->ev[1] != NULL && p->ev[1] != p->ev[0] ? chrome_event_weight(p->ev[1]) : 0);
    /* end ascending; at equal end the later start (the child) first */
    if (chrome_window_push(&m->out_win, p->end, ~p->start, tie_key(p), p) != 0) {
        pending_free(p);
        return map_fail(m, NULL, "Out of memory");
    }
    m->held += p->bytes;
    return map_drain(m, false, false);
}

/* ---------------------------------------------------------------- args */

/* Without a flag, when one record's args make the set, the drawable points
 * to them: no array to build.  False when an array is needed. */
static bool args_of_one(const chrome_event *a, const chrome_event *b, const char *flag,
                        const slog_arg **args, uint32_t *nargs)
{
    const bool two = b != NULL && b != a && b->nargs != 0 && a->nargs != 0;
    if (two || flag != NULL) {
        return false;
    }
    const chrome_event *const only = b != NULL && a->nargs == 0 ? b : a;
    *args = only->nargs > 0 ? only->args : NULL;
    *nargs = only->nargs;
    return true;
}

static bool has_arg(const chrome_event *ev, const char *key)
{
    for (uint32_t j = 0; j < ev->nargs; j++) {
        if (strcmp(ev->args[j].key, key) == 0) {
            return true;
        }
    }
    return false;
}

/* @p a's args, those of @p b that @p a lacks, then the flag; NULL on no memory. */
static slog_arg *merge_args(const chrome_event *a, const chrome_event *b, const char *flag,
                            uint32_t *nargs)
{
    const bool other = b != NULL && b != a;
    slog_arg *v = malloc((a->nargs + (other ? b->nargs : 0) + 1) * sizeof *v);
    if (v == NULL) {
        return NULL;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->nargs; i++) {
        v[n++] = a->args[i];
    }
    for (uint32_t i = 0; other && i < b->nargs; i++) {
        if (!has_arg(a, b->args[i].key)) {
            v[n++] = b->args[i];
        }
    }
    if (flag != NULL) {
        v[n].key = flag;
        v[n].type = SLOG_ARG_BOOL;
        v[n].v.b = true;
        n++;
    }
    *nargs = n;
    return v;
}

/* Args of one or two records (the second adds keys the first lacks), plus
 * an optional flag.  0 ok, -1 no memory. */
static int build_args(pending *p, const chrome_event *a, const chrome_event *b, const char *flag,
                      const slog_arg **args, uint32_t *nargs)
{
    if (a == NULL) {
        *args = NULL;
        *nargs = 0;
        return 0;
    }
    if (args_of_one(a, b, flag, args, nargs)) {
        return 0;
    }
    p->own_args = merge_args(a, b, flag, nargs);
    *args = p->own_args;
    return p->own_args != NULL ? 0 : -1;
}

/* ----------------------------------------------------------- drawables */

int put_state(chrome_map *m, const state_at *at, chrome_event *a, chrome_event *b)
{
    uint32_t cat;
    if (at->depth > SLOG_MAX_DEPTH) { /* async lanes nested that deep */
        m->counts[K_TOO_DEEP]++;
        return 0;
    }
    if (map_category(m, SLOG_KIND_STATE, a->name_key, a->name, a->cat, &cat) != 0) {
        return map_fail(m, a, "Failed to define a category");
    }
    pending *p = new_pending(m, SLOG_KIND_STATE, at->start, at->end);
    if (p == NULL || build_args(p, a, b, at->flag, &p->u.s.args, &p->u.s.nargs) != 0) {
        free(p);
        return map_fail(m, a, "Out of memory");
    }
    pending_hold(p, a, b);
    p->u.s.timeline = at->tl;
    p->u.s.category = cat;
    p->u.s.start = at->start;
    p->u.s.end = at->end;
    p->u.s.depth = at->depth;
    return submit(m, p);
}

/* Event args: @p extra (one arg, if any) before the record's. */
static int event_args(pending *p, const chrome_event *ev, const slog_arg *extra)
{
    if (extra == NULL) {
        p->u.e.args = ev->args;
        p->u.e.nargs = ev->nargs;
        return 0;
    }
    slog_arg *v = malloc((ev->nargs + 1) * sizeof *v);
    if (v == NULL) {
        return -1;
    }
    v[0] = *extra;
    if (ev->nargs > 0) {
        memcpy(v + 1, ev->args, ev->nargs * sizeof *v);
    }
    p->own_args = v;
    p->u.e.args = v;
    p->u.e.nargs = ev->nargs + 1;
    return 0;
}

int put_event(chrome_map *m, uint32_t tl, chrome_event *ev, const char *name,
              const slog_arg *extra, char *own_str)
{
    uint32_t cat;
    if (name == NULL) {
        name = ev->name;
    }
    if (map_category(m, SLOG_KIND_EVENT, name == ev->name ? ev->name_key : 0, name, ev->cat,
                     &cat) != 0) {
        free(own_str);
        return map_fail(m, NULL, "Failed to define a category");
    }
    pending *p = new_pending(m, SLOG_KIND_EVENT, ev->ts, ev->ts);
    if (p == NULL) {
        free(own_str);
        return map_fail(m, NULL, "Out of memory");
    }
    pending_hold(p, ev, NULL);
    p->own_str = own_str;
    if (event_args(p, ev, extra) != 0) {
        pending_free(p);
        return map_fail(m, NULL, "Out of memory");
    }
    p->u.e.timeline = tl;
    p->u.e.category = cat;
    p->u.e.time = ev->ts;
    return submit(m, p);
}

int put_arrow(chrome_map *m, const point *from, chrome_event *to_ev, uint32_t to_tl, kcount ok)
{
    if (to_ev->ts < from->t) {
        m->counts[K_FLOW_BACK]++;
        return 0;
    }
    uint32_t cat;
    const chrome_event *named = from->ev;
    if (map_category(m, SLOG_KIND_ARROW, named->name_key, named->name, named->cat, &cat) != 0) {
        return map_fail(m, NULL, "Failed to define a category");
    }
    pending *p = new_pending(m, SLOG_KIND_ARROW, from->t, to_ev->ts);
    if (p == NULL || build_args(p, from->ev, to_ev, NULL, &p->u.a.args, &p->u.a.nargs) != 0) {
        free(p);
        return map_fail(m, NULL, "Out of memory");
    }
    pending_hold(p, from->ev, to_ev);
    p->u.a.category = cat;
    p->u.a.from = from->tl;
    p->u.a.to = to_tl;
    p->u.a.start = from->t;
    p->u.a.end = to_ev->ts;
    m->counts[ok]++;
    return submit(m, p);
}

int put_counter(chrome_map *m, const chrome_event *ev, uint32_t tl, uint32_t cat, double v)
{
    pending *p = new_pending(m, SLOG_KIND_COUNTER, ev->ts, ev->ts);
    if (p == NULL) {
        return map_fail(m, NULL, "Out of memory");
    }
    p->u.c = (slog_counter){tl, cat, ev->ts, v};
    m->counts[K_COUNTER]++;
    return submit(m, p);
}

void map_free_output(chrome_map *m)
{
    pending *p;
    while ((p = chrome_window_pop(&m->out_win)) != NULL) {
        pending_free(p);
    }
    chrome_window_free(&m->out_win);
    while (m->spare != NULL) {
        pending *const next = m->spare->next_spare;
        free(m->spare);
        m->spare = next;
    }
}
