/* SPDX-License-Identifier: MIT
 *
 * trace_merge_int.h - what the two ways of `slog-trace merge` share: the
 * in-memory merge (trace_merge.c: needed to join a Python tracing file's
 * regions to its process's timelines, nested again) and the streamed one
 * (trace_merge_stream.c: every other directory, memory bounded by the
 * messages).  Their messages, counts and summary line are the same.
 * Layer: slog-trace tool; public API only.
 */
#ifndef SLOG_TRACE_MERGE_INT_H
#define SLOG_TRACE_MERGE_INT_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slog/slog.h>

/* What a merge did with the directory's files. */
typedef struct trace_merge_tally {
    size_t merged, empty, skipped, jobfiles, incomplete;
} trace_merge_tally;

/* "slog-trace merge: PATH: WHAT: MESSAGE (CODE)" on stderr; returns 1. */
int trace_merge_fail(const char *path, const char *what, int rc, const slog_error *err);

/* An MPI job's index or arrows file: it holds no process's own data (its
 * drawables are the rank files', or the arrows this merge makes). */
bool trace_merge_not_process_file(const slog_reader *r);

/* name without the "rank R: " prefix MPI_Init gave the process's timeline. */
const char *trace_merge_strip_rank(const char *name, int64_t rank);

/* Note the MPI rank of the file at path (-1: none) among *ranks; a second
 * file of one rank is said on stderr (two runs in one directory).
 * Returns SLOG_OK or SLOG_ENOMEM. */
int trace_merge_note_rank(int64_t **ranks, size_t *n, int64_t rank, const char *path);

/* An input whose writer did not finish (complete false): counted, and
 * said on stderr with the output that will be marked incomplete. */
void trace_merge_warn_incomplete(const char *path,
                                 bool complete,
                                 const char *out,
                                 trace_merge_tally *t);

/* The summary line on stderr. */
void trace_merge_summary_line(const trace_merge_tally *t,
                              uint64_t drawables,
                              uint64_t matched,
                              uint64_t unmatched,
                              const char *out);

/* Call fn on every drawable of r, with its args, in the reader's order,
 * until fn returns other than SLOG_OK; returns that, or the reader's
 * error, or SLOG_OK. */
int trace_merge_each_item(slog_reader *r,
                          int (*fn)(void *ctx, const slog_item *it),
                          void *ctx,
                          slog_error *err);

/* Whether the streamed merge of the directory's nents .slog files would
 * take less memory than the in-memory one (it keeps every input open:
 * many small files are cheaper in memory) and the process may open them
 * all (the soft limit of descriptors is raised to the hard one if need
 * be).  Reads each file's summary. */
bool trace_merge_stream_fits(const char *dir, struct dirent *const *ents, int nents);

/* The streamed merge of the directory's nents .slog files (none a Python
 * tracing file) into out; returns the exit status. */
int trace_merge_streamed(const char *dir, struct dirent *const *ents, int nents, const char *out);

#endif /* SLOG_TRACE_MERGE_INT_H */
