/* SPDX-License-Identifier: MIT
 *
 * py_trace_args.c - the args of a traced region made storable when they are
 * given (region begin, annotate), so that ending the region can neither
 * fail on them nor see them changed by the program afterwards: str, bool,
 * float and ints of 64 bits stay; a larger int becomes its decimal text;
 * None, dicts, lists and tuples become their JSON text (a JsonText, a str
 * that py_args.c stores as JSON), with values JSON cannot take written as
 * their repr(); another type's number (numbers.Integral, numbers.Real:
 * numpy's int64, float32...) becomes the int or float it stands for, also
 * inside a container; anything else becomes its repr().  Texts made here are cut
 * to PY_TRACE_TEXT_MAX characters ("..." at the end); a repr() that raises
 * gives "<TYPE object>".  Nothing here raises but MemoryError.
 * Python binding layer: public libslog headers, Python C API.
 */
#include "py_trace.h"

#include <string.h>

#define PY_TRACE_TEXT_MAX 256

PyObject *py_json_text_type;
static PyObject *json_dumps;       /* json.dumps */
static PyObject *json_default;     /* this file's number_or_repr as a Python callable */
static PyObject *numbers_integral; /* numbers.Integral */
static PyObject *numbers_real;     /* numbers.Real */

/* s cut to PY_TRACE_TEXT_MAX characters; steals s.  NULL: s was NULL. */
static PyObject *cap_text(PyObject *s)
{
    if (s == NULL || PyUnicode_GET_LENGTH(s) <= PY_TRACE_TEXT_MAX) {
        return s;
    }
    PyObject *head = PyUnicode_Substring(s, 0, PY_TRACE_TEXT_MAX - 3);
    Py_DECREF(s);
    PyObject *cut = head != NULL ? PyUnicode_FromFormat("%U...", head) : NULL;
    Py_XDECREF(head);
    return cut;
}

/* repr(v), capped; "<TYPE object>" when repr raises (that error is
 * dropped: the program's flow does not change). */
static PyObject *repr_text(PyObject *v)
{
    PyObject *r = PyObject_Repr(v);
    if (r == NULL) {
        PyErr_Clear();
        return PyUnicode_FromFormat("<%s object>", Py_TYPE(v)->tp_name);
    }
    return cap_text(r);
}

/* v, a number of another type than int and float (numpy's int64,
 * float32...: numbers.Integral and numbers.Real register them), as the int
 * or float it stands for; NULL, without an error set, when it is not one. */
static PyObject *as_number(PyObject *v)
{
    PyObject *n = NULL;
    const int integral = PyObject_IsInstance(v, numbers_integral);
    if (integral == 1) {
        n = PyNumber_Index(v);
    } else if (integral == 0 && PyObject_IsInstance(v, numbers_real) == 1) {
        n = PyNumber_Float(v);
    }
    if (n == NULL) {
        PyErr_Clear();
    }
    return n;
}

/* json.dumps' default: a number as one, anything else as repr_text. */
static PyObject *number_or_repr(PyObject *self, PyObject *v)
{
    (void)self;
    PyObject *n = as_number(v);
    return n != NULL ? n : repr_text(v);
}

/* An int beyond 64 bits: its decimal text, capped (str() refuses ints of
 * more than sys.int_info.str_digits_check_threshold digits: then the size). */
static PyObject *big_int_text(PyObject *v)
{
    PyObject *s = PyObject_Str(v);
    if (s != NULL) {
        return cap_text(s);
    }
    PyErr_Clear();
    PyObject *bits = PyObject_CallMethod(v, "bit_length", NULL);
    PyObject *t = bits != NULL ? PyUnicode_FromFormat("<int of %S bits>", bits) : NULL;
    Py_XDECREF(bits);
    return t;
}

static bool fits_64_bits(PyObject *v)
{
    int overflow = 0;
    (void)PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow == 0) {
        return true;
    }
    (void)PyLong_AsUnsignedLongLong(v);
    const bool fits = !PyErr_Occurred();
    PyErr_Clear();
    return fits;
}

/* The JSON text of a container (json.dumps, other values as repr_text),
 * or its repr when JSON cannot take it (a cycle, keys of other types). */
static PyObject *json_text(PyObject *v)
{
    PyObject *kw = Py_BuildValue("{sO}", "default", json_default);
    PyObject *args = kw != NULL ? PyTuple_Pack(1, v) : NULL;
    PyObject *text = args != NULL ? PyObject_Call(json_dumps, args, kw) : NULL;
    Py_XDECREF(kw);
    Py_XDECREF(args);
    if (text == NULL) {
        if (PyErr_ExceptionMatches(PyExc_MemoryError)) {
            return NULL;
        }
        PyErr_Clear();
        return repr_text(v);
    }
    PyObject *j = PyObject_CallOneArg(py_json_text_type, text);
    Py_DECREF(text);
    return j;
}

/* A value the writer can store, standing for v (new reference). */
static PyObject *clean_value(PyObject *v)
{
    if (PyUnicode_Check(v)) {
        if (PyUnicode_AsUTF8AndSize(v, NULL) != NULL) {
            return Py_NewRef(v); /* with a NUL inside, py_args.c stores it as JSON */
        }
        PyErr_Clear(); /* a lone surrogate: no UTF-8 */
        return repr_text(v);
    }
    if (PyBool_Check(v) || PyFloat_Check(v)) {
        return Py_NewRef(v);
    }
    if (PyLong_Check(v)) {
        return fits_64_bits(v) ? Py_NewRef(v) : big_int_text(v);
    }
    if (v == Py_None || PyDict_Check(v) || PyList_Check(v) || PyTuple_Check(v)) {
        return json_text(v);
    }
    PyObject *n = as_number(v);
    if (n != NULL) {
        PyObject *c = clean_value(n);
        Py_DECREF(n);
        return c;
    }
    return repr_text(v);
}

/* A key the writer can store: a str with UTF-8 and no NUL, else its repr. */
static PyObject *clean_key(PyObject *k)
{
    Py_ssize_t n = 0;
    const char *utf8 = PyUnicode_Check(k) ? PyUnicode_AsUTF8AndSize(k, &n) : NULL;
    if (utf8 != NULL && strlen(utf8) == (size_t)n) {
        return Py_NewRef(k);
    }
    PyErr_Clear();
    return repr_text(k);
}

int py_trace_clean_args(PyObject *into, PyObject *args)
{
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(args, &pos, &k, &v)) {
        PyObject *key = clean_key(k);
        PyObject *value = key != NULL ? clean_value(v) : NULL;
        const int rc = value != NULL ? PyDict_SetItem(into, key, value) : -1;
        Py_XDECREF(key);
        Py_XDECREF(value);
        if (rc < 0) {
            return -1;
        }
    }
    return 0;
}

static PyMethodDef default_def = {"_number_or_repr", number_or_repr, METH_O,
                                  "A number as one, anything else as repr(), capped."};

int py_trace_args_init(PyObject *m)
{
    PyObject *json = PyImport_ImportModule("json");
    json_dumps = json != NULL ? PyObject_GetAttrString(json, "dumps") : NULL;
    Py_XDECREF(json);
    PyObject *numbers = json_dumps != NULL ? PyImport_ImportModule("numbers") : NULL;
    numbers_integral = numbers != NULL ? PyObject_GetAttrString(numbers, "Integral") : NULL;
    numbers_real = numbers_integral != NULL ? PyObject_GetAttrString(numbers, "Real") : NULL;
    Py_XDECREF(numbers);
    json_default = numbers_real != NULL ? PyCFunction_New(&default_def, NULL) : NULL;
    py_json_text_type = json_default != NULL
                            ? PyObject_CallFunction((PyObject *)&PyType_Type, "s(O){ss}",
                                                    "JsonText", (PyObject *)&PyUnicode_Type,
                                                    "__module__", "slog._slog")
                            : NULL;
    if (py_json_text_type == NULL) {
        return -1;
    }
    return PyModule_AddObjectRef(m, "JsonText", py_json_text_type);
}
