/* SPDX-License-Identifier: MIT
 *
 * main.c - slog-import: convert traces (Chrome JSON, DFTracer .pfw, OTF2,
 * Recorder, MPE) into one libslog file, a thin front end over the import
 * library (include/slog/slog_import.h).  main owns the process policy only:
 * arguments and the environment variables that tune importers become
 * slog_import_options; diagnostics and progress arrive through its
 * callbacks and are printed here (warnings capped per kind); the summary
 * struct is printed as text or JSON; SIGINT sets the cancel flag.
 * Exit codes: 0 ok, 1 failure (output left incomplete), 2 usage, 130 SIGINT.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slog/slog.h>
#include <slog/slog_import.h>

#include "diag.h"
#include "flush_log.h"
#include "json_out.h"
#include "out_file.h"
#include "progress.h"
#include "units.h"

#define PROG "slog-import"
#define WARN_PRINT_LIMIT 10u
#define SORT_WINDOW_DEFAULT 1000000u /* the library's default, shown in --help */

typedef struct options {
    const char *output;
    char temp[4096]; /* output + ".part" while it is written */
    const char *format; /* NULL or "auto" = detect */
    bool json;
    bool quiet;
    int progress; /* -1 default, 0 off, 1 on */
    uint64_t leaf_bytes;
    uint64_t sort_window;
    const char *flush_log; /* --flush-log FILE: what each writer flush made durable */
} options;

/* What the callbacks print with (the library serialises them). */
typedef struct report {
    diag_caps caps;
    progress prog;
    const char *label; /* input the progress bar shows */
    bool quiet;
} report;

/* Set by SIGINT; the library polls it (slog_import_options.cancel). */
static slog_atomic_int interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    atomic_store(&interrupted, 1);
}

/* ------------------------------------------------------------ callbacks */

static void on_diagnostic(const slog_import_diagnostic *d, void *user)
{
    report *const r = user;
    bool last = false;
    if (d->severity == SLOG_IMPORT_WARNING &&
        (!diag_caps_take(&r->caps, d->kind, &last) || r->quiet)) {
        return;
    }
    progress_end(&r->prog);
    const char *const severity = d->severity == SLOG_IMPORT_WARNING ? "warning" : "";
    const diag_where at = {d->source[0] != '\0' ? d->source : NULL, d->line, d->column,
                           d->offset};
    diag_print(stderr, PROG, &at, severity, "%s", d->message);
    if (last) {
        const diag_where file = {d->source, 0, 0, UINT64_MAX};
        diag_print(stderr, PROG, &file, "note",
                   "further warnings of this kind are counted, not printed");
    }
}

static void on_progress(const char *input, uint64_t done, uint64_t total, void *user)
{
    report *const r = user;
    if (input != r->label) {
        r->label = input;
        progress_label(&r->prog, input);
    }
    progress_update(&r->prog, done, total);
}

/* ----------------------------------------------------------------- usage */

static void usage(FILE *out)
{
    (void)fprintf(out,
        "Usage: " PROG " INPUT... -o OUT.slog [options]\n"
        "Convert traces into one libslog file.  The format of each input is\n"
        "detected from its content; .gz (several members allowed) and single-\n"
        "member .zip inputs are read directly; an INPUT of - is standard input\n"
        "(a pipe: read once, so not for two-pass formats or zip).\n"
        "\n"
        "  -o, --output=FILE       output file (replaced)\n"
        "  -f, --format=NAME       auto (default), chrome, pfw, otf2, recorder,\n"
        "                          clog2, slog2 or perfetto\n"
        "      --json              print the summary as JSON on stdout (schema 1)\n"
        "      --flush-log FILE    a line per writer flush: pending|durable NODES STATES\n"
        "                          EVENTS ARROWS COUNTERS COMPLETE (crash tests)\n"
        "  -q, --quiet             no summary, warnings or progress on stderr\n"
        "      --progress          draw a progress bar even when not on a TTY\n"
        "      --no-progress       never draw a progress bar\n"
        "      --leaf-bytes=N      encoded leaf budget (e.g. 65536, 64KiB)\n"
        "      --sort-window=N     records held back to reorder input by time (10k, 1M)\n"
        "                          (default %u; 0 = no reordering)\n"
        "  -h, --help              show this help and exit\n"
        "  -V, --version           show versions and exit\n"
        "\n"
        "Exit status: 0 ok, 1 failure (output left incomplete), 2 usage error.\n",
        SORT_WINDOW_DEFAULT);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)fprintf(stderr, PROG ": ");
    (void)vfprintf(stderr, fmt, ap);
    va_end(ap);
    (void)fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
    return 2;
}

enum { OPT_JSON = 256, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_LEAF, OPT_WINDOW, OPT_FLUSH_LOG };

static int parse_option(options *o, int c, const char *arg)
{
    char why[128] = "";
    switch (c) {
    case 'o':
        o->output = arg;
        return 0;
    case 'f':
        o->format = arg;
        return 0;
    case 'q':
        o->quiet = true;
        return 0;
    case OPT_JSON:
        o->json = true;
        return 0;
    case OPT_FLUSH_LOG:
        o->flush_log = arg;
        return 0;
    case OPT_PROGRESS:
        o->progress = 1;
        return 0;
    case OPT_NO_PROGRESS:
        o->progress = 0;
        return 0;
    case OPT_LEAF:
        if (units_parse_size(arg, &o->leaf_bytes, why, sizeof why) != 0 || o->leaf_bytes == 0 ||
            o->leaf_bytes > UINT32_MAX) {
            return usage_error("invalid --leaf-bytes '%s': %s", arg,
                               why[0] != '\0' ? why : "out of range");
        }
        return 0;
    case OPT_WINDOW:
        if (units_parse_count(arg, &o->sort_window, why, sizeof why) != 0) {
            return usage_error("invalid --sort-window '%s': %s", arg, why);
        }
        return 0;
    default:
        return usage_error("unknown option");
    }
}

/* -1 when the inputs and the output can go on, else the usage error: the
 * output is an input, an input is named twice, the output is no file. */
static int check_paths(options *o, const char *const *in, size_t n)
{
    const size_t clash = out_file_input_clash(o->output, in, n);
    if (clash > 0) {
        return usage_error("the output %s is the input %s: refusing to overwrite an input",
                           o->output, in[clash - 1]);
    }
    size_t earlier = 0;
    const size_t again = out_file_repeated_input(in, n, &earlier);
    if (again > 0) {
        return usage_error("the input %s is given twice (also as %s): it would be imported twice",
                           in[again - 1], in[earlier]);
    }
    if (out_file_temp_name(o->temp, sizeof o->temp, o->output) != 0) {
        return usage_error("the output %s is not a regular file, or its name is too long",
                           o->output);
    }
    return -1;
}

/* Returns -1 to go on, else an exit status. */
static int parse_args(options *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"format", required_argument, NULL, 'f'},
        {"json", no_argument, NULL, OPT_JSON},
        {"quiet", no_argument, NULL, 'q'},
        {"progress", no_argument, NULL, OPT_PROGRESS},
        {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
        {"leaf-bytes", required_argument, NULL, OPT_LEAF},
        {"sort-window", required_argument, NULL, OPT_WINDOW},
        {"flush-log", required_argument, NULL, OPT_FLUSH_LOG},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->progress = -1;
    o->sort_window = SORT_WINDOW_DEFAULT;
    int c;
    while ((c = getopt_long(argc, argv, "o:f:qhV", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c == 'V') {
            (void)printf(PROG " %s (libslog %s)\n", SLOG_VERSION_STRING, slog_version_string());
            if (slog_version_number() != SLOG_VERSION_NUMBER) {
                (void)fprintf(stderr, PROG ": warning: built with libslog %s, running with %s\n",
                              SLOG_VERSION_STRING, slog_version_string());
            }
            return 0;
        }
        if (c == '?') {
            return usage_error("invalid command line");
        }
        const int rc = parse_option(o, c, optarg);
        if (rc != 0) {
            return rc;
        }
    }
    if (optind >= argc) {
        return usage_error("no input given");
    }
    if (o->output == NULL) {
        return usage_error("no output given (-o OUT.slog)");
    }
    return check_paths(o, (const char *const *)(argv + optind), (size_t)(argc - optind));
}

/* -------------------------------------------------------------- summary */

static void summary_json(const slog_import_summary *s, const options *o, char **inputs)
{
    (void)printf("{\"schema\": 1, \"tool\": \"slog-import\", \"ok\": %s, \"output\": ",
                 s->complete ? "true" : "false");
    json_write_string(stdout, o->output);
    (void)printf(", \"complete\": %s, \"inputs\": [", s->complete ? "true" : "false");
    for (size_t i = 0; i < s->ninputs; i++) {
        (void)printf("%s{\"path\": ", i ? ", " : "");
        json_write_string(stdout, inputs[i]);
        (void)printf(", \"format\": ");
        json_write_string(stdout, s->formats[i] != NULL ? s->formats[i] : "");
        (void)printf("}");
    }
    (void)printf("], \"records\": [");
    for (size_t i = 0; i < s->ncounts; i++) {
        const slog_import_count *r = &s->counts[i];
        (void)printf("%s{\"what\": ", i ? ", " : "");
        json_write_string(stdout, r->what);
        (void)printf(", \"imported\": %llu, \"skipped\": %llu, \"repaired\": %llu}",
                     (unsigned long long)r->imported, (unsigned long long)r->skipped,
                     (unsigned long long)r->repaired);
    }
    (void)printf("], \"totals\": {\"imported\": %llu, \"skipped\": %llu, \"repaired\": %llu}, "
                 "\"warnings\": %llu, \"input_bytes\": %llu, \"seconds\": %.3f}\n",
                 (unsigned long long)s->imported, (unsigned long long)s->skipped,
                 (unsigned long long)s->repaired, (unsigned long long)s->warnings,
                 (unsigned long long)s->input_bytes, s->seconds);
}

static void summary_text(const slog_import_summary *s, const report *r, const options *o)
{
    const double secs = s->seconds;
    (void)fprintf(stderr, PROG ": %s %zu input%s into %s in %.2f s (%.1f MiB/s)\n",
                  s->complete ? "imported" : "FAILED after", s->ninputs,
                  s->ninputs == 1 ? "" : "s", o->output, secs,
                  secs > 0 ? (double)s->input_bytes / 1048576.0 / secs : 0.0);
    if (s->ncounts > 0) {
        (void)fprintf(stderr, "  %-32s %12s %10s %10s\n", "record", "imported", "skipped",
                      "repaired");
    }
    for (size_t i = 0; i < s->ncounts; i++) {
        const slog_import_count *c = &s->counts[i];
        (void)fprintf(stderr, "  %-32s %12llu %10llu %10llu\n", c->what,
                      (unsigned long long)c->imported, (unsigned long long)c->skipped,
                      (unsigned long long)c->repaired);
    }
    if (s->warnings > 0) {
        (void)fprintf(stderr, "  %llu warning%s (%llu not printed)\n",
                      (unsigned long long)s->warnings, s->warnings == 1 ? "" : "s",
                      (unsigned long long)r->caps.suppressed);
    }
    if (!s->complete) {
        (void)fprintf(stderr, PROG ": %s left incomplete\n", o->output);
    }
}

/* --------------------------------------------------------------- import */

/* Settings of the importers that come from the environment (kept for the
 * tests and scripts that use them). */
static void options_from_env(slog_import_options *io)
{
    const char *v = getenv("SLOG_CHROME_FAST");
    if (v != NULL && strcmp(v, "0") == 0) {
        io->flags |= SLOG_IMPORT_NO_FAST_SCAN;
    }
    v = getenv("SLOG_RECORDER_ALIGN");
    if (v != NULL && strcmp(v, "none") == 0) {
        io->flags |= SLOG_IMPORT_RECORDER_RAW;
    }
    v = getenv("SLOG_RECORDER_MERGE_BYTES");
    char *end = NULL;
    const unsigned long long merge = v != NULL ? strtoull(v, &end, 10) : 0;
    if (v != NULL && v[0] >= '0' && v[0] <= '9' && *end == '\0') {
        io->flags |= merge == 0 ? SLOG_IMPORT_RECORDER_STREAM : 0u;
        io->recorder_merge_bytes = merge;
    }
    v = getenv("SLOG_OTF2_DEFS_TIMEOUT");
    if (v != NULL && atol(v) > 0 && atol(v) < 4000000) {
        io->otf2_definitions_timeout_ms = (uint32_t)atol(v) * 1000u;
    }
}

static bool format_known(const char *name)
{
    const char *const *f = slog_import_formats();
    for (size_t i = 0; f[i] != NULL; i++) {
        if (strcmp(f[i], name) == 0) {
            return true;
        }
    }
    return strcmp(name, "auto") == 0;
}

static int run(const options *o, char **inputs, size_t n)
{
    if (o->format != NULL && !format_known(o->format)) {
        return usage_error("unknown format '%s'", o->format);
    }
    flush_log log;
    slog_import_input *in = flush_log_open(&log, o->flush_log) == 0 ? calloc(n, sizeof *in) : NULL;
    if (in == NULL) {
        (void)fprintf(stderr, PROG ": %s\n", log.fd < 0 && o->flush_log != NULL
                                                 ? "Cannot create the --flush-log file"
                                                 : "Out of memory");
        flush_log_close(&log);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        in[i].name = inputs[i];
    }
    report rep = {.quiet = o->quiet};
    diag_caps_init(&rep.caps, WARN_PRINT_LIMIT);
    progress_init(&rep.prog, stderr, o->progress >= 0 ? o->progress == 1
                                                       : progress_default_enabled(o->quiet, o->json));
    slog_writer_options wo = SLOG_WRITER_OPTIONS_INIT;
    wo.leaf_bytes = (uint32_t)o->leaf_bytes;
    wo.creator = PROG " " SLOG_VERSION_STRING;
    /* imported traces are for viewing; the file is built on a second core */
    wo.flags = SLOG_WRITER_TIME_BINS | SLOG_WRITER_BACKGROUND;
    flush_log_attach(&log, &wo);
    slog_import_options io = SLOG_IMPORT_OPTIONS_INIT;
    io.format = o->format;
    io.sort_window = o->sort_window;
    io.flags = o->sort_window == 0 ? SLOG_IMPORT_NO_REORDER : 0u;
    io.cancel = &interrupted;
    io.writer = &wo;
    io.progress = on_progress;
    io.diagnostic = on_diagnostic;
    io.user = &rep;
    options_from_env(&io);
    slog_import_summary *s = NULL;
    const int rc = slog_import_file(&s, o->temp, in, n, &io, NULL);
    progress_end(&rep.prog);
    flush_log_close(&log);
    if (s != NULL && s->output_created && out_file_commit(o->temp, o->output) != 0) {
        (void)fprintf(stderr, PROG ": Cannot rename %s to %s: %s\n", o->temp, o->output,
                      strerror(errno));
        slog_import_summary_destroy(s);
        free(in);
        return 1;
    }
    if (s != NULL && s->output_created && o->json) {
        summary_json(s, o, inputs);
    } else if (s != NULL && s->output_created && (!o->quiet || !s->complete)) {
        summary_text(s, &rep, o);
    }
    slog_import_summary_destroy(s);
    free(in);
    return rc == SLOG_OK ? 0 : atomic_load(&interrupted) != 0 ? 130 : 1;
}

int main(int argc, char **argv)
{
    out_file_guard_stdout(PROG);
    options o;
    const int rc = parse_args(&o, argc, argv);
    if (rc >= 0) {
        return rc;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    (void)sigaction(SIGINT, &sa, NULL);
    return run(&o, argv + optind, (size_t)(argc - optind));
}
