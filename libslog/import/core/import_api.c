/* SPDX-License-Identifier: MIT
 *
 * import_api.c - slog_import_into and slog_import_file: one import from
 * options and inputs to the summary.  Steps: load the options and set up
 * the run (import_run.c); find each input's format (forced, or detected:
 * import_detect.c) before any output exists; import the inputs, those of one
 * mergeable format together (run_many), the others one by one; finish the
 * file (slog_import_file only); turn the run into the summary.  A bad input
 * (not found, not recognised, damaged) is reported and the others are still
 * imported; the file is then left unfinished (incomplete), and no output is
 * made when no input could be used.  The first error is the call's result;
 * nothing is printed, nothing exits.
 * Import library, core: public libslog headers.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "import_detect.h"
#include "import_dir.h"
#include "import_run.h"
#include "path_bytes.h"

#define CREATOR "libslog-import " SLOG_VERSION_STRING

/* One call: the run and each input's importer. */
typedef struct import_call {
    import_run run;
    const slog_import_input *inputs;
    size_t n;
    const importer **imp;
    import_file_list *dirs; /* per input: a directory's DFTracer files, or none */
    double t0;
    bool ready; /* run set up: call_end frees it */
    bool output_created;
} import_call;

static double now_seconds(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int oom(slog_error *err)
{
    if (err != NULL) {
        memset(err, 0, sizeof *err);
        err->code = SLOG_ENOMEM;
        err->offset = UINT64_MAX;
        (void)strcpy(err->message, "Out of memory");
    }
    return SLOG_ENOMEM;
}

/* Names find an input's source (input_sources_find): a repeated name would
 * read the first input's bytes again in place of the later one's. */
static int check_unique_names(import_call *c, const slog_import_input *inputs, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        for (size_t j = 0; j < i; j++) {
            if (strcmp(inputs[i].name, inputs[j].name) == 0) {
                return import_run_fail(&c->run, SLOG_EINVAL, inputs[i].name,
                                       "Inputs %zu and %zu are both named '%s': each input "
                                       "needs a name of its own (given once)",
                                       j, i, inputs[i].name);
            }
        }
    }
    return SLOG_OK;
}

/* Set up the run and check the options and inputs. */
static int call_begin(import_call *c, const slog_import_input *inputs, size_t n,
                      const slog_import_options *opts, slog_error *err)
{
    memset(c, 0, sizeof *c);
    c->t0 = now_seconds();
    c->inputs = inputs;
    c->n = n;
    const int rc = import_run_init(&c->run, inputs, n, opts, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    c->ready = true;
    c->dirs = calloc(n > 0 ? n : 1, sizeof *c->dirs);
    if ((c->imp = calloc(n > 0 ? n : 1, sizeof(const importer *))) == NULL || c->dirs == NULL) {
        return import_run_fail(&c->run, SLOG_ENOMEM, "", "Out of memory");
    }
    const char *const fmt = c->run.opt.format;
    if (fmt != NULL && strcmp(fmt, "auto") != 0 && import_find(fmt) == NULL) {
        return import_run_fail(&c->run, SLOG_EINVAL, "", "Unknown format '%s'", fmt);
    }
    for (size_t i = 0; i < n; i++) {
        if (inputs[i].name == NULL || (inputs[i].read != NULL && inputs[i].data != NULL)) {
            return import_run_fail(&c->run, SLOG_EINVAL, "",
                                   "Input %zu: a name and at most one of read and data", i);
        }
    }
    return n == 0 ? import_run_fail(&c->run, SLOG_EINVAL, "", "No input given")
                  : check_unique_names(c, inputs, n);
}

/* The size of a regular file named by a path input, else 0. */
static uint64_t file_size(const import_call *c, const char *name)
{
    struct stat st;
    if (input_sources_find(&c->run.sources, name) == NULL && input_path_stat(name, &st) == 0 &&
        S_ISREG(st.st_mode)) {
        return (uint64_t)st.st_size;
    }
    return 0;
}

static bool is_dir(const import_call *c, const char *name)
{
    struct stat st;
    return input_sources_find(&c->run.sources, name) == NULL && stat(name, &st) == 0 &&
           S_ISDIR(st.st_mode);
}

/* A directory slog-trace wrote: its manifest is there. */
static bool is_trace_dir(const char *dir)
{
    char path[4096];
    struct stat st;
    const int n = snprintf(path, sizeof path, "%s/manifest.jsonl", dir);
    return n > 0 && (size_t)n < sizeof path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A directory of one DFTracer run: its .pfw/.pfw.gz files, merged. */
static int resolve_directory(import_call *c, size_t i)
{
    const char *const name = c->inputs[i].name;
    import_file_list *const l = &c->dirs[i];
    if (import_dir_pfw(name, l) != 0) {
        return import_run_fail(&c->run, SLOG_ENOMEM, name, "Out of memory");
    }
    if (l->n == 0 && is_trace_dir(name)) {
        return import_run_fail(&c->run, SLOG_EPARSE, name,
                               "A slog-trace directory (manifest.jsonl): its files are "
                               "libslog files already; join them with 'slog-trace merge %s "
                               "-o OUT.slog'",
                               name);
    }
    if (l->n == 0) {
        return import_run_fail(&c->run, SLOG_EPARSE, name,
                               "Cannot recognise the directory: it holds no OTF2 archive "
                               "(*.otf2), Recorder trace (VERSION, recorder.mt) or DFTracer "
                               "files (*.pfw, *.pfw.gz)");
    }
    c->imp[i] = import_find("pfw");
    c->run.input_bytes[i] = 0;
    for (size_t k = 0; k < l->n; k++) {
        c->run.input_bytes[i] += path_bytes(l->v[k]);
    }
    return SLOG_OK;
}

/* Input i's importer; SLOG_OK, else reported (the input is then skipped). */
static int resolve_one(import_call *c, size_t i, const importer *forced)
{
    const char *const name = c->inputs[i].name;
    import_ctx ctx = {NULL, (uint32_t)i, (uint32_t)c->n, name, &c->run};
    int rc = SLOG_OK;
    if (forced != NULL) {
        c->imp[i] = forced;
        c->run.input_bytes[i] = file_size(c, name);
    } else {
        rc = import_detect_one(&ctx, name, &c->imp[i], &c->run.input_bytes[i]);
    }
    const bool text_format = forced != NULL && forced->run_many != NULL;
    if (rc == SLOG_OK && (c->imp[i] == NULL || (text_format && is_dir(c, name)))) {
        rc = resolve_directory(c, i);
    }
    if (rc == SLOG_OK && c->imp[i]->needs_path &&
        input_sources_find(&c->run.sources, name) != NULL) {
        rc = import_run_fail(&c->run, SLOG_EINVAL, name,
                             "The %s format needs a path (its importer reads the files "
                             "itself), not a callback or memory input",
                             c->imp[i]->name);
    }
    return rc;
}

/* Every input's importer, before any output is made.  An input that fails
 * is left out (imp[i] NULL, reported); SLOG_OK when at least one is left,
 * else the first error.  Out of memory and cancellation stop at once. */
static int call_resolve(import_call *c)
{
    const char *const fmt = c->run.opt.format;
    const importer *const forced = fmt != NULL && strcmp(fmt, "auto") != 0 ? import_find(fmt)
                                                                            : NULL;
    size_t usable = 0;
    for (size_t i = 0; i < c->n; i++) {
        const int rc = resolve_one(c, i, forced);
        if (rc == SLOG_ENOMEM || rc == SLOG_EINTR) {
            return rc;
        }
        if (rc != SLOG_OK) {
            c->imp[i] = NULL;
            import_file_list_free(&c->dirs[i]);
            continue;
        }
        usable++;
    }
    return usable > 0 ? SLOG_OK : c->run.err.code;
}

/* The names imported with input i: it and the later inputs of its format
 * when that format merges (run_many), a directory as its files. */
static size_t group_of(const import_call *c, size_t i, bool *done, const char **group)
{
    size_t ng = 0;
    const importer *const imp = c->imp[i];
    for (size_t j = i; j < c->n; j++) {
        if (done[j] || c->imp[j] != imp || (imp->run_many == NULL && j != i)) {
            continue;
        }
        done[j] = true;
        for (size_t k = 0; k < c->dirs[j].n; k++) {
            group[ng++] = c->dirs[j].v[k];
        }
        if (c->dirs[j].n == 0) {
            group[ng++] = c->inputs[j].name;
        }
    }
    return ng;
}

/* Import input i and the later inputs of its group; 0 ok, 1 failed
 * (reported). */
static int import_group(import_call *c, slog_writer *w, size_t i, bool *done, const char **group)
{
    const importer *const imp = c->imp[i];
    const size_t ng = group_of(c, i, done, group);
    import_ctx ctx = {w, (uint32_t)i, (uint32_t)c->n, c->inputs[i].name, &c->run};
    const int rc = ng > 1 ? imp->run_many(&ctx, group, ng) : imp->run(&ctx, group[0]);
    if (rc != 0 && !c->run.failed) { /* an importer that returned 1 without saying why */
        (void)import_run_fail(&c->run, SLOG_EPARSE, c->inputs[i].name, "Import failed");
    }
    return rc != 0 ? 1 : 0;
}

/* Import every input; groups of one run_many format go together.  An
 * input that fails does not stop the others (its importer reported it and
 * kept what it could); cancelling does. */
static int call_import(import_call *c, slog_writer *w)
{
    size_t names = 0;
    for (size_t i = 0; i < c->n; i++) {
        names += c->dirs[i].n > 0 ? c->dirs[i].n : 1;
    }
    bool *done = calloc(c->n > 0 ? c->n : 1, sizeof *done);
    const char **group = calloc(names > 0 ? names : 1, sizeof(const char *));
    const bool no_memory = done == NULL || group == NULL;
    const import_ctx probe = {w, 0, (uint32_t)c->n, NULL, &c->run};
    size_t i = 0;
    for (; !no_memory && i < c->n && !import_cancelled(&probe); i++) {
        if (!done[i] && c->imp[i] != NULL) { /* else: with an earlier one, or left out */
            (void)import_group(c, w, i, done, group);
        }
    }
    free(done);
    free((void *)group);
    if (no_memory) {
        return import_run_fail(&c->run, SLOG_ENOMEM, "", "Out of memory");
    }
    if (i < c->n && !c->run.failed) { /* cancelled between two inputs */
        return import_run_fail(&c->run, SLOG_EINTR, "", "Import cancelled");
    }
    return c->run.failed ? c->run.err.code : SLOG_OK;
}

/* The summary of the call (NULL when out of memory). */
static slog_import_summary *call_summary(import_call *c)
{
    slog_import_summary *s = calloc(1, sizeof *s);
    const char **formats = calloc(c->n > 0 ? c->n : 1, sizeof *formats);
    if (s == NULL || formats == NULL) {
        free(s);
        free((void *)formats);
        return NULL;
    }
    for (size_t i = 0; i < c->n && c->imp != NULL; i++) {
        formats[i] = c->imp[i] != NULL ? c->imp[i]->name : NULL;
    }
    s->complete = !c->run.failed;
    s->output_created = c->output_created;
    s->ninputs = c->n;
    s->formats = formats;
    s->counts = c->run.rows; /* the rows and their strings move to the summary */
    s->ncounts = c->run.nrows;
    c->run.rows = NULL;
    c->run.nrows = c->run.caprows = 0;
    for (size_t i = 0; i < s->ncounts; i++) {
        s->imported += s->counts[i].imported;
        s->skipped += s->counts[i].skipped;
        s->repaired += s->counts[i].repaired;
    }
    s->warnings = c->run.warnings;
    s->input_bytes = import_run_bytes(&c->run);
    s->seconds = now_seconds() - c->t0;
    return s;
}

/* Hand out the summary and error, free the call; returns rc. */
static int call_end(import_call *c, int rc, slog_import_summary **summary, slog_error *err)
{
    if (rc != SLOG_OK && c->run.failed && err != NULL) {
        *err = c->run.err;
    }
    if (summary != NULL) {
        *summary = call_summary(c);
        if (*summary == NULL && rc == SLOG_OK) {
            rc = oom(err);
        }
    }
    for (size_t i = 0; c->dirs != NULL && i < c->n; i++) {
        import_file_list_free(&c->dirs[i]);
    }
    free(c->dirs);
    free((void *)c->imp);
    import_run_destroy(&c->run);
    return rc;
}

int slog_import_into(slog_import_summary **summary, slog_writer *w,
                     const slog_import_input *inputs, size_t n,
                     const slog_import_options *opts, slog_error *err)
{
    if (summary != NULL) {
        *summary = NULL;
    }
    import_call c;
    int rc = call_begin(&c, inputs, n, opts, err);
    if (!c.ready) {
        return rc; /* bad options or no memory: no run was set up */
    }
    c.output_created = true;
    rc = rc == SLOG_OK ? call_resolve(&c) : rc;
    rc = rc == SLOG_OK ? call_import(&c, w) : rc;
    return call_end(&c, rc, summary, err);
}

unsigned import_processors(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
        return (unsigned)CPU_COUNT(&set);
    }
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}

/* SLOG_WRITER_BACKGROUND only when a processor is left for the writer's
 * thread beside the threads the inputs' importers keep busy: the Chrome
 * importer (a parser thread and a mapping thread) on two cores was 13 %
 * slower with it and took 30 % more CPU (doc/PERFORMANCE.md, "The writer
 * on a thread of its own"). */
static uint32_t background_if_room(const import_call *c, uint32_t flags)
{
    unsigned busy = 1;
    for (size_t i = 0; i < c->n; i++) {
        if (c->imp[i] != NULL && c->imp[i]->threads > busy) {
            busy = c->imp[i]->threads;
        }
    }
    return import_processors() > busy ? flags : flags & ~SLOG_WRITER_BACKGROUND;
}

/* The output's writer, or NULL (reported). */
static slog_writer *create_writer(import_call *c, const char *output)
{
    slog_writer_options wo = SLOG_WRITER_OPTIONS_INIT;
    if (c->run.opt.writer != NULL) {
        const size_t have = c->run.opt.writer->struct_size;
        memcpy(&wo, c->run.opt.writer, have > 0 && have < sizeof wo ? have : sizeof wo);
        wo.struct_size = have > 0 && have < sizeof wo ? (uint32_t)have : (uint32_t)sizeof wo;
    } else {
        wo.creator = CREATOR;
        /* imported traces are for viewing; the file is built on a second core */
        wo.flags = SLOG_WRITER_TIME_BINS | SLOG_WRITER_BACKGROUND;
    }
    wo.ticks_per_second = 1000000000u; /* importers write nanoseconds */
    wo.flags = background_if_room(c, wo.flags);
    slog_writer *w = NULL;
    slog_error e;
    const int rc = slog_writer_create(&w, output, &wo, &e);
    if (rc != SLOG_OK) {
        (void)import_run_fail(&c->run, rc, output, "Cannot create: %s", e.message);
        return NULL;
    }
    c->output_created = true;
    return w;
}

int slog_import_file(slog_import_summary **summary, const char *output,
                     const slog_import_input *inputs, size_t n,
                     const slog_import_options *opts, slog_error *err)
{
    if (summary != NULL) {
        *summary = NULL;
    }
    import_call c;
    int rc = call_begin(&c, inputs, n, opts, err);
    if (!c.ready) {
        return rc;
    }
    rc = rc == SLOG_OK ? call_resolve(&c) : rc;
    slog_writer *const w = rc == SLOG_OK ? create_writer(&c, output) : NULL;
    rc = rc == SLOG_OK && w == NULL ? c.run.err.code : rc;
    rc = rc == SLOG_OK ? call_import(&c, w) : rc;
    slog_error e;
    if (rc == SLOG_OK && (rc = slog_writer_finish(w, &e)) != SLOG_OK) {
        (void)import_run_fail(&c.run, rc, output, "Failed to finish: %s", e.message);
    }
    slog_writer_destroy(w); /* without finish: the file stays marked incomplete */
    return call_end(&c, rc, summary, err);
}

/* The summary owns what its const members point to (copied out, not cast). */
static void free_owned(const void *p)
{
    void *owned;
    memcpy(&owned, &p, sizeof owned);
    free(owned);
}

void slog_import_summary_destroy(slog_import_summary *summary)
{
    if (summary == NULL) {
        return;
    }
    for (size_t i = 0; i < summary->ncounts; i++) {
        free_owned(summary->counts[i].what);
    }
    free_owned(summary->counts);
    free_owned(summary->formats);
    free(summary);
}
