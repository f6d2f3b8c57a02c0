/* SPDX-License-Identifier: MIT
 *
 * live_util.h - helpers of the live-reading tests (tests/live): a child
 * process that writes a deterministic trace with a flush every few hundred
 * states, so readers in the parent can follow a file while it is written.
 * Public API only.
 */
#ifndef LIVE_UTIL_H
#define LIVE_UTIL_H

#include <stdint.h>
#include <sys/types.h>

/* The i-th state of the trace the live writer appends: two timelines,
 * contiguous in time, three categories (the same as tests/serve). */
void live_state_at(uint64_t i, uint32_t *timeline, uint32_t *category, int64_t *start,
                   int64_t *end);

/* Fork a writer of `flushes` steps of `per_flush` states each to path; the
 * file exists when this returns (the child says so through a pipe).  The
 * child sleeps pause_us after each flush, finishes the file and exits 0, or
 * exits 1 on any error.  Returns the child's pid, or -1. */
pid_t live_writer_start(const char *path, unsigned flushes, unsigned per_flush, unsigned pause_us);

/* Wait for the writer; 1 when it exited 0. */
int live_writer_wait(pid_t pid);

#endif /* LIVE_UTIL_H */
