/* SPDX-License-Identifier: MIT
 *
 * py_trace.c - tracing Python code into a libslog file (slog.trace,
 * slog.region, slog.annotate; slog/tracing.py): one file per process with
 * a timeline per Python thread; a region is written as one state when it
 * ends, its depth one more than the innermost region open around it, its
 * args those given at begin plus every annotation.  Decorated calls, which
 * always nest, live on the calling thread's stack here; slog.region's
 * regions are objects of their own (py_trace_region.c).  Every writer call
 * runs with the GIL held and never releases it, so the one-thread writer
 * needs no other lock.  The file is flushed when a region ends at least a
 * second after the last flush, and when a top region ends soon after
 * (flush_due), finished by trace_stop (atexit in tracing.py; before
 * multiprocessing's os._exit in its children; before an exec, by an audit
 * hook: the next program of the pid takes the next free name).  A fork child forgets the
 * parent's writer and points its descriptors of the parent's file at
 * /dev/null, so HDF5's exit handler in the child cannot write it; the
 * child's first region starts its own file (trace_after_fork).
 * Python binding layer: public libslog headers, Python C API.
 */
#include "py_trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FLUSH_NS 1000000000LL   /* at any region's end, at least this often */
#define FLUSH_TOP_NS 100000000LL /* a top region's end: at least this long after */
#define FLUSH_TOP_COST 20        /* ... and this many times the last flush's cost */

typedef struct open_region {
    uint32_t category, depth;
    int64_t start;
    PyObject *args; /* dict, or NULL */
} open_region;

/* A thread's open regions; belongs to one file (generation). */
typedef struct region_stack {
    uint64_t generation;
    uint32_t timeline;
    uint32_t n, cap;
    open_region *v;
} region_stack;

static struct {
    slog_writer *w; /* NULL: not tracing */
    pid_t owner;
    uint64_t generation;
    uint32_t process;
    PyObject *categories; /* name -> id */
    int64_t last_flush, flush_cost;
    uint64_t lost; /* regions the writer failed to take, this file */
    char path[PATH_MAX];
    char child_path[PATH_MAX + 32]; /* a fork child's own file, "" when none */
} tr;

static __thread region_stack *stack;

int64_t py_trace_now(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static PyObject *raise_rc(int rc, const slog_error *err, const char *what)
{
    return py_raise(rc, err, tr.path, what);
}

/* A fork child: the parent's file is not ours.  Its descriptors go to
 * /dev/null (found through /proc/self/fd), the writer is left alone. */
static void forget_parent_file(void)
{
    char real[PATH_MAX];
    DIR *d = opendir("/proc/self/fd");
    const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (d != NULL && null_fd >= 0 && realpath(tr.path, real) != NULL) {
        const struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            char link[300], target[PATH_MAX];
            (void)snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
            const ssize_t n = readlink(link, target, sizeof target - 1);
            if (n > 0 && (target[n] = '\0', strcmp(target, real) == 0)) {
                (void)dup3(null_fd, atoi(e->d_name), O_CLOEXEC);
            }
        }
    }
    if (d != NULL) {
        (void)closedir(d);
    }
    if (null_fd >= 0) {
        (void)close(null_fd);
    }
    tr.w = NULL; /* the parent's: never freed, flushed or finished here */
    Py_CLEAR(tr.categories);
}

/* _slog.trace_after_fork(): tracing.py calls it from its
 * os.register_at_fork(after_in_child=...) hook.  A child of a traced
 * process traces into a file of its own from its first region: under
 * slog-trace the default one, else the parent's path with "-PID" before
 * ".slog". */
static PyObject *trace_after_fork(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    if (tr.w == NULL || tr.owner == getpid()) {
        Py_RETURN_NONE;
    }
    forget_parent_file();
    const char *dir = getenv("SLOG_TRACE_DIR");
    size_t n = strlen(tr.path);
    n -= n >= 5 && strcmp(tr.path + n - 5, ".slog") == 0 ? 5 : 0;
    tr.child_path[0] = '\0';
    if (dir == NULL || dir[0] == '\0') {
        (void)snprintf(tr.child_path, sizeof tr.child_path, "%.*s-%ld.slog", (int)n, tr.path,
                       (long)getpid());
    }
    Py_RETURN_NONE;
}

/* _slog.trace_start(path, creator): open the process's trace file. */
static PyObject *trace_start(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *path = NULL;
    const char *creator = NULL;
    if (!PyArg_ParseTuple(args, "O&z", PyUnicode_FSConverter, &path, &creator)) {
        return NULL;
    }
    if (tr.w != NULL) {
        Py_DECREF(path);
        PyErr_SetString(PyExc_RuntimeError, "slog tracing is already on (slog.trace_stop() first)");
        return NULL;
    }
    (void)snprintf(tr.path, sizeof tr.path, "%s", PyBytes_AS_STRING(path));
    Py_DECREF(path);
    slog_writer_options o;
    slog_writer_options_init(&o);
    o.creator = creator;
    slog_error err;
    memset(&err, 0, sizeof err);
    char name[128];
    /* named as slog-trace names the process in its native file */
    (void)snprintf(name, sizeof name, "%s pid %ld", program_invocation_short_name,
                   (long)getpid());
    int rc = slog_writer_create(&tr.w, tr.path, &o, &err);
    if (rc == SLOG_OK) {
        rc = slog_writer_add_timeline(tr.w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, name, 0,
                                      &tr.process, &err);
    }
    if (rc == SLOG_OK && (tr.categories = PyDict_New()) == NULL) {
        rc = SLOG_ENOMEM;
    }
    if (rc != SLOG_OK) {
        slog_writer_destroy(tr.w);
        tr.w = NULL;
        return raise_rc(rc, &err, "Cannot start tracing into");
    }
    tr.owner = getpid();
    tr.generation++;
    tr.lost = 0;
    tr.child_path[0] = '\0'; /* a file of its own now: no other at the first region */
    tr.last_flush = py_trace_now();
    tr.flush_cost = 0;
    return PyUnicode_DecodeFSDefault(tr.path);
}

/* _slog.trace_stop(): finish the file (regions still open are left out). */
static PyObject *trace_stop(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    if (tr.w == NULL) {
        Py_RETURN_NONE;
    }
    slog_error err;
    memset(&err, 0, sizeof err);
    int rc = slog_writer_flush(tr.w, &err);
    slog_writer *w = tr.w;
    tr.w = NULL;
    tr.generation++;
    Py_CLEAR(tr.categories);
    /* open begin/end states would make finish fail: regions are states
       appended whole, so there are none */
    if (rc == SLOG_OK) {
        rc = slog_writer_finish(w, &err);
    }
    slog_writer_destroy(w);
    if (rc != SLOG_OK) {
        return raise_rc(rc, &err, "Cannot finish the trace");
    }
    Py_RETURN_NONE;
}

/* The category id of name (a str), defined on first use; -1 with an
 * exception set. */
static int64_t category_of(PyObject *name)
{
    PyObject *id = PyDict_GetItemWithError(tr.categories, name);
    if (id != NULL) {
        return PyLong_AsLongLong(id);
    }
    if (PyErr_Occurred()) {
        return -1;
    }
    /* a name with a NUL or without UTF-8 is stored as its repr() */
    Py_ssize_t n = 0;
    const char *utf8 = PyUnicode_AsUTF8AndSize(name, &n);
    PyObject *text = utf8 != NULL && strlen(utf8) == (size_t)n ? Py_NewRef(name)
                                                              : (PyErr_Clear(), PyObject_ASCII(name));
    utf8 = text != NULL ? PyUnicode_AsUTF8(text) : NULL;
    if (utf8 == NULL) {
        Py_XDECREF(text);
        return -1;
    }
    uint32_t cat = 0;
    slog_error err;
    memset(&err, 0, sizeof err);
    const int rc = slog_writer_add_category(tr.w, SLOG_KIND_STATE, utf8, 0, "python", &cat, &err);
    Py_DECREF(text);
    if (rc != SLOG_OK) {
        raise_rc(rc, &err, "Cannot define a category in");
        return -1;
    }
    PyObject *v = PyLong_FromUnsignedLong(cat);
    const int bad = v == NULL || PyDict_SetItem(tr.categories, name, v) < 0;
    Py_XDECREF(v);
    return bad ? -1 : (int64_t)cat;
}

/* The calling thread's region stack for the current file; NULL with an
 * exception set. */
static region_stack *this_stack(void)
{
    region_stack *s = stack;
    if (s != NULL && s->generation == tr.generation) {
        return s;
    }
    if (s == NULL && (s = stack = calloc(1, sizeof *s)) == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (uint32_t i = 0; i < s->n; i++) {
        Py_CLEAR(s->v[i].args); /* regions of an earlier file */
    }
    s->n = 0;
    const long tid = syscall(SYS_gettid);
    char name[64];
    (void)snprintf(name, sizeof name, "%s %ld", tid == getpid() ? "main" : "thread", tid);
    slog_error err;
    memset(&err, 0, sizeof err);
    const int rc = slog_writer_add_timeline(tr.w, tr.process, SLOG_TIMELINE_THREAD, name, 0,
                                            &s->timeline, &err);
    if (rc != SLOG_OK) {
        raise_rc(rc, &err, "Cannot add a thread timeline to");
        return NULL;
    }
    s->generation = tr.generation;
    return s;
}

/* Under slog-trace (SLOG_TRACE_DIR set), tracing starts by itself at the
 * first region, once per process; so it does in a fork child of a traced
 * process (trace_after_fork). */
/* DIR/<host>-<pid>-python.slog; when a program this process ran before an
 * exec left that file, DIR/<host>-<pid>.<n>-python.slog with the first free
 * n (as the native files' .<n>; slog-trace merge joins each to the
 * program's own file by time). */
static void default_path(char *path, size_t size, const char *dir)
{
    char host[256] = "host";
    (void)gethostname(host, sizeof host - 1);
    const long pid = (long)getpid();
    struct stat st;
    (void)snprintf(path, size, "%s/%s-%ld-python.slog", dir, host, pid);
    for (int n = 1; n < 100000 && lstat(path, &st) == 0; n++) {
        (void)snprintf(path, size, "%s/%s-%ld.%d-python.slog", dir, host, pid, n);
    }
}

/* _slog.trace_default_path(dir): default_path for tracing.py. */
static PyObject *trace_default_path(PyObject *self, PyObject *dir)
{
    (void)self;
    PyObject *bytes = NULL;
    if (!PyUnicode_FSConverter(dir, &bytes)) {
        return NULL;
    }
    char path[PATH_MAX + 300];
    default_path(path, sizeof path, PyBytes_AS_STRING(bytes));
    Py_DECREF(bytes);
    return PyUnicode_DecodeFSDefault(path);
}

/* Audit hook: an exec ("os.exec": os.execv, os.execve and the os.exec*
 * built on them) ends the program, so its file is finished first, as
 * slog-trace seals its native file (the next program of this pid traces
 * into a file of its own).  Never fails the exec. */
static int finish_before_exec(const char *event, PyObject *args, void *data)
{
    (void)args, (void)data;
    if (tr.w != NULL && tr.owner == getpid() && strcmp(event, "os.exec") == 0) {
        PyObject *r = trace_stop(NULL, NULL);
        if (r == NULL) {
            PyErr_Clear();
        }
        Py_XDECREF(r);
    }
    return 0;
}

static bool tracing(void)
{
    static pid_t tried;
    if (tr.w != NULL) {
        return true;
    }
    const char *dir = getenv("SLOG_TRACE_DIR");
    const bool child = tr.child_path[0] != '\0';
    if ((!child && (dir == NULL || dir[0] == '\0')) || tried == getpid()) {
        return false;
    }
    tried = getpid();
    char path[PATH_MAX + 300];
    if (child) {
        (void)snprintf(path, sizeof path, "%s", tr.child_path);
    } else {
        default_path(path, sizeof path, dir);
    }
    PyObject *args = Py_BuildValue("(ys)", path, "slog (Python tracing) " SLOG_VERSION_STRING);
    PyObject *r = args != NULL ? trace_start(NULL, args) : NULL;
    Py_XDECREF(args);
    Py_XDECREF(r);
    PyErr_Clear(); /* a file that cannot be made leaves tracing off */
    return tr.w != NULL;
}

int py_trace_place_here(py_trace_place *p)
{
    const region_stack *s = this_stack();
    if (s == NULL) {
        return -1;
    }
    const int64_t call = s->n > 0 ? (int64_t)s->v[s->n - 1].depth : -1;
    const int64_t ctx_depth = py_trace_ctx_depth(s->timeline);
    p->timeline = s->timeline;
    p->depth = (uint32_t)((call > ctx_depth ? call : ctx_depth) + 1);
    return 0;
}

int64_t py_trace_stack_depth(void)
{
    const region_stack *s = stack;
    if (tr.w == NULL || s == NULL || s->generation != tr.generation || s->n == 0) {
        return -1;
    }
    return s->v[s->n - 1].depth;
}

/* Push a decorated call's region of category cat; 0, -1 with an
 * exception set. */
static int region_begin(uint32_t cat)
{
    py_trace_place place;
    if (py_trace_place_here(&place) < 0) {
        return -1;
    }
    region_stack *s = stack;
    if (s->n == s->cap) {
        const uint32_t cap = s->cap == 0 ? 16 : s->cap * 2;
        open_region *v = realloc(s->v, cap * sizeof *v);
        if (v == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->v = v, s->cap = cap;
    }
    s->v[s->n++] = (open_region){cat, place.depth, py_trace_now(), NULL};
    return 0;
}

/* Merge the dict extra (NULL, None: nothing) into *args (a dict, or NULL:
 * made).  0, -1 with MemoryError. */
static int annotate_args(PyObject **args, PyObject *extra)
{
    if (extra == NULL || extra == Py_None) {
        return 0;
    }
    if (*args == NULL && (*args = PyDict_New()) == NULL) {
        return -1;
    }
    return py_trace_clean_args(*args, extra);
}

/* A region the writer did not take: counted (slog.trace_lost()), a
 * RuntimeWarning for the first of a file, the error dropped. */
static void lose_region(const char *why)
{
    PyErr_Clear();
    if (tr.lost++ == 0 && PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                                           "slog: a region was not recorded in %s (%s); "
                                           "slog.trace_lost() counts them",
                                           tr.path, why) < 0) {
        PyErr_Clear(); /* warnings made errors: still not the program's concern */
    }
}

/* Flush after region r?  At least every FLUSH_NS, and at the end of a top
 * region (depth 0: a task of a pool worker, a step of a loop) once
 * FLUSH_TOP_NS and FLUSH_TOP_COST flushes' time have passed, so that a
 * process killed between its regions (Pool.terminate's SIGTERM) keeps them
 * while flushing (0.2-0.7 ms here) costs at most about 5% of the time. */
static bool flush_due(const py_trace_state *r)
{
    const int64_t since = r->end - tr.last_flush;
    if (since >= FLUSH_NS) {
        return true;
    }
    return r->depth == 0 && since >= FLUSH_TOP_NS && since >= FLUSH_TOP_COST * tr.flush_cost;
}

void py_trace_write(const py_trace_state *r, PyObject **args, PyObject *extra)
{
    if (tr.w == NULL) {
        return; /* tracing stopped while the region was open */
    }
    py_args a;
    if (annotate_args(args, extra) < 0 || py_args_from_dict(*args, &a) < 0) {
        lose_region("no memory for its args");
        return;
    }
    const slog_state st = {r->timeline, r->category, r->start, r->end, r->depth, a.n, a.args};
    slog_error err;
    memset(&err, 0, sizeof err);
    const int rc = slog_writer_append_state(tr.w, &st, &err);
    py_args_release(&a);
    if (rc != SLOG_OK) {
        lose_region(err.message[0] != '\0' ? err.message : slog_status_name(rc));
    } else if (flush_due(r)) {
        (void)slog_writer_flush(tr.w, &err);
        tr.last_flush = py_trace_now();
        tr.flush_cost = tr.last_flush - r->end;
    }
}

/* Pop the thread's innermost decorated call, add extra to its args and
 * write it.  Never fails: a region the writer does not take is lost. */
static void region_end(PyObject *extra)
{
    region_stack *s = stack;
    if (tr.w == NULL || s == NULL || s->generation != tr.generation || s->n == 0) {
        return; /* tracing stopped (or restarted) while the region was open */
    }
    open_region r = s->v[--s->n];
    const py_trace_state st = {s->timeline, r.category, r.depth, r.start, py_trace_now()};
    py_trace_write(&st, &r.args, extra);
    Py_XDECREF(r.args);
}

bool py_trace_annotate_call(PyObject *extra)
{
    region_stack *s = stack;
    if (tr.w == NULL || s == NULL || s->generation != tr.generation || s->n == 0) {
        return false;
    }
    if (annotate_args(&s->v[s->n - 1].args, extra) < 0) {
        PyErr_Clear(); /* no memory: the annotation is dropped, the program goes on */
        return false;
    }
    return true;
}

uint64_t py_trace_generation(void)
{
    return tr.generation;
}

/* Category id of name for the current file, cached in gen and cat by
 * callers that call often (a traced function); -1 with an exception. */
int64_t py_trace_category(PyObject *name, uint64_t *gen, uint32_t *cat)
{
    if (gen != NULL && *gen == tr.generation) {
        return *cat;
    }
    const int64_t id = category_of(name);
    if (id >= 0 && gen != NULL) {
        *gen = tr.generation, *cat = (uint32_t)id;
    }
    return id;
}

bool py_trace_on(void)
{
    return tracing();
}

int py_trace_begin(uint32_t cat)
{
    return region_begin(cat);
}

void py_trace_lose(const char *why)
{
    lose_region(why);
}

void py_trace_end(PyObject *extra)
{
    region_end(extra);
}

/* _slog.trace_lost(): regions of the current (or last) file the writer did
 * not take. */
static PyObject *trace_lost(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyLong_FromUnsignedLongLong(tr.lost);
}

/* _slog.trace_file(): the file being written, None when not tracing. */
static PyObject *trace_file(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    if (tr.w == NULL) {
        Py_RETURN_NONE;
    }
    return PyUnicode_DecodeFSDefault(tr.path);
}

static PyMethodDef trace_methods[] = {
    {"trace_start", trace_start, METH_VARARGS, "Start tracing into a file: (path, creator)."},
    {"trace_stop", trace_stop, METH_NOARGS, "Finish the trace file."},
    {"trace_file", trace_file, METH_NOARGS, "The trace file, or None."},
    {"trace_lost", trace_lost, METH_NOARGS, "Regions the writer did not take."},
    {"trace_after_fork", trace_after_fork, METH_NOARGS, "Forget the parent's trace file."},
    {"trace_default_path", trace_default_path, METH_O, "The default trace file in a directory."},
    {NULL, NULL, 0, NULL},
};

int py_trace_init(PyObject *m)
{
    return PyModule_AddFunctions(m, trace_methods) < 0 ||
                   PySys_AddAuditHook(finish_before_exec, NULL) < 0 || py_traced_init(m) < 0 ||
                   py_trace_args_init(m) < 0 || py_trace_region_init(m) < 0
               ? -1
               : 0;
}
