/* SPDX-License-Identifier: MIT
 *
 * slog-synth - deterministic synthetic traces for tests and benchmarks.
 *
 * T threads, grouped under ceil(sqrt(T)) processes, each run an endless
 * sequence of random call trees (depth 1..8, a Zipf-like choice among 50
 * state categories, log-normal-ish durations, gaps between trees).  Every
 * thread is a small state machine whose memory is its stack of open calls
 * (at most 8 planned end times), and a binary min-heap over the threads'
 * next-action times merges them, so the writer sees begins and ends in
 * global time order (nondecreasing end times, the writer's optimal order)
 * with memory O(T) whatever the number of states.  Events are spread over
 * the begins, arrows and counter samples over the ends, with Bresenham
 * counters so the totals are exact.  All randomness comes from one
 * splitmix64 stream per thread seeded from --seed: the same options give
 * the same drawables, byte for byte.  --dry-run runs the generator alone
 * (no writer calls) to measure its own cost.
 */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slog/slog.h>

#include "cli.h"
#include "json_out.h"
#include "out_file.h"
#include "flush_log.h"
#include "units.h"

#ifndef SLOG_TOOL_VERSION
#    define SLOG_TOOL_VERSION SLOG_VERSION_STRING
#endif

#define PROG        "slog-synth"
#define MAX_DEPTH   8
#define N_STATE_CAT 50
#define N_EVENT_CAT 4
#define N_ARROW_CAT 2
#define N_COUNT_CAT 2
#define MAX_THREADS 1000000u
#define ZIPF_BITS   12

enum {
    EXIT_USAGE = 2,
    EXIT_INTERRUPTED = 130
};

typedef struct synth_opts {
    uint64_t states, events, arrows, counters;
    uint32_t timelines;
    uint64_t seed;
    uint64_t ticks_per_second;
    const char *output;
    const char *flush_log; /* --flush-log FILE: what each writer flush made durable */
    uint32_t leaf_bytes, fanout;
    int32_t lz4_level;
    bool events_set, arrows_set, counters_set;
    bool dry_run, quiet, json, args, state_args, time_bins;
} synth_opts;

/* One thread's generator: the open calls and what it does next. */
typedef struct thread_gen {
    uint64_t rng;
    int64_t ends[MAX_DEPTH]; /* planned end time of each open call */
    uint32_t timeline;
    uint32_t process;  /* index into the process arrays */
    uint8_t depth;     /* open calls */
    uint8_t max_depth; /* of the current call tree */
} thread_gen;

typedef struct heap_entry {
    int64_t time;
    uint32_t thread;
} heap_entry;

typedef struct synth {
    const synth_opts *o;
    slog_writer *w; /* NULL in --dry-run */
    slog_error err;
    thread_gen *threads;
    heap_entry *heap;
    uint32_t nheap;
    uint32_t nprocs;
    uint32_t *proc_timeline;
    double *counter_value; /* [process][counter category] */
    uint32_t cat_state[N_STATE_CAT], cat_event[N_EVENT_CAT], cat_arrow[N_ARROW_CAT],
        cat_counter[N_COUNT_CAT];
    uint8_t zipf[1u << ZIPF_BITS]; /* state category by the top random bits */
    uint64_t begun, ended, events, arrows, counters, trees;
    uint64_t acc_events, acc_arrows, acc_counters; /* Bresenham accumulators */
    uint64_t checksum;
    int64_t t_first, t_last;
    uint64_t rng; /* global stream for cross-thread choices */
    char temp[4096]; /* output + ".part" while it is written */
    flush_log log;
    bool created;    /* temp is ours: created by this run's writer */
} synth;

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* ---- randomness --------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A log-normal-ish integer: 2^(base + Binomial(16, 1/2)) with a uniform
 * mantissa, so log2 of the result is roughly normal around base + 8. */
static uint8_t popcount8[256];

static void popcount_init(void)
{
    for (unsigned i = 0; i < 256; i++) {
        popcount8[i] = (uint8_t)((i & 1) + popcount8[i / 2]);
    }
}

static unsigned popcount16(uint64_t r)
{
    return (unsigned)popcount8[r & 0xff] + popcount8[(r >> 8) & 0xff];
}

/* Uniform integer in [0, n) from the high bits of r (multiply, no divide). */
static uint64_t below(uint64_t r, uint64_t n)
{
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)(((u128)r * n) >> 64);
}

static int64_t lognormalish(uint64_t r, unsigned base)
{
    const unsigned e = base + popcount16(r);
    const uint64_t one = UINT64_C(1) << e;
    return (int64_t)(one + ((r >> 16) & (one - 1)));
}

/* Zipf (s = 1) over the 50 state categories, quantised to a 4096-entry
 * table: one load per pick instead of a branchy search (the rarest
 * category still owns 18 entries). */
static uint32_t zipf_pick(const synth *s, uint64_t r)
{
    return s->zipf[r >> (64 - ZIPF_BITS)];
}

static void zipf_init(synth *s)
{
    double total = 0;
    for (int k = 0; k < N_STATE_CAT; k++) {
        total += 1.0 / (k + 1);
    }
    double cum = 0;
    uint32_t slot = 0;
    for (uint32_t k = 0; k < N_STATE_CAT; k++) {
        cum += 1.0 / (k + 1);
        uint32_t upto = (uint32_t)(cum / total * (1u << ZIPF_BITS) + 0.5);
        if (k == N_STATE_CAT - 1) {
            upto = 1u << ZIPF_BITS;
        }
        for (; slot < upto; slot++) {
            s->zipf[slot] = (uint8_t)k;
        }
    }
}

static void mix(synth *s, uint64_t kind, uint64_t a, uint64_t b, int64_t t)
{
    uint64_t h = s->checksum ^ (kind << 56) ^ (a << 28) ^ b;
    h ^= (uint64_t)t * UINT64_C(0x9e3779b97f4a7c15);
    s->checksum = (h << 7 | h >> 57) * UINT64_C(0xff51afd7ed558ccd);
}

/* ---- the min-heap of next actions --------------------------------------- */

/* Time only: ties need no tie-break for determinism (the heap's moves are
 * a pure function of its input), and one compare is cheaper. */
static bool heap_less(heap_entry a, heap_entry b)
{
    return a.time < b.time;
}

/* Sift down with the child choice computed without a branch: the choice is
 * a coin flip the predictor cannot learn, and it dominated the profile. */
static void heap_sift_down(synth *s, uint32_t i)
{
    heap_entry *h = s->heap;
    const heap_entry x = h[i];
    const uint32_t n = s->nheap;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n) {
            break;
        }
        if (c + 1 < n) {
            c += (uint32_t)heap_less(h[c + 1], h[c]);
        }
        if (!heap_less(h[c], x)) {
            break;
        }
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

static void heap_build(synth *s)
{
    for (uint32_t i = s->nheap / 2; i-- > 0;) {
        heap_sift_down(s, i);
    }
}

/* ---- names and metadata ------------------------------------------------- */

static const char *const state_names[N_STATE_CAT] = {
    "compute",
    "MPI_Wait",
    "memcpy",
    "MPI_Allreduce",
    "kernel_launch",
    "MPI_Send",
    "MPI_Recv",
    "fft_forward",
    "fft_inverse",
    "solve_linear",
    "read",
    "write",
    "malloc",
    "free",
    "MPI_Barrier",
    "MPI_Isend",
    "MPI_Irecv",
    "MPI_Bcast",
    "halo_exchange",
    "stencil_update",
    "checkpoint_io",
    "pack_buffer",
    "unpack_buffer",
    "assemble",
    "precondition",
    "gemm",
    "spmv",
    "dot_product",
    "axpy",
    "norm2",
    "open",
    "close",
    "lseek",
    "fsync",
    "mmap",
    "omp_parallel",
    "omp_barrier",
    "omp_for",
    "lock_acquire",
    "lock_release",
    "cuda_memcpy_h2d",
    "cuda_memcpy_d2h",
    "cuda_sync",
    "python_call",
    "gc_collect",
    "json_parse",
    "compress",
    "decompress",
    "hash_update",
    "log_write",
};

static const char *state_group(uint32_t k)
{
    const char *n = state_names[k];
    if (strncmp(n, "MPI_", 4) == 0) {
        return "mpi";
    }
    if (strncmp(n, "omp_", 4) == 0 || strncmp(n, "lock_", 5) == 0) {
        return "threading";
    }
    if (strncmp(n, "cuda_", 5) == 0 || strcmp(n, "kernel_launch") == 0) {
        return "gpu";
    }
    if (k >= 30 && k <= 34) {
        return "posix";
    }
    if (strcmp(n, "read") == 0 || strcmp(n, "write") == 0 || strcmp(n, "checkpoint_io") == 0) {
        return "io";
    }
    return "compute";
}

static const char *const event_names[N_EVENT_CAT] = {"marker", "checkpoint", "gc", "exception"};
static const char *const arrow_names[N_ARROW_CAT] = {"message", "flow"};
static const char *const counter_names[N_COUNT_CAT] = {"memory_bytes", "cpu_percent"};

static int define_categories(synth *s)
{
    slog_writer *w = s->w;
    for (uint32_t k = 0; k < N_STATE_CAT; k++) {
        s->cat_state[k] = k;
        if (w != NULL && slog_writer_add_category(w, SLOG_KIND_STATE, state_names[k], 0,
                                                  state_group(k), &s->cat_state[k], &s->err) != 0) {
            return -1;
        }
    }
    for (uint32_t k = 0; k < N_EVENT_CAT; k++) {
        s->cat_event[k] = N_STATE_CAT + k;
        if (w != NULL && slog_writer_add_category(w, SLOG_KIND_EVENT, event_names[k], 0, "events",
                                                  &s->cat_event[k], &s->err) != 0) {
            return -1;
        }
    }
    for (uint32_t k = 0; k < N_ARROW_CAT; k++) {
        s->cat_arrow[k] = N_STATE_CAT + N_EVENT_CAT + k;
        if (w != NULL && slog_writer_add_category(w, SLOG_KIND_ARROW, arrow_names[k], 0, "comm",
                                                  &s->cat_arrow[k], &s->err) != 0) {
            return -1;
        }
    }
    for (uint32_t k = 0; k < N_COUNT_CAT; k++) {
        s->cat_counter[k] = N_STATE_CAT + N_EVENT_CAT + N_ARROW_CAT + k;
        if (w != NULL && slog_writer_add_category(w, SLOG_KIND_COUNTER, counter_names[k], 0,
                                                  "counters", &s->cat_counter[k], &s->err) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Processes, then their threads: "process P" with children "thread P.I". */
static int define_timelines(synth *s)
{
    const uint32_t t = s->o->timelines;
    uint32_t p = (uint32_t)ceil(sqrt((double)t));
    const uint32_t per = (t + p - 1) / p;
    p = (t + per - 1) / per;
    s->nprocs = p;
    uint32_t next_id = 0;
    char name[64];
    for (uint32_t pi = 0; pi < p; pi++) {
        uint32_t pid = next_id++;
        (void)snprintf(name, sizeof name, "process %u", pi);
        if (s->w != NULL && slog_writer_add_timeline(s->w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS,
                                                     name, (int64_t)pi, &pid, &s->err) != 0) {
            return -1;
        }
        s->proc_timeline[pi] = pid;
        for (uint32_t ti = pi * per; ti < t && ti < (pi + 1) * per; ti++) {
            uint32_t tid = next_id++;
            (void)snprintf(name, sizeof name, "thread %u.%u", pi, ti - pi * per);
            if (s->w != NULL &&
                slog_writer_add_timeline(s->w, pid, SLOG_TIMELINE_THREAD, name,
                                         (int64_t)(ti - pi * per), &tid, &s->err) != 0) {
                return -1;
            }
            s->threads[ti].timeline = tid;
            s->threads[ti].process = pi;
        }
    }
    return 0;
}

/* ---- drawables ---------------------------------------------------------- */

static uint32_t fill_event_args(uint64_t seq, slog_arg *a)
{
    static const char *const notes[] = {"alpha", "beta", "gamma \"quoted\"", "delta\ttab",
                                        "caf\xc3\xa9"};
    switch (seq % 6) {
    case 0:
        *a = (slog_arg){.key = "seq", .type = SLOG_ARG_INT, .v.i = (int64_t)seq};
        break;
    case 1:
        *a = (slog_arg){.key = "id", .type = SLOG_ARG_UINT, .v.u = UINT64_MAX - seq};
        break;
    case 2:
        *a = (slog_arg){.key = "ratio", .type = SLOG_ARG_DOUBLE, .v.d = (double)seq / 8.0};
        break;
    case 3:
        *a = (slog_arg){.key = "ok", .type = SLOG_ARG_BOOL, .v.b = (seq & 8) != 0};
        break;
    case 4:
        *a = (slog_arg){.key = "note", .type = SLOG_ARG_STRING, .v.s = notes[(seq / 6) % 5]};
        break;
    default:
        *a = (slog_arg){.key = "data", .type = SLOG_ARG_JSON, .v.s = "{\"k\":[1,2.5,null]}"};
        break;
    }
    return 1;
}

static int emit_event(synth *s, const thread_gen *g, int64_t t)
{
    const uint64_t r = splitmix64(&s->rng);
    const uint32_t cat = s->cat_event[(r & 0xff) < 200 ? 0 : 1 + (r >> 8) % (N_EVENT_CAT - 1)];
    slog_arg arg;
    const uint32_t nargs = s->o->args ? fill_event_args(s->events, &arg) : 0;
    s->events++;
    mix(s, 1, g->timeline, cat, t);
    if (s->w == NULL) {
        return 0;
    }
    const slog_event e = {g->timeline, cat, t, nargs, nargs > 0 ? &arg : NULL};
    return slog_writer_append_event(s->w, &e, &s->err);
}

static int emit_arrow(synth *s, const thread_gen *g, int64_t t)
{
    const uint64_t r = splitmix64(&s->rng);
    const uint32_t nthreads = s->o->timelines;
    uint32_t from = (uint32_t)((r >> 32) % nthreads);
    if (nthreads > 1 && s->threads[from].timeline == g->timeline) {
        from = (from + 1) % nthreads;
    }
    int64_t start = t - (int64_t)(1 + (r & 0xfff));
    if (start < s->t_first) {
        start = s->t_first;
    }
    const uint32_t cat = s->cat_arrow[(r >> 12) & 1];
    const slog_arg args[2] = {
        {.key = "bytes", .type = SLOG_ARG_INT, .v.i = (int64_t)((r >> 13) & 0xfffff)},
        {.key = "tag", .type = SLOG_ARG_INT, .v.i = (int64_t)(s->arrows % 1000)},
    };
    s->arrows++;
    mix(s, 2, s->threads[from].timeline, g->timeline, start ^ t);
    if (s->w == NULL) {
        return 0;
    }
    const slog_arrow a = {cat,
                          s->threads[from].timeline,
                          g->timeline,
                          start,
                          t,
                          s->o->args ? 2u : 0u,
                          s->o->args ? args : NULL};
    return slog_writer_append_arrow(s->w, &a, &s->err);
}

static int emit_counter(synth *s, const thread_gen *g, int64_t t)
{
    const uint64_t r = splitmix64(&s->rng);
    const uint32_t k = (uint32_t)(s->counters % N_COUNT_CAT);
    double *v = &s->counter_value[g->process * N_COUNT_CAT + k];
    if (k == 0) {
        *v += (double)((int64_t)(r % 2001) - 1000) * 4096.0;
        if (*v < 0) {
            *v = 0;
        }
    } else {
        *v = (double)(r % 1001) / 10.0;
    }
    s->counters++;
    const uint32_t tl = s->proc_timeline[g->process];
    mix(s, 3, tl, k, t);
    if (s->w == NULL) {
        return 0;
    }
    const slog_counter c = {tl, s->cat_counter[k], t, *v};
    return slog_writer_append_counter(s->w, &c, &s->err);
}

/* Extras spread over the ends (their time is an end time, so every append
 * the writer sees keeps the global nondecreasing order). */
static int after_end(synth *s, const thread_gen *g, int64_t t)
{
    s->acc_events += s->o->events;
    while (s->acc_events >= s->o->states) {
        s->acc_events -= s->o->states;
        if (emit_event(s, g, t) != 0) {
            return -1;
        }
    }
    s->acc_arrows += s->o->arrows;
    while (s->acc_arrows >= s->o->states) {
        s->acc_arrows -= s->o->states;
        if (emit_arrow(s, g, t) != 0) {
            return -1;
        }
    }
    s->acc_counters += s->o->counters;
    while (s->acc_counters >= s->o->states) {
        s->acc_counters -= s->o->states;
        if (emit_counter(s, g, t) != 0) {
            return -1;
        }
    }
    return 0;
}

/* ---- the per-thread state machine --------------------------------------- */

/* Probability (out of 65536) that a call at this depth opens another child. */
static const uint32_t p_child[MAX_DEPTH] = {0, 42000, 38000, 34000, 30000, 26000, 22000, 18000};

/* Planned end of a call that begins at t inside the current stack.  Uses
 * bits 0..51 of r (the top 12 chose the category). */
static int64_t plan_end(thread_gen *g, int64_t t, uint64_t r)
{
    if (g->depth == 0) {
        g->max_depth = (uint8_t)(1 + (r >> 44) % MAX_DEPTH);
        return t + lognormalish(r, 8);
    }
    const int64_t room = g->ends[g->depth - 1] - t;
    const int64_t share = room >> (1 + popcount8[r & 0x7]);
    int64_t d = share + (int64_t)below(r << 12, (uint64_t)share + 1);
    if (d < 1) {
        d = 1;
    }
    return t + (d < room ? d : room);
}

static int do_begin(synth *s, thread_gen *g, int64_t t)
{
    const uint64_t r = splitmix64(&g->rng);
    const uint32_t cat = s->cat_state[zipf_pick(s, r)];
    if (g->depth == 0) {
        s->trees++;
    }
    const bool with_arg = s->o->state_args && g->depth == 0;
    const slog_arg arg = {.key = "iter", .type = SLOG_ARG_INT, .v.i = (int64_t)s->trees};
    g->ends[g->depth] = plan_end(g, t, r);
    g->depth++;
    s->begun++;
    if (t < s->t_first) {
        s->t_first = t;
    }
    mix(s, 0, g->timeline, cat, t);
    if (s->w != NULL && slog_writer_begin(s->w, g->timeline, cat, t, with_arg ? &arg : NULL,
                                          with_arg ? 1 : 0, &s->err) != 0) {
        return -1;
    }
    return 0;
}

static int do_end(synth *s, thread_gen *g, int64_t t)
{
    assert(t >= s->t_last); /* the writer's optimal order: nondecreasing end times */
    g->depth--;
    s->ended++;
    s->t_last = t;
    mix(s, 4, g->timeline, g->depth, t);
    if (s->w != NULL && slog_writer_end(s->w, g->timeline, t, &s->err) != 0) {
        return -1;
    }
    return after_end(s, g, t);
}

/*
 * After time t, run thread g's begins right away (a begin appends nothing,
 * so it needs no global ordering) until its next action is an end; store
 * that end time in *next.  Returns 1 when the thread is finished (budget
 * spent, nothing open), 0 when *next is set, -1 on a writer error.
 */
static int advance(synth *s, thread_gen *g, int64_t t, int64_t *next)
{
    for (;;) {
        const uint64_t r = splitmix64(&g->rng);
        int64_t tb;
        if (g->depth == 0) {
            tb = t + lognormalish(r, 4); /* gap between call trees */
        } else {
            const int64_t end = g->ends[g->depth - 1];
            tb = t + 1 + (int64_t)(r & 0x3f);
            if (g->depth >= g->max_depth || (uint32_t)((r >> 8) & 0xffff) >= p_child[g->depth] ||
                end - tb < 2) {
                *next = end;
                return 0;
            }
        }
        if (s->begun >= s->o->states) {
            if (g->depth == 0) {
                return 1;
            }
            *next = g->ends[g->depth - 1]; /* budget spent: unwind */
            return 0;
        }
        if (do_begin(s, g, tb) != 0) {
            return -1;
        }
        t = tb;
    }
}

/* End the call at the top of the heap and plan its thread's next end. */
static int step(synth *s)
{
    heap_entry *top = &s->heap[0];
    thread_gen *g = &s->threads[top->thread];
    const int64_t t = top->time;
    if (do_end(s, g, t) != 0) {
        return -1;
    }
    const int r = advance(s, g, t, &top->time);
    if (r < 0) {
        return -1;
    }
    if (r > 0) {
        s->heap[0] = s->heap[--s->nheap];
    }
    if (s->nheap > 0) {
        heap_sift_down(s, 0);
    }
    return 0;
}

/* Seed every thread, start its first call tree and build the heap. */
static int start_threads(synth *s)
{
    const uint32_t n = s->o->timelines;
    const int64_t base = (int64_t)s->o->ticks_per_second; /* traces start near 1 s */
    s->rng = s->o->seed ^ UINT64_C(0x5851f42d4c957f2d);
    s->t_first = INT64_MAX;
    s->nheap = 0;
    for (uint32_t i = 0; i < n; i++) {
        thread_gen *g = &s->threads[i];
        g->rng = s->o->seed * UINT64_C(0x2545f4914f6cdd1d) + i;
        (void)splitmix64(&g->rng);
        const int64_t t = base + (int64_t)(splitmix64(&g->rng) & 0xffff);
        int64_t next = 0;
        const int r = advance(s, g, t, &next);
        if (r < 0) {
            return -1;
        }
        if (r == 0) {
            s->heap[s->nheap++] = (heap_entry){next, i};
        }
    }
    heap_build(s);
    return 0;
}

static int run(synth *s)
{
    if (start_threads(s) != 0) {
        return -1;
    }
    uint32_t tick = 0;
    while (s->nheap > 0) {
        if (step(s) != 0) {
            return -1;
        }
        if (++tick == 0x10000) {
            tick = 0;
            if (interrupted) {
                return 1;
            }
        }
    }
    return 0;
}

/* ---- command line ------------------------------------------------------- */

static void usage(FILE *f)
{
    (void)fprintf(
        f, "Usage: " PROG " --states N --timelines T [--seed S] -o FILE [options]\n"
           "Write a deterministic synthetic trace through the libslog writer.\n"
           "\n"
           "  -n, --states N          states to write (required; 1e8 and 10M work)\n"
           "  -t, --timelines T       threads; grouped under ceil(sqrt(T)) processes (default 16)\n"
           "  -s, --seed S            random seed (default 1); same options -> same drawables\n"
           "  -o, --output FILE       output file (required unless --dry-run)\n"
           "  -e, --events E          instant events (default N/10)\n"
           "  -a, --arrows A          arrows between threads (default N/100)\n"
           "  -c, --counters C        counter samples on the processes (default N/100)\n"
           "      --leaf-bytes B      writer leaf budget, e.g. 64KiB (default: library's)\n"
           "      --fanout K          tree fanout 2..64 (default: library's)\n"
           "      --lz4-level L       0..12 (default: library's)\n"
           "      --ticks-per-second Q  clock rate of the file (default 1000000000)\n"
           "      --no-args           no args on events and arrows\n"
           "      --state-args        an \"iter\" arg on every top-level state\n"
           "      --time-bins         time bins in leaf previews (SLOG_WRITER_TIME_BINS)\n"
           "      --dry-run           generate only, no writer calls (measures the generator)\n"
           "  -q, --quiet             no summary\n"
           "      --json              summary as one JSON object on stdout\n"
           "      --flush-log FILE    a line per writer flush: pending|durable NODES STATES\n"
           "                          EVENTS ARROWS COUNTERS COMPLETE (crash tests)\n"
           "  -h, --help              this help\n"
           "  -V, --version           tool and library versions\n");
}

#define usage_error(...) cli_usage_error(PROG, __VA_ARGS__)

static void print_version(void)
{
    cli_print_version(PROG, SLOG_TOOL_VERSION, SLOG_VERSION_NUMBER, SLOG_VERSION_STRING);
}

enum {
    OPT_LEAF = 256,
    OPT_FANOUT,
    OPT_LZ4,
    OPT_TPS,
    OPT_NO_ARGS,
    OPT_STATE_ARGS,
    OPT_TIME_BINS,
    OPT_DRY,
    OPT_JSON,
    OPT_FLUSH_LOG,
};

static const struct option long_opts[] = {
    {"states", required_argument, NULL, 'n'},
    {"timelines", required_argument, NULL, 't'},
    {"seed", required_argument, NULL, 's'},
    {"output", required_argument, NULL, 'o'},
    {"events", required_argument, NULL, 'e'},
    {"arrows", required_argument, NULL, 'a'},
    {"counters", required_argument, NULL, 'c'},
    {"leaf-bytes", required_argument, NULL, OPT_LEAF},
    {"fanout", required_argument, NULL, OPT_FANOUT},
    {"lz4-level", required_argument, NULL, OPT_LZ4},
    {"ticks-per-second", required_argument, NULL, OPT_TPS},
    {"no-args", no_argument, NULL, OPT_NO_ARGS},
    {"state-args", no_argument, NULL, OPT_STATE_ARGS},
    {"time-bins", no_argument, NULL, OPT_TIME_BINS},
    {"dry-run", no_argument, NULL, OPT_DRY},
    {"quiet", no_argument, NULL, 'q'},
    {"json", no_argument, NULL, OPT_JSON},
    {"flush-log", required_argument, NULL, OPT_FLUSH_LOG},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* Parse a count option into *out within [lo, hi]; prints the error. */
static int opt_count(const char *name, const char *arg, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char why[160];
    uint64_t v;
    if (units_parse_count(arg, &v, why, sizeof why) != 0) {
        (void)fprintf(stderr, PROG ": --%s: %s (see " PROG " --help)\n", name, why);
        return -1;
    }
    if (v < lo || v > hi) {
        (void)fprintf(stderr,
                      PROG ": --%s: %llu is out of range %llu..%llu (see " PROG " --help)\n", name,
                      (unsigned long long)v, (unsigned long long)lo, (unsigned long long)hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int opt_size(const char *arg, uint32_t *out)
{
    char why[160];
    uint64_t v;
    if (units_parse_size(arg, &v, why, sizeof why) != 0) {
        (void)fprintf(stderr, PROG ": --leaf-bytes: %s (see " PROG " --help)\n", why);
        return -1;
    }
    if (v < 256 || v > (UINT64_C(1) << 30)) {
        (void)fprintf(stderr,
                      PROG ": --leaf-bytes: %s is out of range 256B..1GiB (see " PROG " --help)\n",
                      arg);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* One option; returns 0, -1 (usage error printed), or 1 (help/version done). */
static int parse_one(int c, const char *arg, synth_opts *o)
{
    uint64_t v = 0;
    switch (c) {
    case 'n':
        return opt_count("states", arg, 1, UINT64_C(1) << 48, &o->states);
    case 't':
        if (opt_count("timelines", arg, 1, MAX_THREADS, &v) != 0) {
            return -1;
        }
        o->timelines = (uint32_t)v;
        return 0;
    case 's':
        return opt_count("seed", arg, 0, UINT64_MAX, &o->seed);
    case 'o':
        o->output = arg;
        return 0;
    case OPT_FLUSH_LOG:
        o->flush_log = arg;
        return 0;
    case 'e':
        o->events_set = true;
        return opt_count("events", arg, 0, UINT64_C(1) << 48, &o->events);
    case 'a':
        o->arrows_set = true;
        return opt_count("arrows", arg, 0, UINT64_C(1) << 48, &o->arrows);
    case 'c':
        o->counters_set = true;
        return opt_count("counters", arg, 0, UINT64_C(1) << 48, &o->counters);
    case OPT_LEAF:
        return opt_size(arg, &o->leaf_bytes);
    case OPT_FANOUT:
        if (opt_count("fanout", arg, 2, 64, &v) != 0) {
            return -1;
        }
        o->fanout = (uint32_t)v;
        return 0;
    case OPT_LZ4:
        if (opt_count("lz4-level", arg, 0, 12, &v) != 0) {
            return -1;
        }
        o->lz4_level = (int32_t)v;
        return 0;
    case OPT_TPS:
        return opt_count("ticks-per-second", arg, 1, UINT64_C(1000000000000), &o->ticks_per_second);
    default:
        break;
    }
    return 1; /* not a value option */
}

static int parse_flag(int c, synth_opts *o)
{
    switch (c) {
    case OPT_NO_ARGS:
        o->args = false;
        return 0;
    case OPT_TIME_BINS:
        o->time_bins = true;
        return 0;
    case OPT_STATE_ARGS:
        o->state_args = true;
        return 0;
    case OPT_DRY:
        o->dry_run = true;
        return 0;
    case OPT_JSON:
        o->json = true;
        return 0;
    case 'q':
        o->quiet = true;
        return 0;
    case 'h':
        usage(stdout);
        return 1;
    case 'V':
        print_version();
        return 1;
    default:
        return -1;
    }
}

/* Returns -1 to continue, otherwise the exit status. */
static int parse_args(int argc, char **argv, synth_opts *o)
{
    int c;
    bool states_set = false;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "n:t:s:o:e:a:c:qhV", long_opts, NULL)) != -1) {
        states_set = states_set || c == 'n';
        const int r = parse_one(c, optarg, o);
        if (r < 0) {
            return EXIT_USAGE;
        }
        if (r == 0) {
            continue;
        }
        if (c == '?') {
            return usage_error("invalid or incomplete option '%s'", argv[optind - 1]);
        }
        const int f = parse_flag(c, o);
        if (f != 0) {
            return f < 0 ? EXIT_USAGE : EXIT_SUCCESS;
        }
    }
    if (optind < argc) {
        return usage_error("unexpected argument '%s'", argv[optind]);
    }
    if (!states_set) {
        return usage_error("%s", "--states N is required");
    }
    if (o->output == NULL && !o->dry_run) {
        return usage_error("%s", "-o FILE is required (or --dry-run)");
    }
    o->events = o->events_set ? o->events : o->states / 10;
    o->arrows = o->arrows_set ? o->arrows : o->states / 100;
    o->counters = o->counters_set ? o->counters : o->states / 100;
    return -1;
}

/* ---- main --------------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int open_writer(synth *s)
{
    const synth_opts *o = s->o;
    static char creator[96];
    (void)snprintf(creator, sizeof creator, PROG " %s seed=%llu", SLOG_TOOL_VERSION,
                   (unsigned long long)o->seed);
    slog_writer_options wo = SLOG_WRITER_OPTIONS_INIT;
    wo.leaf_bytes = o->leaf_bytes;
    wo.fanout = o->fanout;
    wo.lz4_level = o->lz4_level;
    wo.ticks_per_second = o->ticks_per_second;
    wo.creator = creator;
    wo.flags = o->time_bins ? SLOG_WRITER_TIME_BINS : 0;
    if (flush_log_open(&s->log, o->flush_log) != 0) {
        s->err.code = SLOG_EIO;
        (void)snprintf(s->err.message, sizeof s->err.message, "cannot create the flush log %s",
                       o->flush_log);
        return SLOG_EIO;
    }
    flush_log_attach(&s->log, &wo);
    if (out_file_temp_name(s->temp, sizeof s->temp, o->output) != 0) {
        s->err.code = SLOG_EINVAL;
        (void)snprintf(s->err.message, sizeof s->err.message, "not a regular file, or a name too long");
        return SLOG_EINVAL;
    }
    const int rc = slog_writer_create(&s->w, s->temp, &wo, &s->err);
    s->created = rc == SLOG_OK;
    return rc;
}

/* The written file (complete, or left incomplete by a failure) takes its
 * name; 0, or -1 after saying why. */
static int settle_output(synth *s)
{
    if (!s->created || out_file_commit(s->temp, s->o->output) == 0) {
        return 0;
    }
    (void)fprintf(stderr, PROG ": Cannot rename %s to %s: %s\n", s->temp, s->o->output,
                  strerror(errno));
    return -1;
}

static void report(const synth *s, double secs)
{
    const synth_opts *o = s->o;
    const uint64_t total = s->ended + s->events + s->arrows + s->counters;
    if (o->json) {
        json_writer j;
        json_writer_init(&j, stdout);
        json_begin_object(&j);
        json_kv_int(&j, "schema", 1);
        json_kv_string(&j, "output", o->output);
        json_kv_bool(&j, "dry_run", o->dry_run);
        json_kv_uint(&j, "seed", o->seed);
        json_kv_uint(&j, "states", s->ended);
        json_kv_uint(&j, "events", s->events);
        json_kv_uint(&j, "arrows", s->arrows);
        json_kv_uint(&j, "counters", s->counters);
        json_kv_uint(&j, "threads", o->timelines);
        json_kv_uint(&j, "processes", s->nprocs);
        json_kv_uint(&j, "timelines", o->timelines + s->nprocs);
        json_kv_int(&j, "start", s->t_first);
        json_kv_int(&j, "end", s->t_last);
        json_kv_uint(&j, "elapsed_ns", (uint64_t)(secs * 1e9));
        char hex[24];
        (void)snprintf(hex, sizeof hex, "%016llx", (unsigned long long)s->checksum);
        json_kv_string(&j, "checksum", hex);
        json_end_object(&j);
        (void)putchar('\n');
        return;
    }
    (void)printf(
        PROG ": %s%llu states, %llu events, %llu arrows, %llu counter samples on %u threads "
             "in %u processes: %.3f s, %.2f M drawables/s, checksum %016llx\n",
        o->dry_run ? "(dry run) " : "", (unsigned long long)s->ended, (unsigned long long)s->events,
        (unsigned long long)s->arrows, (unsigned long long)s->counters, o->timelines, s->nprocs,
        secs, secs > 0 ? (double)total / secs / 1e6 : 0.0, (unsigned long long)s->checksum);
}

static int fail_writer(synth *s, const char *what)
{
    (void)fprintf(stderr, PROG ": Failed to %s %s: %s (%s)\n", what, s->o->output,
                  s->err.message[0] != '\0' ? s->err.message : "unknown error",
                  slog_status_name(s->err.code));
    slog_writer_destroy(s->w);
    s->w = NULL;
    (void)settle_output(s);
    return EXIT_FAILURE;
}

static int generate(synth *s)
{
    const double t0 = now_seconds();
    if (!s->o->dry_run && open_writer(s) != 0) {
        return fail_writer(s, "create");
    }
    zipf_init(s);
    popcount_init();
    if (define_timelines(s) != 0 || define_categories(s) != 0) {
        return fail_writer(s, "define metadata in");
    }
    const int r = run(s);
    if (r < 0) {
        return fail_writer(s, "write");
    }
    if (r > 0) {
        (void)fprintf(stderr, PROG ": interrupted; %s left incomplete\n",
                      s->o->dry_run ? "nothing" : s->o->output);
        slog_writer_destroy(s->w);
        (void)settle_output(s);
        return EXIT_INTERRUPTED;
    }
    if (s->w != NULL && slog_writer_finish(s->w, &s->err) != 0) {
        return fail_writer(s, "finish");
    }
    slog_writer_destroy(s->w);
    s->w = NULL;
    if (settle_output(s) != 0) {
        return EXIT_FAILURE;
    }
    if (!s->o->quiet) {
        report(s, now_seconds() - t0);
    }
    return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
    out_file_guard_stdout(PROG);
    synth_opts o = {.timelines = 16, .seed = 1, .ticks_per_second = 1000000000, .args = true};
    const int pr = parse_args(argc, argv, &o);
    if (pr >= 0) {
        return pr;
    }
    synth s;
    memset(&s, 0, sizeof s);
    s.o = &o;
    s.log.fd = -1;
    s.threads = calloc(o.timelines, sizeof *s.threads);
    s.heap = calloc(o.timelines, sizeof *s.heap);
    s.proc_timeline = calloc(o.timelines, sizeof *s.proc_timeline);
    s.counter_value = calloc((size_t)o.timelines * N_COUNT_CAT, sizeof *s.counter_value);
    int rc = EXIT_FAILURE;
    if (s.threads == NULL || s.heap == NULL || s.proc_timeline == NULL || s.counter_value == NULL) {
        (void)fprintf(stderr, PROG ": out of memory for %u timelines\n", o.timelines);
    } else {
        (void)signal(SIGINT, on_sigint);
        rc = generate(&s);
    }

    free(s.threads);
    free(s.heap);
    free(s.proc_timeline);
    free(s.counter_value);
    flush_log_close(&s.log);
    return rc;
}
