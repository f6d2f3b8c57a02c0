/* SPDX-License-Identifier: MIT
 *
 * py_handle.c - what a Reader and a Writer object share: the libslog
 * handle, the file's path, and one lock per object.  libslog lets one
 * thread at a time use a reader or writer; the extension releases the GIL
 * during long C calls, so two Python threads sharing one object would
 * otherwise meet inside the library.  A thread that finds the lock taken
 * waits for it with the GIL released, so the holder can finish.
 * Python binding layer: Python C API.
 */
#include "py_common.h"

#include <stdlib.h>
#include <string.h>

PyObject *py_handle_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    (void)args;
    (void)kwargs;
    py_handle *self = (py_handle *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->lock = PyThread_allocate_lock();
    if (self->lock == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

int py_handle_set_path(py_handle *self, PyObject *path)
{
    if (self->h != NULL || self->path != NULL) {
        Py_DECREF(path);
        PyErr_SetString(PyExc_RuntimeError, "the object is already initialised");
        return -1;
    }
    self->path = strdup(PyBytes_AS_STRING(path));
    Py_DECREF(path);
    if (self->path == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

void py_handle_lock(py_handle *self)
{
    if (PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
        return;
    }
    Py_BEGIN_ALLOW_THREADS
    (void)PyThread_acquire_lock(self->lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS
}

void *py_handle_enter(py_handle *self, const char *what)
{
    py_handle_lock(self);
    if (self->h == NULL) {
        PyThread_release_lock(self->lock);
        PyErr_Format(PyExc_ValueError, "%s: the %s is closed",
                     self->path != NULL ? self->path : "?", what);
        return NULL;
    }
    return self->h;
}

void py_handle_leave(py_handle *self)
{
    PyThread_release_lock(self->lock);
}

void py_handle_free(py_handle *self)
{
    if (self->lock != NULL) {
        PyThread_free_lock(self->lock);
        self->lock = NULL;
    }
    free(self->path);
    self->path = NULL;
}
