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
 * The ways run in this order: the first touch of a process may cost more
 * than later ones (memory the host backs again), so a fair figure for one
 * way is a process of its own: a fourth argument names it.
 * Usage: bench_fresh_memory [SIZE_MIB [REPS [faults|populate|huge|huge2]]].
 * Bench: no libslog.
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

/* The seconds of way @p way (0 faults, 1 populate, 2 huge, 3 huge x2). */
static double touch_way(int way, size_t n)
{
    switch (way) {
    case 0:
        return touch_malloced(n);
    case 1:
        return touch_mapped(n, MADV_POPULATE_WRITE);
    case 2:
        return touch_mapped(n, MADV_HUGEPAGE);
    default:
        return touch_huge_two_threads(n);
    }
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"faults", "populate", "huge", "huge2"};
    const size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 640;
    const int reps = argc > 2 ? atoi(argv[2]) : 3;
    int only = -1;
    for (int w = 0; argc > 3 && w < 4; w++) {
        only = strcmp(argv[3], names[w]) == 0 ? w : only;
    }
    if (mib == 0 || reps <= 0 || (argc > 3 && only < 0)) {
        (void)fprintf(stderr, "usage: bench_fresh_memory [SIZE_MIB [REPS [faults|populate|huge|huge2]]]\n");
        return 2;
    }
    const size_t n = mib << 20;
    for (int r = 0; r < reps; r++) {
        printf("%zu MiB:", mib);
        for (int w = 0; w < 4; w++) { /* in this order: the first touch in a process costs most */
            if (only < 0 || only == w) {
                printf(" %s %.3f s", names[w], touch_way(w, n));
            }
        }
        printf("\n");
    }
    return 0;
}
