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

/* The trace the live writer appends, step by step (one flush per step):
 * state i is [1000 + 50 i, 1000 + 50 i + 40), on timeline i % T and
 * category i % C, where T and C are the timelines and categories that
 * exist at its step: 2 and 3 at first, one more of each every
 * LIVE_GROW_STEPS steps (added before the step's states). */
#define LIVE_GROW_STEPS 50u
#define LIVE_STATE_START(i) (1000 + 50 * (int64_t)(i))
void live_state_at(uint64_t i, unsigned per_flush, uint32_t *timeline, uint32_t *category,
                   int64_t *start, int64_t *end);
/* Timelines and categories that exist after `steps` steps. */
uint32_t live_timelines_after(unsigned steps);
uint32_t live_categories_after(unsigned steps);

/* Fork a writer of `flushes` steps of `per_flush` states each to path; the
 * file exists when this returns (the child says so through a pipe).  The
 * child sleeps pause_us after each flush, finishes the file and exits 0, or
 * exits 1 on any error.  Returns the child's pid, or -1. */
pid_t live_writer_start(const char *path, unsigned flushes, unsigned per_flush, unsigned pause_us);

/* Wait for the writer; 1 when it exited 0. */
int live_writer_wait(pid_t pid);

#endif /* LIVE_UTIL_H */
