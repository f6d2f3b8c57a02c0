/* SPDX-License-Identifier: MIT
 *
 * bench_thread - issue 15 item 2 for the threaded writer (slog_thread.h),
 * each figure beside its anchor in the same run:
 *   write  bench_write's workload (bench_gen: N nested states on T
 *          timelines, global end order) through one location per timeline
 *          and the background thread, timed from create to the end of
 *          finish + destroy, against OTF2's Enter/Leave writer
 *          (bench_otf2_write); the operations are generated before the
 *          timing into a packed array (4 bytes each), since a background
 *          thread would otherwise work during untimed generation;
 *   pair   the calling thread's cost of one begin+end through a location
 *          (the background runs beside it on another core) against
 *          OTF2_EvtWriter_Enter+Leave on one event writer;
 *   scale  1, 2, 4, 8 threads, each its own location, appending begin+end
 *          pairs at once: states/s until the last append returns and until
 *          finish returns.
 * Medians with min..max of every run, CPU time of the process (all its
 * threads) beside wall time, load average before and after.  Each timed
 * write runs in a child forked for it, so no writer reuses memory that
 * another run faulted in and freed (on a host where fresh memory is slow,
 * an OTF2 run after libslog's was 1.4-1.9 s or 2.4-3.2 s depending on what
 * libslog had left in the heap: doc/PERFORMANCE.md).
 *
 *   bench_thread [--what write,pair,scale] [--states N] [--timelines T]
 *                [--categories C] [--reps R] [--pairs N] [--threads 1,2,4,8]
 *                [--buffer-bytes B] [--queue-bytes Q] [--dir DIR] [--no-otf2]
 *                [--sync] [--keep]
 * --sync adds the synchronous writer (slog_writer_append_state on the
 * calling thread) on the same operations to each write run; --keep keeps
 * the files of the last run in DIR.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slog/slog.h>

#include "bench_gen.h"
#ifdef SLOG_HAVE_OTF2
#    include "bench_otf2.h"
#endif

#define BLOCK   65536
#define MAX_REP 64

typedef struct bt_opts {
    uint64_t states, pairs;
    uint32_t timelines, categories, reps;
    const char *dir, *what, *threads;
    slog_twriter_options topts;
    int otf2, sync, keep;
} bt_opts;

/* bench_gen's operations packed: timeline (16 bits), category (8), leave
 * (1), time step from the previous operation (7). */
typedef struct packed_ops {
    uint32_t *ops;
    size_t n, cap;
    int64_t t0;
    uint64_t states;
} packed_ops;

static int pack_one(packed_ops *p, const bgen_op *op, int64_t *prev)
{
    const int64_t dt = p->n == 0 ? 0 : op->time - *prev;
    if (op->tl > 0xffff || op->cat > 0xff || dt < 0 || dt > 127) {
        fprintf(stderr, "bench_thread: operation does not pack (timeline %u, category %u, step "
                        "%lld)\n",
                op->tl, op->cat, (long long)dt);
        return -1;
    }
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 1u << 20;
        uint32_t *const q = realloc(p->ops, p->cap * sizeof *q);
        if (q == NULL) {
            return -1;
        }
        p->ops = q;
    }
    if (p->n == 0) {
        p->t0 = op->time;
    }
    p->ops[p->n++] = op->tl | op->cat << 16 | op->leave << 24 | (uint32_t)dt << 25;
    *prev = op->time;
    return 0;
}

static int pack_ops(packed_ops *p, const bt_opts *o)
{
    memset(p, 0, sizeof *p);
    bgen g;
    bgen_op *const ops = malloc(BLOCK * sizeof *ops);
    if (ops == NULL || bgen_init(&g, o->states, o->timelines, o->categories, 42) != 0) {
        free(ops);
        return -1;
    }
    int64_t prev = 0;
    size_t n;
    int rc = 0;
    while (rc == 0 && (n = bgen_fill(&g, ops, BLOCK)) > 0) {
        for (size_t i = 0; i < n && rc == 0; i++) {
            rc = pack_one(p, &ops[i], &prev);
        }
    }
    p->states = g.states;
    bgen_free(&g);
    free(ops);
    return rc;
}

static void fail(const char *what, int rc, const slog_error *err)
{
    fprintf(stderr, "bench_thread: %s: %s: %s\n", what, slog_status_name(rc), err->message);
}

/* Create the writer with its locations (one per timeline) and categories. */
static int open_all(const bt_opts *o, const char *path, slog_twriter **tw, slog_location **locs,
                    uint32_t *cats, slog_error *err)
{
    int rc = slog_twriter_create(tw, path, &o->topts, err);
    for (uint32_t i = 0; rc == SLOG_OK && i < o->timelines; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%u", i);
        rc = slog_twriter_open_location(*tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, name, &locs[i],
                                        err);
    }
    for (uint32_t c = 0; rc == SLOG_OK && c < o->categories; c++) {
        char name[32];
        snprintf(name, sizeof name, "c%u", c);
        rc = slog_twriter_category(*tw, SLOG_KIND_STATE, name, &cats[c], err);
    }
    return rc;
}

static int close_all(const bt_opts *o, slog_twriter *tw, slog_location **locs, slog_error *err)
{
    for (uint32_t i = 0; i < o->timelines; i++) {
        slog_location_close(locs[i]);
    }
    const int rc = slog_twriter_finish(tw, err);
    slog_twriter_stats st;
    slog_twriter_get_stats(tw, &st);
    slog_twriter_destroy(tw);
    if (rc == SLOG_OK && (st.dropped || st.rejected)) {
        fprintf(stderr, "bench_thread: %llu dropped, %llu rejected\n",
                (unsigned long long)st.dropped, (unsigned long long)st.rejected);
        return SLOG_EINVAL;
    }
    return rc;
}

/* bench_write's workload through the threaded writer; all of it timed. */
static int write_threaded(const bt_opts *o, const packed_ops *p, const char *path,
                          bench_timer *tm)
{
    slog_location **const locs = calloc(o->timelines, sizeof *locs);
    uint32_t *const cats = calloc(o->categories, sizeof *cats);
    slog_twriter *tw = NULL;
    slog_error err;
    int rc = locs && cats ? SLOG_OK : SLOG_ENOMEM;
    bench_timer_start(tm);
    if (rc == SLOG_OK) {
        rc = open_all(o, path, &tw, locs, cats, &err);
    }
    int64_t t = p->t0;
    for (size_t i = 0; rc == SLOG_OK && i < p->n; i++) {
        const uint32_t op = p->ops[i];
        t += op >> 25;
        slog_location *const loc = locs[op & 0xffff];
        rc = (op >> 24 & 1) ? slog_location_end(loc, t)
                            : slog_location_begin(loc, cats[op >> 16 & 0xff], t, NULL, 0);
    }
    if (rc == SLOG_OK) {
        rc = close_all(o, tw, locs, &err);
    }
    bench_timer_stop(tm);
    if (rc != SLOG_OK) {
        fail("write", rc, &err);
    }
    free(locs);
    free(cats);
    return rc == SLOG_OK ? 0 : -1;
}

/* The same operations through the synchronous writer (slog_writer.h,
 * whole states with their depth, as bench_write feeds it): the anchor that
 * shows what the background thread changes. */
static int write_sync(const bt_opts *o, const packed_ops *p, const char *path, bench_timer *tm)
{
    int64_t *const starts = calloc((size_t)o->timelines * 64, sizeof *starts);
    uint32_t *const depth = calloc(o->timelines, sizeof *depth);
    slog_writer *w = NULL;
    slog_error err;
    int rc = starts && depth ? SLOG_OK : SLOG_ENOMEM;
    bench_timer_start(tm);
    if (rc == SLOG_OK) {
        rc = slog_writer_create(&w, path, o->topts.writer, &err);
    }
    for (uint32_t i = 0; rc == SLOG_OK && i < o->timelines; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%u", i);
        rc = slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, name, i, NULL, &err);
    }
    for (uint32_t c = 0; rc == SLOG_OK && c < o->categories; c++) {
        char name[32];
        snprintf(name, sizeof name, "c%u", c);
        rc = slog_writer_add_category(w, SLOG_KIND_STATE, name, 0, NULL, NULL, &err);
    }
    int64_t t = p->t0;
    for (size_t i = 0; rc == SLOG_OK && i < p->n; i++) {
        const uint32_t op = p->ops[i], tl = op & 0xffff;
        t += op >> 25;
        if (op >> 24 & 1) {
            const uint32_t d = --depth[tl];
            const slog_state s = {tl, op >> 16 & 0xff, starts[tl * 64 + d], t, d, 0, NULL};
            rc = slog_writer_append_state(w, &s, &err);
        } else if (depth[tl] < 64) {
            starts[tl * 64 + depth[tl]++] = t;
        }
    }
    if (rc == SLOG_OK) {
        rc = slog_writer_finish(w, &err);
    }
    slog_writer_destroy(w);
    bench_timer_stop(tm);
    if (rc != SLOG_OK) {
        fail("sync write", rc, &err);
    }
    free(starts);
    free(depth);
    return rc == SLOG_OK ? 0 : -1;
}

/* Median, then min and max of @p v (sorted in place). */
static void spread(double *v, uint32_t n, double out[3])
{
    out[0] = bench_median(v, n);
    out[1] = v[0];
    out[2] = v[n - 1];
}

/* One timed write of variant v (0 threaded, 1 synchronous, 2 OTF2). */
static int write_variant(const bt_opts *o, const packed_ops *p, int v, double *wall, double *cpu,
                         uint64_t *bytes)
{
    static const char *const names[3] = {"bench_thread.slog", "bench_thread_sync.slog",
                                         "bench_thread_otf2"};
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", o->dir, names[v]);
    bench_remove(path);
    bench_timer tm = {0};
    int rc = -1;
    if (v == 0) {
        rc = write_threaded(o, p, path, &tm);
    } else if (v == 1) {
        rc = write_sync(o, p, path, &tm);
    }
#ifdef SLOG_HAVE_OTF2
    uint64_t written;
    if (v == 2) {
        rc = bench_otf2_write(path, o->states, o->timelines, o->categories, 42, &tm, &written);
    }
#endif
    *wall = tm.wall;
    *cpu = tm.cpu;
    *bytes = bench_disk_bytes(path);
    if (!o->keep) {
        bench_remove(path);
    }
    return rc;
}

/* One write_variant, as bench_forked runs it. */
typedef struct variant_job {
    const bt_opts *o;
    const packed_ops *p;
    int v;
} variant_job;

static int variant_in_child(void *ctx, double out[4])
{
    const variant_job *j = ctx;
    uint64_t bytes = 0;
    const int rc = write_variant(j->o, j->p, j->v, &out[0], &out[1], &bytes);
    out[2] = (double)bytes;
    return rc;
}

/* write_variant in a child of its own (bench_forked). */
static int write_variant_forked(const bt_opts *o, const packed_ops *p, int v, double *wall,
                                double *cpu, uint64_t *bytes)
{
    variant_job j = {o, p, v};
    double out[4] = {0, 0, 0, 0};
    const int rc = bench_forked(variant_in_child, &j, out);
    *wall = out[0];
    *cpu = out[1];
    *bytes = (uint64_t)out[2];
    return rc;
}

static void report_variant(const char *name, double *w, double *c, uint32_t n, uint64_t states,
                           uint64_t bytes, double out[2])
{
    double a[3], b[3];
    spread(w, n, a);
    spread(c, n, b);
    printf("%-17s wall median %.3f s (%.3f..%.3f), cpu median %.3f s (%.3f..%.3f), %.2f M "
           "states/s, %.2f B/state\n",
           name, a[0], a[1], a[2], b[0], b[1], b[2], (double)states / a[0] / 1e6,
           (double)bytes / (double)states);
    out[0] = a[0];
    out[1] = b[0];
}

static int run_write(const bt_opts *o)
{
    static const char *const names[3] = {"libslog threaded", "libslog sync", "OTF2"};
    packed_ops p;
    if (pack_ops(&p, o) != 0) {
        return 1;
    }
    const int on[3] = {1, o->sync, o->otf2};
    double w[3][MAX_REP], c[3][MAX_REP], med[3][2];
    uint64_t bytes[3] = {0, 0, 0};
    printf("write: %llu states, %u timelines, %u categories, buffer %u B, queue %llu B, %u runs\n",
           (unsigned long long)p.states, o->timelines, o->categories, o->topts.buffer_bytes,
           (unsigned long long)o->topts.queue_bytes, o->reps);
    for (uint32_t r = 0; r < o->reps; r++) {
        printf("  run %u:", r + 1);
        for (int v = 0; v < 3; v++) {
            if (on[v] && write_variant_forked(o, &p, v, &w[v][r], &c[v][r], &bytes[v]) != 0) {
                free(p.ops);
                return 1;
            }
            if (on[v]) {
                printf(" %s %.3f s (cpu %.3f)", names[v], w[v][r], c[v][r]);
            }
        }
        printf("\n");
    }
    for (int v = 0; v < 3; v++) {
        if (on[v]) {
            report_variant(names[v], w[v], c[v], o->reps, p.states, bytes[v], med[v]);
        }
    }
    for (int v = 0; v < 2; v++) {
        if (on[v] && on[2]) {
            printf("ratio %s / OTF2 (medians): wall %.3f, cpu %.3f\n", names[v],
                   med[v][0] / med[2][0], med[v][1] / med[2][1]);
        }
    }
    free(p.ops);
    return 0;
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Calling-thread time of @p pairs begin+end pairs on one location: wall
 * and the thread's own CPU time (less disturbed by a loaded machine). */
static int pairs_slog(const bt_opts *o, const char *path, double *secs, double *cpu)
{
    slog_twriter *tw;
    slog_location *loc;
    uint32_t cats[8];
    slog_error err;
    int rc = slog_twriter_create(&tw, path, &o->topts, &err);
    if (rc != SLOG_OK) {
        fail("pair", rc, &err);
        return -1;
    }
    rc = slog_twriter_open_location(tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t", &loc, &err);
    for (uint32_t c = 0; rc == SLOG_OK && c < 8; c++) {
        char name[16];
        snprintf(name, sizeof name, "c%u", c);
        rc = slog_twriter_category(tw, SLOG_KIND_STATE, name, &cats[c], &err);
    }
    const double t0 = bench_now(), c0 = thread_cpu();
    for (uint64_t i = 0; rc == SLOG_OK && i < o->pairs; i++) {
        rc = slog_location_begin(loc, cats[i & 7], (int64_t)(2 * i), NULL, 0);
        rc |= slog_location_end(loc, (int64_t)(2 * i + 1));
    }
    *secs = bench_now() - t0;
    *cpu = thread_cpu() - c0;
    slog_location_close(loc);
    if (rc == SLOG_OK) {
        rc = slog_twriter_finish(tw, &err);
    }
    slog_twriter_destroy(tw);
    if (rc != SLOG_OK) {
        fail("pair", rc, &err);
    }
    return rc == SLOG_OK ? 0 : -1;
}

static int run_pair(const bt_opts *o)
{
    char spath[1024], odir[1024];
    snprintf(spath, sizeof spath, "%s/bench_thread_pair.slog", o->dir);
    snprintf(odir, sizeof odir, "%s/bench_thread_pair_otf2", o->dir);
    double s[MAX_REP], sc[MAX_REP], t[MAX_REP], tc[MAX_REP];
    printf("pair: %llu begin+end pairs on one location, %u runs (ns per pair, calling thread)\n",
           (unsigned long long)o->pairs, o->reps);
    for (uint32_t r = 0; r < o->reps; r++) {
        bench_remove(spath);
        if (pairs_slog(o, spath, &s[r], &sc[r]) != 0) {
            return 1;
        }
        bench_remove(spath);
        s[r] = s[r] / (double)o->pairs * 1e9;
        sc[r] = sc[r] / (double)o->pairs * 1e9;
        printf("  run %u: libslog %.2f ns (thread cpu %.2f)", r + 1, s[r], sc[r]);
        t[r] = tc[r] = 0;
#ifdef SLOG_HAVE_OTF2
        if (o->otf2) {
            bench_remove(odir);
            if (bench_otf2_pairs(odir, o->pairs, &t[r], &tc[r]) != 0) {
                fprintf(stderr, "bench_thread: OTF2 failed\n");
                return 1;
            }
            bench_remove(odir);
            t[r] = t[r] / (double)o->pairs * 1e9;
            tc[r] = tc[r] / (double)o->pairs * 1e9;
            printf(", OTF2 Enter+Leave %.2f ns (thread cpu %.2f)", t[r], tc[r]);
        }
#endif
        printf("\n");
    }
    double a[3], b[3];
    spread(s, o->reps, a);
    spread(sc, o->reps, b);
    printf("libslog begin+end: median %.2f ns (%.2f..%.2f), thread cpu median %.2f ns "
           "(%.2f..%.2f)\n", a[0], a[1], a[2], b[0], b[1], b[2]);
    if (o->otf2 && t[0] > 0) {
        spread(t, o->reps, a);
        spread(tc, o->reps, b);
        printf("OTF2 Enter+Leave:  median %.2f ns (%.2f..%.2f), thread cpu median %.2f ns "
               "(%.2f..%.2f)\n", a[0], a[1], a[2], b[0], b[1], b[2]);
    }
    return 0;
}

/* ---- scale: k threads at once ---- */

typedef struct scale_worker {
    slog_twriter *tw;
    uint64_t pairs;
    pthread_barrier_t *start;
    double done; /* bench_now() after its last append */
    int rc;
} scale_worker;

static void *scale_main(void *arg)
{
    scale_worker *const w = arg;
    slog_location *loc;
    uint32_t cat = 0;
    w->rc = slog_twriter_open_location(w->tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "w", &loc,
                                       NULL);
    if (w->rc == SLOG_OK) {
        w->rc = slog_twriter_category(w->tw, SLOG_KIND_STATE, "c", &cat, NULL);
    }
    pthread_barrier_wait(w->start);
    for (uint64_t i = 0; w->rc == SLOG_OK && i < w->pairs; i++) {
        w->rc = slog_location_begin(loc, cat, (int64_t)(2 * i), NULL, 0);
        w->rc |= slog_location_end(loc, (int64_t)(2 * i + 1));
    }
    w->done = bench_now();
    if (loc != NULL) {
        slog_location_close(loc);
    }
    return NULL;
}

/* One run with @p k threads: seconds until the last append returned and
 * until finish returned, and the process CPU time. */
static int scale_once(const bt_opts *o, const char *path, uint32_t k, double out[3])
{
    slog_twriter *tw;
    slog_error err;
    if (slog_twriter_create(&tw, path, &o->topts, &err) != SLOG_OK) {
        fail("scale", -1, &err);
        return -1;
    }
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, k + 1);
    scale_worker w[8];
    pthread_t th[8];
    for (uint32_t i = 0; i < k; i++) {
        w[i] = (scale_worker){tw, o->pairs / k, &start, 0, 0};
        pthread_create(&th[i], NULL, scale_main, &w[i]);
    }
    pthread_barrier_wait(&start);
    const double t0 = bench_now(), c0 = bench_cpu();
    double last = t0;
    int rc = 0;
    for (uint32_t i = 0; i < k; i++) {
        pthread_join(th[i], NULL);
        last = w[i].done > last ? w[i].done : last;
        rc |= w[i].rc;
    }
    rc |= slog_twriter_finish(tw, &err);
    out[0] = last - t0;
    out[1] = bench_now() - t0;
    out[2] = bench_cpu() - c0;
    slog_twriter_destroy(tw);
    pthread_barrier_destroy(&start);
    return rc == 0 ? 0 : -1;
}

static int run_scale(const bt_opts *o)
{
    char spath[1024];
    snprintf(spath, sizeof spath, "%s/bench_thread_scale.slog", o->dir);
    printf("scale: %llu states in all, split over k threads (each its own location), %u runs, "
           "%ld cores\n",
           (unsigned long long)o->pairs, o->reps, sysconf(_SC_NPROCESSORS_ONLN));
    char list[64];
    snprintf(list, sizeof list, "%s", o->threads);
    for (char *tok = strtok(list, ","); tok != NULL; tok = strtok(NULL, ",")) {
        const uint32_t k = (uint32_t)atoi(tok);
        if (k < 1 || k > 8) {
            fprintf(stderr, "bench_thread: --threads takes 1..8\n");
            return 2;
        }
        double app[MAX_REP], all[MAX_REP], cpu[MAX_REP];
        for (uint32_t r = 0; r < o->reps; r++) {
            double v[3];
            bench_remove(spath);
            if (scale_once(o, spath, k, v) != 0) {
                return 1;
            }
            app[r] = v[0];
            all[r] = v[1];
            cpu[r] = v[2];
        }
        bench_remove(spath);
        double a[3], b[3], c[3];
        spread(app, o->reps, a);
        spread(all, o->reps, b);
        spread(cpu, o->reps, c);
        printf("  %u thread(s): appends %.2f M states/s (%.3f s, %.3f..%.3f), through finish "
               "%.2f M states/s (%.3f s, %.3f..%.3f), cpu %.3f s\n",
               k, (double)o->pairs / a[0] / 1e6, a[0], a[1], a[2], (double)o->pairs / b[0] / 1e6,
               b[0], b[1], b[2], c[0]);
    }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_thread [--what write,pair,scale] [--states N] [--timelines T] "
               "[--categories C] [--reps R] [--pairs N] [--threads 1,2,4,8] [--buffer-bytes B] "
               "[--queue-bytes Q] [--dir DIR] [--no-otf2] [--sync] [--keep]\n");
}

static int parse(int argc, char **argv, bt_opts *o)
{
    static const struct option lo[] = {
        {"what", 1, 0, 'w'},  {"states", 1, 0, 'n'},       {"timelines", 1, 0, 't'},
        {"categories", 1, 0, 'c'}, {"reps", 1, 0, 'r'},     {"pairs", 1, 0, 'p'},
        {"threads", 1, 0, 'k'}, {"buffer-bytes", 1, 0, 'b'}, {"queue-bytes", 1, 0, 'q'},
        {"dir", 1, 0, 'd'},   {"no-otf2", 0, 0, 'O'},      {"help", 0, 0, 'h'},
        {"sync", 0, 0, 'S'},  {"keep", 0, 0, 'K'},
        {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case 'w': o->what = optarg; break;
        case 'n': o->states = bench_parse_count(optarg); break;
        case 't': o->timelines = (uint32_t)bench_parse_count(optarg); break;
        case 'c': o->categories = (uint32_t)bench_parse_count(optarg); break;
        case 'r': o->reps = (uint32_t)bench_parse_count(optarg); break;
        case 'p': o->pairs = bench_parse_count(optarg); break;
        case 'k': o->threads = optarg; break;
        case 'b': o->topts.buffer_bytes = (uint32_t)bench_parse_count(optarg); break;
        case 'q': o->topts.queue_bytes = bench_parse_count(optarg); break;
        case 'd': o->dir = optarg; break;
        case 'O': o->otf2 = 0; break;
        case 'S': o->sync = 1; break;
        case 'K': o->keep = 1; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return 2;
        }
    }
    if (o->reps < 1 || o->reps > MAX_REP || o->timelines < 1 || o->timelines > 0xffff ||
        o->categories < 1 || o->categories > 0x100 || o->pairs < 1) {
        fprintf(stderr, "bench_thread: --reps 1..%d, --timelines 1..65535, --categories 1..256, "
                        "--pairs >= 1\n", MAX_REP);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    bt_opts o = {1000000, 10000000, 64, 16, 3, "/tmp", "write,pair,scale", "1,2,4,8",
                 SLOG_TWRITER_OPTIONS_INIT, 1, 0, 0};
#ifndef SLOG_HAVE_OTF2
    o.otf2 = 0;
#endif
    const int prc = parse(argc, argv, &o);
    if (prc != 0) {
        return prc;
    }
    if (o.topts.buffer_bytes == 0) {
        o.topts.buffer_bytes = 65536;
    }
    if (o.topts.queue_bytes == 0) {
        o.topts.queue_bytes = 64ull << 20;
    }
    bench_print_host("before");
    int rc = 0;
    if (rc == 0 && strstr(o.what, "write") != NULL) {
        rc = run_write(&o);
    }
    if (rc == 0 && strstr(o.what, "pair") != NULL) {
        rc = run_pair(&o);
    }
    if (rc == 0 && strstr(o.what, "scale") != NULL) {
        rc = run_scale(&o);
    }
    bench_print_host("after");
    return rc;
}
