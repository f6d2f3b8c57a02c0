/* SPDX-License-Identifier: MIT
 *
 * slog-report - one self-contained HTML page about a libslog file: its
 * facts, an overview image, per-category statistics, utilisation per
 * timeline, the longest states, a message matrix and counter summaries,
 * made from previews and statistics without a full scan (report.h).  This
 * file owns the command line and the process policy: gather everything
 * first (a bad input fails before the output is touched; an output that
 * is the input is refused), then write the page through a temporary file
 * renamed over the output.
 * Exit status: 0 ok, 1 file or I/O failure, 2 bad arguments.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slog/slog.h>

#include "cli.h"
#include "report.h"
#include "units.h"
#include "out_file.h"

#ifndef SLOG_TOOL_VERSION
#    define SLOG_TOOL_VERSION SLOG_VERSION_STRING
#endif

#define usage_error(...) cli_usage_error(REPORT_PROG, __VA_ARGS__)

static void usage(FILE *f)
{
    (void)fprintf(
        f, "Usage: " REPORT_PROG " FILE -o REPORT.html [options]\n"
           "Write one self-contained HTML page about a libslog file, made from previews and\n"
           "statistics without reading the whole trace.\n"
           "\n"
           "  -o, --output PATH      the HTML file to write (replaced only when complete)\n"
           "  -p, --pixels N         width of the overview image, 100..8000 (default 1000)\n"
           "  -r, --rows N           overview and utilisation rows at most, 1..2000; above\n"
           "                         that timelines are grouped (default 200)\n"
           "  -n, --top N            longest states listed, 1..10000 (default 25)\n"
           "      --matrix N         message matrix side at most, 1..256 (default 64)\n"
           "      --series N         counter series listed at most, 1..100000 (default 200)\n"
           "      --categories N     categories of each kind listed at most, the rest added\n"
           "                         up in one row, 1..1000000 (default 1000)\n"
           "  -q, --quiet            no summary line on stderr\n"
           "  -h, --help             this help\n"
           "  -V, --version          tool and library versions\n");
}

enum {
    OPT_MATRIX = 256,
    OPT_SERIES,
    OPT_CATEGORIES
};

static const struct option long_opts[] = {
    {"output", required_argument, NULL, 'o'},
    {"pixels", required_argument, NULL, 'p'},
    {"rows", required_argument, NULL, 'r'},
    {"top", required_argument, NULL, 'n'},
    {"matrix", required_argument, NULL, OPT_MATRIX},
    {"series", required_argument, NULL, OPT_SERIES},
    {"categories", required_argument, NULL, OPT_CATEGORIES},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static int parse_range(const char *opt, const char *arg, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char why[160];
    uint64_t v = 0;
    if (units_parse_count(arg, &v, why, sizeof why) != 0) {
        return usage_error("%s: %s", opt, why);
    }
    if (v < lo || v > hi) {
        return usage_error("%s: %s is out of range %" PRIu32 "..%" PRIu32, opt, arg, lo, hi);
    }
    *out = (uint32_t)v;
    return 0;
}

/* One option: 0 to go on, -1 when done (help, version), or an exit status. */
static int parse_one(int c, const char *arg, const char *argtext, report_config *cfg)
{
    switch (c) {
    case 'o':
        cfg->output = arg;
        return *arg != '\0' ? 0 : usage_error("--output: empty path");
    case 'p':
        return parse_range("--pixels", arg, 100, 8000, &cfg->pixels);
    case 'r':
        return parse_range("--rows", arg, 1, 2000, &cfg->max_rows);
    case 'n':
        return parse_range("--top", arg, 1, 10000, &cfg->top);
    case OPT_MATRIX:
        return parse_range("--matrix", arg, 1, 256, &cfg->matrix_max);
    case OPT_SERIES:
        return parse_range("--series", arg, 1, 100000, &cfg->max_series);
    case OPT_CATEGORIES:
        return parse_range("--categories", arg, 1, 1000000, &cfg->max_cats);
    case 'q':
        cfg->quiet = true;
        return 0;
    case 'h':
        usage(stdout);
        return -1;
    case 'V':
        cli_print_version(REPORT_PROG, SLOG_TOOL_VERSION, SLOG_VERSION_NUMBER, SLOG_VERSION_STRING);
        return -1;
    default:
        return usage_error("invalid or incomplete option '%s'", argtext);
    }
}

/* Returns -2 to go on, otherwise the exit status. */
static int parse_args(int argc, char **argv, report_config *cfg)
{
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:p:r:n:qhV", long_opts, NULL)) != -1) {
        const int rc = parse_one(c, optarg, argv[optind - 1], cfg);
        if (rc < 0) {
            return EXIT_SUCCESS;
        }
        if (rc > 0) {
            return rc;
        }
    }
    if (optind >= argc) {
        return usage_error("missing FILE");
    }
    if (argc - optind > 1) {
        return usage_error("unexpected argument '%s'", argv[optind + 1]);
    }
    cfg->path = argv[optind];
    if (cfg->output == NULL) {
        return usage_error("missing --output REPORT.html");
    }
    return -2;
}

/* An output that names the input (the same path, or the same file) would
 * be renamed over the trace: `slog-report t.slog -o t.slog` replaced it. */
static int check_output(const report_config *cfg)
{
    if (out_file_input_clash(cfg->output, &cfg->path, 1) != 0) {
        (void)fprintf(stderr,
                      REPORT_PROG ": the output %s is the input: refusing to overwrite it\n",
                      cfg->output);
        return EXIT_FAILURE;
    }
    return 0;
}

static void print_summary(const report *rp)
{
    char a[32], b[160];
    (void)fprintf(stderr,
                  REPORT_PROG ": wrote %s: read %s of %s through the API (%" PRIu64
                              " node blobs, bytes_read=%" PRIu64 "), %.1f ms\n",
                  rp->cfg.output, units_format_bytes(rp->cost.bytes_read, a, sizeof a),
                  report_data_words(rp, b, sizeof b), rp->cost.blobs_read, rp->cost.bytes_read,
                  rp->cost.ms);
}

int main(int argc, char **argv)
{
    out_file_guard_stdout(REPORT_PROG);
    report rp;
    memset(&rp, 0, sizeof rp);
    rp.cfg.pixels = 1000;
    rp.cfg.max_rows = 200;
    rp.cfg.top = 25;
    rp.cfg.matrix_max = 64;
    rp.cfg.max_series = 200;
    rp.cfg.max_cats = 1000;
    int status = parse_args(argc, argv, &rp.cfg);
    if (status != -2) {
        return status;
    }
    status = check_output(&rp.cfg);
    if (status == 0) {
        status = report_gather(&rp);
    }
    if (status == 0) {
        status = report_output(&rp, rp.cfg.output);
    }
    if (status == 0 && !rp.cfg.quiet) {
        print_summary(&rp);
    }
    report_free(&rp);
    return status;
}
