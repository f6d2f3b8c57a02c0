/* SPDX-License-Identifier: MIT
 *
 * preview.h - renormalized summaries of a subtree (SLOG-2's "preview
 * drawables", with exact integer sums).  A summary maps (kind, row,
 * row_to, category) to totals; rows are timelines folded to the summary's
 * fold level (0 timeline, 1 parent, 2 top-level ancestor, 2+s block of
 * 2^s top-level ancestors) so that a preview never exceeds its size budget.
 * Rare categories fold into PV_CATEGORY_OTHER after timelines reach
 * their top-level ancestors.  Encoded preview blob (doc/FORMAT.md):
 *
 *   OFFSET  SIZE  MEANING
 *   0       1     'P' (0x50)
 *   1       1     blob version (1)
 *   2       var   fold level, entry count (varints)
 *   .       var   entries: u8 kind, varint row, [varint row_to: arrows],
 *                 varint category + 1 (0 = other), varint count, then
 *                 states: zig-zag inclusive, exclusive, min, max;
 *                 arrows: zig-zag inclusive, min, max;
 *                 counters: f64 LE min, max, sum, last, zig-zag last time
 *
 * No I/O.  Layer 3: may use codec and util.
 */
#ifndef PREVIEW_H
#define PREVIEW_H

#include "util_buf.h"

#include <slog/slog_common.h>

#define PV_BLOB_PREVIEW 0x50
#define PV_BLOB_VERSION 1
#define PV_FOLD_MAX     34
#define PV_CATEGORY_OTHER UINT32_MAX /* == SLOG_CATEGORY_OTHER */

/* Timeline hierarchy needed to fold rows. */
typedef struct pv_fold_ctx {
    const uint32_t *parent; /* SLOG_NO_PARENT for top-level */
    const uint32_t *root;   /* top-level ancestor (itself when top-level) */
    uint32_t ntimelines;
} pv_fold_ctx;

typedef struct pv_entry {
    uint32_t row, row_to, cat;
    uint8_t kind;
    uint8_t used;
    uint64_t count;
    int64_t incl, excl, min, max;
    int64_t last_time;
    double vmin, vmax, vsum, vlast;
} pv_entry;

typedef struct pv_summary {
    pv_entry *slots;
    size_t cap;   /* power of two, or 0 */
    size_t used;
    uint32_t fold;
    /* Categories folded into "other": sticky, and carried along by merges,
     * so a category is either whole in its own entries or whole in "other". */
    uint8_t *dropped;
    size_t ndropped;  /* length of the dropped map */
} pv_summary;

uint32_t pv_fold_row(const pv_fold_ctx *ctx, uint32_t row, uint32_t from, uint32_t to);

void pv_init(pv_summary *s);
void pv_reset(pv_summary *s);
void pv_free(pv_summary *s);

/* Adds: 0 or -1 (out of memory). */
int pv_add_state(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat, int64_t dur,
                 int64_t excl);
int pv_add_event(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat);
int pv_add_arrow(pv_summary *s, const pv_fold_ctx *ctx, uint32_t from, uint32_t to, uint32_t cat,
                 int64_t dur);
int pv_add_counter(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat,
                   int64_t time, double value);

/* dst += src (rows refolded to the coarser of the two levels). */
int pv_merge(pv_summary *dst, const pv_summary *src, const pv_fold_ctx *ctx);

/* Fold rows, then rare categories, until the encoded size <= budget. */
int pv_fit(pv_summary *s, const pv_fold_ctx *ctx, size_t budget);

size_t pv_encoded_size(const pv_summary *s);
int pv_encode(const pv_summary *s, util_buf *out);

/* Decode a preview blob into *out (util_malloc'ed array of n entries; rows
 * are at *fold).  SLOG_OK, SLOG_ECORRUPT, SLOG_ENOMEM. */
int pv_decode(const uint8_t *p, size_t len, pv_entry **out, uint64_t *n, uint32_t *fold,
              uint64_t *bad_offset);

#endif /* PREVIEW_H */
