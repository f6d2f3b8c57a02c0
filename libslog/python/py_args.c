/* SPDX-License-Identifier: MIT
 *
 * py_args.c - a drawable's args (slog_arg lists) to and from Python dicts.
 * Reading: strings, int64, uint64, doubles and bools map to their Python
 * types; JSON args (objects, arrays, null) are decoded with json.loads, so
 * a dict read back equals the dict written.  Writing: str, bool, int (to
 * uint64 when above int64), float; dicts, lists, tuples and None go in as
 * JSON text (json.dumps), and so does a str holding a NUL (a C string would
 * end there: read back, the JSON gives the same str); a JsonText is JSON
 * text already.  The strings handed to the writer live in Python
 * objects kept alive until the call returns.
 * Python binding layer: public libslog headers, Python C API.
 */
#include "py_common.h"

#include <stdlib.h>
#include <string.h>

static PyObject *json_function(const char *name)
{
    PyObject *json = PyImport_ImportModule("json");
    if (json == NULL) {
        return NULL;
    }
    PyObject *fn = PyObject_GetAttrString(json, name);
    Py_DECREF(json);
    return fn;
}

static PyObject *arg_value(const slog_arg *a)
{
    switch (a->type) {
    case SLOG_ARG_STRING:
        return PyUnicode_DecodeUTF8(a->v.s, (Py_ssize_t)strlen(a->v.s), "replace");
    case SLOG_ARG_INT:
        return PyLong_FromLongLong(a->v.i);
    case SLOG_ARG_UINT:
        return PyLong_FromUnsignedLongLong(a->v.u);
    case SLOG_ARG_DOUBLE:
        return PyFloat_FromDouble(a->v.d);
    case SLOG_ARG_BOOL:
        return PyBool_FromLong(a->v.b);
    case SLOG_ARG_JSON: {
        PyObject *loads = json_function("loads");
        PyObject *v = loads != NULL ? PyObject_CallFunction(loads, "s", a->v.s) : NULL;
        Py_XDECREF(loads);
        return v;
    }
    }
    return Py_NewRef(Py_None);
}

int py_list_append_new(PyObject *list, PyObject *item)
{
    const int rc = item != NULL ? PyList_Append(list, item) : -1;
    Py_XDECREF(item);
    return rc;
}

/* d[key] = value of @p a, when @p keys is NULL or holds the key.  0 or -1. */
static int set_arg(PyObject *d, const slog_arg *a, PyObject *keys)
{
    PyObject *key = PyUnicode_DecodeUTF8(a->key, (Py_ssize_t)strlen(a->key), "replace");
    const int take = key == NULL ? -1 : keys == NULL ? 1 : PySet_Contains(keys, key);
    PyObject *v = take > 0 ? arg_value(a) : NULL;
    const int rc = take <= 0 ? take : v != NULL ? PyDict_SetItem(d, key, v) : -1;
    Py_XDECREF(key);
    Py_XDECREF(v);
    return rc;
}

PyObject *py_args_to_dict(const slog_arg *args, uint32_t n, PyObject *keys)
{
    PyObject *d = PyDict_New();
    for (uint32_t i = 0; d != NULL && i < n; i++) {
        if (set_arg(d, &args[i], keys) < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

/* UTF-8 of @p s (a str), kept alive through @p keep. */
static const char *keep_utf8(PyObject *keep, PyObject *s)
{
    if (PyList_Append(keep, s) < 0) {
        return NULL;
    }
    return PyUnicode_AsUTF8(s);
}

static int int_value(PyObject *v, slog_arg *a)
{
    int overflow = 0;
    const long long i = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow == 0) {
        a->type = SLOG_ARG_INT;
        a->v.i = (int64_t)i;
        return i == -1 && PyErr_Occurred() ? -1 : 0;
    }
    const unsigned long long u = PyLong_AsUnsignedLongLong(v);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "arg value does not fit in 64 bits");
        return -1;
    }
    a->type = SLOG_ARG_UINT;
    a->v.u = (uint64_t)u;
    return 0;
}

static int json_value(PyObject *keep, PyObject *v, slog_arg *a)
{
    PyObject *dumps = json_function("dumps");
    PyObject *text = dumps != NULL ? PyObject_CallOneArg(dumps, v) : NULL;
    Py_XDECREF(dumps);
    if (text == NULL) {
        return -1;
    }
    a->type = SLOG_ARG_JSON;
    a->v.s = keep_utf8(keep, text);
    Py_DECREF(text);
    return a->v.s != NULL ? 0 : -1;
}

/* A str: a string arg, or JSON (a JsonText; a str with a NUL inside). */
static int str_value(PyObject *keep, PyObject *v, slog_arg *a)
{
    Py_ssize_t n = 0;
    const char *utf8 = PyUnicode_AsUTF8AndSize(v, &n);
    if (utf8 == NULL) {
        return -1;
    }
    const bool json = (PyObject *)Py_TYPE(v) == py_json_text_type;
    if (!json && strlen(utf8) != (size_t)n) {
        return json_value(keep, v, a);
    }
    a->type = json ? SLOG_ARG_JSON : SLOG_ARG_STRING;
    a->v.s = keep_utf8(keep, v);
    return a->v.s != NULL ? 0 : -1;
}

static int one_value(PyObject *keep, PyObject *v, slog_arg *a)
{
    if (PyUnicode_Check(v)) {
        return str_value(keep, v, a);
    }
    if (PyBool_Check(v)) {
        a->type = SLOG_ARG_BOOL;
        a->v.b = v == Py_True;
        return 0;
    }
    if (PyLong_Check(v)) {
        return int_value(v, a);
    }
    if (PyFloat_Check(v)) {
        a->type = SLOG_ARG_DOUBLE;
        a->v.d = PyFloat_AS_DOUBLE(v);
        return 0;
    }
    if (v == Py_None || PyDict_Check(v) || PyList_Check(v) || PyTuple_Check(v)) {
        return json_value(keep, v, a);
    }
    PyErr_Format(PyExc_TypeError, "arg value of type %.100s (use str, int, float, bool, or "
                                  "dict/list/None for JSON)", Py_TYPE(v)->tp_name);
    return -1;
}

int py_args_from_dict(PyObject *dict, py_args *out)
{
    memset(out, 0, sizeof *out);
    if (dict == NULL || dict == Py_None) {
        return 0;
    }
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "args must be a dict or None");
        return -1;
    }
    const Py_ssize_t n = PyDict_Size(dict);
    out->keep = PyList_New(0);
    out->args = calloc((size_t)n + 1, sizeof *out->args);
    if (out->keep == NULL || out->args == NULL) {
        const bool no_memory = out->keep != NULL;
        py_args_release(out);
        if (no_memory) {
            PyErr_NoMemory();
        }
        return -1;
    }
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(dict, &pos, &k, &v)) {
        slog_arg *a = &out->args[out->n];
        if (!PyUnicode_Check(k)) {
            PyErr_SetString(PyExc_TypeError, "arg keys must be str");
            py_args_release(out);
            return -1;
        }
        a->key = keep_utf8(out->keep, k);
        if (a->key == NULL || one_value(out->keep, v, a) < 0) {
            py_args_release(out);
            return -1;
        }
        out->n++;
    }
    return 0;
}

void py_args_release(py_args *a)
{
    free(a->args);
    Py_CLEAR(a->keep);
    a->args = NULL;
    a->n = 0;
}
