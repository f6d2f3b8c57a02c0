/* SPDX-License-Identifier: MIT
 *
 * py_error.c - libslog status codes as Python exceptions.  slog.Error is the
 * base; each code that a caller may want to tell apart has a subclass, and
 * those that mean what a built-in exception means also derive from it
 * (SLOG_EIO is an OSError, SLOG_EINVAL a ValueError, SLOG_ENOMEM a
 * MemoryError), so `except OSError` works as a Python user expects.  The
 * message is the library's, with the file, the byte offset and the status
 * name, as slog-query prints it; the same fields are attributes (code,
 * status, source, offset, path).
 * Python binding layer: public libslog headers, Python C API.
 */
#include "py_common.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct error_class {
    int code;             /* SLOG_* status, 0 for the base */
    const char *name;     /* "slog.CorruptError" */
    const char *doc;
    PyObject *builtin;    /* a second base, or NULL */
    PyObject *cls;        /* created by py_error_init */
} error_class;

static error_class classes[] = {
    {0, "slog.Error", "A libslog call failed (attributes: code, status, source, offset, path).",
     NULL, NULL},
    {SLOG_EFORMAT, "slog.FormatError", "Not a libslog file (or not HDF5 at all).", NULL, NULL},
    {SLOG_ECORRUPT, "slog.CorruptError", "The file is damaged (truncated, bad checksum, bad field).",
     NULL, NULL},
    {SLOG_EVERSION, "slog.VersionError", "The file needs a newer libslog.", NULL, NULL},
    {SLOG_EPARSE, "slog.ParseError", "Input does not follow its format.", NULL, NULL},
    {SLOG_ESTATE, "slog.StateError", "The call does not fit the object's state.", NULL, NULL},
    {SLOG_EIO, "slog.FileError", "The operating system or HDF5 failed to read or write.", NULL,
     NULL},
    {SLOG_EINVAL, "slog.ArgumentError", "An argument is out of range.", NULL, NULL},
    {SLOG_ENOMEM, "slog.OutOfMemoryError", "libslog ran out of memory.", NULL, NULL},
};

enum {
    NCLASSES = sizeof classes / sizeof classes[0]
};

PyObject *py_error_base(void)
{
    return classes[0].cls;
}

static PyObject *second_base(int code)
{
    switch (code) {
    case SLOG_EIO:
        return PyExc_OSError;
    case SLOG_EINVAL:
    case SLOG_EPARSE:
        return PyExc_ValueError;
    case SLOG_ENOMEM:
        return PyExc_MemoryError;
    default:
        return NULL;
    }
}

int py_error_init(PyObject *module)
{
    for (size_t i = 0; i < NCLASSES; i++) {
        error_class *c = &classes[i];
        PyObject *extra = second_base(c->code);
        PyObject *bases = i == 0 ? Py_NewRef(PyExc_Exception)
                          : extra != NULL ? PyTuple_Pack(2, classes[0].cls, extra)
                                          : Py_NewRef(classes[0].cls);
        if (bases == NULL) {
            return -1;
        }
        c->cls = PyErr_NewExceptionWithDoc(c->name, c->doc, bases, NULL);
        Py_DECREF(bases);
        if (c->cls == NULL || PyModule_AddObjectRef(module, strchr(c->name, '.') + 1, c->cls) < 0) {
            return -1;
        }
    }
    return 0;
}

static PyObject *class_of(int rc)
{
    for (size_t i = 1; i < NCLASSES; i++) {
        if (classes[i].code == rc) {
            return classes[i].cls;
        }
    }
    return classes[0].cls;
}

/* "path: what: message (SLOG_X, byte N, in source)" */
static void format_message(char *buf, size_t len, int rc, const slog_error *err,
                           const char *path, const char *what)
{
    const char *msg = err != NULL && err->message[0] != '\0' ? err->message : "unknown error";
    int at = snprintf(buf, len, "%s: %s: %s (%s", path != NULL ? path : "", what, msg,
                      slog_status_name(rc));
    if (at > 0 && (size_t)at < len && err != NULL && err->offset != UINT64_MAX &&
        err->offset != 0) {
        at += snprintf(buf + at, len - (size_t)at, ", byte %" PRIu64, err->offset);
    }
    if (at > 0 && (size_t)at < len && err != NULL && err->source[0] != '\0' &&
        (path == NULL || strcmp(err->source, path) != 0)) {
        at += snprintf(buf + at, len - (size_t)at, ", in %s", err->source);
    }
    if (at > 0 && (size_t)at < len) {
        (void)snprintf(buf + at, len - (size_t)at, ")");
    }
}

static int set_attrs(PyObject *exc, int rc, const slog_error *err, const char *path)
{
    const bool has_offset = err != NULL && err->offset != UINT64_MAX;
    PyObject *offset = has_offset ? PyLong_FromUnsignedLongLong(err->offset) : Py_NewRef(Py_None);
    PyObject *code = PyLong_FromLong(rc);
    PyObject *status = PyUnicode_FromString(slog_status_name(rc));
    PyObject *source = PyUnicode_DecodeFSDefault(err != NULL ? err->source : "");
    PyObject *file = PyUnicode_DecodeFSDefault(path != NULL ? path : "");
    int ok = offset != NULL && code != NULL && status != NULL && source != NULL && file != NULL &&
             PyObject_SetAttrString(exc, "code", code) == 0 &&
             PyObject_SetAttrString(exc, "status", status) == 0 &&
             PyObject_SetAttrString(exc, "source", source) == 0 &&
             PyObject_SetAttrString(exc, "offset", offset) == 0 &&
             PyObject_SetAttrString(exc, "path", file) == 0;
    Py_XDECREF(offset);
    Py_XDECREF(code);
    Py_XDECREF(status);
    Py_XDECREF(source);
    Py_XDECREF(file);
    return ok ? 0 : -1;
}

PyObject *py_raise(int rc, const slog_error *err, const char *path, const char *what)
{
    char msg[1024];
    format_message(msg, sizeof msg, rc, err, path, what);
    PyObject *cls = class_of(rc);
    PyObject *exc = PyObject_CallFunction(cls, "s", msg);
    if (exc == NULL) {
        return NULL;
    }
    if (set_attrs(exc, rc, err, path) == 0) {
        PyErr_SetObject(cls, exc);
    }
    Py_DECREF(exc);
    return NULL;
}
