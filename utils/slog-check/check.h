/* SPDX-License-Identifier: MIT
 *
 * check.h - what slog-check found in a file, shared by its three parts:
 * main.c (arguments, the scan through slog_reader_verify, exit status),
 * check_report.c (the report as text or JSON, with the time ranges a query
 * still answers) and check_salvage.c (--salvage: every node that verifies
 * copied into a new file through the public writer).
 * Tools layer: public libslog headers and utils/common only.
 */
#ifndef SLOG_CHECK_H
#define SLOG_CHECK_H

#include <slog/slog.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROG "slog-check"

/* Exit status: the file is clean, damaged (some nodes), or unusable (it
 * does not open: tables or HDF5 structure damaged) or bad arguments;
 * --salvage's output or the report could not be written. */
enum {
    CHECK_CLEAN = 0,
    CHECK_DAMAGED = 1,
    CHECK_UNUSABLE = 2,
    CHECK_WRITE_FAILED = 3
};

typedef struct check_result {
    const char *path;
    const slog_file_info *info;  /* borrowed from the reader */
    slog_verify_totals totals;
    slog_node_damage *damaged;   /* in node order */
    size_t ndamaged, cap;
} check_result;

/* A time range [start, end] in ticks. */
typedef struct check_range {
    int64_t start, end;
} check_range;

/* The parts of the file's range that no damaged node with one of the
 * `parts` bits overlaps: *out (caller frees) and its length. -1 on ENOMEM. */
int check_intact_ranges(const check_result *c, uint32_t parts, check_range **out, size_t *n);

/* The report on stdout: text for people, or one JSON object (schema 1). */
void check_print_text(const check_result *c);
void check_print_json(const check_result *c, const char *salvage_out, uint64_t salvaged);

/* What --salvage wrote: drawables copied, drawables whose args were lost. */
typedef struct salvage_totals {
    uint64_t drawables;
    uint64_t args_lost;
} salvage_totals;

/* Write every drawable of every node that verifies into a new complete file
 * `out` (through a temporary name, renamed when complete), with the
 * timelines, categories and clock of the input; lists what was lost on
 * stderr unless quiet.  0, or -1 after printing why. */
int check_salvage(slog_reader *r, const check_result *c, const char *out, bool quiet,
                  salvage_totals *st);

#endif /* SLOG_CHECK_H */
