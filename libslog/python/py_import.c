/* SPDX-License-Identifier: MIT
 *
 * py_import.c - _slog.import_trace over include/slog/slog_import.h: import
 * paths (Chrome/.pfw, OTF2, Recorder, MPE...) into a new libslog file with
 * the GIL released, and return the import summary as a dict (formats per
 * input, per-kind counts, totals, warnings with their source and place).
 * Diagnostics arrive from the library's threads; they are kept in C (the
 * first 100 in full) and become Python objects after the call.  A failed
 * import raises with the library's message and the summary attached as the
 * exception's `summary` attribute.
 * Python binding layer: public libslog headers, Python C API.
 */
#include "py_common.h"

#include <slog/slog_import.h>
#include <stdlib.h>
#include <string.h>

enum {
    KEPT = 100 /* diagnostics kept in full */
};

typedef struct kept_diag {
    char *source, *message;
    uint64_t line, column, offset;
    int error;
} kept_diag;

typedef struct diag_log {
    kept_diag d[KEPT];
    size_t n;
} diag_log;

static char *dup_or_empty(const char *s)
{
    return strdup(s != NULL ? s : "");
}

static void on_diagnostic(const slog_import_diagnostic *d, void *user)
{
    diag_log *log = user;
    if (log->n == KEPT) {
        return;
    }
    kept_diag *k = &log->d[log->n++];
    k->source = dup_or_empty(d->source);
    k->message = dup_or_empty(d->message);
    k->line = d->line, k->column = d->column, k->offset = d->offset;
    k->error = d->severity == SLOG_IMPORT_ERROR;
}

static void free_log(diag_log *log)
{
    for (size_t i = 0; i < log->n; i++) {
        free(log->d[i].source);
        free(log->d[i].message);
    }
}

static PyObject *diag_list(const diag_log *log)
{
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list != NULL && i < log->n; i++) {
        const kept_diag *k = &log->d[i];
        PyObject *o = k->offset == UINT64_MAX ? Py_NewRef(Py_None)
                                              : PyLong_FromUnsignedLongLong(k->offset);
        PyObject *d = Py_BuildValue("{sssssKsKsNss}", "severity", k->error ? "error" : "warning",
                                    "source", k->source, "line", (unsigned long long)k->line,
                                    "column", (unsigned long long)k->column, "offset", o,
                                    "message", k->message);
        if (py_list_append_new(list, d) < 0) {
            Py_DECREF(list);
            return NULL;
        }
    }
    return list;
}

static PyObject *count_list(const slog_import_summary *s)
{
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list != NULL && i < s->ncounts; i++) {
        const slog_import_count *c = &s->counts[i];
        PyObject *d = Py_BuildValue("{sssKsKsK}", "what", c->what, "imported",
                                    (unsigned long long)c->imported, "skipped",
                                    (unsigned long long)c->skipped, "repaired",
                                    (unsigned long long)c->repaired);
        if (py_list_append_new(list, d) < 0) {
            Py_DECREF(list);
            return NULL;
        }
    }
    return list;
}

static PyObject *format_list(const slog_import_summary *s)
{
    PyObject *list = PyList_New((Py_ssize_t)s->ninputs);
    for (size_t i = 0; list != NULL && i < s->ninputs; i++) {
        const char *f = s->formats != NULL ? s->formats[i] : NULL;
        PyList_SET_ITEM(list, (Py_ssize_t)i, f != NULL ? PyUnicode_FromString(f) : Py_NewRef(Py_None));
    }
    return list;
}

static PyObject *summary_dict(const slog_import_summary *s, const diag_log *log)
{
    if (s == NULL) {
        return Py_BuildValue("{sNsN}", "complete", Py_NewRef(Py_False), "diagnostics",
                             diag_list(log));
    }
    return Py_BuildValue(
        "{sNsNsNsNsKsKsKsKsKsdsN}", "complete", PyBool_FromLong(s->complete), "output_created",
        PyBool_FromLong(s->output_created), "formats", format_list(s), "counts", count_list(s),
        "imported", (unsigned long long)s->imported, "skipped", (unsigned long long)s->skipped,
        "repaired", (unsigned long long)s->repaired, "warnings", (unsigned long long)s->warnings,
        "input_bytes", (unsigned long long)s->input_bytes, "seconds", s->seconds, "diagnostics",
        diag_list(log));
}

/* The inputs as slog_import_input entries over fs-encoded bytes in @p keep. */
static slog_import_input *make_inputs(PyObject *paths, PyObject *keep, size_t *n)
{
    const Py_ssize_t len = PySequence_Length(paths);
    if (len <= 0) {
        return len == 0 ? (PyErr_SetString(PyExc_ValueError, "import_trace: no input"), NULL)
                        : NULL;
    }
    slog_import_input *in = calloc((size_t)len, sizeof *in);
    for (Py_ssize_t i = 0; in != NULL && i < len; i++) {
        PyObject *item = PySequence_GetItem(paths, i), *bytes = NULL;
        const int ok = item != NULL && PyUnicode_FSConverter(item, &bytes) &&
                       PyList_Append(keep, bytes) == 0;
        Py_XDECREF(item);
        Py_XDECREF(bytes);
        if (!ok) {
            free(in);
            return NULL;
        }
        in[i].name = PyBytes_AS_STRING(bytes); /* alive in keep */
    }
    *n = (size_t)len;
    return in != NULL ? in : (slog_import_input *)PyErr_NoMemory();
}

/* Raise for a failed import, with the summary attached. */
static PyObject *import_failed(int rc, const slog_error *err, const char *output, PyObject *summary)
{
    py_raise(rc, err, err->source[0] != '\0' ? err->source : output, "Cannot import");
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value != NULL && summary != NULL) {
        (void)PyObject_SetAttrString(value, "summary", summary);
    }
    PyErr_Restore(type, value, tb);
    return NULL;
}

PyObject *py_import_trace(PyObject *mod, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"inputs", "output", "format", "sort_window", "time_unit", "flags", NULL};
    (void)mod;
    PyObject *paths = NULL, *out_bytes = NULL;
    slog_import_options o;
    slog_import_options_init(&o);
    unsigned long long sort_window = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO&|zKII", kw, &paths, PyUnicode_FSConverter,
                                     &out_bytes, &o.format, &sort_window, &o.time_unit,
                                     &o.flags)) {
        return NULL;
    }
    o.sort_window = sort_window;
    PyObject *keep = PyList_New(0);
    size_t n = 0;
    slog_import_input *in = keep != NULL ? make_inputs(paths, keep, &n) : NULL;
    diag_log *log = in != NULL ? calloc(1, sizeof *log) : NULL;
    PyObject *result = NULL;
    if (log != NULL) {
        const char *output = PyBytes_AS_STRING(out_bytes);
        o.diagnostic = on_diagnostic;
        o.user = log;
        slog_import_summary *s = NULL;
        slog_error err;
        memset(&err, 0, sizeof err);
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = slog_import_file(&s, output, in, n, &o, &err);
        Py_END_ALLOW_THREADS
        PyObject *summary = summary_dict(s, log);
        result = rc == SLOG_OK ? summary : import_failed(rc, &err, output, summary);
        if (rc != SLOG_OK) {
            Py_XDECREF(summary);
        }
        slog_import_summary_destroy(s);
        free_log(log);
    } else if (in != NULL) {
        PyErr_NoMemory();
    }
    free(log);
    free(in);
    Py_XDECREF(keep);
    Py_XDECREF(out_bytes);
    return result;
}

PyObject *py_import_formats(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *list = PyList_New(0);
    for (const char *const *f = slog_import_formats(); list != NULL && *f != NULL; f++) {
        if (py_list_append_new(list, PyUnicode_FromString(*f)) < 0) {
            Py_DECREF(list);
            return NULL;
        }
    }
    return list;
}
