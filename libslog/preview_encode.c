/* SPDX-License-Identifier: MIT
 *
 * preview_encode.c - the preview blob's writer (bytes in preview.h and
 * doc/FORMAT.md 10.3): the node-level entries in slot order, the bin
 * section (cells sorted by key then bin, one group per key, bins as
 * deltas), then the timeline section; and the exact encoded sizes that
 * fitting to a budget relies on.
 * Layer 3: may use codec and util.
 */
#include "preview_int.h"

#include "codec_varint.h"
#include "util_alloc.h"

#include <stdlib.h>
#include <string.h>

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

/* entry_size for the other files; pv_encoded_size keeps the static one,
 * which a build without LTO inlines into its loop. */
size_t pv_entry_size(const pv_entry *e)
{
    return entry_size(e);
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
int pv_cmp_key(const pv_entry *x, const pv_entry *y)
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
    const int k = pv_cmp_key(x, y);
    return k != 0 ? k : (x->bin > y->bin) - (x->bin < y->bin);
}

int pv_same_key(const pv_entry *a, const pv_entry *b)
{
    return a->kind == b->kind && a->row == b->row && a->row_to == b->row_to && a->cat == b->cat;
}

/* The used entries of s in cell order (util_malloc'ed), NULL when out of memory. */
const pv_entry **pv_sorted_cells(const pv_summary *s)
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
        while (j < n && pv_same_key(v[i], v[j])) {
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
int pv_bins_header_ok(uint32_t fold, uint64_t k, int64_t first, uint64_t span)
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
    const pv_entry **const v = pv_sorted_cells(s);
    if (v == NULL || util_buf_reserve(out, s->used * 96 + 64) != 0) {
        util_free((void *)v);
        return -1;
    }
    size_t groups = 0;
    for (size_t i = 0; i < s->used; i++) {
        groups += i == 0 || !pv_same_key(v[i - 1], v[i]);
    }
    const int64_t first = pv_bin_of(s->lo, s->k);
    const uint64_t span = (uint64_t)(pv_bin_of(s->hi, s->k) - first) + 1;
    if (!pv_bins_header_ok(s->fold, s->k, first, span)) {
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
        const pv_entry *const e = pv_slot_entry(tls, i);
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
        const pv_entry *const e = pv_slot_entry(s, i);
        if (e != NULL) {
            p = encode_entry(p, e);
        }
    }
    out->len += size;
    return pv_bins_encode(bins, out) != 0 ? -1 : pv_tl_encode(tls, out);
}
