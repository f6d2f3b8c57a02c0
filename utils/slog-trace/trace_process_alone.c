/* SPDX-License-Identifier: MIT
 *
 * trace_process_alone.c - whether only the tracer's own threads are left.
 * POSIX ends a process with exit(0) when its last thread ends, and a
 * program whose main thread calls pthread_exit relies on it; but the C
 * library counts every thread, the tracer's too (the flush timer, a
 * threaded writer's background), and those never end, so the traced
 * process went on forever once the program's threads had ended.  The
 * timer asks here at each tick and calls exit(0) itself.  The test reads
 * /proc/self/stat through a descriptor the timer keeps (a new descriptor
 * per tick could take a number the program's next open expects): only
 * after the main thread ended (the leader's state is Z) do the other
 * threads count, all of them the tracer's when num_threads - 1 is at most
 * trace_own_threads.
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trace_core.h"

int trace_own_threads;

int trace_alone_open(void)
{
    return open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
}

/* The leader's state and the process's thread count from /proc/PID/stat
 * (fields 3 and 20; the name in field 2 may hold spaces and parentheses).
 * False when it cannot be read. */
static bool read_stat(int fd, char *state, long *threads)
{
    char buf[1024];
    const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) {
        return false;
    }
    buf[n] = '\0';
    const char *const end = strrchr(buf, ')');
    return end != NULL && sscanf(end + 1,
                                 " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
                                 "%*s %*s %ld",
                                 state, threads) == 2;
}

bool trace_alone(int fd)
{
    char state = '\0';
    long threads = 0;
    if (fd < 0 || !read_stat(fd, &state, &threads) || state != 'Z') {
        return false;
    }
    return threads - 1 <= __atomic_load_n(&trace_own_threads, __ATOMIC_ACQUIRE);
}
