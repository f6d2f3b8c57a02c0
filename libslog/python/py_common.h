/* SPDX-License-Identifier: MIT
 *
 * py_common.h - declarations shared by the files of the `slog._slog`
 * extension module: the Reader and Writer types, the exception classes,
 * the growable column arrays that become numpy arrays without a copy, and
 * the conversions between slog_arg lists and Python dicts.  Every file of
 * the extension includes this header first (Python.h must come before any
 * system header).
 * Python binding layer: public libslog headers, Python and numpy C APIs.
 */
#ifndef SLOG_PY_COMMON_H
#define SLOG_PY_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stdint.h>

#include <slog/slog.h>
#include <slog/slog_search.h>
#include <slog/slog_stats.h>

/* numpy's C API lives in one table imported once (py_module.c); the other
 * files see it through this unique symbol. */
#define PY_ARRAY_UNIQUE_SYMBOL slog_py_numpy_api
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#ifndef SLOG_PY_NUMPY_MAIN
#    define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

/* ---- exceptions (py_error.c) --------------------------------------------- */

/** Create the exception classes and add them to @p module.  0 or -1. */
int py_error_init(PyObject *module);

/** Raise the exception class of @p rc with the library's message: "what:
 *  message (SLOG_ECORRUPT, byte N, in SOURCE)"; @p path names the file.
 *  Returns NULL so callers can `return py_raise(...)`. */
PyObject *py_raise(int rc, const slog_error *err, const char *path, const char *what);

/** The base class slog.Error (borrowed). */
PyObject *py_error_base(void);

/* ---- Reader and Writer objects (py_handle.c) ----------------------------- */

/** A Reader or a Writer: the libslog handle, the file's path and a lock.
 *  A handle is used by one thread at a time: callers from several Python
 *  threads queue on the lock, with the GIL released while they wait. */
typedef struct py_handle {
    PyObject_HEAD
    void *h; /* slog_reader * or slog_writer *; NULL once closed */
    char *path;
    PyThread_type_lock lock;
} py_handle;

typedef py_handle py_reader;
typedef py_handle py_writer;

/** tp_new of both types: an object with its lock, no handle yet. */
PyObject *py_handle_new(PyTypeObject *type, PyObject *args, PyObject *kwargs);

/** Keep the path (fs-encoded bytes; the reference is released).  0 or -1. */
int py_handle_set_path(py_handle *self, PyObject *path);

/** The open handle with the lock held, or NULL with ValueError ("the
 *  @p what is closed") and the lock released. */
void *py_handle_enter(py_handle *self, const char *what);
void py_handle_leave(py_handle *self);
void py_handle_lock(py_handle *self);

/** tp_dealloc helper: free the lock and the path (the caller destroyed h). */
void py_handle_free(py_handle *self);

/* ---- column arrays (py_columns.c) ---------------------------------------- */

/** One growable column: storage that becomes a numpy array owning it.
 *  Small columns are malloc'd; large ones are their own anonymous mapping
 *  advised for transparent huge pages (mapped != 0), grown by mremap. */
typedef struct py_column {
    void *data;
    size_t elem;      /* bytes per entry */
    int typenum;      /* NPY_* type */
    const char *name; /* key in the result dict */
    size_t mapped;    /* bytes mapped when data is a mapping, else 0 */
} py_column;

/** Grow every wanted column (elem > 0) of @p cols to @p cap entries.
 *  Plain C (callable without the GIL): 0, or -1 when out of memory. */
int py_columns_reserve(py_column *cols, size_t ncols, size_t cap);

/** Move the first @p n entries of each column into a numpy array stored in
 *  @p dict under the column's name (the array owns the memory).  Columns
 *  with data == NULL are skipped.  0, or -1 with an exception set; the
 *  columns are released either way. */
int py_columns_to_dict(py_column *cols, size_t ncols, size_t n, PyObject *dict);

/** Release the columns' storage (after an error). */
void py_columns_free(py_column *cols, size_t ncols);

/* ---- window columns (py_window.c, py_window_split.c) --------------------- */

/** The columns of Reader.window_columns, in this order. */
enum {
    PY_COL_KIND, PY_COL_OF, PY_COL_TIMELINE, PY_COL_TIMELINE_TO, PY_COL_CATEGORY, PY_COL_START,
    PY_COL_END, PY_COL_DUR, PY_COL_DEPTH, PY_COL_COUNT, PY_COL_INCLUSIVE, PY_COL_VALUE,
    PY_COL_NAME_CODE, /* derived: the category's name as a code (py_row_finish) */
    PY_NCOLS
};

/** Point batch @p b at entry @p n of every wanted column (capacity cap - n). */
void py_window_aim(slog_batch *b, const py_column *cols, size_t n, size_t cap);

/** What is made of the rows once the batch read has filled them. */
typedef struct py_row_finish {
    uint64_t tps;              /* the file's ticks per second */
    bool to_ns;                /* start, end and inclusive from ticks to ns */
    const int8_t *name_codes;  /* category id -> name code (the pandas Categorical's), */
    size_t nname_codes;        /* ids past the last entry take the last one (OTHER) */
} py_row_finish;

/** Entries [from, n): ticks to ns (start, end, inclusive) when asked, then
 *  dur = end - start, then each category's name code.  Plain C (no GIL
 *  needed), so a split window's threads run it on their own rows. */
void py_window_finish_rows(py_column *cols, size_t from, size_t n, const py_row_finish *f);

/** The node cache of a reader opened for one pass over a window (a split
 *  window's slices, a dask partition): each node is decoded once, and a
 *  larger cache (64 MiB by default) would only be fresh memory faulted in
 *  on every call.  Exported to Python as _slog.ONE_PASS_CACHE_BYTES. */
#define PY_ONE_PASS_CACHE_BYTES (2L << 20)

/** py_window_read_split's answer when it leaves the window to one thread. */
enum { PY_SPLIT_DECLINED = 1000 };

/** A full-detail window of many items read by several threads, each over a
 *  time slice with its own reader, straight into the final rows: fills
 *  @p cols (reserved here) and @p n, times converted.  parts: threads
 *  (capped at 16), or 0 for one per core (at most 4) on windows of 2^19
 *  items or more.  PY_SPLIT_DECLINED
 *  (nothing filled) when the window is small, the machine has one core, the
 *  query is not a plain full-detail one, or the slices' counts did not
 *  come out as the statistics said; else SLOG_OK or an error (-100: out
 *  of memory).  Plain C, called without the GIL (py_window_split.c). */
typedef struct py_split_request {
    const char *path;              /* the file, opened again by each thread */
    slog_reader *r;                /* the caller's reader: plans the slices */
    const slog_query_options *q;
    int parts;                     /* threads; 0: one per core, on large windows */
    const py_row_finish *finish;
} py_split_request;

int py_window_read_split(const py_split_request *w, py_column *cols, size_t *n, slog_error *err);

/* ---- args (py_args.c) ---------------------------------------------------- */

/** A dict of a drawable's args: strings, ints, floats, bools; JSON values
 *  decoded with json.loads.  @p keys: NULL for all, else a set of the keys
 *  (str) to take (the others are never decoded).  New reference, or NULL
 *  with an exception. */
PyObject *py_args_to_dict(const slog_arg *args, uint32_t n, PyObject *keys);

/** Args of a writer call, converted from a dict (or None).  The strings
 *  point into Python objects kept alive in @p keep until py_args_release. */
typedef struct py_args {
    slog_arg *args;
    uint32_t n;
    PyObject *keep; /* list of the objects the strings live in */
} py_args;

/** Append @p item to @p list and drop the reference to it (NULL item: the
 *  error that made it).  0, or -1 with an exception. */
int py_list_append_new(PyObject *list, PyObject *item);

/** The str subclass (slog._slog.JsonText) whose text py_args_from_dict
 *  stores as a JSON arg as it is (py_trace_args.c makes them). */
extern PyObject *py_json_text_type;

/** Fill @p out from @p dict (None: no args).  0, or -1 with TypeError or
 *  ValueError set (a key that is no str, a value of another type). */
int py_args_from_dict(PyObject *dict, py_args *out);
void py_args_release(py_args *a);

/* ---- reader (py_reader.c, py_window.c, py_details.c, py_analysis.c, py_index.c) */

extern PyTypeObject py_reader_type;

#define py_reader_enter(self) ((slog_reader *)py_handle_enter((self), "reader"))
#define py_reader_leave(self) py_handle_leave(self)

/** Reader.window_columns(t0, t1, resolution, kinds, timelines, categories,
 *  columns, details, args, ..., arg_keys) -> dict of numpy arrays
 *  (py_window.c); arg_keys: a set of the arg keys to decode, None: all. */
PyObject *py_reader_window(PyObject *obj, PyObject *args, PyObject *kwargs);

/** What py_window_details adds: bits of py_detail_want.what. */
enum { PY_DETAIL_ARGS = 1, PY_DETAIL_SUMMARY = 2 };

typedef struct py_detail_want {
    unsigned what;  /* PY_DETAIL_* bits */
    PyObject *keys; /* with PY_DETAIL_ARGS: a set of the arg keys to take, NULL: all */
} py_detail_want;

/** The detail pass over the same query with slog_query_next: preview and
 *  run summaries (PY_DETAIL_SUMMARY) and args (PY_DETAIL_ARGS), into
 *  @p dict (py_details.c).  0 or -1. */
int py_window_details(py_reader *self, slog_reader *r, const slog_query_options *opts, size_t n,
                      const py_detail_want *want, PyObject *dict);

/** Reader.stats / find / top (py_analysis.c). */
PyObject *py_reader_stats(PyObject *obj, PyObject *args, PyObject *kwargs);
PyObject *py_reader_find(PyObject *obj, PyObject *args, PyObject *kwargs);
PyObject *py_reader_top(PyObject *obj, PyObject *args, PyObject *kwargs);

/** Reader.index_inputs() -> dict: the inputs of an index as numpy columns,
 *  "path" (list of str) and "files_opened" (int); no rows for an ordinary
 *  file (py_index.c). */
PyObject *py_reader_index_inputs(PyObject *obj, PyObject *unused);

/** A uint32 id list from None or a sequence of ints: a malloc'd array in
 *  @p ids (NULL for None; free it), its length in @p n.  0, or -1 with an
 *  exception (a negative id or one above 2^32 - 1 is a ValueError). */
int py_id_list(PyObject *obj, uint32_t **ids, uint32_t *n);

/** ticks -> ns, floor(t * 10^9 / tps), exact (128-bit), saturating. */
int64_t py_ticks_to_ns(int64_t ticks, uint64_t tps);

/* ---- writer (py_writer.c, py_writer_bulk.c) ------------------------------ */

extern PyTypeObject py_writer_type;

#define py_writer_enter(self) ((slog_writer *)py_handle_enter((self), "writer"))
#define py_writer_leave(self) py_handle_leave(self)

/** Writer.append_columns(kind, timeline, category, start, end, depth,
 *  value, timeline_to) from numpy arrays (py_writer_bulk.c). */
PyObject *py_writer_append_columns(PyObject *obj, PyObject *args, PyObject *kwargs);

/* ---- import (py_import.c, when the import library is built) ------------ */

#ifdef SLOG_PY_HAVE_IMPORT
/** _slog.import_trace(inputs, output, format, sort_window, time_unit, flags)
 *  -> the summary dict. */
PyObject *py_import_trace(PyObject *mod, PyObject *args, PyObject *kwargs);
/** _slog.import_formats() -> list of format names. */
PyObject *py_import_formats(PyObject *mod, PyObject *unused);
#endif

#endif /* SLOG_PY_COMMON_H */
