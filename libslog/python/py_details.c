/* SPDX-License-Identifier: MIT
 *
 * py_details.c - the second pass of a window read, for what a batch does
 * not carry: previews' exclusive time and min/max durations, counter
 * summaries (vmin, vmax, vsum) of previews and runs, and the args of
 * drawables.  It runs the same query again with slog_query_next (with
 * SLOG_QUERY_ARGS when args are wanted), whose items come in exactly the
 * batch's order, so item i fills row i.  Pixel-bounded windows are small
 * and their nodes sit in the reader's cache after the first pass; args
 * need one Python dict per item anyway.
 * Python binding layer: public libslog headers, Python and numpy C APIs.
 */
#include "py_common.h"

#include <math.h>
#include <string.h>

enum {
    D_EXCLUSIVE, D_MIN, D_MAX, D_VMIN, D_VMAX, D_VSUM, NDETAILS
};

typedef struct detail_cols {
    int64_t *excl, *min, *max;
    double *vmin, *vmax, *vsum;
    PyObject *args; /* list of dicts or None, or NULL */
    PyObject *keys; /* set of the arg keys to take, or NULL: all */
    uint64_t tps;
} detail_cols;

static void run_min_max(const slog_run *run, int64_t *mn, int64_t *mx)
{
    *mn = 0;
    *mx = 0;
    for (uint32_t k = 0; k < run->ncategories; k++) {
        const slog_run_share *s = &run->categories[k];
        *mn = k == 0 || s->min < *mn ? s->min : *mn;
        *mx = k == 0 || s->max > *mx ? s->max : *mx;
    }
}

/* Summary columns of row @p i (zeros and NaN for plain drawables). */
static void fill_summary(const detail_cols *d, size_t i, const slog_item *it)
{
    int64_t excl = 0, mn = 0, mx = 0;
    double vmin = NAN, vmax = NAN, vsum = NAN;
    if (it->kind == SLOG_KIND_PREVIEW) {
        const slog_preview *p = &it->u.preview;
        excl = p->exclusive;
        mn = p->min;
        mx = p->max;
        if (p->of == SLOG_KIND_COUNTER) {
            vmin = p->vmin, vmax = p->vmax, vsum = p->vsum;
        }
    } else if (it->kind == SLOG_KIND_RUN) {
        run_min_max(&it->u.run, &mn, &mx);
        if (it->u.run.of == SLOG_KIND_COUNTER) {
            vmin = it->u.run.vmin, vmax = it->u.run.vmax, vsum = it->u.run.vsum;
        }
    }
    d->excl[i] = py_ticks_to_ns(excl, d->tps);
    d->min[i] = py_ticks_to_ns(mn, d->tps);
    d->max[i] = py_ticks_to_ns(mx, d->tps);
    d->vmin[i] = vmin;
    d->vmax[i] = vmax;
    d->vsum[i] = vsum;
}

static uint32_t item_args(const slog_item *it, const slog_arg **args)
{
    switch (it->kind) {
    case SLOG_KIND_STATE:
        *args = it->u.state.args;
        return it->u.state.nargs;
    case SLOG_KIND_EVENT:
        *args = it->u.event.args;
        return it->u.event.nargs;
    case SLOG_KIND_ARROW:
        *args = it->u.arrow.args;
        return it->u.arrow.nargs;
    default:
        *args = NULL;
        return 0;
    }
}

static int fill_args(const detail_cols *d, size_t i, const slog_item *it)
{
    const slog_arg *args;
    const uint32_t nargs = item_args(it, &args);
    if (nargs == 0) {
        return 0; /* stays None */
    }
    PyObject *dict = py_args_to_dict(args, nargs, d->keys);
    if (dict == NULL) {
        return -1;
    }
    return PyList_SetItem(d->args, (Py_ssize_t)i, dict); /* steals dict, drops None */
}

/* Walk the query; row i of each column from item i. */
static int walk(py_reader *self, slog_query *q, const detail_cols *d, size_t n, bool summary)
{
    slog_error err;
    memset(&err, 0, sizeof err);
    for (size_t i = 0;; i++) {
        const slog_item *it = NULL;
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = slog_query_next(q, &it, &err);
        Py_END_ALLOW_THREADS
        if (rc == SLOG_END && i == n) {
            return 0;
        }
        if (rc != SLOG_OK && rc != SLOG_END) {
            py_raise(rc, &err, self->path, "Cannot read the window's details");
            return -1;
        }
        if (rc == SLOG_END || i >= n) {
            PyErr_Format(PyExc_RuntimeError, "%s: the window's second pass gave %s items than "
                         "its first (%zu)", self->path, i >= n ? "more" : "fewer", n);
            return -1;
        }
        if (summary) {
            fill_summary(d, i, it);
        }
        if (d->args != NULL && fill_args(d, i, it) < 0) {
            return -1;
        }
    }
}

static PyObject *new_column(size_t n, int typenum)
{
    npy_intp dims[1] = {(npy_intp)n};
    return PyArray_SimpleNew(1, dims, typenum);
}

static void *data_of(PyObject *a)
{
    return a != NULL ? PyArray_DATA((PyArrayObject *)a) : NULL;
}

/* Allocate the wanted arrays, and the args list (all None). */
static int make_columns(PyObject **arrs, PyObject **args_arr, size_t n, bool args, bool summary)
{
    static const int types[NDETAILS] = {NPY_INT64, NPY_INT64, NPY_INT64,
                                        NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64};
    for (int c = 0; summary && c < NDETAILS; c++) {
        arrs[c] = new_column(n, types[c]);
        if (arrs[c] == NULL) {
            return -1;
        }
    }
    if (args) {
        *args_arr = PyList_New((Py_ssize_t)n);
        if (*args_arr == NULL) {
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            PyList_SET_ITEM(*args_arr, (Py_ssize_t)i, Py_NewRef(Py_None));
        }
    }
    return 0;
}

static int store_columns(PyObject *dict, PyObject **arrs, PyObject *args_arr)
{
    static const char *const names[NDETAILS] = {"exclusive", "min", "max", "vmin", "vmax", "vsum"};
    for (int c = 0; c < NDETAILS; c++) {
        if (arrs[c] != NULL && PyDict_SetItemString(dict, names[c], arrs[c]) < 0) {
            return -1;
        }
    }
    return args_arr != NULL ? PyDict_SetItemString(dict, "args", args_arr) : 0;
}

int py_window_details(py_reader *self, slog_reader *r, const slog_query_options *opts, size_t n,
                      const py_detail_want *want, PyObject *dict)
{
    const bool args = (want->what & PY_DETAIL_ARGS) != 0;
    const bool summary = (want->what & PY_DETAIL_SUMMARY) != 0;
    PyObject *arrs[NDETAILS] = {NULL, NULL, NULL, NULL, NULL, NULL}, *args_arr = NULL;
    slog_query_options o = *opts;
    o.flags |= args ? SLOG_QUERY_ARGS : 0;
    slog_query *q = NULL;
    slog_error err;
    memset(&err, 0, sizeof err);
    int rc = make_columns(arrs, &args_arr, n, args, summary);
    if (rc == 0) {
        const int qrc = slog_query_create(&q, r, &o, &err);
        rc = qrc == SLOG_OK ? 0 : (py_raise(qrc, &err, self->path, "Cannot read the window"), -1);
    }
    if (rc == 0) {
        const detail_cols d = {data_of(arrs[D_EXCLUSIVE]), data_of(arrs[D_MIN]),
                               data_of(arrs[D_MAX]),       data_of(arrs[D_VMIN]),
                               data_of(arrs[D_VMAX]),      data_of(arrs[D_VSUM]),
                               args_arr,                   want->keys,
                               slog_reader_info(r)->ticks_per_second};
        rc = walk(self, q, &d, n, summary);
    }
    slog_query_destroy(q);
    if (rc == 0) {
        rc = store_columns(dict, arrs, args_arr);
    }
    for (int c = 0; c < NDETAILS; c++) {
        Py_XDECREF(arrs[c]);
    }
    Py_XDECREF(args_arr);
    return rc;
}
