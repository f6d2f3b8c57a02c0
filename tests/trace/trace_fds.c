/* SPDX-License-Identifier: MIT
 *
 * trace_fds.c - the program trace_fd_test.py traces to check how the
 * tracer's own descriptors and the descriptor names behave (doc/TRACE.md,
 * "Guarantees" and "File names"); each mode prints what the test compares.
 *     trace_fds first          the first open's and dup's fds (fd=N dup=M)
 *     trace_fds closeall       writes, closes 3..1023, close_range and
 *                              closefrom from 3, then more writes
 *     trace_fds dup2own        dup2 onto fds 3..7, then dup2/dup3 onto the
 *                              tracer's own descriptor (found in
 *                              /proc/self/fd): "dup2=R errno=E dup3=R errno=E"
 *     trace_fds execfds        fork; the child execs `trace_fds listfds`
 *                              without the tracer's environment
 *     trace_fds listfds        one line per open fd: "N TARGET"
 *     trace_fds orphan         forks a child that writes, sleeps 1 s and
 *                              exit()s after the parent has returned
 *     trace_fds forkexit       20 fork children that only exit(3)
 *     trace_fds vfork          a vfork child opens /dev/null, writes and
 *                              execs /bin/true; then the parent reads a pipe
 *     trace_fds stale          fcntl F_DUPFD copy, close_range, closefrom,
 *                              then pipes reusing the numbers
 * Exit status: 0, or 10-19 when a call did not behave as untraced.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int first(void)
{
    const int fd = open("first.dat", O_CREAT | O_TRUNC | O_WRONLY, 0644);
    const int d = dup(fd);
    printf("fd=%d dup=%d\n", fd, d);
    return fd >= 0 && d >= 0 && close(d) == 0 && close(fd) == 0 ? 0 : 10;
}

static int writes(const char *what, int n)
{
    const int fd = open("/dev/null", O_WRONLY);
    for (int i = 0; i < n; i++) {
        if (write(fd, what, 1) != 1) {
            return 11;
        }
    }
    return close(fd) == 0 ? 0 : 11;
}

static int closeall(void)
{
    if (writes("a", 100) != 0) {
        return 11;
    }
    for (int i = 3; i < 1024; i++) {
        (void)close(i);
    }
    (void)close_range(3, ~0U, 0);
    closefrom(3);
    return writes("b", 100);
}

/* The tracer's descriptor: a link into $SLOG_TRACE_DIR. */
static int tracer_fd(void)
{
    const char *dir = getenv("SLOG_TRACE_DIR");
    for (int fd = 3; dir != NULL && fd < 4096; fd++) {
        char link[64], target[4096];
        (void)snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        const ssize_t n = readlink(link, target, sizeof target - 1);
        if (n > 0) {
            target[n] = '\0';
            if (strncmp(target, dir, strlen(dir)) == 0) {
                return fd;
            }
        }
    }
    return -1;
}

static int dup2own(void)
{
    const int fd = open("mine.txt", O_CREAT | O_TRUNC | O_WRONLY, 0644);
    for (int t = 3; t < 8; t++) {
        if (t != fd && dup2(fd, t) != t) {
            return 12;
        }
    }
    const int own = tracer_fd();
    if (own < 0) {
        return 13;
    }
    const int r2 = dup2(fd, own);
    const int e2 = errno;
    const int r3 = dup3(fd, own, O_CLOEXEC);
    const int e3 = errno;
    printf("dup2=%d errno=%d dup3=%d errno=%d\n", r2, e2, r3, e3);
    for (int t = 3; t < 8; t++) {
        (void)close(t);
    }
    return writes("c", 50);
}

static int listfds(void)
{
    for (int fd = 0; fd < 4096; fd++) {
        char link[64], target[4096];
        (void)snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        const ssize_t n = readlink(link, target, sizeof target - 1);
        if (n > 0) {
            target[n] = '\0';
            printf("%d %s\n", fd, target);
        }
    }
    return 0;
}

static const char *self; /* argv[0] */

static int execfds(void)
{
    fflush(stdout);
    const pid_t p = fork();
    if (p == 0) {
        char *const argv[] = {(char *)"trace_fds", (char *)"listfds", NULL};
        char *const envp[] = {NULL};
        execve(self, argv, envp);
        _exit(14);
    }
    int st = 0;
    return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 14;
}

static int orphan(void)
{
    const int fd = open("/dev/null", O_WRONLY);
    for (int i = 0; i < 1000; i++) {
        (void)!write(fd, "x", 1);
    }
    fflush(stdout);
    const pid_t p = fork();
    if (p == 0) {
        (void)!write(fd, "c", 1);
        (void)dup2(fd, 1); /* the test reads the parent's output to its end */
        (void)dup2(fd, 2);
        sleep(1);
        exit(0);
    }
    printf("child=%d\n", (int)p);
    for (int i = 0; i < 20000; i++) {
        (void)!write(fd, "y", 1);
    }
    return 0;
}

static int forkexit(void)
{
    for (int i = 0; i < 20; i++) {
        const pid_t p = fork();
        if (p == 0) {
            exit(3);
        }
        int st = 0;
        if (p < 0 || waitpid(p, &st, 0) != p || WEXITSTATUS(st) != 3) {
            return 15;
        }
    }
    return 0;
}

static int vforked(void)
{
    int st = 0;
    const pid_t v = vfork();
    if (v == 0) {
        const int fd = open("/dev/null", O_WRONLY);
        (void)!write(fd, "v", 1);
        execl("/bin/true", "true", (char *)NULL);
        _exit(9);
    }
    if (v < 0 || waitpid(v, &st, 0) != v || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        return 16;
    }
    int p[2];
    char b[8];
    if (pipe(p) != 0 || write(p[1], "pipe!", 5) != 5 || read(p[0], b, 5) != 5) {
        return 16;
    }
    printf("pid=%d child=%d pipe=%d\n", (int)getpid(), (int)v, p[0]);
    return 0;
}

/* A pipe's two ends, written and read once. */
static int pipe_io(int p[2])
{
    char b[8];
    return pipe(p) == 0 && write(p[1], "pipe!", 5) == 5 && read(p[0], b, 5) == 5 ? 0 : 17;
}

static int stale(void)
{
    const int fd = open("data.bin", O_CREAT | O_TRUNC | O_RDWR, 0644);
    const int d = fcntl(fd, F_DUPFD, 40);
    const int dc = fcntl(fd, F_DUPFD_CLOEXEC, 50);
    if (fd < 0 || d < 0 || dc < 0 || write(fd, "abc", 3) != 3 || write(d, "def", 3) != 3 ||
        write(dc, "ghi", 3) != 3) {
        return 17;
    }
    int p[2], q[2];
    (void)close_range((unsigned)fd, ~0U, 0); /* fd, d and dc */
    if (pipe_io(p) != 0) {
        return 17;
    }
    const int g = open("data2.bin", O_CREAT | O_TRUNC | O_RDWR, 0644);
    closefrom(g);
    if (pipe_io(q) != 0) {
        return 18;
    }
    printf("fd=%d d=%d dc=%d pipe=%d,%d g=%d pipe2=%d,%d\n", fd, d, dc, p[0], p[1], g, q[0], q[1]);
    return 0;
}

static const struct mode {
    const char *name;
    int (*run)(void);
} modes[] = {
    {"first", first},       {"closeall", closeall}, {"dup2own", dup2own},
    {"execfds", execfds},   {"listfds", listfds},   {"orphan", orphan},
    {"forkexit", forkexit}, {"vfork", vforked},     {"stale", stale},
};

int main(int argc, char **argv)
{
    self = argv[0];
    for (size_t i = 0; argc > 1 && i < sizeof modes / sizeof modes[0]; i++) {
        if (strcmp(argv[1], modes[i].name) == 0) {
            const int rc = modes[i].run();
            fflush(stdout);
            return rc;
        }
    }
    (void)fprintf(stderr, "usage: trace_fds MODE (see trace_fds.c)\n");
    return 2;
}
