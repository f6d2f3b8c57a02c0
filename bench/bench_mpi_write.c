/* SPDX-License-Identifier: MIT
 *
 * bench_mpi_write.c - would a node-local aggregator pay (issue 17 item 1)?
 * Every rank writes --states states of bench_gen's random walk (4
 * timelines under its rank timeline) through the MPI writer (slog_mpi.h)
 * into its own file; generation runs in blocks outside the timed writer
 * calls.  Rank 0 prints one JSON line per rank (states, wall and CPU
 * seconds of the writer calls and of finish, file bytes) and a total.
 * Run it with -np 8 and with -np 1 and 8x the states for the same total
 * written by one process (doc/PERFORMANCE.md, "MPI writer (issue 17)").
 *
 *   mpirun -np 8 bench_mpi_write --states 1e6 --dir /tmp/job.d [--merged OUT.slog]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slog/slog_mpi.h>

#include "bench_gen.h"

#define BLOCK     4096
#define TIMELINES 4

typedef struct rank_result {
    double create_wall, write_wall, write_cpu, finish_wall, finish_cpu;
    uint64_t states, bytes;
} rank_result;

static void fail(const char *what, int rc, const slog_error *e)
{
    (void)fprintf(stderr, "bench_mpi_write: %s: %s: %s\n", what, slog_status_name(rc), e->message);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void define(slog_mpi_writer *m, uint32_t *tls, uint32_t *cats)
{
    slog_writer *const w = slog_mpi_writer_handle(m);
    slog_error e;
    for (uint32_t i = 0; i < TIMELINES; i++) {
        char name[32];
        (void)snprintf(name, sizeof name, "thread %u", i);
        const int rc = slog_writer_add_timeline(w, slog_mpi_writer_rank_timeline(m),
                                                SLOG_TIMELINE_THREAD, name, i, &tls[i], &e);
        if (rc != SLOG_OK) {
            fail("timeline", rc, &e);
        }
    }
    for (uint32_t i = 0; i < 8; i++) {
        char name[32];
        (void)snprintf(name, sizeof name, "function %u", i);
        const int rc = slog_writer_add_category(w, SLOG_KIND_STATE, name, 0, NULL, &cats[i], &e);
        if (rc != SLOG_OK) {
            fail("category", rc, &e);
        }
    }
}

static void write_states(slog_mpi_writer *m, uint64_t states, int rank, rank_result *res)
{
    uint32_t tls[TIMELINES], cats[8];
    define(m, tls, cats);
    bgen g;
    bgen_op *const ops = malloc(BLOCK * sizeof *ops);
    if (ops == NULL || bgen_init(&g, states, TIMELINES, 8, 1 + (uint64_t)rank) != 0) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int64_t base = slog_mpi_now();
    slog_writer *const w = slog_mpi_writer_handle(m);
    bench_timer t = {0, 0, 0, 0};
    size_t n = 0;
    slog_error e;
    while ((n = bgen_fill(&g, ops, BLOCK)) > 0) {
        bench_timer_start(&t);
        for (size_t i = 0; i < n; i++) {
            const bgen_op *op = &ops[i];
            if (op->leave) {
                const slog_state s = {
                    tls[op->tl], cats[op->cat], base + op->start, base + op->time, op->depth,
                    0,           NULL};
                const int rc = slog_writer_append_state(w, &s, &e);
                if (rc != SLOG_OK) {
                    fail("append", rc, &e);
                }
            }
        }
        bench_timer_stop(&t);
    }
    res->states = g.states;
    res->write_wall = t.wall;
    res->write_cpu = t.cpu;
    bgen_free(&g);
    free(ops);
}

static void report(const rank_result *all, int size, double job_wall)
{
    rank_result sum = {0, 0, 0, 0, 0, 0, 0};
    double slowest = 0;
    for (int r = 0; r < size; r++) {
        const rank_result *x = &all[r];
        (void)printf("{\"rank\":%d,\"states\":%" PRIu64 ",\"create_wall_s\":%.4f,"
                     "\"write_wall_s\":%.3f,"
                     "\"write_cpu_s\":%.3f,\"finish_wall_s\":%.3f,\"finish_cpu_s\":%.3f,"
                     "\"states_per_s\":%.0f,\"bytes\":%" PRIu64 ",\"bytes_per_state\":%.2f}\n",
                     r, x->states, x->create_wall, x->write_wall, x->write_cpu, x->finish_wall,
                     x->finish_cpu, (double)x->states / (x->write_wall + x->finish_wall), x->bytes,
                     (double)x->bytes / (double)x->states);
        sum.states += x->states;
        sum.bytes += x->bytes;
        sum.write_cpu += x->write_cpu + x->finish_cpu;
        slowest =
            x->write_wall + x->finish_wall > slowest ? x->write_wall + x->finish_wall : slowest;
    }
    (void)printf("{\"ranks\":%d,\"states\":%" PRIu64 ",\"job_wall_s\":%.3f,\"slowest_rank_s\":%.3f,"
                 "\"cpu_s\":%.3f,\"states_per_s\":%.0f,\"bytes\":%" PRIu64
                 ",\"bytes_per_state\":%.2f}\n",
                 size, sum.states, job_wall, slowest, sum.write_cpu, (double)sum.states / job_wall,
                 sum.bytes, (double)sum.bytes / (double)sum.states);
}

static const char *arg(int argc, char **argv, const char *name, const char *dflt)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return argv[i + 1];
        }
    }
    return dflt;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    (void)MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    (void)MPI_Comm_size(MPI_COMM_WORLD, &size);
    const uint64_t states = bench_parse_count(arg(argc, argv, "--states", "1e6"));
    const char *const dir = arg(argc, argv, "--dir", "/tmp/bench_mpi_write.d");
    const char *const merged = arg(argc, argv, "--merged", NULL);
    (void)MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = bench_now();
    slog_mpi_writer *m = NULL;
    slog_error e;
    int rc = slog_mpi_writer_create(&m, MPI_COMM_WORLD, dir, NULL, &e);
    if (rc != SLOG_OK) {
        fail("create", rc, &e);
    }
    rank_result res = {bench_now() - t0, 0, 0, 0, 0, 0, 0};
    write_states(m, states, rank, &res);
    bench_timer t = {0, 0, 0, 0};
    bench_timer_start(&t);
    rc = slog_mpi_writer_finish(m, merged, &e);
    bench_timer_stop(&t);
    if (rc != SLOG_OK) {
        fail("finish", rc, &e);
    }
    const double job_wall = bench_now() - t0;
    slog_mpi_writer_destroy(m);
    res.finish_wall = t.wall;
    res.finish_cpu = t.cpu;
    char path[4096];
    (void)snprintf(path, sizeof path, "%s/rank-%06d.slog", dir, rank);
    res.bytes = bench_disk_bytes(path);
    rank_result *const all = rank == 0 ? malloc((size_t)size * sizeof *all) : NULL;
    (void)MPI_Gather(&res, (int)sizeof res, MPI_BYTE, all, (int)sizeof res, MPI_BYTE, 0,
                     MPI_COMM_WORLD);
    if (rank == 0 && all != NULL) {
        report(all, size, job_wall);
    }
    free(all);
    MPI_Finalize();
    return 0;
}
