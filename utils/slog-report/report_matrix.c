/* SPDX-License-Identifier: MIT
 *
 * report_matrix.c - the message matrix: arrow counts between timelines,
 * or between groups of them when there are many, as a heat map.  The
 * counts come from the overview query (real arrows, pixel runs and arrow
 * previews, whose totals are exact), each at the fold it came back with.
 * The matrix uses one fold for all of them (report_fold_fit): the finest
 * that is at least every count's own fold and gives at most matrix_max
 * sides, so no count is ever split between rows.  Cells are coloured on a log scale; every
 * cell carries its exact count (data-count, title).
 * Tools layer: public libslog headers and utils/common only.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static uint32_t side_index(const report_matrix *m, uint32_t key)
{
    for (uint32_t i = 0; i < m->n; i++) {
        if (m->key[i] == key) {
            return i;
        }
    }
    return REPORT_NONE;
}

static void matrix_fill(report *rp)
{
    report_matrix *m = &rp->matrix;
    for (size_t i = 0; i < rp->npairs; i++) {
        const report_pair *p = &rp->pairs[i];
        const uint32_t a = side_index(m, report_key_up(rp, p->from, p->fold, m->fold));
        const uint32_t b = side_index(m, report_key_up(rp, p->to, p->fold, m->fold));
        if (a != REPORT_NONE && b != REPORT_NONE) {
            m->count[(size_t)a * m->n + b] += p->count;
        }
        m->total += p->count;
    }
}

int report_matrix_build(report *rp)
{
    report_matrix *m = &rp->matrix;
    report_ref *refs = calloc(2 * rp->npairs + 1, sizeof *refs);
    m->key = calloc((size_t)rp->cfg.matrix_max + 1, sizeof *m->key);
    if (refs == NULL || m->key == NULL) {
        free(refs);
        (void)fprintf(stderr, REPORT_PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    for (size_t i = 0; i < rp->npairs; i++) {
        refs[2 * i] = (report_ref){rp->pairs[i].fold, rp->pairs[i].from};
        refs[2 * i + 1] = (report_ref){rp->pairs[i].fold, rp->pairs[i].to};
    }
    m->fold = report_fold_fit(rp, refs, 2 * rp->npairs, rp->cfg.matrix_max);
    const uint32_t n =
        report_fold_keys(rp, refs, 2 * rp->npairs, m->fold, m->key, rp->cfg.matrix_max);
    free(refs);
    m->n = n <= rp->cfg.matrix_max ? n : 0;
    m->count = calloc((size_t)m->n * m->n + 1, sizeof *m->count);
    if (m->count == NULL) {
        (void)fprintf(stderr, REPORT_PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    matrix_fill(rp);
    return 0;
}

/* ---- the section ---- */

static void write_header_row(const report *rp, FILE *f)
{
    const report_matrix *m = &rp->matrix;
    char label[512];
    (void)fputs("<tr><th class=\"corner\">from \xe2\x86\x93 to \xe2\x86\x92</th>", f);
    for (uint32_t j = 0; j < m->n; j++) {
        (void)fputs("<th class=\"col\"><span>", f);
        html_text(f, report_key_label(rp, m->fold, m->key[j], label, sizeof label));
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
        html_text(f, report_key_label(rp, m->fold, m->key[i], label, sizeof label));
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
    static const char *const folds[] = {"timeline", "parent timeline", "top-level timeline"};
    (void)fprintf(f, "<p>%" PRIu64 " arrows between %u %s%s.</p>\n", m->total, m->n,
                  m->fold <= 2 ? folds[m->fold] : "block of top-level timelines",
                  m->n == 1 ? "" : "s");
    if (m->n > 0) {
        write_table(rp, f);
    }
    (void)fputs("</section>\n", f);
}
