/* SPDX-License-Identifier: MIT
 *
 * preview_bins_fit.c - fitting a binned summary's bin section to its
 * budget (pv_bins_fit; the order of the steps is in preview.h).  Rows
 * fold to their top-level ancestors first; then a plan (the entries in
 * cell order, each with the halving step at which its category folds)
 * gives the section's exact size at any bin width and step in one scan,
 * without re-keying, so binary searches choose the width and the step and
 * one re-key applies them.
 * Layer 3: may use codec and util.
 */
#include "preview_int.h"

#include "codec_varint.h"
#include "util_alloc.h"
#include "util_sat.h"

#include <stdlib.h>
#include <string.h>

/* Can s's bins widen (k + 1) and still be more than one bin? */
static int can_rekey(const pv_summary *s)
{
    return s->k < PV_BINS_KMAX && pv_bin_of(s->hi, s->k) > pv_bin_of(s->lo, s->k);
}

/* Bins 2^3 times wider than the finest (64 over the box instead of 512)
 * still let a leaf stand at any width up to 128 pixels, which covers a
 * whole-trace view of files with 9 or more leaves side by side (ring_big:
 * 16 leaves of 71 pixels at 1144); coarser ones only serve narrower leaves,
 * which stand on their node-level entries anyway below 16 pixels. */
#define PV_BINS_KEEP_STEPS 3u

/* Category levels of a plan: an entry whose level is >= j keeps its own
 * category at halving step j; "other" entries have none. */
#define PLAN_ALL  0   /* every category kept */
#define PLAN_NONE 255 /* every category folded */

/* A fitting plan for a binned summary s: its entries in cell order and
 * each entry's category level, so the encoded size of s re-keyed to bins
 * 2^(k + d) wide with the categories of level < j folded is one scan, not
 * a re-keyed table and an encode (which a fit repeating them for every
 * step made a write with time bins 45 % slower). */
typedef struct bins_plan {
    const pv_summary *s;
    const pv_entry **by_cat;         /* (kind, row, row_to, cat, bin) */
    pv_entry *acc;                   /* PV_BINS_MAX: folded cells of one key, by bin */
    uint64_t seen[PV_BINS_MAX / 64]; /* which acc cells hold any */
    uint8_t *level;                  /* per entry (index in s->entries) */
    uint32_t top;                    /* halving steps until each kind keeps one */
    size_t ncats;                    /* distinct (kind, category) pairs */
} bins_plan;

/* A (kind, category) pair's weight: what a viewer shows, a state's width
 * and any other drawable's mark. */
typedef struct kind_cat {
    uint64_t weight;
    uint32_t cat;
    uint32_t id; /* position before sorting */
    uint8_t kind;
    uint8_t level;
} kind_cat;

/* By kind, heaviest first; ties: lower id first (deterministic). */
static int cmp_kind_heavy(const void *a, const void *b)
{
    const kind_cat *const x = a, *const y = b;
    if (x->kind != y->kind) {
        return x->kind < y->kind ? -1 : 1;
    }
    if (x->weight != y->weight) {
        return x->weight < y->weight ? 1 : -1;
    }
    return (x->cat > y->cat) - (x->cat < y->cat);
}

static int cmp_cat_id(const void *a, const void *b)
{
    const kind_cat *const x = a, *const y = b;
    return (x->cat > y->cat) - (x->cat < y->cat);
}

/* The distinct (kind, category) pairs of s's entries into w with their
 * weights (pair[i]: entry i's pair); their number.  O(u). */
static size_t pair_weights(const pv_summary *s, kind_cat *w, uint32_t *at, size_t cap,
                           uint32_t *pair)
{
    size_t m = 0;
    for (size_t i = 0; i < s->used; i++) {
        const pv_entry *const e = &s->entries[i];
        if (e->cat == PV_CATEGORY_OTHER) {
            continue;
        }
        const uint64_t key = (uint64_t)e->cat * 4 + e->kind;
        size_t j = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
        while (at[j] != 0 && (w[at[j] - 1].cat != e->cat || w[at[j] - 1].kind != e->kind)) {
            j = (j + 1) & (cap - 1);
        }
        if (at[j] == 0) {
            w[m] = (kind_cat){0, e->cat, (uint32_t)m, e->kind, 0};
            at[j] = (uint32_t)++m;
        }
        pair[i] = at[j] - 1;
        const uint64_t shown = e->kind == SLOG_KIND_STATE && e->incl > 0 ? (uint64_t)e->incl : 0;
        const uint64_t add = shown + e->count + 1, old = w[at[j] - 1].weight;
        w[at[j] - 1].weight = old + add < old ? UINT64_MAX : old + add;
    }
    return m;
}

/* Halving steps until n categories are down to one. */
static uint32_t halvings(size_t n)
{
    uint32_t steps = 0;
    for (; n > 1; n = (n + 1) / 2) {
        steps++;
    }
    return steps;
}

/* v (m pairs by kind, heaviest first): each pair's level, the last step j
 * <= top at which its rank r < ceil(n / 2^j) (the heaviest: top).  The
 * steps until every kind keeps one. */
static uint32_t rank_levels(kind_cat *v, size_t m)
{
    uint32_t top = 0;
    for (size_t i = 0, j; i < m; i = j) {
        for (j = i; j < m && v[j].kind == v[i].kind; j++) {
        }
        const uint32_t steps = halvings(j - i);
        top = steps > top ? steps : top;
    }
    for (size_t i = 0, j; i < m; i = j) {
        for (j = i; j < m && v[j].kind == v[i].kind; j++) {
        }
        for (size_t r = 0; r < j - i; r++) {
            uint32_t lv = 0;
            for (size_t n = (j - i + 1) / 2; lv < top && r < n; n = (n + 1) / 2) {
                lv++;
            }
            v[i + r].level = (uint8_t)(r == 0 ? top : lv);
        }
    }
    return top;
}

/* v by category: a category's level, the most any of its kinds gives it,
 * to w's pairs. */
static void category_levels(const kind_cat *v, size_t m, kind_cat *w)
{
    for (size_t i = 0, j; i < m; i = j) {
        uint8_t lv = 0;
        for (j = i; j < m && v[j].cat == v[i].cat; j++) {
            lv = v[j].level > lv ? v[j].level : lv;
        }
        for (size_t r = i; r < j; r++) {
            w[v[r].id].level = lv;
        }
    }
}

/* Each entry's level: a kind with n categories keeps its ceil(n / 2^j)
 * heaviest at halving step j, its heaviest up to the last step (p->top,
 * when every kind keeps one); a category stays while any kind keeps it.
 * O(u) plus sorts of the distinct (kind, category) pairs. */
static int plan_levels(bins_plan *p)
{
    const pv_summary *const s = p->s;
    const size_t cap = pv_probe_cap(s->used);
    kind_cat *const w = util_calloc(s->used + 1, sizeof *w);
    kind_cat *const v = util_calloc(s->used + 1, sizeof *v);
    uint32_t *const at = util_calloc(cap, sizeof *at); /* index + 1 in w, 0 = empty */
    uint32_t *const pair = util_malloc((s->used + 1) * sizeof *pair);
    int rc = -1;
    if (w != NULL && v != NULL && at != NULL && pair != NULL) {
        const size_t m = pair_weights(s, w, at, cap, pair);
        memcpy(v, w, m * sizeof *v);
        qsort(v, m, sizeof *v, cmp_kind_heavy);
        p->top = rank_levels(v, m);
        qsort(v, m, sizeof *v, cmp_cat_id);
        category_levels(v, m, w);
        for (size_t i = 0; i < s->used; i++) {
            p->level[i] = s->entries[i].cat == PV_CATEGORY_OTHER ? 0 : w[pair[i]].level;
        }
        p->ncats = m;
        rc = 0;
    }
    util_free(w);
    util_free(v);
    util_free(at);
    util_free(pair);
    return rc;
}

static void plan_free(bins_plan *p)
{
    util_free((void *)p->by_cat);
    util_free(p->level);
    util_free(p->acc);
}

static int plan_init(bins_plan *p, const pv_summary *s)
{
    memset(p, 0, sizeof *p);
    p->s = s;
    p->by_cat = pv_sorted_cells(s);
    p->level = util_malloc(s->used + 1);
    p->acc = util_malloc(PV_BINS_MAX * sizeof *p->acc);
    if (p->by_cat == NULL || p->level == NULL || p->acc == NULL) {
        plan_free(p);
        return -1;
    }
    if (plan_levels(p) != 0) {
        plan_free(p);
        return -1;
    }
    return 0;
}

/* Does entry e keep its category at step j? */
static int plan_keeps(const bins_plan *p, const pv_entry *e, uint32_t j)
{
    return e->cat != PV_CATEGORY_OTHER && j != PLAN_NONE && p->level[e - p->s->entries] >= j;
}

/* One group of cells being sized, as encode_groups writes it. */
typedef struct group_size {
    size_t cells, bytes;
    int64_t min, max, prev;
    pv_entry cell; /* the cell being merged */
    int open;
} group_size;

static size_t cell_size(const pv_entry *e)
{
    size_t n = codec_varint_len(e->count);
    switch (e->kind) {
    case SLOG_KIND_STATE:
        return n + codec_varint_len(codec_zigzag(e->incl)) +
               codec_varint_len(codec_zigzag(e->incl - e->excl));
    case SLOG_KIND_ARROW:
        return n + codec_varint_len(codec_zigzag(e->incl));
    case SLOG_KIND_COUNTER:
        return n + 32 + codec_varint_len(codec_zigzag(e->last_time));
    default:
        return n;
    }
}

static void group_close_cell(group_size *g)
{
    if (g->open) {
        g->bytes += codec_varint_len((uint64_t)(g->cell.bin - g->prev)) + cell_size(&g->cell);
        g->prev = g->cell.bin;
        g->cells++;
        g->open = 0;
    }
}

/* Add entry e (its bin bin) to group g. */
static void group_add(group_size *g, const pv_entry *e, int64_t bin)
{
    if (g->open && g->cell.bin != bin) {
        group_close_cell(g);
    }
    if (!g->open) {
        g->cell.kind = e->kind;
        g->cell.bin = bin;
        g->cell.count = 0;
        g->cell.incl = g->cell.excl = 0;
        g->cell.last_time = 0;
        g->open = 1;
    }
    g->cell.count += e->count;
    g->cell.incl = util_sat_add_i64(g->cell.incl, e->incl);
    g->cell.excl = util_sat_add_i64(g->cell.excl, e->excl);
    if (e->last_time >= g->cell.last_time) {
        g->cell.last_time = e->last_time;
    }
    g->min = e->min < g->min ? e->min : g->min;
    g->max = e->max > g->max ? e->max : g->max;
}

/* Bytes of the finished group g keyed like e with category cat. */
static size_t group_bytes(group_size *g, const pv_entry *e, uint32_t cat)
{
    group_close_cell(g);
    size_t n = 1 + codec_varint_len(e->row) + codec_varint_len((uint64_t)cat + 1) +
               (e->kind == SLOG_KIND_ARROW ? codec_varint_len(e->row_to) : 0) +
               codec_varint_len(g->cells) + g->bytes;
    if (e->kind == SLOG_KIND_STATE || e->kind == SLOG_KIND_ARROW) {
        n += codec_varint_len(codec_zigzag(g->min)) +
             codec_varint_len((uint64_t)g->max - (uint64_t)g->min);
    }
    return n;
}

static void group_start(group_size *g, int64_t first)
{
    memset(g, 0, sizeof *g);
    g->min = INT64_MAX;
    g->max = INT64_MIN;
    g->prev = first;
}

/* The bin section's encoded size were s re-keyed to bins 2^(k + d) wide
 * with the categories below step j folded into "other" (exact: the same
 * sums as merge_entry and encode_groups).  One scan of the cells in key
 * order: a kept category's cells are a group already in bin order; the
 * folded ones of a (kind, row, row_to) gather in one cell per bin (at most
 * PV_BINS_MAX, so an array and a bitmap, no sort), sized at the end of the
 * key.  O(u + keys x PV_BINS_MAX / 64). */
static size_t plan_size(bins_plan *p, uint32_t d, uint32_t j);

/* A plan's bin geometry at k + d: the first bin and how many. */
typedef struct plan_span {
    uint32_t d;
    int64_t first;
    uint64_t span;
} plan_span;

/* Gather the folded entry e into its bin's cell of the key's "other"
 * group o; 0, or -1 when e lies outside the box (cannot be). */
static int fold_into(bins_plan *p, group_size *o, const pv_entry *e, const plan_span *b)
{
    const uint64_t at = (uint64_t)(pv_bin_of(e->bin, b->d) - b->first);
    if (at >= b->span) {
        return -1;
    }
    pv_entry *const c = &p->acc[at];
    if (!(p->seen[at / 64] >> (at % 64) & 1)) {
        p->seen[at / 64] |= (uint64_t)1 << (at % 64);
        c->kind = e->kind;
        c->count = 0;
        c->incl = c->excl = c->last_time = 0;
    }
    c->count += e->count;
    c->incl = util_sat_add_i64(c->incl, e->incl);
    c->excl = util_sat_add_i64(c->excl, e->excl);
    c->last_time = e->last_time >= c->last_time ? e->last_time : c->last_time;
    o->min = e->min < o->min ? e->min : o->min;
    o->max = e->max > o->max ? e->max : o->max;
    o->open = 1;
    return 0;
}

/* Size the gathered "other" cells of a key into o, bins ascending, and
 * clear them for the next key. */
static void flush_folded(bins_plan *p, group_size *o, const plan_span *b)
{
    o->open = 0; /* its cells are in acc, not in o->cell */
    for (size_t w = 0; w < (b->span + 63) / 64; w++) {
        size_t at = w * 64;
        for (uint64_t bits = p->seen[w]; bits != 0; bits >>= 1, at++) {
            if (bits & 1) {
                const int64_t bin = b->first + (int64_t)at;
                o->bytes += codec_varint_len((uint64_t)(bin - o->prev)) + cell_size(&p->acc[at]);
                o->prev = bin;
                o->cells++;
            }
        }
        p->seen[w] = 0;
    }
}

/* Size the cells of key `key` from by_cat[*i] on (kept groups whole, the
 * rest gathered); *groups counts the groups.  SIZE_MAX on a bad bin. */
static size_t size_key(bins_plan *p, size_t *i, uint32_t j, const plan_span *b, size_t *groups)
{
    const pv_summary *const s = p->s;
    const pv_entry *const key = p->by_cat[*i];
    size_t n = 0;
    group_size g, o;
    group_start(&o, b->first);
    while (*i < s->used && key->kind == p->by_cat[*i]->kind && key->row == p->by_cat[*i]->row &&
           key->row_to == p->by_cat[*i]->row_to) {
        const pv_entry *const e = p->by_cat[*i];
        if (!plan_keeps(p, e, j)) {
            if (fold_into(p, &o, e, b) != 0) {
                return SIZE_MAX;
            }
            ++*i;
            continue;
        }
        group_start(&g, b->first);
        for (; *i < s->used && pv_same_key(e, p->by_cat[*i]); ++*i) {
            group_add(&g, p->by_cat[*i], pv_bin_of(p->by_cat[*i]->bin, b->d));
        }
        n += group_bytes(&g, e, e->cat);
        ++*groups;
    }
    if (o.open) {
        flush_folded(p, &o, b);
        n += group_bytes(&o, key, PV_CATEGORY_OTHER);
        ++*groups;
    }
    return n;
}

static size_t plan_size(bins_plan *p, uint32_t d, uint32_t j)
{
    const pv_summary *const s = p->s;
    const uint32_t k = s->k + d;
    const int64_t first = pv_bin_of(s->lo, k);
    const plan_span b = {d, first, (uint64_t)(pv_bin_of(s->hi, k) - first) + 1};
    if (s->used == 0 || !pv_bins_header_ok(s->fold, k, first, b.span)) {
        return 1;
    }
    size_t n = 0, groups = 0;
    for (size_t i = 0; i < s->used;) {
        const size_t key = size_key(p, &i, j, &b, &groups);
        if (key == SIZE_MAX) {
            memset(p->seen, 0, sizeof p->seen);
            return SIZE_MAX - 1; /* not in the box: cannot be */
        }
        n += key;
    }
    return n + codec_varint_len(groups) + codec_varint_len(s->fold) + codec_varint_len(k) +
           codec_varint_len(codec_zigzag(first)) + codec_varint_len(b.span);
}

/* Would bins 2^k wide still be more than one over s's box? */
static int can_widen(const pv_summary *s, uint32_t k)
{
    return k < PV_BINS_KMAX && pv_bin_of(s->hi, k) > pv_bin_of(s->lo, k);
}

/* The smallest x in [lo, hi] whose plan fits budget, sizes falling as x
 * grows (a binary search; hi when none below it fits): x is the halving
 * step at k + d (by_step), or d itself with every category folded. */
static uint32_t first_fit(bins_plan *p, size_t budget, uint32_t lo, uint32_t hi, int by_step,
                          uint32_t d)
{
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        const size_t size = by_step ? plan_size(p, d, mid) : plan_size(p, mid, PLAN_NONE);
        if (size <= budget) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return hi;
}

/* The first halving step at k + dmax whose size fits budget (sizes
 * fall as categories fold: a binary search), or the last within 5/4 of it
 * (*over set); PLAN_NONE if neither.  top 0: one category per kind
 * already, kept within 5/4. */
static uint32_t choose_step(bins_plan *p, size_t budget, uint32_t dmax, int *over)
{
    const size_t last = plan_size(p, dmax, p->top);
    if (last > budget) {
        *over = last - budget <= budget / 4;
        return *over ? p->top : PLAN_NONE;
    }
    return first_fit(p, budget, p->top > 0, p->top, 1, dmax);
}

/* With every category folded: the smallest d that fits budget (a binary
 * search up to dmax), or past dmax one at a time while bins widen. */
static uint32_t choose_grey(bins_plan *p, size_t budget, uint32_t dmax)
{
    uint32_t d = dmax;
    if (plan_size(p, dmax, PLAN_NONE) > budget) {
        while (can_widen(p->s, p->s->k + d) && plan_size(p, d, PLAN_NONE) > budget) {
            d++;
        }
        return d;
    }
    return first_fit(p, budget, 0, d, 0, 0);
}

/* Choose, from sizes computed on the plan, how s (rows folded to their
 * top-level ancestors) meets budget, then re-key it once: the smallest
 * k up to kmin + PV_BINS_KEEP_STEPS at which every category fits; else
 * at that k the first halving step that fits, or the last (each kind's
 * heaviest category) within 5/4 of budget (*over set); else every
 * category folded at the smallest k that fits (or cannot widen). */
static int plan_fit(pv_summary *s, const pv_fold_ctx *ctx, size_t budget, uint32_t dmax,
                    int *over)
{
    bins_plan p;
    if (plan_init(&p, s) != 0) {
        return -1;
    }
    uint32_t d = dmax, j = PLAN_NONE;
    *over = 0;
    if (p.ncats > 0 && dmax > 0 && plan_size(&p, dmax, PLAN_ALL) <= budget) {
        for (d = 1; d < dmax && plan_size(&p, d, PLAN_ALL) > budget; d++) {
        }
        j = PLAN_ALL;
    } else if (p.ncats > 0) {
        j = choose_step(&p, budget, dmax, over);
    }
    if (j == PLAN_NONE) {
        d = choose_grey(&p, budget, dmax);
    }
    int rc = 0;
    for (size_t i = 0; i < s->used && rc == 0; i++) {
        const pv_entry *const e = &s->entries[i];
        if (e->cat != PV_CATEGORY_OTHER && !plan_keeps(&p, e, j) &&
            pv_map_category(s, e->cat) == e->cat) {
            rc = pv_drop_category(s, e->cat);
        }
    }
    plan_free(&p);
    return rc == 0 ? pv_rekey(s, ctx, s->fold, s->k + d) : rc;
}

/* s with every category folded and bins 2^(s->k + d) wide, into dst (a
 * new summary; s stays): what fitting ends with when no category can stay,
 * built directly (one pass, a table of the folded cells only). */
static int fold_all_copy(pv_summary *dst, const pv_summary *s, uint32_t d)
{
    pv_init(dst);
    dst->binned = s->binned;
    dst->fold = s->fold;
    dst->k = s->k + d;
    dst->lo = s->lo;
    dst->hi = s->hi;
    if (s->used > 0 && pv_table_rehash(dst, pv_table_cap_for(s->used)) != 0) {
        return -1;
    }
    for (size_t i = 0; i < s->used; i++) {
        const pv_entry *const e = &s->entries[i];
        pv_entry *const o = pv_table_lookup(dst, e->kind, e->row, e->row_to, PV_CATEGORY_OTHER,
                                            pv_bin_of(e->bin, d));
        if (o == NULL) {
            util_free(dst->index);
            util_free(dst->entries);
            return -1;
        }
        pv_entry_add(o, e);
    }
    return 0;
}

/* Fit s (rows at their top-level ancestors) with categories if any can
 * stay: a quick test first, every category folded at the coarsest k that
 * keeps colours, which the cheapest colour plan cannot beat; when even that
 * is over 5/4 of budget (synthetic even categories, most leaves of a large
 * trace), s becomes that summary and fitting goes on from there as before
 * (k + 1 at a time), so a leaf without colours to keep costs no plan. */
static int fit_colours(pv_summary *s, const pv_fold_ctx *ctx, size_t budget, int *over)
{
    const uint32_t kmin = pv_bins_kmin(s->lo, s->hi);
    uint32_t dmax = 0;
    while (s->k + dmax < kmin + PV_BINS_KEEP_STEPS && can_widen(s, s->k + dmax)) {
        dmax++;
    }
    *over = 0;
    pv_summary grey;
    if (fold_all_copy(&grey, s, dmax) != 0) {
        return -1;
    }
    const size_t size = grey.used * 3 > budget + budget / 4 ? SIZE_MAX - 1
                                                            : pv_bins_encoded_size(&grey);
    if (size == SIZE_MAX) {
        pv_free(&grey);
        return -1;
    }
    if (size - budget <= budget / 4 || size <= budget) {
        pv_free(&grey);
        return plan_fit(s, ctx, budget, dmax, over);
    }
    for (size_t i = 0; i < s->used; i++) {
        const uint32_t cat = s->entries[i].cat;
        if (cat != PV_CATEGORY_OTHER && pv_map_category(s, cat) == cat &&
            pv_drop_category(s, cat) != 0) {
            pv_free(&grey);
            return -1;
        }
    }
    util_free(s->index);
    util_free(s->entries);
    grey.dropped = s->dropped;
    grey.ndropped = s->ndropped;
    *s = grey;
    return 0;
}

/* Fold rows one level up; when that changes no row (flat timelines), only
 * the level changes: the entries stand as they are. */
static int fold_rows_up(pv_summary *s, const pv_fold_ctx *ctx)
{
    const uint32_t to = s->fold + 1;
    for (size_t i = 0; i < s->used; i++) {
        const pv_entry *const e = &s->entries[i];
        if (pv_fold_row(ctx, e->row, s->fold, to) != e->row ||
            pv_fold_row(ctx, e->row_to, s->fold, to) != e->row_to) {
            return pv_refold(s, ctx, to);
        }
    }
    s->fold = to;
    return 0;
}

int pv_bins_fit(pv_summary *s, const pv_fold_ctx *ctx, size_t budget)
{
    int planned = 0, over = 0;
    for (;;) {
        /* a cell takes at least 3 bytes: skip encoding while far too big */
        const size_t size = s->used * 3 > budget ? SIZE_MAX - 1 : pv_bins_encoded_size(s);
        if (size == SIZE_MAX) {
            return -1;
        }
        if (size <= budget || (over && size - budget <= budget / 4)) {
            return 0;
        }
        over = 0;
        int rc;
        if (s->fold < 2) {
            rc = fold_rows_up(s, ctx); /* rows to top-level ancestors first */
        } else if (!planned) {
            planned = 1;
            rc = fit_colours(s, ctx, budget, &over);
        } else if (pv_distinct_categories(s) > 0) {
            rc = pv_fold_all_categories(s, ctx);
        } else if (!can_rekey(s) && s->fold < PV_FOLD_MAX) {
            rc = pv_refold(s, ctx, s->fold + 1); /* once bins cannot widen */
        } else if (can_rekey(s)) {
            rc = pv_rekey(s, ctx, s->fold, s->k + 1);
        } else {
            return 0; /* one row, one bin, one category per kind */
        }
        if (rc != 0) {
            return -1;
        }
    }
}
