/* SPDX-License-Identifier: MIT
 *
 * trace_process_calls.c - wrappers of the calls that change the process:
 * fork (recorded in the parent with the child's pid; the child starts its
 * own file), the exec family (an "exec" event, then the file is sealed;
 * when exec fails the process goes on in a new file), exit (an event; the
 * exit hook seals the file), _exit and _Exit (an event, then the file is
 * sealed: atexit handlers do not run there), kill of the process itself
 * and raise, when the signal ends it (a "kill" event, then the file is
 * sealed: Python ends so on an uncaught KeyboardInterrupt),
 * vfork (not recorded: it raises the thread's vfork flag, so that the
 * child, which runs on the parent's memory until it execs or exits,
 * records nothing; trace_core.h), and pthread_create (a thread created
 * while the tracer runs, e.g. a writer's background thread, never records:
 * its I/O is the tracer's own; such threads are counted in trace_own_threads).
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace_core.h"

pid_t fork(void)
{
    trace_call c;
    const bool traced = trace_enter(&c);
    const pid_t p = TRACE_REAL(fork)();
    if (p != 0 && traced) {
        const int err = errno;
        trace_args a = {.n = 0};
        targ_result(&a, p, err);
        trace_leave(&c, TRACE_FN_FORK, &a);
    }
    return p;
}

#if defined(__x86_64__)
/* vfork's child returns on the parent's stack, so no frame of ours may lie
 * between the program and the C library's vfork (the child would return
 * through it and the parent find it overwritten): vfork raises the flag in
 * a call that has returned, then jumps to the real vfork, which returns to
 * the program directly. */
typedef pid_t vfork_fn(void);
__attribute__((used, visibility("hidden"))) vfork_fn *trace_vfork_begin(void);
vfork_fn *trace_vfork_begin(void)
{
    trace_self.vfork = 1;
    return TRACE_REAL(vfork);
}

__asm__(".text\n"
        ".globl vfork\n"
        ".type vfork, @function\n"
        "vfork:\n"
        "\t.cfi_startproc\n"
        "\tendbr64\n"
        "\tsubq $8, %rsp\n"
        "\t.cfi_adjust_cfa_offset 8\n"
        "\tcall trace_vfork_begin\n"
        "\taddq $8, %rsp\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\tjmp *%rax\n"
        "\t.cfi_endproc\n"
        ".size vfork, .-vfork\n");
#endif

static void exec_event(const char *path)
{
    trace_args a = {.n = 0};
    targ_str(&a, "path", path);
    trace_event(TRACE_FN_EXEC, &a);
    trace_before_exec();
}

int execve(const char *path, char *const argv[], char *const envp[])
{
    exec_event(path);
    const int r = TRACE_REAL(execve)(path, argv, envp);
    trace_after_failed_exec();
    return r;
}

int execv(const char *path, char *const argv[])
{
    exec_event(path);
    const int r = TRACE_REAL(execv)(path, argv);
    trace_after_failed_exec();
    return r;
}

int execvp(const char *file, char *const argv[])
{
    exec_event(file);
    const int r = TRACE_REAL(execvp)(file, argv);
    trace_after_failed_exec();
    return r;
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
    exec_event(file);
    const int r = TRACE_REAL(execvpe)(file, argv, envp);
    trace_after_failed_exec();
    return r;
}

int fexecve(int fd, char *const argv[], char *const envp[])
{
    exec_event("");
    const int r = TRACE_REAL(fexecve)(fd, argv, envp);
    trace_after_failed_exec();
    return r;
}

/* execl, execlp, execle: the list as an argv array (on the stack up to
 * 127 args, else allocated), then the v form; envp is the execle's. */
#define EXECL_MAX 128

/* The first arg as an argv entry: the exec functions take char *const[]
 * but never write through it (glibc's execl casts the const away too). */
static char *execl_first(const char *arg)
{
    const union {
        const char *in;
        char *out;
    } u = {.in = arg};
    return u.out;
}

#define EXECL_BODY(call, first, with_env)                                                          \
    va_list ap;                                                                                    \
    size_t n = 1;                                                                                  \
    va_start(ap, first);                                                                           \
    while (va_arg(ap, char *) != NULL) {                                                           \
        n++;                                                                                       \
    }                                                                                              \
    va_end(ap);                                                                                    \
    char *small[EXECL_MAX];                                                                        \
    char **argv = n < EXECL_MAX ? small : malloc((n + 1) * sizeof *argv);                          \
    if (argv == NULL) {                                                                            \
        errno = ENOMEM;                                                                            \
        return -1;                                                                                 \
    }                                                                                              \
    char *const *envp = NULL;                                                                      \
    va_start(ap, first);                                                                           \
    argv[0] = execl_first(first);                                                                  \
    for (size_t i = 1; i <= n; i++) {                                                              \
        argv[i] = va_arg(ap, char *);                                                              \
    }                                                                                              \
    if (with_env) {                                                                                \
        envp = va_arg(ap, char *const *);                                                          \
    }                                                                                              \
    va_end(ap);                                                                                    \
    (void)envp;                                                                                    \
    const int r = (call);                                                                          \
    const int err = errno;                                                                         \
    if (argv != small) {                                                                           \
        free(argv);                                                                                \
    }                                                                                              \
    errno = err;                                                                                   \
    return r

int execl(const char *path, const char *arg, ...)
{
    EXECL_BODY(execv(path, argv), arg, false);
}

int execlp(const char *file, const char *arg, ...)
{
    EXECL_BODY(execvp(file, argv), arg, false);
}

int execle(const char *path, const char *arg, ...)
{
    EXECL_BODY(execve(path, argv, envp), arg, true);
}

static void exit_event(int status)
{
    trace_args a = {.n = 0};
    targ_int(&a, "status", status);
    trace_event(TRACE_FN_EXIT, &a);
    trace_before_exit();
}

/* exit() as the program calls it (a rank that leaves before MPI_Finalize
 * showed no reason): an event; the exit hook seals the file after it.  A
 * return from main reaches exit inside the C library, unseen. */
void exit(int status)
{
    trace_args a = {.n = 0};
    targ_int(&a, "status", status);
    trace_event(TRACE_FN_EXIT_CALL, &a);
    TRACE_REAL(exit)(status);
    __builtin_unreachable();
}

void _exit(int status)
{
    exit_event(status);
    TRACE_REAL(_exit)(status);
    __builtin_unreachable();
}

void _Exit(int status)
{
    exit_event(status);
    TRACE_REAL(_Exit)(status);
    __builtin_unreachable();
}

/* True when sig, sent to this process now, ends it and the file may be
 * sealed first: a signal whose default action terminates without a core
 * (a crash handler re-raising SIGSEGV or SIGABRT must not flush: a crash
 * inside malloc would hang), left at that default, not blocked in this
 * thread (a handler re-raising its own signal has it blocked, and the
 * signal waits for the handler's return), and not sent from inside the
 * tracer (a handler that interrupted a recording). */
static bool signal_ends_process(int sig)
{
    static const int ending[] = {SIGHUP, SIGINT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2};
    bool listed = false;
    for (size_t i = 0; i < sizeof ending / sizeof ending[0]; i++) {
        listed = listed || ending[i] == sig;
    }
    struct sigaction sa;
    sigset_t blocked;
    return listed && trace_self.guard == 0 && sigaction(sig, NULL, &sa) == 0 &&
           (sa.sa_flags & SA_SIGINFO) == 0 && sa.sa_handler == SIG_DFL &&
           pthread_sigmask(SIG_BLOCK, NULL, &blocked) == 0 && sigismember(&blocked, sig) == 0;
}

/* Before a signal that ends the process: a "kill" event, then the seal
 * (the process dies there, as at _exit, its exit hook unrun). */
static void signal_event(int sig)
{
    const int saved = errno;
    if (signal_ends_process(sig)) {
        trace_args a = {.n = 0};
        targ_int(&a, "signal", sig);
        trace_event(TRACE_FN_KILL, &a);
        trace_before_exit();
    }
    errno = saved;
}

int kill(pid_t pid, int sig)
{
    if (pid == getpid()) {
        signal_event(sig);
    }
    return TRACE_REAL(kill)(pid, sig);
}

int raise(int sig)
{
    signal_event(sig);
    return TRACE_REAL(raise)(sig);
}

typedef struct guarded_start {
    void *(*fn)(void *);
    void *arg;
} guarded_start;

static void *guarded_main(void *p)
{
    const guarded_start s = *(guarded_start *)p;
    free(p);
    trace_self.guard++;
    void *const r = s.fn(s.arg);
    __atomic_sub_fetch(&trace_own_threads, 1, __ATOMIC_ACQ_REL);
    return r;
}

typedef int pthread_create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static pthread_create_fn *real_pthread_create(void)
{
    static pthread_create_fn *real;
    pthread_create_fn *f = __atomic_load_n(&real, __ATOMIC_RELAXED);
    if (f == NULL) {
        void *p = dlvsym(RTLD_NEXT, "pthread_create", "GLIBC_2.34");
        f = __extension__(pthread_create_fn *)(p != NULL ? p : trace_resolve("pthread_create"));
        __atomic_store_n(&real, f, __ATOMIC_RELAXED);
    }
    return f;
}

int pthread_create(pthread_t *newthread, const pthread_attr_t *attr,
                   void *(*start_routine)(void *), void *arg)
{
    if (trace_self.guard == 0) {
        return real_pthread_create()(newthread, attr, start_routine, arg);
    }
    guarded_start *s = malloc(sizeof *s);
    if (s == NULL) {
        return EAGAIN;
    }
    s->fn = start_routine;
    s->arg = arg;
    __atomic_add_fetch(&trace_own_threads, 1, __ATOMIC_ACQ_REL);
    const int r = real_pthread_create()(newthread, attr, guarded_main, s);
    if (r != 0) {
        __atomic_sub_fetch(&trace_own_threads, 1, __ATOMIC_ACQ_REL);
        free(s);
    }
    return r;
}
