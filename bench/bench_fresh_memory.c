/* SPDX-License-Identifier: MIT
 *
 * bench_fresh_memory.c - what the first write to fresh memory costs on this
 * machine: the floor under any result that is new memory (a DataFrame's
 * columns, a decoded node).  Writes SIZE MiB (default 640, a 10^7-row
 * window's frame) three ways, REPS times each, and prints the seconds:
 *   faults    malloc'd, then touched: one page fault per 4 KiB page
 *   populate  mmap'd, MADV_POPULATE_WRITE, then touched (4 KiB pages, no traps)
 *   huge      mmap'd, advised MADV_HUGEPAGE, then touched (2 MiB pages)
 *   huge x2   the same, each half touched by a thread of its own (as the
 *             Python module's two readers fill their rows of the columns)
 * Usage: bench_fresh_memory [SIZE_MIB [REPS]].  Bench: no libslog.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

static double seconds(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Keep the compiler from dropping a write whose memory is then freed. */
static void keep(void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

static double touch_malloced(size_t n)
{
    const double t0 = seconds();
    char *p = malloc(n);
    if (p == NULL) {
        return -1;
    }
    memset(p, 1, n);
    keep(p);
    const double t = seconds() - t0;
    free(p);
    return t;
}

/* Map n bytes, apply @p advice (0: none), touch them; -1 when it fails. */
static double touch_mapped(size_t n, int advice)
{
    const double t0 = seconds();
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        return -1;
    }
    if (advice != 0 && madvise(p, n, advice) != 0) {
        (void)munmap(p, n);
        return -1;
    }
    memset(p, 1, n);
    keep(p);
    const double t = seconds() - t0;
    (void)munmap(p, n);
    return t;
}

typedef struct half {
    char *p;
    size_t n;
} half;

static void *touch_half(void *arg)
{
    const half *h = arg;
    memset(h->p, 1, h->n);
    return NULL;
}

/* Map n bytes in huge pages and touch each half from a thread of its own. */
static double touch_huge_two_threads(size_t n)
{
    const double t0 = seconds();
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        return -1;
    }
    (void)madvise(p, n, MADV_HUGEPAGE);
    half h[2] = {{p, n / 2}, {p + n / 2, n - n / 2}};
    pthread_t other;
    const int threaded = pthread_create(&other, NULL, touch_half, &h[1]) == 0;
    (void)touch_half(&h[0]);
    if (threaded) {
        (void)pthread_join(other, NULL);
    } else {
        (void)touch_half(&h[1]);
    }
    keep(p);
    const double t = seconds() - t0;
    (void)munmap(p, n);
    return t;
}

int main(int argc, char **argv)
{
    const size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 640;
    const int reps = argc > 2 ? atoi(argv[2]) : 3;
    if (mib == 0 || reps <= 0) {
        (void)fprintf(stderr, "usage: bench_fresh_memory [SIZE_MIB [REPS]]\n");
        return 2;
    }
    const size_t n = mib << 20;
    for (int r = 0; r < reps; r++) {
        printf("%zu MiB: faults %.3f s, populate %.3f s, huge %.3f s, huge x2 %.3f s\n", mib,
               touch_malloced(n), touch_mapped(n, MADV_POPULATE_WRITE),
               touch_mapped(n, MADV_HUGEPAGE), touch_huge_two_threads(n));
    }
    return 0;
}
