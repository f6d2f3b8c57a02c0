/* SPDX-License-Identifier: MIT
 *
 * trace_merge_msg.h - MPI point-to-point messages of a merge: every send
 * and every completed receive the tracer recorded (args msg = "send" or
 * "recv", comm, src, dst, tag, bytes: ranks of MPI_COMM_WORLD) is noted
 * with its timeline in the merged file; matching pairs the k-th send with
 * the k-th receive of each (comm, src, dst, tag), which is MPI's
 * non-overtaking order, and appends one arrow per pair.
 * Layer: slog-trace tool; public API only.
 */
#ifndef SLOG_TRACE_MERGE_MSG_H
#define SLOG_TRACE_MERGE_MSG_H

#include <stddef.h>
#include <stdint.h>

#include <slog/slog.h>

typedef struct merge_msgs merge_msgs;

merge_msgs *merge_msgs_create(void);
void merge_msgs_destroy(merge_msgs *m);

/* Note a drawable whose args may describe a message end: a send at its
 * start time, a receive at its end time, on timeline.  Returns 0, or -1
 * out of memory. */
int merge_msgs_note(merge_msgs *m, uint32_t timeline, int64_t start, int64_t end,
                    const slog_arg *args, uint32_t nargs);

/* Move every message end noted in from into into (from is left empty).
 * Returns 0, or -1 out of memory (into then holds part of them). */
int merge_msgs_take(merge_msgs *into, merge_msgs *from);

/* Append an arrow of category cat per matched pair; counts what matched
 * and what did not.  Returns SLOG_OK or the writer's error. */
int merge_msgs_write(merge_msgs *m, slog_writer *w, uint32_t cat, uint64_t *matched,
                     uint64_t *unmatched, slog_error *err);

#endif /* SLOG_TRACE_MERGE_MSG_H */
