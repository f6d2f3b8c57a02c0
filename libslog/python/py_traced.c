/* SPDX-License-Identifier: MIT
 *
 * py_traced.c - _slog.TracedFunction, what @slog.trace returns: a callable
 * that records each call of the function it wraps as a region named after
 * it (an exception that escapes is recorded as the region's "exception"
 * arg and goes on unchanged).  Calls go through vectorcall with no Python
 * frame of its own; the category id is cached per trace file.  It binds
 * as a method (descriptor) and has a __dict__ for functools.update_wrapper;
 * it pickles by reference to its module and qualified name, as a function
 * does (pickle finds this object there, where the decorator put it).
 * When tracing is off a call costs one check.
 * Python binding layer: public libslog headers, Python C API.
 */
#include "py_trace.h"

#include <stddef.h>
#include <structmember.h>

typedef struct traced {
    PyObject_HEAD
    PyObject *func;
    PyObject *name; /* str: the region's name */
    PyObject *dict;
    vectorcallfunc vectorcall;
    uint64_t generation; /* the file cat belongs to */
    uint32_t cat;
} traced;

/* End the region after func raised: the exception stays set. */
static void end_with_exception(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *extra = Py_BuildValue("{ss}", "exception",
                                    type != NULL ? ((PyTypeObject *)type)->tp_name : "?");
    PyErr_Clear(); /* the function's exception is what the caller sees */
    py_trace_end(extra);
    Py_XDECREF(extra);
    PyErr_Restore(type, value, tb);
}

static PyObject *traced_call(PyObject *obj, PyObject *const *args, size_t nargsf,
                             PyObject *kwnames)
{
    traced *self = (traced *)obj;
    if (!py_trace_on()) {
        return PyObject_Vectorcall(self->func, args, nargsf, kwnames);
    }
    const int64_t cat = py_trace_category(self->name, &self->generation, &self->cat);
    if (cat < 0 || py_trace_begin((uint32_t)cat) < 0) {
        py_trace_lose("it could not begin"); /* the call goes on, unrecorded */
        return PyObject_Vectorcall(self->func, args, nargsf, kwnames);
    }
    PyObject *r = PyObject_Vectorcall(self->func, args, nargsf, kwnames);
    if (r == NULL) {
        end_with_exception();
    } else {
        py_trace_end(NULL);
    }
    return r;
}

static PyObject *traced_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"func", "name", NULL};
    PyObject *func = NULL, *name = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OU", kw, &func, &name)) {
        return NULL;
    }
    if (!PyCallable_Check(func)) {
        PyErr_SetString(PyExc_TypeError, "slog.trace: expected a callable");
        return NULL;
    }
    traced *self = (traced *)type->tp_alloc(type, 0);
    if (self != NULL) {
        self->func = Py_NewRef(func);
        self->name = Py_NewRef(name);
        self->vectorcall = traced_call;
    }
    return (PyObject *)self;
}

static int traced_traverse(PyObject *obj, visitproc visit, void *arg)
{
    traced *self = (traced *)obj;
    Py_VISIT(self->func);
    Py_VISIT(self->dict);
    return 0;
}

static int traced_clear(PyObject *obj)
{
    traced *self = (traced *)obj;
    Py_CLEAR(self->func);
    Py_CLEAR(self->name);
    Py_CLEAR(self->dict);
    return 0;
}

static void traced_dealloc(PyObject *obj)
{
    PyObject_GC_UnTrack(obj);
    (void)traced_clear(obj);
    Py_TYPE(obj)->tp_free(obj);
}

/* As a class attribute: bound to the instance, like a function. */
static PyObject *traced_get(PyObject *obj, PyObject *instance, PyObject *owner)
{
    (void)owner;
    if (instance == NULL || instance == Py_None) {
        return Py_NewRef(obj);
    }
    return PyMethod_New(obj, instance);
}

/* __reduce__: a str, which pickle takes as the qualified name of a global
 * of the object's __module__ (both set by functools.update_wrapper, else
 * taken from the function), so it pickles wherever the function would. */
static PyObject *traced_reduce(PyObject *obj, PyObject *unused)
{
    (void)unused;
    traced *self = (traced *)obj;
    PyObject *name = self->dict != NULL ? PyDict_GetItemString(self->dict, "__qualname__") : NULL;
    if (name != NULL) {
        return Py_NewRef(name);
    }
    return PyObject_GetAttrString(self->func, "__qualname__");
}

static PyMethodDef traced_methods[] = {
    {"__reduce__", traced_reduce, METH_NOARGS, "Pickle by module and qualified name."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef traced_members[] = {
    {"region_name", T_OBJECT, offsetof(traced, name), READONLY, "the name of its regions"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef traced_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject traced_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "slog._slog.TracedFunction",
    .tp_basicsize = sizeof(traced),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "A function whose calls are recorded as regions (slog.trace).",
    .tp_new = traced_new,
    .tp_dealloc = traced_dealloc,
    .tp_traverse = traced_traverse,
    .tp_clear = traced_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(traced, vectorcall),
    .tp_dictoffset = offsetof(traced, dict),
    .tp_descr_get = traced_get,
    .tp_methods = traced_methods,
    .tp_members = traced_members,
    .tp_getset = traced_getset,
};

int py_traced_init(PyObject *m)
{
    if (PyType_Ready(&traced_type) < 0) {
        return -1;
    }
    return PyModule_AddObjectRef(m, "TracedFunction", (PyObject *)&traced_type);
}
