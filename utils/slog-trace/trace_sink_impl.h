/* SPDX-License-Identifier: MIT
 *
 * trace_sink_impl.h - one implementation of the sink (trace_sink.h) as a
 * table of its calls; trace_sink.c forwards to the one chosen.
 * Layer: slog-trace preload library; public API only.
 */
#ifndef SLOG_TRACE_SINK_IMPL_H
#define SLOG_TRACE_SINK_IMPL_H

#include "trace_sink.h"

typedef struct sink_ops {
    int (*open)(const char *path, const char *process_name, const sink_category *cats,
                uint32_t ncats);
    sink_thread *(*thread_open)(const char *name);
    bool (*thread_stale)(const sink_thread *t);
    void (*thread_close)(sink_thread *t);
    void (*state)(sink_thread *t, const sink_span *s);
    void (*event)(sink_thread *t, uint32_t cat, int64_t time, uint32_t open,
                  const slog_arg *args, uint32_t nargs);
    void (*rename_process)(const char *name);
    void (*flush)(void);
    void (*finish)(void);
    void (*forget_after_fork)(void);
    void (*fork_prepare)(void);
    void (*fork_release)(void);
} sink_ops;

extern const sink_ops sink_locked_ops;  /* trace_sink_locked.c */
extern const sink_ops sink_twriter_ops; /* trace_sink_twriter.c */

#endif /* SLOG_TRACE_SINK_IMPL_H */
