/* SPDX-License-Identifier: MIT
 *
 * bench_write - issue 2 items 15 and 17.  The same synthetic nested states
 * (bench_gen: N states on T timelines, global end order) are written
 * through libslog (slog_writer_append_state, tree and previews included)
 * and through OTF2 (Enter/Leave per location), alternating, several
 * repetitions, each write in a child forked for it (so neither reuses
 * memory the other faulted in and freed: doc/PERFORMANCE.md, session 13);
 * generation is excluded from both timings (it runs in blocks between
 * timed writer calls).  Prints medians of wall time,
 * states/s, bytes on disk per state and the ratio libslog/OTF2.
 * --rss SIZES measures the libslog writer's peak RSS (ru_maxrss of a fresh
 * child process, re-executed so nothing of the parent is counted) for each
 * size.
 *
 *   bench_write [--states N] [--timelines T] [--categories C] [--reps R]
 *               [--dir DIR] [--leaf-bytes B] [--fanout F] [--lz4-level L]
 *               [--no-otf2] [--rss N[,N...]] [--keep]
 * --keep leaves the last libslog file in DIR/bench_write.slog (to compare
 * the bytes of two builds).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slog/slog.h>

#include "bench_gen.h"
#ifdef SLOG_HAVE_OTF2
#    include "bench_otf2.h"
#endif

#define BLOCK 65536

typedef struct bw_opts {
    uint64_t states;
    uint32_t timelines, categories, reps;
    const char *dir;
    slog_writer_options wopts;
    int otf2;
    const char *rss;
    int keep;
} bw_opts;

/* Write the states through libslog; only writer calls are timed. */
static int write_slog(const bw_opts *o, const char *path, bench_timer *timer, uint64_t *written)
{
    bgen g;
    bgen_op *ops = malloc(BLOCK * sizeof *ops);
    if (!ops || bgen_init(&g, o->states, o->timelines, o->categories, 42) != 0) {
        free(ops);
        return -1;
    }
    slog_error err;
    slog_writer *w = NULL;
    bench_timer_start(timer);
    int rc = slog_writer_create(&w, path, &o->wopts, &err);
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
    bench_timer_stop(timer);
    size_t n;
    while (rc == SLOG_OK && (n = bgen_fill(&g, ops, BLOCK)) > 0) {
        bench_timer_start(timer);
        for (size_t i = 0; i < n && rc == SLOG_OK; i++) {
            const bgen_op *op = &ops[i];
            if (op->leave) {
                const slog_state s = {op->tl, op->cat, op->start, op->time, op->depth, 0, NULL};
                rc = slog_writer_append_state(w, &s, &err);
            }
        }
        bench_timer_stop(timer);
    }
    bench_timer_start(timer);
    if (rc == SLOG_OK) {
        rc = slog_writer_finish(w, &err);
    }
    slog_writer_destroy(w);
    bench_timer_stop(timer);
    if (rc != SLOG_OK) {
        fprintf(stderr, "bench_write: libslog: %s: %s\n", slog_status_name(rc), err.message);
    }
    *written = g.states;
    bgen_free(&g);
    free(ops);
    return rc == SLOG_OK ? 0 : -1;
}

typedef struct result {
    double secs[64], cpu[64];
    uint64_t bytes, states;
} result;

static void report(const char *what, result *r, uint32_t reps)
{
    const double med = bench_median(r->secs, reps);
    const double cpu = bench_median(r->cpu, reps);
    printf("%-8s wall median %8.3f s (min %.3f, max %.3f, %u runs) %7.2f M states/s | cpu median "
           "%.3f s %7.2f M states/s | %6.2f B/state (%llu bytes)\n",
           what, med, r->secs[0], r->secs[reps - 1], reps, (double)r->states / med / 1e6, cpu,
           (double)r->states / cpu / 1e6, (double)r->bytes / (double)r->states,
           (unsigned long long)r->bytes);
}

/* One timed write in a child (bench_forked): out = wall, cpu, states. */
typedef struct write_job {
    const bw_opts *o;
    const char *path;
    int otf2;
} write_job;

static int write_in_child(void *ctx, double out[4])
{
    const write_job *j = ctx;
    bench_timer t = {0};
    uint64_t states = 0;
    int rc = -1;
    if (!j->otf2) {
        rc = write_slog(j->o, j->path, &t, &states);
    }
#ifdef SLOG_HAVE_OTF2
    if (j->otf2) {
        rc = bench_otf2_write(j->path, j->o->states, j->o->timelines, j->o->categories, 42, &t,
                              &states);
    }
#endif
    out[0] = t.wall;
    out[1] = t.cpu;
    out[2] = (double)states;
    return rc;
}

/* Run @p rep of one side (libslog, or OTF2 when @p otf2) in a fresh child
 * into @p r: the file or folder at @p path is written, measured and removed
 * (kept when @p keep). */
static int timed_run(const bw_opts *o, const char *path, int otf2, uint32_t rep, int keep,
                     result *r)
{
    bench_remove(path);
    write_job j = {o, path, otf2};
    double out[4] = {0, 0, 0, 0};
    if (bench_forked(write_in_child, &j, out) != 0) {
        fprintf(stderr, "bench_write: %s writing failed\n", otf2 ? "OTF2" : "libslog");
        return -1;
    }
    r->secs[rep] = out[0];
    r->cpu[rep] = out[1];
    r->states = (uint64_t)out[2];
    r->bytes = bench_disk_bytes(path);
    if (!keep) {
        bench_remove(path);
    }
    return 0;
}

/* The medians of both sides and their ratios (OTF2 when it ran). */
static int report_compare(result *rs, result *ro, uint32_t reps)
{
    double ratios[64], cratios[64];
    for (uint32_t rep = 0; rep < reps; rep++) {
        ratios[rep] = ro->states ? rs->secs[rep] / ro->secs[rep] : 0.0;
        cratios[rep] = ro->states ? rs->cpu[rep] / ro->cpu[rep] : 0.0;
    }
    report("libslog", rs, reps);
    if (ro->states == 0) {
        return 0;
    }
    report("OTF2", ro, reps);
    if (ro->states != rs->states) {
        fprintf(stderr, "bench_write: state counts differ (%llu vs %llu)\n",
                (unsigned long long)rs->states, (unsigned long long)ro->states);
        return 1;
    }
    const double ms = bench_median(rs->secs, reps), mo = bench_median(ro->secs, reps);
    const double cs = bench_median(rs->cpu, reps), co = bench_median(ro->cpu, reps);
    printf("ratio libslog/OTF2: wall %.3f (median/median), %.3f (median of per-run ratios); "
           "cpu %.3f (median/median), %.3f (median of per-run); bytes %.3f\n",
           ms / mo, bench_median(ratios, reps), cs / co, bench_median(cratios, reps),
           (double)rs->bytes / (double)ro->bytes);
    return 0;
}

static int run_compare(const bw_opts *o)
{
    char spath[1024], odir[1024];
    snprintf(spath, sizeof spath, "%s/bench_write.slog", o->dir);
    snprintf(odir, sizeof odir, "%s/bench_write_otf2", o->dir);
    result rs = {0}, ro = {0};
    printf("bench_write: %llu states, %u timelines, %u categories, leaf %u B, fanout %u, %u "
           "repetitions, files in %s\n",
           (unsigned long long)o->states, o->timelines, o->categories,
           o->wopts.leaf_bytes ? o->wopts.leaf_bytes : 65536, o->wopts.fanout ? o->wopts.fanout : 2,
           o->reps, o->dir);
    bench_print_host("before");
    for (uint32_t rep = 0; rep < o->reps; rep++) {
        if (timed_run(o, spath, 0, rep, o->keep && rep + 1 == o->reps, &rs) != 0) {
            return 1;
        }
        printf("  run %u: libslog %.3f s (cpu %.3f)", rep + 1, rs.secs[rep], rs.cpu[rep]);
#ifdef SLOG_HAVE_OTF2
        if (o->otf2) {
            if (timed_run(o, odir, 1, rep, 0, &ro) != 0) {
                return 1;
            }
            printf(", OTF2 %.3f s (cpu %.3f), ratio %.3f (cpu %.3f)", ro.secs[rep], ro.cpu[rep],
                   rs.secs[rep] / ro.secs[rep], rs.cpu[rep] / ro.cpu[rep]);
        }
#endif
        printf("\n");
        fflush(stdout);
    }
    bench_print_host("after");
    return report_compare(&rs, &ro, o->reps);
}

/* ---- peak RSS ---------------------------------------------------------------------------- */

static int rss_child(const bw_opts *o)
{
    char spath[1024];
    snprintf(spath, sizeof spath, "%s/bench_rss_%d.slog", o->dir, (int)getpid());
    bench_timer t = {0};
    uint64_t written = 0;
    const int rc = write_slog(o, spath, &t, &written);
    const double secs = t.wall;
    const uint64_t bytes = bench_disk_bytes(spath);
    bench_remove(spath);
    /* VmHWM: peak RSS of this process image alone (ru_maxrss would also
     * count the parent's pages mapped before exec). */
    unsigned long long hwm = 0;
    FILE *st = fopen("/proc/self/status", "r");
    char line[256];
    while (st && fgets(line, sizeof line, st)) {
        if (sscanf(line, "VmHWM: %llu kB", &hwm) == 1) {
            break;
        }
    }
    if (st) {
        fclose(st);
    }
    printf("%llu %.3f %llu %llu\n", (unsigned long long)written, secs, (unsigned long long)bytes,
           hwm);
    return rc == 0 ? 0 : 1;
}

/* One size of --rss: re-execute this program as --rss-child for @p tok
 * states and print what it reports.  Returns 0, or 1 when it failed. */
static int rss_one(const bw_opts *o, const char *self, const char *tok)
{
    const uint64_t n = bench_parse_count(tok);
    char nbuf[32], tbuf[32], cbuf[32], lbuf[32], fbuf[32];
    snprintf(nbuf, sizeof nbuf, "%llu", (unsigned long long)n);
    snprintf(tbuf, sizeof tbuf, "%u", o->timelines);
    snprintf(cbuf, sizeof cbuf, "%u", o->categories);
    snprintf(lbuf, sizeof lbuf, "%u", o->wopts.leaf_bytes);
    snprintf(fbuf, sizeof fbuf, "%u", o->wopts.fanout);
    int fds[2];
    if (pipe(fds) != 0) {
        return 1;
    }
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl(self, self, "--rss-child", "--states", nbuf, "--timelines", tbuf, "--categories",
              cbuf, "--leaf-bytes", lbuf, "--fanout", fbuf, "--dir", o->dir, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char out[256] = {0};
    FILE *f = fdopen(fds[0], "r");
    if (!f || !fgets(out, sizeof out, f)) {
        out[0] = '\0';
    }
    if (f) {
        fclose(f);
    }
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "bench_write: RSS child for %s states failed (status %#x)\n", tok,
                (unsigned)status);
        return 1;
    }
    unsigned long long written = 0, bytes = 0, hwm = 0;
    double secs = 0.0;
    if (sscanf(out, "%llu %lf %llu %llu", &written, &secs, &bytes, &hwm) != 4) {
        return 1;
    }
    printf("  %12llu states: peak RSS %8.1f MiB (VmHWM; ru_maxrss %.1f MiB), %.2f s, "
           "%.2f B/state\n",
           written, (double)hwm / 1024.0, (double)ru.ru_maxrss / 1024.0, secs,
           (double)bytes / (double)written);
    fflush(stdout);
    return 0;
}

static int run_rss(const bw_opts *o, const char *self)
{
    printf("bench_write --rss: libslog writer peak RSS (ru_maxrss of a fresh process), %u "
           "timelines, %u categories\n",
           o->timelines, o->categories);
    char *list = strdup(o->rss);
    if (!list) {
        return 1;
    }
    int status_all = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        status_all |= rss_one(o, self, tok);
    }
    free(list);
    return status_all;
}

static void usage(FILE *f)
{
    fputs("usage: bench_write [--states N] [--timelines T] [--categories C] [--reps R]\n"
          "                   [--dir DIR] [--leaf-bytes B] [--fanout F] [--lz4-level L]\n"
          "                   [--no-otf2] [--rss N[,N...]] [--keep]\n",
          f);
}

/* Options into *o and *child; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, bw_opts *o, int *child)
{
    static const struct option longopts[] = {
        {"states", required_argument, NULL, 'n'},     {"timelines", required_argument, NULL, 't'},
        {"categories", required_argument, NULL, 'c'}, {"reps", required_argument, NULL, 'r'},
        {"dir", required_argument, NULL, 'd'},        {"leaf-bytes", required_argument, NULL, 'l'},
        {"fanout", required_argument, NULL, 'f'},     {"lz4-level", required_argument, NULL, 'z'},
        {"no-otf2", no_argument, NULL, 'O'},          {"rss", required_argument, NULL, 'R'},
        {"rss-child", no_argument, NULL, 'C'},        {"help", no_argument, NULL, 'h'},
        {"keep", no_argument, NULL, 'k'},             {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "n:t:c:r:d:l:f:z:OR:Chk", longopts, NULL)) != -1) {
        if (c == 'n' || c == 't' || c == 'c' || c == 'r' || c == 'l' || c == 'f' || c == 'z') {
            const uint64_t v = bench_parse_count(optarg);
            if (c == 'n') {
                o->states = v;
            } else if (c == 't') {
                o->timelines = (uint32_t)v;
            } else if (c == 'c') {
                o->categories = (uint32_t)v;
            } else if (c == 'r') {
                o->reps = (uint32_t)v;
            } else if (c == 'l') {
                o->wopts.leaf_bytes = (uint32_t)v;
            } else if (c == 'f') {
                o->wopts.fanout = (uint32_t)v;
            } else {
                o->wopts.lz4_level = (int32_t)v;
            }
        } else if (c == 'd') {
            o->dir = optarg;
        } else if (c == 'O') {
            o->otf2 = 0;
        } else if (c == 'R') {
            o->rss = optarg;
        } else if (c == 'C') {
            *child = 1;
        } else if (c == 'k') {
            o->keep = 1;
        } else {
            usage(c == 'h' ? stdout : stderr);
            return c == 'h' ? 0 : 2;
        }
    }
    if (o->reps < 1 || o->reps > 64 || o->timelines < 1 || o->categories < 1) {
        usage(stderr);
        return 2;
    }
    return -1;
}

int main(int argc, char **argv)
{
    bw_opts o = {.states = 1000000,
                 .timelines = 64,
                 .categories = 16,
                 .reps = 3,
                 .dir = "/tmp",
                 .wopts = SLOG_WRITER_OPTIONS_INIT,
                 .otf2 = 1};
    o.wopts.creator = "bench_write";
    const char *env = getenv("BENCH_STATES");
    if (env) {
        o.states = bench_parse_count(env);
    }
    int child = 0;
    const int status = parse_args(argc, argv, &o, &child);
    if (status >= 0) {
        return status;
    }
    if (child) {
        return rss_child(&o);
    }
    if (o.rss) {
        return run_rss(&o, "/proc/self/exe");
    }
    return run_compare(&o);
}
