/* SPDX-License-Identifier: MIT
 *
 * py_module.c - the `slog._slog` extension module: imports numpy's C API,
 * registers the Reader and Writer types and the exception classes, and
 * exposes the library's version.  The Python package slog/ builds the
 * user-facing API (DataFrames, window syntax, dask) on top of it.
 * Python binding layer: public libslog headers, Python and numpy C APIs.
 */
#define SLOG_PY_NUMPY_MAIN 1
#include "py_common.h"
#include "py_trace.h"

static int add_type(PyObject *m, PyTypeObject *t, const char *name)
{
    if (PyType_Ready(t) < 0) {
        return -1;
    }
    return PyModule_AddObjectRef(m, name, (PyObject *)t);
}

static int add_constants(PyObject *m)
{
    return PyModule_AddStringConstant(m, "library_version", slog_version_string()) |
           PyModule_AddStringConstant(m, "compiled_version", SLOG_VERSION_STRING) |
           PyModule_AddIntConstant(m, "KIND_PREVIEW", SLOG_KIND_PREVIEW) |
           PyModule_AddIntConstant(m, "KIND_RUN", SLOG_KIND_RUN) |
           PyModule_AddIntConstant(m, "NO_PARENT", (long)SLOG_NO_PARENT) |
           PyModule_AddIntConstant(m, "CATEGORY_OTHER", (long)SLOG_CATEGORY_OTHER) |
           PyModule_AddIntConstant(m, "ANY", (long)SLOG_STATS_ANY) |
           PyModule_AddIntConstant(m, "ONE_PASS_CACHE_BYTES", PY_ONE_PASS_CACHE_BYTES);
}

static int module_exec(PyObject *m)
{
    if (_import_array() < 0) {
        return -1;
    }
    if (py_error_init(m) < 0 || add_type(m, &py_reader_type, "Reader") < 0 ||
        add_type(m, &py_writer_type, "Writer") < 0 || add_constants(m) < 0 ||
        py_trace_init(m) < 0) {
        return -1;
    }
    return 0;
}

static PyModuleDef_Slot module_slots[] = {
    /* the slot table holds void *: a function pointer goes through an integer
     * (ISO C has no direct conversion) */
    {Py_mod_exec, (void *)(uintptr_t)module_exec}, // NOLINT(performance-no-int-to-ptr)
    {0, NULL},
};

static PyMethodDef module_methods[] = {
#ifdef SLOG_PY_HAVE_IMPORT
    {"import_trace", (PyCFunction)(void (*)(void))py_import_trace, METH_VARARGS | METH_KEYWORDS,
     "Import inputs into a new libslog file; returns the summary dict."},
    {"import_formats", py_import_formats, METH_NOARGS, "Formats the import library reads."},
#endif
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "slog._slog",
    .m_doc = "C core of the slog package: libslog readers and writers over numpy columns.",
    .m_size = 0,
    .m_methods = module_methods,
    .m_slots = module_slots,
};

PyMODINIT_FUNC PyInit__slog(void);

PyMODINIT_FUNC PyInit__slog(void)
{
    return PyModuleDef_Init(&module_def);
}
