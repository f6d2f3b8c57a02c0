/* SPDX-License-Identifier: MIT
 *
 * report_image.c - the overview image: the section (a canvas the inline
 * script draws, the legend, a note on what a pixel shows) and its data.
 * Each row of the grid becomes runs of equal (colour slot, shade): the
 * slot is the named category with the most inclusive time in the pixel
 * ("other", the sum of all the rest, only where no named one is), the
 * shade (1..8) the share of the pixel its row's members were busy at
 * depth 0, so a row reads like a timeline of coloured activity and gaps.
 * The data is JSON in the page (report_write_json_script escapes it).
 * Tools layer: public libslog headers and utils/common only.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "report.h"

#define SHADES 8u

/* Colour slot and shade (0: nothing) of one pixel of a row. */
static void pixel_value(const report *rp, uint32_t row, uint32_t p, uint32_t *slot, uint32_t *shade)
{
    const report_grid *g = &rp->grid;
    const size_t cell = (size_t)row * g->width + p;
    const float *w = &g->weight[cell * g->nslots];
    /* the most used named category; "other" (the sum of many) only alone */
    const uint32_t other = g->nslots - 1;
    uint32_t best = other;
    for (uint32_t s = 0; s < other; s++) {
        best = w[s] > 0.0f && (best == other || w[s] > w[best]) ? s : best;
    }
    *slot = best;
    if (w[best] <= 0.0f && g->busy[cell] <= 0.0f) {
        *shade = 0;
        return;
    }
    const double members = (double)report_layout_leaves(rp, row);
    double busy = (double)g->busy[cell] / ((double)g->resolution * members);
    busy = busy < 0.0 ? 0.0 : busy > 1.0 ? 1.0 : busy;
    const uint32_t level = 1 + (uint32_t)(busy * (SHADES - 1) + 0.5);
    *shade = level > SHADES ? SHADES : level;
}

static void row_runs(const report *rp, uint32_t row, json_writer *j)
{
    json_key(j, "r");
    json_begin_array(j);
    uint32_t run_slot = 0, run_shade = 0, run_len = 0;
    for (uint32_t p = 0; p <= rp->grid.width; p++) {
        uint32_t slot = 0, shade = 0;
        if (p < rp->grid.width) {
            pixel_value(rp, row, p, &slot, &shade);
            if (shade == 0) {
                slot = 0;
            }
        }
        if (p == rp->grid.width || slot != run_slot || shade != run_shade) {
            if (run_len > 0) {
                json_uint(j, run_len);
                json_uint(j, run_slot);
                json_uint(j, run_shade);
            }
            run_slot = slot;
            run_shade = shade;
            run_len = 0;
        }
        run_len++;
    }
    json_end_array(j);
}

static void write_slots(const report *rp, json_writer *j)
{
    const report_grid *g = &rp->grid;
    json_key(j, "slots");
    json_begin_array(j);
    for (uint32_t s = 0; s < g->nslots; s++) {
        char hex[8];
        const bool other = s + 1 == g->nslots;
        report_color_hex(other ? 0x9a9a9affu : rp->cats[g->slot_cat[s]].rgba, hex);
        json_begin_object(j);
        json_kv_string(j, "c", hex);
        json_kv_string(j, "n", other ? "(other)" : report_category_name(rp, g->slot_cat[s]));
        json_end_object(j);
    }
    json_end_array(j);
}

void report_overview_json(const report *rp, FILE *f)
{
    json_writer j;
    json_writer_init(&j, f);
    json_begin_object(&j);
    json_kv_uint(&j, "width", rp->grid.width);
    json_kv_int(&j, "resolution_ns", report_ticks_to_ns(rp, rp->grid.resolution));
    json_kv_uint(&j, "shades", SHADES);
    json_kv_uint(&j, "fold", rp->layout.fold);
    write_slots(rp, &j);
    json_key(&j, "rows");
    json_begin_array(&j);
    for (uint32_t row = 0; row < rp->layout.n; row++) {
        char raw[600], label[600];
        /* control characters shown as '?' on the canvas */
        display_text(report_row_label(rp, row, raw, sizeof raw), label, sizeof label);
        json_begin_object(&j);
        json_kv_string(&j, "l", label);
        const report_img_row *ir = &rp->layout.row[row];
        json_kv_uint(&j, "d", ir->fold == 0 && ir->key < rp->tl.n ? rp->tl.depth[ir->key] : 0);
        json_kv_uint(&j, "m", ir->members);
        row_runs(rp, row, &j);
        json_end_object(&j);
    }
    json_end_array(&j);
    json_end_object(&j);
}

static void write_legend(const report *rp, FILE *f)
{
    const report_grid *g = &rp->grid;
    (void)fputs("<ul class=\"legend\">", f);
    for (uint32_t s = 0; s < g->nslots; s++) {
        char hex[8];
        const bool other = s + 1 == g->nslots;
        report_color_hex(other ? 0x9a9a9affu : rp->cats[g->slot_cat[s]].rgba, hex);
        (void)fprintf(f, "<li><span class=\"sw\" style=\"background:%s\"></span>", hex);
        html_text(f, other ? "(other states)" : report_category_name(rp, g->slot_cat[s]));
        (void)fputs("</li>", f);
    }
    (void)fputs("</ul>\n", f);
}

/* A file with drawables but no state: say what it holds instead (the
 * page said "No drawables to draw" over 11 564 counter samples). */
static void write_no_states(const report *rp, FILE *f)
{
    (void)fputs("<p class=\"empty\" id=\"overview-none\">No states to draw: the overview shows "
                "states only. The file holds ",
                f);
    html_count(f, rp->fi.events);
    (void)fputs(" events, ", f);
    html_count(f, rp->fi.arrows);
    (void)fputs(" arrows and ", f);
    html_count(f, rp->fi.counters);
    (void)fputs(" counter samples (see Categories, Messages and Counters).</p>\n</section>\n", f);
}

void report_write_overview(const report *rp, FILE *f)
{
    html_section_begin(f, "overview", "Overview");
    if (!rp->has_data) {
        (void)fputs("<p class=\"empty\">No drawables to draw.</p>\n</section>\n", f);
        return;
    }
    if (rp->layout.n == 0) {
        write_no_states(rp, f);
        return;
    }
    (void)fprintf(f, "<p>The whole trace at %u pixels (", rp->grid.width);
    html_duration(f, rp, rp->grid.resolution);
    (void)fprintf(f,
                  " per pixel, from a %u-pixel query), %u row%s: %s. Colour: the state category of "
                  "the legend with "
                  "the most time in the pixel; shade: how busy the row was (depth-0 "
                  "states).</p>\n",
                  rp->query_pixels, rp->layout.n, rp->layout.n == 1 ? "" : "s",
                  report_fold_words(rp->layout.fold));
    bool spread = false;
    for (size_t i = 0; i < rp->npieces && !spread; i++) {
        spread = rp->pieces[i].fold > rp->layout.fold;
    }
    if (spread) {
        (void)fputs("<p class=\"note\">Where the file summarises a group of timelines at this "
                    "zoom (a dense part), the group's time is spread over its rows by their "
                    "leaf timelines.</p>\n",
                    f);
    }
    (void)fputs("<div class=\"canvas-wrap\"><canvas id=\"overview-canvas\" width=\"1\" "
                "height=\"1\"></canvas><div id=\"overview-tip\" class=\"tip\" hidden></div></div>\n"
                "<noscript><p class=\"empty\">The overview image is drawn by the page's inline "
                "script.</p></noscript>\n",
                f);
    write_legend(rp, f);
    (void)fputs("</section>\n", f);
}
