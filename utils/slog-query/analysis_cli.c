/* SPDX-License-Identifier: MIT
 *
 * analysis_cli.c - slog-query --stats, --find and --top (analysis_cli.h).
 * Statistics print one row per group: a table for people, or JSON lines
 * with integer ns (count, inclusive, exclusive, min, max; mean as a
 * double).  Search results print through the item formats of a normal
 * query, so a found drawable looks exactly as it would in a window.
 * Nothing found is not an error: the output stays empty (a table keeps its
 * header) and a note goes to stderr.
 * Tools layer: public libslog headers and utils/common.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis_cli.h"
#include "cli.h"
#include "units.h"

#define PROG "slog-query"

int analysis_parse(int c, const char *arg, analysis_opts *a)
{
    char why[160];
    switch (c) {
    case AN_OPT_STATS:
        a->stats = true;
        return 0;
    case AN_OPT_BY:
        a->by = strcmp(arg, "category") == 0   ? SLOG_STATS_BY_CATEGORY
                : strcmp(arg, "timeline") == 0 ? SLOG_STATS_BY_TIMELINE
                : strcmp(arg, "both") == 0     ? SLOG_STATS_BY_BOTH
                                               : 0;
        return a->by != 0 ? 0
                          : cli_usage_error(PROG, "--by: unknown grouping '%s' (use category, "
                                                  "timeline or both)", arg);
    case AN_OPT_FIND:
        a->find = arg;
        return *arg != '\0' ? 0 : cli_usage_error(PROG, "--find: empty category name");
    case AN_OPT_AFTER:
        a->after = arg;
        return 0;
    case AN_OPT_BEFORE:
        a->before = arg;
        return 0;
    case AN_OPT_TOP:
        if (units_parse_count(arg, &a->top, why, sizeof why) != 0) {
            return cli_usage_error(PROG, "--top: %s", why);
        }
        if (a->top == 0 || a->top > 1000000) {
            return cli_usage_error(PROG, "--top: N must be 1..1000000, got '%s'", arg);
        }
        return 0;
    default:
        return AN_NOT_MINE;
    }
}

int analysis_check_time(const char *opt, const char *text, bool absolute)
{
    char why[160];
    int64_t i;
    uint64_t u;
    if (strcmp(text, "0") == 0) {
        return 0;
    }
    const int rc = absolute                 ? units_parse_int64(text, &i, why, sizeof why)
                   : units_is_percent(text) ? units_parse_percent(text, &u, why, sizeof why)
                                            : units_parse_duration(text, &i, why, sizeof why);
    return rc != 0 ? cli_usage_error(PROG, "%s: %s", opt, why) : 0;
}

bool analysis_active(const analysis_opts *a)
{
    return a->stats || a->find != NULL || a->top > 0;
}

int analysis_check(const analysis_opts *a, bool table_or_jsonl, bool has_categories)
{
    const bool at = a->after != NULL || a->before != NULL;
    if (a->by != 0 && !a->stats) {
        return cli_usage_error(PROG, "--by: only with --stats");
    }
    if (a->stats && (a->find != NULL || a->top > 0)) {
        return cli_usage_error(PROG, "--stats: cannot be combined with --find or --top");
    }
    if (at && a->find == NULL) {
        return cli_usage_error(PROG, "--%s: only with --find", a->after ? "after" : "before");
    }
    if (a->after != NULL && a->before != NULL) {
        return cli_usage_error(PROG, "--after: cannot be combined with --before");
    }
    if (a->find != NULL && !at && a->top == 0) {
        return cli_usage_error(PROG, "--find: needs --after T, --before T or --top N");
    }
    if (a->top > 0 && at) {
        return cli_usage_error(PROG, "--top: cannot be combined with --after or --before");
    }
    if (a->find != NULL && has_categories) {
        return cli_usage_error(PROG, "--find: cannot be combined with --category");
    }
    if (a->stats && !table_or_jsonl) {
        return cli_usage_error(PROG, "--stats: prints --format table or jsonl only");
    }
    return 0;
}

static int report(const analysis_run *run, const char *what, int rc, const slog_error *err)
{
    return qout_report_error(run->path, what, rc, err);
}

static double now_ms(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- statistics ---- */

static double mean_ns(const qout_ctx *c, double ticks)
{
    return ticks * 1e9 / (double)c->fi->ticks_per_second;
}

static void stats_jsonl(qout_ctx *c, uint32_t by, const slog_stats_row *r)
{
    json_writer j;
    json_writer_init(&j, c->f);
    json_begin_object(&j);
    json_kv_string(&j, "kind", drawable_kind_name(r->kind));
    if (by & SLOG_STATS_BY_CATEGORY) {
        json_kv_string(&j, "category", qout_category_name(c, r->category));
        json_kv_uint(&j, "category_id", r->category);
    }
    if (by & SLOG_STATS_BY_TIMELINE) {
        json_kv_string(&j, "timeline", qout_timeline_name(c, r->timeline));
        json_kv_uint(&j, "timeline_id", r->timeline);
    }
    json_kv_uint(&j, "count", r->count);
    if (r->kind == SLOG_KIND_STATE) {
        json_kv_int(&j, "inclusive", qout_dur_ns(c, r->inclusive));
        json_kv_int(&j, "exclusive", qout_dur_ns(c, r->exclusive));
        json_kv_int(&j, "min", qout_dur_ns(c, r->min));
        json_kv_int(&j, "max", qout_dur_ns(c, r->max));
        json_kv_double(&j, "mean", mean_ns(c, r->mean));
    } else if (r->kind == SLOG_KIND_COUNTER) {
        json_kv_double(&j, "min", r->vmin);
        json_kv_double(&j, "max", r->vmax);
        json_kv_double(&j, "mean", r->mean);
        json_kv_double(&j, "sum", r->vsum);
    }
    json_end_object(&j);
    (void)fputc('\n', c->f);
}

static void stats_table_header(qout_ctx *c, uint32_t by)
{
    if (by & SLOG_STATS_BY_TIMELINE) {
        (void)fprintf(c->f, "%-20s ", "TIMELINE");
    }
    if (by & SLOG_STATS_BY_CATEGORY) {
        (void)fprintf(c->f, "%-20s ", "CATEGORY");
    }
    (void)fprintf(c->f, "%-7s %10s %14s %14s %14s %14s %14s\n", "KIND", "COUNT", "INCLUSIVE",
                  "EXCLUSIVE", "MIN", "MAX", "MEAN");
}

static void stats_table(qout_ctx *c, uint32_t by, const slog_stats_row *r)
{
    char a[48], b[48], d[48], e[48], m[48];
    if (by & SLOG_STATS_BY_TIMELINE) {
        (void)fprintf(c->f, "%-20s ", qout_timeline_name(c, r->timeline));
    }
    if (by & SLOG_STATS_BY_CATEGORY) {
        (void)fprintf(c->f, "%-20s ", qout_category_name(c, r->category));
    }
    (void)fprintf(c->f, "%-7s %10" PRIu64, drawable_kind_name(r->kind), r->count);
    if (r->kind == SLOG_KIND_STATE) {
        const double mean = mean_ns(c, r->mean); /* >= 0: rounded to the ns */
        (void)units_format_duration(mean < 9.2e18 ? (int64_t)(mean + 0.5) : INT64_MAX, m, sizeof m);
        (void)fprintf(c->f, " %14s %14s %14s %14s %14s\n",
                      units_format_duration(qout_dur_ns(c, r->inclusive), a, sizeof a),
                      units_format_duration(qout_dur_ns(c, r->exclusive), b, sizeof b),
                      units_format_duration(qout_dur_ns(c, r->min), d, sizeof d),
                      units_format_duration(qout_dur_ns(c, r->max), e, sizeof e), m);
    } else if (r->kind == SLOG_KIND_COUNTER) {
        (void)fprintf(c->f, " %14s %14s %14.6g %14.6g %14.6g\n", "-", "-", r->vmin, r->vmax,
                      r->mean);
    } else {
        (void)fprintf(c->f, " %14s %14s %14s %14s %14s\n", "-", "-", "-", "-", "-");
    }
}

static void print_stats_io(const slog_stats *s, double ms)
{
    slog_stats_cost k;
    slog_stats_cost_get(s, &k);
    (void)fprintf(stderr,
                  PROG ": io: nodes_visited=%" PRIu64 " previews_used=%" PRIu64
                       " nodes_decoded=%" PRIu64 " bytes_read=%" PRIu64 " cache_hits=%" PRIu64
                       " fallback=%u elapsed_ms=%.3f\n",
                  k.nodes_visited, k.previews_used, k.nodes_decoded, k.bytes_read, k.cache_hits,
                  k.exact_fallback, ms);
}

static int run_stats(const analysis_run *run, qout_ctx *c)
{
    slog_stats_options o = SLOG_STATS_OPTIONS_INIT;
    o.by = run->a->by ? run->a->by : SLOG_STATS_BY_CATEGORY;
    o.t0 = run->q->t0;
    o.t1 = run->q->t1;
    o.kinds = run->q->kinds & 0xfu;
    o.timelines = run->q->timelines;
    o.ntimelines = run->q->ntimelines;
    o.categories = run->q->categories;
    o.ncategories = run->q->ncategories;
    slog_stats *s = NULL;
    slog_error err;
    memset(&err, 0, sizeof err);
    const double t = now_ms();
    const int rc = slog_stats_compute(&s, run->r, &o, &err);
    if (rc != SLOG_OK) {
        return report(run, "Cannot compute statistics", rc, &err);
    }
    size_t n = 0;
    const slog_stats_row *rows = slog_stats_rows(s, &n);
    if (!run->jsonl) {
        stats_table_header(c, o.by);
    }
    for (size_t i = 0; i < n; i++) {
        if (run->jsonl) {
            stats_jsonl(c, o.by, &rows[i]);
        } else {
            stats_table(c, o.by, &rows[i]);
        }
    }
    if (run->io) {
        print_stats_io(s, now_ms() - t);
    }
    slog_stats_destroy(s);
    return EXIT_SUCCESS;
}

/* ---- search ---- */

/* --find NAME: the categories named exactly NAME, else those whose name
 * contains it.  0 or a usage error. */
static int resolve_find(const analysis_run *run, const qout_ctx *c, slog_search_options *o,
                        uint32_t *ids)
{
    const char *const want = run->a->find;
    uint32_t n = 0;
    bool contained = false;
    for (uint32_t i = 0; i < c->ncats; i++) {
        const char *const name = c->cats[i].name != NULL ? c->cats[i].name : "";
        if (strcmp(name, want) == 0) {
            ids[n++] = i;
        }
        contained = contained || strstr(name, want) != NULL;
    }
    if (n > 0) {
        o->categories = ids;
        o->ncategories = n;
        return 0;
    }
    if (!contained) {
        return cli_usage_error(PROG, "--find: no category named or containing '%s' in %s", want,
                               run->path);
    }
    o->name_contains = want;
    return 0;
}

static void print_search_io(const slog_search_cost *k, double ms)
{
    (void)fprintf(stderr,
                  PROG ": io: nodes_visited=%" PRIu64 " previews_read=%" PRIu64
                       " nodes_decoded=%" PRIu64 " bytes_read=%" PRIu64 " cache_hits=%" PRIu64
                       " elapsed_ms=%.3f\n",
                  k->nodes_visited, k->previews_read, k->nodes_decoded, k->bytes_read,
                  k->cache_hits, ms);
}

/* Print the found items through the item format. */
static int print_items(const analysis_run *run, qout_ctx *c, const slog_item *items, size_t n)
{
    if (run->fmt->begin(c) != 0) {
        (void)fprintf(stderr, PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    for (size_t i = 0; i < n; i++) {
        if (run->fmt->item(c, &items[i]) != 0) {
            break; /* a write error shows when the output is closed */
        }
    }
    return run->fmt->end(c) != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int run_find(const analysis_run *run, qout_ctx *c, slog_search_options *o)
{
    slog_item it;
    slog_search_cost cost;
    slog_error err;
    memset(&err, 0, sizeof err);
    const bool after = run->a->after != NULL;
    const double t = now_ms();
    const int rc = after ? slog_search_next(run->r, o, run->at, &it, &cost, &err)
                         : slog_search_prev(run->r, o, run->at, &it, &cost, &err);
    if (rc != SLOG_OK && rc != SLOG_END) {
        return report(run, "Cannot search", rc, &err);
    }
    if (run->io) {
        print_search_io(&cost, now_ms() - t);
    }
    if (rc == SLOG_END) {
        (void)fprintf(stderr, PROG ": no drawable of '%s' %s %s\n", run->a->find,
                      after ? "after" : "before", after ? run->a->after : run->a->before);
    }
    return print_items(run, c, &it, rc == SLOG_OK ? 1 : 0);
}

static int run_top(const analysis_run *run, qout_ctx *c, slog_search_options *o)
{
    const uint32_t n = (uint32_t)run->a->top;
    slog_state *states = calloc(n, sizeof *states);
    slog_item *items = calloc(n, sizeof *items);
    if (states == NULL || items == NULL) {
        free(states);
        free(items);
        (void)fprintf(stderr, PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    uint32_t count = n;
    slog_search_cost cost;
    slog_error err;
    memset(&err, 0, sizeof err);
    const double t = now_ms();
    const int rc = slog_search_top(run->r, o, states, &count, &cost, &err);
    int status = rc == SLOG_OK ? EXIT_SUCCESS : report(run, "Cannot search", rc, &err);
    if (status == EXIT_SUCCESS) {
        if (run->io) {
            print_search_io(&cost, now_ms() - t);
        }
        for (uint32_t i = 0; i < count; i++) {
            items[i].kind = SLOG_KIND_STATE;
            items[i].u.state = states[i];
        }
        status = print_items(run, c, items, count);
    }
    free(states);
    free(items);
    return status;
}

static int run_search(const analysis_run *run, qout_ctx *c)
{
    slog_search_options o = SLOG_SEARCH_OPTIONS_INIT;
    o.kinds = run->q->kinds & 0xfu;
    o.t0 = run->q->t0;
    o.t1 = run->q->t1;
    o.timelines = run->q->timelines;
    o.ntimelines = run->q->ntimelines;
    o.categories = run->q->categories;
    o.ncategories = run->q->ncategories;
    uint32_t *ids = calloc((size_t)c->ncats + 1, sizeof *ids);
    if (ids == NULL) {
        (void)fprintf(stderr, PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    int status = run->a->find != NULL ? resolve_find(run, c, &o, ids) : 0;
    if (status == 0) {
        status = run->a->top > 0 ? run_top(run, c, &o) : run_find(run, c, &o);
    }
    free(ids);
    return status;
}

int analysis_execute(const analysis_run *run, qout_ctx *c)
{
    return run->a->stats ? run_stats(run, c) : run_search(run, c);
}
