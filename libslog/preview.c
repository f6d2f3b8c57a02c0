/* SPDX-License-Identifier: MIT
 *
 * preview.c - subtree summaries: an open-addressing hash keyed by
 * (kind, row, row_to, category), exact int64 time sums, folding of rows
 * and rare categories to a size budget, and the preview blob codec.
 * Layer 3: may use codec and util.
 */
#include "preview.h"

#include "codec_varint.h"
#include "util_alloc.h"

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
}

void pv_reset(pv_summary *s)
{
    if (s->cap > 0) {
        memset(s->slots, 0, s->cap * sizeof *s->slots);
    }
    if (s->ndropped > 0) {
        memset(s->dropped, 0, s->ndropped);
    }
    s->used = 0;
    s->fold = 0;
}

void pv_free(pv_summary *s)
{
    util_free(s->slots);
    util_free(s->dropped);
    pv_init(s);
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

static size_t hash_key(uint8_t kind, uint32_t row, uint32_t row_to, uint32_t cat)
{
    uint64_t h = ((uint64_t)row << 32 | cat) * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)row_to << 8 | kind) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    return (size_t)h;
}

static int rehash(pv_summary *s, size_t ncap)
{
    pv_entry *const slots = util_calloc(ncap, sizeof *slots);
    if (slots == NULL) {
        return -1;
    }
    for (size_t i = 0; i < s->cap; i++) {
        const pv_entry *const e = &s->slots[i];
        if (!e->used) {
            continue;
        }
        size_t j = hash_key(e->kind, e->row, e->row_to, e->cat) & (ncap - 1);
        while (slots[j].used) {
            j = (j + 1) & (ncap - 1);
        }
        slots[j] = *e;
    }
    util_free(s->slots);
    s->slots = slots;
    s->cap = ncap;
    return 0;
}

/* Find or insert the entry for a key (row already folded). */
static pv_entry *lookup(pv_summary *s, uint8_t kind, uint32_t row, uint32_t row_to, uint32_t cat)
{
    if ((s->used + 1) * 10 > s->cap * 7 && rehash(s, s->cap ? s->cap * 2 : 64) != 0) {
        return NULL;
    }
    size_t j = hash_key(kind, row, row_to, cat) & (s->cap - 1);
    for (;;) {
        pv_entry *const e = &s->slots[j];
        if (!e->used) {
            memset(e, 0, sizeof *e);
            e->used = 1;
            e->kind = kind;
            e->row = row;
            e->row_to = row_to;
            e->cat = cat;
            e->min = INT64_MAX;
            e->max = INT64_MIN;
            e->last_time = INT64_MIN;
            s->used++;
            return e;
        }
        if (e->kind == kind && e->row == row && e->row_to == row_to && e->cat == cat) {
            return e;
        }
        j = (j + 1) & (s->cap - 1);
    }
}

static void add_duration(pv_entry *e, int64_t dur)
{
    e->count++;
    e->incl += dur;
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
    pv_entry *const e = lookup(s, SLOG_KIND_STATE, row, row, map_category(s, cat));
    if (e == NULL) {
        return -1;
    }
    add_duration(e, dur);
    e->excl += excl;
    return 0;
}

int pv_add_event(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat)
{
    const uint32_t row = pv_fold_row(ctx, tl, 0, s->fold);
    pv_entry *const e = lookup(s, SLOG_KIND_EVENT, row, row, map_category(s, cat));
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
    pv_entry *const e = lookup(s, SLOG_KIND_ARROW, r0, r1, map_category(s, cat));
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

int pv_add_counter(pv_summary *s, const pv_fold_ctx *ctx, uint32_t tl, uint32_t cat,
                   int64_t time, double value)
{
    const uint32_t row = pv_fold_row(ctx, tl, 0, s->fold);
    pv_entry *const e = lookup(s, SLOG_KIND_COUNTER, row, row, map_category(s, cat));
    if (e == NULL) {
        return -1;
    }
    pv_entry one;
    memset(&one, 0, sizeof one);
    one.count = 1;
    one.vmin = one.vmax = one.vsum = one.vlast = value;
    one.last_time = time;
    add_counter_values(e, &one);
    return 0;
}

/* Merge entry src (rows at level `from`) into s. */
static int merge_entry(pv_summary *s, const pv_fold_ctx *ctx, const pv_entry *src, uint32_t from)
{
    const uint32_t row = pv_fold_row(ctx, src->row, from, s->fold);
    const uint32_t row_to = pv_fold_row(ctx, src->row_to, from, s->fold);
    pv_entry *const e = lookup(s, src->kind, row, row_to, map_category(s, src->cat));
    if (e == NULL) {
        return -1;
    }
    if (src->kind == SLOG_KIND_COUNTER) {
        add_counter_values(e, src);
        return 0;
    }
    e->count += src->count;
    e->incl += src->incl;
    e->excl += src->excl;
    if (src->min < e->min) {
        e->min = src->min;
    }
    if (src->max > e->max) {
        e->max = src->max;
    }
    return 0;
}

/* Re-key every entry to fold level `to` (or map categories with `keep`). */
/* Re-key every entry to fold level `to` and to the current dropped map. */
static int refold(pv_summary *s, const pv_fold_ctx *ctx, uint32_t to)
{
    pv_summary old = *s;
    pv_init(s);
    s->fold = to;
    s->dropped = old.dropped;
    s->ndropped = old.ndropped;
    int rc = 0;
    for (size_t i = 0; i < old.cap && rc == 0; i++) {
        if (old.slots[i].used) {
            rc = merge_entry(s, ctx, &old.slots[i], old.fold);
        }
    }
    if (rc != 0) {
        util_free(s->slots);
        *s = old;
        return -1;
    }
    util_free(old.slots);
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
    if (src->fold > dst->fold && refold(dst, ctx, src->fold) != 0) {
        return -1;
    }
    for (size_t i = 0; i < src->cap; i++) {
        if (src->slots[i].used && merge_entry(dst, ctx, &src->slots[i], src->fold) != 0) {
            return -1;
        }
    }
    return 0;
}

static size_t entry_size(const pv_entry *e)
{
    size_t n = 1 + codec_varint_len(e->row) + codec_varint_len((uint64_t)e->cat + 1) +
               codec_varint_len(e->count);
    const size_t durations = codec_varint_len(codec_zigzag(e->incl)) +
                             codec_varint_len(codec_zigzag(e->min)) +
                             codec_varint_len(codec_zigzag(e->max));
    switch (e->kind) {
    case SLOG_KIND_STATE:
        n += durations + codec_varint_len(codec_zigzag(e->excl));
        break;
    case SLOG_KIND_ARROW:
        n += durations + codec_varint_len(e->row_to);
        break;
    case SLOG_KIND_COUNTER:
        n += 32 + codec_varint_len(codec_zigzag(e->last_time));
        break;
    default:
        break;
    }
    return n;
}

size_t pv_encoded_size(const pv_summary *s)
{
    size_t n = 2 + codec_varint_len(s->fold) + codec_varint_len(s->used);
    for (size_t i = 0; i < s->cap; i++) {
        if (s->slots[i].used) {
            n += entry_size(&s->slots[i]);
        }
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

/* Keep the most used categories whose entries fill 3/4 of the budget (the
 * rest is left for the "other" entries) and fold all others into
 * PV_CATEGORY_OTHER, in one pass. */
static int fold_rare_categories(pv_summary *s, const pv_fold_ctx *ctx, size_t budget)
{
    uint32_t maxcat = 0;
    for (size_t i = 0; i < s->cap; i++) {
        if (s->slots[i].used && s->slots[i].cat != PV_CATEGORY_OTHER &&
            s->slots[i].cat + 1 > maxcat) {
            maxcat = s->slots[i].cat + 1;
        }
    }
    cat_weight *const w = util_calloc(maxcat, sizeof *w);
    int rc = -1;
    if (w == NULL) {
        goto out;
    }
    for (uint32_t c = 0; c < maxcat; c++) {
        w[c].cat = c;
    }
    for (size_t i = 0; i < s->cap; i++) {
        const pv_entry *const e = &s->slots[i];
        if (e->used && e->cat != PV_CATEGORY_OTHER) {
            w[e->cat].weight += e->count + 1;
            w[e->cat].bytes += entry_size(e);
        }
    }
    qsort(w, maxcat, sizeof *w, cmp_weight);
    uint64_t used = 0;
    size_t r = 0;
    while (r < maxcat && w[r].weight > 0 && used + w[r].bytes <= budget / 4 * 3) {
        used += w[r++].bytes;
    }
    for (; r < maxcat && w[r].weight > 0; r++) {
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
    for (size_t i = 0; i < s->cap && n < 64; i++) {
        if (!s->slots[i].used || s->slots[i].cat == PV_CATEGORY_OTHER) {
            continue;
        }
        size_t j = 0;
        while (j < n && seen[j] != s->slots[i].cat) {
            j++;
        }
        if (j == n) {
            seen[n++] = s->slots[i].cat;
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

static uint8_t *encode_entry(uint8_t *p, const pv_entry *e)
{
    *p++ = e->kind;
    p = codec_varint_put(p, e->row);
    if (e->kind == SLOG_KIND_ARROW) {
        p = codec_varint_put(p, e->row_to);
    }
    p = codec_varint_put(p, (uint64_t)e->cat + 1);
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

int pv_encode(const pv_summary *s, util_buf *out)
{
    const size_t size = pv_encoded_size(s);
    if (util_buf_reserve(out, size) != 0) {
        return -1;
    }
    uint8_t *p = out->data + out->len;
    *p++ = PV_BLOB_PREVIEW;
    *p++ = PV_BLOB_VERSION;
    p = codec_varint_put(p, s->fold);
    p = codec_varint_put(p, s->used);
    for (size_t i = 0; i < s->cap; i++) {
        if (s->slots[i].used) {
            p = encode_entry(p, &s->slots[i]);
        }
    }
    out->len += size;
    return 0;
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

static void decode_entry(pdec *d, pv_entry *v)
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

int pv_decode(const uint8_t *p, size_t len, pv_entry **out, uint64_t *n, uint32_t *fold,
              uint64_t *bad_offset)
{
    *out = NULL;
    *n = 0;
    pdec d = {p, p + len, 0};
    if (len < 2 || p[0] != PV_BLOB_PREVIEW || p[1] != PV_BLOB_VERSION) {
        *bad_offset = 0;
        return SLOG_ECORRUPT;
    }
    d.p += 2;
    *fold = pget32(&d);
    const uint64_t count = pget(&d);
    if (d.bad || *fold > PV_FOLD_MAX || count > len / 4) {
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
    if (d.bad) {
        *bad_offset = (uint64_t)(d.p - p);
        util_free(v);
        return SLOG_ECORRUPT;
    }
    *out = v;
    *n = count;
    return SLOG_OK;
}
