/* SPDX-License-Identifier: MIT
 *
 * report_tables.c - the category table, the longest states and the counter
 * series, all from exact numbers (window statistics of the whole trace,
 * slog_search_top, slog_search_prev).  Every number cell carries its exact
 * value in data-v (integer ns for times) so the tables sort exactly and a
 * test can compare them with slog-query; rows carry their ids in data-*.
 * Tools layer: public libslog headers and utils/common only.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "report.h"

static const char *const kind_names[] = {"state", "event", "arrow", "counter"};

static const char *kind_name(slog_kind k)
{
    return (unsigned)k < 4 ? kind_names[k] : "?";
}

static void td_double(FILE *f, double v)
{
    char buf[40];
    (void)fprintf(f, "<td class=\"num\" data-v=\"%s\">%.6g</td>",
                  json_format_double(v, buf, sizeof buf), v);
}

static void td_category(FILE *f, const report *rp, uint32_t id)
{
    char hex[8] = "#9a9a9a";
    if (id < rp->fi.categories) {
        report_color_hex(rp->cats[id].rgba, hex);
    }
    (void)fprintf(f, "<td><span class=\"sw\" style=\"background:%s\"></span>", hex);
    html_text(f, report_category_name(rp, id));
    (void)fputs("</td>", f);
}

static int cmp_category_rows(const void *a, const void *b)
{
    const slog_stats_row *x = a, *y = b;
    if (x->kind != y->kind) {
        return x->kind < y->kind ? -1 : 1;
    }
    if (x->inclusive != y->inclusive) {
        return x->inclusive > y->inclusive ? -1 : 1;
    }
    if (x->count != y->count) {
        return x->count > y->count ? -1 : 1;
    }
    return x->category < y->category ? -1 : x->category > y->category;
}

/* The cells from Count on of a category row (or of the rest of a kind). */
static void category_numbers(FILE *f, const report *rp, const slog_stats_row *s, int64_t busy)
{
    html_td_count(f, s->count);
    if (s->kind == SLOG_KIND_STATE) {
        html_td_duration(f, rp, s->inclusive);
        html_td_duration(f, rp, s->exclusive);
        html_td_duration(f, rp, s->count > 0 ? s->inclusive / (int64_t)s->count : 0);
        html_td_duration(f, rp, s->max);
        html_td_share(f, busy > 0 ? (double)s->exclusive / (double)busy : 0.0);
    } else {
        (void)fputs("<td></td><td></td><td></td><td></td><td></td>", f);
    }
    (void)fputs("</tr>\n", f);
}

static void category_row(FILE *f, const report *rp, const slog_stats_row *s, int64_t busy)
{
    (void)fprintf(f,
                  "<tr data-category=\"%" PRIu32 "\" data-kind=\"%s\" data-count=\"%" PRIu64
                  "\" data-inclusive=\"%" PRId64 "\" data-exclusive=\"%" PRId64 "\">",
                  s->category, kind_name(s->kind), s->count, report_ticks_to_ns(rp, s->inclusive),
                  report_ticks_to_ns(rp, s->exclusive));
    td_category(f, rp, s->category);
    (void)fputs("<td>", f);
    html_text(f, s->category < rp->fi.categories ? rp->cats[s->category].group : "");
    (void)fprintf(f, "</td><td>%s</td>", kind_name(s->kind));
    category_numbers(f, rp, s, busy);
}

/* The categories of one kind past --categories, added up in one row (a
 * trace of 10^5 categories gave a 34 MB page that took 30 s to open). */
static void rest_row(FILE *f, const report *rp, const slog_stats_row *sum, size_t n, int64_t busy)
{
    if (n == 0) {
        return;
    }
    (void)fprintf(f,
                  "<tr class=\"rest\" data-rest=\"%zu\" data-kind=\"%s\" data-count=\"%" PRIu64
                  "\" data-inclusive=\"%" PRId64 "\" data-exclusive=\"%" PRId64 "\"><td>",
                  n, kind_name(sum->kind), sum->count, report_ticks_to_ns(rp, sum->inclusive),
                  report_ticks_to_ns(rp, sum->exclusive));
    html_count(f, n);
    (void)fprintf(f, " more %s categories</td><td></td><td>%s</td>", kind_name(sum->kind),
                  kind_name(sum->kind));
    category_numbers(f, rp, sum, busy);
}

static void rest_add(slog_stats_row *sum, const slog_stats_row *s)
{
    sum->kind = s->kind;
    sum->count += s->count;
    sum->inclusive += s->inclusive;
    sum->exclusive += s->exclusive;
    sum->max = s->max > sum->max ? s->max : sum->max;
}

/* Rows sorted by kind: at most --categories of each kind, then the rest. */
static void write_category_rows(FILE *f, const report *rp, const slog_stats_row *rows, int64_t busy)
{
    slog_stats_row rest;
    memset(&rest, 0, sizeof rest);
    size_t listed = 0, more = 0;
    for (size_t i = 0; i < rp->nby_cat; i++) {
        if (i > 0 && rows[i].kind != rows[i - 1].kind) {
            rest_row(f, rp, &rest, more, busy);
            memset(&rest, 0, sizeof rest);
            listed = more = 0;
        }
        if (listed < rp->cfg.max_cats) {
            category_row(f, rp, &rows[i], busy);
            listed++;
        } else {
            rest_add(&rest, &rows[i]);
            more++;
        }
    }
    rest_row(f, rp, &rest, more, busy);
}

void report_write_categories(const report *rp, FILE *f)
{
    html_section_begin(f, "categories", "Categories");
    if (rp->nby_cat == 0) {
        (void)fputs("<p class=\"empty\">No drawables.</p>\n</section>\n", f);
        return;
    }
    slog_stats_row *rows = calloc(rp->nby_cat, sizeof *rows);
    if (rows == NULL) {
        (void)fputs("<p class=\"empty\">Out of memory.</p>\n</section>\n", f);
        return;
    }
    memcpy(rows, rp->by_cat, rp->nby_cat * sizeof *rows);
    qsort(rows, rp->nby_cat, sizeof *rows, cmp_category_rows);
    int64_t busy = 0;
    for (size_t i = 0; i < rp->nby_cat; i++) {
        busy += rows[i].kind == SLOG_KIND_STATE ? rows[i].exclusive : 0;
    }
    (void)fputs("<p>Whole trace, exact (window statistics). Inclusive: summed durations; "
                "exclusive: minus the time of nested states; share: of all exclusive time, "
                "i.e. of the time the timelines were busy.</p>\n"
                "<div class=\"scroll\"><table class=\"sortable\" id=\"categories-table\">\n"
                "<thead><tr><th>Category</th><th>Group</th><th>Kind</th><th>Count</th>"
                "<th>Inclusive</th><th>Exclusive</th><th>Mean</th><th>Longest</th>"
                "<th>Share</th></tr></thead>\n<tbody>\n",
                f);
    write_category_rows(f, rp, rows, busy);
    (void)fputs("</tbody></table></div>\n", f);
    if (rp->nby_cat > rp->cfg.max_cats) {
        (void)fprintf(f,
                      "<p class=\"note\">At most %" PRIu32 " categories of each kind, those with "
                      "the most time (states) or drawables; the rest of a kind is added up in "
                      "one row.</p>\n",
                      rp->cfg.max_cats);
    }
    (void)fputs("</section>\n", f);
    free(rows);
}

void report_write_top(const report *rp, FILE *f)
{
    html_section_begin(f, "top", "Longest states");
    if (rp->ntop == 0) {
        (void)fputs("<p class=\"empty\">No states.</p>\n</section>\n", f);
        return;
    }
    (void)fputs("<div class=\"scroll\"><table class=\"sortable\" id=\"top-table\">\n<thead><tr>"
                "<th>#</th><th>Duration</th><th>Category</th><th>Timeline</th><th>Start</th>"
                "<th>Depth</th></tr></thead>\n<tbody>\n",
                f);
    for (uint32_t i = 0; i < rp->ntop; i++) {
        const slog_state *s = &rp->top[i];
        (void)fprintf(f,
                      "<tr data-timeline=\"%" PRIu32 "\" data-category=\"%" PRIu32
                      "\" data-start=\"%" PRId64 "\" data-end=\"%" PRId64 "\" data-depth=\"%" PRIu32
                      "\"><td class=\"num\" data-v=\"%u\">%u</td>",
                      s->timeline, s->category, report_ticks_to_ns(rp, s->start - rp->fi.start),
                      report_ticks_to_ns(rp, s->end - rp->fi.start), s->depth, i + 1, i + 1);
        html_td_duration(f, rp, s->end - s->start);
        td_category(f, rp, s->category);
        (void)fputs("<td>", f);
        char path[512];
        html_text(f, report_timeline_path(rp, s->timeline, path, sizeof path));
        (void)fputs("</td>", f);
        html_td_duration(f, rp, s->start - rp->fi.start);
        (void)fprintf(f, "<td class=\"num\" data-v=\"%" PRIu32 "\">%" PRIu32 "</td></tr>\n",
                      s->depth, s->depth);
    }
    (void)fputs("</tbody></table></div>\n<p class=\"note\">Start: from the trace's start.</p>\n"
                "</section>\n",
                f);
}

static void counter_row(const report *rp, FILE *f, const report_series *s)
{
    char label[512];
    const bool all = rp->series_fold == REPORT_NONE;
    (void)fprintf(f, "<tr data-category=\"%" PRIu32 "\"%s", s->category,
                  all ? " data-scope=\"all\"" : "");
    if (!all) {
        html_members_attr(f, rp, rp->series_fold, s->key);
    }
    (void)fputs("><td>", f);
    html_text(f, all ? "(all timelines)"
                     : report_key_label(rp, rp->series_fold, s->key, label, sizeof label));
    (void)fputs("</td>", f);
    td_category(f, rp, s->category);
    html_td_count(f, s->count);
    td_double(f, s->vmin);
    td_double(f, s->vmax);
    td_double(f, s->count > 0 ? s->vsum / (double)s->count : 0.0);
    if (s->has_last) {
        td_double(f, s->last);
    } else {
        (void)fputs("<td></td>", f);
    }
    (void)fputs("</tr>\n", f);
}

void report_write_counters(const report *rp, FILE *f)
{
    html_section_begin(f, "counters", "Counters");
    if (rp->series_total == 0) {
        (void)fputs("<p class=\"empty\">No counter samples in this trace.</p>\n</section>\n", f);
        return;
    }
    if (rp->series_fold == REPORT_NONE) {
        (void)fputs("<p>One row per counter over all timelines: at this zoom the file "
                    "summarises rare counters together, so only whole-trace statistics keep "
                    "them apart.</p>\n",
                    f);
    } else if (rp->series_fold > 0) {
        (void)fputs("<p>At this zoom the file summarises counters per group of timelines: one "
                    "row per group and counter; last is the group's latest sample.</p>\n",
                    f);
    }
    (void)fputs("<div class=\"scroll\"><table class=\"sortable\" id=\"counters-table\">\n<thead>"
                "<tr><th>Timeline</th><th>Counter</th><th>Samples</th><th>Min</th><th>Max</th>"
                "<th>Mean</th><th>Last</th></tr></thead>\n<tbody>\n",
                f);
    for (size_t i = 0; i < rp->nseries; i++) {
        counter_row(rp, f, &rp->series[i]);
    }
    (void)fputs("</tbody></table></div>\n", f);
    if (rp->series_total > rp->nseries) {
        (void)fprintf(f, "<p class=\"note\">The first %zu of %zu series.</p>\n", rp->nseries,
                      rp->series_total);
    }
    (void)fputs("</section>\n", f);
}
