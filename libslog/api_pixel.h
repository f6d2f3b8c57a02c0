/* SPDX-License-Identifier: MIT
 *
 * api_pixel.h - pixel runs: at resolution > 0 a query hands every real
 * drawable it would emit to a pixel-run accumulator.  A drawable whose
 * window-clipped extent spans two or more pixels is emitted as is; one
 * lying within a single pixel goes into the cell of (kind, row, pixel),
 * row = (timeline, depth) for states, timeline for events, (timeline,
 * category) for counters, (from, to) for arrows.  A cell holding one
 * drawable gives that drawable back, a cell holding more gives a
 * slog_run with exact per-category totals.  Cells whose pixel lies before
 * the walk's low-water mark (no later node can start there) are flushed
 * in (pixel, kind, row) order, popped from a min-heap, their table slots
 * left as tombstones (no later drawable can fall in a flushed pixel); the
 * rest at the end.  Memory: one cell per
 * (row, pixel) at most.  Not installed.
 * Layer 5: api.
 */
#ifndef API_PIXEL_H
#define API_PIXEL_H

#include <slog/slog_reader.h>

typedef struct pix_cell pix_cell;
typedef struct pix_order pix_order;

typedef struct pix_acc {
    int64_t w0, w1, res;
    pix_cell *cells;
    size_t ncells, cap;      /* cells[0..ncells) allocated */
    size_t *free_list;       /* indices of released cells */
    size_t nfree, cap_free;
    size_t *slots;           /* open addressing over live cells; SIZE_MAX = empty,
                                SIZE_MAX - 1 = a flushed cell's tombstone */
    size_t nslots, live, tombs;
    pix_order *heap;         /* live cells, a min-heap by (pixel, kind, row) */
    size_t nheap, cap_heap;
    size_t *ready;           /* cells to emit, in order */
    size_t nready, cap_ready, next_ready;
    size_t held;             /* cell whose item was last emitted, SIZE_MAX = none */
} pix_acc;

void pix_init(pix_acc *a, int64_t w0, int64_t w1, int64_t res);
void pix_free(pix_acc *a);

/* Offer a real drawable (overlapping the window, passing the filters):
 * 1 absorbed into a cell, 0 emit it as is, -1 out of memory. */
int pix_offer(pix_acc *a, const slog_item *it);

/* Queue, in order, the live cells whose pixel ends at or before `low`
 * (INT64_MAX: all).  0 or -1 (out of memory). */
int pix_flush(pix_acc *a, int64_t low);

/* Next queued item into *out (borrowed until the next call): 1, or 0 when
 * none is queued. */
int pix_next(pix_acc *a, slog_item *out);

#endif /* API_PIXEL_H */
