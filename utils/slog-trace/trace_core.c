/* SPDX-License-Identifier: MIT
 *
 * trace_core.c - the per-call machinery of the preload library: the
 * thread-local state, the clock (CLOCK_REALTIME in ns, so that the files
 * of the processes of one job share a time axis), recording a call when it
 * returns, the thread's timeline opened on its first record and closed by
 * a pthread key destructor, and resolving real functions.  Recording runs
 * under the thread's guard, so the writer's own I/O (HDF5 underneath)
 * passes the wrappers untraced; errno is saved and restored around it.
 * After vfork the thread's state is shared with the child: a pid check,
 * made only while the thread's vfork flag is up, keeps the child silent.
 * Layer: slog-trace preload library; public API only.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#include "trace_core.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread trace_tls trace_self __attribute__((tls_model("initial-exec")));
int trace_state = TRACE_OFF;

#define TRACE_FN_CATEGORY(e, n, g, k) {n, g, SLOG_KIND_##k},
const sink_category trace_fn_categories[TRACE_FN_COUNT] = {TRACE_FUNCTIONS(TRACE_FN_CATEGORY)};
#undef TRACE_FN_CATEGORY

static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;

int64_t trace_now(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void *trace_resolve(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (f == NULL) {
        static const char msg[] = "slog-trace: the C library lacks a traced function\n";
        (void)!write(2, msg, sizeof msg - 1);
        abort();
    }
    return f;
}

/* A thread ended: its handle goes (its timeline and records stay). */
static void thread_ended(void *handle)
{
    trace_self.guard++;
    sink_thread_close(handle);
    trace_self.thread = NULL;
    trace_self.guard--;
}

static void make_thread_key(void)
{
    (void)pthread_key_create(&thread_key, thread_ended);
}

/* The calling thread's handle, opened on its first record (guard held). */
static sink_thread *this_thread(void)
{
    trace_tls *const t = &trace_self;
    if (t->thread != NULL && sink_thread_stale(t->thread)) {
        sink_thread_close(t->thread); /* a handle of an earlier file */
        t->thread = NULL;
    }
    if (t->thread == NULL) {
        char name[64];
        const long tid = syscall(SYS_gettid);
        (void)snprintf(name, sizeof name, "%s %ld", tid == getpid() ? "main" : "thread", tid);
        t->thread = sink_thread_open(name);
        (void)pthread_once(&thread_key_once, make_thread_key);
        if (t->thread != NULL) {
            (void)pthread_setspecific(thread_key, t->thread);
        }
    }
    return t->thread;
}

void trace_leave(const trace_call *c, trace_fn fn, const trace_args *args)
{
    const int saved = errno;
    const int64_t end = trace_now();
    trace_tls *const t = &trace_self;
    t->depth = c->depth;
    const sink_span s = {(uint32_t)fn, c->depth, c->start, end, args != NULL ? args->a : NULL,
                         args != NULL ? args->n : 0};
    t->guard++;
    sink_state(this_thread(), &s);
    t->guard--;
    errno = saved;
}

static pid_t trace_pid;

void trace_core_set_pid(void)
{
    __atomic_store_n(&trace_pid, getpid(), __ATOMIC_RELAXED);
}

bool trace_vfork_check(void)
{
    if (getpid() != __atomic_load_n(&trace_pid, __ATOMIC_RELAXED)) {
        return true; /* the vfork child: memory is the parent's */
    }
    trace_self.vfork = 0;
    return false;
}

void trace_event(trace_fn fn, const trace_args *args)
{
    const int saved = errno;
    trace_tls *const t = &trace_self;
    if (t->guard != 0 || trace_vfork_child() ||
        __atomic_load_n(&trace_state, __ATOMIC_ACQUIRE) != TRACE_READY) {
        return;
    }
    t->guard++;
    sink_event(this_thread(), (uint32_t)fn, trace_now(), t->depth, args != NULL ? args->a : NULL,
               args != NULL ? args->n : 0);
    t->guard--;
    errno = saved;
}

/* The fork child's thread: its handle was the parent's sink's. */
void trace_core_after_fork(void);
void trace_core_after_fork(void)
{
    trace_self.thread = NULL;
    trace_self.depth = 0;
}
