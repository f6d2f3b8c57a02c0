/* SPDX-License-Identifier: MIT
 *
 * trace_core.h - what every wrapper of the preload library shares: the
 * per-thread state (a guard that keeps the tracer's own I/O untraced, the
 * nesting depth, the thread's sink handle), the clock, the enter/leave
 * pair around a real call, args building, and resolving the real function
 * with dlsym(RTLD_NEXT).  A wrapper never changes what the program sees:
 * it returns the real call's result and the errno the real call left.
 * Layer: slog-trace preload library; public API only.
 */
#ifndef SLOG_TRACE_CORE_H
#define SLOG_TRACE_CORE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <slog/slog.h>

#include "trace_fn.h"
#include "trace_sink.h"

/* The calling thread's tracer state (static TLS: no allocation on access). */
typedef struct trace_tls {
    int guard;           /* > 0: the tracer itself runs here; calls go untraced */
    int vfork;           /* 1 from this thread's vfork until a call finds it is the
                            parent again (trace_vfork_child) */
    uint32_t depth;      /* traced calls open on this thread */
    sink_thread *thread; /* this thread's timeline, opened on its first record */
} trace_tls;

extern __thread trace_tls trace_self __attribute__((tls_model("initial-exec")));

/* Process states. */
enum {
    TRACE_OFF = 0,   /* not started, disabled, or finished */
    TRACE_READY = 1, /* recording */
    TRACE_CHILD = 2  /* a fork child: starts its own file on its first call */
};
extern int trace_state; /* accessed with __atomic builtins */

/* One traced call between trace_enter and trace_leave. */
typedef struct trace_call {
    int64_t start;
    uint32_t depth;
} trace_call;

/* Up to 10 args of one record. */
typedef struct trace_args {
    slog_arg a[10];
    uint32_t n;
} trace_args;

int64_t trace_now(void);

/* Start a process's file in a fork child; true when it is recording now. */
bool trace_start_child(void);

/* This process's pid, noted at start and in a fork child (not a vfork
 * child: vfork runs no fork handler). */
void trace_core_set_pid(void);

/* After a vfork: true in the child (it shares the parent's memory, thread
 * state included, until it execs or exits: it must record nothing and
 * change no table); in the parent it clears the flag and is false. */
bool trace_vfork_check(void);

static inline bool trace_vfork_child(void)
{
    return trace_self.vfork != 0 && trace_vfork_check();
}

/* True when this call is to be recorded: fills c (time, depth).  False:
 * call the real function and return its result untouched. */
static inline bool trace_enter(trace_call *c)
{
    trace_tls *const t = &trace_self;
    if (t->guard != 0 || trace_vfork_child()) {
        return false;
    }
    const int st = __atomic_load_n(&trace_state, __ATOMIC_ACQUIRE);
    if (st != TRACE_READY && !(st == TRACE_CHILD && trace_start_child())) {
        return false;
    }
    c->depth = t->depth++;
    c->start = trace_now();
    return true;
}

/* Record the call as a state of category fn ending now; errno is kept. */
void trace_leave(const trace_call *c, trace_fn fn, const trace_args *args);

/* Leave without recording (e.g. a call on the tracer's own files). */
static inline void trace_skip(const trace_call *c)
{
    trace_self.depth = c->depth;
}

/* Record a point event of category fn now; errno is kept. */
void trace_event(trace_fn fn, const trace_args *args);

static inline void targ_int(trace_args *t, const char *key, int64_t v)
{
    t->a[t->n].key = key;
    t->a[t->n].type = SLOG_ARG_INT;
    t->a[t->n++].v.i = v;
}

static inline void targ_uint(trace_args *t, const char *key, uint64_t v)
{
    t->a[t->n].key = key;
    t->a[t->n].type = SLOG_ARG_UINT;
    t->a[t->n++].v.u = v;
}

static inline void targ_str(trace_args *t, const char *key, const char *s)
{
    t->a[t->n].key = key;
    t->a[t->n].type = SLOG_ARG_STRING;
    t->a[t->n++].v.s = s != NULL ? s : "";
}

/* The result of a call that returns -1 and sets errno on failure:
 * "ret", and "errno" when it failed (err is the errno the call left). */
static inline void targ_result(trace_args *t, int64_t ret, int err)
{
    targ_int(t, "ret", ret);
    if (ret < 0) {
        targ_int(t, "errno", err);
    }
}

/* The next definition of name after this library (never NULL: aborts with
 * a message when libc lacks it). */
void *trace_resolve(const char *name);

/* The real function fn (looked up once, then cached). */
#define TRACE_REAL(fn)                                                                             \
    __extension__({                                                                                \
        static __typeof__(&(fn)) real_;                                                            \
        __typeof__(&(fn)) r_ = __atomic_load_n(&real_, __ATOMIC_RELAXED);                          \
        if (r_ == NULL) {                                                                          \
            r_ = (__typeof__(&(fn)))trace_resolve(#fn);                                            \
            __atomic_store_n(&real_, r_, __ATOMIC_RELAXED);                                        \
        }                                                                                          \
        r_;                                                                                        \
    })

/* The process's own bookkeeping around exec and _exit (trace_core.c). */
void trace_before_exec(void);
void trace_after_failed_exec(void);
void trace_before_exit(void);

/* Threads the tracer started (the timer, a writer's background) that still
 * run; atomic (trace_process_calls.c counts them). */
extern int trace_own_threads;

/* A descriptor on /proc/self/stat (-1: none), and whether it shows only
 * the tracer's threads left, the program's main thread and all others
 * ended (trace_process_alone.c). */
int trace_alone_open(void);
bool trace_alone(int fd);

/* Rename this process's timeline (MPI_Init gives the rank). */
void trace_rename_process(const char *prefix);

/* MPI_Init told this process its MPI_COMM_WORLD rank and size: one more
 * line of its file in DIR/manifest.jsonl (trace_process.c). */
void trace_note_rank(int rank, int size);

/* The program tried to replace the tracer's descriptor fd (dup2, dup3):
 * refused with EBADF; one line on stderr, once per process. */
void trace_refused_own(const char *call, int fd);

#endif /* SLOG_TRACE_CORE_H */
