/* SPDX-License-Identifier: MIT
 *
 * py_trace.h - Python tracing inside the extension: the region stack of
 * py_trace.c, used by the traced-function type (py_traced.c), and the
 * hooks py_module.c calls to register both.
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

/** Begin a region of category @p cat (args: a dict or NULL) on the calling
 *  thread; its index on the thread's stack, -1 with an exception. */
Py_ssize_t py_trace_begin(uint32_t cat, PyObject *args);

/** End the calling thread's innermost region with @p extra args (a dict,
 *  None or NULL) and write it.  Never fails: a region the writer does not
 *  take is counted (slog.trace_lost()) and warned about once per file. */
void py_trace_end(PyObject *extra);

/** Count a region lost (@p why: for the warning) and drop the exception. */
void py_trace_lose(const char *why);

/** Add the args of the dict @p args to the dict @p into, each made
 *  storable (py_trace_args.c).  0, or -1 with MemoryError only. */
int py_trace_clean_args(PyObject *into, PyObject *args);

/** Register the trace_* functions and the TracedFunction type.  0 or -1. */
int py_trace_init(PyObject *m);
int py_traced_init(PyObject *m);
int py_trace_args_init(PyObject *m);

#endif /* SLOG_PY_TRACE_H */
