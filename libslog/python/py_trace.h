/* SPDX-License-Identifier: MIT
 *
 * py_trace.h - Python tracing inside the extension: the trace file and the
 * decorated calls' stack of py_trace.c, used by the traced-function type
 * (py_traced.c) and slog.region's regions (py_trace_region.c), and the
 * hooks py_module.c calls to register them.
 * Python binding layer: public libslog headers, Python C API.
 */
#ifndef SLOG_PY_TRACE_H
#define SLOG_PY_TRACE_H

#include "py_common.h"

/** True when tracing is on (started, or started now under slog-trace). */
bool py_trace_on(void);

/** Category id of @p name (a str) in the current file, defined on first
 *  use; cached in gen and cat when they are not NULL.  -1 with an exception. */
int64_t py_trace_category(PyObject *name, uint64_t *gen, uint32_t *cat);

/** Where a region begun now on the calling thread goes. */
typedef struct py_trace_place {
    uint32_t timeline; /* the thread's timeline in the current file */
    uint32_t depth;    /* one more than the deeper of the thread's innermost
                          decorated call and @p ctx_depth (-1: none) */
} py_trace_place;

/** Fill @p p for a region begun now on the calling thread, below its
 *  innermost decorated call and its context's innermost open region of this
 *  thread.  0, or -1 with an exception. */
int py_trace_place_here(py_trace_place *p);

/** Depth of the thread's innermost decorated call, -1 when none. */
int64_t py_trace_stack_depth(void);

/** Depth of the innermost open slog.region of the calling context (thread
 *  or asyncio task) in the current file on @p timeline, -1 when none: a
 *  context copied into another thread (asyncio.to_thread) holds the
 *  caller's regions, which are on the caller's timeline
 *  (py_trace_region.c). */
int64_t py_trace_ctx_depth(uint32_t timeline);

/** The current file's generation (a region of another one is not written). */
uint64_t py_trace_generation(void);

/** CLOCK_REALTIME in ns. */
int64_t py_trace_now(void);

/** A region that has ended, as written. */
typedef struct py_trace_state {
    uint32_t timeline, category, depth;
    int64_t start, end;
} py_trace_state;

/** Add @p extra (a dict, None or NULL) to @p *args (a storable dict or
 *  NULL) and write region @p r.  Never fails: a region the writer does not
 *  take is counted (slog.trace_lost()) and warned about once per file. */
void py_trace_write(const py_trace_state *r, PyObject **args, PyObject *extra);

/** Begin a decorated call's region of category @p cat on the calling
 *  thread's stack.  0, or -1 with an exception. */
int py_trace_begin(uint32_t cat);

/** End the calling thread's innermost decorated call with @p extra args (a
 *  dict, None or NULL) and write it (py_trace_write).  Never fails. */
void py_trace_end(PyObject *extra);

/** Add @p extra (a dict) to the thread's innermost decorated call; true
 *  when there is one and it took them. */
bool py_trace_annotate_call(PyObject *extra);

/** Count a region lost (@p why: for the warning) and drop the exception. */
void py_trace_lose(const char *why);

/** Add the args of the dict @p args to the dict @p into, each made
 *  storable (py_trace_args.c).  0, or -1 with MemoryError only. */
int py_trace_clean_args(PyObject *into, PyObject *args);

/** Register the trace_* functions and the TracedFunction type.  0 or -1. */
int py_trace_init(PyObject *m);
int py_traced_init(PyObject *m);
int py_trace_args_init(PyObject *m);
int py_trace_region_init(PyObject *m);

#endif /* SLOG_PY_TRACE_H */
