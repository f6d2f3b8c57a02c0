/* SPDX-License-Identifier: MIT
 *
 * chrome_sort.c - the bounded reorder windows of the Chrome importer (sorted
 * runs plus a heap, chrome.h), a binary min-heap of pointers, and the record
 * pool.  Nearly every real trace is out of order (Kineto writes CPU ops,
 * then GPU kernels; complete events are written when they end), so events
 * are held in a window of --sort-window records and released smallest first
 * once it is full: the output is sorted whenever the disorder fits in the
 * window, and memory stays bounded when it does not (late records are still
 * correct; the writer places them).  A window holds far more than the
 * caches, so it prefetches the items about to leave (and its ring slots).
 * Import library, chrome: libc, pthreads (the pool's handover).
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#include "chrome.h"

void chrome_heap_init(chrome_heap *h, int (*less)(const void *a, const void *b))
{
    h->v = NULL;
    h->n = 0;
    h->cap = 0;
    h->less = less;
}

int chrome_heap_push(chrome_heap *h, void *item)
{
    if (h->n == h->cap) {
        const size_t cap = h->cap ? h->cap * 2 : 1024;
        void **v = realloc((void *)h->v, cap * sizeof *v);
        if (v == NULL) {
            return -1;
        }
        h->v = v;
        h->cap = cap;
    }
    size_t i = h->n++;
    while (i > 0) {
        const size_t parent = (i - 1) / 2;
        if (!h->less(item, h->v[parent])) {
            break;
        }
        h->v[i] = h->v[parent];
        i = parent;
    }
    h->v[i] = item;
    return 0;
}

void *chrome_heap_top(const chrome_heap *h)
{
    return h->n ? h->v[0] : NULL;
}

void *chrome_heap_pop(chrome_heap *h)
{
    if (h->n == 0) {
        return NULL;
    }
    void *top = h->v[0];
    void *last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n) {
            break;
        }
        if (c + 1 < h->n && h->less(h->v[c + 1], h->v[c])) {
            c++;
        }
        if (!h->less(h->v[c], last)) {
            break;
        }
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n > 0) {
        h->v[i] = last;
    }
    return top;
}

void chrome_heap_free(chrome_heap *h)
{
    free((void *)h->v);
    h->v = NULL;
    h->n = h->cap = 0;
}

int chrome_event_less(const void *a, const void *b)
{
    const chrome_event *x = a;
    const chrome_event *y = b;
    if (x->ts != y->ts) {
        return x->ts < y->ts;
    }
    return x->seq < y->seq;
}

/* ----------------------------------------------------------- window */

/* A run's items are prefetched this many ahead of its head.  With n runs
 * an item leaves some AHEAD x n pops after its prefetch: far enough to hide
 * the memory latency, near enough that its lines are still in L1 (4 was
 * slower than 2 on the 520 MB bench, with 512 bytes a record). */
#define WINDOW_AHEAD 2

static int went_less(const chrome_wentry *a, const chrome_wentry *b)
{
    if (a->k1 != b->k1) {
        return a->k1 < b->k1;
    }
    if (a->k2 != b->k2) {
        return a->k2 < b->k2;
    }
    return a->k3 < b->k3;
}

void chrome_window_init(chrome_window *w)
{
    memset(w, 0, sizeof *w);
}

void chrome_window_set_prefetch(chrome_window *w, size_t bytes)
{
    w->prefetch = bytes;
}

static int run_append(chrome_run_q *q, const chrome_wentry *e)
{
    if (q->len == q->cap) {
        const size_t cap = q->cap ? q->cap * 2 : 256;
        chrome_wentry *v = malloc(cap * sizeof *v);
        if (v == NULL) {
            return -1;
        }
        for (size_t i = 0; i < q->len; i++) {
            v[i] = q->v[(q->head + i) & (q->cap - 1)];
        }
        free(q->v);
        q->v = v;
        q->cap = cap;
        q->head = 0;
    }
    q->v[(q->head + q->len) & (q->cap - 1)] = *e;
    /* the ring's tail is cold (last written a capacity ago): fetch ahead */
    __builtin_prefetch(&q->v[(q->head + q->len + 8) & (q->cap - 1)], 1);
    if (q->len == 0) {
        q->first = *e;
    }
    q->len++;
    return 0;
}

static int heap_push_entry(chrome_window *w, const chrome_wentry *e)
{
    if (w->n == w->hcap) {
        const size_t cap = w->hcap ? w->hcap * 2 : 1024;
        chrome_wentry *v = realloc(w->heap, cap * sizeof *v);
        if (v == NULL) {
            return -1;
        }
        w->heap = v;
        w->hcap = cap;
    }
    size_t i = w->n++;
    while (i > 0) {
        const size_t parent = (i - 1) / 2;
        if (!went_less(e, &w->heap[parent])) {
            break;
        }
        w->heap[i] = w->heap[parent];
        i = parent;
    }
    w->heap[i] = *e;
    return 0;
}

static void heap_pop_entry(chrome_window *w)
{
    const chrome_wentry last = w->heap[--w->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= w->n) {
            break;
        }
        if (c + 1 < w->n && went_less(&w->heap[c + 1], &w->heap[c])) {
            c++;
        }
        if (!went_less(&w->heap[c], &last)) {
            break;
        }
        w->heap[i] = w->heap[c];
        i = c;
    }
    if (w->n > 0) {
        w->heap[i] = last;
    }
}

/* The run heap: indices of the non-empty runs, smallest head first. */
static int rh_less(const chrome_window *w, unsigned a, unsigned b)
{
    return went_less(&w->runs[a].first, &w->runs[b].first);
}

static void rh_up(chrome_window *w, unsigned i)
{
    const unsigned char r = w->rh[i];
    while (i > 0) {
        const unsigned parent = (i - 1) / 2;
        if (!rh_less(w, r, w->rh[parent])) {
            break;
        }
        w->rh[i] = w->rh[parent];
        i = parent;
    }
    w->rh[i] = r;
}

static void rh_down(chrome_window *w, unsigned i)
{
    const unsigned char r = w->rh[i];
    for (;;) {
        unsigned c = 2 * i + 1;
        if (c >= w->nrh) {
            break;
        }
        if (c + 1 < w->nrh && rh_less(w, w->rh[c + 1], w->rh[c])) {
            c++;
        }
        if (!rh_less(w, w->rh[c], r)) {
            break;
        }
        w->rh[i] = w->rh[c];
        i = c;
    }
    w->rh[i] = r;
}

int chrome_window_push(chrome_window *w, int64_t k1, int64_t k2, uint64_t k3, void *item)
{
    const chrome_wentry e = {k1, k2, k3, item};
    /* the run whose last key is the largest one <= e: the one the last
     * push found, when it still is (consecutive items of one input stream
     * go to one run), else a binary search */
    unsigned lo = w->hint, hi = w->nord; /* ord[0..lo) <= e < ord[hi..nord) */
    if (lo > 0 && lo <= hi && !went_less(&e, &w->last[w->ord[lo - 1]]) &&
        (lo == hi || went_less(&e, &w->last[w->ord[lo]]))) {
        hi = lo;
    } else {
        lo = 0;
    }
    while (lo < hi) {
        const unsigned mid = (lo + hi) / 2;
        if (went_less(&e, &w->last[w->ord[mid]])) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    w->hint = lo;
    int best = lo > 0 ? (int)w->ord[lo - 1] : -1;
    bool fresh = false; /* an empty run starts: smallest last of all */
    if (best < 0) {
        for (unsigned i = 0; i < w->nruns && best < 0; i++) {
            best = w->runs[i].len == 0 ? (int)i : -1;
        }
        if (best < 0 && w->nruns < CHROME_WINDOW_RUNS) {
            best = (int)w->nruns++;
        }
        fresh = best >= 0;
    }
    if (best < 0) {
        if (heap_push_entry(w, &e) != 0) {
            return -1;
        }
    } else {
        chrome_run_q *q = &w->runs[best];
        if (run_append(q, &e) != 0) {
            return -1;
        }
        w->last[best] = e;
        if (fresh) {
            memmove(&w->ord[1], &w->ord[0], w->nord);
            w->ord[0] = (unsigned char)best;
            w->nord++;
            w->rh[w->nrh] = (unsigned char)best;
            rh_up(w, w->nrh++);
        }
    }
    w->total++;
    return 0;
}

const chrome_wentry *chrome_window_top(const chrome_window *w)
{
    const chrome_wentry *run = w->nrh > 0 ? &w->runs[w->rh[0]].first : NULL;
    if (w->n > 0 && (run == NULL || went_less(&w->heap[0], run))) {
        return &w->heap[0];
    }
    return run;
}

void *chrome_window_pop(chrome_window *w)
{
    void *item;
    if (w->n > 0 && (w->nrh == 0 || went_less(&w->heap[0], &w->runs[w->rh[0]].first))) {
        item = w->heap[0].item;
        heap_pop_entry(w);
    } else if (w->nrh > 0) {
        chrome_run_q *q = &w->runs[w->rh[0]];
        item = q->first.item;
        q->head = (q->head + 1) & (q->cap - 1);
        q->len--;
        if (q->len > 0) {
            q->first = q->v[q->head];
            __builtin_prefetch(&q->v[(q->head + 8) & (q->cap - 1)]);
            /* Items a few places behind the head (their entries were
             * fetched above, earlier) leave a few pops from now, or later:
             * start fetching them (stage 1: cold records) now.  The head
             * itself was fetched this way, or when it started the run. */
            if (w->prefetch > 0 && q->len > WINDOW_AHEAD) {
                const char *const it = q->v[(q->head + WINDOW_AHEAD) & (q->cap - 1)].item;
                for (size_t off = 0; off < w->prefetch; off += 64) {
                    __builtin_prefetch(it + off);
                }
            }
        } else {
            w->rh[0] = w->rh[--w->nrh];
            const unsigned char gone = (unsigned char)(q - w->runs);
            unsigned at = 0;
            while (w->ord[at] != gone) {
                at++;
            }
            memmove(&w->ord[at], &w->ord[at + 1], --w->nord - at);
            if (q->cap > 4096) {
                free(q->v); /* a drained big run gives its memory back */
                q->v = NULL;
                q->cap = 0;
                q->head = 0;
            }
        }
        if (w->nrh > 0) {
            rh_down(w, 0);
        }
    } else {
        return NULL;
    }
    w->total--;
    return item;
}

void chrome_window_free(chrome_window *w)
{
    for (unsigned i = 0; i < CHROME_WINDOW_RUNS; i++) {
        free(w->runs[i].v);
    }
    free(w->heap);
    memset(w, 0, sizeof *w);
}

/* ------------------------------------------------------------ record pool */

#define POOL_GRAIN 32u                     /* class c holds blocks of c * GRAIN bytes */
#define POOL_CLASSES 65u                   /* 1..64: up to 2 KiB; class 0 = malloc */
/* Bytes cut at a time: one huge page, aligned, so that the 64 MiB of records
 * a full window holds need ~40 TLB entries instead of ~16 000 (records are
 * touched in time order, all over the slabs: measured on the 520 MB bench
 * trace, consumer CPU 2.2 -> 1.9 s). */
#define POOL_SLAB (2u << 20)
#define POOL_HANDOVER 4096u                /* consumer frees handed over at once */
/* Slabs at most: the windows' limits (64 + 16 MiB) and what is in flight fit
 * below it.  Blocks do not move between classes, so a trace whose record
 * sizes drift could strand memory in classes it no longer uses; past the cap
 * records come from malloc, as they did before the pool. */
#define POOL_MAX_SLABS 48u

typedef struct pool_blk {
    struct pool_blk *next;
} pool_blk;

/* The first 64 bytes of a slab. */
typedef struct slab_hdr {
    struct slab_hdr *next;         /* every slab, for destroy */
    struct slab_hdr *next_reserve; /* faulted in, not yet cut */
} slab_hdr;

/* Slabs the consumer faults in ahead (see chrome_pool_reserve). */
#define POOL_RESERVE 2u

struct chrome_pool {
    pthread_mutex_t mu;
    pool_blk *shared[POOL_CLASSES];        /* handed over, under mu */
    slab_hdr *slabs;                       /* every slab, under mu */
    unsigned nslabs;
    slab_hdr *reserve;                     /* faulted in by the consumer, under mu */
    unsigned nreserve;
    /* feeder (allocating) side */
    alignas(64) pool_blk *avail[POOL_CLASSES];
    char *bump;
    size_t bump_left;
    /* consumer (freeing) side */
    alignas(64) pool_blk *freed[POOL_CLASSES];
    pool_blk *freed_tail[POOL_CLASSES];
    size_t nfreed;
};

chrome_pool *chrome_pool_create(void)
{
    chrome_pool *pool = calloc(1, sizeof *pool);
    if (pool != NULL && pthread_mutex_init(&pool->mu, NULL) != 0) {
        free(pool);
        return NULL;
    }
    return pool;
}

/* Consumer side: give the freed lists to the feeder. */
static void pool_handover(chrome_pool *pool)
{
    pthread_mutex_lock(&pool->mu);
    for (unsigned c = 1; c < POOL_CLASSES; c++) {
        if (pool->freed[c] != NULL) {
            pool->freed_tail[c]->next = pool->shared[c];
            pool->shared[c] = pool->freed[c];
            pool->freed[c] = pool->freed_tail[c] = NULL;
        }
    }
    pthread_mutex_unlock(&pool->mu);
    pool->nfreed = 0;
}

static char *slab_alloc(void)
{
    char *slab = aligned_alloc(POOL_SLAB, POOL_SLAB);
#ifdef MADV_HUGEPAGE
    if (slab != NULL) {
        (void)madvise(slab, POOL_SLAB, MADV_HUGEPAGE); /* a hint: failure is harmless */
    }
#endif
    return slab;
}

/* A new slab counted against the cap and linked for destroy, or NULL; with
 * @p touch its pages are faulted in (written once each). */
static char *slab_new(chrome_pool *pool, bool touch)
{
    pthread_mutex_lock(&pool->mu);
    const bool room = pool->nslabs < POOL_MAX_SLABS;
    pool->nslabs += room ? 1u : 0u;
    pthread_mutex_unlock(&pool->mu);
    char *slab = room ? slab_alloc() : NULL;
    for (size_t off = 0; touch && slab != NULL && off < POOL_SLAB; off += 4096) {
        slab[off] = 0;
    }
    pthread_mutex_lock(&pool->mu);
    if (slab != NULL) {
        slab_hdr *h = (slab_hdr *)(void *)slab;
        h->next = pool->slabs;
        h->next_reserve = NULL;
        pool->slabs = h;
    } else if (room) {
        pool->nslabs--;
    }
    pthread_mutex_unlock(&pool->mu);
    return slab;
}

/* Feeder side: the next slab to cut, one the consumer faulted in if any. */
static char *slab_take(chrome_pool *pool)
{
    pthread_mutex_lock(&pool->mu);
    slab_hdr *h = pool->reserve;
    if (h != NULL) {
        pool->reserve = h->next_reserve;
        pool->nreserve--;
    }
    pthread_mutex_unlock(&pool->mu);
    return h != NULL ? (char *)h : slab_new(pool, false);
}

bool chrome_pool_reserve(chrome_pool *pool)
{
    pthread_mutex_lock(&pool->mu);
    const bool want = pool->nreserve < POOL_RESERVE && pool->nslabs < POOL_MAX_SLABS;
    pthread_mutex_unlock(&pool->mu);
    char *slab = want ? slab_new(pool, true) : NULL;
    if (slab == NULL) {
        return false;
    }
    pthread_mutex_lock(&pool->mu);
    slab_hdr *h = (slab_hdr *)(void *)slab;
    h->next_reserve = pool->reserve;
    pool->reserve = h;
    pool->nreserve++;
    pthread_mutex_unlock(&pool->mu);
    return true;
}

chrome_event *chrome_event_alloc(chrome_pool *pool, size_t bytes)
{
    const size_t c = (bytes + POOL_GRAIN - 1) / POOL_GRAIN;
    chrome_event *ev;
    if (pool == NULL || c >= POOL_CLASSES) {
        ev = malloc(bytes);
        if (ev != NULL) {
            ev->pool = NULL;
            ev->pool_class = 0;
        }
        return ev;
    }
    pool_blk *b = pool->avail[c];
    if (b == NULL) {
        pthread_mutex_lock(&pool->mu);
        b = pool->shared[c];
        pool->shared[c] = NULL;
        pthread_mutex_unlock(&pool->mu);
    }
    if (b == NULL) {
        const size_t size = c * POOL_GRAIN;
        if (pool->bump_left < size) {
            char *slab = slab_take(pool);
            if (slab == NULL) {
                /* no memory or at the cap: a plain malloc (NULL if none) */
                return chrome_event_alloc(NULL, bytes);
            }
            pool->bump = slab + 64; /* the header, then blocks cache-line aligned */
            pool->bump_left = POOL_SLAB - 64;
        }
        b = (pool_blk *)(void *)pool->bump;
        b->next = NULL;
        pool->bump += size;
        pool->bump_left -= size;
    }
    pool->avail[c] = b->next;
    if (b->next != NULL) {
        /* recycled blocks are cold: fetch the next one of this class */
        const char *const nb = (const char *)b->next;
        for (size_t off = 0; off < c * POOL_GRAIN; off += 64) {
            __builtin_prefetch(nb + off, 1);
        }
    }
    ev = (chrome_event *)(void *)b;
    ev->pool = pool;
    ev->pool_class = (unsigned char)c;
    return ev;
}

void chrome_event_free(chrome_event *ev)
{
    if (ev == NULL) {
        return;
    }
    chrome_pool *pool = ev->pool;
    if (pool == NULL) {
        free(ev);
        return;
    }
    const uint32_t c = ev->pool_class;
    pool_blk *b = (pool_blk *)(void *)ev;
    b->next = pool->freed[c];
    if (b->next == NULL) {
        pool->freed_tail[c] = b;
    }
    pool->freed[c] = b;
    if (++pool->nfreed == POOL_HANDOVER) {
        pool_handover(pool);
    }
}

void chrome_event_drop(chrome_event *ev)
{
    if (ev != NULL && ev->pool == NULL) {
        free(ev);
    }
}

void chrome_pool_destroy(chrome_pool *pool)
{
    if (pool == NULL) {
        return;
    }
    slab_hdr *s = pool->slabs;
    while (s != NULL) {
        slab_hdr *const next = s->next;
        free(s);
        s = next;
    }
    pthread_mutex_destroy(&pool->mu);
    free(pool);
}
