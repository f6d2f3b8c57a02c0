/* SPDX-License-Identifier: MIT
 *
 * trace_prog.c - the program slog-trace's tests trace: it makes known
 * calls with known arguments in a directory, so that the test can find
 * each of them in the trace with its args.
 *     trace_prog calls DIR    POSIX and stdio calls, a failing open (errno
 *                             checked after it), 2 threads, a fork child
 *     trace_prog exit N       a few calls, then exit(N)
 *     trace_prog _exit N      a few calls, then _exit(N)
 *     trace_prog crash DIR    the calls of `calls` (no threads, no fork),
 *                             then waits for a line on stdin and crashes
 *                             with SIGSEGV (a NULL store)
 *     trace_prog wait DIR     the same, then waits for a line and exits 0
 *                             (the test kills it with SIGKILL first)
 * Exit status: 0, or 10-19 when a call did not behave as without tracing
 * (a result, or errno: left alone by successful calls, ENOENT after the
 * failing open).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[1024];

static void path_of(char *out, size_t size, const char *name)
{
    (void)snprintf(out, size, "%s/%s", dir, name);
}

static int posix_calls(void)
{
    char path[1200];
    char buf[4096];
    path_of(path, sizeof path, "posix.dat");
    errno = 0; /* a successful call leaves errno alone: so must the tracer */
    const int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    memset(buf, 'x', sizeof buf);
    if (fd < 0 || write(fd, buf, 4096) != 4096 || errno != 0 || pwrite(fd, buf, 100, 8192) != 100 ||
        lseek(fd, 0, SEEK_SET) != 0 || read(fd, buf, 4096) != 4096 ||
        pread(fd, buf, 100, 8192) != 100 || fsync(fd) != 0 || fdatasync(fd) != 0) {
        return 11;
    }
    void *map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
    struct stat st;
    if (map == MAP_FAILED || munmap(map, 4096) != 0 || fstat(fd, &st) != 0 ||
        st.st_size != 8292 || stat(path, &st) != 0 || lstat(path, &st) != 0 || close(fd) != 0) {
        return 12;
    }
    printf("posix fd=%d\n", fd);
    return 0;
}

static int stdio_calls(void)
{
    char path[1200];
    char buf[1000];
    path_of(path, sizeof path, "stdio.dat");
    FILE *f = fopen(path, "w+");
    memset(buf, 'y', sizeof buf);
    if (f == NULL || fwrite(buf, 1, 1000, f) != 1000 || fseek(f, 0, SEEK_SET) != 0 ||
        fread(buf, 1, 1000, f) != 1000) {
        return 13;
    }
    printf("stdio fd=%d\n", fileno(f));
    return fclose(f) == 0 ? 0 : 14;
}

/* A failing call: the program must see the errno the C library set. */
static int failing_call(void)
{
    char path[1200];
    path_of(path, sizeof path, "missing/none.dat");
    errno = 0;
    const int fd = open(path, O_RDONLY);
    return fd == -1 && errno == ENOENT ? 0 : 15;
}

static void *thread_main(void *arg)
{
    char path[1200];
    char name[32];
    (void)snprintf(name, sizeof name, "thread%d.dat", (int)(intptr_t)arg);
    path_of(path, sizeof path, name);
    const int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    const int ok = fd >= 0 && write(fd, name, 7) == 7 && close(fd) == 0;
    return ok ? NULL : (void *)1;
}

static int threads_and_fork(void)
{
    pthread_t th[2];
    void *res[2] = {NULL, NULL};
    for (intptr_t i = 0; i < 2; i++) {
        if (pthread_create(&th[i], NULL, thread_main, (void *)(i + 1)) != 0) {
            return 16;
        }
    }
    for (int i = 0; i < 2; i++) {
        (void)pthread_join(th[i], &res[i]);
    }
    if (res[0] != NULL || res[1] != NULL) {
        return 17;
    }
    fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
        char path[1200];
        path_of(path, sizeof path, "child.dat");
        const int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        _exit(fd >= 0 && write(fd, "child", 5) == 5 && close(fd) == 0 ? 0 : 1);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        return 18;
    }
    printf("child pid=%d\n", (int)child);
    return 0;
}

static int calls(bool more)
{
    int rc = posix_calls();
    rc = rc != 0 ? rc : stdio_calls();
    rc = rc != 0 ? rc : failing_call();
    return rc != 0 || !more ? rc : threads_and_fork();
}

/* Wait for a line on stdin (the test has seen the calls in the trace). */
static void wait_for_go(void)
{
    char line[16];
    fflush(stdout);
    (void)!read(0, line, sizeof line);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        (void)fprintf(stderr, "usage: trace_prog calls|crash|wait DIR | exit|_exit N\n");
        return 2;
    }
    const char *mode = argv[1];
    (void)snprintf(dir, sizeof dir, "%s", argv[2]);
    if (strcmp(mode, "exit") == 0 || strcmp(mode, "_exit") == 0) {
        (void)snprintf(dir, sizeof dir, "%s", ".");
        const int n = atoi(argv[2]);
        struct stat st;
        (void)stat(".", &st);
        fflush(stdout);
        if (mode[0] == '_') {
            _exit(n);
        }
        exit(n);
    }
    const int rc = calls(strcmp(mode, "calls") == 0);
    if (rc != 0 || strcmp(mode, "calls") == 0) {
        return rc;
    }
    wait_for_go();
    if (strcmp(mode, "crash") == 0) {
        volatile int *volatile nowhere = NULL; /* a real SIGSEGV, not a compiler trap */
        *nowhere = 1;
    }
    return 0;
}
