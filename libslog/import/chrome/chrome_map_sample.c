/* SPDX-License-Identifier: MIT
 *
 * chrome_map_sample.c - the Chrome mapper's counters and samples.  A C
 * record gives one counter sample per numeric args member, each series on a
 * counter timeline of its process ("name[id].key"); the series of the last
 * record of each name are cached by args index, so a steady counter finds
 * them without building keys.  Samples (P records and the top-level
 * samples[] array) become events named after their leaf stack frame, with
 * the whole stack as an arg; samples whose frames are not known yet wait
 * until the end (stackFrames may follow traceEvents).
 * Import library, chrome: public libslog headers, libc.
 */
#include <shared_grow.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_map_int.h"

#define STACK_TEXT 2048  /* bytes of the "leaf <- caller <- main" arg */
#define STACK_DEPTH 256  /* frames followed at most (a cycle ends there) */

/* ------------------------------------------------------------ counters */

/* The counter timeline and category of series @p key of a C record, from
 * the string maps (defining them if new).  0 ok, else failed (reported). */
static int series_lookup(chrome_map *m, const chrome_event *ev, const process *p, const char *key,
                         uint32_t *tl, uint32_t *cat)
{
    m->k.n = 0;
    if ((kb_addu(&m->k, ev->input) | kb_add(&m->k, ev->pid) | kb_add(&m->k, ev->name) |
         kb_add(&m->k, ev->id) | kb_add(&m->k, key)) != 0) {
        return map_fail(m, NULL, "Out of memory");
    }
    bool fresh;
    uint32_t *known = shared_strmap_block(&m->counters, m->k.s, m->k.n, sizeof *known, &fresh);
    if (known == NULL) {
        return map_fail(m, NULL, "Out of memory");
    }
    if (fresh) {
        char name[512];
        if (ev->id != NULL) {
            (void)snprintf(name, sizeof name, "%s[%s].%s", ev->name ? ev->name : "", ev->id, key);
        } else {
            (void)snprintf(name, sizeof name, "%s.%s", ev->name ? ev->name : "", key);
        }
        if (m->out.add_timeline(m->out.user, p->tl, SLOG_TIMELINE_COUNTER, name, 1ll << 42,
                                known) != 0) {
            (void)shared_strmap_put(&m->counters, m->k.s, m->k.n, NULL);
            return map_fail(m, NULL, "Failed to define a counter timeline");
        }
    }
    *tl = *known;
    if (map_category(m, SLOG_KIND_COUNTER, 0, key, ev->name, cat) != 0) {
        return map_fail(m, NULL, "Failed to define a category");
    }
    return 0;
}

static void counter_ref_clear(counter_ref *ref)
{
    for (size_t i = 0; i < ref->ns; i++) {
        free(ref->s[i].key);
        ref->s[i].key = NULL;
    }
    free(ref->id);
    ref->id = NULL;
}

/* The cache entry for a C record's series: its name_key's, reset when the
 * thread_key or id differ from the last ones; NULL (no caching) without a
 * key or memory. */
static counter_ref *counter_ref_of(chrome_map *m, const chrome_event *ev)
{
    const uint32_t key = ev->name_key;
    if (key == 0 || ev->thread_key == 0 ||
        key_cache_grow(&m->counter_by_name_key, &m->ncounter_keys,
                       sizeof(counter_ref *), key) != 0) {
        return NULL;
    }
    counter_ref *ref = m->counter_by_name_key[key];
    if (ref == NULL && (ref = calloc(1, sizeof *ref)) == NULL) {
        return NULL;
    }
    m->counter_by_name_key[key] = ref;
    const bool same_id = ev->id == NULL ? ref->id == NULL
                                        : ref->id != NULL && strcmp(ref->id, ev->id) == 0;
    if (ref->thread_key != ev->thread_key || !same_id) {
        counter_ref_clear(ref);
        ref->thread_key = ev->thread_key;
        if (ev->id != NULL && (ref->id = strdup(ev->id)) == NULL) {
            ref->thread_key = 0; /* matches no record */
        }
    }
    return ref;
}

static const series_ref *series_known(const counter_ref *ref, uint32_t i, const char *key)
{
    if (ref == NULL || i >= ref->ns || ref->s[i].key == NULL || strcmp(ref->s[i].key, key) != 0) {
        return NULL;
    }
    return &ref->s[i];
}

/* Cache what series_lookup gave (skipped on no memory). */
static void series_remember(counter_ref *ref, uint32_t i, const char *key, uint32_t tl,
                            uint32_t cat)
{
    if (ref == NULL || shared_grow(&ref->s, &ref->ns, (size_t)i + 1, sizeof *ref->s) != 0) {
        return;
    }
    char *const copy = strdup(key);
    if (copy != NULL) {
        free(ref->s[i].key);
        ref->s[i].key = copy;
        ref->s[i].tl = tl;
        ref->s[i].cat = cat;
    }
}

/* The value of a series member; false when it is not a number. */
static bool counter_value(const slog_arg *a, double *v)
{
    switch (a->type) {
    case SLOG_ARG_INT:
        *v = (double)a->v.i;
        return true;
    case SLOG_ARG_UINT:
        *v = (double)a->v.u;
        return true;
    case SLOG_ARG_DOUBLE:
        *v = a->v.d;
        return true;
    default:
        return false;
    }
}

/* Where a series goes: its counter timeline and category. */
typedef struct series_at {
    uint32_t tl, cat;
} series_at;

/* Timeline and category of series @p i of @p ev (cached or looked up). */
static int counter_series(chrome_map *m, const chrome_event *ev, const process *p,
                          counter_ref *ref, uint32_t i, series_at *at)
{
    const char *const key = ev->args[i].key;
    const series_ref *known = series_known(ref, i, key);
    if (known != NULL) {
        at->tl = known->tl;
        at->cat = known->cat;
        return 0;
    }
    if (series_lookup(m, ev, p, key, &at->tl, &at->cat) != 0) {
        return -1;
    }
    series_remember(ref, i, key, at->tl, at->cat);
    return 0;
}

int map_counter(chrome_map *m, chrome_event *ev)
{
    const process *p = event_process(m, ev);
    if (p == NULL) {
        return map_fail(m, ev, "Failed to define a timeline");
    }
    counter_ref *const ref = counter_ref_of(m, ev);
    uint32_t nseries = 0;
    for (uint32_t i = 0; i < ev->nargs; i++) {
        double v;
        if (ev->args[i].key[0] == '@') {
            continue; /* unknown event fields are not series */
        }
        if (!counter_value(&ev->args[i], &v)) {
            m->counts[K_COUNTER_BAD]++;
            continue;
        }
        nseries++;
        series_at at = {0, 0};
        if (counter_series(m, ev, p, ref, i, &at) != 0 || put_counter(m, ev, at.tl, at.cat, v) != 0) {
            return -1;
        }
    }
    if (nseries == 0) {
        m->counts[K_COUNTER_EMPTY]++;
    }
    return 0;
}

/* ------------------------------------------------------------- samples */

static const frame *find_frame(chrome_map *m, uint32_t input, const char *id)
{
    m->k.n = 0;
    if (kb_addu(&m->k, input) != 0 || kb_add(&m->k, id) != 0) {
        return NULL;
    }
    return shared_strmap_get(&m->frames, m->k.s, m->k.n);
}

/* The stack from frame @p f up, leaf first: "leaf <- caller <- main". */
static void stack_text(chrome_map *m, uint32_t input, const frame *f, char *stack, size_t size)
{
    size_t used = 0;
    stack[0] = '\0';
    for (int depth = 0; f != NULL && depth < STACK_DEPTH; depth++) {
        const int w = snprintf(stack + used, size - used, "%s%s", depth ? " <- " : "", f->name);
        if (w < 0 || (size_t)w >= size - used) {
            break;
        }
        used += (size_t)w;
        f = f->parent != NULL ? find_frame(m, input, f->parent) : NULL;
    }
}

static int emit_sample(chrome_map *m, chrome_event *ev)
{
    const thread *t = event_thread(m, ev);
    if (t == NULL) {
        return -1;
    }
    const char *name = ev->name != NULL && ev->name[0] ? ev->name : "sample";
    const frame *f = ev->sf != NULL ? find_frame(m, ev->input, ev->sf) : NULL;
    slog_arg extra;
    char *own = NULL;
    if (f != NULL) {
        name = f->name;
        char stack[STACK_TEXT];
        stack_text(m, ev->input, f, stack, sizeof stack);
        own = strdup(stack);
        if (own == NULL) {
            return map_fail(m, NULL, "Out of memory");
        }
        extra.key = "stack";
        extra.type = SLOG_ARG_STRING;
        extra.v.s = own;
    }
    m->counts[(ev->flags & CEV_SAMPLE) ? K_SAMPLE_TOP : K_SAMPLE]++;
    return put_event(m, t->tl, ev, name, own != NULL ? &extra : NULL, own);
}

int map_sample(chrome_map *m, chrome_event *ev)
{
    if (ev->sf == NULL || find_frame(m, ev->input, ev->sf) != NULL) {
        return emit_sample(m, ev);
    }
    /* frames may come later in the file (stackFrames after traceEvents) */
    if (shared_grow(&m->deferred, &m->capdef, m->ndef + 1, sizeof(chrome_event *)) != 0) {
        return map_fail(m, NULL, "Out of memory");
    }
    m->deferred[m->ndef++] = map_hold(ev);
    return 0;
}

int map_flush_deferred(chrome_map *m)
{
    int rc = 0;
    for (size_t i = 0; i < m->ndef; i++) {
        chrome_event *ev = m->deferred[i];
        m->deferred[i] = NULL;
        rc = rc == 0 ? emit_sample(m, ev) : rc;
        map_release(ev);
    }
    m->ndef = 0;
    return rc;
}

int chrome_map_frame(chrome_map *m, uint32_t input, const char *id, const char *name,
                     const char *parent)
{
    m->k.n = 0;
    if (kb_addu(&m->k, input) != 0 || kb_add(&m->k, id) != 0) {
        return map_fail(m, NULL, "Out of memory");
    }
    frame *f = shared_strmap_get(&m->frames, m->k.s, m->k.n);
    if (f == NULL) {
        f = calloc(1, sizeof *f);
        if (f == NULL || shared_strmap_put(&m->frames, m->k.s, m->k.n, f) != 0) {
            free(f);
            return map_fail(m, NULL, "Out of memory");
        }
    }
    free(f->name);
    free(f->parent);
    f->name = strdup(name);
    f->parent = parent != NULL ? strdup(parent) : NULL;
    if (f->name == NULL) {
        return map_fail(m, NULL, "Out of memory");
    }
    return 0;
}

/* ------------------------------------------------------------ teardown */

static void free_frame(void *c, void *val)
{
    (void)c;
    frame *f = val;
    free(f->name);
    free(f->parent);
    free(f);
}

void map_free_samples(chrome_map *m)
{
    for (size_t i = 0; i < m->ndef; i++) {
        map_release(m->deferred[i]);
    }
    free((void *)m->deferred);
    shared_strmap_clear(&m->frames, free_frame, NULL);
    shared_strmap_clear(&m->counters, NULL, NULL);
    for (size_t i = 0; i < m->ncounter_keys; i++) {
        if (m->counter_by_name_key[i] != NULL) {
            counter_ref_clear(m->counter_by_name_key[i]);
            free(m->counter_by_name_key[i]->s);
            free(m->counter_by_name_key[i]);
        }
    }
    free((void *)m->counter_by_name_key);
}
