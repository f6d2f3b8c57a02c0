/* SPDX-License-Identifier: MIT
 *
 * py_columns.c - growable column arrays that become numpy arrays without a
 * copy.  A window's size is unknown until its query ends, so each column
 * is a malloc'd block grown by doubling; glibc moves large blocks with
 * mremap, so growing costs neither a copy nor a second block's memory.  At
 * the end each block is shrunk to its length and handed to a numpy array
 * whose base is a capsule that frees it: the DataFrame's columns are the
 * very memory the library's batch read filled.
 * Python binding layer: Python and numpy C APIs.
 */
#include "py_common.h"

#include <stdlib.h>

int py_columns_reserve(py_column *cols, size_t ncols, size_t cap)
{
    for (size_t i = 0; i < ncols; i++) {
        if (cols[i].elem == 0) {
            continue; /* column not wanted */
        }
        if (cap > SIZE_MAX / cols[i].elem) {
            return -1;
        }
        void *grown = realloc(cols[i].data, cap * cols[i].elem);
        if (grown == NULL) {
            return -1;
        }
        cols[i].data = grown;
    }
    return 0;
}

void py_columns_free(py_column *cols, size_t ncols)
{
    for (size_t i = 0; i < ncols; i++) {
        free(cols[i].data);
        cols[i].data = NULL;
    }
}

static void free_capsule(PyObject *capsule)
{
    free(PyCapsule_GetPointer(capsule, "slog.column"));
}

/* A 1-d array of @p n entries over @p data, which it then owns. */
static PyObject *array_owning(void *data, size_t n, int typenum)
{
    npy_intp dims[1] = {(npy_intp)n};
    PyObject *capsule = PyCapsule_New(data, "slog.column", free_capsule);
    if (capsule == NULL) {
        free(data);
        return NULL;
    }
    PyObject *arr = PyArray_SimpleNewFromData(1, dims, typenum, data);
    if (arr == NULL) {
        Py_DECREF(capsule); /* frees data */
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)arr, capsule) < 0) {
        Py_DECREF(arr);
        return NULL; /* the capsule was released by the failed call */
    }
    return arr;
}

int py_columns_to_dict(py_column *cols, size_t ncols, size_t n, PyObject *dict)
{
    int rc = 0;
    for (size_t i = 0; i < ncols; i++) {
        if (cols[i].data == NULL) {
            continue;
        }
        void *data = cols[i].data;
        cols[i].data = NULL;
        const size_t bytes = (n > 0 ? n : 1) * cols[i].elem;
        if (rc != 0) {
            free(data);
            continue;
        }
        void *shrunk = realloc(data, bytes);
        if (shrunk == NULL) {
            shrunk = data; /* a failed shrink leaves the block as it was */
        }
        PyObject *arr = array_owning(shrunk, n, cols[i].typenum);
        if (arr == NULL || PyDict_SetItemString(dict, cols[i].name, arr) < 0) {
            rc = -1;
        }
        Py_XDECREF(arr);
    }
    return rc;
}
