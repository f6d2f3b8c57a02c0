/* SPDX-License-Identifier: MIT
 *
 * report_page.c - the page around the sections: the head with the inline
 * style sheet and a Content-Security-Policy that forbids every network
 * access (the page needs none: style, script and data are inline), the
 * header with the file's facts and what the report cost to make, the
 * sections in order, and the inline script at the end.
 * Tools layer: public libslog headers and utils/common only.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_assets.h"
#include "units.h"

#ifndef SLOG_TOOL_VERSION
#    define SLOG_TOOL_VERSION SLOG_VERSION_STRING
#endif

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

static void write_head(const report *rp, FILE *f)
{
    (void)fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                "<meta name=\"generator\" content=\"slog-report " SLOG_TOOL_VERSION "\">\n"
                "<title>",
                f);
    html_text(f, base_name(rp->cfg.path));
    (void)fputs(" \xe2\x80\x94 slog-report</title>\n<style>\n", f);
    report_write_lines(f, report_css);
    (void)fputs("</style>\n</head>\n<body>\n", f);
}

static void fact(FILE *f, const char *name, const char *id)
{
    (void)fprintf(f, "<tr><th>%s</th><td id=\"fact-%s\">", name, id);
}

static void write_counts(const report *rp, FILE *f)
{
    const slog_file_info *fi = &rp->fi;
    fact(f, "Drawables", "drawables");
    html_count(f, fi->states + fi->events + fi->arrows + fi->counters);
    (void)fputs(" (", f);
    html_count(f, fi->states);
    (void)fputs(" states, ", f);
    html_count(f, fi->events);
    (void)fputs(" events, ", f);
    html_count(f, fi->arrows);
    (void)fputs(" arrows, ", f);
    html_count(f, fi->counters);
    (void)fputs(" counter samples)</td></tr>\n", f);
    fact(f, "Timelines", "timelines");
    html_count(f, fi->timelines);
    (void)fputs("</td></tr>\n", f);
    fact(f, "Categories", "categories");
    html_count(f, fi->categories);
    (void)fputs("</td></tr>\n", f);
}

static void write_facts(const report *rp, FILE *f)
{
    const slog_file_info *fi = &rp->fi;
    char b[64];
    html_section_begin(f, "facts", "File");
    (void)fputs("<table class=\"facts\">\n", f);
    fact(f, "Path", "path");
    html_text(f, rp->cfg.path);
    (void)fprintf(f, "</td></tr>\n");
    fact(f, "Size", "size");
    (void)fprintf(f, "%s (%" PRIu64 " bytes)</td></tr>\n",
                  units_format_bytes(fi->file_bytes, b, sizeof b), fi->file_bytes);
    fact(f, "Format", "format");
    (void)fprintf(f, "libslog, read version %" PRIu32 ", write version %" PRIu32 "</td></tr>\n",
                  fi->format_read_version, fi->format_write_version);
    fact(f, "Creator", "creator");
    html_text(f, fi->creator);
    (void)fprintf(f, "</td></tr>\n");
    fact(f, "Complete", "complete");
    (void)fputs(fi->complete ? "yes"
                             : "<strong class=\"warn\">no</strong>: the writer did not "
                               "finish (killed, or still writing); this is what it "
                               "flushed",
                f);
    (void)fputs("</td></tr>\n", f);
    fact(f, "Duration", "duration");
    if (rp->has_data) {
        html_duration(f, rp, fi->end - fi->start);
        (void)fprintf(f, " (ticks %" PRId64 " \xe2\x80\xa6 %" PRId64 ", %" PRIu64 " per second)",
                      fi->start, fi->end, fi->ticks_per_second);
    } else {
        (void)fputs("none: the file holds no drawable", f);
    }
    (void)fputs("</td></tr>\n", f);
    write_counts(rp, f);
    fact(f, "Tree", "tree");
    (void)fprintf(f, "%" PRIu64 " nodes, depth %" PRIu32 ", fanout %" PRIu32 "</td></tr>\n",
                  fi->nodes, fi->depth, fi->fanout);
    (void)fputs("</table>\n</section>\n", f);
}

/* The cost line.  A file whose nodes are few for the overview's pixels
 * (a small one: a 10 MiB trace of 8 ranks) is read mostly or wholly, and
 * the line says so rather than "without a full scan" (it read 104 % of such
 * a file and said that). */
static void write_cost(const report *rp, FILE *f)
{
    const report_cost *k = &rp->cost;
    char a[32], b[160], c[32];
    const uint64_t all = report_data_bytes(rp);
    const double share = all > 0 ? 100.0 * (double)k->bytes_read / (double)all : 0.0;
    (void)fprintf(f,
                  "<p class=\"cost\" id=\"cost\" data-bytes-read=\"%" PRIu64
                  "\" data-file-bytes=\"%" PRIu64 "\">Made from previews and statistics",
                  k->bytes_read, all);
    if (share < 50.0) {
        (void)fputs(", without a full scan: the queries read", f);
    } else {
        (void)fprintf(f,
                      "; the file is small for the overview's %" PRIu32
                      " pixels, so the queries read most or all of it:",
                      rp->query_pixels);
    }
    (void)fprintf(f, " %s (%.3g%% of %s) in %" PRIu64 " node blobs",
                  units_format_bytes(k->bytes_read, a, sizeof a), share,
                  report_data_words(rp, b, sizeof b), k->blobs_read);
    if (k->os_read != UINT64_MAX) {
        (void)fprintf(f, "; the process read %s in all, opening included",
                      units_format_bytes(k->os_read, c, sizeof c));
    }
    (void)fprintf(f, "; %.0f ms.</p>\n", k->ms);
}

static void write_header(const report *rp, FILE *f)
{
    (void)fputs("<header>\n<h1>", f);
    html_text(f, base_name(rp->cfg.path));
    (void)fputs("</h1>\n", f);
    if (!rp->fi.complete) {
        (void)fputs("<p class=\"banner\">Incomplete file: the writer did not finish it.</p>\n", f);
    }
    write_cost(rp, f);
    (void)fputs("<nav><a href=\"#overview\">Overview</a> <a href=\"#facts\">File</a> "
                "<a href=\"#categories\">Categories</a> <a href=\"#utilisation\">Utilisation</a> "
                "<a href=\"#top\">Longest states</a> <a href=\"#messages\">Messages</a> "
                "<a href=\"#counters\">Counters</a></nav>\n</header>\n<main>\n",
                f);
}

int report_write_html(const report *rp, FILE *f)
{
    write_head(rp, f);
    write_header(rp, f);
    report_write_overview(rp, f);
    write_facts(rp, f);
    report_write_categories(rp, f);
    report_write_utilisation(rp, f);
    report_write_top(rp, f);
    report_write_matrix(rp, f);
    report_write_counters(rp, f);
    (void)fprintf(f, "</main>\n<footer>slog-report " SLOG_TOOL_VERSION " (libslog %s)</footer>\n",
                  slog_version_string());
    if (rp->has_data &&
        report_write_json_script(f, "overview-data", rp, report_overview_json) != 0) {
        return -1;
    }
    (void)fputs("<script>\n", f);
    report_write_lines(f, report_js);
    (void)fputs("</script>\n</body>\n</html>\n", f);
    return 0;
}
