/* SPDX-License-Identifier: MIT
 *
 * report_rows.c - folds and rows.  What the overview query returns sits
 * on a timeline (a drawable, a pixel run) or on the group a preview was
 * folded to (slog_reader_fold_row: parents at fold 1, top-level timelines
 * at fold 2, blocks of consecutive top-level timelines at 2 + s).  A count
 * can move to a coarser fold but never to a finer one, so a table whose
 * totals must be exact (the message matrix) uses one fold at least as
 * coarse as all its items, the finest that gives at most the rows wanted
 * (report_fold_fit).  report_rows_build gives such rows for all states;
 * the image uses them only when no state was drawn one by one
 * (report_layout.c).
 * Keys at a fold are timeline ids (fold <= 2) or block numbers, so they
 * stay below the number of timelines and index plain arrays.  Rows come in
 * the display order of the timeline tree (pre-order by sort key).
 * Tools layer: public libslog headers and utils/common only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

uint32_t report_key_up(const report *rp, uint32_t key, uint32_t from, uint32_t to)
{
    if (from >= to) {
        return key;
    }
    if (from <= 2) {
        /* key is a timeline id (fold 0), its parent (1) or its top-level
         * ancestor (2): each has the same ancestors above as the timeline */
        return slog_reader_fold_row(rp->r, key, to);
    }
    const uint32_t shift = to - from;
    return shift >= 32 ? 0 : key >> shift;
}

/* Distinct keys of the references at @p fold, kept in keys[] up to cap;
 * UINT32_MAX when out of memory. */
static uint32_t distinct_keys(
    const report *rp, const report_ref *refs, size_t n, uint32_t fold, uint32_t *keys, uint32_t cap)
{
    uint8_t *seen = calloc((size_t)rp->tl.n + 1, 1);
    if (seen == NULL) {
        return UINT32_MAX;
    }
    uint32_t count = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t k = report_key_up(rp, refs[i].key, refs[i].fold, fold);
        if (k < rp->tl.n && !seen[k]) {
            seen[k] = 1;
            if (keys != NULL && count < cap) {
                keys[count] = k;
            }
            count++;
        }
    }
    free(seen);
    return count;
}

uint32_t report_fold_fit(const report *rp, const report_ref *refs, size_t n, uint32_t max)
{
    uint32_t fold = 0;
    for (size_t i = 0; i < n; i++) {
        fold = refs[i].fold > fold ? refs[i].fold : fold;
    }
    while (fold + 1 < REPORT_FOLDS && distinct_keys(rp, refs, n, fold, NULL, 0) > max) {
        fold++;
    }
    return fold < REPORT_FOLDS ? fold : REPORT_FOLDS - 1;
}

typedef struct ordered_key {
    uint32_t pos, key;
} ordered_key;

static int cmp_ordered(const void *a, const void *b)
{
    const ordered_key *x = a, *y = b;
    if (x->pos != y->pos) {
        return x->pos < y->pos ? -1 : 1;
    }
    return x->key < y->key ? -1 : x->key > y->key;
}

uint32_t report_fold_keys(
    const report *rp, const report_ref *refs, size_t n, uint32_t fold, uint32_t *keys, uint32_t cap)
{
    ordered_key *order = calloc((size_t)cap + 1, sizeof *order);
    uint32_t count = 0;
    if (order != NULL) {
        count = distinct_keys(rp, refs, n, fold, keys, cap);
        count = count == UINT32_MAX ? 0 : count;
        const uint32_t kept = count < cap ? count : cap;
        for (uint32_t i = 0; i < kept; i++) {
            order[i].key = keys[i];
            order[i].pos = fold <= 2 ? rp->preorder_pos[keys[i]] : keys[i];
        }
        qsort(order, kept, sizeof *order, cmp_ordered);
        for (uint32_t i = 0; i < kept; i++) {
            keys[i] = order[i].key;
        }
    }
    free(order);
    return count;
}

static int rows_alloc(report_rows *rows, uint32_t nrows, uint32_t ntimelines)
{
    const size_t n = (size_t)nrows + 1;
    rows->key = calloc(n, sizeof *rows->key);
    rows->first = calloc(n, sizeof *rows->first);
    rows->last = calloc(n, sizeof *rows->last);
    rows->members = calloc(n, sizeof *rows->members);
    rows->leaves = calloc(n, sizeof *rows->leaves);

    rows->row_of_key = malloc(((size_t)ntimelines + 1) * sizeof *rows->row_of_key);
    if (rows->key == NULL || rows->first == NULL || rows->last == NULL || rows->members == NULL ||
        rows->leaves == NULL || rows->row_of_key == NULL) {
        return -1;
    }
    for (size_t i = 0; i <= ntimelines; i++) {
        rows->row_of_key[i] = REPORT_NONE;
    }
    return 0;
}

/* Members of each row, in display order. */
static void rows_members(report *rp)
{
    report_rows *rows = &rp->rows;
    for (uint32_t i = 0; i < rp->tl.n; i++) {
        const uint32_t t = rp->tl.order[i];
        const uint32_t k = slog_reader_fold_row(rp->r, t, rows->fold);
        const uint32_t row = k < rp->tl.n ? rows->row_of_key[k] : REPORT_NONE;
        if (row == REPORT_NONE) {
            continue;
        }
        if (rows->members[row] == 0) {
            rows->first[row] = t;
        }
        rows->last[row] = t;
        rows->members[row]++;
        rows->leaves[row] += timeline_tree_nchildren(&rp->tl, t) == 0;
    }
}

int report_rows_build(report *rp)
{
    report_ref *refs = calloc(rp->npieces + 1, sizeof *refs);
    if (refs == NULL) {
        (void)fprintf(stderr, REPORT_PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    for (size_t i = 0; i < rp->npieces; i++) {
        refs[i] = (report_ref){rp->pieces[i].fold, rp->pieces[i].key};
    }
    report_rows *rows = &rp->rows;
    rows->fold = report_fold_fit(rp, refs, rp->npieces, rp->cfg.max_rows);
    int rc = rows_alloc(rows, rp->cfg.max_rows, rp->tl.n);
    if (rc == 0) {
        const uint32_t n =
            report_fold_keys(rp, refs, rp->npieces, rows->fold, rows->key, rp->cfg.max_rows);
        rows->n = n < rp->cfg.max_rows ? n : rp->cfg.max_rows;
        for (uint32_t r = 0; r < rows->n; r++) {
            rows->row_of_key[rows->key[r]] = r;
        }
        rows_members(rp);
    }
    free(refs);
    if (rc != 0) {
        (void)fprintf(stderr, REPORT_PROG ": out of memory\n");
    }
    return rc != 0 ? EXIT_FAILURE : 0;
}

const char *report_key_label(const report *rp, uint32_t fold, uint32_t key, char *buf, size_t len)
{
    if (fold <= 2) {
        return report_timeline_path(rp, key, buf, len);
    }
    /* a block: the top-level timelines whose id >> (fold - 2) is key */
    const uint32_t shift = fold - 2;
    const uint64_t lo = shift >= 32 ? 0 : (uint64_t)key << shift;
    const uint64_t hi = shift >= 32 ? UINT32_MAX : lo + (UINT64_C(1) << shift) - 1;
    (void)snprintf(buf, len, "timelines #%llu\xe2\x80\xa6#%llu", (unsigned long long)lo,
                   (unsigned long long)hi);
    return buf;
}

const char *report_fold_words(uint32_t fold)
{
    switch (fold) {
    case 0:
        return "one row per timeline that holds states";
    case 1:
        return "one row per parent timeline: at this zoom the file summarises threads together "
               "with their process";
    case 2:
        return "one row per top-level timeline and its descendants";
    default:
        return "one row per block of consecutive top-level timelines: at this zoom the file "
               "summarises timelines in blocks";
    }
}
