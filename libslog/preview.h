/* SPDX-License-Identifier: MIT
 *
 * preview.h - renormalized summaries of a subtree (SLOG-2's "preview
 * drawables", with exact integer sums).  A summary maps (kind, row,
 * row_to, category) to totals; rows are timelines folded to the summary's
 * fold level (0 timeline, 1 parent, 2 top-level ancestor, 2+s block of
 * 2^s top-level ancestors) so that a preview never exceeds its size budget.
 * Rare categories fold into PV_CATEGORY_OTHER after timelines reach
 * their top-level ancestors.  A *binned* summary (pv_init_binned) also
 * keys its entries by a time bin: bins are 2^k ticks wide, aligned to
 * absolute multiples of 2^k (a parent merges its children's bins exactly
 * by shifting), k the smallest giving at most PV_BINS_MAX bins over the
 * summary's box; a drawable counts in the bin of its start (time for
 * events and counters).  Encoded preview blob (doc/FORMAT.md 10.3):
 *
 *   OFFSET  SIZE  MEANING
 *   0       1     'P' (0x50)
 *   1       1     blob version (2; version 1 has no bin section)
 *   2       var   fold level, entry count (varints)
 *   .       var   entries: u8 kind, varint row, [varint row_to: arrows],
 *                 varint category + 1 (0 = other), varint count, then
 *                 states: zig-zag inclusive, exclusive, min, max;
 *                 arrows: zig-zag inclusive, min, max;
 *                 counters: f64 LE min, max, sum, last, zig-zag last time
 *   .       var   bin section: varint group count g; when g > 0: varint
 *                 fold, varint k, zig-zag first bin, varint span (bins),
 *                 then g groups: u8 kind, varint row, [row_to], varint
 *                 category + 1, varint cells m, [states, arrows: zz min,
 *                 varint max - min of the group], then m cells: varint
 *                 bin delta (from the previous cell, the first from the
 *                 first bin), varint count, [states, arrows: zz
 *                 inclusive], [states: zz inclusive - exclusive],
 *                 [counters: the entry's fields]
 *   .       var   timeline section (version 3): varint m, 0 = none; else
 *                 m - 1 entries at fold 0, every category together: u8
 *                 kind, varint timeline (an arrow's source), the entry's
 *                 fields
 *
 * No I/O.  Layer 3: may use codec and util.
 */
#ifndef PREVIEW_H
#define PREVIEW_H

#include "util_buf.h"

#include <slog/slog_common.h>

#define PV_BLOB_PREVIEW 0x50
#define PV_BLOB_VERSION 3   /* written; versions 1 and 2 are still read */
#define PV_BINS_MAX     512 /* bins over a binned summary's box at most */
#define PV_BINS_KMAX    62  /* bins are at most 2^62 ticks wide */
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
    int64_t bin;      /* absolute bin (time >> k) in a binned summary, else 0 */
    uint64_t count;
    int64_t incl, excl, min, max;
    int64_t last_time;
    double vmin, vmax, vsum, vlast;
} pv_entry;

/* An open-addressing table of 4-byte slots over a dense array of its
 * entries: probes, resets and re-hashes touch the slots only, and scans
 * whose order does not matter read the entries in insertion order.  What
 * is encoded goes in slot order (the table's layout), as it always did. */
typedef struct pv_summary {
    uint32_t *index;    /* cap slots: 0 empty, else 1 + the entry's position */
    pv_entry *entries;  /* the used entries, in insertion order */
    size_t cap;   /* slots: a power of two, or 0 */
    size_t used;
    uint32_t fold;
    /* Categories folded into "other": sticky, and carried along by merges,
     * so a category is either whole in its own entries or whole in "other". */
    uint8_t *dropped;
    size_t ndropped;  /* length of the dropped map */
    uint8_t binned;   /* entries keyed by time bin too */
    uint32_t k;       /* binned: bins are 2^k ticks wide */
    int64_t lo, hi;   /* binned: box of what was added (lo > hi when empty) */
} pv_summary;

/* Bins of a decoded preview blob: cells grouped by (kind, row, row_to,
 * category), bins ascending within a group; n == 0 when the blob has none
 * (version 1, or nothing summarised).  A cell's min and max are its
 * group's (the key over the whole node). */
typedef struct pv_bins {
    pv_entry *cells;
    uint64_t n;
    uint32_t fold;    /* row level of the cells */
    uint32_t k;       /* cells are 2^k ticks wide: [bin << k, (bin + 1) << k) */
} pv_bins;

/* Per-timeline totals of a preview blob (version 3): entries at fold 0 with
 * every category together (cat = PV_CATEGORY_OTHER) and arrows keyed by
 * their source timeline (row_to = row); present = 0 when the blob has none
 * (older versions, or the totals did not fit the node's budget). */
typedef struct pv_tls {
    pv_entry *v;
    uint64_t n;
    int present;
} pv_tls;

/* The node-level entries of a decoded preview blob (v util_malloc'ed). */
typedef struct pv_list {
    pv_entry *v;
    uint64_t n;
    uint32_t fold; /* row level of the entries */
} pv_list;

uint32_t pv_fold_row(const pv_fold_ctx *ctx, uint32_t row, uint32_t from, uint32_t to);

void pv_init(pv_summary *s);
/* An empty binned summary (pv_reset keeps it binned). */
void pv_init_binned(pv_summary *s);
/* Smallest k giving at most PV_BINS_MAX bins of 2^k ticks over [t0, t1]. */
uint32_t pv_bins_kmin(int64_t t0, int64_t t1);
/* floor(t / 2^k) for any int64 t and k <= 63. */
int64_t pv_bin_of(int64_t t, uint32_t k);
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

/* For callers that total drawables of one key themselves: pv_entry_start
 * sets up an empty entry of a kind, and pv_add_totals adds e's totals to s
 * under (tl, cat) as if its drawables were added one by one. */
void pv_entry_start(pv_entry *e, uint8_t kind);
int pv_add_totals(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat,
                  const pv_entry *e);
/* The table growth check that every add makes first (a lookup of a key
 * already present may still grow the table): a caller that replaces adds
 * by pv_add_totals makes it where the last replaced add would have. */
int pv_grow_check(pv_summary *s);

/* Set an empty binned summary's box to hold [t0, t1] (and k to match), so
 * adding drawables inside it never re-keys. */
void pv_bins_span(pv_summary *s, int64_t t0, int64_t t1);
/* What a binned state or arrow is summed under: its rows (from == to for a
 * state) and its category. */
typedef struct pv_bin_key {
    uint32_t from, to, cat;
} pv_bin_key;
/* Adds to a binned summary, with the drawable's times. */
int pv_bins_add_state(pv_summary *s, const pv_fold_ctx *ctx, pv_bin_key key, int64_t start,
                      int64_t end, int64_t excl);
int pv_bins_add_event(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat,
                      int64_t time);
int pv_bins_add_arrow(pv_summary *s, const pv_fold_ctx *ctx, pv_bin_key key, int64_t start,
                      int64_t end);
int pv_bins_add_counter(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat,
                        int64_t time, double value);

/* Totals of src added to dst (same kind; keys untouched). */
void pv_entry_add(pv_entry *dst, const pv_entry *src);

/* dst += src (rows refolded to the coarser of the two levels). */
int pv_merge(pv_summary *dst, const pv_summary *src, const pv_fold_ctx *ctx);

/* Fold rows, then rare categories, until the encoded size <= budget. */
int pv_fit(pv_summary *s, const pv_fold_ctx *ctx, size_t budget);
/* Fit a binned summary's bin section to budget: rows fold to top-level
 * ancestors, bins coarsen up to 2^3 times the finest, then the less used
 * half of each kind's categories folds into "other" (states weighed by
 * their time) until each kind keeps its heaviest, which stays if the
 * section is then within 5/4 of budget; otherwise all categories fold,
 * bins coarsen further, then rows fold further.  The steps are sized on
 * sorted cells without re-keying; one re-key applies the choice.
 * 0 or -1 (out of memory). */
int pv_bins_fit(pv_summary *s, const pv_fold_ctx *ctx, size_t budget);

/* Size of the blob pv_encode writes (with an empty bin section and no
 * timeline section). */
size_t pv_encoded_size(const pv_summary *s);
/* Size of the bin section of a binned summary; SIZE_MAX when out of memory. */
size_t pv_bins_encoded_size(const pv_summary *s);
int pv_encode(const pv_summary *s, util_buf *out);
/* The blob of s with the bin section of the binned summary bins (NULL: none). */
int pv_encode_binned(const pv_summary *s, const pv_summary *bins, util_buf *out);
/* Encoded size of a timeline section of the fold-0 summary tls (whose
 * categories and arrow destinations are ignored); NULL: none (1 byte). */
size_t pv_tl_encoded_size(const pv_summary *tls);
/* pv_encode_binned, plus the timeline section of tls (NULL: none). */
int pv_encode_all(const pv_summary *s, const pv_summary *bins, const pv_summary *tls,
                  util_buf *out);

/* Decode a preview blob into *out (util_malloc'ed array of n entries; rows
 * are at *fold): the node-level entries.  SLOG_OK, SLOG_ECORRUPT,
 * SLOG_ENOMEM. */
int pv_decode(const uint8_t *p, size_t len, pv_entry **out, uint64_t *n, uint32_t *fold,
              uint64_t *bad_offset);
/* pv_decode, plus the bin section into *bins (bins->cells util_malloc'ed;
 * bins may be NULL: the section is still validated). */
int pv_decode_binned(const uint8_t *p, size_t len, pv_list *out, pv_bins *bins,
                     uint64_t *bad_offset);
/* pv_decode_binned, plus the timeline section into *tls (tls->v
 * util_malloc'ed; tls may be NULL: the section is still validated). */
int pv_decode_all(const uint8_t *p, size_t len, pv_list *out, pv_bins *bins, pv_tls *tls,
                  uint64_t *bad_offset);

#endif /* PREVIEW_H */
