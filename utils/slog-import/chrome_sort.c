/* SPDX-License-Identifier: MIT
 *
 * chrome_sort.c - the bounded reorder windows of the Chrome importer: a
 * binary min-heap of pointers.  Nearly every real trace is out of order
 * (Kineto writes CPU ops, then GPU kernels; complete events are written when
 * they end), so events are held in a window of --sort-window records and
 * released smallest first once it is full: the output is sorted whenever
 * the disorder fits in the window, and memory stays bounded when it does
 * not (late records are still correct; the writer places them).
 * Tools layer: libc only.
 */
#include <stdlib.h>
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
    if (q->len == 0) {
        q->first = *e;
    }
    q->last = *e;
    q->len++;
    return 0;
}

static const chrome_wentry *run_last(const chrome_run_q *q)
{
    return &q->last;
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

int chrome_window_push(chrome_window *w, int64_t k1, int64_t k2, uint64_t k3, void *item)
{
    const chrome_wentry e = {k1, k2, k3, item};
    /* the run whose last key is the largest one <= e (an empty run fits all) */
    int best = -1, empty = -1;
    for (unsigned i = 0; i < w->nruns; i++) {
        const chrome_run_q *q = &w->runs[i];
        if (q->len == 0) {
            empty = empty < 0 ? (int)i : empty;
            continue;
        }
        const chrome_wentry *last = run_last(q);
        if (!went_less(&e, last) && (best < 0 || went_less(run_last(&w->runs[best]), last))) {
            best = (int)i;
        }
    }
    if (best < 0 && empty >= 0) {
        best = empty;
    }
    if (best < 0 && w->nruns < CHROME_WINDOW_RUNS) {
        best = (int)w->nruns++;
    }
    const int rc = best >= 0 ? run_append(&w->runs[best], &e) : heap_push_entry(w, &e);
    if (rc == 0) {
        w->total++;
    }
    return rc;
}

/* Index of the run with the smallest head, or -1 (heap: -2 when smaller). */
static int window_min(const chrome_window *w)
{
    int best = -1;
    const chrome_wentry *bk = NULL;
    for (unsigned i = 0; i < w->nruns; i++) {
        const chrome_run_q *q = &w->runs[i];
        if (q->len > 0 && (bk == NULL || went_less(&q->first, bk))) {
            bk = &q->first;
            best = (int)i;
        }
    }
    if (w->n > 0 && (bk == NULL || went_less(&w->heap[0], bk))) {
        return -2;
    }
    return best;
}

const chrome_wentry *chrome_window_top(const chrome_window *w)
{
    const int i = window_min(w);
    if (i == -2) {
        return &w->heap[0];
    }
    return i >= 0 ? &w->runs[i].first : NULL;
}

void *chrome_window_pop(chrome_window *w)
{
    const int i = window_min(w);
    void *item;
    if (i == -2) {
        item = w->heap[0].item;
        heap_pop_entry(w);
    } else if (i >= 0) {
        chrome_run_q *q = &w->runs[i];
        item = q->first.item;
        q->head = (q->head + 1) & (q->cap - 1);
        q->len--;
        if (q->len > 0) {
            q->first = q->v[q->head];
        } else if (q->cap > 4096) {
            free(q->v); /* a drained big run gives its memory back */
            q->v = NULL;
            q->cap = 0;
            q->head = 0;
        }
    } else {
        return NULL;
    }
    w->total--;
    return item;
}

size_t chrome_window_size(const chrome_window *w)
{
    return w->total;
}

void chrome_window_free(chrome_window *w)
{
    for (unsigned i = 0; i < CHROME_WINDOW_RUNS; i++) {
        free(w->runs[i].v);
    }
    free(w->heap);
    memset(w, 0, sizeof *w);
}
