/* SPDX-License-Identifier: MIT
 *
 * output_csv.c - a header and one row per item, the union of every kind's
 * fields (empty where a field does not apply).  Quoting follows RFC 4180:
 * a field containing a comma, a double quote, CR or LF is enclosed in
 * double quotes with inner quotes doubled.  Times are integer ns from the
 * trace's start; args are one JSON object in the last column.
 * Tools layer: public libslog headers and utils/common.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "query_out.h"

/* putc_unlocked: one thread writes the stream, and the per-call lock of
 * fputs/putc dominated the output time. */
static void csv_field(FILE *f, const char *s)
{
    const bool quote = strpbrk(s, ",\"\r\n") != NULL;
    if (quote) {
        (void)putc_unlocked('"', f);
    }
    for (const char *p = s; *p != '\0'; p++) {
        if (*p == '"') {
            (void)putc_unlocked('"', f);
        }
        (void)putc_unlocked(*p, f);
    }
    if (quote) {
        (void)putc_unlocked('"', f);
    }
}

enum {
    COL_KIND,
    COL_TL_ID,
    COL_TL,
    COL_CAT_ID,
    COL_CAT,
    COL_START,
    COL_END,
    COL_DEPTH,
    COL_FROM_ID,
    COL_FROM,
    COL_TO_ID,
    COL_TO,
    COL_VALUE,
    COL_OF,
    COL_FOLD,
    COL_COUNT,
    COL_INCL,
    COL_EXCL,
    COL_MIN,
    COL_MAX,
    COL_VMIN,
    COL_VMAX,
    COL_VSUM,
    COL_VLAST,
    COL_SHARE,
    COL_ARGS,
    NCOL
};

static const char *const header[NCOL] = {
    "kind",  "timeline_id", "timeline",  "category_id", "category", "start", "end",
    "depth", "from_id",     "from",      "to_id",       "to",       "value", "of",
    "fold",  "count",       "inclusive", "exclusive",   "min",      "max",   "vmin",
    "vmax",  "vsum",        "vlast",     "share",       "args",
};

/* One row being filled: text per column, NULL for empty. */
typedef struct csv_row {
    const char *v[NCOL];
    char num[NCOL][48];
    char row_buf[2][64];
} csv_row;

static void set_str(csv_row *r, int col, const char *s)
{
    r->v[col] = s;
}

static void set_int(csv_row *r, int col, int64_t x)
{
    (void)snprintf(r->num[col], sizeof r->num[col], "%" PRId64, x);
    r->v[col] = r->num[col];
}

static void set_uint(csv_row *r, int col, uint64_t x)
{
    (void)snprintf(r->num[col], sizeof r->num[col], "%" PRIu64, x);
    r->v[col] = r->num[col];
}

static void set_double(csv_row *r, int col, double x)
{
    r->v[col] = json_format_double(x, r->num[col], sizeof r->num[col]);
}

static int csv_begin(qout_ctx *c)
{
    for (int i = 0; i < NCOL; i++) {
        if (i > 0) {
            (void)putc(',', c->f);
        }
        (void)fputs(header[i], c->f);
    }
    (void)putc('\n', c->f);
    return 0;
}

static void set_head(qout_ctx *c, csv_row *r, const char *kind, qout_span sp)
{
    set_str(r, COL_KIND, kind);
    set_uint(r, COL_TL_ID, sp.timeline);
    set_str(r, COL_TL, qout_timeline_name(c, sp.timeline));
    if (sp.category != SLOG_CATEGORY_OTHER) {
        set_uint(r, COL_CAT_ID, sp.category);
    }
    set_str(r, COL_CAT, qout_category_name(c, sp.category));
    set_int(r, COL_START, qout_rel_ns(c, sp.start));
    set_int(r, COL_END, qout_rel_ns(c, sp.end));
}

static void set_preview(qout_ctx *c, csv_row *r, const slog_preview *p)
{
    set_head(c, r, "preview", (qout_span){p->row, p->category, p->start, p->end});
    if (!qout_row_is_timeline(p->fold)) {
        r->v[COL_TL_ID] = NULL;
    }
    set_str(r, COL_TL, qout_row_name(c, p->fold, p->row, r->row_buf[0], sizeof r->row_buf[0]));
    set_str(r, COL_OF, drawable_kind_name(p->of));
    set_uint(r, COL_FOLD, p->fold);
    set_uint(r, COL_COUNT, p->count);
    if (p->of == SLOG_KIND_STATE) {
        set_int(r, COL_INCL, qout_dur_ns(c, p->inclusive));
        set_int(r, COL_EXCL, qout_dur_ns(c, p->exclusive));
    }
    if (p->of == SLOG_KIND_STATE || p->of == SLOG_KIND_ARROW) {
        set_int(r, COL_MIN, qout_dur_ns(c, p->min));
        set_int(r, COL_MAX, qout_dur_ns(c, p->max));
    }
    if (p->of == SLOG_KIND_ARROW) {
        if (qout_row_is_timeline(p->fold)) {
            set_uint(r, COL_TO_ID, p->row_to);
        }
        set_str(r, COL_TO,
                qout_row_name(c, p->fold, p->row_to, r->row_buf[1], sizeof r->row_buf[1]));
    }
    if (p->of == SLOG_KIND_COUNTER) {
        set_double(r, COL_VMIN, p->vmin);
        set_double(r, COL_VMAX, p->vmax);
        set_double(r, COL_VSUM, p->vsum);
        set_double(r, COL_VLAST, p->vlast);
    }
}

/* A pixel run: its dominant category and share; per-category totals are
 * in the jsonl output only. */
static void set_run(qout_ctx *c, csv_row *r, const slog_run *p)
{
    set_head(c, r, "run", (qout_span){p->timeline, p->category, p->start, p->end});
    set_str(r, COL_OF, drawable_kind_name(p->of));
    set_uint(r, COL_COUNT, p->count);
    set_double(r, COL_SHARE, qout_run_share(p));
    if (p->of == SLOG_KIND_STATE) {
        set_uint(r, COL_DEPTH, p->depth);
    }
    if (p->of == SLOG_KIND_STATE || p->of == SLOG_KIND_ARROW) {
        set_int(r, COL_INCL, qout_dur_ns(c, p->inclusive));
    }
    if (p->of == SLOG_KIND_ARROW) {
        set_uint(r, COL_TO_ID, p->timeline_to);
        set_str(r, COL_TO, qout_timeline_name(c, p->timeline_to));
    }
    if (p->of == SLOG_KIND_COUNTER) {
        set_double(r, COL_VMIN, p->vmin);
        set_double(r, COL_VMAX, p->vmax);
        set_double(r, COL_VSUM, p->vsum);
        set_double(r, COL_VLAST, p->vlast);
    }
}

static void set_item(qout_ctx *c, csv_row *r, const slog_item *it)
{
    switch (it->kind) {
    case SLOG_KIND_STATE: {
        const slog_state *s = &it->u.state;
        set_head(c, r, "state", (qout_span){s->timeline, s->category, s->start, s->end});
        set_uint(r, COL_DEPTH, s->depth);
        break;
    }
    case SLOG_KIND_EVENT: {
        const slog_event *e = &it->u.event;
        set_head(c, r, "event", (qout_span){e->timeline, e->category, e->time, e->time});
        break;
    }
    case SLOG_KIND_ARROW: {
        const slog_arrow *a = &it->u.arrow;
        set_head(c, r, "arrow", (qout_span){a->from, a->category, a->start, a->end});
        set_uint(r, COL_FROM_ID, a->from);
        set_str(r, COL_FROM, qout_timeline_name(c, a->from));
        set_uint(r, COL_TO_ID, a->to);
        set_str(r, COL_TO, qout_timeline_name(c, a->to));
        break;
    }
    case SLOG_KIND_COUNTER: {
        const slog_counter *k = &it->u.counter;
        set_head(c, r, "counter", (qout_span){k->timeline, k->category, k->time, k->time});
        set_double(r, COL_VALUE, k->value);
        break;
    }
    case SLOG_KIND_PREVIEW:
        set_preview(c, r, &it->u.preview);
        break;
    case SLOG_KIND_RUN:
        set_run(c, r, &it->u.run);
        break;
    }
}

/* args as JSON text (caller frees), NULL when none */
static char *args_text(const slog_item *it)
{
    const slog_arg *args;
    const uint32_t n = qout_item_args(it, &args);
    if (n == 0) {
        return NULL;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m == NULL) {
        return NULL;
    }
    json_writer j;
    json_writer_init(&j, m);
    qout_args_json(&j, args, n);
    if (fclose(m) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static int csv_item(qout_ctx *c, const slog_item *it)
{
    csv_row r;
    memset(r.v, 0, sizeof r.v);
    set_item(c, &r, it);
    char *args = args_text(it);
    r.v[COL_ARGS] = args;
    for (int i = 0; i < NCOL; i++) {
        if (i > 0) {
            (void)putc_unlocked(',', c->f);
        }
        if (r.v[i] != NULL) {
            csv_field(c->f, r.v[i]);
        }
    }
    free(args);
    return putc('\n', c->f) == EOF ? -1 : 0;
}

static int csv_end(qout_ctx *c)
{
    (void)c;
    return 0;
}

const qout_format qout_csv = {"csv", csv_begin, csv_item, csv_end};
