/* SPDX-License-Identifier: MIT
 *
 * query_out.c - helpers shared by the output formats of slog-query: names
 * (ids out of range give "" rather than a crash: a damaged file must not
 * take the tool down), exact tick -> ns conversion, and typed args as JSON
 * (uint64 printed exactly, doubles round-tripping, JSON args raw).
 * Tools layer: public libslog headers and utils/common.
 */
#include "query_out.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

static int64_t sat_sub(int64_t a, int64_t b)
{
    int64_t d;
    if (__builtin_sub_overflow(a, b, &d)) {
        return a < b ? INT64_MIN : INT64_MAX;
    }
    return d;
}

int64_t qout_rel_ns(const qout_ctx *c, int64_t ticks)
{
    return units_ticks_to_ns(sat_sub(ticks, c->fi->start), c->fi->ticks_per_second);
}

int64_t qout_abs_ns(const qout_ctx *c, int64_t ticks)
{
    return units_ticks_to_ns(ticks, c->fi->ticks_per_second);
}

int qout_report_error(const char *path, const char *what, int rc, const slog_error *err)
{
    (void)fprintf(stderr, "slog-query: %s: %s: %s (%s", path, what,
                  err->message[0] != '\0' ? err->message : "unknown error", slog_status_name(rc));
    if (err->offset != UINT64_MAX && err->offset != 0) {
        (void)fprintf(stderr, ", byte %" PRIu64, err->offset);
    }
    if (err->source[0] != '\0' && strcmp(err->source, path) != 0) {
        (void)fprintf(stderr, ", in %s", err->source);
    }
    (void)fprintf(stderr, ")\n");
    return EXIT_FAILURE;
}

int64_t qout_dur_ns(const qout_ctx *c, int64_t ticks)
{
    return units_ticks_to_ns(ticks, c->fi->ticks_per_second);
}

const char *qout_timeline_name(const qout_ctx *c, uint32_t id)
{
    return id < c->tl->n ? c->tl->info[id].name : "";
}

const char *qout_category_name(const qout_ctx *c, uint32_t id)
{
    if (id == SLOG_CATEGORY_OTHER) {
        return "(other)";
    }
    if (id >= c->ncats || c->cats[id].name == NULL) {
        return "";
    }
    return c->cats[id].name;
}

const char *qout_category_group(const qout_ctx *c, uint32_t id)
{
    if (id >= c->ncats || c->cats[id].group == NULL) {
        return "";
    }
    return c->cats[id].group;
}

bool qout_row_is_timeline(uint32_t fold)
{
    return fold <= 2;
}

const char *qout_row_name(const qout_ctx *c, uint32_t fold, uint32_t row, char *buf, size_t len)
{
    if (qout_row_is_timeline(fold)) {
        return qout_timeline_name(c, row);
    }
    /* fold 2+s: block `row` of top-level timelines whose id >> s == row */
    (void)snprintf(buf, len, "block %u/%u", row, fold - 2);
    return buf;
}

void qout_args_json(json_writer *j, const slog_arg *args, uint32_t nargs)
{
    json_begin_object(j);
    for (uint32_t i = 0; i < nargs; i++) {
        const slog_arg *a = &args[i];
        json_key(j, a->key != NULL ? a->key : "");
        switch (a->type) {
        case SLOG_ARG_STRING:
            json_string(j, a->v.s != NULL ? a->v.s : "");
            break;
        case SLOG_ARG_INT:
            json_int(j, a->v.i);
            break;
        case SLOG_ARG_UINT:
            json_uint(j, a->v.u);
            break;
        case SLOG_ARG_DOUBLE:
            json_double(j, a->v.d);
            break;
        case SLOG_ARG_BOOL:
            json_bool(j, a->v.b);
            break;
        case SLOG_ARG_JSON:
            json_raw_checked(j, a->v.s); /* a damaged file must not break the output */
            break;
        default:
            json_null(j);
            break;
        }
    }
    json_end_object(j);
}

uint32_t qout_item_args(const slog_item *it, const slog_arg **args)
{
    switch (it->kind) {
    case SLOG_KIND_STATE:
        *args = it->u.state.args;
        return it->u.state.args != NULL ? it->u.state.nargs : 0;
    case SLOG_KIND_EVENT:
        *args = it->u.event.args;
        return it->u.event.args != NULL ? it->u.event.nargs : 0;
    case SLOG_KIND_ARROW:
        *args = it->u.arrow.args;
        return it->u.arrow.args != NULL ? it->u.arrow.nargs : 0;
    default:
        *args = NULL;
        return 0;
    }
}

double qout_run_share(const slog_run *r)
{
    if ((r->of == SLOG_KIND_STATE || r->of == SLOG_KIND_ARROW) && r->inclusive > 0) {
        return (double)r->dominant_inclusive / (double)r->inclusive;
    }
    return r->count > 0 ? (double)r->dominant_count / (double)r->count : 0.0;
}
