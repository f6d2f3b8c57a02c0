/* SPDX-License-Identifier: MIT
 *
 * py_writer.c - the _slog.Writer type over slog_writer.h: create a file,
 * define timelines and categories, append drawables one by one (args from
 * dicts), begin/end nesting, flush, finish.  close() without finish()
 * releases the writer and leaves the file marked incomplete, which is what
 * slog.Writer's context manager does when an exception escapes.  Appending
 * whole columns lives in py_writer_bulk.c.
 * Python binding layer: public libslog headers, Python C API.
 */
#include "py_common.h"

#include <stdlib.h>
#include <string.h>

/* PyArg "O&" converter: a uint32_t from an int (or an object with
 * __index__, as numpy's ints) in 0..2^32-1.  The "I" format would take any
 * int modulo 2^32: timeline 2^32 + 1 became timeline 1, color -1 white. */
static int u32_arg(PyObject *o, void *out)
{
    PyObject *i = PyNumber_Index(o);
    if (i == NULL) {
        return 0;
    }
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    if (v == -1 && overflow == 0 && PyErr_Occurred()) {
        return 0;
    }
    if (overflow != 0 || v < 0 || v > (long long)UINT32_MAX) {
        PyErr_Format(PyExc_OverflowError, "%R is out of range 0..4294967295", o);
        return 0;
    }
    *(uint32_t *)out = (uint32_t)v;
    return 1;
}

static int writer_init(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"path",    "ticks_per_second", "leaf_bytes", "fanout", "lz4_level",
                         "creator", "time_bins",        "no_replace", NULL};
    py_writer *self = (py_writer *)obj;
    PyObject *path = NULL;
    const char *creator = NULL;
    int time_bins = 0, no_replace = 0;
    slog_writer_options o;
    slog_writer_options_init(&o);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|KO&O&izpp", kw, PyUnicode_FSConverter, &path,
                                     &o.ticks_per_second, u32_arg, &o.leaf_bytes, u32_arg,
                                     &o.fanout, &o.lz4_level, &creator, &time_bins, &no_replace) ||
        py_handle_set_path(self, path) < 0) {
        return -1;
    }
    o.creator = creator != NULL ? creator : "slog (Python) " SLOG_VERSION_STRING;
    o.flags = (time_bins ? SLOG_WRITER_TIME_BINS : 0u) | (no_replace ? SLOG_WRITER_NO_REPLACE : 0u);
    slog_error err;
    memset(&err, 0, sizeof err);
    slog_writer *w = NULL;
    const int rc = slog_writer_create(&w, self->path, &o, &err);
    self->h = w;
    if (rc != SLOG_OK) {
        py_raise(rc, &err, self->path, "Cannot create");
        return -1;
    }
    return 0;
}

static void writer_dealloc(PyObject *obj)
{
    py_writer *self = (py_writer *)obj;
    slog_writer_destroy(self->h);
    py_handle_free(self);
    Py_TYPE(obj)->tp_free(obj);
}

/* Finish the call: status -> None or the exception. */
static PyObject *done(py_writer *self, int rc, const slog_error *err, const char *what)
{
    py_writer_leave(self);
    if (rc != SLOG_OK) {
        return py_raise(rc, err, self->path, what);
    }
    Py_RETURN_NONE;
}

static PyObject *writer_add_timeline(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"name", "parent", "kind", "sort_key", NULL};
    py_writer *self = (py_writer *)obj;
    const char *name = NULL;
    uint32_t parent = SLOG_NO_PARENT, kind = 0;
    long long sort_key = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "z|O&O&L", kw, &name, u32_arg, &parent,
                                     u32_arg, &kind, &sort_key)) {
        return NULL;
    }
    slog_writer *w = py_writer_enter(self);
    if (w == NULL) {
        return NULL;
    }
    slog_error err;
    memset(&err, 0, sizeof err);
    uint32_t id = 0;
    const int rc =
        slog_writer_add_timeline(w, parent, (slog_timeline_kind)kind, name, sort_key, &id, &err);
    PyObject *none = done(self, rc, &err, "Cannot add a timeline");
    if (none == NULL) {
        return NULL;
    }
    Py_DECREF(none);
    return PyLong_FromUnsignedLong(id);
}

static PyObject *writer_set_timeline(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"id", "name", "sort_key", NULL};
    py_writer *self = (py_writer *)obj;
    const char *name = NULL;
    uint32_t id = 0;
    long long sort_key = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|zL", kw, u32_arg, &id, &name, &sort_key)) {
        return NULL;
    }
    slog_writer *w = py_writer_enter(self);
    slog_error err;
    memset(&err, 0, sizeof err);
    return w != NULL ? done(self, slog_writer_set_timeline(w, id, name, sort_key, &err), &err,
                            "Cannot change a timeline")
                     : NULL;
}

static PyObject *writer_add_category(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"name", "kind", "rgba", "group", NULL};
    py_writer *self = (py_writer *)obj;
    const char *name = NULL, *group = NULL;
    uint32_t kind = 0, rgba = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "z|O&O&z", kw, &name, u32_arg, &kind, u32_arg,
                                     &rgba, &group)) {
        return NULL;
    }
    slog_writer *w = py_writer_enter(self);
    if (w == NULL) {
        return NULL;
    }
    slog_error err;
    memset(&err, 0, sizeof err);
    uint32_t id = 0;
    const int rc = slog_writer_add_category(w, (slog_kind)kind, name, rgba, group, &id, &err);
    PyObject *none = done(self, rc, &err, "Cannot add a category");
    if (none == NULL) {
        return NULL;
    }
    Py_DECREF(none);
    return PyLong_FromUnsignedLong(id);
}

/* Append one drawable (@p it: a state, event, arrow or counter) with the
 * args of @p dict. */
static PyObject *append_item(py_writer *self, slog_item *it, PyObject *dict)
{
    py_args a;
    if (py_args_from_dict(dict, &a) < 0) {
        return NULL;
    }
    slog_writer *w = py_writer_enter(self);
    if (w == NULL) {
        py_args_release(&a);
        return NULL;
    }
    slog_error err;
    memset(&err, 0, sizeof err);
    int rc;
    const char *what = "Cannot append a state";
    if (it->kind == SLOG_KIND_STATE) {
        it->u.state.args = a.args, it->u.state.nargs = a.n;
        rc = slog_writer_append_state(w, &it->u.state, &err);
    } else if (it->kind == SLOG_KIND_EVENT) {
        it->u.event.args = a.args, it->u.event.nargs = a.n;
        rc = slog_writer_append_event(w, &it->u.event, &err);
        what = "Cannot append an event";
    } else if (it->kind == SLOG_KIND_ARROW) {
        it->u.arrow.args = a.args, it->u.arrow.nargs = a.n;
        rc = slog_writer_append_arrow(w, &it->u.arrow, &err);
        what = "Cannot append an arrow";
    } else {
        rc = slog_writer_append_counter(w, &it->u.counter, &err);
        what = "Cannot append a counter sample";
    }
    PyObject *r = done(self, rc, &err, what);
    py_args_release(&a);
    return r;
}

static PyObject *writer_state(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"timeline", "category", "start", "end", "depth", "args", NULL};
    slog_item it;
    memset(&it, 0, sizeof it);
    it.kind = SLOG_KIND_STATE;
    slog_state *s = &it.u.state;
    PyObject *dict = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O&LL|O&O", kw, u32_arg, &s->timeline,
                                     u32_arg, &s->category, &s->start, &s->end, u32_arg,
                                     &s->depth, &dict)) {
        return NULL;
    }
    return append_item((py_writer *)obj, &it, dict);
}

static PyObject *writer_event(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"timeline", "category", "time", "args", NULL};
    slog_item it;
    memset(&it, 0, sizeof it);
    it.kind = SLOG_KIND_EVENT;
    slog_event *e = &it.u.event;
    PyObject *dict = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O&L|O", kw, u32_arg, &e->timeline, u32_arg,
                                     &e->category, &e->time, &dict)) {
        return NULL;
    }
    return append_item((py_writer *)obj, &it, dict);
}

static PyObject *writer_arrow(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"category", "source", "target", "start", "end", "args", NULL};
    slog_item it;
    memset(&it, 0, sizeof it);
    it.kind = SLOG_KIND_ARROW;
    slog_arrow *x = &it.u.arrow;
    PyObject *dict = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O&O&LL|O", kw, u32_arg, &x->category,
                                     u32_arg, &x->from, u32_arg, &x->to, &x->start, &x->end,
                                     &dict)) {
        return NULL;
    }
    return append_item((py_writer *)obj, &it, dict);
}

static PyObject *writer_counter(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"timeline", "category", "time", "value", NULL};
    slog_item it;
    memset(&it, 0, sizeof it);
    it.kind = SLOG_KIND_COUNTER;
    slog_counter *c = &it.u.counter;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O&Ld", kw, u32_arg, &c->timeline, u32_arg,
                                     &c->category, &c->time, &c->value)) {
        return NULL;
    }
    return append_item((py_writer *)obj, &it, Py_None);
}

static PyObject *writer_begin(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"timeline", "category", "time", "args", NULL};
    py_writer *self = (py_writer *)obj;
    uint32_t tl = 0, cat = 0;
    long long t = 0;
    PyObject *dict = Py_None;
    py_args a;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O&L|O", kw, u32_arg, &tl, u32_arg, &cat, &t,
                                     &dict) ||
        py_args_from_dict(dict, &a) < 0) {
        return NULL;
    }
    slog_writer *w = py_writer_enter(self);
    slog_error err;
    memset(&err, 0, sizeof err);
    PyObject *r = w != NULL ? done(self, slog_writer_begin(w, tl, cat, t, a.args, a.n, &err), &err,
                                   "Cannot begin a state")
                            : NULL;
    py_args_release(&a);
    return r;
}

static PyObject *writer_end(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"timeline", "time", NULL};
    py_writer *self = (py_writer *)obj;
    uint32_t tl = 0;
    long long t = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&L", kw, u32_arg, &tl, &t)) {
        return NULL;
    }
    slog_writer *w = py_writer_enter(self);
    slog_error err;
    memset(&err, 0, sizeof err);
    return w != NULL ? done(self, slog_writer_end(w, tl, t, &err), &err, "Cannot end a state")
                     : NULL;
}

static PyObject *writer_open_depth(PyObject *obj, PyObject *arg)
{
    py_writer *self = (py_writer *)obj;
    uint32_t tl = 0;
    if (!u32_arg(arg, &tl)) {
        return NULL;
    }
    slog_writer *w = py_writer_enter(self);
    if (w == NULL) {
        return NULL;
    }
    const uint32_t depth = slog_writer_open_depth(w, tl);
    py_writer_leave(self);
    return PyLong_FromUnsignedLong(depth);
}

/* flush or finish, with the GIL released. */
static PyObject *writer_seal(py_writer *self, bool finish)
{
    slog_writer *w = py_writer_enter(self);
    if (w == NULL) {
        return NULL;
    }
    slog_error err;
    memset(&err, 0, sizeof err);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = finish ? slog_writer_finish(w, &err) : slog_writer_flush(w, &err);
    Py_END_ALLOW_THREADS
    return done(self, rc, &err, finish ? "Cannot finish" : "Cannot flush");
}

static PyObject *writer_flush(PyObject *obj, PyObject *unused)
{
    (void)unused;
    return writer_seal((py_writer *)obj, false);
}

static PyObject *writer_finish(PyObject *obj, PyObject *unused)
{
    (void)unused;
    return writer_seal((py_writer *)obj, true);
}

static PyObject *writer_close(PyObject *obj, PyObject *unused)
{
    (void)unused;
    py_writer *self = (py_writer *)obj;
    py_handle_lock(self);
    slog_writer *w = self->h;
    self->h = NULL;
    Py_BEGIN_ALLOW_THREADS
    slog_writer_destroy(w);
    Py_END_ALLOW_THREADS
    py_handle_leave(self);
    Py_RETURN_NONE;
}

static PyObject *writer_closed(PyObject *obj, void *unused)
{
    (void)unused;
    return PyBool_FromLong(((py_writer *)obj)->h == NULL);
}

#define METH_KW(fn) ((PyCFunction)(void (*)(void))(fn)), METH_VARARGS | METH_KEYWORDS

static PyMethodDef writer_methods[] = {
    {"add_timeline", METH_KW(writer_add_timeline), "Define a timeline; returns its id."},
    {"set_timeline", METH_KW(writer_set_timeline), "Rename a timeline or change its sort key."},
    {"add_category", METH_KW(writer_add_category), "Define a category; returns its id."},
    {"state", METH_KW(writer_state), "Append a state."},
    {"event", METH_KW(writer_event), "Append an event."},
    {"arrow", METH_KW(writer_arrow), "Append an arrow."},
    {"counter", METH_KW(writer_counter), "Append a counter sample."},
    {"begin", METH_KW(writer_begin), "Begin a nested state."},
    {"end", METH_KW(writer_end), "End the innermost open state of a timeline."},
    {"open_depth", writer_open_depth, METH_O, "States begun and not ended on a timeline."},
    {"append_columns", METH_KW(py_writer_append_columns), "Append drawables from columns."},
    {"flush", writer_flush, METH_NOARGS, "Write out what was appended so far."},
    {"finish", writer_finish, METH_NOARGS, "Seal the file (mark it complete)."},
    {"close", writer_close, METH_NOARGS, "Release the writer (unfinished: incomplete file)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef writer_getset[] = {
    {"closed", writer_closed, NULL, "True once closed.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject py_writer_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "slog._slog.Writer",
    .tp_basicsize = sizeof(py_writer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A libslog file being written (use slog.Writer).",
    .tp_new = py_handle_new,
    .tp_init = writer_init,
    .tp_dealloc = writer_dealloc,
    .tp_methods = writer_methods,
    .tp_getset = writer_getset,
};
