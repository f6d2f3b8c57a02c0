/* SPDX-License-Identifier: MIT
 *
 * py_columns.c - growable column arrays that become numpy arrays without a
 * copy.  A window's size is unknown until its query ends, so each column
 * grows by doubling.  Small columns are malloc'd blocks.  A column of
 * HUGE_COLUMN bytes or more is its own anonymous mapping advised for
 * transparent huge pages and grown with mremap: the rows are written once,
 * so the page faults of fresh memory are most of their cost with 4 KiB
 * pages (a 640 MiB window took 1.6 s of faults on a virtual machine whose
 * fault costs ~10 us, 0.05-0.25 s with huge pages), and mremap moves pages
 * instead of copying them.  At the end each block is shrunk to its length
 * and handed to a numpy array whose base is a capsule that releases it:
 * the DataFrame's columns are the very memory the library's batch read
 * filled.
 * Python binding layer: Python and numpy C APIs.
 */
#include "py_common.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_COLUMN ((size_t)2 << 20) /* one transparent huge page */

static size_t round_to_huge(size_t bytes)
{
    return (bytes + HUGE_COLUMN - 1) & ~(HUGE_COLUMN - 1);
}

/* A mapping of @p bytes (a multiple of HUGE_COLUMN), advised for huge pages
 * (advice only: a kernel without them still maps the memory), or NULL. */
static void *map_column(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        return NULL;
    }
    (void)madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

/* Grow @p col to hold @p bytes: malloc'd while small, a mapping after. */
static int grow_column(py_column *col, size_t bytes)
{
    if (col->mapped == 0 && bytes < HUGE_COLUMN) {
        void *grown = realloc(col->data, bytes);
        if (grown == NULL) {
            return -1;
        }
        col->data = grown;
        return 0;
    }
    const size_t want = round_to_huge(bytes);
    if (col->mapped >= want) {
        return 0;
    }
    if (col->mapped > 0) {
        void *moved = mremap(col->data, col->mapped, want, MREMAP_MAYMOVE);
        if (moved == MAP_FAILED) {
            return -1;
        }
        (void)madvise(moved, want, MADV_HUGEPAGE);
        col->data = moved;
        col->mapped = want;
        return 0;
    }
    void *fresh = map_column(want);
    if (fresh == NULL) {
        return -1;
    }
    if (col->data != NULL) { /* the rows so far: no more than the block holds */
        const size_t held = malloc_usable_size(col->data);
        memcpy(fresh, col->data, held < bytes ? held : bytes);
    }
    free(col->data);
    col->data = fresh;
    col->mapped = want;
    return 0;
}

int py_columns_reserve(py_column *cols, size_t ncols, size_t cap)
{
    for (size_t i = 0; i < ncols; i++) {
        if (cols[i].elem == 0) {
            continue; /* column not wanted */
        }
        if (cap > (SIZE_MAX - HUGE_COLUMN) / cols[i].elem ||
            grow_column(&cols[i], cap * cols[i].elem) < 0) {
            return -1;
        }
    }
    return 0;
}

/* Release a column's storage: a mapping when @p mapped, else malloc'd. */
static void release(void *data, size_t mapped)
{
    if (mapped > 0) {
        (void)munmap(data, mapped);
    } else {
        free(data);
    }
}

void py_columns_free(py_column *cols, size_t ncols)
{
    for (size_t i = 0; i < ncols; i++) {
        release(cols[i].data, cols[i].mapped);
        cols[i].data = NULL;
        cols[i].mapped = 0;
    }
}

/* What a column's capsule owns: the block and how to give it back. */
typedef struct owned_block {
    void *data;
    size_t mapped; /* bytes mapped, or 0 when malloc'd */
} owned_block;

static void release_capsule(PyObject *capsule)
{
    owned_block *o = PyCapsule_GetPointer(capsule, "slog.column");
    release(o->data, o->mapped);
    free(o);
}

/* A 1-d array of @p n entries over @p data (a mapping of @p mapped bytes, or
 * malloc'd when 0), which it then owns. */
static PyObject *array_owning(void *data, size_t mapped, size_t n, int typenum)
{
    npy_intp dims[1] = {(npy_intp)n};
    owned_block *o = malloc(sizeof *o);
    PyObject *capsule = o != NULL ? PyCapsule_New(o, "slog.column", release_capsule) : NULL;
    if (capsule == NULL) {
        free(o);
        release(data, mapped);
        return o != NULL ? NULL : PyErr_NoMemory();
    }
    o->data = data;
    o->mapped = mapped;
    PyObject *arr = PyArray_SimpleNewFromData(1, dims, typenum, data);
    if (arr == NULL) {
        Py_DECREF(capsule); /* releases data */
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)arr, capsule) < 0) {
        Py_DECREF(arr);
        return NULL; /* the capsule was released by the failed call */
    }
    return arr;
}

/* Give back what a column holds beyond @p bytes; its new mapped size. */
static size_t shrink_column(py_column *col, size_t bytes)
{
    if (col->mapped == 0) {
        void *shrunk = realloc(col->data, bytes);
        if (shrunk != NULL) { /* a failed shrink keeps the block as it was */
            col->data = shrunk;
        }
        return 0;
    }
    const size_t keep = round_to_huge(bytes);
    if (keep < col->mapped && munmap((char *)col->data + keep, col->mapped - keep) == 0) {
        col->mapped = keep;
    }
    return col->mapped;
}

int py_columns_to_dict(py_column *cols, size_t ncols, size_t n, PyObject *dict)
{
    int rc = 0;
    for (size_t i = 0; i < ncols; i++) {
        if (cols[i].data == NULL) {
            continue;
        }
        const size_t mapped = shrink_column(&cols[i], (n > 0 ? n : 1) * cols[i].elem);
        void *data = cols[i].data;
        cols[i].data = NULL;
        cols[i].mapped = 0;
        if (rc != 0) {
            release(data, mapped);
            continue;
        }
        PyObject *arr = array_owning(data, mapped, n, cols[i].typenum);
        if (arr == NULL || PyDict_SetItemString(dict, cols[i].name, arr) < 0) {
            rc = -1;
        }
        Py_XDECREF(arr);
    }
    return rc;
}
