/* SPDX-License-Identifier: MIT
 *
 * chrome_map_flow.c - the Chrome mapper's arrows: flow events (s, t, f)
 * matched by (input, cat, id) keys, where each s or t opens a point the next
 * t or f draws an arrow from; and flow v2 bindings (bind_id or id with
 * flow_out on one slice and flow_in on a later one).  Points live in the
 * entries of string maps (one allocation, one lookup) and hold their record.
 * An f that arrives before its s (the s came late, beyond the sort window)
 * waits in early_f for it.
 * Import library, chrome: public libslog headers, libc.
 */
#include <stdlib.h>

#include "chrome_map_int.h"

static int flow_key(chrome_map *m, const chrome_event *ev)
{
    m->k.n = 0;
    int rc = kb_addu(&m->k, ev->input) | kb_add(&m->k, ev->cat) | kb_add_id_kind(&m->k, ev) |
             kb_add(&m->k, ev->id);
    if (ev->id_kind == 'l') {
        rc |= kb_add(&m->k, ev->pid);
    }
    return rc;
}

/* An arrow from point @p from (taken out of its map: its hold goes). */
static int arrow_from_point(chrome_map *m, const point *from, chrome_event *to, uint32_t to_tl,
                            kcount ok)
{
    const int rc = put_arrow(m, from, to, to_tl, ok);
    map_release(from->ev);
    return rc;
}

/* A late s (the window overflowed): its f may have come already.  1 when it
 * did (the arrow is made), 0 when not, < 0 failed. */
static int late_s(chrome_map *m, chrome_event *ev, uint32_t tl)
{
    const point *early = shared_strmap_get(&m->early_f, m->k.s, m->k.n);
    point to;
    if (early == NULL || early->t < ev->ts ||
        !shared_strmap_take(&m->early_f, m->k.s, m->k.n, &to, sizeof to)) {
        return 0;
    }
    const point from = {tl, ev->ts, ev};
    m->counts[K_FLOW_STRAY]--; /* it was counted stray on arrival */
    const int rc = put_arrow(m, &from, to.ev, to.tl, K_FLOW);
    map_release(to.ev);
    return rc != 0 ? -1 : 1;
}

/* s and t open (or go on from) a point; a stray f waits in early_f. */
static int open_point(chrome_map *m, chrome_event *ev, char ph, uint32_t tl)
{
    bool fresh;
    point *prev = shared_strmap_block(ph == 'f' ? &m->early_f : &m->flows, m->k.s, m->k.n,
                                      sizeof *prev, &fresh);
    if (prev == NULL) {
        return map_fail(m, NULL, "Out of memory");
    }
    const point here = {tl, ev->ts, map_hold(ev)};
    if (fresh || ph != 't') {
        if (!fresh) { /* an s never finished, or an earlier stray f: replaced */
            m->counts[K_FLOW_OPEN] += ph == 's' ? 1u : 0u;
            map_release(prev->ev);
        }
        *prev = here; /* t without s: the chain starts here */
        return 0;
    }
    /* t: an arrow to here, and the chain goes on from here */
    const point from = *prev;
    *prev = here;
    return arrow_from_point(m, &from, ev, tl, K_FLOW);
}

int map_flow(chrome_map *m, chrome_event *ev, char ph)
{
    const thread *t = event_thread(m, ev);
    if (t == NULL) {
        return -1;
    }
    if (flow_key(m, ev) != 0) {
        return map_fail(m, NULL, "Out of memory");
    }
    if (ph == 's' && ev->ts < m->watermark) {
        const int rc = late_s(m, ev, t->tl);
        if (rc != 0) {
            return rc < 0 ? -1 : 0;
        }
    }
    if (ph == 'f') {
        point from;
        if (shared_strmap_take(&m->flows, m->k.s, m->k.n, &from, sizeof from)) {
            return arrow_from_point(m, &from, ev, t->tl, K_FLOW);
        }
        m->counts[K_FLOW_STRAY]++;
    }
    return open_point(m, ev, ph, t->tl);
}

/* ----------------------------------------------------------- bindings */

static int bind_key(chrome_map *m, const chrome_event *ev)
{
    const char *id = ev->bind_id != NULL ? ev->bind_id : ev->id;
    m->k.n = 0;
    if (kb_addu(&m->k, ev->input) != 0 || kb_add(&m->k, id) != 0) {
        return map_fail(m, NULL, "Out of memory");
    }
    return 0;
}

/* flow_in: an arrow from the open flow_out of the same id, if any. */
static int bind_in(chrome_map *m, const chrome_event *ev, uint32_t tl)
{
    point f;
    if (!shared_strmap_take(&m->binds, m->k.s, m->k.n, &f, sizeof f)) {
        m->counts[K_BIND_STRAY]++;
        return 0;
    }
    /* the arrow carries the source's args: the target is a bare header */
    chrome_event *to = chrome_record_header(ev, false);
    if (to == NULL) {
        map_release(f.ev);
        return map_fail(m, NULL, "Out of memory");
    }
    map_hold(to);
    const int rc = arrow_from_point(m, &f, to, tl, K_BIND);
    map_release(to);
    return rc;
}

/* flow_out: a point naming the flow (a small record: name and cat only). */
static int bind_out(chrome_map *m, const chrome_event *ev, uint32_t tl)
{
    chrome_event *src = chrome_record_header(ev, true);
    bool fresh;
    point *p = src != NULL ? shared_strmap_block(&m->binds, m->k.s, m->k.n, sizeof *p, &fresh)
                           : NULL;
    if (p == NULL) {
        free(src);
        return map_fail(m, NULL, "Out of memory");
    }
    if (!fresh) {
        m->counts[K_BIND_OPEN]++;
        map_release(p->ev);
    }
    *p = (point){tl, ev->ts, map_hold(src)};
    return 0;
}

/* flow v2: bind_id with flow_in / flow_out on a slice (borrows ev). */
static int map_bind(chrome_map *m, const chrome_event *ev, uint32_t tl)
{
    if (bind_key(m, ev) != 0) {
        return -1;
    }
    if ((ev->flags & CEV_FLOW_IN) && bind_in(m, ev, tl) != 0) {
        return -1;
    }
    if (!(ev->flags & CEV_FLOW_OUT)) {
        return 0;
    }
    /* bind_in's arrow reused the key buffer */
    return bind_key(m, ev) != 0 ? -1 : bind_out(m, ev, tl);
}

int maybe_bind(chrome_map *m, const chrome_event *ev)
{
    if (!(ev->flags & (CEV_FLOW_IN | CEV_FLOW_OUT)) || (ev->bind_id == NULL && ev->id == NULL)) {
        return 0;
    }
    const thread *t = event_thread(m, ev);
    if (t == NULL) {
        return -1;
    }
    return map_bind(m, ev, t->tl);
}

/* ----------------------------------------------------------- trace end */

/* For the maps of points, which hold them in their entries. */
static void release_point_counting(void *c, void *val)
{
    uint64_t *n = c;
    const point *p = val;
    (*n)++;
    map_release(p->ev);
}

void map_close_flows(chrome_map *m, bool count)
{
    uint64_t ignored = 0;
    shared_strmap_clear(&m->flows, release_point_counting,
                        count ? &m->counts[K_FLOW_OPEN] : &ignored);
    shared_strmap_clear(&m->binds, release_point_counting,
                        count ? &m->counts[K_BIND_OPEN] : &ignored);
    /* early f: counted stray when they came */
    shared_strmap_clear(&m->early_f, release_point_counting, &ignored);
}
