/* SPDX-License-Identifier: MIT
 *
 * check_bins.c - time bins of previews (preview.c): on random drawables,
 * the cells of a binned summary sum to the node-level totals and match a
 * brute-force count per (key, bin); bins are 2^k ticks with k the smallest
 * giving at most PV_BINS_MAX bins; merging two summaries shifts bins
 * exactly; fitting to a budget keeps every total; the version-2 blob
 * round-trips, a damaged one is rejected, a version-1 blob still decodes.
 * Uses libslog's internal headers (layer 3).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "preview.h"
#include "util_alloc.h"

#define NTL 12
#define NCAT 9

typedef struct drawable {
    uint8_t kind;
    uint32_t tl, to, cat;
    int64_t start, end, excl;
    double value;
} drawable;

static uint32_t parent[NTL], root[NTL];

static pv_fold_ctx make_ctx(void)
{
    for (uint32_t i = 0; i < NTL; i++) {
        parent[i] = i < 3 ? SLOG_NO_PARENT : i % 3; /* 3 processes, 9 threads */
        root[i] = i < 3 ? i : i % 3;
    }
    return (pv_fold_ctx){parent, root, NTL};
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* n random drawables over [base, base + span). */
static drawable *random_drawables(uint64_t seed, size_t n, int64_t base, int64_t span)
{
    drawable *const d = calloc(n, sizeof *d);
    ck_assert_ptr_nonnull(d);
    uint64_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        d[i].kind = (uint8_t)(rng_next(&s) % 4);
        d[i].tl = (uint32_t)(rng_next(&s) % NTL);
        d[i].to = (uint32_t)(rng_next(&s) % NTL);
        d[i].cat = (uint32_t)(rng_next(&s) % NCAT);
        d[i].start = base + (int64_t)(rng_next(&s) % (uint64_t)span);
        const int64_t dur = d[i].kind == SLOG_KIND_STATE || d[i].kind == SLOG_KIND_ARROW
                                ? (int64_t)(rng_next(&s) % 5000)
                                : 0;
        d[i].end = d[i].start + dur;
        d[i].excl = dur / 2;
        d[i].value = (double)(rng_next(&s) % 1000) - 500.0;
    }
    return d;
}

static void add_one(pv_summary *sum, pv_summary *bins, const pv_fold_ctx *ctx, const drawable *x)
{
    switch (x->kind) {
    case SLOG_KIND_STATE:
        ck_assert_int_eq(pv_add_state(sum, ctx, x->tl, x->cat, x->end - x->start, x->excl), 0);
        ck_assert_int_eq(pv_bins_add_state(bins, ctx, (pv_bin_key){x->tl, x->tl, x->cat}, x->start,
                                           x->end, x->excl),
                         0);
        break;
    case SLOG_KIND_EVENT:
        ck_assert_int_eq(pv_add_event(sum, ctx, x->tl, x->cat), 0);
        ck_assert_int_eq(pv_bins_add_event(bins, ctx, x->tl, x->cat, x->start), 0);
        break;
    case SLOG_KIND_ARROW:
        ck_assert_int_eq(pv_add_arrow(sum, ctx, x->tl, x->to, x->cat, x->end - x->start), 0);
        ck_assert_int_eq(
            pv_bins_add_arrow(bins, ctx, (pv_bin_key){x->tl, x->to, x->cat}, x->start, x->end), 0);
        break;
    default:
        ck_assert_int_eq(pv_add_counter(sum, ctx, x->tl, x->cat, x->start, x->value), 0);
        ck_assert_int_eq(pv_bins_add_counter(bins, ctx, x->tl, x->cat, x->start, x->value), 0);
        break;
    }
}

typedef struct decoded {
    pv_list l;
    pv_bins bins;
} decoded;

static void encode_decode(const pv_summary *sum, const pv_summary *bins, decoded *out)
{
    util_buf b = {0};
    ck_assert_int_eq(pv_encode_binned(sum, bins, &b), 0);
    ck_assert_uint_eq(b.len, pv_encoded_size(sum) - 1 + pv_bins_encoded_size(bins));
    ck_assert_uint_eq(b.data[1], PV_BLOB_VERSION);
    uint64_t bad = 0;
    ck_assert_int_eq(pv_decode_binned(b.data, b.len, &out->l, &out->bins, &bad), SLOG_OK);
    for (size_t cut = 0; cut < b.len; cut += 1 + cut / 16) {
        pv_list l;
        ck_assert_int_eq(pv_decode_binned(b.data, cut, &l, NULL, &bad), SLOG_ECORRUPT);
    }
    util_buf_free(&b);
}

static void decoded_free(decoded *d)
{
    util_free(d->l.v);
    util_free(d->bins.cells);
}

static int same_key(const pv_entry *a, const pv_entry *b)
{
    return a->kind == b->kind && a->row == b->row && a->row_to == b->row_to && a->cat == b->cat;
}

/* Cells summed per key equal the node-level entry of that key. */
static void check_sums(const decoded *d)
{
    ck_assert_uint_eq(d->l.fold, d->bins.fold);
    for (uint64_t i = 0; i < d->l.n; i++) {
        pv_entry acc;
        memset(&acc, 0, sizeof acc);
        acc.kind = d->l.v[i].kind;
        acc.min = INT64_MAX;
        acc.max = INT64_MIN;
        acc.last_time = INT64_MIN;
        for (uint64_t c = 0; c < d->bins.n; c++) {
            if (same_key(&d->l.v[i], &d->bins.cells[c])) {
                pv_entry_add(&acc, &d->bins.cells[c]);
            }
        }
        ck_assert_uint_eq(acc.count, d->l.v[i].count);
        ck_assert_int_eq(acc.incl, d->l.v[i].incl);
        ck_assert_int_eq(acc.excl, d->l.v[i].excl);
        if (acc.kind == SLOG_KIND_STATE || acc.kind == SLOG_KIND_ARROW) {
            ck_assert_int_eq(acc.min, d->l.v[i].min);
            ck_assert_int_eq(acc.max, d->l.v[i].max);
        }
        if (acc.kind == SLOG_KIND_COUNTER) {
            ck_assert(acc.vsum == d->l.v[i].vsum && acc.vmin == d->l.v[i].vmin &&
                      acc.vmax == d->l.v[i].vmax && acc.vlast == d->l.v[i].vlast);
        }
    }
}

/* Brute force: a cell's count is the number of drawables of its key whose
 * start lies in [bin << k, (bin + 1) << k); rows at fold 0. */
static void check_cells(const decoded *d, const drawable *x, size_t n)
{
    uint64_t total = 0;
    for (uint64_t c = 0; c < d->bins.n; c++) {
        const pv_entry *const e = &d->bins.cells[c];
        uint64_t want = 0;
        for (size_t i = 0; i < n; i++) {
            want += x[i].kind == e->kind && x[i].tl == e->row && x[i].cat == e->cat &&
                    (x[i].kind != SLOG_KIND_ARROW || x[i].to == e->row_to) &&
                    pv_bin_of(x[i].start, d->bins.k) == e->bin;
        }
        ck_assert_uint_eq(e->count, want);
        total += want;
    }
    ck_assert_uint_eq(total, n);
}

START_TEST(test_bins_sum_to_node_totals)
{
    const pv_fold_ctx ctx = make_ctx();
    const int64_t spans[] = {7, 511, 512, 100000, 123456789};
    const int64_t span = spans[_i % 5];
    const int64_t base = _i % 2 ? -5000000 : 1000;
    const size_t n = 3000;
    drawable *const x = random_drawables((uint64_t)_i + 1, n, base, span);
    pv_summary sum, bins;
    pv_init(&sum);
    pv_init_binned(&bins);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        add_one(&sum, &bins, &ctx, &x[i]);
        lo = x[i].start < lo ? x[i].start : lo;
        hi = x[i].end > hi ? x[i].end : hi;
    }
    /* k: the smallest giving at most PV_BINS_MAX bins over the box */
    ck_assert_uint_eq(bins.k, pv_bins_kmin(lo, hi));
    ck_assert_int_le(pv_bin_of(hi, bins.k) - pv_bin_of(lo, bins.k), PV_BINS_MAX - 1);
    if (bins.k > 0) {
        ck_assert_int_gt(pv_bin_of(hi, bins.k - 1) - pv_bin_of(lo, bins.k - 1), PV_BINS_MAX - 1);
    }
    decoded d;
    encode_decode(&sum, &bins, &d);
    ck_assert_uint_eq(d.bins.k, bins.k);
    check_sums(&d);
    check_cells(&d, x, n);
    decoded_free(&d);
    pv_free(&sum);
    pv_free(&bins);
    free(x);
}
END_TEST

/* Cells as a sorted list of (key, bin, count, incl) for comparison. */
static int cmp_cells(const void *a, const void *b)
{
    const pv_entry *x = a, *y = b;
    const int64_t kx = (int64_t)x->kind << 56 | (int64_t)x->row << 40 | (int64_t)x->row_to << 24 |
                       (int64_t)(x->cat & 0xffffu);
    const int64_t ky = (int64_t)y->kind << 56 | (int64_t)y->row << 40 | (int64_t)y->row_to << 24 |
                       (int64_t)(y->cat & 0xffffu);
    if (kx != ky) {
        return kx < ky ? -1 : 1;
    }
    return (x->bin > y->bin) - (x->bin < y->bin);
}

START_TEST(test_bins_merge_shifts_exactly)
{
    const pv_fold_ctx ctx = make_ctx();
    const size_t n = 2000;
    /* two children of different widths, so different k, and the whole */
    drawable *const a = random_drawables(11u + (uint64_t)_i, n, 0, 3000 + 997 * _i);
    drawable *const b = random_drawables(77u + (uint64_t)_i, n, 3000 + 997 * _i, 400000);
    pv_summary sa, ba, sb, bb, sw, bw;
    pv_init(&sa);
    pv_init(&sb);
    pv_init(&sw);
    pv_init_binned(&ba);
    pv_init_binned(&bb);
    pv_init_binned(&bw);
    for (size_t i = 0; i < n; i++) {
        add_one(&sa, &ba, &ctx, &a[i]);
        add_one(&sb, &bb, &ctx, &b[i]);
        add_one(&sw, &bw, &ctx, &a[i]);
        add_one(&sw, &bw, &ctx, &b[i]);
    }
    ck_assert_uint_lt(ba.k, bb.k);
    ck_assert_int_eq(pv_merge(&ba, &bb, &ctx), 0);
    ck_assert_int_eq(pv_merge(&sa, &sb, &ctx), 0);
    ck_assert_uint_eq(ba.k, bw.k);
    ck_assert_uint_eq(ba.used, bw.used);
    decoded m, w;
    encode_decode(&sa, &ba, &m);
    encode_decode(&sw, &bw, &w);
    check_sums(&m);
    ck_assert_uint_eq(m.bins.n, w.bins.n);
    qsort(m.bins.cells, m.bins.n, sizeof *m.bins.cells, cmp_cells);
    qsort(w.bins.cells, w.bins.n, sizeof *w.bins.cells, cmp_cells);
    for (uint64_t c = 0; c < m.bins.n; c++) {
        ck_assert_int_eq(cmp_cells(&m.bins.cells[c], &w.bins.cells[c]), 0);
        ck_assert_uint_eq(m.bins.cells[c].count, w.bins.cells[c].count);
        ck_assert_int_eq(m.bins.cells[c].incl, w.bins.cells[c].incl);
        ck_assert_int_eq(m.bins.cells[c].excl, w.bins.cells[c].excl);
    }
    decoded_free(&m);
    decoded_free(&w);
    pv_free(&sa);
    pv_free(&sb);
    pv_free(&sw);
    pv_free(&ba);
    pv_free(&bb);
    pv_free(&bw);
    free(a);
    free(b);
}
END_TEST

/* Totals per kind over the cells of a decoded bin section. */
static void kind_totals(const pv_bins *b, uint64_t count[4], int64_t incl[4])
{
    memset(count, 0, 4 * sizeof *count);
    memset(incl, 0, 4 * sizeof *incl);
    for (uint64_t c = 0; c < b->n; c++) {
        count[b->cells[c].kind] += b->cells[c].count;
        incl[b->cells[c].kind] += b->cells[c].incl;
    }
}

START_TEST(test_bins_fit_keeps_totals)
{
    const pv_fold_ctx ctx = make_ctx();
    const size_t n = 5000;
    drawable *const x = random_drawables(5u, n, 1000, 10000000);
    pv_summary sum, bins;
    pv_init(&sum);
    pv_init_binned(&bins);
    for (size_t i = 0; i < n; i++) {
        add_one(&sum, &bins, &ctx, &x[i]);
    }
    decoded full;
    encode_decode(&sum, &bins, &full);
    uint64_t want_n[4], got_n[4];
    int64_t want_i[4], got_i[4];
    kind_totals(&full.bins, want_n, want_i);
    const uint32_t k0 = bins.k;
    const size_t budgets[] = {16384, 4096, 1024, 256, 16};
    for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
        ck_assert_int_eq(pv_bins_fit(&bins, &ctx, budgets[b]), 0);
        const size_t size = pv_bins_encoded_size(&bins);
        ck_assert_uint_ge(bins.k, k0);
        decoded d;
        encode_decode(&sum, &bins, &d);
        kind_totals(&d.bins, got_n, got_i);
        for (int k = 0; k < 4; k++) {
            ck_assert_uint_eq(got_n[k], want_n[k]);
            ck_assert_int_eq(got_i[k], want_i[k]);
        }
        int colour = 0;
        for (uint64_t c = 0; c < d.bins.n; c++) {
            colour |= d.bins.cells[c].cat != PV_CATEGORY_OTHER;
        }
        /* within budget; within 5/4 of it when categories stay (each kind
         * its main one); or nothing left to fold: one row, bin, category */
        ck_assert(size <= budgets[b] || (colour && size - budgets[b] <= budgets[b] / 4) ||
                  (bins.fold == PV_FOLD_MAX && bins.used <= 4));
        decoded_free(&d);
    }
    decoded_free(&full);
    pv_free(&sum);
    pv_free(&bins);
    free(x);
}
END_TEST

START_TEST(test_bins_blob_versions)
{
    const pv_fold_ctx ctx = make_ctx();
    pv_summary sum;
    pv_init(&sum);
    ck_assert_int_eq(pv_add_state(&sum, &ctx, 4, 2, 100, 60), 0);
    util_buf b = {0};
    ck_assert_int_eq(pv_encode(&sum, &b), 0);
    ck_assert_uint_eq(b.len, pv_encoded_size(&sum));
    ck_assert_uint_eq(b.data[b.len - 2], 0); /* an empty bin section */
    ck_assert_uint_eq(b.data[b.len - 1], 0); /* no timeline section */
    pv_list l;
    uint64_t bad = 0;
    pv_bins bins;
    /* version 1: the same entries, no bin section */
    b.data[1] = 1;
    ck_assert_int_eq(pv_decode_binned(b.data, b.len - 2, &l, &bins, &bad), SLOG_OK);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_uint_eq(bins.n, 0);
    ck_assert_int_eq(l.v[0].incl, 100);
    util_free(l.v);
    /* version 2 needs its bin section and nothing after it */
    b.data[1] = 2;
    ck_assert_int_eq(pv_decode_binned(b.data, b.len - 1, &l, &bins, &bad), SLOG_OK);
    util_free(l.v);
    ck_assert_int_eq(pv_decode_binned(b.data, b.len - 2, &l, &bins, &bad), SLOG_ECORRUPT);
    ck_assert_int_eq(pv_decode_binned(b.data, b.len, &l, &bins, &bad), SLOG_ECORRUPT);
    /* version 3 needs its timeline section too; 4 is unknown */
    b.data[1] = 3;
    ck_assert_int_eq(pv_decode_binned(b.data, b.len - 1, &l, &bins, &bad), SLOG_ECORRUPT);
    b.data[1] = 4;
    ck_assert_int_eq(pv_decode_binned(b.data, b.len, &l, &bins, &bad), SLOG_ECORRUPT);
    util_buf_free(&b);
    pv_free(&sum);
}
END_TEST

/* The timeline section (version 3) round-trips every kind's totals at fold
 * 0, whatever the entries' fold, and a cut section is rejected. */
START_TEST(test_bins_timeline_section_round_trip)
{
    const pv_fold_ctx ctx = make_ctx();
    pv_summary sum, tls;
    pv_init(&sum);
    pv_init(&tls);
    sum.fold = 2;
    ck_assert_int_eq(pv_add_state(&sum, &ctx, 4, 2, 100, 60), 0);
    ck_assert_int_eq(pv_add_state(&tls, &ctx, 4, 0, 100, 60), 0);
    ck_assert_int_eq(pv_add_state(&tls, &ctx, 5, 0, 7, 7), 0);
    ck_assert_int_eq(pv_add_event(&tls, &ctx, 5, 0), 0);
    ck_assert_int_eq(pv_add_arrow(&tls, &ctx, 3, 3, 0, 9), 0);
    ck_assert_int_eq(pv_add_counter(&tls, &ctx, 6, 0, 50, 2.5), 0);
    util_buf b = {0};
    ck_assert_int_eq(pv_encode_all(&sum, NULL, &tls, &b), 0);
    ck_assert_uint_eq(b.len, pv_encoded_size(&sum) - 1 + pv_tl_encoded_size(&tls));
    pv_list l;
    uint64_t bad = 0;
    pv_tls t;
    ck_assert_int_eq(pv_decode_all(b.data, b.len, &l, NULL, &t, &bad), SLOG_OK);
    ck_assert_uint_eq(l.fold, 2);
    ck_assert(t.present);
    ck_assert_uint_eq(t.n, 5);
    uint64_t count[4] = {0};
    int64_t incl = 0, excl = 0;
    for (uint64_t i = 0; i < t.n; i++) {
        count[t.v[i].kind] += t.v[i].count;
        incl += t.v[i].kind == SLOG_KIND_STATE ? t.v[i].incl : 0;
        excl += t.v[i].kind == SLOG_KIND_STATE ? t.v[i].excl : 0;
        ck_assert_uint_eq(t.v[i].cat, PV_CATEGORY_OTHER);
        if (t.v[i].kind == SLOG_KIND_COUNTER) {
            ck_assert(t.v[i].row == 6 && t.v[i].vsum == 2.5 && t.v[i].last_time == 50);
        }
        if (t.v[i].kind == SLOG_KIND_ARROW) {
            ck_assert(t.v[i].row == 3 && t.v[i].row_to == 3 && t.v[i].max == 9);
        }
    }
    ck_assert(count[0] == 2 && count[1] == 1 && count[2] == 1 && count[3] == 1);
    ck_assert(incl == 107 && excl == 67);
    util_free(l.v);
    util_free(t.v);
    for (size_t cut = 1; cut < b.len; cut++) {
        ck_assert_int_eq(pv_decode_all(b.data, b.len - cut, &l, NULL, &t, &bad), SLOG_ECORRUPT);
    }
    util_buf_free(&b);
    pv_free(&sum);
    pv_free(&tls);
}
END_TEST

/* A leaf shaped like the MPE corpus trace ring_big's (3 ranks, 12 state
 * categories of which 3 long ones hold most of the time, many short ones,
 * an arrow per cycle to the next rank, ~30 ms): fitting its bins to the
 * 6 KiB the writer gives them kept no category at all before (every cell
 * "other": the whole-trace view of ring_big was grey, finding F7).  Now the
 * bins stay at most 2^3 times the finest, the longest states keep their
 * colour, and every total is exact. */
START_TEST(test_bins_fit_keeps_main_colours)
{
    const pv_fold_ctx ctx = make_ctx();
    static const int64_t dur[12] = {40000, 35000, 38000, 12000, 100, 200, 130,
                                    2000,  3500,  6000,  150,   250};
    pv_summary sum, bins;
    pv_init(&sum);
    pv_init_binned(&bins);
    int64_t want_time = 0, main_time = 0;
    uint64_t want_n[4] = {0};
    for (uint32_t rank = 0; rank < 3; rank++) {
        for (int64_t t = 1000000 + rank * 77; t < 31000000;) {
            for (uint32_t c = 0; c < 12; c++) {
                const drawable st = {SLOG_KIND_STATE, rank, rank, c, t, t + dur[c], dur[c], 0};
                add_one(&sum, &bins, &ctx, &st);
                want_time += dur[c];
                main_time += c < 3 ? dur[c] : 0;
                want_n[SLOG_KIND_STATE]++;
                t += dur[c] + 100;
            }
            const drawable ar = {SLOG_KIND_ARROW, rank, (rank + 1) % 3, 12, t - 30000, t, 0, 0};
            add_one(&sum, &bins, &ctx, &ar);
            want_n[SLOG_KIND_ARROW]++;
        }
    }
    const uint32_t kmin = pv_bins_kmin(bins.lo, bins.hi);
    ck_assert_int_eq(pv_bins_fit(&bins, &ctx, 6144), 0);
    ck_assert_uint_le(pv_bins_encoded_size(&bins), 6144 + 6144 / 4);
    ck_assert_uint_le(bins.k, kmin + 3);
    decoded d;
    encode_decode(&sum, &bins, &d);
    uint64_t got_n[4];
    int64_t got_i[4];
    kind_totals(&d.bins, got_n, got_i);
    ck_assert_uint_eq(got_n[SLOG_KIND_STATE], want_n[SLOG_KIND_STATE]);
    ck_assert_uint_eq(got_n[SLOG_KIND_ARROW], want_n[SLOG_KIND_ARROW]);
    ck_assert_int_eq(got_i[SLOG_KIND_STATE], want_time);
    int64_t other_time = 0, kept_main = 0;
    for (uint64_t c = 0; c < d.bins.n; c++) {
        const pv_entry *const e = &d.bins.cells[c];
        if (e->kind == SLOG_KIND_STATE) {
            other_time += e->cat == PV_CATEGORY_OTHER ? e->incl : 0;
            kept_main += e->cat < 3 ? e->incl : 0;
        }
    }
    /* the main categories hold 113/187 of the time: at least one keeps
     * its own cells, so "other" holds less than 80 % of the time */
    ck_assert_int_gt(kept_main, 0);
    ck_assert_int_lt(other_time, want_time / 5 * 4);
    ck_assert_int_le(kept_main, main_time);
    decoded_free(&d);
    pv_free(&sum);
    pv_free(&bins);
}
END_TEST

/* Times far apart (+-2^61 ticks): bins stop at 2^PV_BINS_KMAX ticks, fitting
 * ends, and the blob still decodes with the same totals.  (Bins whose
 * bounds would pass +-2^63 are not written: the bin section is then empty.) */
START_TEST(test_bins_extreme_times)
{
    const pv_fold_ctx ctx = make_ctx();
    pv_summary sum, bins;
    pv_init(&sum);
    pv_init_binned(&bins);
    const int64_t t[] = {INT64_MIN / 4, -1, 0, INT64_MAX / 4};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(pv_add_state(&sum, &ctx, (uint32_t)i, (uint32_t)i, 10, 10), 0);
        const pv_bin_key key = {(uint32_t)i, (uint32_t)i, (uint32_t)i};
        ck_assert_int_eq(pv_bins_add_state(&bins, &ctx, key, t[i], t[i] + 10, 10), 0);
    }
    ck_assert_uint_le(bins.k, PV_BINS_KMAX);
    ck_assert_int_eq(pv_bins_fit(&bins, &ctx, 8), 0);
    ck_assert_uint_le(bins.k, PV_BINS_KMAX);
    decoded d;
    encode_decode(&sum, &bins, &d);
    uint64_t count[4];
    int64_t incl[4];
    kind_totals(&d.bins, count, incl);
    ck_assert_uint_eq(count[SLOG_KIND_STATE], 4);
    ck_assert_int_eq(incl[SLOG_KIND_STATE], 40);
    decoded_free(&d);
    pv_free(&sum);
    pv_free(&bins);
}
END_TEST

static Suite *bins_suite(void)
{
    Suite *const s = suite_create("bins");
    TCase *const tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_bins_sum_to_node_totals, 0, 10);
    tcase_add_loop_test(tc, test_bins_merge_shifts_exactly, 0, 3);
    tcase_add_test(tc, test_bins_fit_keeps_totals);
    tcase_add_test(tc, test_bins_fit_keeps_main_colours);
    tcase_add_test(tc, test_bins_blob_versions);
    tcase_add_test(tc, test_bins_timeline_section_round_trip);
    tcase_add_test(tc, test_bins_extreme_times);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *const sr = srunner_create(bins_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
