/* SPDX-License-Identifier: MIT
 *
 * chrome_window.c - the bounded reorder windows of the Chrome importer
 * (sorted runs plus a heap, chrome_window.h).  Nearly every real trace is
 * out of order (Kineto writes CPU ops, then GPU kernels; complete events are
 * written when they end), so events are held in a window of --sort-window
 * records and released smallest first once it is full: the output is sorted
 * whenever the disorder fits in the window, and memory stays bounded when it
 * does not (late records are still correct; the writer places them).  A
 * window holds far more than the caches, so it prefetches the items about to
 * leave (and its ring slots).
 * Import library, chrome: libc.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_window.h"

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

/* Where e goes among the runs by last key: ord[0..lo) <= e < ord[lo..nord).
 * The place the last push found is tried first (consecutive items of one
 * input stream go to one run), else a binary search. */
static unsigned run_position(const chrome_window *w, const chrome_wentry *e)
{
    unsigned lo = w->hint, hi = w->nord;
    if (lo > 0 && lo <= hi && !went_less(e, &w->last[w->ord[lo - 1]]) &&
        (lo == hi || went_less(e, &w->last[w->ord[lo]]))) {
        return lo;
    }
    lo = 0;
    while (lo < hi) {
        const unsigned mid = (lo + hi) / 2;
        if (went_less(e, &w->last[w->ord[mid]])) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

/* An empty run, or a new one while there are fewer than the maximum; -1
 * when every run is taken. */
static int free_run(chrome_window *w)
{
    for (unsigned i = 0; i < w->nruns; i++) {
        if (w->runs[i].len == 0) {
            return (int)i;
        }
    }
    return w->nruns < CHROME_WINDOW_RUNS ? (int)w->nruns++ : -1;
}

/* Append e to run r; a run that starts (@p fresh) has the smallest last key
 * of all and enters the run heap. */
static int run_push(chrome_window *w, unsigned r, const chrome_wentry *e, bool fresh)
{
    if (run_append(&w->runs[r], e) != 0) {
        return -1;
    }
    w->last[r] = *e;
    if (fresh) {
        memmove(&w->ord[1], &w->ord[0], w->nord);
        w->ord[0] = (unsigned char)r;
        w->nord++;
        w->rh[w->nrh] = (unsigned char)r;
        rh_up(w, w->nrh++);
    }
    return 0;
}

int chrome_window_push(chrome_window *w, int64_t k1, int64_t k2, uint64_t k3, void *item)
{
    const chrome_wentry e = {k1, k2, k3, item};
    /* the run whose last key is the largest one <= e (best fit) */
    const unsigned lo = run_position(w, &e);
    w->hint = lo;
    int best = lo > 0 ? (int)w->ord[lo - 1] : -1;
    const bool fresh = best < 0;
    if (fresh) {
        best = free_run(w);
    }
    const int rc = best < 0 ? heap_push_entry(w, &e) : run_push(w, (unsigned)best, &e, fresh);
    if (rc != 0) {
        return -1;
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

/* Items a few places behind a run's head (their entries were fetched
 * earlier) leave a few pops from now, or later: start fetching them
 * (stage 1: cold records) now.  The head itself was fetched this way, or
 * when it started the run. */
static void run_prefetch_ahead(const chrome_window *w, const chrome_run_q *q)
{
    if (w->prefetch > 0 && q->len > WINDOW_AHEAD) {
        const char *const it = q->v[(q->head + WINDOW_AHEAD) & (q->cap - 1)].item;
        for (size_t off = 0; off < w->prefetch; off += 64) {
            __builtin_prefetch(it + off);
        }
    }
}

/* Run q (the head of the run heap) is empty: it leaves the heap and the
 * order by last key; a drained big run gives its memory back. */
static void run_retire(chrome_window *w, chrome_run_q *q)
{
    w->rh[0] = w->rh[--w->nrh];
    const unsigned char gone = (unsigned char)(q - w->runs);
    unsigned at = 0;
    while (w->ord[at] != gone) {
        at++;
    }
    memmove(&w->ord[at], &w->ord[at + 1], --w->nord - at);
    if (q->cap > 4096) {
        free(q->v);
        q->v = NULL;
        q->cap = 0;
        q->head = 0;
    }
}

/* The head of the run with the smallest head (w->nrh > 0). */
static void *run_pop(chrome_window *w)
{
    chrome_run_q *q = &w->runs[w->rh[0]];
    void *const item = q->first.item;
    q->head = (q->head + 1) & (q->cap - 1);
    q->len--;
    if (q->len > 0) {
        q->first = q->v[q->head];
        __builtin_prefetch(&q->v[(q->head + 8) & (q->cap - 1)]);
        run_prefetch_ahead(w, q);
    } else {
        run_retire(w, q);
    }
    if (w->nrh > 0) {
        rh_down(w, 0);
    }
    return item;
}

void *chrome_window_pop(chrome_window *w)
{
    void *item;
    if (w->n > 0 && (w->nrh == 0 || went_less(&w->heap[0], &w->runs[w->rh[0]].first))) {
        item = w->heap[0].item;
        heap_pop_entry(w);
    } else if (w->nrh > 0) {
        item = run_pop(w);
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

