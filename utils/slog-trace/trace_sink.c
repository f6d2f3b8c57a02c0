/* SPDX-License-Identifier: MIT
 *
 * trace_sink.c - which sink records (trace_sink.h): slog_thread.h's
 * per-thread writer unless SLOG_TRACE_WRITER=locked asks for the locked
 * one-thread writer; chosen when a process's file opens, then every call
 * goes to it.
 * Layer: slog-trace preload library; public API only.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_sink_impl.h"

static const sink_ops *ops = &sink_locked_ops;

int sink_open(const char *path, const char *process_name, const sink_category *cats,
              uint32_t ncats)
{
    const char *which = getenv("SLOG_TRACE_WRITER");
    ops = which != NULL && strcmp(which, "locked") == 0 ? &sink_locked_ops : &sink_twriter_ops;
    return ops->open(path, process_name, cats, ncats);
}

sink_thread *sink_thread_open(const char *name)
{
    return ops->thread_open(name);
}

bool sink_thread_stale(const sink_thread *t)
{
    return ops->thread_stale(t);
}

void sink_thread_close(sink_thread *t)
{
    ops->thread_close(t);
}

void sink_state(sink_thread *t, const sink_span *s)
{
    ops->state(t, s);
}

void sink_event(sink_thread *t, uint32_t cat, int64_t time, uint32_t open, const slog_arg *args,
                uint32_t nargs)
{
    ops->event(t, cat, time, open, args, nargs);
}

void sink_rename_process(const char *name)
{
    ops->rename_process(name);
}

void sink_flush(void)
{
    ops->flush();
}

void sink_finish(void)
{
    ops->finish();
}

void sink_forget_after_fork(void)
{
    ops->forget_after_fork();
}

void sink_fork_prepare(void)
{
    ops->fork_prepare();
}

void sink_fork_release(void)
{
    ops->fork_release();
}
