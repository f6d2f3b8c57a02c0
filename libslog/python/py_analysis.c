/* SPDX-License-Identifier: MIT
 *
 * py_analysis.c - Reader.stats, Reader.find and Reader.top over
 * slog_stats.h and slog_search.h: window statistics as numpy columns (one
 * row per group), the next or previous matching drawable as a tuple, the
 * longest states of a window as columns.  Times and durations come back
 * in ns (exact floor) unless to_ns is false; the GIL is released while the
 * library works.
 * Python binding layer: public libslog headers, Python and numpy C APIs.
 */
#include "py_common.h"

#include <stdlib.h>
#include <string.h>

enum {
    S_KIND, S_CATEGORY, S_TIMELINE, S_COUNT, S_INCLUSIVE, S_EXCLUSIVE, S_MIN, S_MAX, S_MEAN,
    S_VMIN, S_VMAX, S_VSUM, NSTATS
};

static const py_column stats_specs[NSTATS] = {
    {NULL, 1, NPY_INT8, "kind", 0},       {NULL, 4, NPY_UINT32, "category", 0},
    {NULL, 4, NPY_UINT32, "timeline", 0}, {NULL, 8, NPY_UINT64, "count", 0},
    {NULL, 8, NPY_INT64, "inclusive", 0}, {NULL, 8, NPY_INT64, "exclusive", 0},
    {NULL, 8, NPY_INT64, "min", 0},       {NULL, 8, NPY_INT64, "max", 0},
    {NULL, 8, NPY_FLOAT64, "mean", 0},    {NULL, 8, NPY_FLOAT64, "vmin", 0},
    {NULL, 8, NPY_FLOAT64, "vmax", 0},    {NULL, 8, NPY_FLOAT64, "vsum", 0},
};

static int64_t dur(int64_t ticks, uint64_t tps, int to_ns)
{
    return to_ns ? py_ticks_to_ns(ticks, tps) : ticks;
}

/* Row i of the statistics columns. */
static void stats_row(py_column *c, size_t i, const slog_stats_row *r, uint64_t tps, int to_ns)
{
    ((int8_t *)c[S_KIND].data)[i] = (int8_t)r->kind;
    ((uint32_t *)c[S_CATEGORY].data)[i] = r->category;
    ((uint32_t *)c[S_TIMELINE].data)[i] = r->timeline;
    ((uint64_t *)c[S_COUNT].data)[i] = r->count;
    ((int64_t *)c[S_INCLUSIVE].data)[i] = dur(r->inclusive, tps, to_ns);
    ((int64_t *)c[S_EXCLUSIVE].data)[i] = dur(r->exclusive, tps, to_ns);
    ((int64_t *)c[S_MIN].data)[i] = dur(r->min, tps, to_ns);
    ((int64_t *)c[S_MAX].data)[i] = dur(r->max, tps, to_ns);
    const bool state = r->kind == SLOG_KIND_STATE;
    ((double *)c[S_MEAN].data)[i] =
        state && to_ns ? r->mean * 1e9 / (double)tps : r->mean; /* counters: mean value */
    ((double *)c[S_VMIN].data)[i] = r->vmin;
    ((double *)c[S_VMAX].data)[i] = r->vmax;
    ((double *)c[S_VSUM].data)[i] = r->vsum;
}

static PyObject *stats_columns(const slog_stats *s, uint64_t tps, int to_ns)
{
    size_t n = 0;
    const slog_stats_row *rows = slog_stats_rows(s, &n);
    py_column cols[NSTATS];
    memcpy(cols, stats_specs, sizeof cols);
    if (py_columns_reserve(cols, NSTATS, n > 0 ? n : 1) < 0) {
        py_columns_free(cols, NSTATS);
        return PyErr_NoMemory();
    }
    for (size_t i = 0; i < n; i++) {
        stats_row(cols, i, &rows[i], tps, to_ns);
    }
    PyObject *dict = PyDict_New();
    if (dict == NULL || py_columns_to_dict(cols, NSTATS, n, dict) < 0) {
        py_columns_free(cols, NSTATS);
        Py_XDECREF(dict);
        return NULL;
    }
    return dict;
}

/* Parsed filters shared by the three calls. */
typedef struct filters {
    uint32_t *timelines, *categories;
    uint32_t ntimelines, ncategories;
} filters;

static int parse_filters(PyObject *tl, PyObject *cat, filters *f)
{
    memset(f, 0, sizeof *f);
    if (py_id_list(tl, &f->timelines, &f->ntimelines) < 0) {
        return -1;
    }
    if (py_id_list(cat, &f->categories, &f->ncategories) < 0) {
        free(f->timelines);
        return -1;
    }
    return 0;
}

static void free_filters(filters *f)
{
    free(f->timelines);
    free(f->categories);
}

PyObject *py_reader_stats(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"t0", "t1", "by", "kinds", "timelines", "categories", "to_ns", NULL};
    py_reader *self = (py_reader *)obj;
    slog_stats_options o;
    slog_stats_options_init(&o);
    PyObject *tl = Py_None, *cat = Py_None;
    unsigned int by = 0, kinds = 0;
    int to_ns = 1;
    filters f;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LL|IIOOp", kw, &o.t0, &o.t1, &by, &kinds, &tl,
                                     &cat, &to_ns) ||
        parse_filters(tl, cat, &f) < 0) {
        return NULL;
    }
    o.by = by;
    o.kinds = kinds;
    o.timelines = f.timelines, o.ntimelines = f.ntimelines;
    o.categories = f.categories, o.ncategories = f.ncategories;
    slog_reader *r = py_reader_enter(self);
    PyObject *result = NULL;
    if (r != NULL) {
        slog_stats *s = NULL;
        slog_error err;
        memset(&err, 0, sizeof err);
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = slog_stats_compute(&s, r, &o, &err);
        Py_END_ALLOW_THREADS
        result = rc == SLOG_OK ? stats_columns(s, slog_reader_info(r)->ticks_per_second, to_ns)
                               : py_raise(rc, &err, self->path, "Cannot compute statistics");
        slog_stats_destroy(s);
        py_reader_leave(self);
    }
    free_filters(&f);
    return result;
}

/* A found drawable as (kind, timeline, timeline_to, category, start, end,
 * depth, value). */
static PyObject *item_tuple(const slog_item *it, uint64_t tps, int to_ns)
{
    uint32_t tl = 0, to = 0, cat = 0, depth = 0;
    int64_t start = 0, end = 0;
    double value = 0;
    switch (it->kind) {
    case SLOG_KIND_STATE:
        tl = to = it->u.state.timeline, cat = it->u.state.category;
        start = it->u.state.start, end = it->u.state.end, depth = it->u.state.depth;
        break;
    case SLOG_KIND_EVENT:
        tl = to = it->u.event.timeline, cat = it->u.event.category;
        start = end = it->u.event.time;
        break;
    case SLOG_KIND_ARROW:
        tl = it->u.arrow.from, to = it->u.arrow.to, cat = it->u.arrow.category;
        start = it->u.arrow.start, end = it->u.arrow.end;
        break;
    default:
        tl = to = it->u.counter.timeline, cat = it->u.counter.category;
        start = end = it->u.counter.time, value = it->u.counter.value;
        break;
    }
    return Py_BuildValue("(iIIILLId)", (int)it->kind, tl, to, cat, dur(start, tps, to_ns),
                         dur(end, tps, to_ns), depth, value);
}

typedef struct search_request {
    slog_search_options o;
    filters f;
    PyObject *contains; /* bytes or NULL */
} search_request;

static int parse_search(PyObject *tl, PyObject *cat, PyObject *contains, unsigned kinds,
                        search_request *s)
{
    slog_search_options_init(&s->o);
    s->contains = NULL;
    if (contains != Py_None && !PyUnicode_FSConverter(contains, &s->contains)) {
        return -1;
    }
    if (parse_filters(tl, cat, &s->f) < 0) {
        Py_CLEAR(s->contains);
        return -1;
    }
    s->o.kinds = kinds;
    s->o.timelines = s->f.timelines, s->o.ntimelines = s->f.ntimelines;
    s->o.categories = s->f.categories, s->o.ncategories = s->f.ncategories;
    s->o.name_contains = s->contains != NULL ? PyBytes_AS_STRING(s->contains) : NULL;
    return 0;
}

static void free_search(search_request *s)
{
    free_filters(&s->f);
    Py_CLEAR(s->contains);
}

PyObject *py_reader_find(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"at", "forward", "kinds", "timelines", "categories", "name_contains",
                         "to_ns", NULL};
    py_reader *self = (py_reader *)obj;
    long long at = 0;
    int forward = 1, to_ns = 1;
    unsigned int kinds = 0;
    PyObject *tl = Py_None, *cat = Py_None, *contains = Py_None;
    search_request s;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Lp|IOOOp", kw, &at, &forward, &kinds, &tl,
                                     &cat, &contains, &to_ns) ||
        parse_search(tl, cat, contains, kinds, &s) < 0) {
        return NULL;
    }
    slog_reader *r = py_reader_enter(self);
    PyObject *result = NULL;
    if (r != NULL) {
        slog_item it;
        slog_error err;
        memset(&err, 0, sizeof err);
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = forward ? slog_search_next(r, &s.o, at, &it, NULL, &err)
                     : slog_search_prev(r, &s.o, at, &it, NULL, &err);
        Py_END_ALLOW_THREADS
        result = rc == SLOG_OK    ? item_tuple(&it, slog_reader_info(r)->ticks_per_second, to_ns)
                 : rc == SLOG_END ? Py_NewRef(Py_None)
                                  : py_raise(rc, &err, self->path, "Cannot search");
        py_reader_leave(self);
    }
    free_search(&s);
    return result;
}

enum {
    T_TIMELINE, T_CATEGORY, T_START, T_END, T_DEPTH, NTOP
};

static PyObject *top_columns(const slog_state *st, uint32_t n, uint64_t tps, int to_ns)
{
    py_column cols[NTOP] = {{NULL, 4, NPY_UINT32, "timeline", 0}, {NULL, 4, NPY_UINT32, "category", 0},
                            {NULL, 8, NPY_INT64, "start", 0},     {NULL, 8, NPY_INT64, "end", 0},
                            {NULL, 4, NPY_UINT32, "depth", 0}};
    if (py_columns_reserve(cols, NTOP, n > 0 ? n : 1) < 0) {
        py_columns_free(cols, NTOP);
        return PyErr_NoMemory();
    }
    for (uint32_t i = 0; i < n; i++) {
        ((uint32_t *)cols[T_TIMELINE].data)[i] = st[i].timeline;
        ((uint32_t *)cols[T_CATEGORY].data)[i] = st[i].category;
        ((int64_t *)cols[T_START].data)[i] = dur(st[i].start, tps, to_ns);
        ((int64_t *)cols[T_END].data)[i] = dur(st[i].end, tps, to_ns);
        ((uint32_t *)cols[T_DEPTH].data)[i] = st[i].depth;
    }
    PyObject *dict = PyDict_New();
    if (dict == NULL || py_columns_to_dict(cols, NTOP, n, dict) < 0) {
        py_columns_free(cols, NTOP);
        Py_XDECREF(dict);
        return NULL;
    }
    return dict;
}

static PyObject *run_top(py_reader *self, slog_reader *r, const slog_search_options *o,
                         uint32_t n, int to_ns)
{
    slog_state *st = calloc(n, sizeof *st);
    if (st == NULL) {
        return PyErr_NoMemory();
    }
    slog_error err;
    memset(&err, 0, sizeof err);
    uint32_t count = n;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = slog_search_top(r, o, st, &count, NULL, &err);
    Py_END_ALLOW_THREADS
    PyObject *result = rc == SLOG_OK
                           ? top_columns(st, count, slog_reader_info(r)->ticks_per_second, to_ns)
                           : py_raise(rc, &err, self->path, "Cannot search");
    free(st);
    return result;
}

PyObject *py_reader_top(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"t0", "t1", "n", "timelines", "categories", "name_contains", "to_ns",
                         NULL};
    py_reader *self = (py_reader *)obj;
    long long t0 = 0, t1 = 0;
    unsigned int n = 0;
    int to_ns = 1;
    PyObject *tl = Py_None, *cat = Py_None, *contains = Py_None;
    search_request s;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LLI|OOOp", kw, &t0, &t1, &n, &tl, &cat,
                                     &contains, &to_ns) ||
        parse_search(tl, cat, contains, 0, &s) < 0) {
        return NULL;
    }
    if (n == 0 || n > 1000000) {
        free_search(&s);
        return PyErr_Format(PyExc_ValueError, "top: n must be 1..1000000, got %u", n);
    }
    s.o.t0 = t0;
    s.o.t1 = t1;
    slog_reader *r = py_reader_enter(self);
    PyObject *result = r != NULL ? run_top(self, r, &s.o, n, to_ns) : NULL;
    if (r != NULL) {
        py_reader_leave(self);
    }
    free_search(&s);
    return result;
}
