/* SPDX-License-Identifier: MIT
 *
 * chrome_pool.c - the record pool of the Chrome importer: records come from
 * size classes of blocks cut from big slabs and recycled, instead of one
 * malloc/free each (with the reader thread, every free was a cross-thread
 * free into the feeder's malloc arena).  One thread allocates (the feeder),
 * one frees (the consumer); freed blocks go to a consumer-side list handed
 * over in bulk under a mutex.  Slabs are released by chrome_pool_destroy
 * only, so a block the feeder drops on a failure path is not a leak.
 * Import library, chrome: libc, pthreads.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "chrome_pool.h"

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

/* The feeder's and the consumer's fields start on cache lines of their own
 * (no false sharing between the two threads): the padding is deliberate. */
struct chrome_pool { // NOLINT(clang-analyzer-optin.performance.Padding)
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
