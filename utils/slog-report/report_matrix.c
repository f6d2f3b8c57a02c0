/* SPDX-License-Identifier: MIT
 *
 * report_matrix.c - the message matrix: arrow counts between timelines,
 * or between groups of them when there are many, as a heat map.  The
 * counts come from the overview query (real arrows, pixel runs and arrow
 * previews, whose totals are exact), each at the fold it came back with.
 * Sides are the ends of the arrows drawn one by one, at the finest fold
 * that gives at most matrix_max of them (report_fold_fit); a count the
 * file folded to a coarser group gets a side of its own for that group,
 * marked "summarised", so no count is ever split or guessed.  Above twice
 * matrix_max sides, one fold as coarse as every count is used instead.
 * Cells are coloured on a log scale; every cell carries its exact count
 * (data-count, title).
 * Tools layer: public libslog headers and utils/common only.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Where a pair's end goes: its key at the matrix's fold, or at its own
 * fold when that is coarser (a count is never split). */
static void end_target(const report *rp, uint32_t fold, uint32_t key, uint32_t *tf, uint32_t *tk)
{
    const uint32_t own = fold < REPORT_FOLDS ? fold : REPORT_FOLDS - 1;
    *tf = own > rp->matrix.fold ? own : rp->matrix.fold;
    *tk = report_key_up(rp, key, own, *tf);
}

static uint32_t side_index(const report_matrix *m, uint32_t fold, uint32_t key)
{
    for (uint32_t i = 0; i < m->n; i++) {
        if (m->key[i] == key && m->side_fold[i] == fold) {
            return i;
        }
    }
    return REPORT_NONE;
}

static uint32_t pair_side(const report *rp, uint32_t fold, uint32_t key)
{
    uint32_t tf, tk;
    end_target(rp, fold, key, &tf, &tk);
    return side_index(&rp->matrix, tf, tk);
}

static void matrix_fill(report *rp)
{
    report_matrix *m = &rp->matrix;
    for (size_t i = 0; i < rp->npairs; i++) {
        const report_pair *p = &rp->pairs[i];
        const uint32_t a = pair_side(rp, p->fold, p->from);
        const uint32_t b = pair_side(rp, p->fold, p->to);
        if (a != REPORT_NONE && b != REPORT_NONE) {
            m->count[(size_t)a * m->n + b] += p->count;
        }
        m->total += p->count;
    }
}

/* The sides at the matrix's fold: the ends of the arrows drawn one by one
 * (all ends when none was), the finest fold with at most matrix_max. */
static void matrix_base(report *rp, report_ref *refs)
{
    report_matrix *m = &rp->matrix;
    size_t n = 0;
    for (size_t i = 0; i < rp->npairs; i++) {
        if (rp->pairs[i].fold == 0) {
            refs[n++] = (report_ref){0, rp->pairs[i].from};
            refs[n++] = (report_ref){0, rp->pairs[i].to};
        }
    }
    for (size_t i = 0; i < rp->npairs && n == 0; i++) {
        refs[2 * i] = (report_ref){rp->pairs[i].fold, rp->pairs[i].from};
        refs[2 * i + 1] = (report_ref){rp->pairs[i].fold, rp->pairs[i].to};
    }
    n = n > 0 ? n : 2 * rp->npairs;
    m->fold = report_fold_fit(rp, refs, n, rp->cfg.matrix_max);
    const uint32_t k = report_fold_keys(rp, refs, n, m->fold, m->key, rp->cfg.matrix_max);
    m->n = k <= rp->cfg.matrix_max ? k : 0;
    for (uint32_t i = 0; i < m->n; i++) {
        m->side_fold[i] = m->fold;
    }
}

/* A side of its own for each coarser group a count came folded to;
 * -1 when there would be more than @p cap sides. */
static int matrix_groups(report *rp, uint32_t cap)
{
    report_matrix *m = &rp->matrix;
    for (size_t i = 0; i < 2 * rp->npairs; i++) {
        const report_pair *p = &rp->pairs[i / 2];
        uint32_t tf, tk;
        end_target(rp, p->fold, i % 2 == 0 ? p->from : p->to, &tf, &tk);
        if (tk >= rp->tl.n || side_index(m, tf, tk) != REPORT_NONE) {
            continue;
        }
        if (m->n >= cap) {
            return -1;
        }
        m->key[m->n] = tk;
        m->side_fold[m->n++] = tf;
    }
    return 0;
}

static int matrix_alloc(report_matrix *m, size_t npairs, uint32_t cap, report_ref **refs)
{
    *refs = calloc(2 * npairs + 1, sizeof **refs);
    m->key = calloc((size_t)cap + 1, sizeof *m->key);
    m->side_fold = calloc((size_t)cap + 1, sizeof *m->side_fold);
    return *refs == NULL || m->key == NULL || m->side_fold == NULL ? -1 : 0;
}

int report_matrix_build(report *rp)
{
    report_matrix *m = &rp->matrix;
    const uint32_t cap = 2 * rp->cfg.matrix_max;
    report_ref *refs = NULL;
    if (matrix_alloc(m, rp->npairs, cap, &refs) != 0) {
        free(refs);
        (void)fprintf(stderr, REPORT_PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    matrix_base(rp, refs);
    if (matrix_groups(rp, cap) != 0) {
        /* too many groups: one fold as coarse as every count */
        for (size_t i = 0; i < rp->npairs; i++) {
            refs[2 * i] = (report_ref){rp->pairs[i].fold, rp->pairs[i].from};
            refs[2 * i + 1] = (report_ref){rp->pairs[i].fold, rp->pairs[i].to};
        }
        m->fold = report_fold_fit(rp, refs, 2 * rp->npairs, rp->cfg.matrix_max);
        const uint32_t k = report_fold_keys(rp, refs, 2 * rp->npairs, m->fold, m->key, cap);
        m->n = k <= rp->cfg.matrix_max ? k : 0;
        for (uint32_t i = 0; i < m->n; i++) {
            m->side_fold[i] = m->fold;
        }
    }
    free(refs);
    m->count = calloc((size_t)m->n * m->n + 1, sizeof *m->count);
    if (m->count == NULL) {
        (void)fprintf(stderr, REPORT_PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    matrix_fill(rp);
    return 0;
}

/* ---- the section ---- */

/* A side's name; a group a count came folded to is marked as such. */
static void side_label(const report *rp, FILE *f, uint32_t i, char *buf, size_t len)
{
    const report_matrix *m = &rp->matrix;
    html_text(f, report_key_label(rp, m->side_fold[i], m->key[i], buf, len));
    if (m->side_fold[i] > m->fold) {
        (void)fputs(" (summarised)", f);
    }
}

static void write_header_row(const report *rp, FILE *f)
{
    const report_matrix *m = &rp->matrix;
    char label[512];
    (void)fputs("<tr><th class=\"corner\">from \xe2\x86\x93 to \xe2\x86\x92</th>", f);
    for (uint32_t j = 0; j < m->n; j++) {
        (void)fputs("<th class=\"col\"><span>", f);
        side_label(rp, f, j, label, sizeof label);
        (void)fputs("</span></th>", f);
    }
    (void)fputs("</tr>\n", f);
}

static void write_cell(FILE *f, uint64_t c, uint64_t max)
{
    if (c == 0) {
        (void)fputs("<td data-count=\"0\"></td>", f);
        return;
    }
    const double a = 0.12 + 0.88 * log1p((double)c) / log1p((double)max);
    (void)fprintf(f,
                  "<td data-count=\"%" PRIu64 "\" title=\"%" PRIu64
                  "\" style=\"background:rgba(200,40,30,%.2f)\"></td>",
                  c, c, a);
}

static void write_table(const report *rp, FILE *f)
{
    const report_matrix *m = &rp->matrix;
    uint64_t max = 1;
    for (size_t i = 0; i < (size_t)m->n * m->n; i++) {
        max = m->count[i] > max ? m->count[i] : max;
    }
    char label[512];
    (void)fputs("<div class=\"scroll\"><table class=\"matrix\" id=\"matrix-table\">\n", f);
    write_header_row(rp, f);
    for (uint32_t i = 0; i < m->n; i++) {
        (void)fputs("<tr><th class=\"rowh\">", f);
        side_label(rp, f, i, label, sizeof label);
        (void)fputs("</th>", f);
        for (uint32_t j = 0; j < m->n; j++) {
            write_cell(f, m->count[(size_t)i * m->n + j], max);
        }
        (void)fputs("</tr>\n", f);
    }
    (void)fprintf(f,
                  "</table></div>\n<p class=\"note\">Cell colour: log scale up to %" PRIu64
                  " arrows. Hover a cell for its count.</p>\n",
                  max);
}

void report_write_matrix(const report *rp, FILE *f)
{
    const report_matrix *m = &rp->matrix;
    html_section_begin(f, "messages", "Message matrix");
    if (m->total == 0) {
        (void)fputs("<p class=\"empty\">No arrows (messages) in this trace.</p>\n</section>\n", f);
        return;
    }
    static const char *const folds[] = {"timelines", "parent timelines", "top-level timelines"};
    bool summarised = false;
    for (uint32_t i = 0; i < m->n; i++) {
        summarised = summarised || m->side_fold[i] > m->fold;
    }
    (void)fprintf(f, "<p>%" PRIu64 " arrows; rows and columns are %s%s.</p>\n", m->total,
                  m->fold <= 2 ? folds[m->fold] : "blocks of top-level timelines",
                  summarised ? ", and the groups whose arrows the file summarises at this "
                               "zoom (marked summarised)"
                             : "");
    if (m->n > 0) {
        write_table(rp, f);
    }
    (void)fputs("</section>\n", f);
}
