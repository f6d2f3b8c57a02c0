/* SPDX-License-Identifier: MIT
 *
 * trace_process.c - one trace file per process: started by the library's
 * constructor (or, in a fork child, on its first traced call), named
 * DIR/<host>-<pid>.slog (DIR/<host>-<pid>.<n>.slog when a file of that pid
 * exists: after an exec), listed with one line in DIR/manifest.jsonl,
 * flushed by a timer thread every SLOG_TRACE_FLUSH_MS (default 1000) and
 * sealed at exit, before exec and in _exit.  After fork the child forgets
 * the parent's writer and points the tracer's descriptors (trace_fdtab.h)
 * at /dev/null, so that nothing in the child (HDF5's exit handler included)
 * can write the parent's file; a child that exits before recording
 * anything leaves no file.
 * Layer: slog-trace preload library; public API only.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#include "trace_core.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_fdtab.h"

void trace_core_after_fork(void);

static struct {
    char dir[PATH_MAX];
    char path[PATH_MAX];  /* the current file */
    char file[NAME_MAX + 1];
    pid_t owner;          /* the process that writes path */
    long flush_ms;
    bool exit_hook;
    bool timer_running;
    bool refusal_said;    /* trace_refused_own said it */
} proc;

const char *trace_dir(void)
{
    return proc.dir;
}

/* Reserve DIR/<host>-<pid>[.<n>].slog: the first name not taken. */
static int reserve_file(void)
{
    char host[HOST_NAME_MAX + 1] = "host";
    (void)gethostname(host, sizeof host);
    host[HOST_NAME_MAX] = '\0';
    for (int n = 0; n < 1000; n++) {
        char suffix[16] = "";
        if (n > 0) {
            (void)snprintf(suffix, sizeof suffix, ".%d", n);
        }
        (void)snprintf(proc.file, sizeof proc.file, "%s-%ld%s.slog", host, (long)getpid(),
                       suffix);
        if (snprintf(proc.path, sizeof proc.path, "%s/%s", proc.dir, proc.file) >=
            (int)sizeof proc.path) {
            return -1;
        }
        const int fd = open(proc.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            (void)close(fd);
            return 0;
        }
        if (errno != EEXIST) {
            return -1;
        }
    }
    return -1;
}

/* Copy s into out as the inside of a JSON string, cut to fit size bytes. */
static void trace_json_escape(char *out, size_t size, const char *s)
{
    size_t o = 0;
    for (; s != NULL && *s != '\0' && o + 7 < size; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c < 0x20) {
            o += (size_t)snprintf(out + o, size - o, "\\u%04x", c);
        } else {
            out[o++] = (char)c;
        }
    }
    out[o < size ? o : size - 1] = '\0';
}

/* Append a line of n bytes (snprintf's count, into size bytes) to
 * DIR/manifest.jsonl; O_APPEND, since the processes of a job share it. */
static void append_manifest(const char *line, int n, size_t size)
{
    char path[PATH_MAX + 32];
    (void)snprintf(path, sizeof path, "%s/manifest.jsonl", proc.dir);
    const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
        if (n > 0 && (size_t)n < size) {
            (void)!write(fd, line, (size_t)n);
        }
        (void)close(fd);
    }
}

/* Append one JSON line about this file to DIR/manifest.jsonl. */
static void write_manifest(int64_t start)
{
    char prog[256];
    char line[1024];
    trace_json_escape(prog, sizeof prog, program_invocation_short_name);
    const int n = snprintf(line, sizeof line,
                           "{\"file\":\"%s\",\"pid\":%ld,\"ppid\":%ld,\"program\":\"%s\","
                           "\"start_ns\":%lld}\n",
                           proc.file, (long)getpid(), (long)getppid(), prog, (long long)start);
    append_manifest(line, n, sizeof line);
}

void trace_note_rank(int rank, int size)
{
    if (__atomic_load_n(&trace_state, __ATOMIC_ACQUIRE) != TRACE_READY) {
        return;
    }
    char line[512];
    const int n = snprintf(line, sizeof line,
                           "{\"file\":\"%s\",\"pid\":%ld,\"world_rank\":%d,\"world_size\":%d}\n",
                           proc.file, (long)getpid(), rank, size);
    trace_self.guard++; /* the manifest is the tracer's own file */
    append_manifest(line, n, sizeof line);
    trace_self.guard--;
}

/* The flush timer; also (every second with --flush 0) ends the process as
 * the C library would have when the program's last thread ended, which its
 * count of threads, ours included, keeps from happening. */
static void *timer_main(void *unused)
{
    (void)unused;
    trace_self.guard++; /* this thread never records */
    const pid_t me = getpid();
    const long ms = proc.flush_ms > 0 ? proc.flush_ms : 1000;
    const struct timespec period = {ms / 1000, (ms % 1000) * 1000000};
    const int stat_fd = trace_alone_open();
    for (;;) {
        (void)nanosleep(&period, NULL);
        if (__atomic_load_n(&trace_state, __ATOMIC_ACQUIRE) != TRACE_READY || proc.owner != me) {
            break;
        }
        if (trace_alone(stat_fd)) {
            exit(0);
        }
        if (proc.flush_ms > 0) {
            sink_flush();
        }
    }
    if (stat_fd >= 0) {
        (void)close(stat_fd);
    }
    proc.timer_running = false;
    return NULL;
}

/* The timer, with every signal blocked (the program's signals never land
 * on the tracer's thread). */
static void start_timer(void)
{
    if (proc.timer_running) {
        return;
    }
    sigset_t all, old;
    (void)sigfillset(&all);
    (void)pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t th;
    pthread_attr_t attr;
    (void)pthread_attr_init(&attr);
    (void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    proc.timer_running = pthread_create(&th, &attr, timer_main, NULL) == 0;
    (void)pthread_attr_destroy(&attr);
    (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void at_exit(void)
{
    trace_before_exit();
}

void trace_rename_process(const char *prefix)
{
    char name[512];
    (void)snprintf(name, sizeof name, "%s%s pid %ld", prefix, program_invocation_short_name,
                   (long)getpid());
    trace_self.guard++;
    sink_rename_process(name);
    trace_self.guard--;
}

/* One line on stderr: "slog-trace: WHAT WHERE (pid N ...)". */
static void say(const char *what, const char *where, const char *outcome)
{
    char line[PATH_MAX + 128];
    const int n = snprintf(line, sizeof line, "slog-trace: %s %s (pid %ld %s)\n", what, where,
                           (long)getpid(), outcome);
    if (n > 0) {
        (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }
}

/* When this process goes untraced the tracer says so rather than leave a
 * silently missing file; the program goes on. */
static void cannot_trace(const char *what, const char *where)
{
    say(what, where, "not traced");
}

void trace_refused_own(const char *call, int fd)
{
    if (__atomic_exchange_n(&proc.refusal_said, true, __ATOMIC_RELAXED)) {
        return;
    }
    char what[96];
    (void)snprintf(what, sizeof what, "%s onto descriptor %d (the trace file's) refused with",
                   call, fd);
    trace_self.guard++;
    say(what, "EBADF", "still traced");
    trace_self.guard--;
}

/* Open this process's file and start recording (guard held by the caller). */
static void start_process(void)
{
    if (reserve_file() != 0) {
        cannot_trace("cannot create a file in", proc.dir);
        return;
    }
    const int64_t start = trace_now();
    char name[512];
    (void)snprintf(name, sizeof name, "%s pid %ld", program_invocation_short_name,
                   (long)getpid());
    if (sink_open(proc.path, name, trace_fn_categories, TRACE_FN_COUNT) != 0) {
        (void)unlink(proc.path); /* reserved by us: no empty file is left behind */
        cannot_trace("cannot write", proc.path);
        return;
    }
    proc.owner = getpid();
    write_manifest(start);
    if (!proc.exit_hook) {
        /* registered after HDF5's own exit handler, so it runs before it */
        proc.exit_hook = atexit(at_exit) == 0;
    }
    __atomic_store_n(&trace_state, TRACE_READY, __ATOMIC_RELEASE);
    start_timer();
}

static bool read_config(void)
{
    const char *dir = getenv("SLOG_TRACE_DIR");
    if (dir == NULL || dir[0] == '\0' || strlen(dir) >= sizeof proc.dir - 64) {
        return false;
    }
    (void)snprintf(proc.dir, sizeof proc.dir, "%s", dir);
    const char *ms = getenv("SLOG_TRACE_FLUSH_MS");
    proc.flush_ms = ms != NULL ? strtol(ms, NULL, 10) : 1000;
    (void)mkdir(proc.dir, 0755);
    return true;
}

static void fork_prepare(void)
{
    trace_self.guard++;
    sink_fork_prepare();
}

static void fork_parent(void)
{
    sink_fork_release();
    trace_self.guard--;
}

/* The parent's file must never be written from here: the tracer's
 * descriptors now point at /dev/null, and stay the tracer's (HDF5 in this
 * process still thinks it has the parent's file open, and its exit handler
 * writes and closes them). */
static void fork_child(void)
{
    sink_fork_release();
    trace_core_set_pid();
    proc.refusal_said = false;
    if (__atomic_load_n(&trace_state, __ATOMIC_ACQUIRE) == TRACE_READY) {
        sink_forget_after_fork();
        const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        for (int fd = fdtab_tracer_next(0, UINT_MAX); fd >= 0 && null_fd >= 0;
             fd = fdtab_tracer_next((unsigned)fd + 1, UINT_MAX)) {
            if (fd != null_fd) {
                (void)dup3(null_fd, fd, O_CLOEXEC);
            }
        }
        if (null_fd >= 0) {
            (void)close(null_fd);
        }
        proc.timer_running = false;
        __atomic_store_n(&trace_own_threads, 0, __ATOMIC_RELEASE); /* the parent's */
        trace_core_after_fork();
        __atomic_store_n(&trace_state, TRACE_CHILD, __ATOMIC_RELEASE);
    }
    trace_self.guard--;
}

bool trace_start_child(void)
{
    static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
    const int saved = errno;
    trace_self.guard++;
    pthread_mutex_lock(&start_lock);
    if (__atomic_load_n(&trace_state, __ATOMIC_ACQUIRE) == TRACE_CHILD) {
        __atomic_store_n(&trace_state, TRACE_OFF, __ATOMIC_RELEASE);
        start_process();
    }
    pthread_mutex_unlock(&start_lock);
    trace_self.guard--;
    errno = saved;
    return __atomic_load_n(&trace_state, __ATOMIC_ACQUIRE) == TRACE_READY;
}

/* Seal this process's file; a vfork child (same memory, other pid) must
 * leave it alone. */
static bool finish_if_owner(void)
{
    if (__atomic_load_n(&trace_state, __ATOMIC_ACQUIRE) != TRACE_READY ||
        proc.owner != getpid()) {
        return false;
    }
    const int saved = errno;
    trace_self.guard++;
    __atomic_store_n(&trace_state, TRACE_OFF, __ATOMIC_RELEASE);
    sink_finish();
    trace_self.guard--;
    errno = saved;
    return true;
}

static __thread bool finished_for_exec __attribute__((tls_model("initial-exec")));

void trace_before_exec(void)
{
    finished_for_exec = finish_if_owner();
}

void trace_after_failed_exec(void)
{
    if (finished_for_exec) {
        const int saved = errno;
        finished_for_exec = false;
        trace_self.guard++;
        start_process();
        trace_self.guard--;
        errno = saved;
    }
}

/* A fork child that recorded nothing ends without a file (HDF5's exit
 * handler, which runs after this, must not start one either). */
void trace_before_exit(void)
{
    int child = TRACE_CHILD;
    if (trace_vfork_child()) {
        return; /* the parent's state, not ours */
    }
    if (!__atomic_compare_exchange_n(&trace_state, &child, TRACE_OFF, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        (void)finish_if_owner();
    }
}

/* The names of the descriptors the process starts with (0, 1, 2: a
 * terminal, a pipe, a file...). */
static void name_inherited_fds(void)
{
    for (int fd = 0; fd < 3; fd++) {
        char link[32], target[PATH_MAX];
        (void)snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        const ssize_t n = readlink(link, target, sizeof target - 1);
        if (n > 0) {
            target[n] = '\0';
            fdtab_opened(fd, target);
        }
    }
}

__attribute__((constructor)) static void trace_init(void)
{
    trace_self.guard++;
    trace_core_set_pid();
    if (read_config()) {
        name_inherited_fds();
        start_process();
        /* After the writer's creation registered libslog's own handlers
         * (the HDF5 lock's, the threaded writer's): POSIX runs prepare
         * handlers in reverse order, so ours takes the sink's lock first,
         * in the order every recorded call takes them (sink, then HDF5).
         * The other order deadlocked a fork against a thread recording a
         * call whose append wrote a node. */
        (void)pthread_atfork(fork_prepare, fork_parent, fork_child);
    }
    trace_self.guard--;
}
