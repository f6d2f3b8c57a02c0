/* SPDX-License-Identifier: MIT
 *
 * py_index.c - Reader.index_inputs: the inputs of an index file
 * (slog_index.h: slog_reader_index_inputs, slog_reader_index_input and
 * slog_reader_index_files_opened) as numpy columns plus a list of paths,
 * which slog/_reader.py turns into the Reader.inputs DataFrame.  An
 * ordinary file has no inputs: every column is empty.  Times (offset,
 * start, end) come back in ns (exact floor, as every time of the module);
 * an input without drawables has start = end = 0, as the library gives
 * it (slog/_reader.py shows <NA> where the counts are all 0).
 * Python binding layer: public libslog headers, Python and numpy C APIs.
 */
#include "py_common.h"

#include <string.h>

enum {
    I_STATE, I_TOP, I_OFFSET, I_START, I_END, I_STATES, I_EVENTS, I_ARROWS, I_COUNTERS,
    I_FILE_BYTES, I_OPENED, I_EMBEDDED, NINPUT
};

static const py_column input_specs[NINPUT] = {
    {NULL, 1, NPY_UINT8, "state", 0},     {NULL, 4, NPY_UINT32, "top_timeline", 0},
    {NULL, 8, NPY_INT64, "offset", 0},    {NULL, 8, NPY_INT64, "start", 0},
    {NULL, 8, NPY_INT64, "end", 0},       {NULL, 8, NPY_UINT64, "states", 0},
    {NULL, 8, NPY_UINT64, "events", 0},   {NULL, 8, NPY_UINT64, "arrows", 0},
    {NULL, 8, NPY_UINT64, "counters", 0}, {NULL, 8, NPY_UINT64, "file_bytes", 0},
    {NULL, 1, NPY_BOOL, "opened", 0},     {NULL, 1, NPY_BOOL, "embedded", 0},
};

/* Row i of the input columns. */
static void input_row(py_column *c, size_t i, const slog_index_input_info *in, uint64_t tps)
{
    ((uint8_t *)c[I_STATE].data)[i] = (uint8_t)in->state;
    ((uint32_t *)c[I_TOP].data)[i] = in->top_timeline;
    ((int64_t *)c[I_OFFSET].data)[i] = py_ticks_to_ns(in->offset, tps);
    ((int64_t *)c[I_START].data)[i] = py_ticks_to_ns(in->start, tps);
    ((int64_t *)c[I_END].data)[i] = py_ticks_to_ns(in->end, tps);
    for (int k = 0; k < 4; k++) {
        ((uint64_t *)c[I_STATES + k].data)[i] = in->counts[k];
    }
    ((uint64_t *)c[I_FILE_BYTES].data)[i] = in->file_bytes;
    ((npy_bool *)c[I_OPENED].data)[i] = in->opened ? NPY_TRUE : NPY_FALSE;
    ((npy_bool *)c[I_EMBEDDED].data)[i] = in->embedded ? NPY_TRUE : NPY_FALSE;
}

/* The columns and paths of the @p n inputs of @p r into @p dict.  0, or -1
 * with an exception (the columns are released either way). */
static int input_columns(py_reader *self, slog_reader *r, uint32_t n, PyObject *dict)
{
    py_column cols[NINPUT];
    memcpy(cols, input_specs, sizeof cols);
    PyObject *paths = PyList_New(n);
    if (paths == NULL || py_columns_reserve(cols, NINPUT, n > 0 ? n : 1) < 0) {
        py_columns_free(cols, NINPUT);
        if (paths != NULL) {
            Py_DECREF(paths);
            PyErr_NoMemory();
        }
        return -1;
    }
    const uint64_t tps = slog_reader_info(r)->ticks_per_second;
    for (uint32_t i = 0; i < n; i++) {
        slog_index_input_info in;
        memset(&in, 0, sizeof in);
        const int rc = slog_reader_index_input(r, i, &in);
        PyObject *path =
            rc == SLOG_OK ? PyUnicode_DecodeFSDefault(in.path != NULL ? in.path : "") : NULL;
        if (path == NULL) {
            if (rc != SLOG_OK) {
                py_raise(rc, NULL, self->path, "Cannot read the index's inputs");
            }
            py_columns_free(cols, NINPUT);
            Py_DECREF(paths);
            return -1;
        }
        PyList_SET_ITEM(paths, i, path);
        input_row(cols, i, &in, tps);
    }
    const int rc = PyDict_SetItemString(dict, "path", paths);
    Py_DECREF(paths);
    if (rc < 0) {
        py_columns_free(cols, NINPUT);
        return -1;
    }
    return py_columns_to_dict(cols, NINPUT, n, dict);
}

PyObject *py_reader_index_inputs(PyObject *obj, PyObject *unused)
{
    (void)unused;
    py_reader *self = (py_reader *)obj;
    slog_reader *r = py_reader_enter(self);
    if (r == NULL) {
        return NULL;
    }
    PyObject *dict = PyDict_New();
    PyObject *opened = PyLong_FromUnsignedLongLong(slog_reader_index_files_opened(r));
    const bool ok = dict != NULL && opened != NULL &&
                    PyDict_SetItemString(dict, "files_opened", opened) == 0 &&
                    input_columns(self, r, slog_reader_index_inputs(r), dict) == 0;
    py_reader_leave(self);
    Py_XDECREF(opened);
    if (!ok) {
        Py_XDECREF(dict);
        return NULL;
    }
    return dict;
}
