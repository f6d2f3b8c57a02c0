/* SPDX-License-Identifier: MIT
 *
 * chrome_harness.h - runs the Chrome/.pfw import pipeline without libslog:
 * a recording chrome_out keeps every timeline, category and drawable in
 * memory, and the import run's count and diagnostic callbacks record what
 * the importer reports, so Check suites and the corpus counter can look at
 * exactly what would reach the writer.
 */
#ifndef CHROME_HARNESS_H
#define CHROME_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "chrome.h"
#include "import_run.h"

typedef struct h_timeline {
    uint32_t parent;
    slog_timeline_kind kind;
    char *name;
    int64_t sort;
} h_timeline;

typedef struct h_category {
    slog_kind kind;
    char *name;
    char *group;
} h_category;

/* One drawable as recorded; args rendered "k=v;k=v" (typed, see .c). */
typedef struct h_item {
    slog_kind kind;
    uint32_t timeline, to, category, depth;
    int64_t start, end;
    double value;
    char *args;
} h_item;

typedef struct harness {
    import_ctx ctx;
    import_run run;             /* set up for each import */
    h_timeline *tl;
    size_t ntl;
    h_category *cat;
    size_t ncat;
    h_item *items;
    size_t nitems, capitems;
    uint64_t count[4];          /* per slog_kind */
    uint64_t warnings;
    char last_warning[512];
    char fail_message[512];
    uint64_t fail_line, fail_col;
    bool failed;
    uint64_t window;
    bool keep_items;            /* record items (else only count) */
    bool threaded;              /* parse on a second thread (as slog-import) */
    bool no_fast_scan;          /* SLOG_IMPORT_NO_FAST_SCAN: yajl reads everything */
    FILE *warn_out;             /* print warnings here, or NULL */
    /* import_count rows */
    char *what[256];
    uint64_t n[256][3];
    size_t nwhat;
} harness;

void harness_init(harness *h, uint64_t window, bool keep_items);
/* Import n paths (one run, merged) with the given mode; returns 0/1. */
int harness_import(harness *h, const char *const *paths, size_t n, chrome_mode mode);
/* Import bytes in memory fed in chunks (no file, no decompression). */
int harness_import_bytes(harness *h, const void *data, size_t len, size_t chunk,
                         chrome_mode mode);
/* Import an in-memory text through a temporary file. */
int harness_import_text(harness *h, const char *text, size_t len, chrome_mode mode);
/* Total of an import_count row (outcome), 0 if absent. */
uint64_t harness_counted(const harness *h, const char *what, import_outcome o);
void harness_free(harness *h);

#endif
