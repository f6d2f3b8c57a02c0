/* SPDX-License-Identifier: MIT
 *
 * bench_crc_cost - what the CRC32C checksums of format 2/3 cost (issue 16
 * item 1), measured with them on and off in the same run, alternating
 * run by run: the benchmark switch codec_crc32c_bench_off (codec_crc32c.h;
 * the product never sets it) skips computing them when writing and
 * verifying them when reading.
 *   windows - on an existing file (--file, default /tmp/flat/s1e8.slog):
 *             a fresh reader (empty node cache; page cache warm after the
 *             first repetition), opened with checksums on, then queried to
 *             its end with them on or off: a 1 % window (50 %..51 %), a 10 %
 *             window (45 %..55 %) and the whole trace at --pixels (1000), and
 *             a 0.1 % window at full detail (every leaf it meets decoded);
 *   writer  - --write-states states of bench_gen.h's generator (64
 *             timelines) written to DIR/crc_cost.slog.
 * Prints, per case and mode, median [min..max] wall and CPU ms over --reps,
 * the on/off ratio of the medians, bytes decoded, and the 1-minute load
 * before and after (the machine is shared).
 *   bench_crc_cost [--file F] [--reps R] [--pixels P] [--write-states N] [--dir DIR]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slog/slog.h>

#include "bench_gen.h"
#include "codec_crc32c.h"

#define MAX_REPS 64

typedef struct cost_opts {
    const char *file, *dir;
    int reps;
    int64_t pixels;
    uint64_t write_states;
} cost_opts;

typedef struct window {
    const char *name;
    int a10, b10;     /* per mille of the file's range */
    int full_detail;  /* resolution 0 */
} window;

typedef struct samples {
    double wall[2][MAX_REPS], cpu[2][MAX_REPS]; /* [0] checksums on, [1] off */
    uint64_t decoded;
} samples;

static double load1(void)
{
    double l = -1;
    FILE *const f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fscanf(f, "%lf", &l) != 1) {
            l = -1;
        }
        (void)fclose(f);
    }
    return l;
}

static void print_row(const char *name, samples *s, int reps)
{
    double m[2][2];
    double lo[2][2], hi[2][2];
    for (int mode = 0; mode < 2; mode++) {
        double *const v[2] = {s->wall[mode], s->cpu[mode]};
        for (int k = 0; k < 2; k++) {
            lo[mode][k] = hi[mode][k] = v[k][0];
            for (int r = 1; r < reps; r++) {
                lo[mode][k] = v[k][r] < lo[mode][k] ? v[k][r] : lo[mode][k];
                hi[mode][k] = v[k][r] > hi[mode][k] ? v[k][r] : hi[mode][k];
            }
            m[mode][k] = bench_median(v[k], (size_t)reps);
        }
    }
    (void)printf("%-22s on  wall %9.2f [%.2f..%.2f] cpu %9.2f [%.2f..%.2f] ms\n", name,
                 m[0][0] * 1e3, lo[0][0] * 1e3, hi[0][0] * 1e3, m[0][1] * 1e3, lo[0][1] * 1e3,
                 hi[0][1] * 1e3);
    (void)printf("%-22s off wall %9.2f [%.2f..%.2f] cpu %9.2f [%.2f..%.2f] ms\n", "",
                 m[1][0] * 1e3, lo[1][0] * 1e3, hi[1][0] * 1e3, m[1][1] * 1e3, lo[1][1] * 1e3,
                 hi[1][1] * 1e3);
    (void)printf("%-22s on/off: wall %.3f, cpu %.3f; %llu bytes decoded\n", "",
                 m[0][0] / m[1][0], m[0][1] / m[1][1], (unsigned long long)s->decoded);
}

/* One query of window w on a fresh reader; checksums off when off. */
static int run_window(const char *file, const window *w, int64_t pixels, int off, double *wall,
                      double *cpu, uint64_t *decoded)
{
    slog_reader *r;
    slog_error err;
    if (slog_reader_open(&r, file, NULL, &err) != SLOG_OK) {
        (void)fprintf(stderr, "bench_crc_cost: %s: %s\n", file, err.message);
        return -1;
    }
    const slog_file_info *const fi = slog_reader_info(r);
    const int64_t span = fi->end - fi->start;
    slog_query_options o = SLOG_QUERY_OPTIONS_INIT;
    o.t0 = fi->start + span / 1000 * w->a10;
    o.t1 = fi->start + span / 1000 * w->b10;
    o.resolution = w->full_detail ? 0 : (o.t1 - o.t0) / pixels + 1;
    codec_crc32c_bench_off = off;
    const double t0 = bench_now(), c0 = bench_cpu();
    slog_query *q;
    int rc = slog_query_create(&q, r, &o, &err);
    const slog_item *it;
    while (rc == SLOG_OK && (rc = slog_query_next(q, &it, &err)) == SLOG_OK) {
    }
    *wall = bench_now() - t0;
    *cpu = bench_cpu() - c0;
    codec_crc32c_bench_off = 0;
    if (rc == SLOG_END) {
        slog_query_stats st;
        slog_query_stats_get(q, &st);
        *decoded = st.bytes_decoded;
    }
    slog_query_destroy(q);
    slog_reader_destroy(r);
    return rc == SLOG_END ? 0 : -1;
}

static int bench_windows(const cost_opts *o)
{
    static const window windows[] = {{"1% @pixels", 500, 510, 0},
                                     {"10% @pixels", 450, 550, 0},
                                     {"whole @pixels", 0, 1000, 0},
                                     {"0.1% full detail", 500, 501, 1}};
    (void)printf("windows on %s, %lld pixels, %d reps (load %.2f)\n", o->file,
                 (long long)o->pixels, o->reps, load1());
    for (size_t k = 0; k < sizeof windows / sizeof windows[0]; k++) {
        samples s;
        memset(&s, 0, sizeof s);
        for (int r = 0; r < o->reps; r++) {
            for (int i = 0; i < 2; i++) {
                const int off = (r + i) % 2; /* alternate which mode goes first */
                if (run_window(o->file, &windows[k], o->pixels, off, &s.wall[off][r],
                               &s.cpu[off][r], &s.decoded) != 0) {
                    return -1;
                }
            }
        }
        print_row(windows[k].name, &s, o->reps);
    }
    return 0;
}

static int write_file(const cost_opts *o, const char *path, int off, double *wall, double *cpu)
{
    bgen g;
    if (bgen_init(&g, o->write_states, 64, 16, 7) != 0) {
        return -1;
    }
    codec_crc32c_bench_off = off;
    const double t0 = bench_now(), c0 = bench_cpu();
    slog_writer *w;
    int rc = slog_writer_create(&w, path, NULL, NULL);
    for (uint32_t t = 0; rc == SLOG_OK && t < 64; t++) {
        rc = slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t", 0, NULL, NULL);
    }
    for (uint32_t c = 0; rc == SLOG_OK && c < 16; c++) {
        rc = slog_writer_add_category(w, SLOG_KIND_STATE, "c", 0, NULL, NULL, NULL);
    }
    bgen_op ops[4096];
    size_t n;
    while (rc == SLOG_OK && (n = bgen_fill(&g, ops, 4096)) > 0) {
        for (size_t i = 0; rc == SLOG_OK && i < n; i++) {
            if (ops[i].leave) {
                const slog_state s = {ops[i].tl, ops[i].cat, ops[i].start, ops[i].time,
                                      ops[i].depth, 0, NULL};
                rc = slog_writer_append_state(w, &s, NULL);
            }
        }
    }
    rc = rc == SLOG_OK ? slog_writer_finish(w, NULL) : rc;
    slog_writer_destroy(w);
    *wall = bench_now() - t0;
    *cpu = bench_cpu() - c0;
    codec_crc32c_bench_off = 0;
    bgen_free(&g);
    return rc == SLOG_OK ? 0 : -1;
}

static int bench_writer(const cost_opts *o)
{
    char path[4096];
    (void)snprintf(path, sizeof path, "%s/crc_cost.slog", o->dir);
    (void)printf("writer: %llu states, 64 timelines, %d reps (load %.2f)\n",
                 (unsigned long long)o->write_states, o->reps, load1());
    samples s;
    memset(&s, 0, sizeof s);
    for (int r = 0; r < o->reps; r++) {
        for (int i = 0; i < 2; i++) {
            const int off = (r + i) % 2;
            if (write_file(o, path, off, &s.wall[off][r], &s.cpu[off][r]) != 0) {
                (void)fprintf(stderr, "bench_crc_cost: cannot write %s\n", path);
                return -1;
            }
        }
    }
    bench_remove(path);
    print_row("write", &s, o->reps);
    return 0;
}

int main(int argc, char **argv)
{
    cost_opts o = {"/tmp/flat/s1e8.slog", "/tmp", 7, 1000, 1000000};
    static const struct option longs[] = {
        {"file", required_argument, NULL, 'f'},         {"dir", required_argument, NULL, 'd'},
        {"reps", required_argument, NULL, 'r'},         {"pixels", required_argument, NULL, 'p'},
        {"write-states", required_argument, NULL, 'w'}, {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "f:d:r:p:w:", longs, NULL)) != -1) {
        switch (c) {
        case 'f':
            o.file = optarg;
            break;
        case 'd':
            o.dir = optarg;
            break;
        case 'r':
            o.reps = (int)bench_parse_count(optarg);
            break;
        case 'p':
            o.pixels = (int64_t)bench_parse_count(optarg);
            break;
        case 'w':
            o.write_states = bench_parse_count(optarg);
            break;
        default:
            return 2;
        }
    }
    if (o.reps < 1 || o.reps > MAX_REPS || o.pixels < 1) {
        (void)fprintf(stderr, "bench_crc_cost: --reps 1..%d, --pixels >= 1\n", MAX_REPS);
        return 2;
    }
    const int rc = bench_windows(&o) != 0 || bench_writer(&o) != 0;
    (void)printf("load after: %.2f\n", load1());
    return rc;
}
