/* SPDX-License-Identifier: MIT
 *
 * py_trace_region.c - the open regions of slog.region (_slog.OpenRegion):
 * each holds its own category, timeline, begin time, depth and args, so
 * that ending it writes that region whatever else began or ended since
 * (asyncio tasks taking turns on one thread, a region around a generator's
 * yield, regions ended out of order).  The innermost open region is kept
 * in a context variable, so each asyncio task (which runs in a copy of the
 * context) and each thread sees its own; a region's depth is one more than
 * the deeper of that region (or, when it is another thread's, as in a
 * context copied into a thread by asyncio.to_thread, its nearest open
 * ancestor of this thread) and the thread's innermost decorated call
 * (py_trace.c), whose calls always nest.  Ending a region that is not the
 * innermost one leaves the innermost as it is; ending the innermost makes
 * its nearest still-open ancestor the innermost.
 * Python binding layer: public libslog headers, Python C API.
 */
#include "py_trace.h"

typedef struct open_obj {
    PyObject_HEAD
    PyObject *args;   /* storable dict, or NULL */
    PyObject *parent; /* open_obj innermost in the context at begin, or NULL */
    uint64_t generation;
    int64_t start;
    uint32_t category, timeline, depth;
    bool open;
} open_obj;

static PyObject *innermost_var; /* ContextVar: the innermost open_obj */

static void open_dealloc(PyObject *obj)
{
    open_obj *self = (open_obj *)obj;
    Py_CLEAR(self->args);
    Py_CLEAR(self->parent);
    Py_TYPE(obj)->tp_free(obj);
}

static PyTypeObject open_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "slog._slog.OpenRegion",
    .tp_basicsize = sizeof(open_obj),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A region begun by slog.region (internal).",
    .tp_dealloc = open_dealloc,
};

/* r, or its nearest ancestor, that is open in the current file; borrowed,
 * NULL when none. */
static open_obj *nearest_open(PyObject *r)
{
    const uint64_t generation = py_trace_generation();
    while (r != NULL && r != Py_None) {
        open_obj *o = (open_obj *)r;
        if (o->generation != generation) {
            return NULL;
        }
        if (o->open) {
            return o;
        }
        r = o->parent;
    }
    return NULL;
}

/* The innermost open region of this context (borrowed), NULL when none. */
static open_obj *ctx_innermost(void)
{
    PyObject *v = NULL;
    if (PyContextVar_Get(innermost_var, NULL, &v) < 0) {
        PyErr_Clear();
        return NULL;
    }
    open_obj *o = nearest_open(v);
    Py_XDECREF(v); /* still referenced by the context */
    return o;
}

int64_t py_trace_ctx_depth(uint32_t timeline)
{
    const uint64_t generation = py_trace_generation();
    for (const open_obj *o = ctx_innermost(); o != NULL && o->generation == generation;
         o = (const open_obj *)o->parent) {
        if (o->open && o->timeline == timeline) {
            return (int64_t)o->depth;
        }
    }
    return -1;
}

/* _slog.trace_begin(name, args): an OpenRegion, None when not tracing
 * (or when the region could not begin: counted, never raised). */
static PyObject *trace_begin(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 || !PyUnicode_Check(args[0]) || (args[1] != Py_None && !PyDict_Check(args[1]))) {
        PyErr_SetString(PyExc_TypeError, "trace_begin(name: str, args: dict | None)");
        return NULL;
    }
    if (!py_trace_on()) {
        Py_RETURN_NONE;
    }
    open_obj *parent = ctx_innermost();
    const int64_t cat = py_trace_category(args[0], NULL, NULL);
    py_trace_place place;
    open_obj *o = cat >= 0 && py_trace_place_here(&place) == 0
                      ? PyObject_New(open_obj, &open_type)
                      : NULL;
    if (o == NULL) {
        py_trace_lose("it could not begin");
        Py_RETURN_NONE;
    }
    o->args = NULL;
    o->parent = Py_XNewRef((PyObject *)parent);
    o->generation = py_trace_generation();
    o->category = (uint32_t)cat, o->timeline = place.timeline, o->depth = place.depth;
    o->open = true;
    PyObject *token = NULL;
    if ((args[1] != Py_None && PyDict_GET_SIZE(args[1]) > 0 &&
         ((o->args = PyDict_New()) == NULL || py_trace_clean_args(o->args, args[1]) < 0)) ||
        (token = PyContextVar_Set(innermost_var, (PyObject *)o)) == NULL) {
        Py_DECREF(o);
        py_trace_lose("no memory for its args");
        Py_RETURN_NONE;
    }
    Py_DECREF(token);
    o->start = py_trace_now();
    return (PyObject *)o;
}

/* _slog.trace_end(region, extra): end that region (extra: a dict of more
 * args, or None) and write it; never raises. */
static PyObject *trace_end(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 || !Py_IS_TYPE(args[0], &open_type)) {
        PyErr_SetString(PyExc_TypeError, "trace_end(region: OpenRegion, args: dict | None)");
        return NULL;
    }
    open_obj *o = (open_obj *)args[0];
    if (!o->open) {
        Py_RETURN_NONE;
    }
    const int64_t end = py_trace_now();
    o->open = false;
    PyObject *v = NULL;
    if (PyContextVar_Get(innermost_var, NULL, &v) == 0 && v == (PyObject *)o) {
        open_obj *up = nearest_open(o->parent);
        PyObject *token = PyContextVar_Set(innermost_var, up != NULL ? (PyObject *)up : Py_None);
        Py_XDECREF(token);
    }
    Py_XDECREF(v);
    PyErr_Clear();
    if (o->generation == py_trace_generation()) {
        py_trace_state st = {o->timeline, o->category, o->depth, o->start, end};
        py_trace_write(&st, &o->args, args[1]);
    }
    Py_CLEAR(o->args);
    /* regions begun inside this one still find its open ancestors through
       it: keep the nearest, let ended ones in between go */
    Py_XSETREF(o->parent, Py_XNewRef((PyObject *)nearest_open(o->parent)));
    Py_RETURN_NONE;
}

/* _slog.trace_annotate(args, region): add args to that region while it is
 * open (None: the innermost open region or decorated call of this thread
 * or task); True when one took them. */
static PyObject *trace_annotate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 || !PyDict_Check(args[0]) ||
        (args[1] != Py_None && !Py_IS_TYPE(args[1], &open_type))) {
        PyErr_SetString(PyExc_TypeError, "trace_annotate(args: dict, region: OpenRegion | None)");
        return NULL;
    }
    open_obj *o = args[1] != Py_None ? nearest_open(args[1]) : ctx_innermost();
    if (o != NULL && args[1] != Py_None && o != (open_obj *)args[1]) {
        o = NULL; /* that region has ended */
    }
    if (args[1] == Py_None && py_trace_stack_depth() > (o != NULL ? (int64_t)o->depth : -1)) {
        return PyBool_FromLong(py_trace_annotate_call(args[0]));
    }
    if (o == NULL) {
        Py_RETURN_FALSE;
    }
    if ((o->args == NULL && (o->args = PyDict_New()) == NULL) ||
        py_trace_clean_args(o->args, args[0]) < 0) {
        PyErr_Clear(); /* no memory: the annotation is dropped, the program goes on */
        Py_RETURN_FALSE;
    }
    Py_RETURN_TRUE;
}

static PyMethodDef region_methods[] = {
    {"trace_begin", (PyCFunction)(void (*)(void))trace_begin, METH_FASTCALL,
     "Begin a region: (name, args) -> OpenRegion or None."},
    {"trace_end", (PyCFunction)(void (*)(void))trace_end, METH_FASTCALL,
     "End a region, adding args (a dict or None)."},
    {"trace_annotate", (PyCFunction)(void (*)(void))trace_annotate, METH_FASTCALL,
     "Add args to an open region (None: the innermost)."},
    {NULL, NULL, 0, NULL},
};

int py_trace_region_init(PyObject *m)
{
    if (PyType_Ready(&open_type) < 0 ||
        (innermost_var = PyContextVar_New("slog_innermost_region", NULL)) == NULL) {
        return -1;
    }
    return PyModule_AddFunctions(m, region_methods);
}
