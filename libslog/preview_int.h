/* SPDX-License-Identifier: MIT
 *
 * preview_int.h - what the preview files share among themselves: the
 * entry table and the dropped-category map (preview_table.c), re-keying
 * (preview_merge.c), category folding (preview_fit.c), and the blob's
 * entry sizes, key order and bin header check (preview_encode.c), which
 * the fits and the decoder use too.  Not installed.
 * Layer 3: may use codec and util.
 */
#ifndef PREVIEW_INT_H
#define PREVIEW_INT_H

#include "preview.h"

/* preview_table.c */

/* The two one-line accessors are inline: every add and every scan of the
 * slots calls them, and a build without LTO cannot inline across files. */

/* cat, or PV_CATEGORY_OTHER once it was folded into "other". */
static inline uint32_t pv_map_category(const pv_summary *s, uint32_t cat)
{
    return cat < s->ndropped && s->dropped[cat] ? PV_CATEGORY_OTHER : cat;
}

/* The entry in slot @p i, or NULL: for scans whose order is the table's
 * layout (what is encoded or re-inserted elsewhere). */
static inline const pv_entry *pv_slot_entry(const pv_summary *s, size_t i)
{
    return s->index[i] != 0 ? &s->entries[s->index[i] - 1] : NULL;
}

/* Mark cat as folded into "other" (grows the map): 0 or -1. */
int pv_drop_category(pv_summary *s, uint32_t cat);
/* Re-lay the slots over ncap (a power of two): 0 or -1. */
int pv_table_rehash(pv_summary *s, size_t ncap);
/* The smallest capacity that holds n entries without growing. */
size_t pv_table_cap_for(size_t n);
/* Find or insert the entry of a key (row already folded); NULL when out
 * of memory. */
pv_entry *pv_table_lookup(pv_summary *s, uint8_t kind, uint32_t row, uint32_t row_to,
                          uint32_t cat, int64_t bin);

/* preview_merge.c */

/* Re-key every entry to fold level to, bins 2^k wide (k >= s->k) and the
 * current dropped map: 0, or -1 with s unchanged. */
int pv_rekey(pv_summary *s, const pv_fold_ctx *ctx, uint32_t to, uint32_t k);
/* pv_rekey keeping the bin width. */
int pv_refold(pv_summary *s, const pv_fold_ctx *ctx, uint32_t to);

/* preview_fit.c */

/* Slots of a table keyed by category for the distinct categories of n
 * entries: a power of two, at most half full. */
size_t pv_probe_cap(size_t n);
/* Fold every category into "other": 0 or -1. */
int pv_fold_all_categories(pv_summary *s, const pv_fold_ctx *ctx);
/* Distinct categories other than "other", counted up to 64. */
size_t pv_distinct_categories(const pv_summary *s);

/* preview_encode.c */

/* Encoded size of a node-level entry. */
size_t pv_entry_size(const pv_entry *e);
/* Key order (kind, row, row_to, category): the bin section's group order. */
int pv_cmp_key(const pv_entry *x, const pv_entry *y);
/* Same (kind, row, row_to, category)? */
int pv_same_key(const pv_entry *a, const pv_entry *b);
/* The used entries of s in cell order (key, then bin; util_malloc'ed),
 * NULL when out of memory. */
const pv_entry **pv_sorted_cells(const pv_summary *s);
/* Can a bin section have this header (bins within int64 ticks)? */
int pv_bins_header_ok(uint32_t fold, uint64_t k, int64_t first, uint64_t span);

#endif /* PREVIEW_INT_H */
