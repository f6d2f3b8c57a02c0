/* SPDX-License-Identifier: MIT
 *
 * preview.c - subtree summaries: an open-addressing hash keyed by
 * (kind, row, row_to, category[, time bin]), exact int64 time sums,
 * folding of rows and rare categories (and coarsening of bins) to a size
 * budget, and the preview blob codec.
 * Layer 3: may use codec and util.
 */
#include "preview.h"

#include "codec_varint.h"
#include "util_alloc.h"
#include "util_sat.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

uint32_t pv_fold_row(const pv_fold_ctx *ctx, uint32_t row, uint32_t from, uint32_t to)
{
    if (to <= from) {
        return row;
    }
    if (from == 0) {
        const uint32_t p = row < ctx->ntimelines ? ctx->parent[row] : SLOG_NO_PARENT;
        row = p == SLOG_NO_PARENT ? row : p;
        from = 1;
        if (to == 1) {
            return row;
        }
    }
    if (from == 1) {
        row = row < ctx->ntimelines ? ctx->root[row] : row;
        from = 2;
        if (to == 2) {
            return row;
        }
    }
    const uint32_t shift = to - from;
    return shift >= 32 ? 0 : row >> shift;
}

void pv_init(pv_summary *s)
{
    memset(s, 0, sizeof *s);
    s->lo = INT64_MAX;
    s->hi = INT64_MIN;
}

void pv_init_binned(pv_summary *s)
{
    pv_init(s);
    s->binned = 1;
}

int64_t pv_bin_of(int64_t t, uint32_t k)
{
    if (k >= 63) {
        return t < 0 ? -1 : 0;
    }
    /* floor division without relying on the sign behaviour of >> */
    return t >= 0 ? t >> k : -(int64_t)((uint64_t)(-(t + 1)) >> k) - 1;
}

uint32_t pv_bins_kmin(int64_t t0, int64_t t1)
{
    uint32_t k = 0;
    while (k < 63 && (uint64_t)pv_bin_of(t1, k) - (uint64_t)pv_bin_of(t0, k) >= PV_BINS_MAX) {
        k++;
    }
    return k;
}

void pv_reset(pv_summary *s)
{
    if (s->cap > 0) {
        memset(s->index, 0, s->cap * sizeof *s->index);
    }
    if (s->ndropped > 0) {
        memset(s->dropped, 0, s->ndropped);
    }
    s->used = 0;
    s->fold = 0;
    s->k = 0;
    s->lo = INT64_MAX;
    s->hi = INT64_MIN;
}

void pv_free(pv_summary *s)
{
    const uint8_t binned = s->binned;
    util_free(s->index);
    util_free(s->entries);
    util_free(s->dropped);
    pv_init(s);
    s->binned = binned;
}

static uint32_t map_category(const pv_summary *s, uint32_t cat)
{
    return cat < s->ndropped && s->dropped[cat] ? PV_CATEGORY_OTHER : cat;
}

/* Mark cat as folded into "other" (grows the map). */
static int drop_category(pv_summary *s, uint32_t cat)
{
    if (cat >= s->ndropped) {
        size_t n = s->ndropped ? s->ndropped : 64;
        while (n <= cat) {
            n *= 2;
        }
        uint8_t *const d = util_realloc(s->dropped, n);
        if (d == NULL) {
            return -1;
        }
        memset(d + s->ndropped, 0, n - s->ndropped);
        s->dropped = d;
        s->ndropped = n;
    }
    s->dropped[cat] = 1;
    return 0;
}

static size_t hash_key(uint8_t kind, uint32_t row, uint32_t row_to, uint32_t cat, int64_t bin)
{
    uint64_t h = ((uint64_t)row << 32 | cat) * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)row_to << 8 | kind) * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)bin * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    return (size_t)h;
}

/* Would one more entry take a table of @p cap slots holding @p n past
 * its load limit (7/10)? */
static int too_full(size_t n, size_t cap)
{
    return (n + 1) * 10 > cap * 7;
}

/* Room for the entries a table of @p cap slots holds before it grows (at
 * most 7/10 of cap: too_full); rehash bounds cap, so cap * 7 fits. */
static size_t entries_for(size_t cap)
{
    return cap * 7 / 10 + 1;
}

/* The entry in slot @p i, or NULL: for scans whose order is the table's
 * layout (what is encoded or re-inserted elsewhere). */
static const pv_entry *slot_entry(const pv_summary *s, size_t i)
{
    return s->index[i] != 0 ? &s->entries[s->index[i] - 1] : NULL;
}

/* Re-lay the slots over ncap, old slots in order (so the layout is the
 * one inserting the entries in that order gives); the entries stay. */
static int rehash(pv_summary *s, size_t ncap)
{
    /* zeroed by writing, not calloc: a large calloc is fresh zero pages
     * that the probes below read and then write, a second fault per page
     * that also flushes the other threads' TLBs (13 % of a Chrome import
     * on a virtual machine where those cost ~10 us) */
    if (ncap > UINT32_MAX || ncap > SIZE_MAX / sizeof(pv_entry)) {
        return -1;
    }
    pv_entry *const entries = util_realloc(s->entries, entries_for(ncap) * sizeof *entries);
    if (entries == NULL) {
        return -1;
    }
    s->entries = entries; /* larger than the old slots need: harmless if the rest fails */
    uint32_t *const index = util_malloc(ncap * sizeof *index);
    if (index == NULL) {
        return -1;
    }
    memset(index, 0, ncap * sizeof *index);
    for (size_t i = 0; i < s->cap; i++) {
        const uint32_t x = s->index[i];
        if (x == 0) {
            continue;
        }
        const pv_entry *const e = &entries[x - 1];
        size_t j = hash_key(e->kind, e->row, e->row_to, e->cat, e->bin) & (ncap - 1);
        while (index[j] != 0) {
            j = (j + 1) & (ncap - 1);
        }
        index[j] = x;
    }
    util_free(s->index);
    s->index = index;
    s->cap = ncap;
    return 0;
}

/* The smallest capacity that holds n entries without growing. */
static size_t cap_for(size_t n)
{
    size_t cap = 64;
    while (too_full(n, cap)) {
        cap *= 2;
    }
    return cap;
}

static int grow_check(pv_summary *s)
{
    return too_full(s->used, s->cap) ? rehash(s, s->cap ? s->cap * 2 : 64) : 0;
}

int pv_grow_check(pv_summary *s)
{
    return grow_check(s);
}

/* Find or insert the entry for a key (row already folded). */
static pv_entry *lookup(pv_summary *s, uint8_t kind, uint32_t row, uint32_t row_to, uint32_t cat,
                        int64_t bin)
{
    if (grow_check(s) != 0) {
        return NULL;
    }
    size_t j = hash_key(kind, row, row_to, cat, bin) & (s->cap - 1);
    for (;;) {
        const uint32_t x = s->index[j];
        if (x == 0) {
            pv_entry *const e = &s->entries[s->used];
            memset(e, 0, sizeof *e);
            e->used = 1;
            e->kind = kind;
            e->row = row;
            e->row_to = row_to;
            e->cat = cat;
            e->bin = bin;
            e->min = INT64_MAX;
            e->max = INT64_MIN;
            e->last_time = INT64_MIN;
            s->index[j] = (uint32_t)++s->used;
            return e;
        }
        pv_entry *const e = &s->entries[x - 1];
        if (e->kind == kind && e->row == row && e->row_to == row_to && e->cat == cat &&
            e->bin == bin) {
            return e;
        }
        j = (j + 1) & (s->cap - 1);
    }
}

static void add_duration(pv_entry *e, int64_t dur)
{
    e->count++;
    e->incl = util_sat_add_i64(e->incl, dur);
    if (dur < e->min) {
        e->min = dur;
    }
    if (dur > e->max) {
        e->max = dur;
    }
}

int pv_add_state(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat, int64_t dur,
                 int64_t excl)
{
    const uint32_t row = pv_fold_row(ctx, tl, 0, s->fold);
    pv_entry *const e = lookup(s, SLOG_KIND_STATE, row, row, map_category(s, cat), 0);
    if (e == NULL) {
        return -1;
    }
    add_duration(e, dur);
    e->excl = util_sat_add_i64(e->excl, excl);
    return 0;
}

void pv_entry_start(pv_entry *e, uint8_t kind)
{
    memset(e, 0, sizeof *e);
    e->used = 1;
    e->kind = kind;
    e->min = INT64_MAX;
    e->max = INT64_MIN;
    e->last_time = INT64_MIN;
}

int pv_add_totals(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat,
                  const pv_entry *e)
{
    const uint32_t row = pv_fold_row(ctx, tl, 0, s->fold);
    pv_entry *const d = lookup(s, e->kind, row, row, map_category(s, cat), 0);
    if (d == NULL) {
        return -1;
    }
    pv_entry_add(d, e);
    return 0;
}

int pv_add_event(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat)
{
    const uint32_t row = pv_fold_row(ctx, tl, 0, s->fold);
    pv_entry *const e = lookup(s, SLOG_KIND_EVENT, row, row, map_category(s, cat), 0);
    if (e == NULL) {
        return -1;
    }
    e->count++;
    return 0;
}

int pv_add_arrow(pv_summary *s, const pv_fold_ctx *ctx, uint32_t from, uint32_t to, uint32_t cat,
                 int64_t dur)
{
    const uint32_t r0 = pv_fold_row(ctx, from, 0, s->fold);
    const uint32_t r1 = pv_fold_row(ctx, to, 0, s->fold);
    pv_entry *const e = lookup(s, SLOG_KIND_ARROW, r0, r1, map_category(s, cat), 0);
    if (e == NULL) {
        return -1;
    }
    add_duration(e, dur);
    return 0;
}

/* e += src for counter entries (src may be a single sample). */
static void add_counter_values(pv_entry *e, const pv_entry *src)
{
    if (e->count == 0 || src->vmin < e->vmin) {
        e->vmin = src->vmin;
    }
    if (e->count == 0 || src->vmax > e->vmax) {
        e->vmax = src->vmax;
    }
    e->vsum += src->vsum;
    if (src->last_time >= e->last_time) {
        e->last_time = src->last_time;
        e->vlast = src->vlast;
    }
    e->count += src->count;
}

/* One counter sample added to e. */
static void add_sample(pv_entry *e, int64_t time, double value)
{
    pv_entry one;
    memset(&one, 0, sizeof one);
    one.count = 1;
    one.vmin = one.vmax = one.vsum = one.vlast = value;
    one.last_time = time;
    add_counter_values(e, &one);
}

int pv_add_counter(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat,
                   int64_t time, double value)
{
    const uint32_t row = pv_fold_row(ctx, tl, 0, s->fold);
    pv_entry *const e = lookup(s, SLOG_KIND_COUNTER, row, row, map_category(s, cat), 0);
    if (e == NULL) {
        return -1;
    }
    add_sample(e, time, value);
    return 0;
}

void pv_entry_add(pv_entry *dst, const pv_entry *src)
{
    if (src->kind == SLOG_KIND_COUNTER) {
        add_counter_values(dst, src);
        return;
    }
    dst->count += src->count;
    dst->incl = util_sat_add_i64(dst->incl, src->incl);
    dst->excl = util_sat_add_i64(dst->excl, src->excl);
    if (src->min < dst->min) {
        dst->min = src->min;
    }
    if (src->max > dst->max) {
        dst->max = src->max;
    }
}

/* Merge entry src (rows at level `from`, bins 2^from_k wide) into s. */
static int merge_entry(pv_summary *s, const pv_fold_ctx *ctx, const pv_entry *src, uint32_t from,
                       uint32_t from_k)
{
    const uint32_t row = pv_fold_row(ctx, src->row, from, s->fold);
    const uint32_t row_to = pv_fold_row(ctx, src->row_to, from, s->fold);
    const int64_t bin = s->binned ? pv_bin_of(src->bin, s->k - from_k) : 0;
    pv_entry *const e = lookup(s, src->kind, row, row_to, map_category(s, src->cat), bin);
    if (e == NULL) {
        return -1;
    }
    pv_entry_add(e, src);
    return 0;
}

/* Re-key every entry to fold level `to`, bins 2^k wide (k >= s->k) and
 * the current dropped map. */
static int rekey(pv_summary *s, const pv_fold_ctx *ctx, uint32_t to, uint32_t k)
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
    int rc = old.used > 0 ? rehash(s, cap_for(old.used)) : 0;
    for (size_t i = 0; i < old.cap && rc == 0; i++) {
        const pv_entry *const e = slot_entry(&old, i);
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
static int refold(pv_summary *s, const pv_fold_ctx *ctx, uint32_t to)
{
    return rekey(s, ctx, to, s->k);
}

/* Extend a binned summary's box by [start, end], coarsen its bins to keep
 * at most PV_BINS_MAX over it, and give the bin of start. */
static int bin_at(pv_summary *s, const pv_fold_ctx *ctx, int64_t start, int64_t end,
                  int64_t *bin)
{
    if (start < s->lo || end > s->hi) {
        s->lo = start < s->lo ? start : s->lo;
        s->hi = end > s->hi ? end : s->hi;
        uint32_t k = s->k; /* the box only grows: so does k */
        while (k < 63 && (uint64_t)pv_bin_of(s->hi, k) - (uint64_t)pv_bin_of(s->lo, k) >=
                             PV_BINS_MAX) {
            k++;
        }
        if (k > s->k && rekey(s, ctx, s->fold, k) != 0) {
            return -1;
        }
    }
    *bin = pv_bin_of(start, s->k);
    return 0;
}

/* The entry of a binned summary for a drawable from..to (rows), starting
 * at start and ending at end; NULL when out of memory. */
static pv_entry *bins_entry(pv_summary *s, const pv_fold_ctx *ctx, uint8_t kind, pv_bin_key key,
                            int64_t start, int64_t end)
{
    int64_t bin = 0;
    if (bin_at(s, ctx, start, end, &bin) != 0) {
        return NULL;
    }
    const uint32_t r0 = pv_fold_row(ctx, key.from, 0, s->fold);
    const uint32_t r1 = pv_fold_row(ctx, key.to, 0, s->fold);
    return lookup(s, kind, r0, r1, map_category(s, key.cat), bin);
}

void pv_bins_span(pv_summary *s, int64_t t0, int64_t t1)
{
    assert(s->used == 0);
    s->lo = t0 < s->lo ? t0 : s->lo;
    s->hi = t1 > s->hi ? t1 : s->hi;
    const uint32_t k = pv_bins_kmin(s->lo, s->hi);
    s->k = k > s->k ? k : s->k;
}

int pv_bins_add_state(pv_summary *s, const pv_fold_ctx *ctx, pv_bin_key key, int64_t start,
                      int64_t end, int64_t excl)
{
    pv_entry *const e = bins_entry(s, ctx, SLOG_KIND_STATE, key, start, end);
    if (e == NULL) {
        return -1;
    }
    add_duration(e, end - start);
    e->excl = util_sat_add_i64(e->excl, excl);
    return 0;
}

int pv_bins_add_event(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat,
                      int64_t time)
{
    const pv_bin_key key = {tl, tl, cat};
    pv_entry *const e = bins_entry(s, ctx, SLOG_KIND_EVENT, key, time, time);
    if (e == NULL) {
        return -1;
    }
    e->count++;
    return 0;
}

int pv_bins_add_arrow(pv_summary *s, const pv_fold_ctx *ctx, pv_bin_key key, int64_t start,
                      int64_t end)
{
    pv_entry *const e = bins_entry(s, ctx, SLOG_KIND_ARROW, key, start, end);
    if (e == NULL) {
        return -1;
    }
    add_duration(e, end - start);
    return 0;
}

int pv_bins_add_counter(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat,
                        int64_t time, double value)
{
    const pv_bin_key key = {tl, tl, cat};
    pv_entry *const e = bins_entry(s, ctx, SLOG_KIND_COUNTER, key, time, time);
    if (e == NULL) {
        return -1;
    }
    add_sample(e, time, value);
    return 0;
}

/* dst's dropped map |= src's; refold dst if that dropped anything new. */
static int merge_dropped(pv_summary *dst, const pv_summary *src, const pv_fold_ctx *ctx)
{
    int changed = 0;
    for (size_t c = 0; c < src->ndropped; c++) {
        if (src->dropped[c] && !(c < dst->ndropped && dst->dropped[c])) {
            if (drop_category(dst, (uint32_t)c) != 0) {
                return -1;
            }
            changed = 1;
        }
    }
    return changed ? refold(dst, ctx, dst->fold) : 0;
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
    if ((fold != dst->fold || k != dst->k) && rekey(dst, ctx, fold, k) != 0) {
        return -1;
    }
    for (size_t i = 0; i < src->cap; i++) {
        const pv_entry *const e = slot_entry(src, i);
        if (e != NULL && merge_entry(dst, ctx, e, src->fold, src->k) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Encoded size of an entry's count and totals (after its key). */
static size_t fields_size(const pv_entry *e)
{
    size_t n = codec_varint_len(e->count);
    const size_t durations = codec_varint_len(codec_zigzag(e->incl)) +
                             codec_varint_len(codec_zigzag(e->min)) +
                             codec_varint_len(codec_zigzag(e->max));
    switch (e->kind) {
    case SLOG_KIND_STATE:
        n += durations + codec_varint_len(codec_zigzag(e->excl));
        break;
    case SLOG_KIND_ARROW:
        n += durations;
        break;
    case SLOG_KIND_COUNTER:
        n += 32 + codec_varint_len(codec_zigzag(e->last_time));
        break;
    default:
        break;
    }
    return n;
}

/* Encoded size of an entry's key: kind, row, [row_to], category. */
static size_t key_size(const pv_entry *e)
{
    return 1 + codec_varint_len(e->row) + codec_varint_len((uint64_t)e->cat + 1) +
           (e->kind == SLOG_KIND_ARROW ? codec_varint_len(e->row_to) : 0);
}

static size_t entry_size(const pv_entry *e)
{
    return key_size(e) + fields_size(e);
}

size_t pv_encoded_size(const pv_summary *s)
{
    /* + 2: the empty bin section and the absent timeline section */
    size_t n = 4 + codec_varint_len(s->fold) + codec_varint_len(s->used);
    for (size_t i = 0; i < s->used; i++) {
        n += entry_size(&s->entries[i]);
    }
    return n;
}

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

static size_t entry_size(const pv_entry *e);

/* Slots of an open-addressing table keyed by category for the distinct
 * categories of n entries: a power of two, at most half full. */
static size_t probe_cap(size_t n)
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
    const size_t cap = probe_cap(s->used);
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
        w[at[j] - 1].bytes += entry_size(e);
    }
    util_free(at);
    qsort(w, m, sizeof *w, cmp_weight);
    *out = w;
    return m;
}

/* Fold every category into "other" (no weights needed). */
static int fold_all_categories(pv_summary *s, const pv_fold_ctx *ctx)
{
    for (size_t i = 0; i < s->used; i++) {
        const pv_entry *const e = &s->entries[i];
        if (e->cat != PV_CATEGORY_OTHER && map_category(s, e->cat) == e->cat &&
            drop_category(s, e->cat) != 0) {
            return -1;
        }
    }
    return refold(s, ctx, s->fold);
}

/* Keep the most used categories whose entries fill 3/4 of the budget (the
 * rest is left for the "other" entries) and fold all others into
 * PV_CATEGORY_OTHER, in one pass. */
static int fold_rare_categories(pv_summary *s, const pv_fold_ctx *ctx, size_t budget)
{
    if (budget == 0) {
        return fold_all_categories(s, ctx);
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
        if (drop_category(s, w[r].cat) != 0) {
            goto out;
        }
    }
    rc = refold(s, ctx, s->fold);
out:
    util_free(w);
    return rc;
}

static size_t distinct_categories(const pv_summary *s)
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
            !categories_tried && s->fold >= 2 && distinct_categories(s) > 8;
        categories_tried = fold_categories;
        if (fold_categories) {
            rc = fold_rare_categories(s, ctx, budget);
        } else if (s->fold < PV_FOLD_MAX) {
            rc = refold(s, ctx, s->fold + 1);
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

static uint8_t *put_f64(uint8_t *p, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    for (int b = 0; b < 8; b++) {
        *p++ = (uint8_t)(bits >> (8 * b));
    }
    return p;
}

static uint8_t *encode_key(uint8_t *p, const pv_entry *e)
{
    *p++ = e->kind;
    p = codec_varint_put(p, e->row);
    if (e->kind == SLOG_KIND_ARROW) {
        p = codec_varint_put(p, e->row_to);
    }
    return codec_varint_put(p, (uint64_t)e->cat + 1);
}

static uint8_t *encode_fields(uint8_t *p, const pv_entry *e)
{
    p = codec_varint_put(p, e->count);
    if (e->kind == SLOG_KIND_STATE || e->kind == SLOG_KIND_ARROW) {
        p = codec_varint_put(p, codec_zigzag(e->incl));
        if (e->kind == SLOG_KIND_STATE) {
            p = codec_varint_put(p, codec_zigzag(e->excl));
        }
        p = codec_varint_put(p, codec_zigzag(e->min));
        p = codec_varint_put(p, codec_zigzag(e->max));
    } else if (e->kind == SLOG_KIND_COUNTER) {
        p = put_f64(p, e->vmin);
        p = put_f64(p, e->vmax);
        p = put_f64(p, e->vsum);
        p = put_f64(p, e->vlast);
        p = codec_varint_put(p, codec_zigzag(e->last_time));
    }
    return p;
}

static uint8_t *encode_entry(uint8_t *p, const pv_entry *e)
{
    return encode_fields(encode_key(p, e), e);
}

/* Key order (kind, row, row_to, category): the order of the groups in the
 * bin section, which the decoder checks. */
static int cmp_key(const pv_entry *x, const pv_entry *y)
{
    if (x->kind != y->kind) {
        return x->kind < y->kind ? -1 : 1;
    }
    if (x->row != y->row) {
        return x->row < y->row ? -1 : 1;
    }
    if (x->row_to != y->row_to) {
        return x->row_to < y->row_to ? -1 : 1;
    }
    return (x->cat > y->cat) - (x->cat < y->cat);
}

/* Key order, then bin: the order of the cells in the bin section. */
static int cmp_cell(const void *a, const void *b)
{
    const pv_entry *const x = *(const pv_entry *const *)a;
    const pv_entry *const y = *(const pv_entry *const *)b;
    const int k = cmp_key(x, y);
    return k != 0 ? k : (x->bin > y->bin) - (x->bin < y->bin);
}

static int same_key(const pv_entry *a, const pv_entry *b)
{
    return a->kind == b->kind && a->row == b->row && a->row_to == b->row_to && a->cat == b->cat;
}

/* The used entries of s in cell order (util_malloc'ed), NULL when out of memory. */
static const pv_entry **sorted_cells(const pv_summary *s)
{
    const pv_entry **const v = util_malloc((s->used + 1) * sizeof(const pv_entry *));
    if (v == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < s->used; i++) {
        v[i] = &s->entries[i]; /* cmp_cell is a total order of the keys: any start order */
    }
    qsort(v, s->used, sizeof(const pv_entry *), cmp_cell);
    return v;
}

/* A cell's totals, smaller than an entry's: count; states and arrows zz
 * inclusive; states zz (inclusive - exclusive); counters as an entry.
 * Durations' min and max are the group's (encode_groups). */
static uint8_t *encode_cell(uint8_t *p, const pv_entry *e)
{
    if (e->kind == SLOG_KIND_COUNTER) {
        return encode_fields(p, e);
    }
    p = codec_varint_put(p, e->count);
    if (e->kind == SLOG_KIND_EVENT) {
        return p;
    }
    p = codec_varint_put(p, codec_zigzag(e->incl));
    if (e->kind == SLOG_KIND_STATE) {
        p = codec_varint_put(p, codec_zigzag(e->incl - e->excl));
    }
    return p;
}

/* States and arrows: the shortest and longest duration of cells v[i..j). */
static uint8_t *encode_group_range(uint8_t *p, const pv_entry **v, size_t i, size_t j)
{
    if (v[i]->kind != SLOG_KIND_STATE && v[i]->kind != SLOG_KIND_ARROW) {
        return p;
    }
    int64_t min = INT64_MAX, max = INT64_MIN;
    for (size_t c = i; c < j; c++) {
        min = v[c]->min < min ? v[c]->min : min;
        max = v[c]->max > max ? v[c]->max : max;
    }
    p = codec_varint_put(p, codec_zigzag(min));
    return codec_varint_put(p, (uint64_t)max - (uint64_t)min);
}

/* Write the groups of cells v[0..n) (bins relative to first) at p. */
static uint8_t *encode_groups(uint8_t *p, const pv_entry **v, size_t n, int64_t first)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && same_key(v[i], v[j])) {
            j++;
        }
        p = encode_key(p, v[i]);
        p = codec_varint_put(p, j - i);
        p = encode_group_range(p, v, i, j);
        int64_t prev = first;
        for (; i < j; i++) {
            p = codec_varint_put(p, (uint64_t)(v[i]->bin - prev));
            prev = v[i]->bin;
            p = encode_cell(p, v[i]);
        }
    }
    return p;
}

/* A bin section's header: the bin bounds first << k .. (first + span) << k
 * must be int64 ticks. */
static int bins_header_ok(uint32_t fold, uint64_t k, int64_t first, uint64_t span)
{
    if (fold > PV_FOLD_MAX || k > PV_BINS_KMAX || span == 0 || span > PV_BINS_MAX) {
        return 0;
    }
    const int64_t limit = INT64_MAX >> k;
    return first >= -limit && first <= limit - (int64_t)span;
}

/* Append the bin section of the binned summary s (NULL: an empty one). */
static int pv_bins_encode(const pv_summary *s, util_buf *out)
{
    if (s == NULL || s->used == 0) {
        if (util_buf_reserve(out, 1) != 0) {
            return -1;
        }
        out->data[out->len++] = 0;
        return 0;
    }
    const pv_entry **const v = sorted_cells(s);
    if (v == NULL || util_buf_reserve(out, s->used * 96 + 64) != 0) {
        util_free((void *)v);
        return -1;
    }
    size_t groups = 0;
    for (size_t i = 0; i < s->used; i++) {
        groups += i == 0 || !same_key(v[i - 1], v[i]);
    }
    const int64_t first = pv_bin_of(s->lo, s->k);
    const uint64_t span = (uint64_t)(pv_bin_of(s->hi, s->k) - first) + 1;
    if (!bins_header_ok(s->fold, s->k, first, span)) {
        util_free((void *)v); /* times near the ends of int64: no bins */
        return pv_bins_encode(NULL, out);
    }
    uint8_t *p = out->data + out->len;
    p = codec_varint_put(p, groups);
    p = codec_varint_put(p, s->fold);
    p = codec_varint_put(p, s->k);
    p = codec_varint_put(p, codec_zigzag(first));
    p = codec_varint_put(p, span);
    p = encode_groups(p, v, s->used, first);
    out->len = (size_t)(p - out->data);
    util_free((void *)v);
    return 0;
}

size_t pv_bins_encoded_size(const pv_summary *s)
{
    util_buf b;
    memset(&b, 0, sizeof b);
    const size_t n = pv_bins_encode(s, &b) == 0 ? b.len : SIZE_MAX;
    util_buf_free(&b);
    return n;
}

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
    const size_t cap = probe_cap(s->used);
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
    p->by_cat = sorted_cells(s);
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
        for (; *i < s->used && same_key(e, p->by_cat[*i]); ++*i) {
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
    if (s->used == 0 || !bins_header_ok(s->fold, k, first, b.span)) {
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
            map_category(s, e->cat) == e->cat) {
            rc = drop_category(s, e->cat);
        }
    }
    plan_free(&p);
    return rc == 0 ? rekey(s, ctx, s->fold, s->k + d) : rc;
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
    if (s->used > 0 && rehash(dst, cap_for(s->used)) != 0) {
        return -1;
    }
    for (size_t i = 0; i < s->used; i++) {
        const pv_entry *const e = &s->entries[i];
        pv_entry *const o =
            lookup(dst, e->kind, e->row, e->row_to, PV_CATEGORY_OTHER, pv_bin_of(e->bin, d));
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
        if (cat != PV_CATEGORY_OTHER && map_category(s, cat) == cat &&
            drop_category(s, cat) != 0) {
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
            return refold(s, ctx, to);
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
        } else if (distinct_categories(s) > 0) {
            rc = fold_all_categories(s, ctx);
        } else if (!can_rekey(s) && s->fold < PV_FOLD_MAX) {
            rc = refold(s, ctx, s->fold + 1); /* once bins cannot widen */
        } else if (can_rekey(s)) {
            rc = rekey(s, ctx, s->fold, s->k + 1);
        } else {
            return 0; /* one row, one bin, one category per kind */
        }
        if (rc != 0) {
            return -1;
        }
    }
}

int pv_encode(const pv_summary *s, util_buf *out)
{
    return pv_encode_binned(s, NULL, out);
}

int pv_encode_binned(const pv_summary *s, const pv_summary *bins, util_buf *out)
{
    return pv_encode_all(s, bins, NULL, out);
}

size_t pv_tl_encoded_size(const pv_summary *tls)
{
    if (tls == NULL) {
        return 1;
    }
    size_t n = codec_varint_len(tls->used + 1);
    for (size_t i = 0; i < tls->used; i++) {
        n += 1 + codec_varint_len(tls->entries[i].row) + fields_size(&tls->entries[i]);
    }
    return n;
}

/* Append the timeline section of tls (NULL: "none"). */
static int pv_tl_encode(const pv_summary *tls, util_buf *out)
{
    const size_t size = pv_tl_encoded_size(tls);
    if (util_buf_reserve(out, size) != 0) {
        return -1;
    }
    uint8_t *p = out->data + out->len;
    if (tls == NULL) {
        *p = 0;
        out->len++;
        return 0;
    }
    p = codec_varint_put(p, tls->used + 1);
    for (size_t i = 0; i < tls->cap; i++) {
        const pv_entry *const e = slot_entry(tls, i);
        if (e != NULL) {
            *p++ = e->kind;
            p = encode_fields(codec_varint_put(p, e->row), e);
        }
    }
    out->len += size;
    return 0;
}

int pv_encode_all(const pv_summary *s, const pv_summary *bins, const pv_summary *tls,
                  util_buf *out)
{
    const size_t size = pv_encoded_size(s) - 2; /* without the two trailing sections */
    if (util_buf_reserve(out, size) != 0) {
        return -1;
    }
    uint8_t *p = out->data + out->len;
    *p++ = PV_BLOB_PREVIEW;
    *p++ = PV_BLOB_VERSION;
    p = codec_varint_put(p, s->fold);
    p = codec_varint_put(p, s->used);
    for (size_t i = 0; i < s->cap; i++) {
        const pv_entry *const e = slot_entry(s, i);
        if (e != NULL) {
            p = encode_entry(p, e);
        }
    }
    out->len += size;
    return pv_bins_encode(bins, out) != 0 ? -1 : pv_tl_encode(tls, out);
}

typedef struct pdec {
    const uint8_t *p, *end;
    int bad;
} pdec;

static uint64_t pget(pdec *d)
{
    uint64_t v = 0;
    if (!d->bad && codec_varint_get(&d->p, d->end, &v) != 0) {
        d->bad = 1;
    }
    return v;
}

static uint32_t pget32(pdec *d)
{
    const uint64_t v = pget(d);
    d->bad |= v > UINT32_MAX;
    return (uint32_t)v;
}

static double pget_f64(pdec *d)
{
    double v = 0;
    if (d->bad || d->end - d->p < 8) {
        d->bad = 1;
        return v;
    }
    uint64_t bits = 0;
    for (int b = 0; b < 8; b++) {
        bits |= (uint64_t)d->p[b] << (8 * b);
    }
    d->p += 8;
    memcpy(&v, &bits, 8);
    return v;
}

static void decode_key(pdec *d, pv_entry *v)
{
    memset(v, 0, sizeof *v);
    if (d->p >= d->end) {
        d->bad = 1;
        return;
    }
    const uint8_t kind = *d->p++;
    d->bad |= kind > SLOG_KIND_COUNTER;
    v->used = 1;
    v->kind = kind;
    v->row = pget32(d);
    v->row_to = kind == SLOG_KIND_ARROW ? pget32(d) : v->row;
    const uint64_t cat = pget(d);
    d->bad |= cat > (uint64_t)UINT32_MAX + 1;
    v->cat = cat == 0 ? PV_CATEGORY_OTHER : (uint32_t)(cat - 1);
}

static void decode_fields(pdec *d, pv_entry *v)
{
    const uint8_t kind = v->kind;
    v->count = pget(d);
    if (kind == SLOG_KIND_STATE || kind == SLOG_KIND_ARROW) {
        v->incl = codec_unzigzag(pget(d));
        if (kind == SLOG_KIND_STATE) {
            v->excl = codec_unzigzag(pget(d));
        }
        v->min = codec_unzigzag(pget(d));
        v->max = codec_unzigzag(pget(d));
    } else if (kind == SLOG_KIND_COUNTER) {
        v->vmin = pget_f64(d);
        v->vmax = pget_f64(d);
        v->vsum = pget_f64(d);
        v->vlast = pget_f64(d);
        v->last_time = codec_unzigzag(pget(d));
    }
}

static void decode_entry(pdec *d, pv_entry *v)
{
    decode_key(d, v);
    if (!d->bad) {
        decode_fields(d, v);
    }
}

static void decode_cell(pdec *d, pv_entry *v)
{
    if (v->kind == SLOG_KIND_COUNTER) {
        decode_fields(d, v);
        return;
    }
    v->count = pget(d);
    if (v->kind == SLOG_KIND_EVENT) {
        return;
    }
    v->incl = codec_unzigzag(pget(d));
    if (v->kind == SLOG_KIND_STATE) {
        v->excl = (int64_t)((uint64_t)v->incl - (uint64_t)codec_unzigzag(pget(d)));
    }
}

/* Decode the m cells of one group (key in *key) onto acc->cells[acc->n..)
 * (room made by the caller); bins first .. first + span - 1. */
static void decode_cells(pdec *d, const pv_entry *key, uint64_t m, int64_t first, uint64_t span,
                         pv_bins *acc)
{
    uint64_t off = 0;
    for (uint64_t c = 0; c < m && !d->bad; c++) {
        const uint64_t delta = pget(d);
        d->bad |= (c > 0 && delta == 0) || delta >= span - (c > 0 ? off : 0);
        if (d->bad) {
            break; /* off + delta would leave the span (and int64) */
        }
        off = c > 0 ? off + delta : delta;
        pv_entry *const v = &acc->cells[acc->n++];
        *v = *key;
        v->bin = first + (int64_t)off;
        decode_cell(d, v);
    }
}

/* A group's key (the group's min/max duration for states and arrows) and
 * its cell count *m. */
static void decode_group(pdec *d, pv_entry *key, uint64_t *m)
{
    decode_key(d, key);
    *m = pget(d);
    if (key->kind == SLOG_KIND_STATE || key->kind == SLOG_KIND_ARROW) {
        key->min = codec_unzigzag(pget(d)); /* the group's: every cell gets it */
        key->max = (int64_t)((uint64_t)key->min + pget(d));
    }
}

/* Decode the bin section (version 2) into *bins (NULL: validate only). */
static int decode_bins(pdec *d, pv_bins *bins)
{
    const uint64_t groups = pget(d);
    if (d->bad || groups == 0) {
        return d->bad ? SLOG_ECORRUPT : SLOG_OK;
    }
    const uint32_t fold = pget32(d);
    const uint64_t k = pget(d);
    const int64_t first = codec_unzigzag(pget(d));
    const uint64_t span = pget(d);
    if (d->bad || !bins_header_ok(fold, k, first, span) || groups > (uint64_t)(d->end - d->p)) {
        return SLOG_ECORRUPT;
    }
    pv_bins acc = {NULL, 0, fold, (uint32_t)k};
    size_t cap = 0;
    for (uint64_t g = 0; g < groups && !d->bad; g++) {
        pv_entry key;
        uint64_t m = 0;
        decode_group(d, &key, &m);
        /* groups come in strictly ascending key order (one group per key) */
        d->bad |= m == 0 || m > span || m > (uint64_t)(d->end - d->p) ||
                  (acc.n > 0 && cmp_key(&acc.cells[acc.n - 1], &key) >= 0);
        if (d->bad) {
            break;
        }
        void *grown = acc.cells;
        if (util_grow(&grown, &cap, (size_t)acc.n + (size_t)m, sizeof *acc.cells) != 0) {
            util_free(acc.cells);
            return SLOG_ENOMEM;
        }
        acc.cells = grown;
        decode_cells(d, &key, m, first, span, &acc);
    }
    if (d->bad || bins == NULL) {
        util_free(acc.cells);
        return d->bad ? SLOG_ECORRUPT : SLOG_OK;
    }
    *bins = acc;
    return SLOG_OK;
}

int pv_decode(const uint8_t *p, size_t len, pv_entry **out, uint64_t *n, uint32_t *fold,
              uint64_t *bad_offset)
{
    pv_list l;
    const int rc = pv_decode_binned(p, len, &l, NULL, bad_offset);
    *out = l.v;
    *n = l.n;
    *fold = l.fold;
    return rc;
}

/* Decode the timeline section (version 3) into *tls (NULL: validate only). */
static int decode_tls(pdec *d, pv_tls *tls)
{
    const uint64_t m = pget(d);
    if (d->bad || m == 0) {
        return d->bad ? SLOG_ECORRUPT : SLOG_OK;
    }
    if (m - 1 > (uint64_t)(d->end - d->p) / 2) {
        d->bad = 1;
        return SLOG_ECORRUPT;
    }
    pv_entry *const v = util_calloc((size_t)(m - 1) + 1, sizeof *v);
    if (v == NULL) {
        return SLOG_ENOMEM;
    }
    for (uint64_t i = 0; i + 1 < m && !d->bad; i++) {
        if (d->p >= d->end || *d->p > SLOG_KIND_COUNTER) {
            d->bad = 1;
            break;
        }
        v[i].used = 1;
        v[i].kind = *d->p++;
        v[i].row = v[i].row_to = pget32(d);
        v[i].cat = PV_CATEGORY_OTHER;
        decode_fields(d, &v[i]);
    }
    if (d->bad || tls == NULL) {
        util_free(v);
        return d->bad ? SLOG_ECORRUPT : SLOG_OK;
    }
    *tls = (pv_tls){v, m - 1, 1};
    return SLOG_OK;
}

int pv_decode_binned(const uint8_t *p, size_t len, pv_list *out, pv_bins *bins,
                     uint64_t *bad_offset)
{
    return pv_decode_all(p, len, out, bins, NULL, bad_offset);
}

/* The sections after the entries: bins (version 2 on), timelines (3). */
static int decode_sections(pdec *d, uint8_t version, pv_bins *bins, pv_tls *tls)
{
    int rc = version >= 2 ? decode_bins(d, bins) : SLOG_OK;
    if (rc == SLOG_OK && version >= 3) {
        rc = decode_tls(d, tls);
    }
    if (rc == SLOG_OK && version >= 2 && d->p != d->end) {
        rc = SLOG_ECORRUPT; /* version 1 was never checked for trailing bytes */
    }
    if (rc != SLOG_OK && bins != NULL) {
        util_free(bins->cells);
        memset(bins, 0, sizeof *bins);
    }
    if (rc != SLOG_OK && tls != NULL) {
        util_free(tls->v);
        memset(tls, 0, sizeof *tls);
    }
    return rc;
}

int pv_decode_all(const uint8_t *p, size_t len, pv_list *out, pv_bins *bins, pv_tls *tls,
                  uint64_t *bad_offset)
{
    memset(out, 0, sizeof *out);
    if (bins != NULL) {
        memset(bins, 0, sizeof *bins);
    }
    if (tls != NULL) {
        memset(tls, 0, sizeof *tls);
    }
    pdec d = {p, p + len, 0};
    if (len < 2 || p[0] != PV_BLOB_PREVIEW || p[1] < 1 || p[1] > PV_BLOB_VERSION) {
        *bad_offset = 0;
        return SLOG_ECORRUPT;
    }
    d.p += 2;
    const uint32_t fold = pget32(&d);
    const uint64_t count = pget(&d);
    if (d.bad || fold > PV_FOLD_MAX || count > len / 4) {
        *bad_offset = (uint64_t)(d.p - p);
        return SLOG_ECORRUPT;
    }
    pv_entry *const v = util_calloc((size_t)count, sizeof *v);
    if (v == NULL) {
        return SLOG_ENOMEM;
    }
    for (uint64_t i = 0; i < count && !d.bad; i++) {
        decode_entry(&d, &v[i]);
    }
    const int rc = d.bad ? SLOG_ECORRUPT : decode_sections(&d, p[1], bins, tls);
    if (rc != SLOG_OK) {
        *bad_offset = (uint64_t)(d.p - p);
        util_free(v);
        return rc;
    }
    *out = (pv_list){v, count, fold};
    return SLOG_OK;
}
