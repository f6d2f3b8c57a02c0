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
