/* SPDX-License-Identifier: MIT
 *
 * chrome_window.h - the bounded reorder window of the Chrome importer
 * (chrome_window.c), used twice: records by ts before the mapper, drawables
 * by end time after it.
 * Import library, chrome: libc.
 */
#ifndef SLOG_IMPORT_CHROME_WINDOW_H
#define SLOG_IMPORT_CHROME_WINDOW_H

#include <stddef.h>
#include <stdint.h>

/*
 * A reorder window: items with a key (k1, k2, k3), compared in that order,
 * kept inline so comparisons do not touch the items.  An arriving item is
 * appended to a sorted run (a FIFO) whose last key is not larger - the
 * fullest-fitting one, as in patience sorting - so inputs made of a few
 * interleaved sorted streams (one per thread, typically) cost O(runs) per
 * item; only when CHROME_WINDOW_RUNS runs are taken does an item enter the
 * heap.  The non-empty runs are kept in a small min-heap by head key, so
 * pop is O(log runs) for a run item and O(log n) for a heap item; and in an
 * array sorted by last key, which a best-fit append leaves sorted (no run's
 * last lies between the old last and the new one), so push is a binary
 * search.
 */
#define CHROME_WINDOW_RUNS 32

typedef struct chrome_wentry {
    int64_t k1, k2;
    uint64_t k3;
    void *item;
} chrome_wentry;

typedef struct chrome_run_q {
    chrome_wentry first;       /* copy of the head: comparisons stay in the window */
    chrome_wentry *v;          /* ring buffer, capacity a power of two */
    size_t head, len, cap;
} chrome_run_q;

typedef struct chrome_window {
    chrome_run_q runs[CHROME_WINDOW_RUNS];
    chrome_wentry last[CHROME_WINDOW_RUNS]; /* each run's last key, dense for the push scan */
    unsigned char rh[CHROME_WINDOW_RUNS];   /* min-heap of the non-empty runs by head key */
    unsigned char ord[CHROME_WINDOW_RUNS];  /* the non-empty runs by last key, ascending */
    unsigned nruns, nrh, nord;
    unsigned hint;             /* where in ord the last push's search ended */
    chrome_wentry *heap;
    size_t n, hcap;
    size_t total;
    size_t prefetch;           /* bytes of items to prefetch ahead of a pop, 0 = none */
} chrome_window;

void chrome_window_init(chrome_window *w);
/* Items are cold (records from far back): fetch the first @p bytes of
 * those about to leave, a few pops ahead. */
void chrome_window_set_prefetch(chrome_window *w, size_t bytes);
int chrome_window_push(chrome_window *w, int64_t k1, int64_t k2, uint64_t k3, void *item);
/* Smallest entry, or NULL when empty (borrowed until the next push/pop). */
const chrome_wentry *chrome_window_top(const chrome_window *w);
void *chrome_window_pop(chrome_window *w);
static inline size_t chrome_window_size(const chrome_window *w)
{
    return w->total; /* inline: checked after every record, twice */
}
void chrome_window_free(chrome_window *w); /* frees the arrays, not the items */

#endif /* SLOG_IMPORT_CHROME_WINDOW_H */
