/* SPDX-License-Identifier: MIT
 *
 * chrome_map.c - Trace Event phases -> libslog drawables (doc/IMPORT-CHROME.md
 * is the phase-by-phase contract).  Events arrive sorted by ts (stage 1);
 * per thread a stack of active spans gives nesting depths (B/E and X share
 * it), async spans and flows are matched by (cat, id) keys, and drawables
 * leave through a second bounded heap ordered by end time (children before
 * parents at equal end), which is the writer's optimal order.
 *
 * Threads, processes and categories are found by the records' chrome_keys
 * ids first: arrays indexed by id cache what the string maps (which decide,
 * and define timelines and categories in the same order) gave for that id.
 *
 * X events with equal ts are held briefly and taken longest first, so a
 * parent written after its child (common: X is written when it ends) still
 * nests correctly.  Spans left open at the end (B, X without dur, b, S, N)
 * are closed at the trace's end and flagged with arg "slog.unclosed".
 * Import library, chrome: public libslog headers, libc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "import_main.h"

/* ------------------------------------------------------------- counts */

typedef enum kcount {
    K_BE, K_E_STRAY, K_B_OPEN,
    K_X, K_X_TDUR, K_X_NODUR, K_X_NEG,
    K_INSTANT,
    K_COUNTER, K_COUNTER_BAD, K_COUNTER_EMPTY,
    K_ASYNC, K_ASYNC_N, K_ASYNC_E_STRAY, K_ASYNC_OPEN,
    K_LASYNC, K_LASYNC_STEP, K_LASYNC_F_STRAY, K_LASYNC_OPEN,
    K_FLOW, K_FLOW_STRAY, K_FLOW_OPEN, K_FLOW_BACK,
    K_BIND, K_BIND_STRAY, K_BIND_OPEN,
    K_OBJ, K_OBJ_SNAP, K_OBJ_D_STRAY, K_OBJ_OPEN,
    K_M_PNAME, K_M_TNAME, K_M_PSORT, K_M_TSORT, K_M_LABELS, K_M_OTHER,
    K_SAMPLE, K_SAMPLE_TOP,
    K_CLOCK, K_MEM, K_CTX,
    K_EMPTY, K_NO_PH, K_NO_TS, K_BAD_TIME, K_UNKNOWN, K_LATE,
    K_COUNT
} kcount;

static const struct {
    const char *what;
    import_outcome outcome;
} kinfo[K_COUNT] = {
    [K_BE] = {"B/E -> state", IMPORT_IMPORTED},
    [K_E_STRAY] = {"E without B", IMPORT_SKIPPED},
    [K_B_OPEN] = {"B left open (closed at trace end)", IMPORT_REPAIRED},
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

/* ---------------------------------------------------------- string map */

typedef struct sentry {
    struct sentry *next;
    uint64_t hash;
    void *val;
    size_t klen;
    char key[];
} sentry;

typedef struct smap {
    sentry **b;
    size_t nb, n;
    /* The map is walked at the end with effects on the output (spans
     * closed at the trace end, in bucket order): it keeps the byte-wise
     * FNV hash that order has always followed.  The others, walked only to
     * count or free, use the faster chrome_hash. */
    bool ordered;
} smap;

static uint64_t hash_fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

static uint64_t smap_hash(const smap *m, const char *k, size_t n)
{
    return m->ordered ? hash_fnv(k, n) : chrome_hash(0, k, n);
}

static sentry **smap_slot(smap *m, const char *k, size_t n, uint64_t h)
{
    sentry **e = &m->b[h & (m->nb - 1)];
    while (*e != NULL && !((*e)->hash == h && (*e)->klen == n && memcmp((*e)->key, k, n) == 0)) {
        e = &(*e)->next;
    }
    return e;
}

static void *smap_get(smap *m, const char *k, size_t n)
{
    if (m->nb == 0) {
        return NULL;
    }
    sentry *const *e = smap_slot(m, k, n, smap_hash(m, k, n));
    return *e != NULL ? (*e)->val : NULL;
}

static int smap_grow(smap *m)
{
    const size_t nb = m->nb ? m->nb * 2 : 64;
    sentry **b = calloc(nb, sizeof *b);
    if (b == NULL) {
        return -1;
    }
    for (size_t i = 0; i < m->nb; i++) {
        sentry *e = m->b[i];
        while (e != NULL) {
            sentry *next = e->next;
            e->next = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
            e = next;
        }
    }
    free((void *)m->b);
    m->b = b;
    m->nb = nb;
    return 0;
}

/* Set k -> v (v non-NULL), or remove k when v is NULL. */
static int smap_put(smap *m, const char *k, size_t n, void *v)
{
    if (m->n + 1 > m->nb && smap_grow(m) != 0) {
        return -1;
    }
    const uint64_t h = smap_hash(m, k, n);
    sentry **e = smap_slot(m, k, n, h);
    if (*e != NULL) {
        if (v == NULL) {
            sentry *dead = *e;
            *e = dead->next;
            free(dead);
            m->n--;
        } else {
            (*e)->val = v;
        }
        return 0;
    }
    if (v == NULL) {
        return 0;
    }
    sentry *ne = malloc(sizeof *ne + n);
    if (ne == NULL) {
        return -1;
    }
    ne->next = NULL;
    ne->hash = h;
    ne->val = v;
    ne->klen = n;
    memcpy(ne->key, k, n);
    *e = ne;
    m->n++;
    return 0;
}

/* Maps of points (flows, binds, early_f) keep each value in its entry's
 * allocation: one block, one lookup for get-or-create and for take. */
#define SMAP_BLOCK_ALIGN 16u

static size_t smap_block_at(size_t klen)
{
    const size_t at = offsetof(sentry, key) + klen;
    return (at + SMAP_BLOCK_ALIGN - 1) / SMAP_BLOCK_ALIGN * SMAP_BLOCK_ALIGN;
}

/* The block of k: found (*fresh false), or new and uninitialised (*fresh
 * true); NULL on no memory. */
static void *smap_block(smap *m, const char *k, size_t n, size_t size, bool *fresh)
{
    if (m->n + 1 > m->nb && smap_grow(m) != 0) {
        return NULL;
    }
    const uint64_t h = smap_hash(m, k, n);
    sentry **e = smap_slot(m, k, n, h);
    *fresh = *e == NULL;
    if (*e != NULL) {
        return (*e)->val;
    }
    const size_t at = smap_block_at(n);
    char *mem = malloc(at + size);
    if (mem == NULL) {
        return NULL;
    }
    sentry *ne = (sentry *)(void *)mem;
    ne->next = NULL;
    ne->hash = h;
    ne->val = mem + at;
    ne->klen = n;
    memcpy(ne->key, k, n);
    *e = ne;
    m->n++;
    return ne->val;
}

/* Copy the block of k to out and remove k; false when k is absent. */
static bool smap_take(smap *m, const char *k, size_t n, void *out, size_t size)
{
    if (m->nb == 0) {
        return false;
    }
    sentry **e = smap_slot(m, k, n, smap_hash(m, k, n));
    if (*e == NULL) {
        return false;
    }
    sentry *dead = *e;
    memcpy(out, dead->val, size);
    *e = dead->next;
    free(dead);
    m->n--;
    return true;
}

/* Call fn on every value, then free the entries. */
static void smap_clear(smap *m, void (*fn)(void *ctx, void *val), void *ctx)
{
    for (size_t i = 0; i < m->nb; i++) {
        sentry *e = m->b[i];
        while (e != NULL) {
            sentry *next = e->next;
            if (fn != NULL) {
                fn(ctx, e->val);
            }
            free(e);
            e = next;
        }
    }
    free((void *)m->b);
    m->b = NULL;
    m->nb = m->n = 0;
}

/* Keys are built in a reusable buffer: parts separated by 0x1f. */
typedef struct kbuf {
    char *s;
    size_t n, cap;
} kbuf;

static int kb_add(kbuf *k, const char *part)
{
    const size_t l = part != NULL ? strlen(part) : 0;
    if (k->n + l + 2 > k->cap) {
        size_t cap = k->cap ? k->cap : 256;
        while (cap < k->n + l + 2) {
            cap *= 2;
        }
        char *s = realloc(k->s, cap);
        if (s == NULL) {
            return -1;
        }
        k->s = s;
        k->cap = cap;
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

static int kb_addu(kbuf *k, uint64_t v)
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

/* ------------------------------------------------------------ records */

typedef struct span {
    int64_t start, end;
    char kind;          /* 'B' open B, 'x' open X (no dur), 'X' closed X */
    chrome_event *ev;   /* B and open X: the begin record */
} span;

typedef struct thread {
    uint32_t tl;
    int64_t sort;
    span *st;
    size_t n, cap;
} thread;

typedef struct process {
    uint32_t tl;
    uint32_t input;
    char *pid;
    char *name;         /* from process_name, or NULL */
    char *labels;
    int64_t sort;
    uint32_t *lanes;    /* async lane timelines */
    bool *lane_busy;
    size_t nlanes;
} process;

typedef struct open_async {
    uint32_t lane;      /* index in the process's lanes */
    process *proc;
    chrome_event **st;  /* stack of begin records */
    size_t n, cap;
} open_async;

typedef struct point {
    uint32_t tl;
    int64_t t;
    chrome_event *ev;
} point;

typedef struct object {
    uint32_t tl;
    chrome_event *born; /* N record while alive */
} object;

typedef struct frame {
    char *name;
    char *parent;
} frame;

/* A drawable waiting in the stage-2 heap. */
typedef struct pending {
    slog_kind kind;
    int64_t start, end;
    uint64_t seq;
    union {
        slog_state s;
        slog_event e;
        slog_arrow a;
        slog_counter c;
    } u;
    chrome_event *ev[2]; /* records whose strings the args point into */
    slog_arg *own_args;  /* allocated args array, or NULL */
    char *own_str;       /* a string an extra arg points to, or NULL */
    size_t bytes;        /* memory held (window accounting) */
    struct pending *next_spare; /* on chrome_map.spare */
} pending;

/* A counter's series as last seen for one name_key: the record's
 * thread_key and id, and per args index the series key with its counter
 * timeline and category (what the string maps gave for them). */
typedef struct series_ref {
    char *key;          /* NULL = none cached at this index */
    uint32_t tl, cat;
} series_ref;

typedef struct counter_ref {
    uint32_t thread_key;
    char *id;           /* the record's id (NULL = none) */
    series_ref *s;
    size_t ns;
} counter_ref;

/* What a chrome_event.thread_key stands for, once looked up. */
typedef struct thread_ref {
    thread *t;
    process *p;
} thread_ref;

struct chrome_map {
    chrome_out out;
    import_ctx *ctx;
    chrome_map_config cfg;
    smap procs, threads, cats, counters, asyncs, flows, binds, objects, frames;
    smap early_f;        /* f that came before its s (the s was late) */
    kbuf k;
    thread_ref *by_thread_key; /* [thread_key], NULL members = not yet */
    size_t nthread_keys;
    uint32_t (*by_name_key)[4]; /* [name_key][slog_kind]: category + 1, 0 = not yet */
    size_t nname_keys;
    counter_ref **counter_by_name_key; /* [name_key] of C records, NULL = none yet */
    size_t ncounter_keys;
    uint32_t *globals;   /* per input: global timeline + 1 (0 = none yet) */
    size_t nglobals;
    uint64_t nprocs_seen;
    chrome_window out_win;
    pending *spare;      /* written pendings kept for reuse (cache-warm) */
    size_t nspare;
    uint64_t out_seq;
    uint64_t held;       /* bytes held in out_heap */
    int64_t watermark;   /* largest ts processed */
    int64_t trace_end;   /* largest time seen anywhere */
    bool any_time;
    chrome_event **xgroup; /* X events with the same ts, held */
    size_t nx, capx;
    chrome_event **deferred; /* samples waiting for their stack frames */
    size_t ndef, capdef;
    uint64_t counts[K_COUNT];
    int failed;
};

/* Diagnostics name the input a record came from. */
static void set_input(chrome_map *m, uint32_t input)
{
    if (m->cfg.input_names != NULL && input < m->cfg.ninputs) {
        m->ctx->display_name = m->cfg.input_names[input];
    }
}

static int map_fail(chrome_map *m, const chrome_event *ev, const char *what)
{
    if (m->failed) {
        return 1; /* reported once */
    }
    m->failed = 1;
    const char *why = m->out.last_error != NULL ? m->out.last_error(m->out.user) : NULL;
    if (ev != NULL) {
        set_input(m, ev->input);
        return import_fail(m->ctx, ev->line, ev->col, ev->offset, "%s%s%s", what,
                           why != NULL ? ": " : "", why != NULL ? why : "");
    }
    return import_fail(m->ctx, 0, 0, UINT64_MAX, "%s%s%s", what, why != NULL ? ": " : "",
                       why != NULL ? why : "");
}

/* A warning about one record; the literal message is also its cap key. */
#define mwarn(m, ev, msg)                                                                       \
    do {                                                                                       \
        set_input((m), (ev)->input);                                                           \
        import_warn((m)->ctx, (ev)->line, (ev)->col, (ev)->offset, msg);                       \
    } while (0)

/* --------------------------------------------------------- timelines */


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

static process *get_process(chrome_map *m, uint32_t input, const char *pid)
{
    m->k.n = 0;
    if (kb_addu(&m->k, input) != 0 || kb_add(&m->k, pid) != 0) {
        return NULL;
    }
    process *p = smap_get(&m->procs, m->k.s, m->k.n);
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
        smap_put(&m->procs, m->k.s, m->k.n, p) != 0) {
        free(p->pid);
        free(p);
        return NULL;
    }
    return p;
}

static thread *get_thread(chrome_map *m, uint32_t input, const char *pid, const char *tid)
{
    m->k.n = 0;
    if (kb_addu(&m->k, input) != 0 || kb_add(&m->k, pid) != 0 || kb_add(&m->k, tid) != 0) {
        return NULL;
    }
    thread *t = smap_get(&m->threads, m->k.s, m->k.n);
    if (t != NULL) {
        return t;
    }
    const size_t klen = m->k.n;
    char *key = malloc(klen);
    if (key == NULL) {
        return NULL;
    }
    memcpy(key, m->k.s, klen);
    process *p = get_process(m, input, pid);
    t = calloc(1, sizeof *t);
    char name[256];
    if (tid == NULL) {
        (void)snprintf(name, sizeof name, "tid (none)");
    } else if (is_integer_text(tid)) {
        (void)snprintf(name, sizeof name, "tid %s", tid);
    } else {
        (void)snprintf(name, sizeof name, "%s", *tid ? tid : "tid \"\"");
    }
    if (t != NULL) {
        t->sort = default_sort(tid, m->threads.n);
    }
    if (p == NULL || t == NULL ||
        m->out.add_timeline(m->out.user, p->tl, SLOG_TIMELINE_THREAD, name, t->sort, &t->tl) !=
            0 ||
        smap_put(&m->threads, key, klen, t) != 0) {
        free(key);
        free(t);
        return NULL;
    }
    free(key);
    return t;
}

static int get_global(chrome_map *m, uint32_t input, uint32_t *tl)
{
    if (input >= m->nglobals) {
        const size_t n = (size_t)input + 8;
        uint32_t *g = realloc(m->globals, n * sizeof *g);
        if (g == NULL) {
            return -1;
        }
        memset(g + m->nglobals, 0, (n - m->nglobals) * sizeof *g);
        m->globals = g;
        m->nglobals = n;
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

/* An array indexed by key ids, grown to hold @p key (zeroed); NULL on no
 * memory (arr untouched: the caches are only an optimisation). */
static void *key_cache_grow(void *arr, size_t *n, size_t elem, uint32_t key)
{
    if (key < *n) {
        return arr;
    }
    size_t nn = *n ? *n : 64;
    while (nn <= key) {
        nn *= 2;
    }
    char *g = realloc(arr, nn * elem);
    if (g != NULL) {
        memset(g + *n * elem, 0, (nn - *n) * elem);
        *n = nn;
    }
    return g;
}

/* The category of (kind, name, cat); @p key is the name_key of that name
 * and cat (0 if none or if name is not the record's). */
static int get_category(chrome_map *m, slog_kind kind, uint32_t key, const char *name,
                        const char *cat, uint32_t *id)
{
    if (key != 0 && key < m->nname_keys && m->by_name_key[key][kind] != 0) {
        *id = m->by_name_key[key][kind] - 1;
        return 0;
    }
    if (key != 0) {
        void *g = key_cache_grow((void *)m->by_name_key, &m->nname_keys,
                                 sizeof *m->by_name_key, key);
        if (g != NULL) {
            m->by_name_key = g;
        }
    }
    m->k.n = 0;
    if (kb_addu(&m->k, (uint64_t)kind) != 0 || kb_add(&m->k, name) != 0 ||
        kb_add(&m->k, cat) != 0) {
        return -1;
    }
    void *v = smap_get(&m->cats, m->k.s, m->k.n);
    if (v != NULL) {
        *id = (uint32_t)((uintptr_t)v - 1);
    } else if (m->out.add_category(m->out.user, kind, name != NULL ? name : "", cat, id) != 0 ||
               smap_put(&m->cats, m->k.s, m->k.n, (void *)((uintptr_t)*id + 1)) != 0) {
        return -1;
    }
    if (key != 0 && key < m->nname_keys) {
        m->by_name_key[key][kind] = *id + 1;
    }
    return 0;
}

/* ------------------------------------------------------------ output */

static void pending_free(pending *p)
{
    chrome_event_free(p->ev[0]);
    if (p->ev[1] != p->ev[0]) {
        chrome_event_free(p->ev[1]);
    }
    free(p->own_args);
    free(p->own_str);
    free(p);
}

static int emit_one(chrome_map *m, pending *p)
{
    int rc;
    m->held -= p->bytes;
    switch (p->kind) {
    case SLOG_KIND_STATE:
        rc = m->out.state(m->out.user, &p->u.s);
        break;
    case SLOG_KIND_EVENT:
        rc = m->out.event(m->out.user, &p->u.e);
        break;
    case SLOG_KIND_ARROW:
        rc = m->out.arrow(m->out.user, &p->u.a);
        break;
    case SLOG_KIND_COUNTER:
    default:
        rc = m->out.counter(m->out.user, &p->u.c);
        break;
    }
    if (m->nspare < 4096) {
        /* keep the block: the next pending reuses it while in cache */
        chrome_event_free(p->ev[0]);
        if (p->ev[1] != p->ev[0]) {
            chrome_event_free(p->ev[1]);
        }
        free(p->own_args);
        free(p->own_str);
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

/* Release drawables that overflow the window, and (when `upto`) those that
 * end before the watermark: every later drawable ends at or after its start,
 * which is at or after the watermark.  Called with upto only between input
 * records, when everything a record produces has been submitted. */
static int drain(chrome_map *m, bool all, bool upto)
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

static int submit(chrome_map *m, pending *p)
{
    p->bytes = sizeof *p + (p->ev[0] != NULL ? chrome_event_weight(p->ev[0]) : 0) +
               (p->ev[1] != NULL && p->ev[1] != p->ev[0] ? chrome_event_weight(p->ev[1]) : 0);
    /* end ascending; at equal end the later start (the child) first */
    if (chrome_window_push(&m->out_win, p->end, ~p->start, p->seq, p) != 0) {
        pending_free(p);
        return map_fail(m, NULL, "Out of memory");
    }
    m->held += p->bytes;
    return drain(m, false, false);
}

/* Args of one or two records (the second adds keys the first lacks), plus
 * an optional flag; sets p->u.X.args through the out params. */
static int build_args(pending *p, chrome_event *a, chrome_event *b, const char *flag,
                      const slog_arg **args, uint32_t *nargs)
{
    p->ev[0] = a;
    p->ev[1] = b != NULL ? b : a;
    if (a == NULL) {
        *args = NULL;
        *nargs = 0;
        return 0;
    }
    if (b == NULL || b == a || b->nargs == 0 || a->nargs == 0) {
        /* one record's args make the set: no array to build without a flag */
        const chrome_event *const only = b != NULL && a->nargs == 0 ? b : a;
        if (flag == NULL) {
            *args = only->nargs > 0 ? only->args : NULL;
            *nargs = only->nargs;
            return 0;
        }
    }
    const size_t max = a->nargs + (b != NULL && b != a ? b->nargs : 0) + 1;
    slog_arg *v = malloc(max * sizeof *v);
    if (v == NULL) {
        return -1;
    }
    size_t n = 0;
    for (uint32_t i = 0; i < a->nargs; i++) {
        v[n++] = a->args[i];
    }
    if (b != NULL && b != a) {
        for (uint32_t i = 0; i < b->nargs; i++) {
            bool dup = false;
            for (uint32_t j = 0; j < a->nargs && !dup; j++) {
                dup = strcmp(a->args[j].key, b->args[i].key) == 0;
            }
            if (!dup) {
                v[n++] = b->args[i];
            }
        }
    }
    if (flag != NULL) {
        v[n].key = flag;
        v[n].type = SLOG_ARG_BOOL;
        v[n].v.b = true;
        n++;
    }
    p->own_args = v;
    *args = v;
    *nargs = (uint32_t)n;
    return 0;
}

static int put_state(chrome_map *m, uint32_t tl, slog_kind ckind, chrome_event *a, chrome_event *b,
                     int64_t start, int64_t end, uint32_t depth, const char *flag)
{
    (void)ckind;
    uint32_t cat;
    pending *p = NULL;
    const char *fail = NULL;
    if (get_category(m, SLOG_KIND_STATE, a->name_key, a->name, a->cat, &cat) != 0) {
        fail = "Failed to define a category";
    } else if ((p = new_pending(m, SLOG_KIND_STATE, start, end)) == NULL ||
               build_args(p, a, b, flag, &p->u.s.args, &p->u.s.nargs) != 0) {
        fail = "Out of memory";
    }
    if (fail != NULL) {
        const int rc = map_fail(m, a, fail);
        free(p);
        if (b != NULL && b != a) {
            chrome_event_free(b);
        }
        chrome_event_free(a);
        return rc;
    }
    p->u.s.timeline = tl;
    p->u.s.category = cat;
    p->u.s.start = start;
    p->u.s.end = end;
    p->u.s.depth = depth;
    return submit(m, p);
}

/* An event drawable; takes ownership of ev.  name overrides ev->name. */
static int put_event(chrome_map *m, uint32_t tl, chrome_event *ev, const char *name,
                     const slog_arg *extra, uint32_t nextra, char *own_str)
{
    uint32_t cat;
    if (name == NULL) {
        name = ev->name;
    }
    if (get_category(m, SLOG_KIND_EVENT, name == ev->name ? ev->name_key : 0, name, ev->cat,
                     &cat) != 0) {
        chrome_event_free(ev);
        free(own_str);
        return map_fail(m, NULL, "Failed to define a category");
    }
    pending *p = new_pending(m, SLOG_KIND_EVENT, ev->ts, ev->ts);
    if (p == NULL) {
        chrome_event_free(ev);
        free(own_str);
        return map_fail(m, NULL, "Out of memory");
    }
    p->ev[0] = p->ev[1] = ev;
    p->own_str = own_str;
    if (nextra > 0) {
        slog_arg *v = malloc((ev->nargs + nextra) * sizeof *v);
        if (v == NULL) {
            pending_free(p);
            return map_fail(m, NULL, "Out of memory");
        }
        memcpy(v, extra, nextra * sizeof *v);
        if (ev->nargs > 0) {
            memcpy(v + nextra, ev->args, ev->nargs * sizeof *v);
        }
        p->own_args = v;
        p->u.e.args = v;
        p->u.e.nargs = ev->nargs + nextra;
    } else {
        p->u.e.args = ev->args;
        p->u.e.nargs = ev->nargs;
    }
    p->u.e.timeline = tl;
    p->u.e.category = cat;
    p->u.e.time = ev->ts;
    return submit(m, p);
}

/* Arrow between two points; takes ownership of both records. */
static int put_arrow(chrome_map *m, const point *from, chrome_event *to_ev, uint32_t to_tl,
                     kcount ok)
{
    if (to_ev->ts < from->t) {
        m->counts[K_FLOW_BACK]++;
        chrome_event_free(from->ev);
        chrome_event_free(to_ev);
        return 0;
    }
    uint32_t cat;
    const chrome_event *named = from->ev;
    if (get_category(m, SLOG_KIND_ARROW, named->name_key, named->name, named->cat, &cat) != 0) {
        chrome_event_free(from->ev);
        chrome_event_free(to_ev);
        return map_fail(m, NULL, "Failed to define a category");
    }
    pending *p = new_pending(m, SLOG_KIND_ARROW, from->t, to_ev->ts);
    if (p == NULL || build_args(p, from->ev, to_ev, NULL, &p->u.a.args, &p->u.a.nargs) != 0) {
        free(p);
        chrome_event_free(from->ev);
        chrome_event_free(to_ev);
        return map_fail(m, NULL, "Out of memory");
    }
    p->u.a.category = cat;
    p->u.a.from = from->tl;
    p->u.a.to = to_tl;
    p->u.a.start = from->t;
    p->u.a.end = to_ev->ts;
    m->counts[ok]++;
    return submit(m, p);
}

/* ------------------------------------------------------- thread spans */

static int push_span(thread *t, int64_t start, int64_t end, char kind, chrome_event *ev)
{
    if (t->n == t->cap) {
        const size_t cap = t->cap ? t->cap * 2 : 8;
        span *s = realloc(t->st, cap * sizeof *s);
        if (s == NULL) {
            return -1;
        }
        t->st = s;
        t->cap = cap;
    }
    t->st[t->n++] = (span){start, end, kind, ev};
    return 0;
}

/* Spans that ended by time t leave the stack (only closed X spans end). */
static void pop_ended(thread *t, int64_t ts)
{
    while (t->n > 0 && t->st[t->n - 1].kind == 'X' && t->st[t->n - 1].end <= ts) {
        t->n--;
    }
}

/* The cache entry of a record's thread_key, or NULL (no key, no memory). */
static thread_ref *thread_ref_of(chrome_map *m, const chrome_event *ev)
{
    const uint32_t key = ev->thread_key;
    if (key == 0) {
        return NULL;
    }
    if (key >= m->nthread_keys) {
        void *g = key_cache_grow(m->by_thread_key, &m->nthread_keys, sizeof *m->by_thread_key,
                                 key);
        if (g == NULL) {
            return NULL;
        }
        m->by_thread_key = g;
    }
    return &m->by_thread_key[key];
}

static thread *event_thread(chrome_map *m, const chrome_event *ev)
{
    thread_ref *ref = thread_ref_of(m, ev);
    if (ref != NULL && ref->t != NULL) {
        return ref->t;
    }
    thread *t = get_thread(m, ev->input, ev->pid, ev->tid);
    if (t == NULL) {
        (void)map_fail(m, ev, "Failed to define a timeline");
    } else if (ref != NULL) {
        ref->t = t;
    }
    return t;
}

/* The process of a record (as get_process), NULL on failure (unreported). */
static process *event_process(chrome_map *m, const chrome_event *ev)
{
    thread_ref *ref = thread_ref_of(m, ev);
    if (ref != NULL && ref->p != NULL) {
        return ref->p;
    }
    process *p = get_process(m, ev->input, ev->pid);
    if (p != NULL && ref != NULL) {
        ref->p = p;
    }
    return p;
}

static int map_begin(chrome_map *m, chrome_event *ev)
{
    thread *t = event_thread(m, ev);
    if (t == NULL) {
        return -1;
    }
    pop_ended(t, ev->ts);
    if (push_span(t, ev->ts, INT64_MAX, 'B', ev) != 0) {
        chrome_event_free(ev);
        return map_fail(m, NULL, "Out of memory");
    }
    return 0;
}

static int map_end(chrome_map *m, chrome_event *ev)
{
    thread *t = event_thread(m, ev);
    if (t == NULL) {
        return -1;
    }
    pop_ended(t, ev->ts);
    size_t i = t->n;
    while (i > 0 && t->st[i - 1].kind != 'B') {
        i--;
    }
    if (i > 0 && t->st[i - 1].start > ev->ts) {
        i = 0; /* a late E (beyond the window): it cannot end a later B */
    }
    if (i == 0) {
        m->counts[K_E_STRAY]++;
        mwarn(m, ev, "E without a matching B (skipped)");
        chrome_event_free(ev);
        return 0;
    }
    const span b = t->st[i - 1];
    memmove(t->st + i - 1, t->st + i, (t->n - i) * sizeof *t->st);
    t->n--;
    m->counts[K_BE]++;
    return put_state(m, t->tl, SLOG_KIND_STATE, b.ev, ev, b.start, ev->ts, (uint32_t)(i - 1), NULL);
}

static int map_complete(chrome_map *m, chrome_event *ev)
{
    thread *t = event_thread(m, ev);
    if (t == NULL) {
        return -1;
    }
    pop_ended(t, ev->ts);
    const uint32_t depth = (uint32_t)t->n;
    int64_t dur;
    const char *flag = NULL;
    if (ev->flags & CEV_HAS_DUR) {
        dur = ev->dur;
        if (dur < 0) {
            m->counts[K_X_NEG]++;
            mwarn(m, ev, "X with negative dur (skipped)");
            chrome_event_free(ev);
            return 0;
        }
        m->counts[K_X]++;
    } else if ((ev->flags & CEV_HAS_TDUR) && ev->tdur >= 0) {
        dur = ev->tdur;
        m->counts[K_X_TDUR]++;
        flag = "slog.dur_from_tdur";
    } else {
        /* no duration: open until the trace ends (as trace viewers do) */
        if (push_span(t, ev->ts, INT64_MAX, 'x', ev) != 0) {
            chrome_event_free(ev);
            return map_fail(m, NULL, "Out of memory");
        }
        return 0;
    }
    if (ev->ts > INT64_MAX - dur) {
        m->counts[K_BAD_TIME]++;
        chrome_event_free(ev);
        return 0;
    }
    const int64_t end = ev->ts + dur;
    chrome_map_see_time(m, end);
    if (push_span(t, ev->ts, end, 'X', NULL) != 0) {
        chrome_event_free(ev);
        return map_fail(m, NULL, "Out of memory");
    }
    return put_state(m, t->tl, SLOG_KIND_STATE, ev, NULL, ev->ts, end, depth, flag);
}

/* ------------------------------------------------------------- async */

static int async_key(chrome_map *m, const chrome_event *ev, const char *ns)
{
    m->k.n = 0;
    char kind[2] = {ev->id_kind ? ev->id_kind : '-', '\0'};
    int rc = kb_add(&m->k, ns) | kb_addu(&m->k, ev->input) | kb_add(&m->k, ev->cat) |
             kb_add(&m->k, ev->scope) | kb_add(&m->k, kind) | kb_add(&m->k, ev->id);
    if (ev->id_kind == 'l') {
        rc |= kb_add(&m->k, ev->pid);
    }
    return rc;
}

static int lane_get(chrome_map *m, process *p, uint32_t *lane)
{
    for (size_t i = 0; i < p->nlanes; i++) {
        if (!p->lane_busy[i]) {
            p->lane_busy[i] = true;
            *lane = (uint32_t)i;
            return 0;
        }
    }
    uint32_t *l = realloc(p->lanes, (p->nlanes + 1) * sizeof *l);
    if (l == NULL) {
        return -1;
    }
    p->lanes = l;
    bool *b = realloc(p->lane_busy, (p->nlanes + 1) * sizeof *b);
    if (b == NULL) {
        return -1;
    }
    p->lane_busy = b;
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

static int async_begin(chrome_map *m, chrome_event *ev, const char *ns)
{
    process *p = event_process(m, ev); /* before the key: it uses m->k */
    if (p == NULL || async_key(m, ev, ns) != 0) {
        chrome_event_free(ev);
        return map_fail(m, NULL, "Out of memory");
    }
    open_async *a = smap_get(&m->asyncs, m->k.s, m->k.n);
    if (a == NULL) {
        a = calloc(1, sizeof *a);
        if (a == NULL || lane_get(m, p, &a->lane) != 0 ||
            smap_put(&m->asyncs, m->k.s, m->k.n, a) != 0) {
            free(a);
            chrome_event_free(ev);
            return map_fail(m, NULL, "Out of memory");
        }
        a->proc = p;
    }
    if (a->n == a->cap) {
        const size_t cap = a->cap ? a->cap * 2 : 4;
        chrome_event **st = realloc((void *)a->st, cap * sizeof *st);
        if (st == NULL) {
            chrome_event_free(ev);
            return map_fail(m, NULL, "Out of memory");
        }
        a->st = st;
        a->cap = cap;
    }
    a->st[a->n++] = ev;
    return 0;
}

static void async_release(chrome_map *m, open_async *a)
{
    a->proc->lane_busy[a->lane] = false;
    free((void *)a->st);
    free(a);
    (void)smap_put(&m->asyncs, m->k.s, m->k.n, NULL);
}

static int async_end(chrome_map *m, chrome_event *ev, const char *ns, kcount ok, kcount stray)
{
    if (async_key(m, ev, ns) != 0) {
        chrome_event_free(ev);
        return map_fail(m, NULL, "Out of memory");
    }
    open_async *a = smap_get(&m->asyncs, m->k.s, m->k.n);
    if (a == NULL || a->st[a->n - 1]->ts > ev->ts) {
        m->counts[stray]++; /* none open, or a late end before the open begin */
        chrome_event_free(ev);
        return 0;
    }
    chrome_event *b = a->st[--a->n];
    const uint32_t tl = a->proc->lanes[a->lane];
    const uint32_t depth = (uint32_t)a->n;
    if (a->n == 0) {
        async_release(m, a);
    }
    m->counts[ok]++;
    return put_state(m, tl, SLOG_KIND_STATE, b, ev, b->ts, ev->ts, depth, NULL);
}

/* n, T, p: an event on the lane of the open span, else on the thread. */
static int async_point(chrome_map *m, chrome_event *ev, const char *ns, kcount ok)
{
    if (async_key(m, ev, ns) != 0) {
        chrome_event_free(ev);
        return map_fail(m, NULL, "Out of memory");
    }
    const open_async *a = smap_get(&m->asyncs, m->k.s, m->k.n);
    uint32_t tl;
    if (a != NULL) {
        tl = a->proc->lanes[a->lane];
    } else {
        const thread *t = event_thread(m, ev);
        if (t == NULL) {
            chrome_event_free(ev);
            return -1;
        }
        tl = t->tl;
    }
    m->counts[ok]++;
    return put_event(m, tl, ev, NULL, NULL, 0, NULL);
}

/* ------------------------------------------------------------- flows */

static int flow_key(chrome_map *m, const chrome_event *ev)
{
    m->k.n = 0;
    char kind[2] = {ev->id_kind ? ev->id_kind : '-', '\0'};
    int rc = kb_addu(&m->k, ev->input) | kb_add(&m->k, ev->cat) | kb_add(&m->k, kind) |
             kb_add(&m->k, ev->id);
    if (ev->id_kind == 'l') {
        rc |= kb_add(&m->k, ev->pid);
    }
    return rc;
}

static int map_flow(chrome_map *m, chrome_event *ev, char ph)
{
    const thread *t = event_thread(m, ev);
    if (t == NULL) {
        chrome_event_free(ev);
        return -1;
    }
    if (flow_key(m, ev) != 0) {
        chrome_event_free(ev);
        return map_fail(m, NULL, "Out of memory");
    }
    if (ph == 's' && ev->ts < m->watermark) {
        /* a late s (the window overflowed): its f may have come already */
        const point *early = smap_get(&m->early_f, m->k.s, m->k.n);
        point to;
        if (early != NULL && early->t >= ev->ts &&
            smap_take(&m->early_f, m->k.s, m->k.n, &to, sizeof to)) {
            const point from = {t->tl, ev->ts, ev};
            m->counts[K_FLOW_STRAY]--; /* it was counted stray on arrival */
            return put_arrow(m, &from, to.ev, to.tl, K_FLOW);
        }
    }
    if (ph == 'f') {
        point from;
        if (smap_take(&m->flows, m->k.s, m->k.n, &from, sizeof from)) {
            return put_arrow(m, &from, ev, t->tl, K_FLOW);
        }
        m->counts[K_FLOW_STRAY]++;
    }
    /* s and t open (or go on from) a point; a stray f waits in early_f */
    bool fresh;
    point *prev = smap_block(ph == 'f' ? &m->early_f : &m->flows, m->k.s, m->k.n, sizeof *prev,
                             &fresh);
    if (prev == NULL) {
        chrome_event_free(ev);
        return map_fail(m, NULL, "Out of memory");
    }
    if (fresh || ph != 't') {
        if (!fresh) { /* an s never finished, or an earlier stray f: replaced */
            m->counts[K_FLOW_OPEN] += ph == 's' ? 1u : 0u;
            chrome_event_free(prev->ev);
        }
        *prev = (point){t->tl, ev->ts, ev}; /* t without s: the chain starts here */
        return 0;
    }
    const point from = *prev;
    /* t: arrow to here, and the chain goes on from here (own copy) */
    chrome_event *copy = malloc(ev->bytes);
    if (copy == NULL) {
        chrome_event_free(ev);
        return map_fail(m, NULL, "Out of memory");
    }
    memcpy(copy, ev, ev->bytes);
    copy->pool = NULL; /* malloc'ed */
    /* fix the copy's internal pointers: they point into ev's block */
    const char *base = (const char *)ev;
    char *nbase = (char *)copy;
#define REBASE(f) copy->f = copy->f != NULL ? nbase + (copy->f - base) : NULL
    REBASE(name);
    REBASE(cat);
    REBASE(pid);
    REBASE(tid);
    REBASE(id);
    REBASE(scope);
    REBASE(bp);
    REBASE(s);
    REBASE(sf);
    REBASE(bind_id);
#undef REBASE
    copy->args = (slog_arg *)(void *)(nbase + ((const char *)ev->args - base));
    for (uint32_t i = 0; i < copy->nargs; i++) {
        copy->args[i].key = nbase + (ev->args[i].key - base);
        if (copy->args[i].type == SLOG_ARG_STRING || copy->args[i].type == SLOG_ARG_JSON) {
            copy->args[i].v.s = nbase + (ev->args[i].v.s - base);
        }
    }
    *prev = (point){t->tl, ev->ts, copy};
    return put_arrow(m, &from, ev, t->tl, K_FLOW);
}

/* flow v2: bind_id with flow_in / flow_out on a slice (keeps ev). */
static int map_bind(chrome_map *m, const chrome_event *ev, uint32_t tl)
{
    const char *id = ev->bind_id != NULL ? ev->bind_id : ev->id;
    m->k.n = 0;
    if (kb_addu(&m->k, ev->input) != 0 || kb_add(&m->k, id) != 0) {
        return map_fail(m, NULL, "Out of memory");
    }
    if (ev->flags & CEV_FLOW_IN) {
        point f;
        if (!smap_take(&m->binds, m->k.s, m->k.n, &f, sizeof f)) {
            m->counts[K_BIND_STRAY]++;
        } else {
            chrome_event *to = malloc(sizeof *to);
            if (to == NULL) {
                chrome_event_free(f.ev);
                return map_fail(m, NULL, "Out of memory");
            }
            memcpy(to, ev, sizeof *to);
            to->pool = NULL;
            to->nargs = 0; /* the arrow carries the source's args */
            to->bytes = sizeof *to;
            if (put_arrow(m, &f, to, tl, K_BIND) != 0) {
                return -1;
            }
        }
    }
    if (ev->flags & CEV_FLOW_OUT) {
        m->k.n = 0; /* put_arrow above reused the key buffer */
        if (kb_addu(&m->k, ev->input) != 0 || kb_add(&m->k, id) != 0) {
            return map_fail(m, NULL, "Out of memory");
        }
        /* a small record naming the flow: name/cat only, no args */
        const size_t ln = ev->name ? strlen(ev->name) + 1 : 0;
        const size_t lc = ev->cat ? strlen(ev->cat) + 1 : 0;
        chrome_event *src = malloc(sizeof *src + ln + lc);
        bool fresh;
        point *p = src != NULL ? smap_block(&m->binds, m->k.s, m->k.n, sizeof *p, &fresh) : NULL;
        if (p == NULL) {
            free(src);
            return map_fail(m, NULL, "Out of memory");
        }
        if (!fresh) {
            m->counts[K_BIND_OPEN]++;
            chrome_event_free(p->ev);
        }
        memcpy(src, ev, sizeof *src);
        src->pool = NULL;
        src->nargs = 0;
        src->args = NULL;
        char *s = (char *)(src + 1);
        src->name = ev->name ? memcpy(s, ev->name, ln) : NULL;
        src->cat = ev->cat ? memcpy(s + ln, ev->cat, lc) : NULL;
        src->pid = src->tid = src->id = src->scope = src->bp = src->s = src->sf = NULL;
        src->bind_id = NULL;
        *p = (point){tl, ev->ts, src};
    }
    return 0;
}

/* ----------------------------------------------------------- objects */

static object *get_object(chrome_map *m, const chrome_event *ev)
{
    m->k.n = 0;
    char kind[2] = {ev->id_kind ? ev->id_kind : '-', '\0'};
    if ((kb_addu(&m->k, ev->input) | kb_add(&m->k, ev->pid) | kb_add(&m->k, ev->name) |
         kb_add(&m->k, kind) | kb_add(&m->k, ev->id)) != 0) {
        return NULL;
    }
    object *o = smap_get(&m->objects, m->k.s, m->k.n);
    if (o != NULL) {
        return o;
    }
    const size_t klen = m->k.n;
    char *key = malloc(klen);
    if (key != NULL) {
        memcpy(key, m->k.s, klen);
    }
    o = calloc(1, sizeof *o);
    process *p = key != NULL && o != NULL ? get_process(m, ev->input, ev->pid) : NULL;
    char name[512];
    (void)snprintf(name, sizeof name, "%s %s", ev->name ? ev->name : "object",
                   ev->id ? ev->id : "");
    if (p == NULL ||
        m->out.add_timeline(m->out.user, p->tl, SLOG_TIMELINE_GENERIC, name, 1ll << 44, &o->tl) !=
            0 ||
        smap_put(&m->objects, key, klen, o) != 0) {
        free(key);
        free(o);
        return NULL;
    }
    free(key);
    return o;
}

static int map_object(chrome_map *m, chrome_event *ev, char ph)
{
    object *o = get_object(m, ev);
    if (o == NULL) {
        chrome_event_free(ev);
        return map_fail(m, NULL, "Failed to define an object timeline");
    }
    if (ph == 'O') {
        m->counts[K_OBJ_SNAP]++;
        return put_event(m, o->tl, ev, NULL, NULL, 0, NULL);
    }
    if (o->born != NULL && o->born->ts > ev->ts) {
        /* late (beyond the window): before the current life began */
        m->counts[ph == 'N' ? K_LATE : K_OBJ_D_STRAY]++;
        chrome_event_free(ev);
        return 0;
    }
    if (ph == 'N') {
        if (o->born != NULL) { /* recreated: the old life ends here */
            chrome_event *b = o->born;
            o->born = ev;
            m->counts[K_OBJ]++;
            return put_state(m, o->tl, SLOG_KIND_STATE, b, NULL, b->ts, ev->ts, 0, NULL);
        }
        o->born = ev;
        return 0;
    }
    if (o->born == NULL) {
        m->counts[K_OBJ_D_STRAY]++;
        chrome_event_free(ev);
        return 0;
    }
    chrome_event *b = o->born;
    o->born = NULL;
    m->counts[K_OBJ]++;
    return put_state(m, o->tl, SLOG_KIND_STATE, b, ev, b->ts, ev->ts, 0, NULL);
}

/* ----------------------------------------------------------- counters */

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
    void *tlv = smap_get(&m->counters, m->k.s, m->k.n);
    if (tlv == NULL) {
        char name[512];
        if (ev->id != NULL) {
            (void)snprintf(name, sizeof name, "%s[%s].%s", ev->name ? ev->name : "", ev->id, key);
        } else {
            (void)snprintf(name, sizeof name, "%s.%s", ev->name ? ev->name : "", key);
        }
        if (m->out.add_timeline(m->out.user, p->tl, SLOG_TIMELINE_COUNTER, name, 1ll << 42, tl) !=
                0 ||
            smap_put(&m->counters, m->k.s, m->k.n, (void *)((uintptr_t)*tl + 1)) != 0) {
            return map_fail(m, NULL, "Failed to define a counter timeline");
        }
    } else {
        *tl = (uint32_t)((uintptr_t)tlv - 1);
    }
    if (get_category(m, SLOG_KIND_COUNTER, 0, key, ev->name, cat) != 0) {
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
    if (key == 0 || ev->thread_key == 0) {
        return NULL;
    }
    void *g = key_cache_grow((void *)m->counter_by_name_key, &m->ncounter_keys,
                             sizeof *m->counter_by_name_key, key);
    if (g == NULL) {
        return NULL;
    }
    m->counter_by_name_key = g;
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
    if (ref == NULL) {
        return;
    }
    if (i >= ref->ns) {
        series_ref *v = realloc(ref->s, ((size_t)i + 1) * sizeof *v);
        if (v == NULL) {
            return;
        }
        memset(v + ref->ns, 0, ((size_t)i + 1 - ref->ns) * sizeof *v);
        ref->s = v;
        ref->ns = (size_t)i + 1;
    }
    char *const copy = strdup(key);
    if (copy != NULL) {
        free(ref->s[i].key);
        ref->s[i] = (series_ref){copy, tl, cat};
    }
}

static int map_counter(chrome_map *m, chrome_event *ev)
{
    process *p = event_process(m, ev);
    if (p == NULL) {
        const int rc = map_fail(m, ev, "Failed to define a timeline");
        chrome_event_free(ev);
        return rc;
    }
    counter_ref *const ref = counter_ref_of(m, ev);
    uint32_t nseries = 0;
    for (uint32_t i = 0; i < ev->nargs; i++) {
        const slog_arg *a = &ev->args[i];
        double v;
        if (a->key[0] == '@') {
            continue; /* unknown event fields are not series */
        }
        if (a->type == SLOG_ARG_INT) {
            v = (double)a->v.i;
        } else if (a->type == SLOG_ARG_UINT) {
            v = (double)a->v.u;
        } else if (a->type == SLOG_ARG_DOUBLE) {
            v = a->v.d;
        } else {
            m->counts[K_COUNTER_BAD]++;
            continue;
        }
        nseries++;
        uint32_t tl = 0, cat = 0; /* set by series_known or series_lookup */
        const series_ref *known = series_known(ref, i, a->key);
        if (known != NULL) {
            tl = known->tl;
            cat = known->cat;
        } else if (series_lookup(m, ev, p, a->key, &tl, &cat) != 0) {
            chrome_event_free(ev);
            return -1;
        } else {
            series_remember(ref, i, a->key, tl, cat);
        }
        pending *pd = new_pending(m, SLOG_KIND_COUNTER, ev->ts, ev->ts);
        if (pd == NULL) {
            chrome_event_free(ev);
            return map_fail(m, NULL, "Out of memory");
        }
        pd->u.c = (slog_counter){tl, cat, ev->ts, v};
        m->counts[K_COUNTER]++;
        if (submit(m, pd) != 0) {
            chrome_event_free(ev);
            return -1;
        }
    }
    if (nseries == 0) {
        m->counts[K_COUNTER_EMPTY]++;
    }
    chrome_event_free(ev);
    return 0;
}

/* ----------------------------------------------------------- samples */

static const frame *find_frame(chrome_map *m, uint32_t input, const char *id)
{
    m->k.n = 0;
    if (kb_addu(&m->k, input) != 0 || kb_add(&m->k, id) != 0) {
        return NULL;
    }
    return smap_get(&m->frames, m->k.s, m->k.n);
}

static int emit_sample(chrome_map *m, chrome_event *ev)
{
    const thread *t = event_thread(m, ev);
    if (t == NULL) {
        chrome_event_free(ev);
        return -1;
    }
    const char *name = ev->name != NULL && ev->name[0] ? ev->name : "sample";
    char stack[2048];
    stack[0] = '\0';
    slog_arg extra[1];
    uint32_t nextra = 0;
    char *own = NULL;
    if (ev->sf != NULL) {
        const frame *f = find_frame(m, ev->input, ev->sf);
        if (f != NULL) {
            name = f->name;
            /* leaf first, parents after: "leaf <- caller <- main" */
            size_t used = 0;
            for (int depth = 0; f != NULL && depth < 256; depth++) {
                const int w = snprintf(stack + used, sizeof stack - used, "%s%s",
                                       depth ? " <- " : "", f->name);
                if (w < 0 || (size_t)w >= sizeof stack - used) {
                    break;
                }
                used += (size_t)w;
                f = f->parent != NULL ? find_frame(m, ev->input, f->parent) : NULL;
            }
            own = strdup(stack);
            if (own == NULL) {
                chrome_event_free(ev);
                return map_fail(m, NULL, "Out of memory");
            }
            extra[0].key = "stack";
            extra[0].type = SLOG_ARG_STRING;
            extra[0].v.s = own;
            nextra = 1;
        }
    }
    m->counts[(ev->flags & CEV_SAMPLE) ? K_SAMPLE_TOP : K_SAMPLE]++;
    return put_event(m, t->tl, ev, name, extra, nextra, own);
}

static int map_sample(chrome_map *m, chrome_event *ev)
{
    if (ev->sf != NULL && find_frame(m, ev->input, ev->sf) == NULL) {
        /* frames may come later in the file (stackFrames after traceEvents) */
        if (m->ndef == m->capdef) {
            const size_t cap = m->capdef ? m->capdef * 2 : 64;
            chrome_event **d = realloc((void *)m->deferred, cap * sizeof *d);
            if (d == NULL) {
                chrome_event_free(ev);
                return map_fail(m, NULL, "Out of memory");
            }
            m->deferred = d;
            m->capdef = cap;
        }
        m->deferred[m->ndef++] = ev;
        return 0;
    }
    return emit_sample(m, ev);
}

int chrome_map_frame(chrome_map *m, uint32_t input, const char *id, const char *name,
                     const char *parent)
{
    m->k.n = 0;
    if (kb_addu(&m->k, input) != 0 || kb_add(&m->k, id) != 0) {
        return map_fail(m, NULL, "Out of memory");
    }
    frame *f = smap_get(&m->frames, m->k.s, m->k.n);
    if (f == NULL) {
        f = calloc(1, sizeof *f);
        if (f == NULL || smap_put(&m->frames, m->k.s, m->k.n, f) != 0) {
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

/* ---------------------------------------------------------- metadata */

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

static int rename_process(chrome_map *m, process *p)
{
    char name[512];
    proc_label(p, p->pid, name, sizeof name);
    return m->out.set_timeline(m->out.user, p->tl, name, p->sort);
}

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

int chrome_map_metadata(chrome_map *m, const chrome_event *ev)
{
    const char *n = ev->name != NULL ? ev->name : "";
    const bool pname = strcmp(n, "process_name") == 0;
    const bool plabels = strcmp(n, "process_labels") == 0;
    const bool psort = strcmp(n, "process_sort_index") == 0;
    const bool tname = strcmp(n, "thread_name") == 0;
    const bool tsort = strcmp(n, "thread_sort_index") == 0;
    if (!(pname || plabels || psort || tname || tsort)) {
        m->counts[K_M_OTHER]++;
        return 0;
    }
    process *p = get_process(m, ev->input, ev->pid);
    if (p == NULL) {
        return map_fail(m, ev, "Failed to define a timeline");
    }
    int rc = 0;
    int64_t v;
    if (pname || plabels) {
        rc = set_str(pname ? &p->name : &p->labels, find_arg(ev, pname ? "name" : "labels"));
        m->counts[pname ? K_M_PNAME : K_M_LABELS]++;
    } else if (psort) {
        m->counts[K_M_PSORT]++;
        if (arg_int(find_arg(ev, "sort_index"), &v)) {
            p->sort = v;
        }
    }
    if (rc < 0) {
        return map_fail(m, ev, "Out of memory");
    }
    if (pname || plabels || psort) {
        return rename_process(m, p) != 0 ? map_fail(m, ev, "Failed to rename a timeline") : 0;
    }
    thread *t = get_thread(m, ev->input, ev->pid, ev->tid);
    if (t == NULL) {
        return map_fail(m, ev, "Failed to define a timeline");
    }
    const slog_arg *a = find_arg(ev, tname ? "name" : "sort_index");
    m->counts[tname ? K_M_TNAME : K_M_TSORT]++;
    if (tname && a != NULL && a->type == SLOG_ARG_STRING) {
        if (m->out.set_timeline(m->out.user, t->tl, a->v.s, t->sort) != 0) {
            return map_fail(m, ev, "Failed to rename a timeline");
        }
    } else if (tsort && arg_int(a, &v)) {
        t->sort = v;
        if (m->out.set_timeline(m->out.user, t->tl, NULL, v) != 0) {
            return map_fail(m, ev, "Failed to rename a timeline");
        }
    }
    return 0;
}

/* -------------------------------------------------------------- events */

static int map_instant(chrome_map *m, chrome_event *ev, bool global, bool process_scope)
{
    uint32_t tl;
    if (global) {
        if (get_global(m, ev->input, &tl) != 0) {
            chrome_event_free(ev);
            return map_fail(m, NULL, "Failed to define a timeline");
        }
    } else if (process_scope) {
        const process *p = event_process(m, ev);
        if (p == NULL) {
            chrome_event_free(ev);
            return map_fail(m, NULL, "Failed to define a timeline");
        }
        tl = p->tl;
    } else {
        const thread *t = event_thread(m, ev);
        if (t == NULL) {
            chrome_event_free(ev);
            return -1;
        }
        tl = t->tl;
    }
    return put_event(m, tl, ev, NULL, NULL, 0, NULL);
}

/* Bindings (flow v2) are looked at on every slice-like record. */
static int maybe_bind(chrome_map *m, const chrome_event *ev)
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

static int dispatch(chrome_map *m, chrome_event *ev)
{
    const char ph = ev->ph[0];
    if (ev->ph[1] != '\0') {
        m->counts[K_UNKNOWN]++;
        chrome_event_free(ev);
        return 0;
    }
    if (maybe_bind(m, ev) != 0) {
        chrome_event_free(ev);
        return -1;
    }
    switch (ph) {
    case 'B':
        return map_begin(m, ev);
    case 'E':
        return map_end(m, ev);
    case 'X':
        return map_complete(m, ev);
    case 'i':
    case 'I':
    case 'R': {
        const char sc = ev->s != NULL ? ev->s[0] : 't';
        m->counts[K_INSTANT]++;
        return map_instant(m, ev, sc == 'g', sc == 'p');
    }
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
        chrome_event_free(ev);
        return 0;
    default:
        m->counts[K_UNKNOWN]++;
        chrome_event_free(ev);
        return 0;
    }
}

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
    if (m->nx == 0) {
        return 0;
    }
    if (m->nx > 1) { /* mostly one: X events rarely share a ts */
        qsort((void *)m->xgroup, m->nx, sizeof *m->xgroup, xgroup_cmp);
    }
    int rc = 0;
    for (size_t i = 0; i < m->nx; i++) {
        if (rc == 0) {
            rc = dispatch(m, m->xgroup[i]);
        } else {
            chrome_event_free(m->xgroup[i]);
        }
    }
    m->nx = 0;
    return rc;
}

int chrome_map_event(chrome_map *m, chrome_event *ev)
{
    if (m->failed) {
        chrome_event_free(ev);
        return -1;
    }
    if (ev->flags & CEV_EMPTY) {
        m->counts[K_EMPTY]++;
        mwarn(m, ev, "empty event {} (skipped)");
        chrome_event_free(ev);
        return 0;
    }
    if (ev->flags & CEV_BAD_TIME) {
        m->counts[K_BAD_TIME]++;
        mwarn(m, ev, "ts, dur or tdur is not a number in microseconds or out of range (skipped)");
        chrome_event_free(ev);
        return 0;
    }
    if (ev->ph[0] == '\0' && !(ev->flags & CEV_SAMPLE)) {
        m->counts[K_NO_PH]++;
        mwarn(m, ev, "event without ph (skipped)");
        chrome_event_free(ev);
        return 0;
    }
    if (!(ev->flags & CEV_HAS_TS)) {
        m->counts[K_NO_TS]++;
        mwarn(m, ev, "event without ts (skipped)");
        chrome_event_free(ev);
        return 0;
    }
    if (ev->ts < m->watermark) {
        m->counts[K_LATE]++;
    } else {
        m->watermark = ev->ts;
    }
    chrome_map_see_time(m, ev->ts);
    /* X events of one ts are held and taken parent first */
    if (m->nx > 0 && (m->xgroup[0]->ts != ev->ts || ev->ph[0] != 'X' || ev->ph[1] != '\0')) {
        if (xgroup_flush(m) != 0) {
            chrome_event_free(ev);
            return -1;
        }
    }
    if (ev->flags & CEV_SAMPLE) {
        return map_sample(m, ev) != 0 || m->failed ? -1 : drain(m, false, true);
    }
    if (ev->ph[0] == 'X' && ev->ph[1] == '\0') {
        if (m->nx == m->capx) {
            const size_t cap = m->capx ? m->capx * 2 : 16;
            chrome_event **g = realloc((void *)m->xgroup, cap * sizeof *g);
            if (g == NULL) {
                chrome_event_free(ev);
                return map_fail(m, NULL, "Out of memory");
            }
            m->xgroup = g;
            m->capx = cap;
        }
        m->xgroup[m->nx++] = ev;
        return drain(m, false, true);
    }
    return dispatch(m, ev) != 0 || m->failed ? -1 : drain(m, false, true);
}

void chrome_map_see_time(chrome_map *m, int64_t t)
{
    if (!m->any_time || t > m->trace_end) {
        m->trace_end = t;
        m->any_time = true;
    }
}

/* ------------------------------------------------------------ finish */

typedef struct close_ctx {
    chrome_map *m;
    int rc;
} close_ctx;

static void close_thread(void *c, void *val)
{
    close_ctx *cc = c;
    thread *t = val;
    for (size_t i = 0; i < t->n; i++) {
        span *s = &t->st[i];
        if (s->kind == 'X' || s->ev == NULL) {
            continue;
        }
        const int64_t end = cc->m->trace_end > s->start ? cc->m->trace_end : s->start;
        cc->m->counts[s->kind == 'B' ? K_B_OPEN : K_X_NODUR]++;
        if (cc->rc == 0) {
            cc->rc = put_state(cc->m, t->tl, SLOG_KIND_STATE, s->ev, NULL, s->start, end,
                               (uint32_t)i, "slog.unclosed");
        } else {
            chrome_event_free(s->ev);
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
        const bool legacy = b->ph[0] == 'S';
        cc->m->counts[legacy ? K_LASYNC_OPEN : K_ASYNC_OPEN]++;
        const int64_t end = cc->m->trace_end > b->ts ? cc->m->trace_end : b->ts;
        if (cc->rc == 0) {
            cc->rc = put_state(cc->m, tl, SLOG_KIND_STATE, b, NULL, b->ts, end, (uint32_t)i,
                               "slog.unclosed");
        } else {
            chrome_event_free(b);
        }
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
        const int64_t end = cc->m->trace_end > o->born->ts ? cc->m->trace_end : o->born->ts;
        if (cc->rc == 0) {
            cc->rc = put_state(cc->m, o->tl, SLOG_KIND_STATE, o->born, NULL, o->born->ts, end, 0,
                               "slog.unclosed");
        } else {
            chrome_event_free(o->born);
        }
    }
    free(o);
}

/* For the maps of points, which hold them in their entries (smap_block). */
static void free_point_counting(void *c, void *val)
{
    uint64_t *n = c;
    point *p = val;
    (*n)++;
    chrome_event_free(p->ev);
}

int chrome_map_finish(chrome_map *m)
{
    if (m->failed || xgroup_flush(m) != 0) {
        return -1;
    }
    for (size_t i = 0; i < m->ndef; i++) {
        chrome_event *ev = m->deferred[i];
        m->deferred[i] = NULL;
        if (emit_sample(m, ev) != 0) {
            return -1;
        }
    }
    m->ndef = 0;
    close_ctx cc = {m, 0};
    smap_clear(&m->threads, close_thread, &cc);
    smap_clear(&m->asyncs, close_async, &cc);
    smap_clear(&m->objects, close_object, &cc);
    smap_clear(&m->flows, free_point_counting, &m->counts[K_FLOW_OPEN]);
    smap_clear(&m->binds, free_point_counting, &m->counts[K_BIND_OPEN]);
    uint64_t strays = 0; /* already counted when they came */
    smap_clear(&m->early_f, free_point_counting, &strays);
    if (cc.rc != 0 || m->failed) {
        return -1;
    }
    return drain(m, true, true);
}

void chrome_map_report(chrome_map *m)
{
    for (int i = 0; i < K_COUNT; i++) {
        import_count(m->ctx, kinfo[i].what, kinfo[i].outcome, m->counts[i]);
    }
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
    m->threads.ordered = m->asyncs.ordered = m->objects.ordered = true; /* close_* at the end */
    chrome_window_init(&m->out_win);
    *out = m;
    return 0;
}

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

static void free_frame(void *c, void *val)
{
    (void)c;
    frame *f = val;
    free(f->name);
    free(f->parent);
    free(f);
}

void chrome_map_destroy(chrome_map *m)
{
    if (m == NULL) {
        return;
    }
    close_ctx cc = {m, 1}; /* rc != 0: free only */
    smap_clear(&m->threads, close_thread, &cc);
    smap_clear(&m->asyncs, close_async, &cc);
    smap_clear(&m->objects, close_object, &cc);
    uint64_t dummy = 0;
    smap_clear(&m->flows, free_point_counting, &dummy);
    smap_clear(&m->binds, free_point_counting, &dummy);
    smap_clear(&m->early_f, free_point_counting, &dummy);
    smap_clear(&m->procs, free_proc, NULL);
    smap_clear(&m->frames, free_frame, NULL);
    smap_clear(&m->cats, NULL, NULL);
    smap_clear(&m->counters, NULL, NULL);
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
    for (size_t i = 0; i < m->nx; i++) {
        chrome_event_free(m->xgroup[i]);
    }
    free((void *)m->xgroup);
    for (size_t i = 0; i < m->ndef; i++) {
        chrome_event_free(m->deferred[i]);
    }
    free((void *)m->deferred);
    free(m->globals);
    free(m->by_thread_key);
    free((void *)m->by_name_key);
    for (size_t i = 0; i < m->ncounter_keys; i++) {
        if (m->counter_by_name_key[i] != NULL) {
            counter_ref_clear(m->counter_by_name_key[i]);
            free(m->counter_by_name_key[i]->s);
            free(m->counter_by_name_key[i]);
        }
    }
    free((void *)m->counter_by_name_key);
    free(m->k.s);
    free(m);
}
