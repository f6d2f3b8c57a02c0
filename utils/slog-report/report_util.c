/* SPDX-License-Identifier: MIT
 *
 * report_util.c - the utilisation section: how busy each row of the
 * overview was, from the totals the overview query gave it (report_grid.c,
 * rows of report_layout.c).  State counts and inclusive times are exact,
 * except in a row that holds a share of a group the file summarised as a
 * whole (marked; data-estimated).  Busy time is the depth-0
 * time of its states: drawn states count at depth 0, previews with their
 * exclusive time (for nested states, exclusive times add up to the depth-0
 * time).  It is exact when a row's states come back all drawn or all
 * summarised; a drawn state whose nested states come back summarised
 * counts their time twice (the API gives no exclusive time of a drawn
 * state, nor statistics per preview row without decoding: see
 * doc/VIEWER.md), so the page calls it an estimate.  Its busy share
 * divides that by the trace's duration times the row's leaf timelines
 * (those without children, where states usually live; at least one), so a
 * group shows how busy its members were on average.  Each row lists the
 * timelines it stands for (html_members_attr) so a test can check it.
 * Tools layer: public libslog headers and utils/common only.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static int64_t ticks_of(double v)
{
    return v >= 9.2e18 ? INT64_MAX : (int64_t)llround(v);
}

static double busy_share(const report *rp, uint32_t r)
{
    const int64_t span = rp->fi.end - rp->fi.start;
    const double leaves = (double)report_layout_leaves(rp, r);
    return span > 0 ? rp->layout.row[r].busy / ((double)span * leaves) : 0.0;
}

static void write_row(const report *rp, FILE *f, uint32_t r, bool grouped)
{
    const report_img_row *row = &rp->layout.row[r];
    char label[600];
    (void)fprintf(f,
                  "<tr data-busy=\"%" PRId64 "\" data-inclusive=\"%" PRId64
                  "\" data-states=\"%" PRId64 "\"%s",
                  report_ticks_to_ns(rp, ticks_of(row->busy)),
                  report_ticks_to_ns(rp, ticks_of(row->inclusive)), ticks_of(row->states),
                  row->estimated ? " data-estimated=\"1\" class=\"est\"" : "");
    html_members_attr(f, rp, row->fold, row->fold == 0 ? row->first : row->key);
    (void)fputs(row->estimated ? "><td>\xe2\x89\x88 " : "><td>", f);
    html_text(f, report_row_label(rp, r, label, sizeof label));
    (void)fputs("</td>", f);
    if (grouped) {
        html_td_count(f, row->members);
    }
    html_td_share(f, busy_share(rp, r));
    html_td_duration(f, rp, ticks_of(row->busy));
    html_td_count(f, (uint64_t)ticks_of(row->states));
    html_td_duration(f, rp, ticks_of(row->inclusive));
    (void)fputs("</tr>\n", f);
}

void report_write_utilisation(const report *rp, FILE *f)
{
    html_section_begin(f, "utilisation", "Utilisation");
    if (rp->layout.n == 0) {
        (void)fputs("<p class=\"empty\">No states.</p>\n</section>\n", f);
        return;
    }
    bool grouped = false, estimated = false;
    for (uint32_t r = 0; r < rp->layout.n; r++) {
        grouped = grouped || rp->layout.row[r].fold > 0;
        estimated = estimated || rp->layout.row[r].estimated;
    }
    (void)fprintf(f,
                  "<p>Busy: the time covered by the outermost states (%s), as a share of the "
                  "trace's duration%s. States and inclusive time are exact%s. Rows as in the "
                  "overview.</p>\n",
                  rp->by_tl != NULL ? "the summed exclusive time, exact: statistics by timeline"
                                    : "an estimate from the file's summaries",
                  grouped ? " per leaf timeline of the group (mean)" : "",
                  estimated ? ", except in rows marked \xe2\x89\x88, which hold a share of a "
                              "group the file summarises as a whole"
                            : "");
    (void)fprintf(f,
                  "<div class=\"scroll\"><table class=\"sortable\" id=\"utilisation-table\">\n"
                  "<thead><tr><th>%s</th>%s<th>Busy</th><th>Busy time</th><th>States</th>"
                  "<th>Inclusive</th>"
                  "</tr></thead>\n<tbody>\n",
                  grouped ? "Group" : "Timeline", grouped ? "<th>Timelines</th>" : "");
    for (uint32_t r = 0; r < rp->layout.n; r++) {
        write_row(rp, f, r, grouped);
    }
    (void)fputs("</tbody></table></div>\n</section>\n", f);
}
