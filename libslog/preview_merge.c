/* SPDX-License-Identifier: MIT
 *
 * preview_merge.c - moving entries to coarser keys: re-keying a summary
 * (rows to a higher fold level, bins wider, categories into "other" once
 * the dropped map grew) and merging one summary into another (pv_merge,
 * at the coarser of the two levels, the wider of the two bins, the union
 * of the dropped maps).  Both add each entry's totals under its new key,
 * so the totals a summary holds never change.
 * Layer 3: may use codec and util.
 */
#include "preview_int.h"

#include "util_alloc.h"

/* Merge entry src (rows at level `from`, bins 2^from_k wide) into s. */
static int merge_entry(pv_summary *s, const pv_fold_ctx *ctx, const pv_entry *src, uint32_t from,
                       uint32_t from_k)
{
    const uint32_t row = pv_fold_row(ctx, src->row, from, s->fold);
    const uint32_t row_to = pv_fold_row(ctx, src->row_to, from, s->fold);
    const int64_t bin = s->binned ? pv_bin_of(src->bin, s->k - from_k) : 0;
    pv_entry *const e =
        pv_table_lookup(s, src->kind, row, row_to, pv_map_category(s, src->cat), bin);
    if (e == NULL) {
        return -1;
    }
    pv_entry_add(e, src);
    return 0;
}

/* Re-key every entry to fold level `to`, bins 2^k wide (k >= s->k) and
 * the current dropped map. */
int pv_rekey(pv_summary *s, const pv_fold_ctx *ctx, uint32_t to, uint32_t k)
{
    pv_summary old = *s;
    pv_init(s);
    s->fold = to;
    s->binned = old.binned;
    s->k = k;
    s->lo = old.lo;
    s->hi = old.hi;
    s->dropped = old.dropped;
    s->ndropped = old.ndropped;
    /* re-keying only merges entries: size the table once for what it held
     * instead of doubling from 64 slots, each step a new table to zero
     * (5 steps for every leaf of bench_write, 7 % of its time) */
    int rc = old.used > 0 ? pv_table_rehash(s, pv_table_cap_for(old.used)) : 0;
    for (size_t i = 0; i < old.cap && rc == 0; i++) {
        const pv_entry *const e = pv_slot_entry(&old, i);
        if (e != NULL) {
            rc = merge_entry(s, ctx, e, old.fold, old.k);
        }
    }
    if (rc != 0) {
        util_free(s->index);
        util_free(s->entries);
        *s = old;
        return -1;
    }
    util_free(old.index);
    util_free(old.entries);
    return 0;
}

/* Re-key every entry to fold level `to` and to the current dropped map. */
int pv_refold(pv_summary *s, const pv_fold_ctx *ctx, uint32_t to)
{
    return pv_rekey(s, ctx, to, s->k);
}

/* dst's dropped map |= src's; refold dst if that dropped anything new. */
static int merge_dropped(pv_summary *dst, const pv_summary *src, const pv_fold_ctx *ctx)
{
    int changed = 0;
    for (size_t c = 0; c < src->ndropped; c++) {
        if (src->dropped[c] && !(c < dst->ndropped && dst->dropped[c])) {
            if (pv_drop_category(dst, (uint32_t)c) != 0) {
                return -1;
            }
            changed = 1;
        }
    }
    return changed ? pv_refold(dst, ctx, dst->fold) : 0;
}

int pv_merge(pv_summary *dst, const pv_summary *src, const pv_fold_ctx *ctx)
{
    if (merge_dropped(dst, src, ctx) != 0) {
        return -1;
    }
    uint32_t k = dst->k;
    if (dst->binned) {
        dst->lo = src->lo < dst->lo ? src->lo : dst->lo;
        dst->hi = src->hi > dst->hi ? src->hi : dst->hi;
        const uint32_t kmin = dst->lo <= dst->hi ? pv_bins_kmin(dst->lo, dst->hi) : 0;
        k = kmin > k ? kmin : k;
        k = src->k > k ? src->k : k;
    }
    const uint32_t fold = src->fold > dst->fold ? src->fold : dst->fold;
    if ((fold != dst->fold || k != dst->k) && pv_rekey(dst, ctx, fold, k) != 0) {
        return -1;
    }
    for (size_t i = 0; i < src->cap; i++) {
        const pv_entry *const e = pv_slot_entry(src, i);
        if (e != NULL && merge_entry(dst, ctx, e, src->fold, src->k) != 0) {
            return -1;
        }
    }
    return 0;
}
