/* SPDX-License-Identifier: MIT
 *
 * report_layout.c - the rows of the overview image.  Unlike the tables,
 * whose rows must be as coarse as every preview so their totals are exact
 * (report_rows.c), the image shows what each part of the trace allows: its
 * rows are the timelines the query drew one by one (drawables and pixel
 * runs), grouped only when there are more than max_rows of them, and a
 * preview folded to a coarser group is spread over the rows of that group
 * by their leaf timelines (a dense burst summarised per process does not
 * turn the whole picture into one row per process).  A group none of
 * whose timelines was drawn one by one gets a row of its own.  Rows come
 * in the display order of their first timeline.
 * Tools layer: public libslog headers and utils/common only.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* The key of image row @p r at a coarser fold (cached per fold). */
void report_layout_target(const report *rp, const report_piece *p, uint32_t *fold, uint32_t *key)
{
    const uint32_t own = p->fold < REPORT_FOLDS ? p->fold : REPORT_FOLDS - 1;
    *fold = own > rp->layout.fold ? own : rp->layout.fold;
    *key = report_key_up(rp, p->key, own, *fold);
}

uint32_t report_layout_key_at(report *rp, uint32_t r, uint32_t fold)
{
    report_layout *lay = &rp->layout;
    const report_img_row *row = &lay->row[r];
    if (row->fold >= fold) {
        return row->fold == fold ? row->key : REPORT_NONE;
    }
    uint32_t *keys = lay->up + (size_t)fold * lay->n;
    if ((lay->up_filled & (UINT64_C(1) << fold)) == 0) {
        for (uint32_t i = 0; i < lay->n; i++) {
            const report_img_row *x = &lay->row[i];
            keys[i] = x->fold <= fold ? report_key_up(rp, x->key, x->fold, fold) : REPORT_NONE;
        }
        lay->up_filled |= UINT64_C(1) << fold;
    }
    return keys[r];
}

static int layout_add(report_layout *lay, uint32_t fold, uint32_t key, uint32_t cap)
{
    if (lay->n >= cap) {
        return -1;
    }
    lay->row[lay->n++] =
        (report_img_row){fold, key, REPORT_NONE, REPORT_NONE, 0, 0, 0, 0, 0, false};
    return 0;
}

/* Rows for the timelines drawn one by one and, where statistics by
 * timeline are known, every timeline with states: one whose states all came
 * back inside a group's preview (a few short states beside busy threads of
 * the same process) would otherwise have no row, and its exact totals no
 * place in the utilisation table.  At the fold that fits. */
static int layout_base(report *rp, uint32_t cap)
{
    report_layout *lay = &rp->layout;
    report_ref *refs = calloc(rp->npieces + rp->nby_tl + 1, sizeof *refs);
    uint32_t *keys = calloc((size_t)rp->cfg.max_rows + 1, sizeof *keys);
    if (refs == NULL || keys == NULL) {
        free(refs);
        free(keys);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < rp->npieces; i++) {
        if (rp->pieces[i].fold == 0) {
            refs[n++] = (report_ref){0, rp->pieces[i].key};
        }
    }
    for (size_t i = 0; i < rp->nby_tl; i++) {
        const slog_stats_row *s = &rp->by_tl[i];
        if (s->kind == SLOG_KIND_STATE && s->count > 0 && s->timeline < rp->tl.n) {
            refs[n++] = (report_ref){0, s->timeline};
        }
    }
    /* nothing drawn one by one: the tables' rows, which hold every preview */
    lay->fold = n > 0 ? report_fold_fit(rp, refs, n, rp->cfg.max_rows) : rp->rows.fold;
    uint32_t count =
        n > 0 ? report_fold_keys(rp, refs, n, lay->fold, keys, rp->cfg.max_rows) : rp->rows.n;
    count = count < rp->cfg.max_rows ? count : rp->cfg.max_rows;
    for (uint32_t i = 0; i < count; i++) {
        (void)layout_add(lay, lay->fold, n > 0 ? keys[i] : rp->rows.key[i], cap);
    }
    free(refs);
    free(keys);
    return 0;
}

/* (Re)build the map from keys at the layout's fold to rows. */
static void layout_base_map(report_layout *lay, uint32_t ntimelines)
{
    for (uint32_t k = 0; k <= ntimelines; k++) {
        lay->base[k] = REPORT_NONE;
    }
    for (uint32_t r = 0; r < lay->n; r++) {
        if (lay->row[r].fold == lay->fold && lay->row[r].key < ntimelines) {
            lay->base[lay->row[r].key] = r;
        }
    }
    lay->up_filled = 0;
}

/* Whether some row covers (fold, key), fold >= the layout's fold. */
static bool layout_covers(report *rp, uint32_t fold, uint32_t key)
{
    const report_layout *lay = &rp->layout;
    if (fold == lay->fold) {
        return key < rp->tl.n && lay->base[key] != REPORT_NONE;
    }
    for (uint32_t r = 0; r < lay->n; r++) {
        if (report_layout_key_at(rp, r, fold) == key) {
            return true;
        }
    }
    return false;
}

/* A row of its own for each piece's group that no row covers. */
static int layout_groups(report *rp, uint32_t cap)
{
    report_layout *lay = &rp->layout;
    layout_base_map(lay, rp->tl.n);
    for (size_t i = 0; i < rp->npieces; i++) {
        uint32_t fold, key;
        report_layout_target(rp, &rp->pieces[i], &fold, &key);
        if (key >= rp->tl.n || layout_covers(rp, fold, key)) {
            continue;
        }
        if (layout_add(lay, fold, key, cap) != 0) {
            return -1;
        }
        layout_base_map(lay, rp->tl.n);
    }
    return 0;
}

static const uint32_t *sort_pos; /* qsort's context: preorder positions */

static int cmp_first(const void *a, const void *b)
{
    const uint32_t *pos = sort_pos;
    const report_img_row *x = a, *y = b;
    const uint32_t px = x->first != REPORT_NONE ? pos[x->first] : UINT32_MAX;
    const uint32_t py = y->first != REPORT_NONE ? pos[y->first] : UINT32_MAX;
    return px < py ? -1 : px > py;
}

uint32_t report_layout_row_of(const report *rp, uint32_t t)
{
    const report_layout *lay = &rp->layout;
    uint32_t best = REPORT_NONE;
    for (uint32_t r = 0; r < lay->n; r++) {
        const report_img_row *row = &lay->row[r];
        if (slog_reader_fold_row(rp->r, t, row->fold) == row->key &&
            (best == REPORT_NONE || row->fold < lay->row[best].fold)) {
            best = r;
        }
    }
    return best;
}

/* First and last timeline (display order), members and leaves of each row. */
static void layout_members(report *rp)
{
    report_layout *lay = &rp->layout;
    for (uint32_t i = 0; i < rp->tl.n; i++) {
        const uint32_t t = rp->tl.order[i];
        const uint32_t best = report_layout_row_of(rp, t);
        if (best != REPORT_NONE) {
            report_img_row *row = &lay->row[best];
            row->first = row->first == REPORT_NONE ? t : row->first;
            row->last = t;
            row->members++;
            row->leaves += timeline_tree_nchildren(&rp->tl, t) == 0;
        }
    }
}

void report_layout_exact_totals(report *rp)
{
    report_layout *lay = &rp->layout;
    if (rp->by_tl == NULL) {
        return;
    }
    for (uint32_t r = 0; r < lay->n; r++) {
        lay->row[r].busy = lay->row[r].inclusive = lay->row[r].states = 0.0;
        lay->row[r].estimated = false;
    }
    for (size_t i = 0; i < rp->nby_tl; i++) {
        const slog_stats_row *s = &rp->by_tl[i];
        const uint32_t r = s->kind == SLOG_KIND_STATE && s->timeline < rp->tl.n
                               ? report_layout_row_of(rp, s->timeline)
                               : REPORT_NONE;
        if (r != REPORT_NONE) {
            lay->row[r].busy += (double)s->exclusive;
            lay->row[r].inclusive += (double)s->inclusive;
            lay->row[r].states += (double)s->count;
        }
    }
}

int report_layout_build(report *rp)
{
    report_layout *lay = &rp->layout;
    const uint32_t cap = 2 * rp->cfg.max_rows;
    lay->row = calloc((size_t)cap + 1, sizeof *lay->row);
    lay->up = calloc((size_t)REPORT_FOLDS * (cap + 1), sizeof *lay->up);
    lay->base = calloc((size_t)rp->tl.n + 1, sizeof *lay->base);
    if (lay->row == NULL || lay->up == NULL || lay->base == NULL || layout_base(rp, cap) != 0) {
        (void)fprintf(stderr, REPORT_PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    if (layout_groups(rp, cap) != 0) {
        /* too many groups beside the timelines: the tables' rows hold all */
        lay->n = 0;
        lay->fold = rp->rows.fold;
        for (uint32_t r = 0; r < rp->rows.n; r++) {
            (void)layout_add(lay, lay->fold, rp->rows.key[r], cap);
        }
    }
    layout_members(rp);
    sort_pos = rp->preorder_pos;
    qsort(lay->row, lay->n, sizeof *lay->row, cmp_first);
    layout_base_map(lay, rp->tl.n);
    return 0;
}

uint32_t report_layout_leaves(const report *rp, uint32_t r)
{
    const report_img_row *row = &rp->layout.row[r];
    return row->fold == 0 || row->leaves == 0 ? 1 : row->leaves;
}

void report_layout_spread(report *rp, const report_piece *p, report_spread_fn fn)
{
    const report_layout *lay = &rp->layout;
    uint32_t fold, key;
    report_layout_target(rp, p, &fold, &key);
    if (fold == lay->fold) {
        const uint32_t row = key < rp->tl.n ? lay->base[key] : REPORT_NONE;
        if (row != REPORT_NONE) {
            fn(rp, row, p, 1.0);
        }
        return;
    }
    uint64_t leaves = 0;
    uint32_t rows = 0;
    for (uint32_t r = 0; r < lay->n; r++) {
        if (report_layout_key_at(rp, r, fold) == key) {
            leaves += report_layout_leaves(rp, r);
            rows++;
        }
    }
    for (uint32_t r = 0; r < lay->n && leaves > 0; r++) {
        if (report_layout_key_at(rp, r, fold) == key) {
            fn(rp, r, p, rows == 1 ? 1.0 : (double)report_layout_leaves(rp, r) / (double)leaves);
        }
    }
}

const char *report_row_label(const report *rp, uint32_t r, char *buf, size_t len)
{
    const report_img_row *row = &rp->layout.row[r];
    char a[256], b[256];
    if (row->fold == 0) {
        return report_timeline_path(rp, row->first, buf, len);
    }
    if (row->fold <= 2) {
        (void)snprintf(buf, len, "%s (%u)", report_timeline_path(rp, row->key, a, sizeof a),
                       row->members);
    } else {
        (void)snprintf(buf, len, "%s \xe2\x80\xa6 %s (%u)",
                       report_timeline_path(rp, row->first, a, sizeof a),
                       report_timeline_path(rp, row->last, b, sizeof b), row->members);
    }
    return buf;
}
