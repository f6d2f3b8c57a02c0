/* SPDX-License-Identifier: MIT
 *
 * trace_sink_twriter.c - the sink over slog_thread.h's per-thread writer
 * (SLOG_TRACE_WRITER=thread): each thread appends to its own location with
 * no lock, background threads build the file.  A location takes begin/end
 * with nondecreasing times, but the tracer learns of a call when it
 * returns, inner calls first: a call at depth 0 is written at once (begin
 * at its start, end at its end); calls and events inside it are copied
 * aside (at most PENDING_MAX per thread, the rest counted as lost) and
 * written, nested in start order, when the depth-0 call returns.  Times
 * never go back on a location (a clock step is clamped).  MPI_Init's
 * rename of the process timeline is slog_twriter_set_timeline; the timer's
 * flush is slog_twriter_flush.
 * Layer: slog-trace preload library; public API only.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <slog/slog_thread.h>

#include "trace_arg_copy.h"
#include "trace_sink_impl.h"
#include "trace_version.h"

#define PENDING_MAX 4096
#define NEST_MAX 64
/* How long a thread's append waits for room in the writer's queue before
 * its buffer is dropped (slog_twriter_options.max_wait_ms): the program may
 * hold HDF5's global lock (a call made inside HDF5: its own I/O, a
 * callback) while the background needs it to write the file, and waiting
 * for it there would never end. */
#define APPEND_MAX_WAIT_MS 200u

typedef struct pending {
    uint32_t cat, depth, nargs;
    bool event;
    int64_t start, end;
    slog_arg *args; /* one block with its strings */
} pending;

struct sink_thread {
    slog_location *loc; /* NULL: a forgotten parent's (fork child) */
    uint32_t generation;
    int64_t last; /* the location's latest time */
    pending *v;
    uint32_t n, cap;
    uint64_t lost;
    sink_thread *prev, *next;
};

static struct {
    pthread_mutex_t lock; /* open, finish, the list of handles */
    slog_twriter *tw;
    uint32_t process;
    uint32_t generation;
    sink_thread *threads;
    /* The timer's flush runs without the lock (it waits for the background,
     * which may wait for HDF5's lock, held by a program thread whose first
     * call, inside HDF5, would wait for this lock to open its timeline):
     * finish waits until no flush is running. */
    uint32_t flushing;
    pthread_cond_t flushed;
} tws = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, NULL, 0, PTHREAD_COND_INITIALIZER};

/* A fork child's inherited writer, forgotten at the child's next open:
 * the fork handlers run before libslog's own child handler has released
 * its HDF5 lock, so slog_twriter_forget_after_fork cannot run there. */
static slog_twriter *inherited;

static int define_categories(const sink_category *cats, uint32_t ncats)
{
    for (uint32_t i = 0; i < ncats; i++) {
        uint32_t id = 0;
        if (slog_twriter_category_in(tws.tw, cats[i].kind, cats[i].name, cats[i].group, &id,
                                     NULL) != SLOG_OK ||
            id != i) {
            return -1;
        }
    }
    return 0;
}

static int tw_open(const char *path, const char *process_name, const sink_category *cats,
                   uint32_t ncats)
{
    slog_writer_options wo;
    slog_writer_options_init(&wo);
    wo.creator = "slog-trace " TRACE_VERSION " (per-thread writer)";
    slog_twriter_options o;
    slog_twriter_options_init(&o);
    o.writer = &wo;
    o.max_wait_ms = APPEND_MAX_WAIT_MS;
    pthread_mutex_lock(&tws.lock);
    if (inherited != NULL) {
        slog_twriter_forget_after_fork(inherited);
        inherited = NULL;
    }
    int rc = tws.tw != NULL ? -1 : 0;
    if (rc == 0 && slog_twriter_create(&tws.tw, path, &o, NULL) != SLOG_OK) {
        tws.tw = NULL;
        rc = -1;
    }
    if (rc == 0 && (slog_twriter_add_timeline(tws.tw, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS,
                                              process_name, &tws.process, NULL) != SLOG_OK ||
                    define_categories(cats, ncats) != 0)) {
        slog_twriter_destroy(tws.tw);
        tws.tw = NULL;
        rc = -1;
    }
    __atomic_store_n(&tws.generation, tws.generation + 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&tws.lock);
    return rc;
}

static sink_thread *tw_thread_open(const char *name)
{
    sink_thread *t = calloc(1, sizeof *t);
    if (t == NULL) {
        return NULL;
    }
    pthread_mutex_lock(&tws.lock);
    t->generation = tws.generation;
    if (tws.tw == NULL || slog_twriter_open_location(tws.tw, tws.process, SLOG_TIMELINE_THREAD,
                                                     name, &t->loc, NULL) != SLOG_OK) {
        free(t);
        t = NULL;
    } else {
        t->next = tws.threads;
        if (tws.threads != NULL) {
            tws.threads->prev = t;
        }
        tws.threads = t;
    }
    pthread_mutex_unlock(&tws.lock);
    return t;
}

static bool tw_thread_stale(const sink_thread *t)
{
    return t->generation != __atomic_load_n(&tws.generation, __ATOMIC_RELAXED);
}

/* Time on t's location, never before its latest. */
static int64_t at(sink_thread *t, int64_t time)
{
    if (time < t->last) {
        time = t->last;
    }
    t->last = time;
    return time;
}

/* Copy a record aside until its depth-0 call returns. */
static void set_aside(sink_thread *t, const pending *p, const slog_arg *args)
{
    if (t->n == t->cap) {
        const uint32_t cap = t->cap == 0 ? 64 : t->cap * 2;
        pending *v = cap <= PENDING_MAX ? realloc(t->v, cap * sizeof *v) : NULL;
        if (v == NULL) {
            t->lost++;
            return;
        }
        t->v = v, t->cap = cap;
    }
    t->v[t->n] = *p;
    t->v[t->n].args = trace_arg_copy(args, p->nargs);
    t->v[t->n].nargs = t->v[t->n].args != NULL ? p->nargs : 0;
    t->n++;
}

static int by_start(const void *pa, const void *pb)
{
    const pending *a = pa;
    const pending *b = pb;
    if (a->start != b->start) {
        return a->start < b->start ? -1 : 1;
    }
    return a->depth < b->depth ? -1 : a->depth > b->depth ? 1 : 0;
}

/* Write every record set aside, nested by depth in start order. */
static void write_aside(sink_thread *t)
{
    qsort(t->v, t->n, sizeof *t->v, by_start);
    const pending *open[NEST_MAX];
    uint32_t top = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        const pending *p = &t->v[i];
        while (top > 0 && open[top - 1]->depth >= p->depth) {
            (void)slog_location_end(t->loc, at(t, open[--top]->end));
        }
        if (p->event) {
            (void)slog_location_event(t->loc, p->cat, at(t, p->start), p->args, p->nargs);
        } else if (top < NEST_MAX) {
            (void)slog_location_begin(t->loc, p->cat, at(t, p->start), p->args, p->nargs);
            open[top++] = p;
        }
    }
    while (top > 0) {
        (void)slog_location_end(t->loc, at(t, open[--top]->end));
    }
    for (uint32_t i = 0; i < t->n; i++) {
        free(t->v[i].args);
    }
    t->n = 0;
}

static bool usable(const sink_thread *t)
{
    return t != NULL && t->loc != NULL && !tw_thread_stale(t);
}

static void tw_state(sink_thread *t, const sink_span *s)
{
    if (!usable(t)) {
        return;
    }
    const pending p = {s->cat, s->depth, s->nargs, false, s->start, s->end, NULL};
    if (s->depth > 0 || t->n > 0) {
        set_aside(t, &p, s->args);
    }
    if (s->depth > 0) {
        return;
    }
    if (t->n > 0) {
        write_aside(t);
        return;
    }
    (void)slog_location_begin(t->loc, s->cat, at(t, s->start), s->args, s->nargs);
    (void)slog_location_end(t->loc, at(t, s->end));
}

static void tw_event(sink_thread *t, uint32_t cat, int64_t time, uint32_t open,
                     const slog_arg *args, uint32_t nargs)
{
    if (!usable(t)) {
        return;
    }
    if (open > 0) {
        const pending p = {cat, open, nargs, true, time, time, NULL};
        set_aside(t, &p, args);
        return;
    }
    (void)slog_location_event(t->loc, cat, at(t, time), args, nargs);
}

static void tw_thread_close(sink_thread *t)
{
    if (t == NULL) {
        return;
    }
    if (usable(t) && t->n > 0) {
        write_aside(t); /* the thread ended inside a call: what it recorded */
    }
    pthread_mutex_lock(&tws.lock);
    if (t->prev != NULL) {
        t->prev->next = t->next;
    } else {
        tws.threads = t->next;
    }
    if (t->next != NULL) {
        t->next->prev = t->prev;
    }
    pthread_mutex_unlock(&tws.lock);
    if (t->loc != NULL) {
        slog_location_close(t->loc); /* also after finish: it only frees then */
    }
    for (uint32_t i = 0; i < t->n; i++) {
        free(t->v[i].args);
    }
    free(t->v);
    free(t);
}

static void tw_rename_process(const char *name)
{
    pthread_mutex_lock(&tws.lock);
    if (tws.tw != NULL) {
        (void)slog_twriter_set_timeline(tws.tw, tws.process, name, NULL);
    }
    pthread_mutex_unlock(&tws.lock);
}

/* The timer's flush: everything appended so far (each thread's buffer
 * included) reaches the file, so a crash loses at most one flush interval. */
static void tw_flush(void)
{
    pthread_mutex_lock(&tws.lock);
    slog_twriter *const tw = tws.tw;
    tws.flushing += tw != NULL;
    pthread_mutex_unlock(&tws.lock);
    if (tw == NULL) {
        return;
    }
    (void)slog_twriter_flush(tw, NULL);
    pthread_mutex_lock(&tws.lock);
    if (--tws.flushing == 0) {
        pthread_cond_broadcast(&tws.flushed);
    }
    pthread_mutex_unlock(&tws.lock);
}

/* After finish: one line on stderr when records were lost (the queue
 * stayed full past APPEND_MAX_WAIT_MS), as the file's stats say. */
static void tell_dropped(void)
{
    slog_twriter_stats st;
    slog_twriter_get_stats(tws.tw, &st);
    if (st.dropped == 0) {
        return;
    }
    char line[192];
    const int n = snprintf(line, sizeof line,
                           "slog-trace: %llu records lost (pid %ld): the writer's queue stayed "
                           "full (the program held a lock the writer needed, e.g. HDF5's)\n",
                           (unsigned long long)st.dropped, (long)getpid());
    if (n > 0) {
        (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }
}

static void tw_finish(void)
{
    pthread_mutex_lock(&tws.lock);
    while (tws.flushing > 0) {
        pthread_cond_wait(&tws.flushed, &tws.lock);
    }
    if (tws.tw != NULL) {
        (void)slog_twriter_finish(tws.tw, NULL);
        tell_dropped();
        slog_twriter_destroy(tws.tw);
        tws.tw = NULL;
    }
    __atomic_store_n(&tws.generation, tws.generation + 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&tws.lock);
}

/* The child's only thread, right after fork: the parent's locations must
 * not be used or closed here. */
static void tw_forget_after_fork(void)
{
    for (sink_thread *t = tws.threads; t != NULL; t = t->next) {
        t->loc = NULL;
    }
    inherited = tws.tw; /* forgotten at the next open (see above) */
    tws.tw = NULL;
    tws.flushing = 0; /* the parent's timer is not here */
    __atomic_store_n(&tws.generation, tws.generation + 1, __ATOMIC_RELAXED);
}

static void tw_fork_prepare(void)
{
    pthread_mutex_lock(&tws.lock);
}

static void tw_fork_release(void)
{
    pthread_mutex_unlock(&tws.lock);
}

const sink_ops sink_twriter_ops = {
    tw_open,   tw_thread_open,       tw_thread_stale, tw_thread_close, tw_state,        tw_event,
    tw_rename_process, tw_flush, tw_finish, tw_forget_after_fork, tw_fork_prepare, tw_fork_release,
};
