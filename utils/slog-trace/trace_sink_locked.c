/* SPDX-License-Identifier: MIT
 *
 * trace_sink_locked.c - the sink over the one-thread writer (slog_writer.h):
 * every call takes one process-wide mutex, so the program's threads append
 * in turn; a flush makes everything recorded so far readable.  The timer
 * never waits for the mutex while it holds HDF5's global lock, nor for
 * HDF5's lock while it holds the mutex: it takes HDF5's lock first
 * (trace_hdf5_lock.h), then only tries the mutex, and when a program thread
 * holds it (appending: it may wait for HDF5's lock to write a leaf) leaves
 * the flush to its next tick.  A program thread inside HDF5 holds HDF5's
 * lock when it records a call and waits for the mutex, so a timer that
 * flushed under the mutex deadlocked h5py.  After fork the child
 * forgets the parent's writer: its memory is left alone (never freed, never
 * flushed), because the parent goes on writing that file.
 * Layer: slog-trace preload library; public API only.
 */
#include "trace_hdf5_lock.h"
#include "trace_sink_impl.h"

#include <pthread.h>
#include <stdlib.h>

#include "trace_version.h"

struct sink_thread {
    uint32_t timeline;
    uint32_t generation; /* the sink it belongs to */
    sink_thread *prev, *next;
};

static struct {
    pthread_mutex_t lock;
    slog_writer *w; /* NULL: closed */
    uint32_t process;
    uint32_t generation;
    sink_thread *threads; /* every open handle (a fork child keeps the
                             handles of threads it does not have) */
} sink = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, NULL};

static int define_categories(const sink_category *cats, uint32_t ncats)
{
    for (uint32_t i = 0; i < ncats; i++) {
        uint32_t id = 0;
        if (slog_writer_add_category(sink.w, cats[i].kind, cats[i].name, 0, cats[i].group, &id,
                                     NULL) != SLOG_OK ||
            id != i) {
            return -1;
        }
    }
    return 0;
}

static int locked_open(const char *path, const char *process_name, const sink_category *cats,
              uint32_t ncats)
{
    slog_writer_options o;
    slog_writer_options_init(&o);
    o.creator = "slog-trace " TRACE_VERSION;
    pthread_mutex_lock(&sink.lock);
    int rc = sink.w != NULL ? -1 : 0;
    if (rc == 0 && slog_writer_create(&sink.w, path, &o, NULL) != SLOG_OK) {
        sink.w = NULL;
        rc = -1;
    }
    if (rc == 0 && (slog_writer_add_timeline(sink.w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS,
                                             process_name, 0, &sink.process, NULL) != SLOG_OK ||
                    define_categories(cats, ncats) != 0)) {
        slog_writer_destroy(sink.w);
        sink.w = NULL;
        rc = -1;
    }
    __atomic_store_n(&sink.generation, sink.generation + 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&sink.lock);
    return rc;
}

static sink_thread *locked_thread_open(const char *name)
{
    sink_thread *t = malloc(sizeof *t);
    if (t == NULL) {
        return NULL;
    }
    pthread_mutex_lock(&sink.lock);
    t->generation = sink.generation;
    if (sink.w == NULL || slog_writer_add_timeline(sink.w, sink.process, SLOG_TIMELINE_THREAD,
                                                   name, 0, &t->timeline, NULL) != SLOG_OK) {
        free(t);
        t = NULL;
    } else {
        t->prev = NULL;
        t->next = sink.threads;
        if (sink.threads != NULL) {
            sink.threads->prev = t;
        }
        sink.threads = t;
    }
    pthread_mutex_unlock(&sink.lock);
    return t;
}

static bool locked_thread_stale(const sink_thread *t)
{
    return t->generation != __atomic_load_n(&sink.generation, __ATOMIC_RELAXED);
}

static void locked_thread_close(sink_thread *t)
{
    if (t == NULL) {
        return;
    }
    pthread_mutex_lock(&sink.lock);
    if (t->prev != NULL) {
        t->prev->next = t->next;
    } else {
        sink.threads = t->next;
    }
    if (t->next != NULL) {
        t->next->prev = t->prev;
    }
    pthread_mutex_unlock(&sink.lock);
    free(t); /* the timeline and its drawables stay in the file */
}

/* The writer t may append to, locked; NULL (unlocked) when t belongs to an
 * earlier sink or the sink is closed. */
static slog_writer *lock_for(const sink_thread *t)
{
    pthread_mutex_lock(&sink.lock);
    if (sink.w == NULL || t == NULL || t->generation != sink.generation) {
        pthread_mutex_unlock(&sink.lock);
        return NULL;
    }
    return sink.w;
}

static void locked_state(sink_thread *t, const sink_span *s)
{
    slog_writer *w = lock_for(t);
    if (w == NULL) {
        return;
    }
    const int64_t end = s->end < s->start ? s->start : s->end;
    const slog_state st = {t->timeline, s->cat, s->start, end, s->depth, s->nargs, s->args};
    (void)slog_writer_append_state(w, &st, NULL);
    pthread_mutex_unlock(&sink.lock);
}

static void locked_event(sink_thread *t, uint32_t cat, int64_t time, uint32_t open,
                         const slog_arg *args, uint32_t nargs)
{
    slog_writer *w = lock_for(t);
    if (w == NULL) {
        return;
    }
    (void)open; /* the writer takes any order */
    const slog_event e = {t->timeline, cat, time, nargs, args};
    (void)slog_writer_append_event(w, &e, NULL);
    pthread_mutex_unlock(&sink.lock);
}

static void locked_rename_process(const char *name)
{
    pthread_mutex_lock(&sink.lock);
    if (sink.w != NULL) {
        (void)slog_writer_set_timeline(sink.w, sink.process, name, 0, NULL);
    }
    pthread_mutex_unlock(&sink.lock);
}

/* The flush; @p try_only: give up when the mutex is taken. */
static void flush_now(void *try_only)
{
    if (try_only != NULL ? pthread_mutex_trylock(&sink.lock) != 0
                         : pthread_mutex_lock(&sink.lock) != 0) {
        return;
    }
    if (sink.w != NULL) {
        (void)slog_writer_flush(sink.w, NULL);
    }
    pthread_mutex_unlock(&sink.lock);
}

static void locked_flush(void)
{
    static int try_only = 1;
    if (trace_with_hdf5_lock(flush_now, &try_only) != 0) {
        flush_now(NULL); /* no HDF5 lock to take: as before */
    }
}

static void locked_finish(void)
{
    pthread_mutex_lock(&sink.lock);
    if (sink.w != NULL) {
        (void)slog_writer_finish(sink.w, NULL);
        slog_writer_destroy(sink.w);
        sink.w = NULL;
    }
    pthread_mutex_unlock(&sink.lock);
}

/* The parents' writers, kept reachable (leak checkers see them) but never
 * touched again. */
static slog_writer *forgotten[8];

static void locked_forget_after_fork(void)
{
    for (size_t i = 0; i < sizeof forgotten / sizeof forgotten[0]; i++) {
        if (forgotten[i] == NULL) {
            forgotten[i] = sink.w;
            break;
        }
    }
    sink.w = NULL; /* the parent's: not ours to free or flush */
    __atomic_store_n(&sink.generation, sink.generation + 1, __ATOMIC_RELAXED);
}

static void locked_fork_prepare(void)
{
    trace_hdf5_lock_fork_prepare(); /* the timer's order: that first, then the mutex */
    pthread_mutex_lock(&sink.lock);
}

static void locked_fork_release(void)
{
    pthread_mutex_unlock(&sink.lock);
    trace_hdf5_lock_fork_release();
}

const sink_ops sink_locked_ops = {
    locked_open,   locked_thread_open,    locked_thread_stale, locked_thread_close,
    locked_state,  locked_event,          locked_rename_process, locked_flush,
    locked_finish, locked_forget_after_fork, locked_fork_prepare, locked_fork_release,
};
