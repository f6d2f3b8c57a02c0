/* SPDX-License-Identifier: MIT
 *
 * pf_harness.h - import a trace held in memory through perfetto_import()
 * into a temporary libslog file, then read everything back through the
 * public reader API (drawables with args, timelines, categories) together
 * with the import's summary rows and warnings, for exact assertions.
 */
#ifndef PF_HARNESS_H
#define PF_HARNESS_H

#include <slog/slog.h>
#include <stddef.h>
#include <stdint.h>

#define PFH_MAX_ITEMS 256
#define PFH_MAX_ROWS 128
#define PFH_MAX_WARN 32

typedef struct pfh_item {
    slog_kind kind;
    uint32_t timeline, category, to, depth;
    int64_t t0, t1;
    double value;
    char name[64];      /* category name */
    char group[64];
    char tl_name[64];   /* timeline name (arrows: the `from` end) */
    char to_name[64];   /* arrows: the `to` end */
    char args[512];     /* "key=value;" for each arg, typed: i: u: d: b: s: j: */
} pfh_item;

typedef struct pfh_result {
    int rc;                     /* perfetto_import's */
    slog_error err;
    size_t n;
    pfh_item items[PFH_MAX_ITEMS]; /* sorted by (kind, t0, t1, tl_name, name) */
    uint32_t timelines;
    char tl_names[64][64];
    slog_timeline_kind tl_kinds[64];
    uint32_t tl_parents[64];
    int64_t tl_sort_keys[64];
    char rows[PFH_MAX_ROWS][96];
    uint64_t row_n[PFH_MAX_ROWS];
    size_t nrows;
    uint64_t warn_offset[PFH_MAX_WARN];
    char warn[PFH_MAX_WARN][256];
    size_t nwarn;
} pfh_result;

/* Import bytes[0, n) fed `chunk` bytes per read (0: all at once); fail_read
 * makes the read after that many bytes fail.  Returns a heap result
 * (free()) or NULL when the harness itself failed. */
pfh_result *pfh_run(const uint8_t *bytes, size_t n, size_t chunk, size_t fail_read);

/* A summary row's total (imported + skipped + repaired), 0 if absent. */
uint64_t pfh_row(const pfh_result *r, const char *what);

/* The first item of kind k whose category name is name, NULL if none. */
const pfh_item *pfh_find(const pfh_result *r, slog_kind k, const char *name);

/* Items of one kind. */
size_t pfh_count(const pfh_result *r, slog_kind k);

#endif /* PF_HARNESS_H */
