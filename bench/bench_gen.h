/* SPDX-License-Identifier: MIT
 *
 * bench_gen.h - the synthetic states shared by the benchmarks, fed the same
 * way to libslog and to OTF2.  One global clock advances by 1..16 ticks per
 * operation; each operation picks a timeline at random and enters a call
 * (depth < max) or leaves the innermost one, a random walk that nests up to
 * max_depth levels.  Every operation has its own timestamp, so per-timeline
 * Enter/Leave order and global end order (libslog's optimal order) come for
 * free.  Memory is O(timelines x max_depth) whatever the number of states;
 * operations come in blocks so the caller can time only the writer calls.
 * Also: timing, medians, file sizes, peak RSS, and OTF2 helpers.
 */
#ifndef BENCH_GEN_H
#define BENCH_GEN_H

#include <stddef.h>
#include <stdint.h>

#define BGEN_MAX_DEPTH 8

typedef struct bgen_op {
    uint32_t tl;
    uint32_t cat;
    uint32_t depth;  /* depth of the state (0 outermost) */
    uint32_t leave;  /* 0: enter, 1: leave (a state ends) */
    int64_t time;
    int64_t start;   /* leave: the state's start */
} bgen_op;

typedef struct bgen_frame {
    int64_t start;
    uint32_t cat;
} bgen_frame;

typedef struct bgen {
    uint64_t rng;
    uint32_t ntl, ncat, max_depth;
    uint64_t target;  /* states to produce */
    uint64_t states;  /* states produced so far */
    int64_t now;
    uint32_t *depth;  /* per timeline */
    bgen_frame *stack; /* ntl x max_depth */
    uint32_t closing; /* draining the open stacks at the end */
} bgen;

int bgen_init(bgen *g, uint64_t states, uint32_t timelines, uint32_t categories, uint64_t seed);
void bgen_free(bgen *g);
/** Fill up to @p cap operations; returns how many (0: done). */
size_t bgen_fill(bgen *g, bgen_op *ops, size_t cap);

/** Monotonic seconds. */
double bench_now(void);
/** CPU seconds of this process (user + system). */
double bench_cpu(void);

/** Wall and CPU time accumulated over timed sections. */
typedef struct bench_timer {
    double wall, cpu;       /* totals */
    double wall0, cpu0;     /* start of the open section */
} bench_timer;

static inline void bench_timer_start(bench_timer *t)
{
    t->wall0 = bench_now();
    t->cpu0 = bench_cpu();
}

static inline void bench_timer_stop(bench_timer *t)
{
    t->wall += bench_now() - t->wall0;
    t->cpu += bench_cpu() - t->cpu0;
}
/** Median of @p n values (sorts them). */
double bench_median(double *v, size_t n);
/** Bytes of a file, or of all files under a directory. */
uint64_t bench_disk_bytes(const char *path);
/** Remove a file or a directory tree. */
void bench_remove(const char *path);
/** Parse "1e6", "1000000", "10M"; exits on error. */
uint64_t bench_parse_count(const char *s);

/* One line on what the machine was doing: load average, nproc and, on a
 * guest whose kernel reports free pages to its host (virtio-balloon free
 * page reporting), how long a page must stay free before it is reported
 * and how much was reported since the last call.  Memory reported is
 * given back to the host, so the next program to touch it pays a host
 * fault per page (doc/PERFORMANCE.md, "Fresh memory on this guest"). */
void bench_print_host(const char *when);

/* Run fn(ctx, out) in a child forked for it, so that a timed run pays for
 * its own fresh memory and never reuses what an earlier run (or the other
 * writer) faulted in and freed; out[0..3] come back from the child.
 * Returns fn's result, or -1 when the child could not run or report. */
int bench_forked(int (*fn)(void *ctx, double out[4]), void *ctx, double out[4]);

#endif /* BENCH_GEN_H */
