/* SPDX-License-Identifier: MIT
 *
 * bench_batch_read.c - the anchor of bench_python.py: the bare C batch read
 * of one window (slog_query_next_batch into reused columns of 65536 items,
 * every column the Python module fills), timed in wall and CPU time.
 * Usage: bench_batch_read FILE T0 T1 KINDS (ticks; KINDS a bit mask, 0 all).
 * Prints one line: "items N wall_s W cpu_s C".
 * Bench: public API only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slog/slog.h>

enum {
    CAP = 65536
};

static double seconds(clockid_t clock)
{
    struct timespec ts;
    (void)clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t kind[CAP], of[CAP];
static uint32_t timeline[CAP], timeline_to[CAP], category[CAP], depth[CAP];
static int64_t start[CAP], end[CAP], inclusive[CAP];
static uint64_t count[CAP];
static double value[CAP];

static int read_window(slog_reader *r, const slog_query_options *o, uint64_t *items)
{
    slog_batch b = {CAP,   kind,  of,    timeline,  timeline_to, category,
                    start, end,   depth, count,     inclusive,   value};
    slog_query *q = NULL;
    slog_error err;
    memset(&err, 0, sizeof err);
    int rc = slog_query_create(&q, r, o, &err);
    size_t n = 0;
    while (rc == SLOG_OK && (rc = slog_query_next_batch(q, &b, &n, &err)) == SLOG_OK) {
        *items += n;
    }
    slog_query_destroy(q);
    if (rc != SLOG_END) {
        (void)fprintf(stderr, "bench_batch_read: %s (%s)\n", err.message, slog_status_name(rc));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        (void)fprintf(stderr, "usage: bench_batch_read FILE T0 T1 KINDS\n");
        return 2;
    }
    slog_query_options o;
    slog_query_options_init(&o);
    o.t0 = strtoll(argv[2], NULL, 10);
    o.t1 = strtoll(argv[3], NULL, 10);
    o.kinds = (uint32_t)strtoul(argv[4], NULL, 10);
    const double w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
    slog_reader *r = NULL;
    slog_error err;
    memset(&err, 0, sizeof err);
    const int rc = slog_reader_open(&r, argv[1], NULL, &err);
    if (rc != SLOG_OK) {
        (void)fprintf(stderr, "bench_batch_read: %s: %s\n", argv[1], err.message);
        return 1;
    }
    uint64_t items = 0;
    const int status = read_window(r, &o, &items);
    slog_reader_destroy(r);
    printf("items %" PRIu64 " wall_s %.6f cpu_s %.6f\n", items, seconds(CLOCK_MONOTONIC) - w0,
           seconds(CLOCK_PROCESS_CPUTIME_ID) - c0);
    return status;
}
