/* SPDX-License-Identifier: MIT
 *
 * check_report.c - slog-check's report: the damaged nodes (index, level,
 * box, what failed, byte offset, message) and what a query still answers,
 * as the parts of the file's time range that no damaged node overlaps:
 * at full detail without args (rows and drawables blobs), with args, and
 * zoomed out or in statistics (previews too).  Text for people, or one
 * JSON object (schema 1, times in integer ns as slog-info gives them).
 * Tools layer: public libslog headers and utils/common only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "json_out.h"
#include "units.h"

#define FULL_DETAIL (SLOG_DAMAGE_ROW | SLOG_DAMAGE_DRAWABLES)
#define WITH_ARGS (FULL_DETAIL | SLOG_DAMAGE_ARGS)
#define ZOOMED (WITH_ARGS | SLOG_DAMAGE_PREVIEW)

static int cmp_range(const void *a, const void *b)
{
    const check_range *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* Sorted boxes of the damaged nodes with one of the parts bits. */
static check_range *damaged_boxes(const check_result *c, uint32_t parts, size_t *n)
{
    check_range *const v = malloc((c->ndamaged + 1) * sizeof *v);
    *n = 0;
    if (v == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < c->ndamaged; i++) {
        if (c->damaged[i].parts & parts) {
            v[*n].start = c->damaged[i].start;
            v[(*n)++].end = c->damaged[i].end;
        }
    }
    qsort(v, *n, sizeof *v, cmp_range);
    return v;
}

int check_intact_ranges(const check_result *c, uint32_t parts, check_range **out, size_t *n)
{
    size_t nb;
    check_range *const bad = damaged_boxes(c, parts, &nb);
    check_range *const ok = malloc((nb + 1) * sizeof *ok);
    *out = ok;
    *n = 0;
    if (bad == NULL || ok == NULL) {
        free(bad);
        return -1;
    }
    int64_t at = c->info->start;
    bool open = c->info->start <= c->info->end; /* false: a file without drawables */
    for (size_t i = 0; open && i < nb; i++) {
        if (bad[i].start > at) {
            ok[*n].start = at;
            ok[(*n)++].end = bad[i].start;
        }
        if (bad[i].end >= at) {
            open = bad[i].end < c->info->end;
            at = bad[i].end;
        }
    }
    if (open && at <= c->info->end) {
        ok[*n].start = at;
        ok[(*n)++].end = c->info->end;
    }
    free(bad);
    return 0;
}

static const char *part_name(uint32_t part)
{
    switch (part) {
    case SLOG_DAMAGE_ROW:
        return "row";
    case SLOG_DAMAGE_DRAWABLES:
        return "drawables";
    case SLOG_DAMAGE_ARGS:
        return "args";
    default:
        return "preview";
    }
}

/* ---- text ---- */

static void text_ranges(const check_result *c, const char *what, uint32_t parts)
{
    check_range *v;
    size_t n;
    if (check_intact_ranges(c, parts, &v, &n) != 0) {
        (void)printf("%s: (out of memory)\n", what);
        free(v);
        return;
    }
    (void)printf("%s:", what);
    for (size_t i = 0; i < n; i++) {
        (void)printf(" [%" PRId64 ", %" PRId64 "]", v[i].start, v[i].end);
    }
    (void)printf("%s\n", n == 0 ? " nothing" : "");
    free(v);
}

static void text_damage(const slog_node_damage *d)
{
    if (d->index == UINT64_MAX) { /* an index's input file that cannot be read */
        (void)printf("unreadable input (%" PRIu64 " drawables) [%" PRId64 ", %" PRId64 "]: %s\n",
                     d->drawables, d->start, d->end, d->message);
        return;
    }
    (void)printf("damaged node %" PRIu64, d->index);
    if (d->level != UINT32_MAX) {
        (void)printf(" (level %" PRIu32 ", %" PRIu64 " drawables)", d->level, d->drawables);
    }
    (void)printf(" [%" PRId64 ", %" PRId64 "]%s:", d->start, d->end,
                 d->range_exact ? "" : " (its row is damaged: the range of an intact ancestor)");
    for (uint32_t b = 1; b <= SLOG_DAMAGE_PREVIEW; b <<= 1) {
        if (d->parts & b) {
            (void)printf(" %s", part_name(b));
        }
    }
    if (d->offset != UINT64_MAX) {
        (void)printf(" at byte %" PRIu64, d->offset);
    }
    (void)printf(": %s\n", d->message);
}

void check_print_text(const check_result *c)
{
    const slog_file_info *const fi = c->info;
    const slog_verify_totals *const t = &c->totals;
    (void)printf("file:       %s\n", c->path);
    (void)printf("format:     read version %" PRIu32 ", %s, %s\n", fi->format_read_version,
                 fi->checksums ? "checksums verified" : "no checksums (unverified)",
                 fi->complete ? "complete" : "incomplete (writer did not finish)");
    (void)printf("nodes:      %" PRIu64 " checked, %" PRIu64 " damaged; %" PRIu64
                 " blobs (%" PRIu64 " bytes) verified\n",
                 t->nodes, t->nodes_damaged, t->blobs, t->bytes_verified);
    const uint64_t total = fi->states + fi->events + fi->arrows + fi->counters;
    (void)printf("drawables:  %" PRIu64 " in the file, %" PRIu64 " intact, %" PRIu64 " lost\n",
                 total, t->drawables_intact,
                 total > t->drawables_intact ? total - t->drawables_intact : 0);
    for (size_t i = 0; i < c->ndamaged; i++) {
        text_damage(&c->damaged[i]);
    }
    (void)printf("status:     %s\n", c->ndamaged == 0 ? "clean" : "damaged");
    if (c->ndamaged > 0) {
        (void)printf("a query still answers (ticks, all timelines):\n");
        text_ranges(c, "  full detail", FULL_DETAIL);
        text_ranges(c, "  with args", WITH_ARGS);
        text_ranges(c, "  zoomed out, statistics", ZOOMED);
    }
}

/* ---- JSON ---- */

static void json_ranges(json_writer *j, const check_result *c, const char *key, uint32_t parts)
{
    check_range *v;
    size_t n;
    json_key(j, key);
    json_begin_array(j);
    if (check_intact_ranges(c, parts, &v, &n) == 0) {
        for (size_t i = 0; i < n; i++) {
            json_begin_array(j);
            json_int(j, units_ticks_to_ns(v[i].start, c->info->ticks_per_second));
            json_int(j, units_ticks_to_ns(v[i].end, c->info->ticks_per_second));
            json_end_array(j);
        }
    }
    free(v);
    json_end_array(j);
}

static void json_damage(json_writer *j, const check_result *c, const slog_node_damage *d)
{
    json_begin_object(j);
    json_kv_uint(j, "node", d->index);
    json_key(j, "level");
    if (d->level == UINT32_MAX) {
        json_null(j);
    } else {
        json_uint(j, d->level);
    }
    json_kv_int(j, "start", units_ticks_to_ns(d->start, c->info->ticks_per_second));
    json_kv_int(j, "end", units_ticks_to_ns(d->end, c->info->ticks_per_second));
    json_kv_bool(j, "range_exact", d->range_exact);
    json_kv_uint(j, "drawables", d->drawables);
    json_key(j, "parts");
    json_begin_array(j);
    for (uint32_t b = 1; b <= SLOG_DAMAGE_PREVIEW; b <<= 1) {
        if (d->parts & b) {
            json_string(j, part_name(b));
        }
    }
    json_end_array(j);
    json_key(j, "offset");
    if (d->offset == UINT64_MAX) {
        json_null(j);
    } else {
        json_uint(j, d->offset);
    }
    json_kv_string(j, "message", d->message);
    json_end_object(j);
}

static void json_totals(json_writer *j, const check_result *c)
{
    const slog_file_info *const fi = c->info;
    const slog_verify_totals *const t = &c->totals;
    const uint64_t total = fi->states + fi->events + fi->arrows + fi->counters;
    json_kv_uint(j, "format_read_version", fi->format_read_version);
    json_kv_bool(j, "checksums", fi->checksums);
    json_kv_bool(j, "complete", fi->complete);
    json_kv_uint(j, "nodes", t->nodes);
    json_kv_uint(j, "nodes_damaged", t->nodes_damaged);
    json_kv_uint(j, "blobs", t->blobs);
    json_kv_uint(j, "bytes_verified", t->bytes_verified);
    json_kv_uint(j, "drawables", total);
    json_kv_uint(j, "drawables_intact", t->drawables_intact);
    json_kv_uint(j, "drawables_lost", total > t->drawables_intact ? total - t->drawables_intact : 0);
}

void check_print_json(const check_result *c, const char *salvage_out, uint64_t salvaged)
{
    json_writer j;
    json_writer_init(&j, stdout);
    json_begin_object(&j);
    json_kv_int(&j, "schema", 1);
    json_kv_string(&j, "file", c->path);
    json_kv_string(&j, "status", c->ndamaged == 0 ? "clean" : "damaged");
    json_totals(&j, c);
    json_key(&j, "damaged");
    json_begin_array(&j);
    for (size_t i = 0; i < c->ndamaged; i++) {
        json_damage(&j, c, &c->damaged[i]);
    }
    json_end_array(&j);
    json_key(&j, "intact");
    json_begin_object(&j);
    json_ranges(&j, c, "full_detail", FULL_DETAIL);
    json_ranges(&j, c, "with_args", WITH_ARGS);
    json_ranges(&j, c, "zoomed_out", ZOOMED);
    json_end_object(&j);
    if (salvage_out != NULL) {
        json_kv_string(&j, "salvage", salvage_out);
        json_kv_uint(&j, "salvaged_drawables", salvaged);
    }
    json_end_object(&j);
    (void)fputc('\n', stdout);
}
