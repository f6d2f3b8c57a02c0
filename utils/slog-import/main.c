/* SPDX-License-Identifier: MIT
 *
 * main.c - slog-import: convert traces (Chrome JSON, DFTracer .pfw, OTF2,
 * ...) into one libslog file.  main owns the writer, the per-record-kind
 * summary, warnings and progress; importers (importers.c) only map records.
 * The format of each input is found by probing its decompressed first bytes
 * (directories are probed with no bytes).  Inputs of one format whose
 * importer has run_many are imported together, merged by time; all others
 * one after another.  Any failure leaves the output unfinished (the library
 * marks it incomplete) and exits 1.
 * Exit codes: 0 ok, 1 failure, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "diag.h"
#include "json_out.h"
#include "progress.h"
#include "units.h"
#include "import_main.h"
#include "importer.h"
#include "input_pipe.h"

#define PROG "slog-import"
#define PROBE_BYTES 65536u
#define WARN_PRINT_LIMIT 10u

typedef struct count_row {
    char *what;
    uint64_t n[IMPORT_OUTCOMES];
} count_row;

typedef struct run_state {
    count_row *rows;
    size_t nrows, caprows;
    diag_caps caps;
    progress prog;
    uint64_t sort_window;
    bool json;
    bool failed;
    uint64_t bytes_in; /* file bytes of all inputs */
} run_state;

typedef struct options {
    const char *output;
    const char *format; /* NULL or "auto" = detect */
    bool json;
    bool quiet;
    int progress; /* -1 default, 0 off, 1 on */
    uint64_t leaf_bytes;
    uint64_t sort_window;
} options;

/* ---------------------------------------------------------------- counts */

/* Importers may report from a reader thread and the main thread at once. */
static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;

static void count_locked(run_state *rs, const char *what, import_outcome outcome, uint64_t n);

void import_count(import_ctx *ctx, const char *what, import_outcome outcome, uint64_t n)
{
    pthread_mutex_lock(&hook_lock);
    count_locked(ctx->impl, what, outcome, n);
    pthread_mutex_unlock(&hook_lock);
}

static void count_locked(run_state *rs, const char *what, import_outcome outcome, uint64_t n)
{
    if (n == 0 || outcome >= IMPORT_OUTCOMES) {
        return;
    }
    for (size_t i = 0; i < rs->nrows; i++) {
        if (strcmp(rs->rows[i].what, what) == 0) {
            rs->rows[i].n[outcome] += n;
            return;
        }
    }
    if (rs->nrows == rs->caprows) {
        const size_t cap = rs->caprows ? rs->caprows * 2 : 32;
        count_row *rows = realloc(rs->rows, cap * sizeof *rows);
        if (rows == NULL) {
            return; /* the summary loses a row; the import goes on */
        }
        rs->rows = rows;
        rs->caprows = cap;
    }
    char *copy = strdup(what);
    if (copy == NULL) {
        return;
    }
    count_row *r = &rs->rows[rs->nrows++];
    memset(r, 0, sizeof *r);
    r->what = copy;
    r->n[outcome] = n;
}

/* ------------------------------------------------------------ diagnostics */

void import_warn(import_ctx *ctx, uint64_t line, uint64_t col, uint64_t offset, const char *fmt,
                 ...)
{
    run_state *rs = ctx->impl;
    bool last = false;
    pthread_mutex_lock(&hook_lock);
    if (!diag_caps_take(&rs->caps, fmt, &last) || ctx->quiet) {
        pthread_mutex_unlock(&hook_lock);
        return;
    }
    progress_end(&rs->prog);
    va_list ap;
    va_start(ap, fmt);
    diag_vprint(stderr, PROG, ctx->display_name, line, col, offset, "warning", fmt, ap);
    va_end(ap);
    if (last) {
        diag_print(stderr, PROG, ctx->display_name, 0, 0, UINT64_MAX, "note",
                   "further warnings of this kind are counted, not printed");
    }
    pthread_mutex_unlock(&hook_lock);
}

int import_fail(import_ctx *ctx, uint64_t line, uint64_t col, uint64_t offset, const char *fmt, ...)
{
    run_state *rs = ctx->impl;
    pthread_mutex_lock(&hook_lock);
    rs->failed = true;
    progress_end(&rs->prog);
    va_list ap;
    va_start(ap, fmt);
    diag_vprint(stderr, PROG, ctx->display_name, line, col, offset, "", fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&hook_lock);
    return 1;
}

void import_progress(import_ctx *ctx, uint64_t done, uint64_t total)
{
    run_state *rs = ctx->impl;
    pthread_mutex_lock(&hook_lock);
    progress_update(&rs->prog, done, total);
    pthread_mutex_unlock(&hook_lock);
}

uint64_t import_sort_window(const import_ctx *ctx)
{
    const run_state *rs = ctx->impl;
    return rs->sort_window;
}

uint64_t import_warning_count(const import_ctx *ctx)
{
    const run_state *rs = ctx->impl;
    pthread_mutex_lock(&hook_lock);
    const uint64_t n = rs->caps.total;
    pthread_mutex_unlock(&hook_lock);
    return n;
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
        IMPORT_SORT_WINDOW_DEFAULT);
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

enum { OPT_JSON = 256, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_LEAF, OPT_WINDOW };

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
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->progress = -1;
    o->sort_window = IMPORT_SORT_WINDOW_DEFAULT;
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
    return -1;
}

/* ------------------------------------------------------------ detection */

static const importer *find_importer(const char *name)
{
    for (size_t i = 0; import_table[i] != NULL; i++) {
        if (strcmp(import_table[i]->name, name) == 0) {
            return import_table[i];
        }
    }
    return NULL;
}

/* Best importer for one input by content, or NULL (message printed). */
static const importer *detect(const char *path, uint64_t *bytes)
{
    struct stat st;
    if (input_path_stat(path, &st) != 0) {
        diag_print(stderr, PROG, path, 0, 0, UINT64_MAX, "", "Cannot open: %s", strerror(errno));
        return NULL;
    }
    unsigned char *head = NULL;
    size_t n = 0;
    char read_err[256] = "";
    if (!S_ISDIR(st.st_mode)) {
        *bytes += S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
        char err[256];
        import_stream *s = NULL;
        head = malloc(PROBE_BYTES);
        if (head == NULL || import_stream_open(&s, path, err, sizeof err) != 0) {
            diag_print(stderr, PROG, path, 0, 0, UINT64_MAX, "", "%s",
                       head == NULL ? "Out of memory" : err);
            free(head);
            return NULL;
        }
        while (n < PROBE_BYTES) {
            const long r = import_stream_read(s, head + n, PROBE_BYTES - n);
            if (r < 0) { /* shown below if no importer recognises the bytes read */
                (void)snprintf(read_err, sizeof read_err, "%s (compressed byte %llu)",
                               import_stream_error(s), (unsigned long long)import_stream_pos(s));
            }
            if (r <= 0) {
                break; /* a read error shows again, with context, on import */
            }
            n += (size_t)r;
        }
        import_stream_close(s);
    }
    const importer *best = NULL;
    int best_score = 0;
    for (size_t i = 0; import_table[i] != NULL; i++) {
        const int score = import_table[i]->probe(path, head, n);
        if (score > best_score) {
            best_score = score;
            best = import_table[i];
        }
    }
    free(head);
    if (best == NULL && read_err[0] != '\0') {
        diag_print(stderr, PROG, path, 0, 0, UINT64_MAX, "", "Cannot read: %s", read_err);
    } else if (best == NULL) {
        diag_print(stderr, PROG, path, 0, 0, UINT64_MAX, "",
                   "Cannot recognise the input format (use --format)");
    }
    return best;
}

/* -------------------------------------------------------------- summary */

static void summary_json(const run_state *rs, const options *o, char **inputs, size_t ninputs,
                         const char *const *formats, double secs)
{
    uint64_t tot[IMPORT_OUTCOMES] = {0, 0, 0};
    (void)printf("{\"schema\": 1, \"tool\": \"slog-import\", \"ok\": %s, \"output\": ",
                 rs->failed ? "false" : "true");
    json_write_string(stdout, o->output);
    (void)printf(", \"complete\": %s, \"inputs\": [", rs->failed ? "false" : "true");
    for (size_t i = 0; i < ninputs; i++) {
        (void)printf("%s{\"path\": ", i ? ", " : "");
        json_write_string(stdout, inputs[i]);
        (void)printf(", \"format\": ");
        json_write_string(stdout, formats[i] != NULL ? formats[i] : "");
        (void)printf("}");
    }
    (void)printf("], \"records\": [");
    for (size_t i = 0; i < rs->nrows; i++) {
        const count_row *r = &rs->rows[i];
        (void)printf("%s{\"what\": ", i ? ", " : "");
        json_write_string(stdout, r->what);
        (void)printf(", \"imported\": %llu, \"skipped\": %llu, \"repaired\": %llu}",
                     (unsigned long long)r->n[0], (unsigned long long)r->n[1],
                     (unsigned long long)r->n[2]);
        for (int k = 0; k < IMPORT_OUTCOMES; k++) {
            tot[k] += r->n[k];
        }
    }
    (void)printf("], \"totals\": {\"imported\": %llu, \"skipped\": %llu, \"repaired\": %llu}, "
                 "\"warnings\": %llu, \"input_bytes\": %llu, \"seconds\": %.3f}\n",
                 (unsigned long long)tot[0], (unsigned long long)tot[1],
                 (unsigned long long)tot[2], (unsigned long long)rs->caps.total,
                 (unsigned long long)rs->bytes_in, secs);
}

static void summary_text(const run_state *rs, const options *o, size_t ninputs, double secs)
{
    (void)fprintf(stderr, PROG ": %s %zu input%s into %s in %.2f s (%.1f MiB/s)\n",
                  rs->failed ? "FAILED after" : "imported", ninputs, ninputs == 1 ? "" : "s",
                  o->output, secs, secs > 0 ? (double)rs->bytes_in / 1048576.0 / secs : 0.0);
    if (rs->nrows > 0) {
        (void)fprintf(stderr, "  %-32s %12s %10s %10s\n", "record", "imported", "skipped",
                      "repaired");
    }
    for (size_t i = 0; i < rs->nrows; i++) {
        const count_row *r = &rs->rows[i];
        (void)fprintf(stderr, "  %-32s %12llu %10llu %10llu\n", r->what,
                      (unsigned long long)r->n[0], (unsigned long long)r->n[1],
                      (unsigned long long)r->n[2]);
    }
    if (rs->caps.total > 0) {
        (void)fprintf(stderr, "  %llu warning%s (%llu not printed)\n",
                      (unsigned long long)rs->caps.total, rs->caps.total == 1 ? "" : "s",
                      (unsigned long long)rs->caps.suppressed);
    }
    if (rs->failed) {
        (void)fprintf(stderr, PROG ": %s left incomplete\n", o->output);
    }
}

/* --------------------------------------------------------------- import */

static double now_seconds(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Import every input with its importer; groups of one run_many format go
 * together.  Returns 0 or 1. */
static int import_all(import_ctx *ctx, char **inputs, size_t n, const importer **imp)
{
    bool *done = calloc(n, sizeof *done);
    const char **group = calloc(n, sizeof *group);
    int rc = 0;
    if (done == NULL || group == NULL) {
        (void)fprintf(stderr, PROG ": Out of memory\n");
        rc = 1;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (done[i]) {
            continue;
        }
        size_t ng = 0;
        for (size_t j = i; j < n; j++) {
            if (!done[j] && imp[j] == imp[i] && (imp[i]->run_many != NULL || j == i)) {
                group[ng++] = inputs[j];
                done[j] = true;
            }
        }
        ctx->input_index = (uint32_t)i;
        ctx->display_name = inputs[i];
        progress_label(&((run_state *)ctx->impl)->prog, inputs[i]);
        if (ng > 1) {
            rc = imp[i]->run_many(ctx, group, ng);
        } else {
            rc = imp[i]->run(ctx, inputs[i]);
        }
    }
    free(done);
    free((void *)group);
    return rc != 0 ? 1 : 0;
}

static int resolve_formats(const options *o, char **inputs, size_t n, const importer **imp,
                           uint64_t *bytes)
{
    const importer *forced = NULL;
    if (o->format != NULL && strcmp(o->format, "auto") != 0) {
        forced = find_importer(o->format);
        if (forced == NULL) {
            return usage_error("unknown format '%s'", o->format);
        }
    }
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (forced != NULL) {
            imp[i] = forced;
            if (input_path_stat(inputs[i], &st) == 0 && S_ISREG(st.st_mode)) {
                *bytes += (uint64_t)st.st_size;
            }
            continue;
        }
        imp[i] = detect(inputs[i], bytes);
        if (imp[i] == NULL) {
            return 1;
        }
    }
    return 0;
}

/* The output's writer, or NULL (reported). */
static slog_writer *create_writer(const options *o)
{
    slog_writer_options wo = SLOG_WRITER_OPTIONS_INIT;
    wo.ticks_per_second = 1000000000u;
    wo.leaf_bytes = (uint32_t)o->leaf_bytes;
    wo.creator = PROG " " SLOG_VERSION_STRING;
    wo.flags = SLOG_WRITER_TIME_BINS; /* imported traces are for viewing */
    slog_writer *w = NULL;
    slog_error err;
    if (slog_writer_create(&w, o->output, &wo, &err) != SLOG_OK) {
        diag_print(stderr, PROG, o->output, 0, 0, UINT64_MAX, "", "Cannot create: %s",
                   err.message);
        return NULL;
    }
    return w;
}

static int run(const options *o, char **inputs, size_t n)
{
    run_state rs;
    memset(&rs, 0, sizeof rs);
    rs.sort_window = o->sort_window;
    rs.json = o->json;
    diag_caps_init(&rs.caps, WARN_PRINT_LIMIT);
    const bool show = o->progress >= 0 ? o->progress == 1
                                        : progress_default_enabled(o->quiet, o->json);
    progress_init(&rs.prog, stderr, show);

    const importer **imp = calloc(n, sizeof *imp);
    const char **formats = calloc(n, sizeof *formats);
    if (imp == NULL || formats == NULL) {
        free((void *)imp);
        free((void *)formats);
        (void)fprintf(stderr, PROG ": Out of memory\n");
        return 1;
    }
    const double t0 = now_seconds();
    int rc = resolve_formats(o, inputs, n, imp, &rs.bytes_in);
    slog_writer *w = rc == 0 ? create_writer(o) : NULL;
    if (w != NULL) {
        for (size_t i = 0; i < n; i++) {
            formats[i] = imp[i]->name;
        }
        import_ctx ctx = {w, 0, (uint32_t)n, inputs[0], o->quiet, &rs};
        rc = import_all(&ctx, inputs, n, imp);
        progress_end(&rs.prog);
        slog_error err;
        if (rc == 0 && slog_writer_finish(w, &err) != SLOG_OK) {
            diag_print(stderr, PROG, o->output, 0, 0, UINT64_MAX, "", "Failed to finish: %s",
                       err.message);
            rc = 1;
        }
        rs.failed = rc != 0;
        const double secs = now_seconds() - t0;
        if (o->json) {
            summary_json(&rs, o, inputs, n, formats, secs);
        } else if (!o->quiet || rs.failed) {
            summary_text(&rs, o, n, secs);
        }
    } else if (rc == 0) {
        rc = 1; /* create_writer said why */
    }
    slog_writer_destroy(w); /* without finish: the file stays marked incomplete */
    for (size_t i = 0; i < rs.nrows; i++) {
        free(rs.rows[i].what);
    }
    free(rs.rows);
    free((void *)imp);
    free((void *)formats);
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    const int rc = parse_args(&o, argc, argv);
    if (rc >= 0) {
        return rc;
    }
    return run(&o, argv + optind, (size_t)(argc - optind));
}
