/* SPDX-License-Identifier: MIT
 *
 * importer.h - the table of input formats of slog-import.  Each importer is
 * one entry {name, probe, run}: probe looks at the first bytes of an input
 * (already gunzipped/unzipped when the input was compressed) and says how
 * sure it is that the input is its format; run converts one input through
 * the public writer API.  babeltrace2's source-component idea, without
 * plugin loading.  main.c owns the writer, the summary and the exit code.
 */
#ifndef SLOG_IMPORTER_H
#define SLOG_IMPORTER_H

#include <slog/slog.h>
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

/* Shared state of one slog-import run (defined in main.c). */
struct import_ctx {
    slog_writer *writer;   /* output; all inputs go into one file */
    uint32_t input_index;  /* 0-based index of the input being imported */
    uint32_t input_count;
    const char *display_name; /* input path as the user gave it */
    bool quiet;
    void *impl;            /* main.c's private summary and progress state */
};

/* Count n records of kind `what` (e.g. "X", "B/E", "MPI_SEND", "POSIX read")
 * with the given outcome.  `what` is copied. */
void import_count(import_ctx *ctx, const char *what, import_outcome outcome, uint64_t n);

/* A warning with a location: line/column (1-based; 0 = unknown) or, for
 * binary inputs, a byte offset (UINT64_MAX = unknown).  Printed as
 * "slog-import: FILE:LINE:COL: warning: MSG" or "FILE: byte OFF: warning: MSG".
 * Repeated warnings of one kind are capped in print, never in the count. */
void import_warn(import_ctx *ctx, uint64_t line, uint64_t col, uint64_t offset, const char *fmt,
                 ...) __attribute__((format(printf, 5, 6)));

/* An error that ends this input; returns 1 so importers can
 * `return import_fail(ctx, ...)`.  The output is then left incomplete. */
int import_fail(import_ctx *ctx, uint64_t line, uint64_t col, uint64_t offset, const char *fmt,
                ...) __attribute__((format(printf, 5, 6)));

/* Progress: bytes of this input consumed so far (drawn only on a TTY). */
void import_progress(import_ctx *ctx, uint64_t done, uint64_t total);

/* A readable stream over an input that transparently undoes gzip and
 * single-member zip (see input_stream.c). */
typedef struct import_stream import_stream;
int import_stream_open(import_stream **out, const char *path, char *errbuf, size_t errlen);
/* Read up to n bytes; returns bytes read, 0 at end, -1 on error (errbuf). */
long import_stream_read(import_stream *s, void *buf, size_t n);
/* Compressed bytes consumed and total compressed size (for progress). */
uint64_t import_stream_pos(const import_stream *s);
uint64_t import_stream_size(const import_stream *s);
const char *import_stream_error(const import_stream *s);
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
} importer;

/* The table, in probe order, NULL-terminated (importers.c). */
extern const importer *const import_table[];

#endif /* SLOG_IMPORTER_H */
