/* SPDX-License-Identifier: MIT
 *
 * slog-info - what a libslog file holds: format versions, completeness,
 * clock and time range, counts per kind, the timeline tree, the categories
 * and the shape and size of the bounding-box tree.  It reads only what
 * slog_reader_open reads (attributes and tables, never a payload), so it
 * is instant on any file size.  For an index it lists the inputs.  Text for people, or with --json one object
 * (schema 1) whose times are integer ns converted exactly from ticks.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slog/slog.h>

#include "cli.h"
#include "info_index.h"
#include "json_out.h"
#include "timeline_tree.h"
#include "units.h"
#include "out_file.h"

#ifndef SLOG_TOOL_VERSION
#    define SLOG_TOOL_VERSION SLOG_VERSION_STRING
#endif

#define PROG          "slog-info"
#define DEFAULT_LINES 50u

enum {
    EXIT_USAGE = 2
};

typedef struct info_opts {
    const char *path;
    bool json;
    bool all;
} info_opts;

static void usage(FILE *f)
{
    (void)fprintf(f,
                  "Usage: " PROG " FILE [--json] [--all]\n"
                  "Describe a libslog trace file without reading its payload.\n"
                  "\n"
                  "  -j, --json      one JSON object on stdout (schema 1, times in ns)\n"
                  "  -a, --all       list every timeline and category (default: first %u)\n"
                  "  -h, --help      this help\n"
                  "  -V, --version   tool and library versions\n",
                  DEFAULT_LINES);
}

#define usage_error(...) cli_usage_error(PROG, __VA_ARGS__)

static void print_version(void)
{
    cli_print_version(PROG, SLOG_TOOL_VERSION, SLOG_VERSION_NUMBER, SLOG_VERSION_STRING);
}

/* Returns -1 to go on, otherwise the exit status. */
static int parse_args(int argc, char **argv, info_opts *o)
{
    static const struct option longs[] = {
        {"json", no_argument, NULL, 'j'},
        {"all", no_argument, NULL, 'a'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "jahV", longs, NULL)) != -1) {
        switch (c) {
        case 'j':
            o->json = true;
            break;
        case 'a':
            o->all = true;
            break;
        case 'h':
            usage(stdout);
            return EXIT_SUCCESS;
        case 'V':
            print_version();
            return EXIT_SUCCESS;
        default:
            return usage_error("invalid option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        return usage_error("missing FILE");
    }
    if (argc - optind > 1) {
        return usage_error("unexpected argument '%s'", argv[optind + 1]);
    }
    o->path = argv[optind];
    return -1;
}

static uint64_t total_drawables(const slog_file_info *fi)
{
    return fi->states + fi->events + fi->arrows + fi->counters;
}

/* Bytes per drawable with two decimals, in integers ("7.81"). */
static const char *per_drawable(uint64_t bytes, uint64_t n, char *buf, size_t len)
{
    if (n == 0) {
        (void)snprintf(buf, len, "-");
        return buf;
    }
    const uint64_t hundredths = (bytes * 100 + n / 2) / n;
    (void)snprintf(buf, len, "%" PRIu64 ".%02" PRIu64, hundredths / 100, hundredths % 100);
    return buf;
}

/* The time range, [0, 0] for a file without drawables (whose start and end
 * are the INT64_MAX/INT64_MIN sentinels), and its duration in ticks
 * (saturated: a range wider than INT64_MAX ticks cannot be a duration). */
static void time_range(const slog_file_info *fi, int64_t *start, int64_t *end, int64_t *dur)
{
    if (fi->start > fi->end) {
        *start = 0;
        *end = 0;
    } else {
        *start = fi->start;
        *end = fi->end;
    }
    const uint64_t d = (uint64_t)*end - (uint64_t)*start;
    *dur = d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
}

static void colour_text(uint32_t rgba, char *buf, size_t len)
{
    (void)snprintf(buf, len, "#%08" PRIx32, rgba);
}

/* ---- text --------------------------------------------------------------- */

/* What the node table says about the leaves (no payload is read). */
typedef struct leaf_stats {
    uint64_t leaves;
    uint64_t drawables;   /* stored in leaves */
    uint64_t span_sum;    /* ticks, saturating */
    uint64_t payload_max; /* largest compressed node payload */
} leaf_stats;

static int collect_leaves(slog_reader *r, uint64_t nodes, leaf_stats *ls)
{
    memset(ls, 0, sizeof *ls);
    for (uint64_t i = 0; i < nodes; i++) {
        slog_node_info ni;
        if (slog_reader_node(r, i, &ni) != SLOG_OK) {
            return -1;
        }
        ls->payload_max = ni.payload_bytes > ls->payload_max ? ni.payload_bytes : ls->payload_max;
        if (ni.level != 0) {
            continue;
        }
        ls->leaves++;
        ls->drawables += ni.counts[0] + ni.counts[1] + ni.counts[2] + ni.counts[3];
        const uint64_t span = ni.end >= ni.start ? (uint64_t)ni.end - (uint64_t)ni.start : 0;
        ls->span_sum = span > UINT64_MAX - ls->span_sum ? UINT64_MAX : ls->span_sum + span;
    }
    return 0;
}

static void text_leaves(const slog_file_info *fi, const leaf_stats *ls)
{
    char a[64];
    char b[64];
    if (ls->leaves == 0) {
        return;
    }
    const uint64_t span = ls->span_sum / ls->leaves;
    const int64_t span_ns = units_ticks_to_ns(
        span > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)span, fi->ticks_per_second);
    (void)printf("leaves:          %" PRIu64 ", on average %" PRIu64
                 " drawables over %s; largest node payload %s\n",
                 ls->leaves, ls->drawables / ls->leaves,
                 units_format_duration(span_ns, a, sizeof a),
                 units_format_bytes(ls->payload_max, b, sizeof b));
}

static void text_summary(const char *path, const slog_file_info *fi)
{
    char a[64];
    char b[64];
    (void)printf("file:            %s\n", path);
    (void)printf("format:          read version %" PRIu32 ", write version %" PRIu32 "\n",
                 fi->format_read_version, fi->format_write_version);
    (void)printf("checksums:       %s\n", fi->checksums
                                                ? "CRC32C on every node blob and table row, "
                                                  "verified on read"
                                                : "none (format 1): unverified");
    (void)printf("complete:        %s\n", fi->complete ? "yes" : "no (writer did not finish)");
    (void)printf("creator:         %s\n", fi->creator != NULL && *fi->creator ? fi->creator : "-");
    (void)printf("clock:           %" PRIu64 " ticks per second\n", fi->ticks_per_second);
    int64_t start;
    int64_t end;
    int64_t dur;
    time_range(fi, &start, &end, &dur);
    if (fi->start > fi->end) {
        (void)printf("time range:      - (no drawables)\n");
    } else {
        (void)printf(
            "time range:      %" PRId64 " .. %" PRId64 " ticks (duration %s)\n", start, end,
            units_format_duration(units_ticks_to_ns(dur, fi->ticks_per_second), a, sizeof a));
    }
    (void)printf("drawables:       %" PRIu64 " (%" PRIu64 " states, %" PRIu64 " events, %" PRIu64
                 " arrows, %" PRIu64 " counter samples)\n",
                 total_drawables(fi), fi->states, fi->events, fi->arrows, fi->counters);
    (void)printf("tree:            %" PRIu64 " nodes, depth %" PRIu32 ", fanout %" PRIu32
                 ", leaf budget %s\n",
                 fi->nodes, fi->depth, fi->fanout, units_format_bytes(fi->leaf_bytes, a, sizeof a));
    (void)printf("size:            %s (%" PRIu64 " bytes), node payload %s\n",
                 units_format_bytes(fi->file_bytes, a, sizeof a), fi->file_bytes,
                 units_format_bytes(fi->payload_bytes, b, sizeof b));
    (void)printf("bytes/drawable:  %s on disk, %s payload\n",
                 per_drawable(fi->file_bytes, total_drawables(fi), a, sizeof a),
                 per_drawable(fi->payload_bytes, total_drawables(fi), b, sizeof b));
}

static void text_timelines(const timeline_tree *t, bool all)
{
    (void)printf("timelines (%" PRIu32 "):\n", t->n);
    const uint32_t limit = all ? t->n : (t->n < DEFAULT_LINES ? t->n : DEFAULT_LINES);
    for (uint32_t k = 0; k < limit; k++) {
        const slog_timeline_info *ti = &t->info[t->order[k]];
        const uint32_t indent = 2 + 2 * (t->depth[ti->id] < 32 ? t->depth[ti->id] : 32);
        char name[256];
        (void)printf("%*s%s  [%s, id %" PRIu32, (int)indent, "",
                     display_text(ti->name, name, sizeof name), timeline_kind_name(ti->kind),
                     ti->id);
        if (ti->sort_key != 0) {
            (void)printf(", sort %" PRId64, ti->sort_key);
        }
        const uint32_t nc = timeline_tree_nchildren(t, ti->id);
        if (nc > 0) {
            (void)printf(", %" PRIu32 " children", nc);
        }
        (void)printf("]\n");
    }
    if (limit < t->n) {
        (void)printf("  ... %" PRIu32 " more (--all lists them)\n", t->n - limit);
    }
}

static int text_categories(const slog_reader *r, uint32_t n, bool all)
{
    (void)printf("categories (%" PRIu32 "):\n", n);
    if (n > 0) {
        (void)printf("  %6s  %-8s %-10s %-16s %s\n", "id", "kind", "colour", "group", "name");
    }
    const uint32_t limit = all ? n : (n < DEFAULT_LINES ? n : DEFAULT_LINES);
    for (uint32_t i = 0; i < limit; i++) {
        slog_category_info ci;
        if (slog_reader_category(r, i, &ci) != SLOG_OK) {
            return -1;
        }
        char col[16];
        char group[256];
        char name[256];
        colour_text(ci.rgba, col, sizeof col);
        (void)printf("  %6" PRIu32 "  %-8s %-10s %-16s %s\n", i, drawable_kind_name(ci.kind), col,
                     ci.group != NULL && *ci.group ? display_text(ci.group, group, sizeof group)
                                                   : "-",
                     display_text(ci.name, name, sizeof name));
    }
    if (limit < n) {
        (void)printf("  ... %" PRIu32 " more (--all lists them)\n", n - limit);
    }
    return 0;
}

/* ---- JSON --------------------------------------------------------------- */

static void json_summary(json_writer *j, const char *path, const slog_file_info *fi)
{
    json_kv_int(j, "schema", 1);
    json_kv_string(j, "file", path);
    json_kv_uint(j, "format_read_version", fi->format_read_version);
    json_kv_uint(j, "format_write_version", fi->format_write_version);
    json_kv_bool(j, "checksums", fi->checksums);
    json_kv_bool(j, "complete", fi->complete);
    json_kv_string(j, "creator", fi->creator != NULL ? fi->creator : "");
    json_kv_uint(j, "ticks_per_second", fi->ticks_per_second);
    int64_t start;
    int64_t end;
    int64_t dur;
    time_range(fi, &start, &end, &dur);
    json_kv_int(j, "start", units_ticks_to_ns(start, fi->ticks_per_second));
    json_kv_int(j, "end", units_ticks_to_ns(end, fi->ticks_per_second));
    json_kv_int(j, "duration", units_ticks_to_ns(dur, fi->ticks_per_second));
    json_kv_int(j, "start_ticks", start);
    json_kv_int(j, "end_ticks", end);
    json_kv_uint(j, "states", fi->states);
    json_kv_uint(j, "events", fi->events);
    json_kv_uint(j, "arrows", fi->arrows);
    json_kv_uint(j, "counters", fi->counters);
    json_kv_uint(j, "drawables", total_drawables(fi));
    json_kv_uint(j, "timelines", fi->timelines);
    json_kv_uint(j, "categories", fi->categories);
    json_kv_uint(j, "nodes", fi->nodes);
    json_kv_uint(j, "depth", fi->depth);
    json_kv_uint(j, "fanout", fi->fanout);
    json_kv_uint(j, "leaf_bytes", fi->leaf_bytes);
    json_kv_uint(j, "file_bytes", fi->file_bytes);
    json_kv_uint(j, "payload_bytes", fi->payload_bytes);
    const uint64_t n = total_drawables(fi);
    json_key(j, "bytes_per_drawable");
    if (n > 0) {
        json_double(j, (double)fi->file_bytes / (double)n);
    } else {
        json_null(j);
    }
}

static void json_timelines(json_writer *j, const timeline_tree *t)
{
    json_key(j, "timeline_list");
    json_begin_array(j);
    for (uint32_t k = 0; k < t->n; k++) {
        const slog_timeline_info *ti = &t->info[t->order[k]];
        json_begin_object(j);
        json_kv_uint(j, "id", ti->id);
        json_key(j, "parent");
        if (ti->parent == SLOG_NO_PARENT) {
            json_null(j);
        } else {
            json_uint(j, ti->parent);
        }
        json_kv_string(j, "kind", timeline_kind_name(ti->kind));
        json_kv_string(j, "name", ti->name);
        json_kv_int(j, "sort_key", ti->sort_key);
        json_kv_uint(j, "depth", t->depth[ti->id]);
        json_end_object(j);
    }
    json_end_array(j);
}

static int json_categories(json_writer *j, const slog_reader *r, uint32_t n)
{
    json_key(j, "category_list");
    json_begin_array(j);
    for (uint32_t i = 0; i < n; i++) {
        slog_category_info ci;
        if (slog_reader_category(r, i, &ci) != SLOG_OK) {
            return -1;
        }
        char col[16];
        colour_text(ci.rgba, col, sizeof col);
        json_begin_object(j);
        json_kv_uint(j, "id", i);
        json_kv_string(j, "kind", drawable_kind_name(ci.kind));
        json_kv_string(j, "name", ci.name != NULL ? ci.name : "");
        json_kv_string(j, "color", col);
        json_kv_string(j, "group", ci.group != NULL ? ci.group : "");
        json_end_object(j);
    }
    json_end_array(j);
    return 0;
}

/* ---- main --------------------------------------------------------------- */

static int describe(const info_opts *o, slog_reader *r)
{
    const slog_file_info *fi = slog_reader_info(r);
    timeline_tree t;
    if (timeline_tree_load(&t, r) != 0) {
        timeline_tree_free(&t);
        (void)fprintf(stderr, PROG ": %s: Cannot read the timeline table\n", o->path);
        return EXIT_FAILURE;
    }
    leaf_stats ls;
    if (collect_leaves(r, fi->nodes, &ls) != 0) {
        timeline_tree_free(&t);
        (void)fprintf(stderr, PROG ": %s: Cannot read the node table\n", o->path);
        return EXIT_FAILURE;
    }
    int rc = 0;
    if (o->json) {
        json_writer j;
        json_writer_init(&j, stdout);
        json_begin_object(&j);
        json_summary(&j, o->path, fi);
        json_kv_uint(&j, "leaves", ls.leaves);
        json_kv_uint(&j, "leaf_drawables", ls.drawables);
        json_kv_uint(&j, "largest_node_payload_bytes", ls.payload_max);
        info_index_json(&j, r);
        json_timelines(&j, &t);
        rc = json_categories(&j, r, fi->categories);
        json_end_object(&j);
        (void)putchar('\n');
    } else {
        text_summary(o->path, fi);
        text_leaves(fi, &ls);
        info_index_text(r, o->all, DEFAULT_LINES);
        text_timelines(&t, o->all);
        rc = text_categories(r, fi->categories, o->all);
    }
    timeline_tree_free(&t);
    if (rc != 0) {
        (void)fprintf(stderr, PROG ": %s: Cannot read the category table\n", o->path);
        return EXIT_FAILURE;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        (void)fprintf(stderr, PROG ": Failed to write the output\n");
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
    out_file_guard_stdout(PROG);
    info_opts o = {0};
    const int pr = parse_args(argc, argv, &o);
    if (pr >= 0) {
        return pr;
    }
    slog_reader *r = NULL;
    slog_error err;
    memset(&err, 0, sizeof err);
    const int rc = slog_reader_open(&r, o.path, NULL, &err);
    if (rc != SLOG_OK) {
        (void)fprintf(stderr, PROG ": %s: Cannot open: %s (%s", o.path,
                      err.message[0] != '\0' ? err.message : "unknown error", slog_status_name(rc));
        if (err.offset != UINT64_MAX && err.offset != 0) {
            (void)fprintf(stderr, ", byte %" PRIu64, err.offset);
        }
        (void)fprintf(stderr, ")\n");
        return EXIT_FAILURE;
    }
    const int status = describe(&o, r);
    slog_reader_destroy(r);
    return status;
}
