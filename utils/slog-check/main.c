/* SPDX-License-Identifier: MIT
 *
 * slog-check - reads every node and table of a libslog file and reports
 * every damaged node with its time range and byte offset, and which time
 * ranges a query still answers (check_report.c).  With --salvage -o OUT it
 * writes a new complete file holding everything that verifies and lists
 * what was lost (check_salvage.c).  The scan is slog_reader_verify: each
 * node on its own, so one damaged node never hides another.
 * Exit status: 0 clean, 1 damaged, 2 unusable (the file does not open) or
 * bad arguments, 3 OUT or the report could not be written.
 * Tools layer: public libslog headers and utils/common only.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "out_file.h"

#ifndef SLOG_TOOL_VERSION
#    define SLOG_TOOL_VERSION SLOG_VERSION_STRING
#endif

typedef struct check_opts {
    const char *path;
    const char *output;
    bool salvage;
    bool json;
    bool quiet;
} check_opts;

static void usage(FILE *f)
{
    (void)fprintf(f,
                  "Usage: " PROG " FILE [--json] [--salvage -o OUT]\n"
                  "Read every node and table of a libslog file, report each damaged node with\n"
                  "its time range and byte offset, and the time ranges a query still answers.\n"
                  "\n"
                  "  -s, --salvage     write a new complete file with everything that verifies\n"
                  "  -o, --output OUT  where --salvage writes (never the input)\n"
                  "  -j, --json        one JSON object on stdout (schema 1, times in ns)\n"
                  "  -q, --quiet       no report on stdout, only the exit status\n"
                  "  -h, --help        this help\n"
                  "  -V, --version     tool and library versions\n"
                  "\n"
                  "Exit status: 0 clean, 1 damaged, 2 unusable or bad arguments,\n"
                  "3 OUT or the report could not be written.\n");
}

static int parse_opt(int c, check_opts *o)
{
    switch (c) {
    case 's':
        o->salvage = true;
        return -1;
    case 'o':
        o->output = optarg;
        return -1;
    case 'j':
        o->json = true;
        return -1;
    case 'q':
        o->quiet = true;
        return -1;
    case 'h':
        usage(stdout);
        return EXIT_SUCCESS;
    case 'V':
        cli_print_version(PROG, SLOG_TOOL_VERSION, SLOG_VERSION_NUMBER, SLOG_VERSION_STRING);
        return EXIT_SUCCESS;
    default:
        return cli_usage_error(PROG, "invalid option '%s'", optarg != NULL ? optarg : "");
    }
}

/* Returns -1 to go on, otherwise the exit status. */
static int parse_args(int argc, char **argv, check_opts *o)
{
    static const struct option longs[] = {
        {"salvage", no_argument, NULL, 's'}, {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},    {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},    {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "so:jqhV", longs, NULL)) != -1) {
        if (c == '?') {
            return cli_usage_error(PROG, "invalid option '%s'", argv[optind - 1]);
        }
        const int rc = parse_opt(c, o);
        if (rc >= 0) {
            return rc;
        }
    }
    if (optind >= argc) {
        return cli_usage_error(PROG, "missing FILE");
    }
    if (argc - optind > 1) {
        return cli_usage_error(PROG, "unexpected argument '%s'", argv[optind + 1]);
    }
    o->path = argv[optind];
    if (o->salvage != (o->output != NULL)) {
        return cli_usage_error(PROG, o->salvage ? "--salvage needs -o OUT"
                                                : "-o OUT is for --salvage");
    }
    return -1;
}

static int keep_damage(const slog_node_damage *d, void *user)
{
    check_result *const c = user;
    if (c->ndamaged == c->cap) {
        const size_t cap = c->cap ? 2 * c->cap : 16;
        slog_node_damage *const p = realloc(c->damaged, cap * sizeof *p);
        if (p == NULL) {
            return SLOG_EINTR;
        }
        c->damaged = p;
        c->cap = cap;
    }
    c->damaged[c->ndamaged++] = *d;
    return SLOG_OK;
}

static void report(const check_result *c, const check_opts *o, uint64_t salvaged)
{
    if (o->quiet) {
        return;
    }
    if (o->json) {
        check_print_json(c, o->output, salvaged);
    } else {
        check_print_text(c);
    }
}

/* --salvage rewrites the drawables of a file; an index holds copies of its
 * inputs' top levels, not their drawables: refused before anything is done. */
static bool salvage_refused(slog_reader *r, const check_opts *o)
{
    const uint32_t n = slog_reader_index_inputs(r);
    if (!o->salvage || n == 0) {
        return false;
    }
    (void)fprintf(stderr,
                  PROG
                  ": %s: --salvage: an index cannot be salvaged (its drawables are in its %" PRIu32
                  " input files): salvage a damaged input file itself, then index the files "
                  "again (slog-merge --index)\n",
                  o->path, n);
    return true;
}

static int run(slog_reader *r, const check_opts *o)
{
    if (salvage_refused(r, o)) {
        return CHECK_UNUSABLE;
    }
    check_result c;
    memset(&c, 0, sizeof c);
    c.path = o->path;
    c.info = slog_reader_info(r);
    slog_error err;
    int rc = slog_reader_verify(r, keep_damage, &c, &c.totals, &err);
    if (rc != SLOG_OK) {
        (void)fprintf(stderr, PROG ": %s: cannot verify: %s\n", o->path,
                      rc == SLOG_EINTR ? "out of memory" : err.message);
        free(c.damaged);
        return CHECK_UNUSABLE;
    }
    int status = c.ndamaged > 0 ? CHECK_DAMAGED : CHECK_CLEAN;
    salvage_totals st = {0, 0};
    if (o->salvage && check_salvage(r, &c, o->output, o->quiet || o->json, &st) != 0) {
        status = CHECK_WRITE_FAILED;
    }
    report(&c, o, st.drawables);
    free(c.damaged);
    return status;
}

int main(int argc, char **argv)
{
    out_file_guard_stdout(PROG);
    check_opts o;
    memset(&o, 0, sizeof o);
    const int parsed = parse_args(argc, argv, &o);
    if (parsed >= 0) {
        return parsed;
    }
    slog_reader *r;
    slog_error err;
    const int rc = slog_reader_open(&r, o.path, NULL, &err);
    if (rc != SLOG_OK) {
        (void)fprintf(stderr, PROG ": %s: unusable: %s (%s)\n", o.path, err.message,
                      slog_status_name(rc));
        if (o.json && !o.quiet) {
            (void)printf("{\"schema\":1,\"status\":\"unusable\",\"error\":\"%s\"}\n",
                         slog_status_name(rc));
        }
        return CHECK_UNUSABLE;
    }
    const int status = run(r, &o);
    slog_reader_destroy(r);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        (void)fprintf(stderr, PROG ": cannot write the report to standard output\n");
        return CHECK_WRITE_FAILED;
    }
    return status;
}
