/* SPDX-License-Identifier: MIT
 *
 * py_writer_bulk.c - Writer.append_columns: drawables from numpy columns
 * (kind, timeline, category, start, end, and optionally depth, value,
 * timeline_to), appended in one C loop with the GIL released: the way to
 * write millions of drawables from Python without one call each.  Rows
 * of kind state, event, arrow and counter are appended in order; the
 * first rejected row stops the loop and raises, naming the row.
 * Python binding layer: public libslog headers, Python and numpy C APIs.
 */
#include "py_common.h"

#include <stdio.h>
#include <string.h>

enum {
    B_KIND, B_TIMELINE, B_CATEGORY, B_START, B_END, B_DEPTH, B_VALUE, B_TO, NBULK
};

typedef struct bulk {
    PyArrayObject *a[NBULK];
    npy_intp n;
} bulk;

static const int bulk_types[NBULK] = {NPY_INT8,  NPY_UINT32, NPY_UINT32,  NPY_INT64,
                                      NPY_INT64, NPY_UINT32, NPY_FLOAT64, NPY_UINT32};

static void bulk_free(bulk *b)
{
    for (int i = 0; i < NBULK; i++) {
        Py_XDECREF(b->a[i]);
    }
}

/* Contiguous arrays of the right types, all of one length. */
static int bulk_convert(PyObject **objs, bulk *b)
{
    memset(b, 0, sizeof *b);
    for (int i = 0; i < NBULK; i++) {
        if (objs[i] == NULL || objs[i] == Py_None) {
            continue;
        }
        b->a[i] = (PyArrayObject *)PyArray_FROMANY(objs[i], bulk_types[i], 1, 1,
                                                   NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
        if (b->a[i] == NULL) {
            bulk_free(b);
            return -1;
        }
        if (i > 0 && b->a[B_KIND] != NULL && PyArray_SIZE(b->a[i]) != PyArray_SIZE(b->a[B_KIND])) {
            PyErr_SetString(PyExc_ValueError, "append_columns: columns differ in length");
            bulk_free(b);
            return -1;
        }
    }
    for (int i = B_KIND; i <= B_START; i++) {
        if (b->a[i] == NULL) {
            PyErr_SetString(PyExc_ValueError,
                            "append_columns: kind, timeline, category and start are required");
            bulk_free(b);
            return -1;
        }
    }
    b->n = PyArray_SIZE(b->a[B_KIND]);
    return 0;
}

/* Entry @p i of column @p c, or @p dflt when the column was not given. */
static uint32_t u32_at(const bulk *b, int c, npy_intp i, uint32_t dflt)
{
    return b->a[c] != NULL ? ((const uint32_t *)PyArray_DATA(b->a[c]))[i] : dflt;
}

static int64_t i64_at(const bulk *b, int c, npy_intp i, int64_t dflt)
{
    return b->a[c] != NULL ? ((const int64_t *)PyArray_DATA(b->a[c]))[i] : dflt;
}

static int append_row(slog_writer *w, const bulk *b, npy_intp i, slog_error *err)
{
    const int8_t kind = ((const int8_t *)PyArray_DATA(b->a[B_KIND]))[i];
    const uint32_t tl = u32_at(b, B_TIMELINE, i, 0), cat = u32_at(b, B_CATEGORY, i, 0);
    const int64_t start = i64_at(b, B_START, i, 0), end = i64_at(b, B_END, i, start);
    switch (kind) {
    case SLOG_KIND_STATE: {
        const slog_state s = {tl, cat, start, end, u32_at(b, B_DEPTH, i, 0), 0, NULL};
        return slog_writer_append_state(w, &s, err);
    }
    case SLOG_KIND_EVENT: {
        const slog_event e = {tl, cat, start, 0, NULL};
        return slog_writer_append_event(w, &e, err);
    }
    case SLOG_KIND_ARROW: {
        const slog_arrow a = {cat, tl, u32_at(b, B_TO, i, tl), start, end, 0, NULL};
        return slog_writer_append_arrow(w, &a, err);
    }
    case SLOG_KIND_COUNTER: {
        const double v = b->a[B_VALUE] != NULL ? ((const double *)PyArray_DATA(b->a[B_VALUE]))[i]
                                               : 0.0;
        const slog_counter c = {tl, cat, start, v};
        return slog_writer_append_counter(w, &c, err);
    }
    default:
        (void)snprintf(err->message, sizeof err->message, "kind %d is no drawable kind (0..3)",
                       (int)kind);
        return SLOG_EINVAL;
    }
}

PyObject *py_writer_append_columns(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"kind",  "timeline", "category", "start", "end",
                         "depth", "value",    "timeline_to", NULL};
    py_writer *self = (py_writer *)obj;
    PyObject *o[NBULK] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    bulk b;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOO|OOOO", kw, &o[0], &o[1], &o[2], &o[3],
                                     &o[4], &o[5], &o[6], &o[7]) ||
        bulk_convert(o, &b) < 0) {
        return NULL;
    }
    slog_writer *w = py_writer_enter(self);
    if (w == NULL) {
        bulk_free(&b);
        return NULL;
    }
    slog_error err;
    memset(&err, 0, sizeof err);
    int rc = SLOG_OK;
    npy_intp i = 0;
    Py_BEGIN_ALLOW_THREADS
    for (; i < b.n && rc == SLOG_OK; i++) {
        rc = append_row(w, &b, i, &err);
    }
    Py_END_ALLOW_THREADS
    py_writer_leave(self);
    bulk_free(&b);
    if (rc != SLOG_OK) {
        char what[64];
        (void)snprintf(what, sizeof what, "Cannot append row %lld", (long long)(i - 1));
        return py_raise(rc, &err, self->path, what);
    }
    return PyLong_FromSsize_t(b.n);
}
