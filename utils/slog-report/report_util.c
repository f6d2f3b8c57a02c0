/* SPDX-License-Identifier: MIT
 *
 * report_util.c - the utilisation section: how busy each row of the
 * overview was, from the totals the overview query gave it (report_rows.c).
 * State counts and inclusive times are exact.  Busy time is the depth-0
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
#include <stdlib.h>
#include <string.h>

#include "report.h"

static double busy_share(const report *rp, uint32_t row)
{
    const int64_t span = rp->fi.end - rp->fi.start;
    const uint32_t leaves =
        rp->rows.fold == 0 || rp->rows.leaves[row] == 0 ? 1 : rp->rows.leaves[row];
    return span > 0 ? (double)rp->rows.busy[row] / ((double)span * (double)leaves) : 0.0;
}

static void write_row(const report *rp, FILE *f, uint32_t r)
{
    const report_rows *rows = &rp->rows;
    (void)fprintf(f,
                  "<tr data-busy=\"%" PRId64 "\" data-inclusive=\"%" PRId64
                  "\" data-states=\"%" PRIu64 "\"",
                  report_ticks_to_ns(rp, rows->busy[r]), report_ticks_to_ns(rp, rows->inclusive[r]),
                  rows->states[r]);
    html_members_attr(f, rp, rows->fold, rows->key[r]);
    (void)fputs("><td>", f);
    if (rows->fold > 2) {
        html_text(f, report_timeline_name(rp, rows->first[r]));
        (void)fputs(" \xe2\x80\xa6 ", f);
        html_text(f, report_timeline_name(rp, rows->last[r]));
    } else {
        html_text(f, report_timeline_name(rp, rows->key[r]));
    }
    (void)fputs("</td>", f);
    if (rows->fold > 0) {
        html_td_count(f, rows->members[r]);
    }
    html_td_share(f, busy_share(rp, r));
    html_td_duration(f, rp, rows->busy[r]);
    html_td_count(f, rows->states[r]);
    html_td_duration(f, rp, rows->inclusive[r]);
    (void)fputs("</tr>\n", f);
}

void report_write_utilisation(const report *rp, FILE *f)
{
    html_section_begin(f, "utilisation", "Utilisation");
    if (rp->rows.n == 0) {
        (void)fputs("<p class=\"empty\">No states.</p>\n</section>\n", f);
        return;
    }
    const bool grouped = rp->rows.fold > 0;
    (void)fprintf(f,
                  "<p>Busy: the time covered by the outermost states (an estimate from the "
                  "file's summaries), as a share of the trace's duration%s. States and "
                  "inclusive time are exact. Rows as in the overview: %s.</p>\n",
                  grouped ? " per leaf timeline of the group (mean)" : "",
                  report_fold_words(rp->rows.fold));
    (void)fprintf(f,
                  "<div class=\"scroll\"><table class=\"sortable\" id=\"utilisation-table\">\n"
                  "<thead><tr><th>%s</th>%s<th>Busy</th><th>Busy time</th><th>States</th>"
                  "<th>Inclusive</th>"
                  "</tr></thead>\n<tbody>\n",
                  grouped ? "Group" : "Timeline", grouped ? "<th>Timelines</th>" : "");
    for (uint32_t r = 0; r < rp->rows.n; r++) {
        write_row(rp, f, r);
    }
    (void)fputs("</tbody></table></div>\n</section>\n", f);
}
