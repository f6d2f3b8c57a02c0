/* SPDX-License-Identifier: MIT
 *
 * py_reader.c - the _slog.Reader type: open a file (the GIL released while
 * libslog reads it), close it, and hand its metadata to Python: the file
 * info as a dict and the timeline and category tables as columns (numpy
 * arrays plus lists of names), which slog/_reader.py turns into
 * DataFrames.  Queries live in py_window.c, statistics and search in
 * py_analysis.c, an index's inputs in py_index.c.  Every call on one
 * Reader holds its lock (py_handle.c).
 * Python binding layer: public libslog headers, Python and numpy C APIs.
 */
#include "py_common.h"

#include <stdlib.h>
#include <string.h>

static int reader_init(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"path", "cache_bytes", NULL};
    py_reader *self = (py_reader *)obj;
    PyObject *path = NULL;
    unsigned long long cache = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|K", kw, PyUnicode_FSConverter, &path,
                                     &cache) ||
        py_handle_set_path(self, path) < 0) {
        return -1;
    }
    slog_reader_options opts;
    slog_reader_options_init(&opts);
    opts.cache_bytes = cache;
    slog_error err;
    memset(&err, 0, sizeof err);
    int rc;
    slog_reader *r = NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = slog_reader_open(&r, self->path, &opts, &err);
    Py_END_ALLOW_THREADS
    self->h = r;
    if (rc != SLOG_OK) {
        py_raise(rc, &err, self->path, "Cannot open");
        return -1;
    }
    return 0;
}

static void reader_close_now(py_reader *self)
{
    slog_reader_destroy(self->h);
    self->h = NULL;
}

static void reader_dealloc(PyObject *obj)
{
    py_reader *self = (py_reader *)obj;
    reader_close_now(self);
    py_handle_free(self);
    Py_TYPE(obj)->tp_free(obj);
}

static PyObject *reader_close(PyObject *obj, PyObject *unused)
{
    (void)unused;
    py_reader *self = (py_reader *)obj;
    py_handle_lock(self);
    reader_close_now(self);
    py_handle_leave(self);
    Py_RETURN_NONE;
}

static PyObject *reader_closed(PyObject *obj, void *unused)
{
    (void)unused;
    return PyBool_FromLong(((py_reader *)obj)->h == NULL);
}

static PyObject *reader_path(PyObject *obj, void *unused)
{
    (void)unused;
    const py_reader *self = (const py_reader *)obj;
    return PyUnicode_DecodeFSDefault(self->path != NULL ? self->path : "");
}

/* ---- file info ---------------------------------------------------------- */

static int put(PyObject *d, const char *key, PyObject *v)
{
    const int rc = v != NULL ? PyDict_SetItemString(d, key, v) : -1;
    Py_XDECREF(v);
    return rc;
}

static int info_counts(PyObject *d, const slog_file_info *fi)
{
    return put(d, "states", PyLong_FromUnsignedLongLong(fi->states)) |
           put(d, "events", PyLong_FromUnsignedLongLong(fi->events)) |
           put(d, "arrows", PyLong_FromUnsignedLongLong(fi->arrows)) |
           put(d, "counters", PyLong_FromUnsignedLongLong(fi->counters)) |
           put(d, "timelines", PyLong_FromUnsignedLong(fi->timelines)) |
           put(d, "categories", PyLong_FromUnsignedLong(fi->categories)) |
           put(d, "nodes", PyLong_FromUnsignedLongLong(fi->nodes)) |
           put(d, "depth", PyLong_FromUnsignedLong(fi->depth)) |
           put(d, "fanout", PyLong_FromUnsignedLong(fi->fanout)) |
           put(d, "leaf_bytes", PyLong_FromUnsignedLong(fi->leaf_bytes)) |
           put(d, "file_bytes", PyLong_FromUnsignedLongLong(fi->file_bytes)) |
           put(d, "payload_bytes", PyLong_FromUnsignedLongLong(fi->payload_bytes));
}

static PyObject *reader_info(PyObject *obj, PyObject *unused)
{
    (void)unused;
    py_reader *self = (py_reader *)obj;
    slog_reader *r = py_reader_enter(self);
    if (r == NULL) {
        return NULL;
    }
    const slog_file_info *fi = slog_reader_info(r);
    PyObject *d = PyDict_New();
    const bool ok =
        d != NULL && put(d, "format_read_version", PyLong_FromUnsignedLong(fi->format_read_version)) == 0 &&
        put(d, "format_write_version", PyLong_FromUnsignedLong(fi->format_write_version)) == 0 &&
        put(d, "complete", PyBool_FromLong(fi->complete)) == 0 &&
        put(d, "ticks_per_second", PyLong_FromUnsignedLongLong(fi->ticks_per_second)) == 0 &&
        put(d, "start_ticks", PyLong_FromLongLong(fi->start)) == 0 &&
        put(d, "end_ticks", PyLong_FromLongLong(fi->end)) == 0 &&
        put(d, "creator", PyUnicode_DecodeUTF8(fi->creator != NULL ? fi->creator : "",
                                               (Py_ssize_t)strlen(fi->creator != NULL ? fi->creator : ""),
                                               "replace")) == 0 &&
        info_counts(d, fi) == 0;
    py_reader_leave(self);
    if (!ok) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

/* ---- tables ------------------------------------------------------------- */

static PyObject *utf8(const char *s)
{
    s = s != NULL ? s : "";
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

static PyObject *new_array(uint32_t n, int typenum)
{
    npy_intp dims[1] = {(npy_intp)n};
    return PyArray_SimpleNew(1, dims, typenum);
}

/* Columns of the timeline table: id, parent, kind, sort_key, name. */
static PyObject *timeline_columns(slog_reader *r, uint32_t n)
{
    PyObject *parent = new_array(n, NPY_UINT32), *kind = new_array(n, NPY_UINT8);
    PyObject *sort = new_array(n, NPY_INT64), *names = PyList_New(n);
    PyObject *d = NULL;
    if (parent == NULL || kind == NULL || sort == NULL || names == NULL) {
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        slog_timeline_info t;
        memset(&t, 0, sizeof t);
        (void)slog_reader_timeline(r, i, &t);
        ((uint32_t *)PyArray_DATA((PyArrayObject *)parent))[i] = t.parent;
        ((uint8_t *)PyArray_DATA((PyArrayObject *)kind))[i] = (uint8_t)t.kind;
        ((int64_t *)PyArray_DATA((PyArrayObject *)sort))[i] = t.sort_key;
        PyObject *name = utf8(t.name);
        if (name == NULL) {
            goto out;
        }
        PyList_SET_ITEM(names, i, name);
    }
    d = Py_BuildValue("{sOsOsOsO}", "parent", parent, "kind", kind, "sort_key", sort, "name",
                      names);
out:
    Py_XDECREF(parent);
    Py_XDECREF(kind);
    Py_XDECREF(sort);
    Py_XDECREF(names);
    return d;
}

/* Columns of the category table: kind, rgba, name, group. */
static PyObject *category_columns(slog_reader *r, uint32_t n)
{
    PyObject *kind = new_array(n, NPY_UINT8), *rgba = new_array(n, NPY_UINT32);
    PyObject *names = PyList_New(n), *groups = PyList_New(n);
    PyObject *d = NULL;
    if (kind == NULL || rgba == NULL || names == NULL || groups == NULL) {
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        slog_category_info c;
        memset(&c, 0, sizeof c);
        (void)slog_reader_category(r, i, &c);
        ((uint8_t *)PyArray_DATA((PyArrayObject *)kind))[i] = (uint8_t)c.kind;
        ((uint32_t *)PyArray_DATA((PyArrayObject *)rgba))[i] = c.rgba;
        PyObject *name = utf8(c.name), *group = utf8(c.group);
        if (name == NULL || group == NULL) {
            Py_XDECREF(name);
            Py_XDECREF(group);
            goto out;
        }
        PyList_SET_ITEM(names, i, name);
        PyList_SET_ITEM(groups, i, group);
    }
    d = Py_BuildValue("{sOsOsOsO}", "kind", kind, "rgba", rgba, "name", names, "group", groups);
out:
    Py_XDECREF(kind);
    Py_XDECREF(rgba);
    Py_XDECREF(names);
    Py_XDECREF(groups);
    return d;
}

static PyObject *reader_tables(PyObject *obj, PyObject *unused)
{
    (void)unused;
    py_reader *self = (py_reader *)obj;
    slog_reader *r = py_reader_enter(self);
    if (r == NULL) {
        return NULL;
    }
    const slog_file_info *fi = slog_reader_info(r);
    PyObject *tl = timeline_columns(r, fi->timelines);
    PyObject *cat = tl != NULL ? category_columns(r, fi->categories) : NULL;
    py_reader_leave(self);
    PyObject *pair = cat != NULL ? PyTuple_Pack(2, tl, cat) : NULL;
    Py_XDECREF(tl);
    Py_XDECREF(cat);
    return pair;
}

#define METH_KW(fn) ((PyCFunction)(void (*)(void))(fn)), METH_VARARGS | METH_KEYWORDS

static PyMethodDef reader_methods[] = {
    {"close", reader_close, METH_NOARGS, "Close the file (idempotent)."},
    {"info", reader_info, METH_NOARGS, "What the file says about itself, as a dict."},
    {"tables", reader_tables, METH_NOARGS, "(timeline columns, category columns) as dicts."},
    {"window_columns", METH_KW(py_reader_window), "A query's items as numpy columns."},
    {"stats", METH_KW(py_reader_stats), "Window statistics as numpy columns."},
    {"find", METH_KW(py_reader_find), "The next or previous matching drawable, or None."},
    {"top", METH_KW(py_reader_top), "The longest states of a window as numpy columns."},
    {"index_inputs", py_reader_index_inputs, METH_NOARGS,
     "An index's inputs as numpy columns (none for an ordinary file)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef reader_getset[] = {
    {"closed", reader_closed, NULL, "True once closed.", NULL},
    {"path", reader_path, NULL, "The file's path.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject py_reader_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "slog._slog.Reader",
    .tp_basicsize = sizeof(py_reader),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A libslog file open for reading (use slog.open).",
    .tp_new = py_handle_new,
    .tp_init = reader_init,
    .tp_dealloc = reader_dealloc,
    .tp_methods = reader_methods,
    .tp_getset = reader_getset,
};
