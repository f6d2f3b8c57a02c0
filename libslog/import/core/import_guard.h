/* SPDX-License-Identifier: MIT
 *
 * import_guard.h - run a job that may never return (a third-party library
 * looping on damaged input) on a thread of its own, and wait for it at most
 * a bounded time or until the caller cancels (import_guard.c).
 * Import library, core: pthreads.
 */
#ifndef SLOG_IMPORT_GUARD_H
#define SLOG_IMPORT_GUARD_H

#include <slog/slog_import.h>
#include <stdint.h>

typedef enum import_guard_outcome {
    IMPORT_GUARD_DONE = 0,      /* the job returned: its results are in arg */
    IMPORT_GUARD_TIMEOUT = 1,   /* timeout_ms passed first */
    IMPORT_GUARD_CANCELLED = 2, /* *cancel became non-zero first */
    IMPORT_GUARD_NO_THREAD = 3  /* no thread could be started (job not run) */
} import_guard_outcome;

/* Run job(arg) on a new thread and wait.  On TIMEOUT and CANCELLED the
 * thread is left running, detached, and owns arg from then on: if the job
 * ever returns, release(arg) runs on that thread (so arg must hold
 * everything the job touches; nothing of the caller's).  The caller may not
 * touch arg after such an outcome. */
import_guard_outcome import_guard_run(void (*job)(void *arg), void (*release)(void *arg),
                                      void *arg, uint32_t timeout_ms,
                                      const slog_atomic_int *cancel);

#endif
