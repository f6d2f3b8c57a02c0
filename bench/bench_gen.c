/* SPDX-License-Identifier: MIT
 *
 * bench_gen.c - synthetic nested states for the benchmarks (see
 * bench_gen.h) and small helpers: clock, median, disk usage, removal.
 */
#define _XOPEN_SOURCE 700
#include "bench_gen.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t bgen_next(bgen *g)
{
    uint64_t z = (g->rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

int bgen_init(bgen *g, uint64_t states, uint32_t timelines, uint32_t categories, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->rng = seed;
    g->ntl = timelines;
    g->ncat = categories;
    g->max_depth = BGEN_MAX_DEPTH;
    g->target = states;
    g->depth = calloc(timelines, sizeof *g->depth);
    g->stack = calloc((size_t)timelines * BGEN_MAX_DEPTH, sizeof *g->stack);
    if (!g->depth || !g->stack) {
        bgen_free(g);
        return -1;
    }
    return 0;
}

void bgen_free(bgen *g)
{
    free(g->depth);
    free(g->stack);
    g->depth = NULL;
    g->stack = NULL;
}

static void bgen_leave(bgen *g, uint32_t tl, bgen_op *op)
{
    const uint32_t d = --g->depth[tl];
    const bgen_frame *f = &g->stack[(size_t)tl * BGEN_MAX_DEPTH + d];
    *op = (bgen_op){tl, f->cat, d, 1, g->now, f->start};
    g->states++;
}

size_t bgen_fill(bgen *g, bgen_op *ops, size_t cap)
{
    size_t n = 0;
    while (n < cap) {
        const uint64_t r = bgen_next(g);
        g->now += 1 + (int64_t)(r & 15);
        if (g->closing || g->states >= g->target) {
            /* Drain: close every open call, timeline by timeline. */
            g->closing = 1;
            while (g->closing <= g->ntl && g->depth[g->closing - 1] == 0) {
                g->closing++;
            }
            if (g->closing > g->ntl) {
                break;
            }
            bgen_leave(g, g->closing - 1, &ops[n++]);
            continue;
        }
        const uint32_t tl = (uint32_t)((r >> 8) % g->ntl);
        const uint32_t d = g->depth[tl];
        /* Enter with probability 1/2 (always at depth 0, never at the max). */
        const int enter = d == 0 || (d < g->max_depth && ((r >> 40) & 1));
        if (enter) {
            /* Categories: half the calls go to 4 hot ones, the rest uniform. */
            const uint64_t c = r >> 41;
            bgen_frame *f = &g->stack[(size_t)tl * BGEN_MAX_DEPTH + d];
            f->start = g->now;
            f->cat = (c & 1) ? (uint32_t)((c >> 1) % 4 % g->ncat) : (uint32_t)((c >> 1) % g->ncat);
            g->depth[tl] = d + 1;
            ops[n++] = (bgen_op){tl, f->cat, d, 0, g->now, g->now};
        } else {
            bgen_leave(g, tl, &ops[n++]);
        }
    }
    return n;
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *v, size_t n)
{
    if (n == 0) {
        return 0.0;
    }
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static uint64_t disk_total;

static int disk_add(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)p;
    (void)ftw;
    if (flag == FTW_F) {
        disk_total += (uint64_t)sb->st_size;
    }
    return 0;
}

uint64_t bench_disk_bytes(const char *path)
{
    disk_total = 0;
    nftw(path, disk_add, 16, FTW_PHYS);
    return disk_total;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

void bench_remove(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    }
}

uint64_t bench_parse_count(const char *s)
{
    char *end = NULL;
    const double v = strtod(s, &end);
    double mul = 1.0;
    if (end && *end == 'k') {
        mul = 1e3;
        end++;
    } else if (end && *end == 'M') {
        mul = 1e6;
        end++;
    } else if (end && *end == 'G') {
        mul = 1e9;
        end++;
    }
    if (!end || end == s || *end != '\0' || v < 0 || v * mul > 1e15) {
        fprintf(stderr, "bad count: %s\n", s);
        exit(2);
    }
    return (uint64_t)(v * mul + 0.5);
}

/* What a forked run reports to its parent. */
typedef struct forked_result {
    int rc;
    double out[4];
} forked_result;

int bench_forked(int (*fn)(void *ctx, double out[4]), void *ctx, double out[4])
{
    int fd[2];
    if (pipe(fd) != 0) {
        return -1;
    }
    (void)fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        (void)close(fd[0]);
        forked_result r = {0, {0, 0, 0, 0}};
        r.rc = fn(ctx, r.out);
        _exit(write(fd[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
    }
    (void)close(fd[1]);
    forked_result r = {-1, {0, 0, 0, 0}};
    const ssize_t got = pid > 0 ? read(fd[0], &r, sizeof r) : -1;
    (void)close(fd[0]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || got != (ssize_t)sizeof r ||
        !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return -1;
    }
    memcpy(out, r.out, sizeof r.out);
    return r.rc;
}

/* The value of a one-number file, or -1. */
static long long read_number(const char *path)
{
    FILE *const f = fopen(path, "r");
    long long v = -1;
    if (f != NULL) {
        if (fscanf(f, "%lld", &v) != 1) {
            v = -1;
        }
        fclose(f);
    }
    return v;
}

void bench_print_host(const char *when)
{
    static long long reported_before = -1;
    double l[3] = {0, 0, 0};
    if (getloadavg(l, 3) != 3) {
        l[0] = l[1] = l[2] = -1;
    }
    printf("host %s: load average %.2f %.2f %.2f, nproc %ld", when, l[0], l[1], l[2],
           sysconf(_SC_NPROCESSORS_ONLN));
    const char *const dir = "/sys/module/page_reporting/parameters";
    char path[128];
    snprintf(path, sizeof path, "%s/reported_kib", dir);
    const long long reported = read_number(path);
    snprintf(path, sizeof path, "%s/min_free_ms", dir);
    const long long min_free = read_number(path);
    if (reported < 0) {
        printf(", no free page reporting\n");
        return;
    }
    printf(", free page reporting: min_free_ms %lld", min_free);
    if (reported_before >= 0) {
        printf(", %.0f MiB reported since the start", (double)(reported - reported_before) / 1024);
    }
    printf("\n");
    reported_before = reported;
}
