/* SPDX-License-Identifier: MIT
 *
 * bench_stats - issue 11 items 4 and 5 on an existing file (slog-synth):
 *   whole-trace statistics (by category, timeline, both): new reader each
 *   run, page cache dropped first (cold) and kept (warm);
 *   statistics of 1 % and 10 % windows at random positions (by category,
 *   timeline and both);
 *   the full scan they replace: a resolution-0 query of every state,
 *   aggregated per category (its totals are checked against statistics);
 *   search: next and previous drawable of the rarest state category from
 *   random times, and the 10 longest states of the whole trace and of 10 %
 *   windows.
 * Medians; costs as nodes decoded / previews used and bytes read.
 *
 *   bench_stats FILE [--positions P] [--no-scan]
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slog/slog.h>

#include "bench_gen.h"

#define MAXPOS 64

static void drop_cache(const char *path)
{
    const int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
    }
}

static slog_reader *open_reader(const char *path)
{
    slog_reader *r = NULL;
    slog_error err;
    if (slog_reader_open(&r, path, NULL, &err) != SLOG_OK) {
        (void)fprintf(stderr, "bench_stats: %s: %s\n", path, err.message);
        exit(1);
    }
    return r;
}

/* One statistics run. */
typedef struct stats_req {
    const char *path;
    int64_t t0, t1;
    uint32_t by;
    bool cold; /* drop the page cache first */
} stats_req;

/* One statistics run on a new reader: seconds, and the cost. */
static double stats_run(const stats_req *q, slog_stats_cost *cost, uint64_t *states)
{
    const char *const path = q->path;
    const int64_t t0 = q->t0, t1 = q->t1;
    const uint32_t by = q->by;
    const bool cold = q->cold;
    if (cold) {
        drop_cache(path);
    }
    const double start = bench_now();
    slog_reader *r = open_reader(path);
    const double opened = bench_now();
    slog_stats_options o = SLOG_STATS_OPTIONS_INIT;
    o.t0 = t0;
    o.t1 = t1;
    o.by = by;
    slog_stats *s = NULL;
    slog_error err;
    if (slog_stats_compute(&s, r, &o, &err) != SLOG_OK) {
        (void)fprintf(stderr, "bench_stats: statistics: %s\n", err.message);
        exit(1);
    }
    const double done = bench_now();
    slog_stats_cost_get(s, cost);
    size_t n = 0;
    const slog_stats_row *rows = slog_stats_rows(s, &n);
    *states = 0;
    for (size_t i = 0; i < n; i++) {
        *states += rows[i].kind == SLOG_KIND_STATE ? rows[i].count : 0;
    }
    slog_stats_destroy(s);
    slog_reader_destroy(r);
    (void)start;
    return done - opened;
}

static void whole_trace(const char *path, const slog_file_info *fi)
{
    static const char *const names[] = {"", "category", "timeline", "both"};
    (void)printf("whole-trace statistics (new reader; open excluded), median of 5:\n");
    for (uint32_t by = 1; by <= 3; by++) {
        for (int cold = 1; cold >= 0; cold--) {
            double t[5];
            slog_stats_cost c;
            uint64_t states = 0;
            for (int i = 0; i < 5; i++) {
                const stats_req q = {path, fi->start, fi->end + 1, by, cold != 0};
                t[i] = stats_run(&q, &c, &states);
            }
            (void)printf("  by %-8s %-4s %9.3f ms  previews %" PRIu64 ", decoded %" PRIu64
                   ", bytes read %" PRIu64 ", states %" PRIu64 "\n",
                   names[by], cold ? "cold" : "warm", bench_median(t, 5) * 1e3, c.previews_used,
                   c.nodes_decoded, c.bytes_read, states);
        }
    }
}

static void windows(const char *path, const slog_file_info *fi, int positions)
{
    static const double pct[] = {1.0, 10.0};
    (void)printf("window statistics (new reader, warm page cache), median of %d positions:\n",
           positions);
    static const char *const names[] = {"", "category", "timeline", "both"};
    for (int w = 0; w < 6; w++) {
        const uint32_t by = (uint32_t)w / 2 + 1;
        double t[MAXPOS], dec[MAXPOS], bytes[MAXPOS], prev[MAXPOS];
        const int64_t span = fi->end - fi->start;
        const int64_t len = (int64_t)((double)span * pct[w % 2] / 100.0);
        srand(42u + (unsigned)w % 2);
        for (int i = 0; i < positions; i++) {
            const int64_t t0 = fi->start + (int64_t)((double)rand() / RAND_MAX * (double)(span - len));
            slog_stats_cost c;
            uint64_t states;
            const stats_req q = {path, t0, t0 + len, by, false};
            t[i] = stats_run(&q, &c, &states);
            dec[i] = (double)c.nodes_decoded;
            bytes[i] = (double)c.bytes_read;
            prev[i] = (double)c.previews_used;
        }
        (void)printf("  %5.1f %% by %-8s %9.3f ms  previews %.0f, decoded %.0f, bytes read %.0f\n",
               pct[w % 2], names[by],
               bench_median(t, (size_t)positions) * 1e3, bench_median(prev, (size_t)positions),
               bench_median(dec, (size_t)positions), bench_median(bytes, (size_t)positions));
    }
}

static void full_scan(const char *path, const slog_file_info *fi)
{
    slog_reader *r = open_reader(path);
    slog_query_options q;
    slog_query_options_init(&q);
    q.t0 = fi->start;
    q.t1 = fi->end + 1;
    q.kinds = 1u << SLOG_KIND_STATE;
    int64_t *incl = calloc((size_t)fi->categories + 1, sizeof *incl);
    slog_query *qq = NULL;
    slog_error err;
    const double start = bench_now();
    if (incl == NULL || slog_query_create(&qq, r, &q, &err) != SLOG_OK) {
        (void)fprintf(stderr, "bench_stats: scan: %s\n", err.message);
        exit(1);
    }
    const slog_item *it;
    uint64_t n = 0;
    while (slog_query_next(qq, &it, &err) == SLOG_OK) {
        n++;
        incl[it->u.state.category] += it->u.state.end - it->u.state.start;
    }
    const double secs = bench_now() - start;
    (void)printf("full scan (resolution-0 query of every state, aggregated): %.3f s, %" PRIu64
           " states%s\n",
           secs, n, n == fi->states ? " (= statistics)" : " (MISMATCH)");
    slog_query_destroy(qq);
    slog_reader_destroy(r);
    free(incl);
}

/* The state category with the fewest states (in the whole trace). */
static uint32_t rarest_category(const char *path, const slog_file_info *fi)
{
    slog_reader *r = open_reader(path);
    slog_stats_options o = SLOG_STATS_OPTIONS_INIT;
    o.t0 = fi->start;
    o.t1 = fi->end + 1;
    o.kinds = 1;
    slog_stats *s = NULL;
    uint32_t best = 0;
    uint64_t count = 0;
    if (slog_stats_compute(&s, r, &o, NULL) == SLOG_OK) {
        size_t n = 0;
        const slog_stats_row *rows = slog_stats_rows(s, &n);
        for (size_t i = 0; i < n; i++) {
            if (rows[i].count < rows[best].count) {
                best = (uint32_t)i;
            }
        }
        count = n > 0 ? rows[best].count : 0;
        best = n > 0 ? rows[best].category : 0;
        (void)printf("search category: %u (%" PRIu64 " states)\n", best, count);
    }
    slog_stats_destroy(s);
    slog_reader_destroy(r);
    return best;
}

static void search(const char *path, const slog_file_info *fi, int positions)
{
    const uint32_t cat = rarest_category(path, fi);
    const int64_t span = fi->end - fi->start;
    for (int dir = 0; dir < 3; dir++) {
        double t[MAXPOS], nodes[MAXPOS], bytes[MAXPOS];
        srand(7u + (unsigned)dir);
        for (int i = 0; i < positions; i++) {
            slog_reader *r = open_reader(path);
            slog_search_options o = SLOG_SEARCH_OPTIONS_INIT;
            o.categories = &cat;
            o.ncategories = 1;
            const int64_t at = fi->start + (int64_t)((double)rand() / RAND_MAX * (double)span);
            o.t0 = dir == 2 ? at - span / 20 : 0;
            o.t1 = dir == 2 ? at + span / 20 : 0;
            slog_item item;
            slog_state top[10];
            uint32_t count = 10;
            slog_search_cost c;
            const double start = bench_now();
            const int rc = dir == 0   ? slog_search_next(r, &o, at, &item, &c, NULL)
                           : dir == 1 ? slog_search_prev(r, &o, at, &item, &c, NULL)
                                      : slog_search_top(r, &o, top, &count, &c, NULL);
            t[i] = bench_now() - start;
            nodes[i] = (double)(c.previews_read + c.nodes_decoded);
            bytes[i] = (double)c.bytes_read;
            if (rc != SLOG_OK && rc != SLOG_END) {
                (void)fprintf(stderr, "bench_stats: search failed: %s\n", slog_status_name(rc));
                exit(1);
            }
            slog_reader_destroy(r);
        }
        static const char *const what[] = {"next after T", "prev before T", "top 10 of a 10% window"};
        (void)printf("  %-22s %9.3f ms  nodes read %.0f, bytes read %.0f (median of %d)\n", what[dir],
               bench_median(t, (size_t)positions) * 1e3, bench_median(nodes, (size_t)positions),
               bench_median(bytes, (size_t)positions), positions);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        (void)fprintf(stderr, "usage: bench_stats FILE [--positions P] [--no-scan]\n");
        return 2;
    }
    const char *path = argv[1];
    int positions = 9;
    bool scan = true;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--positions") == 0 && i + 1 < argc) {
            positions = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--no-scan") == 0) {
            scan = false;
        }
    }
    positions = positions < 1 ? 1 : positions > MAXPOS ? MAXPOS : positions;
    slog_reader *r = open_reader(path);
    const slog_file_info fi = *slog_reader_info(r);
    slog_reader_destroy(r);
    (void)printf("%s: %" PRIu64 " states, %u timelines, %" PRIu64 " nodes\n", path, fi.states,
           fi.timelines, fi.nodes);
    whole_trace(path, &fi);
    windows(path, &fi, positions);
    (void)printf("search:\n");
    search(path, &fi, positions);
    if (scan) {
        full_scan(path, &fi);
    }
    return 0;
}
