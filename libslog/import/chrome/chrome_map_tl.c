/* SPDX-License-Identifier: MIT
 *
 * chrome_map_tl.c - the Chrome mapper's timelines and categories: processes
 * (pid), threads (pid, tid), the global timeline of each input, categories
 * (kind, name, cat), and the metadata events that name and order them.
 * String maps keyed by the record's strings decide, and define timelines
 * and categories in order of first appearance; arrays indexed by the
 * records' chrome_keys ids cache what the maps gave, so most records are
 * placed without building a key.
 * Import library, chrome: public libslog headers, libc.
 */
#include <shared_grow.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_map_int.h"

/* ---------------------------------------------------------------- keys */

int kb_add(kbuf *k, const char *part)
{
    const size_t l = part != NULL ? strlen(part) : 0;
    if (shared_grow(&k->s, &k->cap, k->n + l + 2, 1) != 0) {
        return -1;
    }
    if (part != NULL) {
        memcpy(k->s + k->n, part, l);
    } else {
        k->s[k->n++] = '\x1e'; /* absent differs from "" */
    }
    k->n += l;
    k->s[k->n++] = '\x1f';
    return 0;
}

int kb_addu(kbuf *k, uint64_t v)
{
    char num[24];
    size_t i = sizeof num - 1;
    num[i] = '\0';
    do {
        num[--i] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0);
    return kb_add(k, num + i);
}

int kb_add_id_kind(kbuf *k, const chrome_event *ev)
{
    char kind[2] = {'-', '\0'};
    if (ev->id_kind != 0) {
        kind[0] = ev->id_kind;
    }
    return kb_add(k, kind);
}

int key_cache_grow(void *arrp, size_t *n, size_t elem, uint32_t key)
{
    return shared_grow(arrp, n, (size_t)key + 1, elem);
}

/* ----------------------------------------------------------- timelines */

static bool is_integer_text(const char *s)
{
    if (s == NULL || *s == '\0') {
        return false;
    }
    if (*s == '-') {
        s++;
    }
    if (*s == '\0') {
        return false;
    }
    for (; *s; s++) {
        if (*s < '0' || *s > '9') {
            return false;
        }
    }
    return true;
}

static int64_t default_sort(const char *id, uint64_t order)
{
    if (is_integer_text(id)) {
        const long long v = strtoll(id, NULL, 10);
        if (v > -(1ll << 40) && v < (1ll << 40)) {
            return v;
        }
    }
    return (1ll << 41) + (int64_t)order;
}

static void proc_label(const process *p, const char *pid, char *buf, size_t len)
{
    const char *base = p->name;
    char dflt[96];
    if (base == NULL) {
        if (pid == NULL) {
            base = "pid (none)";
        } else if (*pid == '\0') {
            base = "pid \"\"";
        } else if (is_integer_text(pid)) {
            (void)snprintf(dflt, sizeof dflt, "pid %s", pid);
            base = dflt;
        } else {
            base = pid;
        }
    }
    if (p->labels != NULL && p->labels[0] != '\0') {
        (void)snprintf(buf, len, "%s (%s)", base, p->labels);
    } else {
        (void)snprintf(buf, len, "%s", base);
    }
}

process *map_process(chrome_map *m, uint32_t input, const char *pid)
{
    m->k.n = 0;
    if (kb_addu(&m->k, input) != 0 || kb_add(&m->k, pid) != 0) {
        return NULL;
    }
    process *p = shared_strmap_get(&m->procs, m->k.s, m->k.n);
    if (p != NULL) {
        return p;
    }
    p = calloc(1, sizeof *p);
    if (p == NULL) {
        return NULL;
    }
    p->input = input;
    p->pid = pid != NULL ? strdup(pid) : NULL;
    p->sort = default_sort(pid, m->nprocs_seen++);
    char name[512];
    proc_label(p, pid, name, sizeof name);
    if (m->out.add_timeline(m->out.user, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, name, p->sort,
                            &p->tl) != 0 ||
        shared_strmap_put(&m->procs, m->k.s, m->k.n, p) != 0) {
        free(p->pid);
        free(p);
        return NULL;
    }
    return p;
}

static void thread_label(const char *tid, char *name, size_t len)
{
    if (tid == NULL) {
        (void)snprintf(name, len, "tid (none)");
    } else if (is_integer_text(tid)) {
        (void)snprintf(name, len, "tid %s", tid);
    } else {
        (void)snprintf(name, len, "%s", *tid ? tid : "tid \"\"");
    }
}

/* A new thread of process @p p under @p key (which map_process may have
 * overwritten in m->k, so it is a copy). */
static thread *thread_new(chrome_map *m, process *p, const char *tid, const char *key,
                          size_t klen)
{
    thread *t = calloc(1, sizeof *t);
    if (t == NULL) {
        return NULL;
    }
    t->sort = default_sort(tid, m->threads.n);
    char name[256];
    thread_label(tid, name, sizeof name);
    if (m->out.add_timeline(m->out.user, p->tl, SLOG_TIMELINE_THREAD, name, t->sort, &t->tl) !=
            0 ||
        shared_strmap_put(&m->threads, key, klen, t) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

thread *map_thread(chrome_map *m, uint32_t input, const char *pid, const char *tid)
{
    m->k.n = 0;
    if (kb_addu(&m->k, input) != 0 || kb_add(&m->k, pid) != 0 || kb_add(&m->k, tid) != 0) {
        return NULL;
    }
    thread *t = shared_strmap_get(&m->threads, m->k.s, m->k.n);
    if (t != NULL) {
        return t;
    }
    const size_t klen = m->k.n;
    char *key = malloc(klen);
    if (key == NULL) {
        return NULL;
    }
    memcpy(key, m->k.s, klen);
    process *p = map_process(m, input, pid);
    t = p != NULL ? thread_new(m, p, tid, key, klen) : NULL;
    free(key);
    return t;
}

int map_global(chrome_map *m, uint32_t input, uint32_t *tl)
{
    if (shared_grow(&m->globals, &m->nglobals, (size_t)input + 8, sizeof *m->globals) != 0) {
        return -1;
    }
    if (m->globals[input] == 0) {
        char name[64];
        if (m->cfg.ninputs > 1 && m->cfg.input_names != NULL && input < m->cfg.ninputs) {
            const char *base = strrchr(m->cfg.input_names[input], '/');
            (void)snprintf(name, sizeof name, "global (%s)",
                           base != NULL ? base + 1 : m->cfg.input_names[input]);
        } else {
            (void)snprintf(name, sizeof name, "global");
        }
        uint32_t id;
        if (m->out.add_timeline(m->out.user, SLOG_NO_PARENT, SLOG_TIMELINE_GENERIC, name,
                                -(1ll << 42), &id) != 0) {
            return -1;
        }
        m->globals[input] = id + 1;
    }
    *tl = m->globals[input] - 1;
    return 0;
}

/* The cache entry of a record's thread_key, or NULL (no key, no memory). */
static thread_ref *thread_ref_of(chrome_map *m, const chrome_event *ev)
{
    const uint32_t key = ev->thread_key;
    if (key == 0 || key_cache_grow(&m->by_thread_key, &m->nthread_keys,
                                   sizeof *m->by_thread_key, key) != 0) {
        return NULL;
    }
    return &m->by_thread_key[key];
}

thread *event_thread(chrome_map *m, const chrome_event *ev)
{
    thread_ref *ref = thread_ref_of(m, ev);
    if (ref != NULL && ref->t != NULL) {
        return ref->t;
    }
    thread *t = map_thread(m, ev->input, ev->pid, ev->tid);
    if (t == NULL) {
        (void)map_fail(m, ev, "Failed to define a timeline");
    } else if (ref != NULL) {
        ref->t = t;
    }
    return t;
}

process *event_process(chrome_map *m, const chrome_event *ev)
{
    thread_ref *ref = thread_ref_of(m, ev);
    if (ref != NULL && ref->p != NULL) {
        return ref->p;
    }
    process *p = map_process(m, ev->input, ev->pid);
    if (p != NULL && ref != NULL) {
        ref->p = p;
    }
    return p;
}

/* ---------------------------------------------------------- categories */

/* The category of (kind, name, cat) from the string map, defined if new
 * (the map keeps each id in its entry). */
static int category_lookup(chrome_map *m, slog_kind kind, const char *name, const char *cat,
                           uint32_t *id)
{
    m->k.n = 0;
    if (kb_addu(&m->k, (uint64_t)kind) != 0 || kb_add(&m->k, name) != 0 ||
        kb_add(&m->k, cat) != 0) {
        return -1;
    }
    bool fresh;
    uint32_t *known = shared_strmap_block(&m->cats, m->k.s, m->k.n, sizeof *known, &fresh);
    if (known == NULL) {
        return -1;
    }
    if (!fresh) {
        *id = *known;
        return 0;
    }
    if (m->out.add_category(m->out.user, kind, name != NULL ? name : "", cat, id) != 0) {
        (void)shared_strmap_put(&m->cats, m->k.s, m->k.n, NULL);
        return -1;
    }
    *known = *id;
    return 0;
}

int map_category(chrome_map *m, slog_kind kind, uint32_t key, const char *name, const char *cat,
                 uint32_t *id)
{
    if (key != 0 && key < m->nname_keys && m->by_name_key[key][kind] != 0) {
        *id = m->by_name_key[key][kind] - 1;
        return 0;
    }
    if (key != 0) {
        /* no memory: the cache is only an optimisation */
        (void)key_cache_grow(&m->by_name_key, &m->nname_keys, sizeof *m->by_name_key, key);
    }
    if (category_lookup(m, kind, name, cat, id) != 0) {
        return -1;
    }
    if (key != 0 && key < m->nname_keys) {
        m->by_name_key[key][kind] = *id + 1;
    }
    return 0;
}

/* ------------------------------------------------------------ metadata */

static const slog_arg *find_arg(const chrome_event *ev, const char *key)
{
    for (uint32_t i = 0; i < ev->nargs; i++) {
        if (strcmp(ev->args[i].key, key) == 0) {
            return &ev->args[i];
        }
    }
    return NULL;
}

static bool arg_int(const slog_arg *a, int64_t *v)
{
    if (a == NULL) {
        return false;
    }
    if (a->type == SLOG_ARG_INT) {
        *v = a->v.i;
        return true;
    }
    if (a->type == SLOG_ARG_DOUBLE) {
        *v = (int64_t)a->v.d;
        return true;
    }
    if (a->type == SLOG_ARG_STRING && is_integer_text(a->v.s)) {
        *v = strtoll(a->v.s, NULL, 10);
        return true;
    }
    return false;
}

/* 0 set, 1 not a string (nothing done), -1 no memory. */
static int set_str(char **dst, const slog_arg *a)
{
    if (a == NULL || (a->type != SLOG_ARG_STRING && a->type != SLOG_ARG_JSON)) {
        return 1;
    }
    char *s = strdup(a->v.s);
    if (s == NULL) {
        return -1;
    }
    free(*dst);
    *dst = s;
    return 0;
}

typedef enum meta_kind { META_OTHER, META_PNAME, META_PLABELS, META_PSORT, META_TNAME, META_TSORT } meta_kind;

static meta_kind meta_kind_of(const char *name)
{
    static const struct {
        const char *name;
        meta_kind kind;
    } known[] = {
        {"process_name", META_PNAME},      {"process_labels", META_PLABELS},
        {"process_sort_index", META_PSORT}, {"thread_name", META_TNAME},
        {"thread_sort_index", META_TSORT},
    };
    for (size_t i = 0; name != NULL && i < sizeof known / sizeof known[0]; i++) {
        if (strcmp(name, known[i].name) == 0) {
            return known[i].kind;
        }
    }
    return META_OTHER;
}

static int meta_process(chrome_map *m, const chrome_event *ev, process *p, meta_kind k)
{
    int rc = 0;
    if (k == META_PNAME || k == META_PLABELS) {
        const bool pname = k == META_PNAME;
        rc = set_str(pname ? &p->name : &p->labels, find_arg(ev, pname ? "name" : "labels"));
        m->counts[pname ? K_M_PNAME : K_M_LABELS]++;
    } else {
        int64_t v;
        m->counts[K_M_PSORT]++;
        if (arg_int(find_arg(ev, "sort_index"), &v)) {
            p->sort = v;
        }
    }
    if (rc < 0) {
        return map_fail(m, ev, "Out of memory");
    }
    char name[512];
    proc_label(p, p->pid, name, sizeof name);
    if (m->out.set_timeline(m->out.user, p->tl, name, p->sort) != 0) {
        return map_fail(m, ev, "Failed to rename a timeline");
    }
    return 0;
}

static int meta_thread(chrome_map *m, const chrome_event *ev, meta_kind k)
{
    thread *t = map_thread(m, ev->input, ev->pid, ev->tid);
    if (t == NULL) {
        return map_fail(m, ev, "Failed to define a timeline");
    }
    const bool tname = k == META_TNAME;
    const slog_arg *a = find_arg(ev, tname ? "name" : "sort_index");
    m->counts[tname ? K_M_TNAME : K_M_TSORT]++;
    int64_t v;
    int rc = 0;
    if (tname && a != NULL && a->type == SLOG_ARG_STRING) {
        rc = m->out.set_timeline(m->out.user, t->tl, a->v.s, t->sort);
    } else if (!tname && arg_int(a, &v)) {
        t->sort = v;
        rc = m->out.set_timeline(m->out.user, t->tl, NULL, v);
    }
    return rc != 0 ? map_fail(m, ev, "Failed to rename a timeline") : 0;
}

int chrome_map_metadata(chrome_map *m, const chrome_event *ev)
{
    const meta_kind k = meta_kind_of(ev->name);
    if (k == META_OTHER) {
        m->counts[K_M_OTHER]++;
        return 0;
    }
    process *p = map_process(m, ev->input, ev->pid);
    if (p == NULL) {
        return map_fail(m, ev, "Failed to define a timeline");
    }
    if (k == META_TNAME || k == META_TSORT) {
        return meta_thread(m, ev, k);
    }
    return meta_process(m, ev, p, k);
}

/* ------------------------------------------------------------ teardown */

static void free_proc(void *c, void *val)
{
    (void)c;
    process *p = val;
    free(p->pid);
    free(p->name);
    free(p->labels);
    free(p->lanes);
    free(p->lane_busy);
    free(p);
}

void map_free_timelines(chrome_map *m)
{
    shared_strmap_clear(&m->procs, free_proc, NULL);
    shared_strmap_clear(&m->cats, NULL, NULL);
    free(m->globals);
    free(m->by_thread_key);
    free((void *)m->by_name_key);
    free(m->k.s);
}
