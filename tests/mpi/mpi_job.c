/* SPDX-License-Identifier: MIT
 *
 * mpi_job.c - an MPI program written for tests/mpi/mpi_job_test.py: every
 * rank writes, through the MPI writer (slog_mpi.h), nested states with
 * known times, events and counters on a "main" timeline under its rank
 * timeline, and a ring of messages rank r -> r + 1 recorded with
 * slog_mpi_writer_send/_recv; it writes what it appended, as JSON lines
 * with its own (local) times, to EXPECT/rank-R.jsonl.  After finish rank 0
 * opens DIR/index.slog with slog_reader_open and prints its inputs as one
 * line "index: {JSON}" ("index: none CODE MESSAGE" when it cannot).
 *
 *   mpi_job DIR MERGED|- EXPECT [--abort-rank R] [--bad-options-rank R] [--iters N]
 *           [--fail-rank R] [--remove-rank R] [--offset-per-rank]
 *
 * --abort-rank R: every rank writes half its data and flushes; rank R then
 * calls abort(), the others wait in a barrier until mpirun ends the job.
 * --bad-options-rank R: rank R passes an invalid option to create; every
 * rank must get the same SLOG_EINVAL (printed as "create: CODE: MESSAGE").
 * --fail-rank R: rank R leaves a state open (not in EXPECT), so its finish
 * fails and leaves its file incomplete; --remove-rank R: rank R removes its
 * file before finish.  --offset-per-rank: SLOG_MPI_OFFSET_PER_RANK (ranks
 * of one host get offsets of their own, small but not 0).  Exit 0 when
 * create and finish succeeded on this rank.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slog/slog_index.h>
#include <slog/slog_mpi.h>

typedef struct job {
    slog_mpi_writer *m;
    slog_writer *w;
    FILE *expect;
    const char *dir;
    int rank, size;
    int iters, abort_rank, fail_rank, remove_rank, per_rank;
    int64_t base;
    uint32_t main_tl, compute, solve, tick, residual;
} job;

static void die(const job *j, const char *what, int rc, const slog_error *e)
{
    (void)fprintf(stderr, "mpi_job rank %d: %s: %s: %s\n", j->rank, what, slog_status_name(rc),
                  e->message);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void check(const job *j, const char *what, int rc, const slog_error *e)
{
    if (rc != SLOG_OK) {
        die(j, what, rc, e);
    }
}

static void define(job *j)
{
    slog_error e;
    check(j, "timeline",
          slog_writer_add_timeline(j->w, slog_mpi_writer_rank_timeline(j->m), SLOG_TIMELINE_THREAD,
                                   "main", 0, &j->main_tl, &e),
          &e);
    check(j, "category",
          slog_writer_add_category(j->w, SLOG_KIND_STATE, "compute", 0, NULL, &j->compute, &e), &e);
    check(j, "category",
          slog_writer_add_category(j->w, SLOG_KIND_STATE, "solve", 0, NULL, &j->solve, &e), &e);
    check(j, "category",
          slog_writer_add_category(j->w, SLOG_KIND_EVENT, "tick", 0, NULL, &j->tick, &e), &e);
    check(j, "category",
          slog_writer_add_category(j->w, SLOG_KIND_COUNTER, "residual", 0, NULL, &j->residual, &e),
          &e);
}

static void
expect_state(const job *j, const char *cat, int64_t s, int64_t t, int depth, const char *args)
{
    (void)fprintf(j->expect,
                  "{\"kind\":\"state\",\"path\":[\"main\"],\"category\":\"%s\",\"start\":%" PRId64
                  ",\"end\":%" PRId64 ",\"depth\":%d%s%s}\n",
                  cat, s, t, depth, args[0] != '\0' ? ",\"args\":" : "", args);
}

/* Iteration i: compute [t, t+900] holding solve [t+100, t+600], a tick at
 * t+950, every fourth a residual sample at t+500. */
static void iteration(const job *j, int i)
{
    slog_error e;
    const int64_t t = j->base + (int64_t)i * 10000 + j->rank * 13;
    const slog_arg iter = {.key = "iter", .type = SLOG_ARG_INT, .v.i = i};
    check(j, "begin", slog_writer_begin(j->w, j->main_tl, j->compute, t, &iter, 1, &e), &e);
    check(j, "begin", slog_writer_begin(j->w, j->main_tl, j->solve, t + 100, NULL, 0, &e), &e);
    check(j, "end", slog_writer_end(j->w, j->main_tl, t + 600, &e), &e);
    check(j, "end", slog_writer_end(j->w, j->main_tl, t + 900, &e), &e);
    char args[64];
    (void)snprintf(args, sizeof args, "{\"iter\":%d}", i);
    expect_state(j, "compute", t, t + 900, 0, args);
    expect_state(j, "solve", t + 100, t + 600, 1, "");
    const slog_arg who = {.key = "rank", .type = SLOG_ARG_INT, .v.i = j->rank};
    const slog_event ev = {j->main_tl, j->tick, t + 950, 1, &who};
    check(j, "event", slog_writer_append_event(j->w, &ev, &e), &e);
    (void)fprintf(j->expect,
                  "{\"kind\":\"event\",\"path\":[\"main\"],\"category\":\"tick\",\"start\":%" PRId64
                  ",\"end\":%" PRId64 ",\"args\":{\"rank\":%d}}\n",
                  t + 950, t + 950, j->rank);
    if (i % 4 == 0) {
        const slog_counter c = {j->main_tl, j->residual, t + 500, i * 0.5};
        check(j, "counter", slog_writer_append_counter(j->w, &c, &e), &e);
        (void)fprintf(j->expect,
                      "{\"kind\":\"counter\",\"path\":[\"main\"],\"category\":\"residual\","
                      "\"start\":%" PRId64 ",\"end\":%" PRId64 ",\"value\":%.1f}\n",
                      t + 500, t + 500, i * 0.5);
    }
}

static void expect_message(const job *j, const char *side, int peer, int64_t t0, int64_t t1)
{
    const int send = side[0] == 's';
    char args[160];
    (void)snprintf(args, sizeof args,
                   "{\"msg\":\"%s\",\"comm\":0,\"src\":%d,\"dst\":%d,\"tag\":5,\"bytes\":64}", side,
                   send ? j->rank : peer, send ? peer : j->rank);
    expect_state(j, send ? "MPI send" : "MPI recv", t0, t1, 0, args);
}

/* Rank r sends 64 bytes to r + 1 and receives from r - 1 (tag 5). */
static void ring(const job *j)
{
    char out[64] = {0}, in[64];
    const int next = (j->rank + 1) % j->size, prev = (j->rank + j->size - 1) % j->size;
    MPI_Request req;
    const int64_t s0 = slog_mpi_now();
    (void)MPI_Isend(out, 64, MPI_BYTE, next, 5, MPI_COMM_WORLD, &req);
    const int64_t r0 = slog_mpi_now();
    (void)MPI_Recv(in, 64, MPI_BYTE, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const int64_t r1 = slog_mpi_now();
    (void)MPI_Wait(&req, MPI_STATUS_IGNORE);
    const int64_t s1 = slog_mpi_now();
    slog_error e;
    check(j, "send", slog_mpi_writer_send(j->m, j->main_tl, next, 5, 64, s0, s1, &e), &e);
    check(j, "recv", slog_mpi_writer_recv(j->m, j->main_tl, prev, 5, 64, r0, r1, &e), &e);
    expect_message(j, "send", next, s0, s1);
    expect_message(j, "recv", prev, r0, r1);
}

static int option_int(int argc, char **argv, const char *name, int dflt)
{
    for (int i = 4; i + 1 < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return atoi(argv[i + 1]);
        }
    }
    return dflt;
}

static int create(job *j, const char *dir, int bad_rank)
{
    slog_mpi_options o = SLOG_MPI_OPTIONS_INIT;
    o.flags = j->per_rank ? SLOG_MPI_OFFSET_PER_RANK : 0;
    o.sync_rounds = j->rank == bad_rank ? 5000 : 0;
    slog_error e;
    const int rc = slog_mpi_writer_create(&j->m, MPI_COMM_WORLD, dir, &o, &e);
    if (rc != SLOG_OK) {
        (void)printf("create: %s: %s\n", slog_status_name(rc), e.message);
        return 1;
    }
    j->w = slog_mpi_writer_handle(j->m);
    return 0;
}

static const char *input_state(slog_index_input_state s)
{
    return s == SLOG_INDEX_INPUT_OK           ? "ok"
           : s == SLOG_INDEX_INPUT_INCOMPLETE ? "incomplete"
                                              : "missing";
}

/* Rank 0 after finish: DIR/index.slog as slog_reader_open reads it. */
static void report_index(const job *j)
{
    char path[4096];
    (void)snprintf(path, sizeof path, "%s/index.slog", j->dir);
    slog_reader *r = NULL;
    slog_error e;
    const int rc = slog_reader_open(&r, path, NULL, &e);
    if (rc != SLOG_OK) {
        (void)printf("index: none %s %s\n", slog_status_name(rc), e.message);
        return;
    }
    const uint32_t n = slog_reader_index_inputs(r);
    (void)printf("index: {\"inputs\":%u,\"list\":[", n);
    for (uint32_t i = 0; i < n; i++) {
        slog_index_input_info in;
        if (slog_reader_index_input(r, i, &in) == SLOG_OK) {
            (void)printf("%s{\"path\":\"%s\",\"state\":\"%s\",\"offset\":%" PRId64 "}",
                         i > 0 ? "," : "", in.path, input_state(in.state), in.offset);
        }
    }
    (void)printf("]}\n");
    slog_reader_destroy(r);
}

/* --fail-rank: a state left open; --remove-rank: the file gone. */
static void spoil(const job *j)
{
    slog_error e;
    if (j->rank == j->fail_rank) {
        const int64_t t = j->base + (int64_t)j->iters * 10000;
        check(j, "begin", slog_writer_begin(j->w, j->main_tl, j->compute, t, NULL, 0, &e), &e);
    }
    if (j->rank == j->remove_rank) {
        char path[4096];
        (void)snprintf(path, sizeof path, "%s/rank-%06d.slog", j->dir, j->rank);
        if (unlink(path) != 0) {
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
}

static int run(job *j, const char *merged)
{
    define(j);
    for (int i = 0; i < j->iters / 2; i++) {
        iteration(j, i);
    }
    ring(j);
    slog_error e;
    check(j, "flush", slog_writer_flush(j->w, &e), &e);
    if (j->abort_rank >= 0) {
        (void)fclose(j->expect);
        if (j->rank == j->abort_rank) {
            abort();
        }
        (void)MPI_Barrier(MPI_COMM_WORLD); /* never returns: rank abort_rank is gone */
        return 1;
    }
    for (int i = j->iters / 2; i < j->iters; i++) {
        iteration(j, i);
    }
    (void)fclose(j->expect);
    spoil(j);
    e.message[0] = '\0';
    const int rc = slog_mpi_writer_finish(j->m, strcmp(merged, "-") == 0 ? NULL : merged, &e);
    (void)printf("rank %d: finish %s %s\n", j->rank, slog_status_name(rc), e.message);
    if (j->rank == 0) {
        report_index(j);
    }
    (void)fflush(stdout);
    /* no rank exits (mpirun ends the job at the first non-zero exit) before
     * rank 0 has printed */
    (void)MPI_Barrier(MPI_COMM_WORLD);
    return rc != SLOG_OK;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        (void)fprintf(stderr, "usage: mpi_job DIR MERGED|- EXPECT [--abort-rank R] "
                              "[--bad-options-rank R] [--iters N] [--fail-rank R] "
                              "[--remove-rank R] [--offset-per-rank]\n");
        return 2;
    }
    job j = {.m = NULL,
             .dir = argv[1],
             .iters = option_int(argc, argv, "--iters", 200),
             .abort_rank = option_int(argc, argv, "--abort-rank", -1),
             .fail_rank = option_int(argc, argv, "--fail-rank", -1),
             .remove_rank = option_int(argc, argv, "--remove-rank", -1)};
    for (int i = 4; i < argc; i++) {
        j.per_rank |= strcmp(argv[i], "--offset-per-rank") == 0;
    }
    MPI_Init(&argc, &argv);
    (void)MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    (void)MPI_Comm_size(MPI_COMM_WORLD, &j.size);
    int status = create(&j, argv[1], option_int(argc, argv, "--bad-options-rank", -1));
    if (status == 0) {
        char path[4096];
        (void)snprintf(path, sizeof path, "%s/rank-%d.jsonl", argv[3], j.rank);
        j.expect = fopen(path, "w");
        if (j.expect == NULL) {
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        j.base = slog_mpi_now();
        status = run(&j, argv[2]);
    }
    slog_mpi_writer_destroy(j.m);
    MPI_Finalize();
    return status;
}
