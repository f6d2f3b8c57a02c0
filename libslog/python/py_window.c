/* SPDX-License-Identifier: MIT
 *
 * py_window.c - Reader.window_columns: a query's items as numpy columns,
 * filled by slog_query_next_batch straight into the arrays that become the
 * DataFrame (no Python object per item).  The GIL is released for the
 * whole read: the columns grow in plain C (py_columns.c), and ticks become
 * nanoseconds in place (exact 128-bit floor) before Python sees them.
 * A large full-detail window is read by several threads at once
 * (py_window_split.c).
 * Previews' and runs' further totals and the args come from a second pass
 * over the same query (py_details.c), asked for only when wanted.
 * Python binding layer: public libslog headers, Python and numpy C APIs.
 */
#include "py_common.h"

#include <stdlib.h>
#include <string.h>

enum {
    C_KIND = PY_COL_KIND, C_OF, C_TIMELINE, C_TIMELINE_TO, C_CATEGORY, C_START, C_END, C_DUR,
    C_DEPTH, C_COUNT, C_INCLUSIVE, C_VALUE, C_NAME_CODE, NCOLS
};

static const py_column column_specs[NCOLS] = {
    {NULL, 1, NPY_INT8, "kind", 0},        {NULL, 1, NPY_INT8, "of", 0},
    {NULL, 4, NPY_UINT32, "timeline", 0},  {NULL, 4, NPY_UINT32, "timeline_to", 0},
    {NULL, 4, NPY_UINT32, "category", 0},  {NULL, 8, NPY_INT64, "start", 0},
    {NULL, 8, NPY_INT64, "end", 0},        {NULL, 8, NPY_INT64, "dur", 0},
    {NULL, 4, NPY_UINT32, "depth", 0},     {NULL, 8, NPY_UINT64, "count", 0},
    {NULL, 8, NPY_INT64, "inclusive", 0},  {NULL, 8, NPY_FLOAT64, "value", 0},
    {NULL, 1, NPY_INT8, "name_code", 0},
};

int64_t py_ticks_to_ns(int64_t ticks, uint64_t tps)
{
    if (tps == 1000000000u || tps == 0) {
        return ticks;
    }
    __extension__ typedef __int128 i128;
    const i128 num = (i128)ticks * 1000000000;
    i128 q = num / (i128)tps;
    if (num % (i128)tps != 0 && num < 0) {
        q -= 1; /* floor, not truncation */
    }
    return q > INT64_MAX ? INT64_MAX : q < INT64_MIN ? INT64_MIN : (int64_t)q;
}

int py_id_list(PyObject *obj, uint32_t **ids, uint32_t *n)
{
    *ids = NULL;
    *n = 0;
    if (obj == NULL || obj == Py_None) {
        return 0;
    }
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_INT64, 1, 1, NPY_ARRAY_CARRAY_RO);
    if (a == NULL) {
        return -1;
    }
    const npy_intp len = PyArray_SIZE(a);
    const int64_t *v = (const int64_t *)PyArray_DATA(a);
    *ids = malloc(((size_t)len + 1) * sizeof **ids);
    if (*ids == NULL) {
        Py_DECREF(a);
        PyErr_NoMemory();
        return -1;
    }
    for (npy_intp i = 0; i < len; i++) {
        if (v[i] < 0 || v[i] > (int64_t)UINT32_MAX - 1) {
            PyErr_Format(PyExc_ValueError, "id %lld is out of range", (long long)v[i]);
            free(*ids);
            *ids = NULL;
            Py_DECREF(a);
            return -1;
        }
        (*ids)[i] = (uint32_t)v[i];
    }
    Py_DECREF(a);
    *n = (uint32_t)len;
    return 0;
}

/* Which columns to fill: all when @p names is None, else those named (dur
 * needs start and end, which then come back too); name codes when a table
 * of them was given (@p coded), and then the category ids they come from. */
static int pick_columns(PyObject *names, bool coded, py_column *cols)
{
    memcpy(cols, column_specs, sizeof column_specs);
    cols[C_NAME_CODE].elem = 0;
    if (coded) {
        cols[C_NAME_CODE].elem = 1;
        cols[C_CATEGORY].elem = 4;
    }
    if (names == NULL || names == Py_None) {
        return 0;
    }
    for (int i = 0; i < C_NAME_CODE; i++) {
        PyObject *key = PyUnicode_FromString(cols[i].name);
        const int has = key != NULL ? PySequence_Contains(names, key) : -1;
        Py_XDECREF(key);
        if (has < 0) {
            return -1;
        }
        cols[i].elem = has ? cols[i].elem : 0;
    }
    if (cols[C_DUR].elem != 0) {
        cols[C_START].elem = 8;
        cols[C_END].elem = 8;
    }
    return 0;
}

static void *at(const py_column *c, size_t n)
{
    return c->elem != 0 ? (char *)c->data + n * c->elem : NULL;
}

void py_window_aim(slog_batch *b, const py_column *cols, size_t n, size_t cap)
{
    b->capacity = cap - n;
    b->kind = at(&cols[C_KIND], n);
    b->of = at(&cols[C_OF], n);
    b->timeline = at(&cols[C_TIMELINE], n);
    b->timeline_to = at(&cols[C_TIMELINE_TO], n);
    b->category = at(&cols[C_CATEGORY], n);
    b->start = at(&cols[C_START], n);
    b->end = at(&cols[C_END], n);
    b->depth = at(&cols[C_DEPTH], n);
    b->count = at(&cols[C_COUNT], n);
    b->inclusive = at(&cols[C_INCLUSIVE], n);
    b->value = at(&cols[C_VALUE], n);
}

/* The whole query into the columns (no GIL).  Returns a status; -100 for
 * out of memory while growing the columns. */
static int read_all(slog_query *q, py_column *cols, size_t *n_out, slog_error *err)
{
    size_t cap = 1u << 16, n = 0;
    if (py_columns_reserve(cols, NCOLS, cap) < 0) {
        return -100;
    }
    for (;;) {
        slog_batch b;
        size_t got = 0;
        py_window_aim(&b, cols, n, cap);
        const int rc = slog_query_next_batch(q, &b, &got, err);
        n += got;
        *n_out = n;
        if (rc != SLOG_OK) {
            return rc == SLOG_END ? SLOG_OK : rc;
        }
        if (n == cap) {
            cap *= 2;
            if (py_columns_reserve(cols, NCOLS, cap) < 0) {
                return -100;
            }
        }
    }
}

/* Entries [from, n) of each category's name code: table[id], ids past the
 * table's end (OTHER) taking its last entry. */
static void code_names(const py_column *cols, size_t from, size_t n, const py_row_finish *f)
{
    int8_t *code = cols[C_NAME_CODE].elem ? cols[C_NAME_CODE].data : NULL;
    const uint32_t *cat = cols[C_CATEGORY].elem ? cols[C_CATEGORY].data : NULL;
    if (code == NULL || cat == NULL || f->nname_codes == 0) {
        return;
    }
    const uint32_t last = (uint32_t)(f->nname_codes - 1);
    for (size_t i = from; i < n; i++) {
        code[i] = f->name_codes[cat[i] < last ? cat[i] : last];
    }
}

void py_window_finish_rows(py_column *cols, size_t from, size_t n, const py_row_finish *f)
{
    int64_t *start = cols[C_START].elem ? cols[C_START].data : NULL;
    int64_t *end = cols[C_END].elem ? cols[C_END].data : NULL;
    int64_t *incl = cols[C_INCLUSIVE].elem ? cols[C_INCLUSIVE].data : NULL;
    int64_t *dur = cols[C_DUR].elem ? cols[C_DUR].data : NULL;
    if (f->to_ns && f->tps != 1000000000u) {
        for (size_t i = from; i < n; i++) {
            if (start != NULL && end != NULL) {
                start[i] = py_ticks_to_ns(start[i], f->tps);
                end[i] = py_ticks_to_ns(end[i], f->tps);
            }
            if (incl != NULL) {
                incl[i] = py_ticks_to_ns(incl[i], f->tps);
            }
        }
    }
    for (size_t i = from; dur != NULL && start != NULL && end != NULL && i < n; i++) {
        dur[i] = end[i] - start[i];
    }
    code_names(cols, from, n, f);
}

typedef struct window_request {
    slog_query_options q;
    uint32_t *tids, *cids; /* owned id lists behind q.timelines, q.categories */
    PyObject *columns;
    PyObject *arg_keys;    /* a set of arg keys, or None: all */
    Py_buffer codes;       /* name_codes: int8 per category id, then OTHER's */
    int details, args, to_ns, threads;
} window_request;

static int parse_request(PyObject *args, PyObject *kwargs, window_request *w)
{
    static char *kw[] = {"t0",      "t1",   "resolution", "kinds",   "timelines",  "categories",
                         "columns", "details", "args",     "to_ns", "threads", "name_codes",
                         "arg_keys", NULL};
    PyObject *tl = Py_None, *cat = Py_None;
    memset(w, 0, sizeof *w);
    slog_query_options_init(&w->q);
    w->columns = Py_None;
    w->arg_keys = Py_None;
    w->to_ns = 1;
    unsigned int kinds = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LL|LIOOOpppiz*O", kw, &w->q.t0, &w->q.t1,
                                     &w->q.resolution, &kinds, &tl, &cat, &w->columns,
                                     &w->details, &w->args, &w->to_ns, &w->threads, &w->codes,
                                     &w->arg_keys)) {
        return -1;
    }
    if (w->arg_keys != Py_None && !PyAnySet_Check(w->arg_keys)) {
        PyErr_SetString(PyExc_TypeError, "arg_keys: a set of str, or None");
        PyBuffer_Release(&w->codes);
        return -1;
    }
    if (w->threads < 0 || (w->codes.buf != NULL && w->codes.len == 0)) {
        PyErr_SetString(PyExc_ValueError, w->threads < 0 ? "threads: 0 (one per core) or more"
                                                         : "name_codes: one code or more");
        PyBuffer_Release(&w->codes);
        return -1;
    }
    w->q.kinds = kinds;
    if (py_id_list(tl, &w->tids, &w->q.ntimelines) < 0 ||
        py_id_list(cat, &w->cids, &w->q.ncategories) < 0) {
        free(w->tids);
        PyBuffer_Release(&w->codes);
        return -1;
    }
    w->q.timelines = w->tids;
    w->q.categories = w->cids;
    return 0;
}

static void free_request(window_request *w)
{
    free(w->tids);
    free(w->cids);
    PyBuffer_Release(&w->codes);
}

/* Run the batch read under the reader's lock; fills @p cols and @p n. */
static int run_batches(py_reader *self, slog_reader *r, const window_request *w, py_column *cols,
                       size_t *n)
{
    slog_error err;
    memset(&err, 0, sizeof err);
    slog_query *q = NULL;
    const py_row_finish finish = {slog_reader_info(r)->ticks_per_second, w->to_ns != 0,
                                  w->codes.buf, (size_t)w->codes.len};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    const py_split_request split = {self->path, r, &w->q, w->threads, &finish};
    rc = w->details || w->args || w->threads == 1 ? PY_SPLIT_DECLINED
                                                  : py_window_read_split(&split, cols, n, &err);
    if (rc == PY_SPLIT_DECLINED) {
        rc = slog_query_create(&q, r, &w->q, &err);
        if (rc == SLOG_OK) {
            rc = read_all(q, cols, n, &err);
        }
        slog_query_destroy(q);
        if (rc == SLOG_OK) {
            py_window_finish_rows(cols, 0, *n, &finish);
        }
    }
    Py_END_ALLOW_THREADS
    if (rc == -100) {
        PyErr_NoMemory();
        return -1;
    }
    if (rc != SLOG_OK) {
        py_raise(rc, &err, self->path, "Cannot read the window");
        return -1;
    }
    return 0;
}

PyObject *py_reader_window(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    py_reader *self = (py_reader *)obj;
    window_request w;
    py_column cols[NCOLS];
    if (parse_request(args, kwargs, &w) < 0) {
        return NULL;
    }
    if (pick_columns(w.columns, w.codes.buf != NULL, cols) < 0) {
        free_request(&w);
        return NULL;
    }
    slog_reader *r = py_reader_enter(self);
    PyObject *dict = r != NULL ? PyDict_New() : NULL;
    size_t n = 0;
    int ok = dict != NULL && run_batches(self, r, &w, cols, &n) == 0 &&
             py_columns_to_dict(cols, NCOLS, n, dict) == 0;
    if (ok && (w.details || w.args)) {
        const py_detail_want want = {
            (w.args ? PY_DETAIL_ARGS : 0u) | (w.details ? PY_DETAIL_SUMMARY : 0u),
            w.arg_keys != Py_None ? w.arg_keys : NULL};
        ok = py_window_details(self, r, &w.q, n, &want, dict) == 0;
    }
    if (r != NULL) {
        py_reader_leave(self);
    }
    py_columns_free(cols, NCOLS);
    free_request(&w);
    if (!ok) {
        Py_XDECREF(dict);
        return NULL;
    }
    return dict;
}
