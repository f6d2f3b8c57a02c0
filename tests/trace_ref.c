/* SPDX-License-Identifier: MIT
 *
 * trace_ref.c - random reference traces and brute-force query answers for
 * the test suites.  The generator builds, per timeline, a random call tree
 * (siblings that touch, zero-length states, nesting down to max_depth), so
 * every state's depth and exclusive time are known exactly; events, arrows
 * and counter samples are scattered uniformly.  Drawables are kept in
 * memory with a canonical text key, so a query's answer is checked as a
 * multiset of keys against a linear scan.  Public API only.
 */
#include "trace_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- PRNG --------------------------------------------------------------- */

static uint64_t tref_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void tref_rng_seed(tref_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) {
        r->s[i] = tref_splitmix(&x);
    }
}

static uint64_t tref_rotl(uint64_t v, int k)
{
    return (v << k) | (v >> (64 - k));
}

uint64_t tref_rng_next(tref_rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = tref_rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = tref_rotl(s[3], 45);
    return result;
}

uint64_t tref_rng_below(tref_rng *r, uint64_t n)
{
    return n == 0 ? 0 : tref_rng_next(r) % n;
}

int64_t tref_rng_range(tref_rng *r, int64_t lo, int64_t hi)
{
    const uint64_t width = (uint64_t)hi - (uint64_t)lo;
    if (width == UINT64_MAX) {
        return (int64_t)tref_rng_next(r);
    }
    return (int64_t)((uint64_t)lo + tref_rng_below(r, width + 1));
}

int tref_rng_chance(tref_rng *r, unsigned percent)
{
    return tref_rng_below(r, 100) < percent;
}

/* ---- arg values ----------------------------------------------------------- */

#define TR_LONG10 "0123456789"
#define TR_LONG100                                                                       \
    TR_LONG10 TR_LONG10 TR_LONG10 TR_LONG10 TR_LONG10 TR_LONG10 TR_LONG10 TR_LONG10 TR_LONG10 \
        TR_LONG10

static const char *const tref_strings[] = {
    "", "alpha", "with \"quotes\", a \\ and a\ttab", "\xc3\xbcnic\xc3\xb8" "de \xe2\x9c\x93",
    TR_LONG100 TR_LONG100 TR_LONG100, "MPI_Allreduce", "alpha",
};
static const char *const tref_json[] = {"{\"a\":1,\"b\":[true,null]}", "[1,2,3]", "null", "{}"};
static const char *const tref_keys[] = {"name", "bytes", "k2", "rank", "ratio", "flag"};

#define TR_NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void tref_gen_args(tref_rng *r, unsigned percent, tref_item *it)
{
    it->nargs = 0;
    if (!tref_rng_chance(r, percent)) {
        return;
    }
    const uint32_t n = 1 + (uint32_t)tref_rng_below(r, TR_MAX_ARGS);
    const size_t first = (size_t)tref_rng_below(r, TR_NELEM(tref_keys));
    for (uint32_t i = 0; i < n; i++) {
        slog_arg *a = &it->args[i];
        a->key = tref_keys[(first + i) % TR_NELEM(tref_keys)];
        a->type = (slog_arg_type)tref_rng_below(r, 6);
        switch (a->type) {
        case SLOG_ARG_STRING:
            a->v.s = tref_strings[tref_rng_below(r, TR_NELEM(tref_strings))];
            break;
        case SLOG_ARG_INT: {
            const uint64_t pick = tref_rng_below(r, 4);
            a->v.i = pick == 0 ? INT64_MIN : pick == 1 ? INT64_MAX : (int64_t)tref_rng_next(r) >> (int)tref_rng_below(r, 63);
            break;
        }
        case SLOG_ARG_UINT:
            a->v.u = (UINT64_C(1) << 63) | tref_rng_next(r);
            break;
        case SLOG_ARG_DOUBLE:
            a->v.d = ((double)(tref_rng_next(r) >> 11) / 9007199254740992.0 - 0.5) * 1e6;
            if (tref_rng_chance(r, 10)) {
                a->v.d = 1e300;
            }
            break;
        case SLOG_ARG_BOOL:
            a->v.b = tref_rng_chance(r, 50);
            break;
        case SLOG_ARG_JSON:
        default:
            a->type = SLOG_ARG_JSON;
            a->v.s = tref_json[tref_rng_below(r, TR_NELEM(tref_json))];
            break;
        }
    }
    it->nargs = n;
}

/* ---- canonical keys -------------------------------------------------------- */

typedef struct tref_sbuf {
    char *p;
    size_t len, cap;
} tref_sbuf;

static void tref_sbuf_add(tref_sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 128;
        while (b->len + n + 1 > cap) {
            cap *= 2;
        }
        char *p = realloc(b->p, cap);
        if (!p) {
            abort();
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void tref_sbuf_fmt(tref_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void tref_sbuf_fmt(tref_sbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        abort();
    }
    tref_sbuf_add(b, tmp, (size_t)n);
}

static char *tref_arg_text(const slog_arg *a)
{
    tref_sbuf b = {0};
    tref_sbuf_fmt(&b, "%s=", a->key ? a->key : "(null)");
    switch (a->type) {
    case SLOG_ARG_STRING:
    case SLOG_ARG_JSON: {
        const char *s = a->v.s ? a->v.s : "(null)";
        tref_sbuf_fmt(&b, "%c%zu:", a->type == SLOG_ARG_STRING ? 's' : 'j', strlen(s));
        tref_sbuf_add(&b, s, strlen(s));
        break;
    }
    case SLOG_ARG_INT:
        tref_sbuf_fmt(&b, "i%lld", (long long)a->v.i);
        break;
    case SLOG_ARG_UINT:
        tref_sbuf_fmt(&b, "u%llu", (unsigned long long)a->v.u);
        break;
    case SLOG_ARG_DOUBLE:
        tref_sbuf_fmt(&b, "d%a", a->v.d);
        break;
    case SLOG_ARG_BOOL:
        tref_sbuf_fmt(&b, "b%d", a->v.b ? 1 : 0);
        break;
    default:
        tref_sbuf_fmt(&b, "?%d", (int)a->type);
        break;
    }
    return b.p;
}

static int tref_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *tref_key(slog_kind kind, uint32_t tl, uint32_t to, uint32_t cat, int64_t start,
                    int64_t end, uint32_t depth, double value, uint32_t nargs, const slog_arg *args)
{
    tref_sbuf b = {0};
    switch (kind) {
    case SLOG_KIND_STATE:
        tref_sbuf_fmt(&b, "state tl=%u cat=%u [%lld,%lld] depth=%u", tl, cat, (long long)start,
                    (long long)end, depth);
        break;
    case SLOG_KIND_EVENT:
        tref_sbuf_fmt(&b, "event tl=%u cat=%u t=%lld", tl, cat, (long long)start);
        break;
    case SLOG_KIND_ARROW:
        tref_sbuf_fmt(&b, "arrow %u->%u cat=%u [%lld,%lld]", tl, to, cat, (long long)start,
                    (long long)end);
        break;
    case SLOG_KIND_COUNTER:
        tref_sbuf_fmt(&b, "counter tl=%u cat=%u t=%lld v=%a", tl, cat, (long long)start, value);
        break;
    default:
        tref_sbuf_fmt(&b, "kind=%d", (int)kind);
        break;
    }
    if (nargs > 0) {
        char *parts[64];
        const uint32_t n = nargs < 64 ? nargs : 64;
        for (uint32_t i = 0; i < n; i++) {
            parts[i] = tref_arg_text(&args[i]);
        }
        qsort(parts, n, sizeof parts[0], tref_cmp_str);
        for (uint32_t i = 0; i < n; i++) {
            tref_sbuf_add(&b, " ", 1);
            tref_sbuf_add(&b, parts[i], strlen(parts[i]));
            free(parts[i]);
        }
        if (nargs > n) {
            tref_sbuf_fmt(&b, " +%u more", nargs - n);
        }
    }
    return b.p;
}

char *tref_key_item(const slog_item *it)
{
    switch (it->kind) {
    case SLOG_KIND_STATE: {
        const slog_state *s = &it->u.state;
        return tref_key(it->kind, s->timeline, 0, s->category, s->start, s->end, s->depth, 0.0,
                      s->nargs, s->args);
    }
    case SLOG_KIND_EVENT: {
        const slog_event *e = &it->u.event;
        return tref_key(it->kind, e->timeline, 0, e->category, e->time, e->time, 0, 0.0, e->nargs,
                      e->args);
    }
    case SLOG_KIND_ARROW: {
        const slog_arrow *a = &it->u.arrow;
        return tref_key(it->kind, a->from, a->to, a->category, a->start, a->end, 0, 0.0, a->nargs,
                      a->args);
    }
    case SLOG_KIND_COUNTER: {
        const slog_counter *c = &it->u.counter;
        return tref_key(it->kind, c->timeline, 0, c->category, c->time, c->time, 0, c->value, 0,
                      NULL);
    }
    case SLOG_KIND_PREVIEW:
    default:
        return tref_key(it->kind, 0, 0, 0, 0, 0, 0, 0.0, 0, NULL);
    }
}

void tref_sort_keys(char **keys, size_t n)
{
    if (n > 1) {
        qsort(keys, n, sizeof keys[0], tref_cmp_str);
    }
}

bool tref_same_keys(char **a, size_t na, char **b, size_t nb, char *msg, size_t msg_size)
{
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        const int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i], b[j]);
        if (c == 0) {
            i++;
            j++;
            continue;
        }
        snprintf(msg, msg_size, "%zu vs %zu items; first difference: %s only in %s",
                 na, nb, c < 0 ? a[i] : b[j], c < 0 ? "the first (got)" : "the second (expected)");
        return false;
    }
    return true;
}

/* ---- generation ------------------------------------------------------------- */

static tref_item *tref_push(tref_trace *t)
{
    if (t->nitems == t->cap) {
        const size_t cap = t->cap ? t->cap * 2 : 1024;
        tref_item *items = realloc(t->items, cap * sizeof *items);
        uint64_t *b = realloc(t->dfs_begin, cap * sizeof *b);
        if (b) {
            t->dfs_begin = b;
        }
        uint64_t *e = realloc(t->dfs_end, cap * sizeof *e);
        if (e) {
            t->dfs_end = e;
        }
        if (items) {
            t->items = items;
        }
        if (!items || !b || !e) {
            return NULL;
        }
        t->cap = cap;
    }
    tref_item *it = &t->items[t->nitems];
    memset(it, 0, sizeof *it);
    t->dfs_begin[t->nitems] = 0;
    t->dfs_end[t->nitems] = 0;
    t->nitems++;
    return it;
}

typedef struct tref_gen {
    tref_trace *t;
    const tref_params *p;
    tref_rng rng;
    uint64_t *dfs; /* per timeline op counter */
    int64_t budget;
    int failed;
} tref_gen;

/* Fill [lo, hi] with k sibling states at @p depth and recurse; returns the
 * summed durations of the siblings (the parent's children time). */
static int64_t tref_gen_level(tref_gen *g, uint32_t tl, int64_t lo, int64_t hi, uint32_t depth,
                            uint32_t k)
{
    int64_t children = 0;
    if (k == 0 || hi < lo) {
        return 0;
    }
    const int64_t width = hi - lo;
    int64_t slot_lo = lo;
    for (uint32_t i = 0; i < k && g->budget > 0 && !g->failed; i++) {
        const int64_t slot_hi = i + 1 == k ? hi : lo + (int64_t)((double)width * (i + 1) / k);
        if (slot_hi < slot_lo) {
            continue;
        }
        int64_t s = slot_lo, e = slot_hi;
        if (!tref_rng_chance(&g->rng, 25)) { /* else touch the previous sibling */
            s = tref_rng_range(&g->rng, slot_lo, slot_lo + (slot_hi - slot_lo) / 3);
        }
        if (tref_rng_chance(&g->rng, 6)) {
            e = s; /* zero-length state: a point */
        } else if (!tref_rng_chance(&g->rng, 25)) {
            e = tref_rng_range(&g->rng, s, slot_hi);
        }
        slot_lo = e;
        const size_t idx = g->t->nitems;
        tref_item *it = tref_push(g->t);
        if (!it) {
            g->failed = 1;
            return children;
        }
        g->budget--;
        it->kind = SLOG_KIND_STATE;
        it->timeline = tl;
        it->category = (uint32_t)tref_rng_below(&g->rng, g->p->state_categories);
        it->start = s;
        it->end = e;
        it->depth = depth;
        tref_gen_args(&g->rng, g->p->args_percent, it);
        g->t->dfs_begin[idx] = g->dfs[tl]++;
        uint32_t nchild = 0;
        if (depth + 1 < g->p->max_depth && e > s) {
            nchild = (uint32_t)tref_rng_below(&g->rng, 4);
        }
        const int64_t inner = tref_gen_level(g, tl, s, e, depth + 1, nchild);
        g->t->dfs_end[idx] = g->dfs[tl]++;
        g->t->items[idx].exclusive = (e - s) - inner;
        children += e - s;
    }
    return children;
}

static int64_t tref_point(tref_gen *g)
{
    const tref_params *p = g->p;
    for (;;) {
        const int64_t t = tref_rng_range(&g->rng, p->base, p->base + p->span - 1);
        if (p->gap_hi <= p->gap_lo || t < p->gap_lo || t >= p->gap_hi) {
            return t;
        }
    }
}

static void tref_gen_timelines(tref_trace *t, const tref_params *p, tref_rng *r)
{
    const uint32_t n = p->timelines;
    uint32_t nhost = 0, nproc = 0;
    if (n >= 4) {
        nhost = 1 + n / 64;
        nproc = 1 + n / 8;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (i < nhost) {
            t->parent[i] = SLOG_NO_PARENT;
            t->tkind[i] = SLOG_TIMELINE_HOST;
        } else if (i < nhost + nproc) {
            t->parent[i] = (uint32_t)tref_rng_below(r, nhost);
            t->tkind[i] = SLOG_TIMELINE_PROCESS;
        } else if (nproc > 0) {
            t->parent[i] = nhost + (uint32_t)tref_rng_below(r, nproc);
            t->tkind[i] = SLOG_TIMELINE_THREAD;
        } else {
            t->parent[i] = SLOG_NO_PARENT;
            t->tkind[i] = SLOG_TIMELINE_THREAD;
        }
    }
    if (p->gap_spanning > 0) {
        t->parent[n] = SLOG_NO_PARENT;
        t->tkind[n] = SLOG_TIMELINE_GENERIC;
    }
}

static void tref_gen_states(tref_gen *g)
{
    const tref_params *p = g->p;
    const uint32_t n = p->timelines;
    for (uint32_t tl = 0; tl < n && !g->failed; tl++) {
        g->budget = (int64_t)(p->states / n) + (tl < p->states % n ? 1 : 0);
        if (g->budget == 0) {
            continue;
        }
        /* Each timeline is active in its own random part of the trace. */
        int64_t lo = p->base + tref_rng_range(&g->rng, 0, p->span / 4);
        int64_t hi = p->base + p->span - 1 - tref_rng_range(&g->rng, 0, p->span / 4);
        /* Expected subtree size with 0..3 children per level: sum of 1.5^j. */
        double subtree = 0.0, level = 1.0;
        for (uint32_t d = 0; d < p->max_depth; d++) {
            subtree += level;
            level *= 1.5;
        }
        const uint32_t top = 1 + (uint32_t)((double)g->budget / subtree);
        if (p->gap_hi > p->gap_lo) {
            tref_gen_level(g, tl, lo, p->gap_lo - 1, 0, (top + 1) / 2);
            tref_gen_level(g, tl, p->gap_hi, hi, 0, top);
        } else {
            tref_gen_level(g, tl, lo, hi, 0, top);
        }
    }
    /* Nested states spanning the gap on their own timeline. */
    for (uint32_t i = 0; i < p->gap_spanning && !g->failed; i++) {
        const size_t idx = g->t->nitems;
        tref_item *it = tref_push(g->t);
        if (!it) {
            g->failed = 1;
            return;
        }
        const int64_t pad = (int64_t)(p->gap_spanning - i) * 10;
        it->kind = SLOG_KIND_STATE;
        it->timeline = n;
        it->category = i % p->state_categories;
        it->start = p->gap_lo - pad;
        it->end = p->gap_hi + pad;
        it->depth = i;
        it->exclusive = i + 1 < p->gap_spanning ? 20 : it->end - it->start;
        g->t->dfs_begin[idx] = i;
        g->t->dfs_end[idx] = 2 * (uint64_t)p->gap_spanning - 1 - i;
    }
}

static void tref_gen_others(tref_gen *g, uint32_t cat_event, uint32_t cat_arrow, uint32_t cat_counter)
{
    const tref_params *p = g->p;
    const uint32_t n = p->timelines;
    for (uint32_t i = 0; i < p->events && !g->failed; i++) {
        tref_item *it = tref_push(g->t);
        if (!it) {
            g->failed = 1;
            return;
        }
        it->kind = SLOG_KIND_EVENT;
        it->timeline = (uint32_t)tref_rng_below(&g->rng, n);
        it->category = cat_event + (uint32_t)tref_rng_below(&g->rng, 2);
        it->start = it->end = tref_point(g);
        tref_gen_args(&g->rng, p->args_percent, it);
    }
    for (uint32_t i = 0; i < p->arrows && !g->failed; i++) {
        tref_item *it = tref_push(g->t);
        if (!it) {
            g->failed = 1;
            return;
        }
        it->kind = SLOG_KIND_ARROW;
        it->timeline = (uint32_t)tref_rng_below(&g->rng, n);
        it->to = (uint32_t)tref_rng_below(&g->rng, n);
        it->category = cat_arrow + (uint32_t)tref_rng_below(&g->rng, 2);
        for (;;) {
            it->start = tref_point(g);
            it->end = tref_rng_chance(&g->rng, 5) ? it->start
                                                : it->start + tref_rng_range(&g->rng, 0, p->span / 50);
            if (it->end > p->base + p->span - 1) {
                it->end = p->base + p->span - 1;
            }
            if (p->gap_hi <= p->gap_lo || it->end < p->gap_lo || it->start >= p->gap_hi) {
                break;
            }
        }
        tref_gen_args(&g->rng, p->args_percent, it);
    }
    for (uint32_t i = 0; i < p->counters && !g->failed; i++) {
        tref_item *it = tref_push(g->t);
        if (!it) {
            g->failed = 1;
            return;
        }
        it->kind = SLOG_KIND_COUNTER;
        it->timeline = (uint32_t)tref_rng_below(&g->rng, n);
        it->category = cat_counter + (uint32_t)tref_rng_below(&g->rng, 2);
        it->start = it->end = tref_point(g);
        it->value = tref_rng_chance(&g->rng, 50)
                        ? (double)tref_rng_range(&g->rng, -1000, 100000)
                        : ((double)(tref_rng_next(&g->rng) >> 11) / 9007199254740992.0 - 0.25) * 1e4;
    }
}

int tref_generate(tref_trace *t, const tref_params *p)
{
    memset(t, 0, sizeof *t);
    const uint32_t ntl = p->timelines + (p->gap_spanning > 0 ? 1 : 0);
    t->ntimelines = ntl;
    t->parent = calloc(ntl, sizeof *t->parent);
    t->tkind = calloc(ntl, sizeof *t->tkind);
    t->ncategories = p->state_categories + 6;
    t->ckind = calloc(t->ncategories, sizeof *t->ckind);
    tref_gen g = {.t = t, .p = p};
    g.dfs = calloc(ntl, sizeof *g.dfs);
    if (!t->parent || !t->tkind || !t->ckind || !g.dfs) {
        free(g.dfs);
        tref_free(t);
        return -1;
    }
    tref_rng_seed(&g.rng, p->seed);
    for (uint32_t c = 0; c < t->ncategories; c++) {
        t->ckind[c] = c < p->state_categories           ? SLOG_KIND_STATE
                      : c < p->state_categories + 2 ? SLOG_KIND_EVENT
                      : c < p->state_categories + 4 ? SLOG_KIND_ARROW
                                                    : SLOG_KIND_COUNTER;
    }
    tref_gen_timelines(t, p, &g.rng);
    tref_gen_states(&g);
    tref_gen_others(&g, p->state_categories, p->state_categories + 2, p->state_categories + 4);
    free(g.dfs);
    if (g.failed) {
        tref_free(t);
        return -1;
    }
    t->start = INT64_MAX;
    t->end = INT64_MIN;
    for (size_t i = 0; i < t->nitems; i++) {
        tref_item *it = &t->items[i];
        it->key = tref_key(it->kind, it->timeline, it->to, it->category, it->start, it->end,
                         it->depth, it->value, it->nargs, it->args);
        t->count[it->kind]++;
        t->start = it->start < t->start ? it->start : t->start;
        t->end = it->end > t->end ? it->end : t->end;
    }
    return 0;
}

void tref_free(tref_trace *t)
{
    if (t->items) {
        for (size_t i = 0; i < t->nitems; i++) {
            free(t->items[i].key);
        }
    }
    free(t->items);
    free(t->dfs_begin);
    free(t->dfs_end);
    free(t->parent);
    free(t->tkind);
    free(t->ckind);
    memset(t, 0, sizeof *t);
}

/* ---- writing ------------------------------------------------------------------ */

typedef struct tref_op {
    int64_t time;
    uint32_t tl;    /* UINT32_MAX: not a begin/end op */
    uint32_t what;  /* 0 begin, 1 end, 2 append */
    uint64_t seq;
    size_t item;
} tref_op;

static const tref_trace *tref_sort_trace;

static int tref_cmp_end(const void *a, const void *b)
{
    const tref_item *x = &tref_sort_trace->items[*(const size_t *)a];
    const tref_item *y = &tref_sort_trace->items[*(const size_t *)b];
    if (x->end != y->end) {
        return x->end < y->end ? -1 : 1;
    }
    if (x->depth != y->depth) { /* children first */
        return x->depth > y->depth ? -1 : 1;
    }
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int tref_cmp_op(const void *a, const void *b)
{
    const tref_op *x = a, *y = b;
    if (x->time != y->time) {
        return x->time < y->time ? -1 : 1;
    }
    if (x->tl != y->tl) {
        return x->tl < y->tl ? -1 : 1;
    }
    if (x->seq != y->seq) {
        return x->seq < y->seq ? -1 : 1;
    }
    return 0;
}

static int tref_append(slog_writer *w, const tref_item *it, slog_error *err)
{
    switch (it->kind) {
    case SLOG_KIND_STATE: {
        const slog_state s = {it->timeline, it->category, it->start, it->end,
                              it->depth,    it->nargs,    it->args};
        return slog_writer_append_state(w, &s, err);
    }
    case SLOG_KIND_EVENT: {
        const slog_event e = {it->timeline, it->category, it->start, it->nargs, it->args};
        return slog_writer_append_event(w, &e, err);
    }
    case SLOG_KIND_ARROW: {
        const slog_arrow a = {it->category, it->timeline, it->to, it->start,
                              it->end,      it->nargs,    it->args};
        return slog_writer_append_arrow(w, &a, err);
    }
    case SLOG_KIND_COUNTER: {
        const slog_counter c = {it->timeline, it->category, it->start, it->value};
        return slog_writer_append_counter(w, &c, err);
    }
    case SLOG_KIND_PREVIEW:
    default:
        return SLOG_EINVAL;
    }
}

static int tref_write_begin_end(const tref_trace *t, slog_writer *w, slog_error *err)
{
    size_t nops = 0;
    tref_op *ops = malloc((2 * t->nitems + 1) * sizeof *ops);
    if (!ops) {
        return SLOG_ENOMEM;
    }
    for (size_t i = 0; i < t->nitems; i++) {
        const tref_item *it = &t->items[i];
        if (it->kind == SLOG_KIND_STATE) {
            ops[nops++] = (tref_op){it->start, it->timeline, 0, t->dfs_begin[i], i};
            ops[nops++] = (tref_op){it->end, it->timeline, 1, t->dfs_end[i], i};
        } else {
            ops[nops++] = (tref_op){it->end, UINT32_MAX, 2, i, i};
        }
    }
    qsort(ops, nops, sizeof *ops, tref_cmp_op);
    int rc = SLOG_OK;
    for (size_t i = 0; i < nops && rc == SLOG_OK; i++) {
        const tref_item *it = &t->items[ops[i].item];
        if (ops[i].what == 0) {
            rc = slog_writer_begin(w, it->timeline, it->category, it->start, it->args, it->nargs,
                                   err);
        } else if (ops[i].what == 1) {
            rc = slog_writer_end(w, it->timeline, it->end, err);
        } else {
            rc = tref_append(w, it, err);
        }
    }
    free(ops);
    return rc;
}

static int tref_write_items(const tref_trace *t, slog_writer *w, tref_order order, uint64_t seed,
                          slog_error *err)
{
    size_t *idx = malloc((t->nitems + 1) * sizeof *idx);
    if (!idx) {
        return SLOG_ENOMEM;
    }
    for (size_t i = 0; i < t->nitems; i++) {
        idx[i] = i;
    }
    if (order == TR_ORDER_SHUFFLED) {
        tref_rng r;
        tref_rng_seed(&r, seed);
        for (size_t i = t->nitems; i > 1; i--) {
            const size_t j = (size_t)tref_rng_below(&r, i);
            const size_t tmp = idx[i - 1];
            idx[i - 1] = idx[j];
            idx[j] = tmp;
        }
    } else if (t->nitems > 1) {
        tref_sort_trace = t;
        qsort(idx, t->nitems, sizeof *idx, tref_cmp_end);
        if (order == TR_ORDER_REVERSED) {
            for (size_t i = 0, j = t->nitems - 1; i < j; i++, j--) {
                const size_t tmp = idx[i];
                idx[i] = idx[j];
                idx[j] = tmp;
            }
        }
    }
    int rc = SLOG_OK;
    for (size_t i = 0; i < t->nitems && rc == SLOG_OK; i++) {
        rc = tref_append(w, &t->items[idx[i]], err);
    }
    free(idx);
    return rc;
}

static const char *const tref_tl_prefix[] = {"gen", "host", "proc", "thread",
                                           "async", "counter", "gpu", "rank"};

static int tref_define(const tref_trace *t, slog_writer *w, slog_error *err)
{
    for (uint32_t i = 0; i < t->ntimelines; i++) {
        char name[64];
        uint32_t id = UINT32_MAX;
        snprintf(name, sizeof name, "%s %u", tref_tl_prefix[t->tkind[i]], i);
        const int rc = slog_writer_add_timeline(w, t->parent[i], t->tkind[i], name, (int64_t)i,
                                                &id, err);
        if (rc != SLOG_OK) {
            return rc;
        }
        if (id != i) {
            return SLOG_EINVAL;
        }
    }
    for (uint32_t c = 0; c < t->ncategories; c++) {
        char name[64];
        uint32_t id = UINT32_MAX;
        snprintf(name, sizeof name, "cat %u", c);
        const int rc = slog_writer_add_category(w, t->ckind[c], name, 0x10203000u + c,
                                                c % 3 == 0 ? "grp" : NULL, &id, err);
        if (rc != SLOG_OK) {
            return rc;
        }
        if (id != c) {
            return SLOG_EINVAL;
        }
    }
    return SLOG_OK;
}

int tref_write(const tref_trace *t, const char *path, const slog_writer_options *o, tref_order order,
             uint64_t seed, bool finish, slog_error *err)
{
    slog_writer *w = NULL;
    int rc = slog_writer_create(&w, path, o, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    rc = tref_define(t, w, err);
    if (rc == SLOG_OK) {
        rc = order == TR_ORDER_BEGIN_END ? tref_write_begin_end(t, w, err)
                                         : tref_write_items(t, w, order, seed, err);
    }
    if (rc == SLOG_OK) {
        rc = finish ? slog_writer_finish(w, err) : slog_writer_flush(w, err);
    }
    slog_writer_destroy(w);
    return rc;
}

/* ---- reference side ------------------------------------------------------------- */

bool tref_overlaps(int64_t start, int64_t end, int64_t t0, int64_t t1)
{
    if (start == end) {
        return t0 <= start && start < t1;
    }
    return start < t1 && end > t0;
}

uint32_t tref_fold_row(const tref_trace *t, uint32_t tl, uint32_t fold)
{
    if (fold == 0) {
        return tl;
    }
    if (fold == 1) {
        return t->parent[tl] == SLOG_NO_PARENT ? tl : t->parent[tl];
    }
    uint32_t top = tl;
    while (t->parent[top] != SLOG_NO_PARENT) {
        top = t->parent[top];
    }
    const uint32_t s = fold - 2;
    return s >= 32 ? 0 : top >> s;
}

static bool tref_in(const uint32_t *set, uint32_t n, uint32_t v)
{
    for (uint32_t i = 0; i < n; i++) {
        if (set[i] == v) {
            return true;
        }
    }
    return false;
}

bool tref_item_matches(const tref_item *it, const slog_query_options *q)
{
    if (q->kinds != 0 && !(q->kinds & (1u << it->kind))) {
        return false;
    }
    if (q->categories && !tref_in(q->categories, q->ncategories, it->category)) {
        return false;
    }
    if (q->timelines) {
        const bool tl = tref_in(q->timelines, q->ntimelines, it->timeline);
        const bool to = it->kind == SLOG_KIND_ARROW && tref_in(q->timelines, q->ntimelines, it->to);
        if (!tl && !to) {
            return false;
        }
    }
    return true;
}

static void tref_keep_run(tref_result *res, size_t *cap, const slog_run *run)
{
    if (res->nruns == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        slog_run *v = realloc(res->runs, *cap * sizeof *v);
        if (!v) {
            abort();
        }
        res->runs = v;
    }
    slog_run_share *sh = malloc((run->ncategories + 1) * sizeof *sh);
    if (!sh) {
        abort();
    }
    memcpy(sh, run->categories, run->ncategories * sizeof *sh);
    res->runs[res->nruns] = *run;
    res->runs[res->nruns].categories = sh;
    res->nruns++;
}

int tref_run_query(slog_reader *r, const slog_query_options *q, tref_result *res)
{
    memset(res, 0, sizeof *res);
    memset(&res->err, 0xff, sizeof res->err);
    slog_query *qq = NULL;
    int rc = slog_query_create(&qq, r, q, &res->err);
    if (rc != SLOG_OK) {
        res->status = rc;
        return rc;
    }
    size_t kcap = 0, pcap = 0, rcap = 0;
    const slog_item *it = NULL;
    while ((rc = slog_query_next(qq, &it, &res->err)) == SLOG_OK) {
        if (it->kind == SLOG_KIND_RUN) {
            tref_keep_run(res, &rcap, &it->u.run);
        } else if (it->kind == SLOG_KIND_PREVIEW) {
            if (res->npreviews == pcap) {
                pcap = pcap ? 2 * pcap : 256;
                slog_preview *pv = realloc(res->previews, pcap * sizeof *pv);
                if (!pv) {
                    abort();
                }
                res->previews = pv;
            }
            res->previews[res->npreviews++] = it->u.preview;
        } else {
            if (res->nkeys == kcap) {
                kcap = kcap ? 2 * kcap : 256;
                char **keys = realloc(res->keys, kcap * sizeof *keys);
                if (keys) {
                    res->keys = keys;
                }
                slog_item *items = realloc(res->items, kcap * sizeof *items);
                if (items) {
                    res->items = items;
                }
                if (!keys || !items) {
                    abort();
                }
            }
            res->keys[res->nkeys] = tref_key_item(it);
            slog_item copy = *it;
            switch (copy.kind) {
            case SLOG_KIND_STATE:
                copy.u.state.args = NULL;
                break;
            case SLOG_KIND_EVENT:
                copy.u.event.args = NULL;
                break;
            case SLOG_KIND_ARROW:
                copy.u.arrow.args = NULL;
                break;
            default:
                break;
            }
            res->items[res->nkeys] = copy;
            res->nkeys++;
        }
    }
    res->status = rc;
    slog_query_stats_get(qq, &res->stats);
    size_t n = 0;
    const uint64_t *nodes = slog_query_read_nodes(qq, &n);
    if (n > 0 && nodes) {
        res->read_nodes = malloc(n * sizeof *nodes);
        if (!res->read_nodes) {
            abort();
        }
        memcpy(res->read_nodes, nodes, n * sizeof *nodes);
        res->nread = n;
    }
    slog_query_destroy(qq);
    return rc;
}

void tref_result_free(tref_result *res)
{
    for (size_t i = 0; i < res->nkeys; i++) {
        free(res->keys[i]);
    }
    free(res->keys);
    free(res->items);
    free(res->previews);
    for (size_t i = 0; i < res->nruns; i++) {
        free((void *)(uintptr_t)res->runs[i].categories);
    }
    free(res->runs);
    free(res->read_nodes);
    memset(res, 0, sizeof *res);
}
