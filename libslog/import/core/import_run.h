/* SPDX-License-Identifier: MIT
 *
 * import_run.h - the state of one import (one slog_import_* call): its
 * options with defaults applied, the per-record-kind counts, the warning
 * count and first error, its inputs (paths, callbacks, memory: input_pipe.h
 * resolves names through them), per-import attachments of importers.  Every
 * importer.h hook reaches the caller through it; nothing is process-global,
 * so imports in separate threads share nothing.  Tests that drive one
 * importer directly (tests/chrome_harness.c) create a run the same way.
 * Import library, core: public libslog headers, pthreads.
 */
#ifndef SLOG_IMPORT_RUN_H
#define SLOG_IMPORT_RUN_H

#include <pthread.h>

#include "importer.h"
#include "input_pipe.h"

typedef struct import_attachment {
    const void *key;
    void *value;
    void (*destroy)(void *);
} import_attachment;

struct import_run {
    pthread_mutex_t lock;         /* counts, warnings, error, callbacks */
    slog_import_options opt;      /* defaults applied */
    slog_import_count *rows;      /* summary rows (what is owned) */
    size_t nrows, caprows;
    uint64_t warnings;
    bool failed;
    slog_error err;               /* the first error */
    input_sources sources;        /* inputs and held pipes (input_pipe.h) */
    uint64_t *input_bytes;        /* per input: size when known, else bytes read */
    bool *input_bytes_set;        /* ... set by the importer (import_input_bytes) */
    import_attachment *att;
    size_t natt;
};

/* Set up @p run for @p n inputs (copied by reference: they must outlive the
 * run) with options loaded from @p opts (NULL: defaults).  SLOG_OK, or
 * SLOG_EINVAL / SLOG_ENOMEM with @p err filled. */
int import_run_init(import_run *run, const slog_import_input *inputs, size_t n,
                    const slog_import_options *opts, slog_error *err);
/* Free everything the run holds (attachments, held pipes, rows). */
void import_run_destroy(import_run *run);
/* Index of the input named @p name, or SIZE_MAX. */
size_t import_run_input(const import_run *run, const char *name);
/* The total input bytes (sizes, archive sizes, bytes read). */
uint64_t import_run_bytes(const import_run *run);
/* Record a failure not raised by an importer (detection, the writer):
 * counts as the run's error and goes to the diagnostic callback. */
int import_run_fail(import_run *run, int code, const char *source, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Load a caller's options (struct_size rule) into @p dst with defaults. */
int import_options_load(slog_import_options *dst, const slog_import_options *src,
                        slog_error *err);

#endif /* SLOG_IMPORT_RUN_H */
