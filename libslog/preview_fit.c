/* SPDX-License-Identifier: MIT
 *
 * preview_fit.c - fitting a summary's node-level entries to the preview
 * budget (pv_fit): rows fold one level at a time (timeline, parent,
 * top-level ancestor, blocks of those), and from the top-level ancestors
 * on, rare categories fold into "other" once per level, keeping the most
 * used ones whose entries fill 3/4 of the budget.  Also the category
 * helpers the bin fit shares.
 * Layer 3: may use codec and util.
 */
#include "preview_int.h"

#include "util_alloc.h"

#include <stdlib.h>

typedef struct cat_weight {
    uint64_t weight; /* drawables summarised */
    uint64_t bytes;  /* encoded bytes of its entries */
    uint32_t cat;
} cat_weight;

/* Heaviest first; ties: lower id first (deterministic). */
static int cmp_weight(const void *a, const void *b)
{
    const cat_weight *const x = a, *const y = b;
    if (x->weight != y->weight) {
        return x->weight < y->weight ? 1 : -1;
    }
    return (x->cat > y->cat) - (x->cat < y->cat);
}

/* Slots of an open-addressing table keyed by category for the distinct
 * categories of n entries: a power of two, at most half full. */
size_t pv_probe_cap(size_t n)
{
    size_t cap = 64;
    while (cap < 2 * (n + 1)) {
        cap *= 2;
    }
    return cap;
}

/* The weights of the categories present in s, heaviest first, in *out
 * (caller frees); their number, or SIZE_MAX on no memory.  O(u) in the
 * summary's entries u (a hash on the category, then a sort of the distinct
 * categories only), whatever the category ids: sizing this by the largest
 * id cost a 10^6-element sort per fold (17 s for 10^6 names), and sorting
 * all u entries was 10 % of an import with time bins. */
static size_t category_weights(const pv_summary *s, cat_weight **out)
{
    const size_t cap = pv_probe_cap(s->used);
    cat_weight *const w = util_calloc(s->used + 1, sizeof *w);
    uint32_t *const at = util_calloc(cap, sizeof *at); /* index + 1 in w, 0 = empty */
    if (w == NULL || at == NULL) {
        util_free(w);
        util_free(at);
        return SIZE_MAX;
    }
    size_t m = 0;
    for (size_t i = 0; i < s->used; i++) {
        const pv_entry *const e = &s->entries[i];
        if (e->cat == PV_CATEGORY_OTHER) {
            continue;
        }
        size_t j = (size_t)(((uint64_t)e->cat * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
        while (at[j] != 0 && w[at[j] - 1].cat != e->cat) {
            j = (j + 1) & (cap - 1);
        }
        if (at[j] == 0) {
            w[m] = (cat_weight){0, 0, e->cat};
            at[j] = (uint32_t)++m;
        }
        w[at[j] - 1].weight += e->count + 1;
        w[at[j] - 1].bytes += pv_entry_size(e);
    }
    util_free(at);
    qsort(w, m, sizeof *w, cmp_weight);
    *out = w;
    return m;
}

/* Fold every category into "other" (no weights needed). */
int pv_fold_all_categories(pv_summary *s, const pv_fold_ctx *ctx)
{
    for (size_t i = 0; i < s->used; i++) {
        const pv_entry *const e = &s->entries[i];
        if (e->cat != PV_CATEGORY_OTHER && pv_map_category(s, e->cat) == e->cat &&
            pv_drop_category(s, e->cat) != 0) {
            return -1;
        }
    }
    return pv_refold(s, ctx, s->fold);
}

/* Keep the most used categories whose entries fill 3/4 of the budget (the
 * rest is left for the "other" entries) and fold all others into
 * PV_CATEGORY_OTHER, in one pass. */
static int fold_rare_categories(pv_summary *s, const pv_fold_ctx *ctx, size_t budget)
{
    if (budget == 0) {
        return pv_fold_all_categories(s, ctx);
    }
    cat_weight *w = NULL;
    const size_t m = category_weights(s, &w);
    if (m == SIZE_MAX) {
        return -1;
    }
    int rc = -1;
    uint64_t used = 0;
    size_t r = 0;
    while (r < m && used + w[r].bytes <= budget / 4 * 3) {
        used += w[r++].bytes;
    }
    for (; r < m; r++) {
        if (pv_drop_category(s, w[r].cat) != 0) {
            goto out;
        }
    }
    rc = pv_refold(s, ctx, s->fold);
out:
    util_free(w);
    return rc;
}

size_t pv_distinct_categories(const pv_summary *s)
{
    /* Upper bound is fine: used to decide whether category folding helps. */
    size_t n = 0;
    uint32_t seen[64];
    for (size_t i = 0; i < s->used && n < 64; i++) {
        const uint32_t cat = s->entries[i].cat;
        if (cat == PV_CATEGORY_OTHER) {
            continue;
        }
        size_t j = 0;
        while (j < n && seen[j] != cat) {
            j++;
        }
        if (j == n) {
            seen[n++] = cat;
        }
    }
    return n;
}

int pv_fit(pv_summary *s, const pv_fold_ctx *ctx, size_t budget)
{
    int categories_tried = 0; /* once per row level: then rows must fold */
    while (pv_encoded_size(s) > budget) {
        int rc;
        const int fold_categories =
            !categories_tried && s->fold >= 2 && pv_distinct_categories(s) > 8;
        categories_tried = fold_categories;
        if (fold_categories) {
            rc = fold_rare_categories(s, ctx, budget);
        } else if (s->fold < PV_FOLD_MAX) {
            rc = pv_refold(s, ctx, s->fold + 1);
        } else {
            rc = fold_rare_categories(s, ctx, 0);
            if (rc == 0 && pv_encoded_size(s) > budget) {
                return 0; /* one row, one category per kind: cannot shrink */
            }
        }
        if (rc != 0) {
            return -1;
        }
    }
    return 0;
}
