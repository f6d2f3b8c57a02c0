/* SPDX-License-Identifier: MIT
 *
 * output_table.c - aligned columns for people: kind, start and end (ms from
 * the trace's start, all six decimals so they are exact and line up),
 * duration (in the largest exact unit), timeline,
 * category, then a detail column (depth, arrow ends, counter value,
 * preview and pixel-run summaries, args as compact JSON).  Names wider than their column
 * push the line rather than being cut, so nothing is lost.
 * Tools layer: public libslog headers and utils/common.
 */
#include <inttypes.h>

#include "query_out.h"
#include "units.h"

static int table_begin(qout_ctx *c)
{
    (void)fprintf(c->f, "%-7s %18s %18s %14s  %-20s %-20s %s\n", "KIND", "START_MS", "END_MS",
                  "DURATION", "TIMELINE", "CATEGORY", "DETAIL");
    return 0;
}

/* ns as milliseconds with all six fraction digits: exact, and the decimal
 * points line up in the column. */
static const char *ms6(int64_t ns, char *buf, size_t len)
{
    const bool neg = ns < 0;
    const uint64_t mag = neg ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
    (void)snprintf(buf, len, "%s%" PRIu64 ".%06" PRIu64, neg ? "-" : "", mag / 1000000,
                   mag % 1000000);
    return buf;
}

static void row(qout_ctx *c,
                const char *kind,
                int64_t start,
                int64_t end,
                const char *timeline,
                const char *category)
{
    char a[48];
    char b[48];
    char d[48];
    char tl[256];
    char cat[256];
    const int64_t s = qout_rel_ns(c, start);
    const int64_t e = qout_rel_ns(c, end);
    (void)fprintf(c->f, "%-7s %18s %18s %14s  %-20s %-20s", kind, ms6(s, a, sizeof a),
                  ms6(e, b, sizeof b), units_format_duration(e - s, d, sizeof d),
                  display_text(timeline, tl, sizeof tl), display_text(category, cat, sizeof cat));
}

static void detail_args(qout_ctx *c, const slog_item *it)
{
    const slog_arg *args;
    const uint32_t n = qout_item_args(it, &args);
    if (n > 0) {
        json_writer j;
        json_writer_init(&j, c->f);
        (void)fputs(" args=", c->f);
        qout_args_json(&j, args, n);
    }
}

static void counter_detail(qout_ctx *c, double vmin, double vmax, double vsum, double vlast)
{
    char v[4][48];
    (void)fprintf(c->f, " vmin=%s vmax=%s vsum=%s vlast=%s",
                  json_format_double(vmin, v[0], sizeof v[0]),
                  json_format_double(vmax, v[1], sizeof v[1]),
                  json_format_double(vsum, v[2], sizeof v[2]),
                  json_format_double(vlast, v[3], sizeof v[3]));
}

static void preview_detail(qout_ctx *c, const slog_preview *p)
{
    char a[48];
    char b[48];
    (void)fprintf(c->f, " of=%s fold=%" PRIu32 " count=%" PRIu64, drawable_kind_name(p->of),
                  p->fold, p->count);
    if (p->of == SLOG_KIND_STATE) {
        (void)fprintf(c->f, " inclusive=%s exclusive=%s",
                      units_format_duration(qout_dur_ns(c, p->inclusive), a, sizeof a),
                      units_format_duration(qout_dur_ns(c, p->exclusive), b, sizeof b));
    }
    if (p->of == SLOG_KIND_STATE || p->of == SLOG_KIND_ARROW) {
        (void)fprintf(c->f, " min=%s max=%s",
                      units_format_duration(qout_dur_ns(c, p->min), a, sizeof a),
                      units_format_duration(qout_dur_ns(c, p->max), b, sizeof b));
    }
    if (p->of == SLOG_KIND_ARROW) {
        (void)fprintf(c->f, " to=%s", qout_row_name(c, p->fold, p->row_to, a, sizeof a));
    }
    if (p->of == SLOG_KIND_COUNTER) {
        counter_detail(c, p->vmin, p->vmax, p->vsum, p->vlast);
    }
}

static void run_detail(qout_ctx *c, const slog_run *r)
{
    char a[48];
    char b[256];
    (void)fprintf(c->f, " of=%s count=%" PRIu64 " share=%s categories=%" PRIu32,
                  drawable_kind_name(r->of), r->count,
                  json_format_double(qout_run_share(r), a, sizeof a), r->ncategories);
    if (r->of == SLOG_KIND_STATE) {
        (void)fprintf(c->f, " depth=%" PRIu32, r->depth);
    }
    if (r->of == SLOG_KIND_STATE || r->of == SLOG_KIND_ARROW) {
        (void)fprintf(c->f, " inclusive=%s",
                      units_format_duration(qout_dur_ns(c, r->inclusive), a, sizeof a));
    }
    if (r->of == SLOG_KIND_ARROW) {
        (void)fprintf(c->f, " to=%s", display_text(qout_timeline_name(c, r->timeline_to), b,
                                                   sizeof b));
    }
    if (r->of == SLOG_KIND_COUNTER) {
        counter_detail(c, r->vmin, r->vmax, r->vsum, r->vlast);
    }
}

static int table_item(qout_ctx *c, const slog_item *it)
{
    char buf[48];
    switch (it->kind) {
    case SLOG_KIND_STATE: {
        const slog_state *s = &it->u.state;
        row(c, "state", s->start, s->end, qout_timeline_name(c, s->timeline),
            qout_category_name(c, s->category));
        (void)fprintf(c->f, " depth=%" PRIu32, s->depth);
        break;
    }
    case SLOG_KIND_EVENT: {
        const slog_event *e = &it->u.event;
        row(c, "event", e->time, e->time, qout_timeline_name(c, e->timeline),
            qout_category_name(c, e->category));
        break;
    }
    case SLOG_KIND_ARROW: {
        const slog_arrow *a = &it->u.arrow;
        row(c, "arrow", a->start, a->end, qout_timeline_name(c, a->from),
            qout_category_name(c, a->category));
        char to[256];
        (void)fprintf(c->f, " to=%s", display_text(qout_timeline_name(c, a->to), to, sizeof to));
        break;
    }
    case SLOG_KIND_COUNTER: {
        const slog_counter *k = &it->u.counter;
        row(c, "counter", k->time, k->time, qout_timeline_name(c, k->timeline),
            qout_category_name(c, k->category));
        (void)fprintf(c->f, " value=%s", json_format_double(k->value, buf, sizeof buf));
        break;
    }
    case SLOG_KIND_PREVIEW: {
        const slog_preview *p = &it->u.preview;
        row(c, "preview", p->start, p->end, qout_row_name(c, p->fold, p->row, buf, sizeof buf),
            qout_category_name(c, p->category));
        preview_detail(c, p);
        break;
    }
    case SLOG_KIND_RUN: {
        const slog_run *r = &it->u.run;
        row(c, "run", r->start, r->end, qout_timeline_name(c, r->timeline),
            qout_category_name(c, r->category));
        run_detail(c, r);
        break;
    }
    }
    detail_args(c, it);
    return putc('\n', c->f) == EOF ? -1 : 0;
}

static int table_end(qout_ctx *c)
{
    (void)c;
    return 0;
}

const qout_format qout_table = {"table", table_begin, table_item, table_end};
