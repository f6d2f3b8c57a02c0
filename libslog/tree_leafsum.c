/* SPDX-License-Identifier: MIT
 *
 * tree_leafsum.c - per-(timeline, category) totals of the open leaf's
 * states (see tree_leafsum.h).  The dense table replaces a hash lookup
 * by an index computation per state; it is cleared through its key list,
 * so a reset costs the keys used, not the table.
 * Layer 4: may call format/util, never slog_* API.
 */
#include "tree_leafsum.h"

#include "util_alloc.h"
#include "util_sat.h"

#include <string.h>

void tree_leafsum_init(tree_leafsum *a)
{
    memset(a, 0, sizeof *a);
}

void tree_leafsum_free(tree_leafsum *a)
{
    util_free(a->cells);
    util_free(a->keys);
    tree_leafsum_init(a);
}

void tree_leafsum_reset(tree_leafsum *a)
{
    for (size_t i = 0; i < a->nkeys; i++) {
        const uint64_t k = a->keys[i];
        a->cells[(size_t)(k >> 32) * a->cat_dim + (uint32_t)k].count = 0;
    }
    a->nkeys = 0;
    a->off = 0;
}

static uint32_t pow2_above(uint32_t v, uint32_t floor)
{
    uint64_t p = floor;
    while (p <= v) {
        p *= 2;
    }
    return p > UINT32_MAX ? 0 : (uint32_t)p;
}

/* Re-lay the table so (tl, cat) fits; -1 when it would exceed the cap or
 * memory is short (the table is then unchanged). */
static int grow_table(tree_leafsum *a, uint32_t tl, uint32_t cat)
{
    const uint32_t tdim = pow2_above(tl, a->tl_dim ? a->tl_dim : 64);
    const uint32_t cdim = pow2_above(cat, a->cat_dim ? a->cat_dim : 16);
    if (tdim == 0 || cdim == 0 || (uint64_t)tdim * cdim > TREE_LEAFSUM_CELLS) {
        return -1;
    }
    tree_leafsum_cell *const cells = util_calloc((size_t)tdim * cdim, sizeof *cells);
    if (cells == NULL) {
        return -1;
    }
    for (size_t i = 0; i < a->nkeys; i++) {
        const uint64_t k = a->keys[i];
        cells[(size_t)(k >> 32) * cdim + (uint32_t)k] =
            a->cells[(size_t)(k >> 32) * a->cat_dim + (uint32_t)k];
    }
    util_free(a->cells);
    a->cells = cells;
    a->tl_dim = tdim;
    a->cat_dim = cdim;
    return 0;
}

void tree_leafsum_add_state(tree_leafsum *a, const fmt_state_rec *r)
{
    const int64_t dur = (int64_t)((uint64_t)r->end - (uint64_t)r->start);
    if (dur < 0 || r->excl < 0) {
        a->off = 1; /* saturating sums of mixed signs depend on their order */
    }
    if (a->off) {
        return;
    }
    if ((r->timeline >= a->tl_dim || r->category >= a->cat_dim) &&
        grow_table(a, r->timeline, r->category) != 0) {
        a->off = 1;
        return;
    }
    tree_leafsum_cell *const e = &a->cells[(size_t)r->timeline * a->cat_dim + r->category];
    if (e->count == 0) {
        void *p = a->keys;
        if (util_grow(&p, &a->cap_keys, a->nkeys + 1, sizeof *a->keys) != 0) {
            a->off = 1;
            return;
        }
        a->keys = p;
        a->keys[a->nkeys++] = (uint64_t)r->timeline << 32 | r->category;
        e->incl = e->excl = 0;
        e->min = INT64_MAX;
        e->max = INT64_MIN;
    }
    a->last_key = (uint64_t)r->timeline << 32 | r->category;
    /* pv_add_state's sums; saturating sums of values >= 0 give min(INT64_MAX,
     * total) in any grouping, so replaying the cells changes nothing */
    e->count++;
    e->incl = util_sat_add_i64(e->incl, dur);
    e->excl = util_sat_add_i64(e->excl, r->excl);
    e->min = dur < e->min ? dur : e->min;
    e->max = dur > e->max ? dur : e->max;
}

int tree_leafsum_apply(const tree_leafsum *a, pv_summary *s, const pv_fold_ctx *ctx,
                       int by_timeline)
{
    int inserted = 0; /* by the last key */
    for (size_t i = 0; i < a->nkeys; i++) {
        const uint64_t k = a->keys[i];
        const uint32_t tl = (uint32_t)(k >> 32), cat = (uint32_t)k;
        const tree_leafsum_cell *const c = &a->cells[(size_t)tl * a->cat_dim + cat];
        pv_entry e;
        pv_entry_start(&e, SLOG_KIND_STATE);
        e.count = c->count;
        e.incl = c->incl;
        e.excl = c->excl;
        e.min = c->min;
        e.max = c->max;
        const size_t before = s->used;
        if (pv_add_totals(s, ctx, tl, by_timeline ? 0 : cat, &e) != 0) {
            return -1;
        }
        inserted = s->used > before;
    }
    /* State by state, the adds after the last insertion (there are some
     * unless the latest state was the first of the last key) would have
     * made a growth check; replayed, the last add inserted and made none. */
    const uint64_t last = a->nkeys > 0 ? a->keys[a->nkeys - 1] : 0;
    const int latest_was_first =
        a->nkeys > 0 && a->last_key == last &&
        a->cells[(size_t)(last >> 32) * a->cat_dim + (uint32_t)last].count == 1;
    return inserted && !latest_was_first ? pv_grow_check(s) : 0;
}
