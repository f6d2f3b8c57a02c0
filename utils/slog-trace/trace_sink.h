/* SPDX-License-Identifier: MIT
 *
 * trace_sink.h - the seam between the preload tracer and libslog's writer:
 * one file per process, one timeline per thread, complete states (a call
 * recorded when it returns) and point events.  Everything the tracer
 * writes goes through these calls.  Two implementations: the one-thread
 * writer behind a lock (trace_sink_locked.c, the default) and the
 * per-thread writer of slog_thread.h (trace_sink_twriter.c, chosen with
 * SLOG_TRACE_WRITER=thread); trace_sink.c picks one when the file opens.
 * The sink never records its own I/O: callers hold the thread's guard
 * (trace_core.h) around every sink call.
 * Layer: slog-trace preload library; public API only.
 */
#ifndef SLOG_TRACE_SINK_H
#define SLOG_TRACE_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include <slog/slog.h>

typedef struct sink_thread sink_thread;

/* One category to define, in order: its id is its index. */
typedef struct sink_category {
    const char *name;
    const char *group;
    slog_kind kind;
} sink_category;

/* Create the process's file at path with a process timeline named
 * process_name and the categories cats[0..ncats) (ids 0..ncats-1).
 * Returns 0, or -1 (tracing is then off for this process). */
int sink_open(const char *path, const char *process_name, const sink_category *cats,
              uint32_t ncats);

/* A timeline for the calling thread, named name, under the process. NULL
 * when the sink is not open or out of memory. */
sink_thread *sink_thread_open(const char *name);

/* True when t belongs to an earlier file (after exec failed, or fork):
 * the thread needs a new handle. */
bool sink_thread_stale(const sink_thread *t);

/* The thread ended (its pthread key destructor): its data stays. */
void sink_thread_close(sink_thread *t);

/* A state [start, end] of category cat at depth (calls open around it on
 * its thread), with args[0..nargs). */
typedef struct sink_span {
    uint32_t cat;
    uint32_t depth;
    int64_t start;
    int64_t end;
    const slog_arg *args;
    uint32_t nargs;
} sink_span;

/* Record the state s on t's timeline. */
void sink_state(sink_thread *t, const sink_span *s);

/* Record an event of category cat at time on t's timeline, while open
 * recorded calls are in progress on the thread (they are recorded later). */
void sink_event(sink_thread *t, uint32_t cat, int64_t time, uint32_t open, const slog_arg *args,
                uint32_t nargs);

/* Rename the process timeline (e.g. "rank 3 ..." after MPI_Init). */
void sink_rename_process(const char *name);

/* Write out what was recorded (timer thread, before fork). */
void sink_flush(void);

/* Seal the file (exit, exec).  Afterwards the sink is closed. */
void sink_finish(void);

/* In a fork child: forget the parent's writer without touching its file
 * (the parent goes on writing it).  The sink is closed afterwards. */
void sink_forget_after_fork(void);

/* Hold every sink call out while fork copies the process (atfork
 * prepare), and let them go again (parent and child handlers). */
void sink_fork_prepare(void);
void sink_fork_release(void);

#endif /* SLOG_TRACE_SINK_H */
