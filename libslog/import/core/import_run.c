/* SPDX-License-Identifier: MIT
 *
 * import_run.c - one import's state and the importer.h hooks over it:
 * counts become summary rows (and the caller's count callback), warnings and
 * errors become slog_import_diagnostic values for the caller's diagnostic
 * callback, the first error becomes the call's slog_error, progress goes to
 * the progress callback and is where cancellation is noticed.  One mutex
 * per run serialises the hooks, because the Chrome importer reports from
 * two threads; runs share nothing, so parallel imports never contend.
 * Import library, core: public libslog headers, pthreads.
 */
#include "import_run.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_main.h"

#define MESSAGE_BYTES 768

int import_run_init(import_run *run, const slog_import_input *inputs, size_t n,
                    const slog_import_options *opts, slog_error *err)
{
    memset(run, 0, sizeof *run);
    int rc = import_options_load(&run->opt, opts, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    run->input_bytes = calloc(n > 0 ? n : 1, sizeof *run->input_bytes);
    run->input_bytes_set = calloc(n > 0 ? n : 1, sizeof *run->input_bytes_set);
    if (run->input_bytes == NULL || run->input_bytes_set == NULL ||
        input_sources_init(&run->sources, inputs, n) != 0 ||
        pthread_mutex_init(&run->lock, NULL) != 0) {
        free(run->input_bytes);
        free(run->input_bytes_set);
        if (err != NULL) {
            memset(err, 0, sizeof *err);
            err->code = SLOG_ENOMEM;
            err->offset = UINT64_MAX;
            (void)snprintf(err->message, sizeof err->message, "Out of memory");
        }
        return SLOG_ENOMEM;
    }
    run->err.offset = UINT64_MAX;
    return SLOG_OK;
}

void import_run_destroy(import_run *run)
{
    for (size_t i = run->natt; i-- > 0;) {
        run->att[i].destroy(run->att[i].value);
    }
    free(run->att);
    for (size_t i = 0; i < run->nrows; i++) {
        void *what; /* owned, const for the summary */
        memcpy(&what, &run->rows[i].what, sizeof what);
        free(what);
    }
    free(run->rows);
    free(run->input_bytes);
    free(run->input_bytes_set);
    input_sources_destroy(&run->sources);
    (void)pthread_mutex_destroy(&run->lock);
    memset(run, 0, sizeof *run);
}

size_t import_run_input(const import_run *run, const char *name)
{
    for (size_t i = 0; name != NULL && i < run->sources.n; i++) {
        if (strcmp(run->sources.inputs[i].name, name) == 0) {
            return i;
        }
    }
    return SIZE_MAX;
}

uint64_t import_run_bytes(const import_run *run)
{
    uint64_t total = 0;
    for (size_t i = 0; i < run->sources.n; i++) {
        const uint64_t read = run->sources.read_bytes[i];
        const uint64_t known = run->input_bytes[i];
        total += run->input_bytes_set[i] || known > 0 ? known : read;
    }
    return total;
}

/* ---------------------------------------------------------------- counts */

static slog_import_count *row_of(import_run *run, const char *what)
{
    for (size_t i = 0; i < run->nrows; i++) {
        if (strcmp(run->rows[i].what, what) == 0) {
            return &run->rows[i];
        }
    }
    if (run->nrows == run->caprows) {
        const size_t cap = run->caprows ? run->caprows * 2 : 32;
        slog_import_count *rows = realloc(run->rows, cap * sizeof *rows);
        if (rows == NULL) {
            return NULL; /* the summary loses a row; the import goes on */
        }
        run->rows = rows;
        run->caprows = cap;
    }
    char *copy = strdup(what);
    if (copy == NULL) {
        return NULL;
    }
    slog_import_count *r = &run->rows[run->nrows++];
    memset(r, 0, sizeof *r);
    r->what = copy;
    return r;
}

void import_count(import_ctx *ctx, const char *what, import_outcome outcome, uint64_t n)
{
    if (n == 0 || outcome >= IMPORT_OUTCOMES) {
        return;
    }
    import_run *const run = ctx->run;
    pthread_mutex_lock(&run->lock);
    slog_import_count *const r = row_of(run, what);
    if (r != NULL) {
        uint64_t *const cell[IMPORT_OUTCOMES] = {&r->imported, &r->skipped, &r->repaired};
        *cell[outcome] += n;
    }
    if (run->opt.count != NULL) {
        run->opt.count(what, (slog_import_outcome)outcome, n, run->opt.user);
    }
    pthread_mutex_unlock(&run->lock);
}

/* ------------------------------------------------------------ diagnostics */

/* Hand a diagnostic to the caller; under the run's lock. */
static void deliver(const import_run *run, const slog_import_diagnostic *d)
{
    if (run->opt.diagnostic != NULL) {
        run->opt.diagnostic(d, run->opt.user);
    }
}

void import_warn(import_ctx *ctx, uint64_t line, uint64_t col, uint64_t offset, const char *fmt,
                 ...)
{
    char msg[MESSAGE_BYTES];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    import_run *const run = ctx->run;
    const slog_import_diagnostic d = {SLOG_IMPORT_WARNING, ctx->display_name, line, col,
                                      offset,              msg,               fmt};
    pthread_mutex_lock(&run->lock);
    run->warnings++;
    deliver(run, &d);
    pthread_mutex_unlock(&run->lock);
}

/* Record an error: the first one is the run's result. */
static void record_failure(import_run *run, int code, const slog_import_diagnostic *d)
{
    pthread_mutex_lock(&run->lock);
    if (!run->failed) {
        run->failed = true;
        run->err.code = code;
        run->err.offset = d->offset;
        (void)snprintf(run->err.source, sizeof run->err.source, "%s", d->source);
        (void)snprintf(run->err.message, sizeof run->err.message, "%s", d->message);
    }
    deliver(run, d);
    pthread_mutex_unlock(&run->lock);
}

static slog_import_diagnostic error_diag(const char *source, uint64_t line, uint64_t col,
                                         uint64_t offset, const char *fmt, const char *msg)
{
    const slog_import_diagnostic d = {SLOG_IMPORT_ERROR, source != NULL ? source : "",
                                      line, col, offset, msg, fmt};
    return d;
}

static int failure_code(const import_ctx *ctx, int code)
{
    return import_cancelled(ctx) ? SLOG_EINTR : code;
}

int import_fail(import_ctx *ctx, uint64_t line, uint64_t col, uint64_t offset, const char *fmt, ...)
{
    char msg[MESSAGE_BYTES];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const slog_import_diagnostic d = error_diag(ctx->display_name, line, col, offset, fmt, msg);
    record_failure(ctx->run, failure_code(ctx, SLOG_EPARSE), &d);
    return 1;
}

int import_fail_code(import_ctx *ctx, int code, uint64_t offset, const char *fmt, ...)
{
    char msg[MESSAGE_BYTES];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const slog_import_diagnostic d = error_diag(ctx->display_name, 0, 0, offset, fmt, msg);
    record_failure(ctx->run, failure_code(ctx, code), &d);
    return 1;
}

int import_run_fail(import_run *run, int code, const char *source, const char *fmt, ...)
{
    char msg[MESSAGE_BYTES];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const slog_atomic_int *const flag = run->opt.cancel;
    if (flag != NULL && atomic_load_explicit(flag, memory_order_relaxed) != 0) {
        code = SLOG_EINTR;
        (void)snprintf(msg, sizeof msg, "Import cancelled");
    }
    const slog_import_diagnostic d = error_diag(source, 0, 0, UINT64_MAX, fmt, msg);
    record_failure(run, code, &d);
    return code;
}

/* ------------------------------------------------ progress, cancellation */

bool import_cancelled(const import_ctx *ctx)
{
    const slog_atomic_int *const flag = ctx->run->opt.cancel;
    return flag != NULL && atomic_load_explicit(flag, memory_order_relaxed) != 0;
}

int import_progress(import_ctx *ctx, uint64_t done, uint64_t total)
{
    import_run *const run = ctx->run;
    if (run->opt.progress != NULL) {
        pthread_mutex_lock(&run->lock);
        run->opt.progress(ctx->display_name, done, total, run->opt.user);
        pthread_mutex_unlock(&run->lock);
    }
    return import_cancelled(ctx) ? 1 : 0;
}

/* ------------------------------------------------------- importer state */

void import_input_bytes(import_ctx *ctx, uint64_t bytes)
{
    import_run *const run = ctx->run;
    const size_t i = import_run_input(run, ctx->display_name);
    if (i != SIZE_MAX) {
        pthread_mutex_lock(&run->lock);
        run->input_bytes[i] = bytes;
        run->input_bytes_set[i] = true;
        pthread_mutex_unlock(&run->lock);
    }
}

const slog_import_options *import_options(const import_ctx *ctx)
{
    return &ctx->run->opt;
}

uint64_t import_sort_window(const import_ctx *ctx)
{
    return ctx->run->opt.sort_window;
}

uint64_t import_warning_count(const import_ctx *ctx)
{
    import_run *const run = ctx->run;
    pthread_mutex_lock(&run->lock);
    const uint64_t n = run->warnings;
    pthread_mutex_unlock(&run->lock);
    return n;
}

void *import_attached(const import_ctx *ctx, const void *key)
{
    const import_run *const run = ctx->run;
    for (size_t i = 0; i < run->natt; i++) {
        if (run->att[i].key == key) {
            return run->att[i].value;
        }
    }
    return NULL;
}

int import_attach(import_ctx *ctx, const void *key, void *value, void (*destroy)(void *))
{
    import_run *const run = ctx->run;
    import_attachment *att = realloc(run->att, (run->natt + 1) * sizeof *att);
    if (att == NULL) {
        return -1;
    }
    att[run->natt++] = (import_attachment){key, value, destroy};
    run->att = att;
    return 0;
}
