/* SPDX-License-Identifier: MIT
 *
 * bench_query - issue 2 item 16.  Writes N nested states (bench_gen, the
 * same as bench_write) as a libslog file and as an OTF2 archive, then for
 * windows of 10 %, 1 % and 0.01 % of the trace at random positions queries
 * libslog at 1000 pixels (resolution = window / pixels):
 *   cold disk   - the file's pages dropped from the page cache
 *                 (posix_fadvise DONTNEED), new reader: open + query;
 *   cold reader - new reader (empty node cache), page cache warm: query;
 *   warm        - the same query again on that reader;
 * with nodes read, bytes read and items; and OTF2, which has no index:
 *   to t1       - global event reader from the start, stopping at the first
 *                 event at or after t1 (the least OTF2 must read), page
 *                 cache warm;
 *   full scan   - all events, filtering by time.
 * Medians over the positions.  At full detail the libslog and OTF2 state
 * counts of one window are compared as a cross-check.
 *
 *   bench_query [--states N] [--timelines T] [--categories C] [--positions P]
 *               [--otf2-positions Q] [--pixels X] [--dir DIR] [--reuse] [--keep]
 *               [--no-otf2] [--leaf-bytes B] [--fanout F] [--windows PCT,...]
 * --windows sets the window sizes in percent of the trace (default
 * 10,1,0.01).
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slog/slog.h>

#include "bench_gen.h"
#ifdef SLOG_HAVE_OTF2
#    include "bench_otf2.h"
#endif

#define BLOCK   65536
#define MAX_POS 64

typedef struct bq_opts {
    uint64_t states;
    uint32_t timelines, categories, positions, otf2_positions;
    int64_t pixels;
    const char *dir;
    int reuse, keep, otf2;
    slog_writer_options wopts;
    double fractions[8];
    int nfractions;
} bq_opts;

static int write_slog(const bq_opts *o, const char *path, double *secs)
{
    bgen g;
    bgen_op *ops = malloc(BLOCK * sizeof *ops);
    if (!ops || bgen_init(&g, o->states, o->timelines, o->categories, 42) != 0) {
        free(ops);
        return -1;
    }
    const double t = bench_now();
    slog_error err;
    slog_writer *w = NULL;
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
    size_t n;
    while (rc == SLOG_OK && (n = bgen_fill(&g, ops, BLOCK)) > 0) {
        for (size_t i = 0; i < n && rc == SLOG_OK; i++) {
            const bgen_op *op = &ops[i];
            if (op->leave) {
                const slog_state s = {op->tl, op->cat, op->start, op->time, op->depth, 0, NULL};
                rc = slog_writer_append_state(w, &s, &err);
            }
        }
    }
    if (rc == SLOG_OK) {
        rc = slog_writer_finish(w, &err);
    }
    slog_writer_destroy(w);
    *secs = bench_now() - t;
    if (rc != SLOG_OK) {
        fprintf(stderr, "bench_query: writing: %s: %s\n", slog_status_name(rc), err.message);
    }
    bgen_free(&g);
    free(ops);
    return rc == SLOG_OK ? 0 : -1;
}

static void drop_cache(const char *path)
{
    const int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
    }
}

typedef struct qstat {
    double secs;
    slog_query_stats st;
    uint64_t states; /* drawables of kind state */
} qstat;

static int run_query(slog_reader *r, int64_t t0, int64_t t1, int64_t resolution, qstat *out)
{
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.t0 = t0;
    q.t1 = t1;
    q.resolution = resolution;
    slog_error err;
    slog_query *qq = NULL;
    const double t = bench_now();
    int rc = slog_query_create(&qq, r, &q, &err);
    const slog_item *it = NULL;
    out->states = 0;
    while (rc == SLOG_OK && (rc = slog_query_next(qq, &it, &err)) == SLOG_OK) {
        out->states += it->kind == SLOG_KIND_STATE;
    }
    out->secs = bench_now() - t;
    if (qq) {
        slog_query_stats_get(qq, &out->st);
    }
    slog_query_destroy(qq);
    if (rc != SLOG_END) {
        fprintf(stderr, "bench_query: query: %s: %s\n", slog_status_name(rc), err.message);
        return -1;
    }
    return 0;
}

static int open_reader(const char *path, slog_reader **r, double *secs)
{
    slog_error err;
    const double t = bench_now();
    const int rc = slog_reader_open(r, path, NULL, &err);
    *secs = bench_now() - t;
    if (rc != SLOG_OK) {
        fprintf(stderr, "bench_query: open: %s: %s\n", slog_status_name(rc), err.message);
        return -1;
    }
    return 0;
}

typedef struct window_result {
    double cold_disk[MAX_POS], open_cold[MAX_POS], cold_reader[MAX_POS], warm[MAX_POS];
    double nodes[MAX_POS], bytes[MAX_POS], items[MAX_POS];
    double otf2[MAX_POS];
    uint32_t n, notf2;
} window_result;

static int bench_window(const bq_opts *o, const char *spath, const char *odir, double fraction,
                        int64_t start, int64_t end, double full_scan, uint64_t *rng)
{
    window_result wr;
    memset(&wr, 0, sizeof wr);
    const int64_t span = end - start + 1;
    const int64_t w = (int64_t)((double)span * fraction) > 0 ? (int64_t)((double)span * fraction)
                                                              : 1;
    const int64_t res = w / o->pixels > 0 ? w / o->pixels : 1;
    for (uint32_t p = 0; p < o->positions; p++) {
        *rng = *rng * 6364136223846793005u + 1442695040888963407u;
        const int64_t t0 = start + (int64_t)((*rng >> 11) % (uint64_t)(span - w + 1));
        const int64_t t1 = t0 + w;
        slog_reader *r = NULL;
        qstat qs;
        /* cold disk: open + query after dropping the file's pages */
        drop_cache(spath);
        double open_secs = 0.0;
        if (open_reader(spath, &r, &open_secs) != 0 || run_query(r, t0, t1, res, &qs) != 0) {
            return -1;
        }
        wr.open_cold[p] = open_secs;
        wr.cold_disk[p] = open_secs + qs.secs;
        slog_reader_destroy(r);
        /* cold reader, warm page cache */
        if (open_reader(spath, &r, &open_secs) != 0 || run_query(r, t0, t1, res, &qs) != 0) {
            return -1;
        }
        wr.cold_reader[p] = qs.secs;
        wr.nodes[p] = (double)qs.st.nodes_read;
        wr.bytes[p] = (double)qs.st.bytes_read;
        wr.items[p] = (double)qs.st.items;
        /* warm: same reader again */
        if (run_query(r, t0, t1, res, &qs) != 0) {
            return -1;
        }
        wr.warm[p] = qs.secs;
#ifdef SLOG_HAVE_OTF2
        if (o->otf2 && p < o->otf2_positions) {
            uint64_t ostates = 0, oevents = 0;
            const double t = bench_now();
            if (bench_otf2_window(odir, t0, t1, 1, &ostates, &oevents) != 0) {
                fprintf(stderr, "bench_query: OTF2 scan failed\n");
                return -1;
            }
            wr.otf2[wr.notf2++] = bench_now() - t;
            if (p == 0) { /* cross-check at full detail */
                qstat full;
                if (run_query(r, t0, t1, 0, &full) != 0) {
                    return -1;
                }
                printf("  check %.4g%% window [%lld,%lld): libslog %llu states at full detail, "
                       "OTF2 %llu (%llu events read) %s\n",
                       fraction * 100, (long long)t0, (long long)t1,
                       (unsigned long long)full.states, (unsigned long long)ostates,
                       (unsigned long long)oevents, full.states == ostates ? "same" : "DIFFER");
                if (full.states != ostates) {
                    return -1;
                }
            }
        }
#else
        (void)odir;
#endif
        slog_reader_destroy(r);
        wr.n++;
    }
    const double cold_disk = bench_median(wr.cold_disk, wr.n);
    const double cold = bench_median(wr.cold_reader, wr.n);
    const double warm = bench_median(wr.warm, wr.n);
    printf("%7.4g%% | %9.3f ms (open %.3f) | %9.3f ms | %9.3f ms | %8.0f | %10.0f | %8.0f",
           fraction * 100, cold_disk * 1e3, bench_median(wr.open_cold, wr.n) * 1e3, cold * 1e3,
           warm * 1e3, bench_median(wr.nodes, wr.n), bench_median(wr.bytes, wr.n),
           bench_median(wr.items, wr.n));
    if (wr.notf2 > 0) {
        const double ot = bench_median(wr.otf2, wr.notf2);
        printf(" | %9.3f s (%u) | %7.3f s | %9.0fx | %9.0fx | %9.0fx", ot, wr.notf2, full_scan,
               ot / cold_disk, full_scan / cold_disk, full_scan / cold);
    }
    printf("\n");
    fflush(stdout);
    return 0;
}

static void usage(FILE *f)
{
    fputs("usage: bench_query [--states N] [--timelines T] [--categories C] [--positions P]\n"
          "                   [--otf2-positions Q] [--pixels X] [--dir DIR] [--reuse] [--keep]\n"
          "                   [--no-otf2] [--leaf-bytes B] [--fanout F] [--windows PCT,...]\n",
          f);
}

static int parse(int argc, char **argv, bq_opts *o)
{
    static const struct option longopts[] = {
        {"states", required_argument, NULL, 'n'},
        {"timelines", required_argument, NULL, 't'},
        {"categories", required_argument, NULL, 'c'},
        {"positions", required_argument, NULL, 'p'},
        {"otf2-positions", required_argument, NULL, 'q'},
        {"pixels", required_argument, NULL, 'x'},
        {"dir", required_argument, NULL, 'd'},
        {"reuse", no_argument, NULL, 'u'},
        {"keep", no_argument, NULL, 'k'},
        {"no-otf2", no_argument, NULL, 'O'},
        {"leaf-bytes", required_argument, NULL, 'l'},
        {"fanout", required_argument, NULL, 'f'},
        {"windows", required_argument, NULL, 'w'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "n:t:c:p:q:x:d:ukOl:f:w:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            o->states = bench_parse_count(optarg);
            break;
        case 't':
            o->timelines = (uint32_t)bench_parse_count(optarg);
            break;
        case 'c':
            o->categories = (uint32_t)bench_parse_count(optarg);
            break;
        case 'p':
            o->positions = (uint32_t)bench_parse_count(optarg);
            break;
        case 'q':
            o->otf2_positions = (uint32_t)bench_parse_count(optarg);
            break;
        case 'x':
            o->pixels = (int64_t)bench_parse_count(optarg);
            break;
        case 'd':
            o->dir = optarg;
            break;
        case 'u':
            o->reuse = 1;
            break;
        case 'k':
            o->keep = 1;
            break;
        case 'O':
            o->otf2 = 0;
            break;
        case 'l':
            o->wopts.leaf_bytes = (uint32_t)bench_parse_count(optarg);
            break;
        case 'f':
            o->wopts.fanout = (uint32_t)bench_parse_count(optarg);
            break;
        case 'w': { /* window sizes in percent: "10,1,0.01" */
            o->nfractions = 0;
            char *end = optarg;
            while (*end && o->nfractions < 8) {
                const double pct = strtod(end, &end);
                if (pct <= 0.0 || pct > 100.0 || (*end && *end != ',')) {
                    usage(stderr);
                    return -1;
                }
                o->fractions[o->nfractions++] = pct / 100.0;
                end += *end == ',';
            }
            break;
        }
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return -1;
        }
    }
    if (o->positions < 1 || o->positions > MAX_POS || o->pixels < 1 || o->timelines < 1 ||
        o->categories < 1) {
        usage(stderr);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    bq_opts o = {.states = 1000000,
                 .timelines = 64,
                 .categories = 16,
                 .positions = 9,
                 .otf2_positions = 3,
                 .pixels = 1000,
                 .dir = "/tmp",
                 .otf2 = 1,
                 .wopts = SLOG_WRITER_OPTIONS_INIT,
                 .fractions = {0.1, 0.01, 0.0001},
                 .nfractions = 3};
    o.wopts.creator = "bench_query";
    const char *env = getenv("BENCH_STATES");
    if (env) {
        o.states = bench_parse_count(env);
    }
    if (parse(argc, argv, &o) != 0) {
        return 2;
    }
#ifndef SLOG_HAVE_OTF2
    o.otf2 = 0;
#endif
    char spath[1024], odir[1024];
    snprintf(spath, sizeof spath, "%s/bench_query_%llu_%u.slog", o.dir,
             (unsigned long long)o.states, o.timelines);
    snprintf(odir, sizeof odir, "%s/bench_query_%llu_%u_otf2", o.dir,
             (unsigned long long)o.states, o.timelines);
    struct stat st;
    if (!o.reuse || stat(spath, &st) != 0) {
        double secs = 0.0;
        if (write_slog(&o, spath, &secs) != 0) {
            return 1;
        }
        printf("wrote %s in %.2f s\n", spath, secs);
    }
#ifdef SLOG_HAVE_OTF2
    if (o.otf2 && (!o.reuse || stat(odir, &st) != 0)) {
        bench_remove(odir);
        bench_timer t = {0};
        uint64_t written = 0;
        if (bench_otf2_write(odir, o.states, o.timelines, o.categories, 42, &t, &written) != 0) {
            fprintf(stderr, "bench_query: OTF2 writing failed\n");
            return 1;
        }
        printf("wrote %s in %.2f s\n", odir, t.wall);
    }
#endif
    slog_reader *r = NULL;
    double open_secs = 0.0;
    if (open_reader(spath, &r, &open_secs) != 0) {
        return 1;
    }
    const slog_file_info *in = slog_reader_info(r);
    const int64_t start = in->start, end = in->end;
    printf("bench_query: %llu states, %u timelines, %llu nodes, depth %u, %llu file bytes "
           "(%.2f B/state), %lld pixels, %u positions",
           (unsigned long long)in->states, in->timelines, (unsigned long long)in->nodes,
           in->depth, (unsigned long long)in->file_bytes,
           (double)in->file_bytes / (double)in->states, (long long)o.pixels, o.positions);
    slog_reader_destroy(r);
    double full_scan = 0.0;
#ifdef SLOG_HAVE_OTF2
    if (o.otf2) {
        uint64_t ostates = 0, oevents = 0;
        const double t = bench_now();
        if (bench_otf2_window(odir, start, end + 1, 0, &ostates, &oevents) != 0) {
            fprintf(stderr, "bench_query: OTF2 full scan failed\n");
            return 1;
        }
        full_scan = bench_now() - t;
        printf(", OTF2 %llu bytes (%.2f B/state), full scan %.3f s (%llu events, %llu states)",
               (unsigned long long)bench_disk_bytes(odir),
               (double)bench_disk_bytes(odir) / (double)ostates, full_scan,
               (unsigned long long)oevents, (unsigned long long)ostates);
    }
#endif
    printf("\n");
    printf(" window | cold disk: open+query | cold reader | warm       | nodes rd | bytes read | "
           "items    | OTF2 to t1 (n) | OTF2 full | to-t1/cold | full/cold | full/creader\n");
    uint64_t rng = 12345;
    for (int i = 0; i < o.nfractions; i++) {
        if (bench_window(&o, spath, odir, o.fractions[i], start, end, full_scan, &rng) != 0) {
            return 1;
        }
    }
    if (!o.keep) {
        bench_remove(spath);
        bench_remove(odir);
    }
    return 0;
}
