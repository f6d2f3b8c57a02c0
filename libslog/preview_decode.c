/* SPDX-License-Identifier: MIT
 *
 * preview_decode.c - the preview blob's reader (versions 1 to 3).  The
 * bytes are untrusted: every varint is range-checked, kinds must be known,
 * counts bounded by the bytes left, bin groups in strictly ascending key
 * order with their bins inside the header's span, and from version 2 on
 * nothing may trail; a bad blob gives SLOG_ECORRUPT and the offset where
 * decoding stopped, and frees what it had decoded.
 * Layer 3: may use codec and util.
 */
#include "preview_int.h"

#include "codec_varint.h"
#include "util_alloc.h"

#include <string.h>

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
    if (d->bad || !pv_bins_header_ok(fold, k, first, span) || groups > (uint64_t)(d->end - d->p)) {
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
                  (acc.n > 0 && pv_cmp_key(&acc.cells[acc.n - 1], &key) >= 0);
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
