/* SPDX-License-Identifier: MIT
 *
 * main.c - slog-merge: join libslog files (per process, per MPI rank, per
 * imported trace) into one, a thin front end over the merge library
 * (include/slog/slog_merge.h).  main owns the process policy only: the
 * command line becomes the input list (merge_cli_inputs.c) and
 * slog_merge_options; the output is written as OUT.part and renamed over
 * OUT only when the merge succeeded (utils/common/out_file.h), a failed
 * merge's OUT.part is removed; errors are one line "slog-merge: PATH:
 * message"; the summary is printed as text on stderr or, with --json, as
 * one JSON object on stdout; SIGINT sets the cancel flag.
 * Exit codes: 0 ok, 1 failure, 2 usage, 130 SIGINT.
 * Tools layer: public libslog headers and utils/common only.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slog/slog.h>
#include <slog/slog_merge.h>

#include "cli.h"
#include "json_out.h"
#include "merge_cli_inputs.h"
#include "out_file.h"
#include "progress.h"
#include "units.h"

#define PROG "slog-merge"

#ifndef SLOG_TOOL_VERSION
#    define SLOG_TOOL_VERSION SLOG_VERSION_STRING
#endif

typedef struct options {
    const char *output;
    char temp[4096]; /* output + ".part" while it is written */
    bool allow_incomplete, json, quiet;
    bool index, allow_missing; /* --index: write an index over the inputs */
    bool copy;                 /* --copy: an index holding every input whole */
    int progress;             /* -1 default, 0 off, 1 on */
    const char *slice;        /* --slice DURATION, NULL: the library's choice */
    const char **labels;      /* --label specs, in order */
    const char **offsets;     /* --offset specs, in order */
    size_t nlabels, noffsets; /* (each array has room for argc entries) */
} options;

/* What the merge is given, built from the options and the input list. */
typedef struct plan {
    cli_inputs in;
    const char **labels; /* per input, NULL: the file name */
    int64_t *offsets;    /* per input */
    slog_merge_options mo;
} plan;

/* Set by SIGINT; the library polls it once a slice. */
static slog_merge_atomic_int interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    atomic_store(&interrupted, 1);
}

static void usage(FILE *f)
{
    (void)fprintf(f,
        "Usage: " PROG " INPUT... -o OUT.slog [options]\n"
        "Merge libslog files into one: each input's timelines go under a new top\n"
        "timeline (its label), categories are joined by kind, name and group, args are\n"
        "kept, clocks are converted exactly to their least common multiple.  A\n"
        "directory INPUT stands for the *.slog files in it, sorted by name.\n"
        "\n"
        "  -o, --output FILE       output file (written as FILE.part, renamed when done)\n"
        "      --index             write an index over the inputs instead of copying\n"
        "                          their drawables: OUT names them, holds their top\n"
        "                          levels and is read like one file (inputs: one clock)\n"
        "      --allow-missing     with --index: record an absent input as missing\n"
        "      --copy              one self-contained file made by copying every input's\n"
        "                          nodes as they are (no drawable decoded; inputs: one\n"
        "                          clock); read like an index that never needs its inputs\n"
        "      --allow-incomplete  merge inputs whose writer did not finish (what they\n"
        "                          flushed; each named on stderr, and OUT is then\n"
        "                          marked incomplete too); refused otherwise\n"
        "      --label IN=NAME     name of IN's top timeline (default: its file name\n"
        "                          without .slog); IN is an input or its file name\n"
        "      --offset IN=TICKS   add TICKS (of IN's clock, may be negative) to IN's times\n"
        "      --slice DURATION    width of a time slice (250us, 10ms, 1s; default: about\n"
        "                          65536 drawables a slice)\n"
        "      --json              print the summary as one JSON object on stdout\n"
        "  -q, --quiet             no summary or progress on stderr\n"
        "      --progress          draw a progress bar even when not on a TTY\n"
        "      --no-progress       never draw a progress bar\n"
        "  -h, --help              this help\n"
        "  -V, --version           tool and library versions\n"
        "\n"
        "Exit status: 0 merged, 1 failure (no OUT written), 2 usage, 130 interrupted.\n");
}

enum { OPT_ALLOW = 256, OPT_INDEX, OPT_MISSING, OPT_COPY, OPT_LABEL, OPT_OFFSET, OPT_SLICE, OPT_JSON, OPT_PROGRESS, OPT_NO_PROGRESS };

/* -1 to go on, otherwise the exit status. */
static int parse_option(options *o, int c, const char *arg)
{
    switch (c) {
    case 'o':
        o->output = arg;
        return -1;
    case OPT_ALLOW:
        o->allow_incomplete = true;
        return -1;
    case OPT_INDEX:
        o->index = true;
        return -1;
    case OPT_MISSING:
        o->allow_missing = true;
        return -1;
    case OPT_COPY:
        o->copy = true;
        return -1;
    case OPT_LABEL:
        o->labels[o->nlabels++] = arg;
        return -1;
    case OPT_OFFSET:
        o->offsets[o->noffsets++] = arg;
        return -1;
    case OPT_SLICE:
        o->slice = arg;
        return -1;
    case OPT_JSON:
        o->json = true;
        return -1;
    case 'q':
        o->quiet = true;
        return -1;
    case OPT_PROGRESS:
    case OPT_NO_PROGRESS:
        o->progress = c == OPT_PROGRESS;
        return -1;
    case 'h':
        usage(stdout);
        return 0;
    case 'V':
        cli_print_version(PROG, SLOG_TOOL_VERSION, SLOG_VERSION_NUMBER, SLOG_VERSION_STRING);
        return 0;
    default:
        return cli_usage_error(PROG, "invalid command line");
    }
}

/* -1 to go on (inputs from optind), otherwise the exit status. */
static int parse_args(options *o, int argc, char **argv)
{
    static const struct option longs[] = {
        {"output", required_argument, NULL, 'o'},
        {"allow-incomplete", no_argument, NULL, OPT_ALLOW},
        {"index", no_argument, NULL, OPT_INDEX},
        {"allow-missing", no_argument, NULL, OPT_MISSING},
        {"copy", no_argument, NULL, OPT_COPY},
        {"label", required_argument, NULL, OPT_LABEL},
        {"offset", required_argument, NULL, OPT_OFFSET},
        {"slice", required_argument, NULL, OPT_SLICE},
        {"json", no_argument, NULL, OPT_JSON},
        {"quiet", no_argument, NULL, 'q'},
        {"progress", no_argument, NULL, OPT_PROGRESS},
        {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qhV", longs, NULL)) != -1) {
        if (c == '?') {
            return cli_usage_error(PROG, "invalid option '%s'", argv[optind - 1]);
        }
        const int rc = parse_option(o, c, optarg);
        if (rc >= 0) {
            return rc;
        }
    }
    if (optind >= argc) {
        return cli_usage_error(PROG, "no input given");
    }
    if (o->output == NULL) {
        return cli_usage_error(PROG, "no output given (-o OUT.slog)");
    }
    if (o->allow_missing && !o->index) {
        return cli_usage_error(PROG, "--allow-missing needs --index");
    }
    if (o->copy && o->index) {
        return cli_usage_error(PROG, "--copy and --index exclude each other");
    }
    if ((o->index || o->copy) && o->slice != NULL) {
        return cli_usage_error(PROG, "--slice does not apply to --index or --copy");
    }
    if (out_file_temp_name(o->temp, sizeof o->temp, o->output) != 0) {
        return cli_usage_error(PROG, "the output %s is not a regular file, or its name is too long",
                               o->output);
    }
    return -1;
}

/* --label and --offset specs onto the inputs; -1 or the exit status. */
static int apply_specs(plan *p, const options *o)
{
    for (size_t i = 0; i < o->nlabels; i++) {
        const char *name = NULL;
        const size_t k = cli_inputs_spec(&p->in, "--label", o->labels[i], &name);
        if (k == SIZE_MAX) {
            return CLI_EXIT_USAGE;
        }
        p->labels[k] = name;
    }
    for (size_t i = 0; i < o->noffsets; i++) {
        const char *text = NULL;
        char why[128];
        const size_t k = cli_inputs_spec(&p->in, "--offset", o->offsets[i], &text);
        if (k == SIZE_MAX) {
            return CLI_EXIT_USAGE;
        }
        if (units_parse_int64(text, &p->offsets[k], why, sizeof why) != 0) {
            return cli_usage_error(PROG, "--offset %s: %s", o->offsets[i], why);
        }
    }
    return -1;
}

/* --slice DURATION in output ticks (rounded up, at least 1); -1 or the exit status. */
static int apply_slice(plan *p, const options *o)
{
    int64_t ns = 0;
    char why[128];
    if (o->slice == NULL) {
        return -1;
    }
    if (units_parse_duration(o->slice, &ns, why, sizeof why) != 0 || ns <= 0) {
        return cli_usage_error(PROG, "--slice %s: %s", o->slice, ns <= 0 ? "must be > 0" : why);
    }
    const uint64_t tps = cli_inputs_clock(&p->in);
    int64_t ticks = 0;
    if (tps != 0 && units_muldiv_ceil(ns, tps, UINT64_C(1000000000), &ticks) != 0) {
        return cli_usage_error(PROG, "--slice %s: too long", o->slice);
    }
    p->mo.slice_ticks = ticks; /* 0 when the clock is unknown: the merge reports why */
    return -1;
}

static int build_plan(plan *p, const options *o, char *const *args, size_t nargs)
{
    int rc = cli_inputs_expand(&p->in, args, nargs, o->output);
    if (rc != 0) {
        return rc;
    }
    const size_t clash = out_file_input_clash(o->output, (const char *const *)p->in.paths,
                                              p->in.n);
    if (clash > 0) {
        return cli_usage_error(PROG, "the output %s is the input %s: refusing to overwrite an input",
                               o->output, p->in.paths[clash - 1]);
    }
    p->labels = calloc(p->in.n, sizeof *p->labels);
    p->offsets = calloc(p->in.n, sizeof *p->offsets);
    if (p->labels == NULL || p->offsets == NULL) {
        (void)fprintf(stderr, PROG ": out of memory\n");
        return 1;
    }
    slog_merge_options_init(&p->mo);
    p->mo.flags = o->allow_incomplete ? SLOG_MERGE_ALLOW_INCOMPLETE : 0u;
    p->mo.labels = p->labels;
    p->mo.offsets = p->offsets;
    p->mo.cancel = &interrupted;
    rc = apply_specs(p, o);
    return rc >= 0 ? rc : apply_slice(p, o);
}

static void summary_json(const slog_merge_summary *s, const options *o)
{
    json_writer j;
    json_writer_init(&j, stdout);
    json_begin_object(&j);
    json_kv_int(&j, "schema", 1);
    json_kv_string(&j, "tool", PROG);
    json_kv_string(&j, "output", o->output);
    json_kv_uint(&j, "inputs", s->inputs);
    json_kv_uint(&j, "incomplete_inputs", s->incomplete_inputs);
    json_kv_uint(&j, "ticks_per_second", s->ticks_per_second);
    json_kv_uint(&j, "states", s->states);
    json_kv_uint(&j, "events", s->events);
    json_kv_uint(&j, "arrows", s->arrows);
    json_kv_uint(&j, "counters", s->counters);
    json_kv_uint(&j, "timelines", s->timelines);
    json_kv_uint(&j, "categories", s->categories);
    json_kv_int(&j, "start_ns", units_ticks_to_ns(s->start, s->ticks_per_second));
    json_kv_int(&j, "end_ns", units_ticks_to_ns(s->end, s->ticks_per_second));
    json_kv_uint(&j, "slices", s->slices);
    json_end_object(&j);
    (void)fputc('\n', stdout);
}

static void summary_text(const slog_merge_summary *s, const options *o, double secs)
{
    (void)fprintf(stderr,
                  PROG ": merged %u input%s (%u incomplete) into %s in %.2f s: %llu states, "
                  "%llu events, %llu arrows, %llu counter samples; %u timelines, %u "
                  "categories, %llu ticks/s\n",
                  s->inputs, s->inputs == 1 ? "" : "s", s->incomplete_inputs, o->output, secs,
                  (unsigned long long)s->states, (unsigned long long)s->events,
                  (unsigned long long)s->arrows, (unsigned long long)s->counters, s->timelines,
                  s->categories, (unsigned long long)s->ticks_per_second);
}

static void on_progress(uint64_t done, uint64_t total, void *user)
{
    progress_update(user, done, total);
}

static double now_seconds(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The merge's error as one line naming the file (OUT, never OUT.part). */
static void report_error(int rc, const slog_error *err, const options *o)
{
    const char *const out = o->output != NULL ? o->output : "";
    const char *src = err->source[0] != '\0' ? err->source : out;
    if (strcmp(src, o->temp) == 0) {
        src = out;
    }
    (void)fprintf(stderr, PROG ": %s: %s (%s)\n", src,
                  err->message[0] != '\0' ? err->message : "failed", slog_status_name(rc));
}

/* OUT.part renamed over OUT; 0, or -1 (said, and OUT.part removed). */
static int commit_output(const options *o)
{
    if (out_file_commit(o->temp, o->output) == 0) {
        return 0;
    }
    (void)fprintf(stderr, PROG ": %s: Cannot rename %s over it: %s\n", o->output, o->temp,
                  strerror(errno));
    (void)unlink(o->temp);
    return -1;
}

static int merge(plan *p, const options *o)
{
    progress bar;
    progress_init(&bar, stderr, o->progress >= 0 ? o->progress == 1
                                                 : progress_default_enabled(o->quiet, o->json));
    progress_label(&bar, o->output);
    p->mo.progress = on_progress;
    p->mo.user = &bar;
    slog_merge_summary s;
    slog_error err;
    memset(&err, 0, sizeof err);
    const double t0 = now_seconds();
    const int rc = slog_merge_files((const char *const *)p->in.paths, p->in.n, o->temp, &p->mo,
                                    &s, &err);
    progress_end(&bar);
    if (rc != SLOG_OK) {
        report_error(rc, &err, o);
        if (s.output_created) {
            (void)unlink(o->temp);
        }
        return rc == SLOG_EINTR && atomic_load(&interrupted) != 0 ? 130 : 1;
    }
    if (commit_output(o) != 0) {
        return 1;
    }
    if (s.incomplete_inputs > 0) {
        cli_inputs_warn_incomplete(&p->in, o->output);
    }
    if (o->json) {
        summary_json(&s, o);
    } else if (!o->quiet) {
        summary_text(&s, o, now_seconds() - t0);
    }
    return 0;
}

static void index_summary(const slog_index_summary *s, const options *o, double secs)
{
    if (o->json) {
        json_writer j;
        json_writer_init(&j, stdout);
        json_begin_object(&j);
        json_kv_int(&j, "schema", 1);
        json_kv_string(&j, "tool", PROG);
        json_kv_string(&j, "index", o->output);
        json_kv_uint(&j, "inputs", s->inputs);
        json_kv_uint(&j, "missing_inputs", s->missing);
        json_kv_uint(&j, "incomplete_inputs", s->incomplete);
        json_kv_uint(&j, "states", s->states);
        json_kv_uint(&j, "events", s->events);
        json_kv_uint(&j, "arrows", s->arrows);
        json_kv_uint(&j, "counters", s->counters);
        json_kv_uint(&j, "timelines", s->timelines);
        json_kv_uint(&j, "categories", s->categories);
        json_kv_uint(&j, "copied_nodes", s->copied_nodes);
        json_kv_uint(&j, "copied_bytes", s->copied_bytes);
        json_kv_uint(&j, "file_bytes", s->file_bytes);
        json_end_object(&j);
        (void)fputc('\n', stdout);
    } else if (!o->quiet) {
        (void)fprintf(stderr,
                      PROG ": %s %u input%s (%u missing, %u incomplete) in %s in %.2f s: "
                      "%llu states, %llu events, %llu arrows, %llu counter samples; %u "
                      "timelines, %u categories; %llu nodes copied, %llu bytes\n",
                      o->copy ? "copied" : "indexed", s->inputs, s->inputs == 1 ? "" : "s",
                      s->missing, s->incomplete,
                      o->output, secs, (unsigned long long)s->states,
                      (unsigned long long)s->events, (unsigned long long)s->arrows,
                      (unsigned long long)s->counters, s->timelines, s->categories,
                      (unsigned long long)s->copied_nodes, (unsigned long long)s->file_bytes);
    }
}

/* --index: the inputs stay where they are; OUT names them. */
static int write_index(const plan *p, const options *o)
{
    slog_index_options io;
    slog_index_options_init(&io);
    io.flags = (o->allow_incomplete ? SLOG_INDEX_ALLOW_INCOMPLETE : 0u) |
               (o->allow_missing ? SLOG_INDEX_ALLOW_MISSING : 0u) |
               (o->copy ? SLOG_INDEX_COPY_ALL : 0u);
    io.labels = p->labels;
    io.offsets = p->offsets;
    slog_index_summary s;
    slog_error err;
    memset(&err, 0, sizeof err);
    const double t0 = now_seconds();
    const int rc = slog_index_write((const char *const *)p->in.paths, p->in.n, o->temp, &io, &s,
                                    &err);
    if (rc != SLOG_OK) {
        report_error(rc, &err, o);
        (void)unlink(o->temp);
        return 1;
    }
    if (commit_output(o) != 0) {
        return 1;
    }
    if (s.incomplete > 0) {
        cli_inputs_warn_incomplete(&p->in, o->output);
    }
    index_summary(&s, o, now_seconds() - t0);
    return 0;
}

int main(int argc, char **argv)
{
    out_file_guard_stdout(PROG);
    options o;
    memset(&o, 0, sizeof o);
    o.progress = -1;
    o.labels = calloc((size_t)argc, sizeof *o.labels);
    o.offsets = calloc((size_t)argc, sizeof *o.offsets);
    plan p;
    memset(&p, 0, sizeof p);
    int status = o.labels != NULL && o.offsets != NULL ? parse_args(&o, argc, argv) : 1;
    if (status < 0) {
        status = build_plan(&p, &o, argv + optind, (size_t)(argc - optind));
    }
    if (status < 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigint;
        (void)sigaction(SIGINT, &sa, NULL);
        status = o.index || o.copy ? write_index(&p, &o) : merge(&p, &o);
    }
    cli_inputs_free(&p.in);
    free(p.labels);
    free(p.offsets);
    free(o.labels);
    free(o.offsets);
    return status;
}
