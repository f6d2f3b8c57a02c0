/* SPDX-License-Identifier: MIT
 *
 * output_jsonl.c - one JSON object per item and line.  Every line has kind,
 * timeline and timeline_id, category and category_id, start and end
 * (integer ns from the trace's start; end == start for points); then per
 * kind: depth (state), from/to (arrow), value (counter), args (when any),
 * and for previews what they summarise (of, fold, row, count, durations in
 * ns, counter statistics); pixel runs (kind "run") carry of, depth,
 * count, share (of the dominant category), inclusive and per-category
 * totals in "categories".
 * Tools layer: public libslog headers and utils/common.
 */
#include "query_out.h"

static void common_fields(qout_ctx *c, json_writer *j, const char *kind, qout_span sp)
{
    json_kv_string(j, "kind", kind);
    json_kv_string(j, "timeline", qout_timeline_name(c, sp.timeline));
    json_kv_uint(j, "timeline_id", sp.timeline);
    json_kv_string(j, "category", qout_category_name(c, sp.category));
    json_key(j, "category_id");
    if (sp.category == SLOG_CATEGORY_OTHER) {
        json_null(j);
    } else {
        json_uint(j, sp.category);
    }
    json_kv_int(j, "start", qout_rel_ns(c, sp.start));
    json_kv_int(j, "end", qout_rel_ns(c, sp.end));
}

static void args_field(json_writer *j, const slog_item *it)
{
    const slog_arg *args;
    const uint32_t n = qout_item_args(it, &args);
    if (n > 0) {
        json_key(j, "args");
        qout_args_json(j, args, n);
    }
}

static void preview_fields(qout_ctx *c, json_writer *j, const slog_preview *p)
{
    char buf[64];
    json_kv_string(j, "kind", "preview");
    json_kv_string(j, "of", drawable_kind_name(p->of));
    json_kv_uint(j, "fold", p->fold);
    const char *row = qout_row_name(c, p->fold, p->row, buf, sizeof buf);
    json_kv_string(j, "row", row);
    json_kv_uint(j, "row_id", p->row);
    json_kv_string(j, "timeline", row);
    json_key(j, "timeline_id");
    if (qout_row_is_timeline(p->fold)) {
        json_uint(j, p->row);
    } else {
        json_null(j);
    }
    json_kv_string(j, "category", qout_category_name(c, p->category));
    json_key(j, "category_id");
    if (p->category == SLOG_CATEGORY_OTHER) {
        json_null(j);
    } else {
        json_uint(j, p->category);
    }
    json_kv_int(j, "start", qout_rel_ns(c, p->start));
    json_kv_int(j, "end", qout_rel_ns(c, p->end));
    json_kv_uint(j, "count", p->count);
}

static void preview_summary(qout_ctx *c, json_writer *j, const slog_preview *p)
{
    char buf[64];
    switch (p->of) {
    case SLOG_KIND_STATE:
        json_kv_int(j, "inclusive", qout_dur_ns(c, p->inclusive));
        json_kv_int(j, "exclusive", qout_dur_ns(c, p->exclusive));
        json_kv_int(j, "min", qout_dur_ns(c, p->min));
        json_kv_int(j, "max", qout_dur_ns(c, p->max));
        break;
    case SLOG_KIND_ARROW:
        json_kv_string(j, "row_to", qout_row_name(c, p->fold, p->row_to, buf, sizeof buf));
        json_kv_uint(j, "row_to_id", p->row_to);
        json_kv_int(j, "min", qout_dur_ns(c, p->min));
        json_kv_int(j, "max", qout_dur_ns(c, p->max));
        break;
    case SLOG_KIND_COUNTER:
        json_kv_double(j, "vmin", p->vmin);
        json_kv_double(j, "vmax", p->vmax);
        json_kv_double(j, "vsum", p->vsum);
        json_kv_double(j, "vlast", p->vlast);
        break;
    default:
        break;
    }
}

/* A pixel run: its row and dominant category, then what it merges, with
 * exact totals per category. */
static void run_fields(qout_ctx *c, json_writer *j, const slog_run *r)
{
    common_fields(c, j, "run", (qout_span){r->timeline, r->category, r->start, r->end});
    json_kv_string(j, "of", drawable_kind_name(r->of));
    if (r->of == SLOG_KIND_STATE) {
        json_kv_uint(j, "depth", r->depth);
    }
    if (r->of == SLOG_KIND_ARROW) {
        json_kv_string(j, "to", qout_timeline_name(c, r->timeline_to));
        json_kv_uint(j, "to_id", r->timeline_to);
    }
    json_kv_uint(j, "count", r->count);
    json_kv_double(j, "share", qout_run_share(r));
    json_kv_int(j, "inclusive", qout_dur_ns(c, r->inclusive));
    if (r->of == SLOG_KIND_COUNTER) {
        json_kv_double(j, "vmin", r->vmin);
        json_kv_double(j, "vmax", r->vmax);
        json_kv_double(j, "vsum", r->vsum);
        json_kv_double(j, "vlast", r->vlast);
    }
    json_key(j, "categories");
    json_begin_array(j);
    for (uint32_t i = 0; i < r->ncategories; i++) {
        const slog_run_share *const s = &r->categories[i];
        json_begin_object(j);
        json_kv_string(j, "category", qout_category_name(c, s->category));
        json_kv_uint(j, "category_id", s->category);
        json_kv_uint(j, "count", s->count);
        json_kv_int(j, "inclusive", qout_dur_ns(c, s->inclusive));
        json_end_object(j);
    }
    json_end_array(j);
}

static int jsonl_item(qout_ctx *c, const slog_item *it)
{
    json_writer j;
    json_writer_init(&j, c->f);
    json_begin_object(&j);
    switch (it->kind) {
    case SLOG_KIND_STATE: {
        const slog_state *s = &it->u.state;
        common_fields(c, &j, "state", (qout_span){s->timeline, s->category, s->start, s->end});
        json_kv_uint(&j, "depth", s->depth);
        break;
    }
    case SLOG_KIND_EVENT: {
        const slog_event *e = &it->u.event;
        common_fields(c, &j, "event", (qout_span){e->timeline, e->category, e->time, e->time});
        break;
    }
    case SLOG_KIND_ARROW: {
        const slog_arrow *a = &it->u.arrow;
        common_fields(c, &j, "arrow", (qout_span){a->from, a->category, a->start, a->end});
        json_kv_string(&j, "from", qout_timeline_name(c, a->from));
        json_kv_uint(&j, "from_id", a->from);
        json_kv_string(&j, "to", qout_timeline_name(c, a->to));
        json_kv_uint(&j, "to_id", a->to);
        break;
    }
    case SLOG_KIND_COUNTER: {
        const slog_counter *k = &it->u.counter;
        common_fields(c, &j, "counter", (qout_span){k->timeline, k->category, k->time, k->time});
        json_kv_double(&j, "value", k->value);
        break;
    }
    case SLOG_KIND_PREVIEW:
        preview_fields(c, &j, &it->u.preview);
        preview_summary(c, &j, &it->u.preview);
        break;
    case SLOG_KIND_RUN:
        run_fields(c, &j, &it->u.run);
        break;
    }
    args_field(&j, it);
    json_end_object(&j);
    return putc('\n', c->f) == EOF ? -1 : 0;
}

static int jsonl_none(qout_ctx *c)
{
    (void)c;
    return 0;
}

const qout_format qout_jsonl = {"jsonl", jsonl_none, jsonl_item, jsonl_none};
