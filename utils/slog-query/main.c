/* SPDX-License-Identifier: MIT
 *
 * slog-query - the drawables (and, zoomed out, the previews) of a time
 * window of a libslog file, as a table, JSON lines, CSV, Chrome JSON or
 * OTF2.  Options are parsed into a query in three steps: parse the text
 * (times stay text until the file is open), resolve it against the file
 * (relative times and percentages become ticks with exact integer math;
 * names, "#id"s and paths become id lists, a timeline with its descendants;
 * a name that several timelines carry is an error listing them), then run
 * the query and stream every item to the chosen format.
 * Exit status: 0 ok, 1 file or I/O failure, 2 bad arguments.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slog/slog.h>

#include "analysis_cli.h"
#include "cli.h"
#include "follow.h"
#include "query_out.h"
#include "timeline_spec.h"
#include "timeline_tree.h"
#include "units.h"
#include "out_file.h"

#ifdef SLOG_HAVE_OTF2
#    include "export_otf2.h"
#endif

#ifndef SLOG_TOOL_VERSION
#    define SLOG_TOOL_VERSION SLOG_VERSION_STRING
#endif

#define PROG "slog-query"

enum {
    EXIT_USAGE = 2
};

typedef enum out_format {
    FMT_TABLE,
    FMT_JSONL,
    FMT_CSV,
    FMT_CHROME,
    FMT_OTF2
} out_format;

typedef struct query_opts {
    const char *path;
    const char *window; /* NULL: whole trace */
    const char *output; /* NULL: stdout */
    uint64_t pixels;    /* 0: full detail */
    const char **timeline_names;
    size_t ntimeline_names;
    const char **category_names;
    size_t ncategory_names;
    uint32_t kinds; /* 0: all */
    out_format format;
    bool io;
    bool absolute;
    bool no_args;     /* --no-args: the query reads no args */
    bool follow;      /* --follow: then what a live writer flushes, until it finishes */
    analysis_opts an; /* --stats, --find, --top */
} query_opts;

/* ---- messages ----------------------------------------------------------- */

#define usage_error(...) cli_usage_error(PROG, __VA_ARGS__)

static void usage(FILE *f)
{
    (void)fprintf(
        f,
        "Usage: " PROG " FILE [--window T0:T1] [options]\n"
        "Print the drawables of a time window of a libslog file.\n"
        "\n"
        "  -w, --window T0:T1     window; times relative to the trace's start with a unit\n"
        "                         (250ns, 2us, 1.5ms, 3s) or percentages of the trace\n"
        "                         (10%%:20%%); an empty side means the trace's start/end;\n"
        "                         default: the whole trace\n"
        "      --absolute         T0 and T1 are raw ticks of the file's clock\n"
        "  -p, --pixels N         zoom: resolution = ceil(window / N) ticks per pixel, so\n"
        "                         sub-pixel detail comes back as previews and pixel runs\n"
        "                         (default: full detail)\n"
        "  -t, --timeline SPEC    only this timeline and its descendants (repeatable); SPEC is\n"
        "                         a name, an id (#12) or a path of names (\"pid 5/CrRendererMain\",\n"
        "                         from any ancestor, or from the top with a leading '/')\n"
        "  -c, --category NAME    only this category (repeatable)\n"
        "  -k, --kind LIST        comma list of state,event,arrow,counter,preview,run\n"
        "                         (without run, sub-pixel drawables come one by one)\n"
        "  -f, --format FMT       table (default), jsonl, csv, chrome or otf2\n"
        "  -o, --output PATH      write to PATH instead of stdout (a directory for otf2);\n"
        "                         replaced only when complete\n"
        "      --no-args          leave args out (the query then reads no args blob);\n"
        "                         every format prints args otherwise\n"
        "      --io               print the query's I/O statistics on stderr\n"
        "      --follow           print the drawables, then each one a live writer flushes\n"
        "                         (once, in node order, like tail -f) until it finishes\n"
        "      --stats            statistics of the window instead of its drawables: count,\n"
        "                         inclusive and exclusive time, min/max/mean duration\n"
        "      --by GROUPING      --stats rows per category (default), timeline or both\n"
        "      --find NAME        the drawable of category NAME (or whose category name\n"
        "                         contains NAME) nearest --after T or --before T\n"
        "      --after T, --before T  where --find starts (T as a --window side)\n"
        "      --top N            the N longest states of the window (of --find/--category)\n"
        "  -h, --help             this help\n"
        "  -V, --version          tool and library versions\n"
        "\n"
        "jsonl/csv times are integer ns from the trace's start; chrome ts are absolute.\n");
}

static void print_version(void)
{
    cli_print_version(PROG, SLOG_TOOL_VERSION, SLOG_VERSION_NUMBER, SLOG_VERSION_STRING);
}

/* ---- parsing the command line ------------------------------------------- */

static int parse_kinds(const char *text, uint32_t *mask)
{
    static const char *const names[] = {"state", "event", "arrow", "counter", "preview", "run"};
    *mask = 0;
    const char *p = text;
    while (*p != '\0') {
        const size_t n = strcspn(p, ",");
        bool found = false;
        for (uint32_t k = 0; k < 6; k++) {
            const size_t len = strlen(names[k]);
            /* accept the plural too: "states" */
            if ((n == len || (n == len + 1 && p[len] == 's')) && strncmp(p, names[k], len) == 0) {
                *mask |= 1u << k;
                found = true;
            }
        }
        if (!found) {
            return usage_error("--kind: unknown kind '%.*s' (use state, event, arrow, counter, "
                               "preview, run)",
                               (int)n, p);
        }
        p += n;
        if (*p == ',') {
            p++;
        }
    }
    if (*mask == 0) {
        return usage_error("--kind: empty list");
    }
    return 0;
}

static int parse_format(const char *text, out_format *f)
{
    static const char *const names[] = {"table", "jsonl", "csv", "chrome", "otf2"};
    for (int i = 0; i < 5; i++) {
        if (strcmp(text, names[i]) == 0) {
            *f = (out_format)i;
            return 0;
        }
    }
    return usage_error("--format: unknown format '%s' (use table, jsonl, csv, chrome or otf2)",
                       text);
}

static int push_name(const char ***list, size_t *n, const char *name)
{
    const char **grown = realloc(*list, (*n + 1) * sizeof **list);
    if (grown == NULL) {
        (void)fprintf(stderr, PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    grown[(*n)++] = name;
    *list = grown;
    return 0;
}

enum {
    OPT_IO = 256,
    OPT_ABSOLUTE,
    OPT_NO_ARGS,
    OPT_FOLLOW
};

static const struct option long_opts[] = {
    {"window", required_argument, NULL, 'w'},      {"pixels", required_argument, NULL, 'p'},
    {"timeline", required_argument, NULL, 't'},    {"category", required_argument, NULL, 'c'},
    {"kind", required_argument, NULL, 'k'},        {"format", required_argument, NULL, 'f'},
    {"output", required_argument, NULL, 'o'},      {"io", no_argument, NULL, OPT_IO},
    {"absolute", no_argument, NULL, OPT_ABSOLUTE}, {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},           {"no-args", no_argument, NULL, OPT_NO_ARGS},
    {"follow", no_argument, NULL, OPT_FOLLOW},
    AN_LONG_OPTS,
    {NULL, 0, NULL, 0},
};

static int parse_pixels(const char *arg, uint64_t *out)
{
    char why[160];
    if (units_parse_count(arg, out, why, sizeof why) != 0) {
        return usage_error("--pixels: %s", why);
    }
    if (*out == 0 || *out > (UINT64_C(1) << 32)) {
        return usage_error("--pixels: %s is out of range 1..4294967296", arg);
    }
    return 0;
}

/* One option; returns 0 to go on, -1 when done successfully (help), or an exit status. */
static int parse_one(int c, const char *arg, const char *argtext, query_opts *o)
{
    switch (c) {
    case 'w':
        o->window = arg;
        return 0;
    case 'p':
        return parse_pixels(arg, &o->pixels);
    case 't':
        return push_name(&o->timeline_names, &o->ntimeline_names, arg);
    case 'c':
        return push_name(&o->category_names, &o->ncategory_names, arg);
    case 'k':
        return parse_kinds(arg, &o->kinds);
    case 'f':
        return parse_format(arg, &o->format);
    case 'o':
        o->output = arg;
        return 0;
    case OPT_IO:
        o->io = true;
        return 0;
    case OPT_ABSOLUTE:
        o->absolute = true;
        return 0;
    case OPT_NO_ARGS:
        o->no_args = true;
        return 0;
    case OPT_FOLLOW:
        o->follow = true;
        return 0;
    case 'h':
        usage(stdout);
        return -1;
    case 'V':
        print_version();
        return -1;
    default: {
        const int an = analysis_parse(c, arg, &o->an);
        return an != AN_NOT_MINE ? an : usage_error("invalid or incomplete option '%s'", argtext);
    }
    }
}

/* Check one side of --window before the file is open (so a typo is a
 * usage error even when the file is missing); resolve_side converts it. */
static int check_side(const char *text, bool absolute)
{
    char why[160];
    int64_t i;
    uint64_t u;
    if (*text == '\0' || strcmp(text, "0") == 0) {
        return 0;
    }
    if (absolute) {
        if (units_parse_int64(text, &i, why, sizeof why) != 0) {
            return usage_error("--window: %s (--absolute takes raw ticks)", why);
        }
        return 0;
    }
    const int rc = units_is_percent(text) ? units_parse_percent(text, &u, why, sizeof why)
                                          : units_parse_duration(text, &i, why, sizeof why);
    return rc != 0 ? usage_error("--window: %s", why) : 0;
}

static int check_window(const char *w, bool absolute)
{
    const char *colon = strchr(w, ':');
    if (colon == NULL || strchr(colon + 1, ':') != NULL) {
        return usage_error("--window: expected T0:T1, got '%s'", w);
    }
    char left[128];
    const size_t n = (size_t)(colon - w);
    if (n >= sizeof left) {
        return usage_error("--window: '%s' is too long", w);
    }
    memcpy(left, w, n);
    left[n] = '\0';
    const int rc = check_side(left, absolute);
    return rc != 0 ? rc : check_side(colon + 1, absolute);
}

/* The options together: -2 when they go together, otherwise the exit status. */
static int check_combination(const query_opts *o)
{
    if (o->format == FMT_OTF2 && o->output == NULL) {
        return usage_error("--format otf2 needs --output DIR");
    }
    const int an = analysis_check(&o->an, o->format == FMT_TABLE || o->format == FMT_JSONL,
                                  o->ncategory_names > 0);
    if (an != 0) {
        return an;
    }
    if (analysis_active(&o->an) && o->pixels > 0) {
        return usage_error("--pixels: not with --stats, --find or --top (their answers are exact)");
    }
    if (o->an.find != NULL && o->an.top == 0 && o->window != NULL) {
        return usage_error("--window: not with --find --after/--before (the search runs to the "
                           "trace's end or start)");
    }
    if (o->follow && (o->window != NULL || o->pixels > 0 || o->format == FMT_OTF2 ||
                      analysis_active(&o->an))) {
        return usage_error("--follow: not with --window, --pixels, --format otf2, --stats, "
                           "--find or --top (it prints every drawable once, as it is flushed)");
    }
    if (o->window != NULL) {
        const int rc = check_window(o->window, o->absolute);
        if (rc != 0) {
            return rc;
        }
    }
    return -2;
}

/* Returns -2 to go on, otherwise the exit status. */
static int parse_args(int argc, char **argv, query_opts *o)
{
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "w:p:t:c:k:f:o:hV", long_opts, NULL)) != -1) {
        const int r = parse_one(c, optarg, argv[optind - 1], o);
        if (r < 0) {
            return EXIT_SUCCESS;
        }
        if (r > 0) {
            return r;
        }
    }
    if (optind >= argc) {
        return usage_error("missing FILE");
    }
    if (argc - optind > 1) {
        return usage_error("unexpected argument '%s'", argv[optind + 1]);
    }
    o->path = argv[optind];
    return check_combination(o);
}

/* ---- resolving against the file ----------------------------------------- */

/* The whole extent, inclusive: zero-length drawables at the very start and
 * points at the very end are inside. */
static int64_t whole_side(const slog_file_info *fi, bool is_end)
{
    if (is_end) {
        return fi->end < INT64_MAX ? fi->end + 1 : INT64_MAX;
    }
    return fi->start > INT64_MIN ? fi->start - 1 : INT64_MIN;
}

/* A percentage of the trace as ticks from its start (100% on the right
 * side means the whole extent: *whole is set). */
static int percent_offset(
    const char *text, bool is_end, const slog_file_info *fi, int64_t *offset, bool *whole)
{
    char why[160];
    uint64_t part;
    if (units_parse_percent(text, &part, why, sizeof why) != 0) {
        return usage_error("--window: %s", why);
    }
    *whole = is_end && part == UNITS_PERCENT_SCALE;
    const uint64_t span = (uint64_t)fi->end - (uint64_t)fi->start;
    *offset = (int64_t)units_apply_percent(span, part);
    return 0;
}

/* A duration as ticks from the start: the start side rounds down, the end
 * side up, so the window covers at least what was asked. */
static int duration_offset(const char *text, bool is_end, const slog_file_info *fi, int64_t *offset)
{
    char why[160];
    int64_t ns;
    if (units_parse_duration(text, &ns, why, sizeof why) != 0) {
        return usage_error("--window: %s", why);
    }
    const int conv = is_end ? units_muldiv_ceil(ns, fi->ticks_per_second, 1000000000, offset)
                            : units_muldiv(ns, fi->ticks_per_second, 1000000000, offset);
    if (conv != 0) {
        return usage_error("--window: '%s' is too far for this file's clock", text);
    }
    return 0;
}

/* One side of the window: "" (trace start/end), a percentage, a duration
 * relative to the start, or with --absolute raw ticks. */
static int
resolve_side(const char *text, bool is_end, bool absolute, const slog_file_info *fi, int64_t *out)
{
    char why[160];
    if (*text == '\0') {
        *out = whole_side(fi, is_end);
        return 0;
    }
    if (absolute) {
        if (units_parse_int64(text, out, why, sizeof why) != 0) {
            return usage_error("--window: %s (--absolute takes raw ticks)", why);
        }
        return 0;
    }
    int64_t offset = 0;
    bool whole = false;
    int rc = 0;
    if (units_is_percent(text)) {
        rc = percent_offset(text, is_end, fi, &offset, &whole);
    } else if (strcmp(text, "0") != 0) { /* zero needs no unit */
        rc = duration_offset(text, is_end, fi, &offset);
    }
    if (rc != 0 || whole) {
        *out = whole_side(fi, is_end);
        return rc;
    }
    if (__builtin_add_overflow(fi->start, offset, out)) {
        return usage_error("--window: '%s' is beyond the end of time", text);
    }
    return 0;
}

static int resolve_window(const query_opts *o, const slog_file_info *fi, int64_t *t0, int64_t *t1)
{
    const char *w = o->window != NULL ? o->window : ":";
    const char *colon = strchr(w, ':');
    if (colon == NULL || strchr(colon + 1, ':') != NULL) {
        return usage_error("--window: expected T0:T1, got '%s'", w);
    }
    char left[128];
    const size_t n = (size_t)(colon - w);
    if (n >= sizeof left) {
        return usage_error("--window: '%s' is too long", w);
    }
    memcpy(left, w, n);
    left[n] = '\0';
    int rc = resolve_side(left, false, o->absolute, fi, t0);
    if (rc == 0) {
        rc = resolve_side(colon + 1, true, o->absolute, fi, t1);
    }
    if (rc != 0) {
        return rc;
    }
    if (*t1 <= *t0 && fi->end == fi->start && !o->absolute &&
        (units_is_percent(left) || units_is_percent(colon + 1))) {
        return usage_error("--window: empty window '%s': the trace lasts 0 ns (%s), so every "
                           "percentage of it is its start; give times with a unit",
                           w,
                           fi->states + fi->events + fi->arrows + fi->counters == 0
                               ? "it holds no drawable"
                               : "all its drawables are at one time");
    }
    if (*t1 <= *t0) {
        return usage_error("--window: empty window '%s' (the end must come after the start)", w);
    }
    return 0;
}

/* ceil(visible window / pixels), at least 1 tick. */
static int64_t resolution_for(const slog_file_info *fi, int64_t t0, int64_t t1, uint64_t pixels)
{
    const int64_t lo = t0 > fi->start ? t0 : fi->start;
    const int64_t hi = t1 < fi->end ? t1 : fi->end;
    uint64_t span = hi > lo ? (uint64_t)hi - (uint64_t)lo : (uint64_t)t1 - (uint64_t)t0;
    uint64_t res = span / pixels + (span % pixels != 0 ? 1 : 0);
    if (res == 0) {
        res = 1;
    }
    return res > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)res;
}

typedef struct id_list {
    uint32_t *ids;
    uint32_t n;
} id_list;

/* After "no timeline named": the timelines whose name begins with @p spec
 * (a merged MPI job names its ranks "rank 0 (app pid 12)"). */
static void suggest_prefixed(const timeline_tree *t, const char *spec)
{
    enum { SHOWN = 10 };
    const size_t len = strlen(spec);
    size_t n = 0;
    for (uint32_t id = 0; id < t->n; id++) {
        const char *const name = t->info[id].name;
        if (name == NULL || strncmp(name, spec, len) != 0) {
            continue;
        }
        if (n == 0) {
            (void)fprintf(stderr, PROG ": --timeline: these names begin so:\n");
        }
        if (n++ < SHOWN) {
            char path[512];
            (void)fprintf(stderr, PROG ":   #%" PRIu32 "  %s\n", id,
                          timeline_spec_path(t, id, path, sizeof path));
        }
    }
    if (n > SHOWN) {
        (void)fprintf(stderr, PROG ":   ... %zu more\n", n - SHOWN);
    }
}

/* The one timeline @p spec names, or an exit status 2 with the reason:
 * none, or several (each candidate on a line with its id and path). */
static int resolve_timeline(const query_opts *o, const timeline_tree *t, const char *spec,
                            uint32_t *id)
{
    enum { SHOWN = 20 };
    uint32_t ids[SHOWN];
    const size_t n = timeline_spec_match(t, spec, ids, SHOWN);
    uint32_t want;
    if (n == 0 && timeline_spec_is_id(spec, &want)) {
        return usage_error("--timeline: no timeline %s in %s (it has %" PRIu32 " timelines)", spec,
                           o->path, t->n);
    }
    if (n == 0) {
        const int rc = usage_error("--timeline: no timeline named '%s' in %s", spec, o->path);
        suggest_prefixed(t, spec);
        return rc;
    }
    if (n == 1) {
        *id = ids[0];
        return 0;
    }
    char name[256];
    (void)fprintf(stderr, PROG ": --timeline: '%s' names %zu timelines in %s; give one as #ID or "
                          "a path:\n",
                  display_text(spec, name, sizeof name), n, o->path);
    for (size_t i = 0; i < n && i < SHOWN; i++) {
        char path[512];
        (void)fprintf(stderr, PROG ":   #%" PRIu32 "  %s\n", ids[i],
                      timeline_spec_path(t, ids[i], path, sizeof path));
    }
    if (n > SHOWN) {
        (void)fprintf(stderr, PROG ":   ... %zu more\n", n - SHOWN);
    }
    return EXIT_USAGE;
}

static int select_timelines(const query_opts *o, const timeline_tree *t, id_list *out)
{
    uint8_t *mark = calloc((size_t)t->n + 1, 1);
    uint32_t *stack = calloc((size_t)t->n + 1, sizeof *stack);
    out->ids = calloc((size_t)t->n + 1, sizeof *out->ids);
    if (mark == NULL || stack == NULL || out->ids == NULL) {
        free(mark);
        free(stack);
        (void)fprintf(stderr, PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    int rc = 0;
    for (size_t k = 0; k < o->ntimeline_names && rc == 0; k++) {
        uint32_t id = 0;
        rc = resolve_timeline(o, t, o->timeline_names[k], &id);
        if (rc == 0) {
            timeline_tree_mark_subtree(t, id, mark, stack);
        }
    }
    for (uint32_t i = 0; i < t->n; i++) {
        if (mark[i]) {
            out->ids[out->n++] = i;
        }
    }
    free(mark);
    free(stack);
    return rc;
}

/* Append id unless present (category lists are short). */
static void add_unique(id_list *l, uint32_t id)
{
    for (uint32_t j = 0; j < l->n; j++) {
        if (l->ids[j] == id) {
            return;
        }
    }
    l->ids[l->n++] = id;
}

static int
select_categories(const query_opts *o, const slog_category_info *cats, uint32_t ncats, id_list *out)
{
    out->ids = calloc((size_t)ncats + 1, sizeof *out->ids);
    if (out->ids == NULL) {
        (void)fprintf(stderr, PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    for (size_t k = 0; k < o->ncategory_names; k++) {
        bool found = false;
        for (uint32_t i = 0; i < ncats; i++) {
            if (cats[i].name != NULL && strcmp(cats[i].name, o->category_names[k]) == 0) {
                add_unique(out, i);
                found = true;
            }
        }
        if (!found) {
            return usage_error("--category: no category named '%s' in %s", o->category_names[k],
                               o->path);
        }
    }
    return 0;
}

/* ---- running ------------------------------------------------------------ */

typedef struct query_run {
    const query_opts *o;
    slog_reader *r;
    const slog_file_info *fi; /* points at fi_copy */
    slog_file_info fi_copy;   /* the file's info, time range [0, 0] when it has no drawable */
    timeline_tree tl;
    slog_category_info *cats;
    id_list tsel, csel;
    slog_query_options q;
    FILE *out;
    char *temp; /* OUT.part while it is written, or NULL: out is OUT or stdout */
} query_run;

static int load_categories(query_run *run)
{
    const uint32_t n = run->fi->categories;
    run->cats = calloc((size_t)n + 1, sizeof *run->cats);
    if (run->cats == NULL) {
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (slog_reader_category(run->r, i, &run->cats[i]) != SLOG_OK) {
            return -1;
        }
    }
    return 0;
}

/* Window, resolution, filters -> run->q.  Returns 0 or an exit status. */
static int build_query(query_run *run)
{
    const query_opts *o = run->o;
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    int rc = resolve_window(o, run->fi, &q.t0, &q.t1);
    if (rc != 0) {
        return rc;
    }
    q.resolution = o->pixels > 0 ? resolution_for(run->fi, q.t0, q.t1, o->pixels) : 0;
    q.kinds = o->kinds;
    /* every output format prints args (csv in its last column, otf2 as
     * attributes), so they are read unless --no-args */
    q.flags = o->no_args ? 0 : SLOG_QUERY_ARGS;
    if (o->ntimeline_names > 0) {
        rc = select_timelines(o, &run->tl, &run->tsel);
        if (rc != 0) {
            return rc;
        }
        q.timelines = run->tsel.ids;
        q.ntimelines = run->tsel.n;
    }
    if (o->ncategory_names > 0) {
        /* run->cats and run->csel.ids are freed by main (the analyzer loses them) */
        // NOLINTNEXTLINE(clang-analyzer-unix.Malloc)
        rc = select_categories(o, run->cats, run->fi->categories, &run->csel);
        if (rc != 0) {
            return rc;
        }
        q.categories = run->csel.ids;
        q.ncategories = run->csel.n;
    }
    run->q = q;
    return 0;
}

static double now_ms(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* An index also says how many of its input files the query opened. */
static void print_io(const slog_reader *r, const slog_query_stats *st, double ms)
{
    char files[64] = "";
    if (slog_reader_index_inputs(r) > 0) {
        (void)snprintf(files, sizeof files, " index_files_opened=%" PRIu64,
                       slog_reader_index_files_opened(r));
    }
    (void)fprintf(stderr,
                  PROG ": io: nodes_visited=%" PRIu64 " nodes_read=%" PRIu64 " cache_hits=%" PRIu64
                       " bytes_read=%" PRIu64 " bytes_decoded=%" PRIu64 " items=%" PRIu64
                       "%s elapsed_ms=%.3f\n",
                  st->nodes_visited, st->nodes_read, st->cache_hits, st->bytes_read,
                  st->bytes_decoded, st->items, files, ms);
}

static const qout_format *format_impl(out_format f)
{
    switch (f) {
    case FMT_JSONL:
        return &qout_jsonl;
    case FMT_CSV:
        return &qout_csv;
    case FMT_CHROME:
        return &qout_chrome;
    default:
        return &qout_table;
    }
}

/* Stream every item of the query to the format.  Returns an exit status. */
static int stream_items(query_run *run, const qout_format *fmt)
{
    qout_ctx ctx = {run->out, run->fi, &run->tl, run->cats, run->fi->categories, NULL};
    slog_query *q = NULL;
    slog_error err;
    memset(&err, 0, sizeof err);
    const double t_start = now_ms();
    int rc = slog_query_create(&q, run->r, &run->q, &err);
    if (rc != SLOG_OK) {
        return qout_report_error(run->o->path, "Cannot start the query", rc, &err);
    }
    int status = EXIT_SUCCESS;
    if (fmt->begin(&ctx) != 0) {
        (void)fprintf(stderr, PROG ": out of memory\n");
        status = EXIT_FAILURE;
    }
    const slog_item *it = NULL;
    while (status == EXIT_SUCCESS && (rc = slog_query_next(q, &it, &err)) == SLOG_OK) {
        if (fmt->item(&ctx, it) != 0) {
            break; /* write error: reported below */
        }
    }
    if (status == EXIT_SUCCESS && rc != SLOG_END && rc != SLOG_OK) {
        status = qout_report_error(run->o->path, "Cannot read the window", rc, &err);
    }
    if (fmt->end(&ctx) != 0 && status == EXIT_SUCCESS) {
        status = EXIT_FAILURE;
    }
    if (run->o->io) {
        slog_query_stats st;
        slog_query_stats_get(q, &st);
        print_io(run->r, &st, now_ms() - t_start);
    }
    slog_query_destroy(q);
    return status;
}

static int export_otf2(query_run *run)
{
#ifdef SLOG_HAVE_OTF2
    char errbuf[512] = "";
    if (export_otf2_write(run->r, &run->q, run->o->output, errbuf, sizeof errbuf) != 0) {
        (void)fprintf(stderr, PROG ": %s: Failed to export OTF2 to %s: %s\n", run->o->path,
                      run->o->output, errbuf[0] != '\0' ? errbuf : "unknown error");
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
#else
    (void)run;
    (void)fprintf(stderr, PROG ": OTF2 support was not built (configure with -Dotf2=enabled)\n");
    return EXIT_FAILURE;
#endif
}

/* OUT.part (malloc'd) to write instead of OUT, so that a query that fails
 * half-way leaves no truncated OUT; NULL to write OUT itself: --follow
 * (read while it grows), or OUT not a regular file (a pipe, /dev/stdout). */
static char *temp_output(const query_opts *o)
{
    const size_t cap = strlen(o->output) + sizeof OUT_FILE_SUFFIX;
    char *const temp = o->follow ? NULL : malloc(cap);
    if (temp != NULL && out_file_temp_name(temp, cap, o->output) != 0) {
        free(temp);
        return NULL;
    }
    return temp;
}

static int open_output(query_run *run)
{
    if (run->o->output == NULL) {
        run->out = stdout;
        return 0;
    }
    if (out_file_input_clash(run->o->output, &run->o->path, 1) != 0) {
        (void)fprintf(stderr, PROG ": the output %s is the input: refusing to overwrite it\n",
                      run->o->output);
        return EXIT_FAILURE;
    }
    run->temp = temp_output(run->o);
    run->out = fopen(run->temp != NULL ? run->temp : run->o->output, "w");
    if (run->out == NULL) {
        (void)fprintf(stderr, PROG ": Cannot create %s: %s\n", run->o->output, strerror(errno));
        free(run->temp);
        run->temp = NULL;
        return EXIT_FAILURE;
    }
    return 0;
}

/* A complete output replaces OUT; an unfinished one is removed, and OUT
 * keeps what it held. */
static int finish_temp(query_run *run, int status)
{
    if (run->temp == NULL) {
        return status;
    }
    if (status == EXIT_SUCCESS && out_file_commit(run->temp, run->o->output) != 0) {
        (void)fprintf(stderr, PROG ": Failed to write %s: %s\n", run->o->output, strerror(errno));
        status = EXIT_FAILURE;
    }
    if (status != EXIT_SUCCESS) {
        (void)unlink(run->temp);
    }
    free(run->temp);
    run->temp = NULL;
    return status;
}

static int close_output(query_run *run, int status)
{
    if (run->out == NULL) {
        return status;
    }
    const bool bad = fflush(run->out) != 0 || ferror(run->out);
    const bool close_bad = run->out != stdout && fclose(run->out) != 0;
    if ((bad || close_bad) && status == EXIT_SUCCESS) {
        (void)fprintf(stderr, PROG ": Failed to write %s: %s\n",
                      run->o->output != NULL ? run->o->output : "the output", strerror(errno));
        status = EXIT_FAILURE;
    }
    return finish_temp(run, status);
}

/* --stats, --find, --top: the search time resolved like a window side. */
static int run_analysis(query_run *run)
{
    const analysis_opts *a = &run->o->an;
    analysis_run ar = {a, run->o->path, run->r, &run->q, 0, run->o->format == FMT_JSONL,
                       run->o->io, format_impl(run->o->format)};
    const char *at = a->after != NULL ? a->after : a->before;
    if (at != NULL) {
        const int rc = analysis_check_time(a->after != NULL ? "--after" : "--before", at,
                                           run->o->absolute);
        const int rs = rc != 0 ? rc : resolve_side(at, false, run->o->absolute, run->fi, &ar.at);
        if (rs != 0) {
            return rs;
        }
    }
    qout_ctx ctx = {run->out, run->fi, &run->tl, run->cats, run->fi->categories, NULL};
    return analysis_execute(&ar, &ctx);
}

static int run_query(query_run *run)
{
    if (timeline_tree_load(&run->tl, run->r) != 0 || load_categories(run) != 0) {
        (void)fprintf(stderr, PROG ": %s: Cannot read the timeline and category tables\n",
                      run->o->path);
        return EXIT_FAILURE;
    }
    int status = build_query(run);
    if (status != 0) {
        return status;
    }
    if (run->o->format == FMT_OTF2) {
        return export_otf2(run);
    }
    status = open_output(run);
    if (status != 0) {
        return status;
    }
    static char buf[1 << 16];
    (void)setvbuf(run->out, buf, _IOFBF, sizeof buf);
    if (run->o->follow) {
        follow_run f = {PROG,        run->o->path, run->r,   run->out, format_impl(run->o->format),
                        run->fi,     run->q,       &run->tl, &run->cats, 100};
        return close_output(run, follow_stream(&f));
    }
    status = analysis_active(&run->o->an) ? run_analysis(run)
                                          : stream_items(run, format_impl(run->o->format));
    return close_output(run, status);
}

/* One line on stderr when the file is not complete (a live writer, a
 * killed one, a failed import; an index with an input incomplete or
 * missing): the answer holds only what was flushed.  Not with --follow,
 * which is for live files.  stdout is left as it is. */
static void warn_incomplete(const query_opts *o, slog_reader *r)
{
    if (o->follow || slog_reader_info(r)->complete) {
        return;
    }
    if (slog_reader_index_inputs(r) > 0) {
        (void)fprintf(stderr,
                      PROG ": %s: warning: incomplete (an input of the index is incomplete or "
                      "missing): the answer holds what the inputs there hold\n",
                      o->path);
    } else {
        (void)fprintf(stderr,
                      PROG ": %s: warning: incomplete (its writer did not finish: still "
                      "writing, killed or failed): the answer holds what it flushed\n",
                      o->path);
    }
}

int main(int argc, char **argv)
{
    out_file_guard_stdout(PROG);
    query_opts o;
    memset(&o, 0, sizeof o);
    int status = parse_args(argc, argv, &o);
    if (status != -2) {
        free(o.timeline_names);
        free(o.category_names);
        return status;
    }
    query_run run;
    memset(&run, 0, sizeof run);
    run.o = &o;
    slog_error err;
    memset(&err, 0, sizeof err);
    const int rc = slog_reader_open(&run.r, o.path, NULL, &err);
    if (rc != SLOG_OK) {
        status = qout_report_error(o.path, "Cannot open", rc, &err);
    } else {
        warn_incomplete(&o, run.r);
        run.fi_copy = *slog_reader_info(run.r);
        if (run.fi_copy.start > run.fi_copy.end) {
            run.fi_copy.start = 0; /* no drawable: the sentinels are no time range */
            run.fi_copy.end = 0;
        }
        run.fi = &run.fi_copy;
        status = run_query(&run);
    }
    timeline_tree_free(&run.tl);
    free(run.cats);
    free(run.tsel.ids);
    free(run.csel.ids);
    slog_reader_destroy(run.r);
    free(o.timeline_names);
    free(o.category_names);
    return status;
}
