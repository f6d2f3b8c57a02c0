/* SPDX-License-Identifier: MIT
 *
 * importer.h - the table of input formats of slog-import.  Each importer is
 * one entry {name, probe, run}: probe looks at the first bytes of an input
 * (already gunzipped/unzipped when the input was compressed) and says how
 * sure it is that the input is its format; run converts one input through
 * the public writer API.  babeltrace2's source-component idea, without
 * plugin loading.  import_api.c owns the run (detection, grouping, the
 * writer of slog_import_file); import_run.c the counts, diagnostics and
 * per-import state behind the hooks below.
 * Import library, core: public libslog headers only.
 */
#ifndef SLOG_IMPORTER_H
#define SLOG_IMPORTER_H

#include <slog/slog.h>
#include <slog/slog_import.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How one kind of input record ended up (for the summary). */
typedef enum import_outcome {
    IMPORT_IMPORTED = 0, /* mapped to a drawable, timeline, category or metadata */
    IMPORT_SKIPPED = 1,  /* understood but not representable: counted, reported */
    IMPORT_REPAIRED = 2, /* broken input fixed up (warned) */
    IMPORT_OUTCOMES = 3
} import_outcome;

typedef struct import_ctx import_ctx;
typedef struct import_run import_run; /* one slog_import_* call (import_run.c) */

/* What an importer sees of the import it works for.  Copies are fine (the
 * Chrome feeder thread keeps its own, with its own display_name): they all
 * point to one import_run. */
struct import_ctx {
    slog_writer *writer;   /* output; all inputs go into one file */
    uint32_t input_index;  /* 0-based index of the input being imported */
    uint32_t input_count;
    const char *display_name; /* input as the caller named it */
    import_run *run;       /* the import's state: options, counts, sources */
};

/* The hooks below are safe to call from several threads of one import at
 * once (the run's lock serialises the caller's callbacks). */

/* Count n records of kind `what` (e.g. "X", "B/E", "MPI_SEND", "POSIX read")
 * with the given outcome.  `what` is copied. */
void import_count(import_ctx *ctx, const char *what, import_outcome outcome, uint64_t n);

/* A warning with a location: line/column (1-based; 0 = unknown) or, for
 * binary inputs, a byte offset (UINT64_MAX = unknown).  Counted, and handed
 * to the caller's diagnostic callback with the format string as its kind. */
void import_warn(import_ctx *ctx, uint64_t line, uint64_t col, uint64_t offset, const char *fmt,
                 ...) __attribute__((format(printf, 5, 6)));

/* An error that ends this input; returns 1 so importers can
 * `return import_fail(ctx, ...)`.  The first error of an import is its
 * result (SLOG_EPARSE, or SLOG_EINTR once cancelled); the output is then
 * left incomplete. */
int import_fail(import_ctx *ctx, uint64_t line, uint64_t col, uint64_t offset, const char *fmt,
                ...) __attribute__((format(printf, 5, 6)));
/* import_fail with a status code of slog_common.h. */
int import_fail_code(import_ctx *ctx, int code, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Progress: units of this input done so far, of total (0 = unknown).
 * Returns 1 when the caller cancelled the import: stop, through import_fail
 * (whose code then becomes SLOG_EINTR).  Inputs read through import_stream
 * fail their next read once cancelled, so their importers may ignore it. */
int import_progress(import_ctx *ctx, uint64_t done, uint64_t total);
/* True once the caller set the cancel flag (cheap: one atomic load). */
bool import_cancelled(const import_ctx *ctx);

/* The size of the current input in bytes when the importer knows it better
 * than the file's (an OTF2 or Recorder archive: all its files). */
void import_input_bytes(import_ctx *ctx, uint64_t bytes);

/* Processors this process may run on (its affinity; at least 1). */
unsigned import_processors(void);

/* The import's options, defaults applied (never NULL). */
const slog_import_options *import_options(const import_ctx *ctx);

/* Per-import attachments of an importer (e.g. categories shared by the MPE
 * inputs of one import): the value stored under @p key, or NULL. */
void *import_attached(const import_ctx *ctx, const void *key);
/* Store @p value under @p key until the import ends, when destroy(value)
 * runs.  0 ok, -1 out of memory (value not stored). */
int import_attach(import_ctx *ctx, const void *key, void *value, void (*destroy)(void *));

/* A readable stream over an input that transparently undoes gzip and
 * single-member zip (see input_stream.c). */
typedef struct import_stream import_stream;
/* @p ctx (may be NULL: a plain path) resolves names of callback and memory
 * inputs, and keeps pipes readable by a second open within the import. */
int import_stream_open(import_stream **out, const import_ctx *ctx, const char *path,
                       char *errbuf, size_t errlen);
/* Read up to n bytes; returns bytes read, 0 at end, -1 on error (errbuf). */
long import_stream_read(import_stream *s, void *buf, size_t n);
/* Compressed bytes consumed and total compressed size (for progress). */
uint64_t import_stream_pos(const import_stream *s);
uint64_t import_stream_size(const import_stream *s);
const char *import_stream_error(const import_stream *s);
/* After the end: why the data ended early though it read well (a gzip file
 * cut short), for a warning; NULL when it ended as it should. */
const char *import_stream_note(const import_stream *s);
void import_stream_close(import_stream *s);

typedef struct importer {
    const char *name; /* "chrome", "pfw", "otf2", "recorder", "clog2", "slog2" */
    /* path: input path (a file or, for otf2/recorder, possibly a directory);
     * head: first bytes of the decompressed content (NULL for a directory).
     * Returns 0 (not mine) .. 100 (certain). */
    int (*probe)(const char *path, const unsigned char *head, size_t n);
    /* Import one input; 0 ok, 1 failed (after import_fail). */
    int (*run)(import_ctx *ctx, const char *path);
    /* Import several inputs of this format merged by time (JSON-lines per
     * process, for example); NULL if the importer only takes one at a time. */
    int (*run_many)(import_ctx *ctx, const char *const *paths, size_t n);
    /* The importer reads files itself (libotf2, folders): callback and
     * memory inputs are refused with a clear message. */
    bool needs_path;
    /* Threads the importer keeps busy itself (the Chrome/.pfw importer
     * parses on a thread of its own: 2); the file's writer gets a thread of
     * its own only when a processor is left for it (import_api.c).  The OTF2
     * importer's mapping thread is not counted: it waits while libotf2
     * reads, and a time-binned file's writer is the heavier side (doc/
     * IMPORT-OTF2.md, "Two threads"). */
    uint8_t threads;
} importer;

/* The table, in probe order, NULL-terminated, and its names in the same
 * order (importers.c: slog_import_formats returns the names). */
extern const importer *const import_table[];
extern const char *const import_table_names[];

#endif /* SLOG_IMPORTER_H */
