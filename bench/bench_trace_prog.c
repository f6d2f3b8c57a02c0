/* SPDX-License-Identifier: MIT
 *
 * bench_trace_prog.c - the two workloads bench_trace.py runs with and
 * without slog-trace:
 *     bench_trace_prog io N DIR     N/2 writes then N/2 preads of 64 bytes on
 *                                   one file in DIR (N calls in all)
 *     bench_trace_prog compute N    N rounds of an integer mixing loop and
 *                                   a few calls (open, write, close)
 * It prints a checksum so the work cannot be optimised away.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int io_run(long n, const char *dir)
{
    char path[4096];
    char buf[64];
    (void)snprintf(path, sizeof path, "%s/bench_trace.dat", dir);
    const int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    memset(buf, 'b', sizeof buf);
    uint64_t sum = 0;
    for (long i = 0; i < n / 2; i++) {
        sum += (uint64_t)write(fd, buf, sizeof buf);
    }
    for (long i = 0; i < n / 2; i++) {
        sum += (uint64_t)pread(fd, buf, sizeof buf, (off_t)((i * 64) % (n / 2 * 64)));
    }
    (void)close(fd);
    (void)unlink(path);
    printf("io %ld calls, %" PRIu64 " bytes\n", n, sum);
    return 0;
}

static int compute_run(long n)
{
    uint64_t x = 88172645463325252u;
    for (long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    const int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0) {
        (void)!write(fd, &x, sizeof x);
        (void)close(fd);
    }
    printf("compute %ld rounds, %" PRIx64 "\n", n, x);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "io") == 0) {
        return io_run(strtol(argv[2], NULL, 10), argc > 3 ? argv[3] : "/tmp");
    }
    if (argc >= 3 && strcmp(argv[1], "compute") == 0) {
        return compute_run(strtol(argv[2], NULL, 10));
    }
    (void)fprintf(stderr, "usage: bench_trace_prog io N DIR | compute N\n");
    return 2;
}
