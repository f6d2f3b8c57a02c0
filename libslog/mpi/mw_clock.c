/* SPDX-License-Identifier: MIT
 *
 * mw_clock.c - clock offsets of the ranks to rank 0.  Every other rank in
 * turn sends rank 0 a ping and gets back rank 0's clock reading, a few
 * times; the exchange with the smallest round trip wins and gives
 * offset = t0 - (local send + rtt / 2), exact to within rtt / 2 (the
 * reading was taken somewhere inside the round trip).  At finish rank 0
 * turns the two measurements (create, finish) into the offset each rank's
 * times move by in the merged file: their mean, the offset at the middle
 * of the run, so a linear drift errs by half as much at either end as one
 * measurement would.  With the default clock (CLOCK_REALTIME, one per
 * host) ranks of one host share one offset: 0 on rank 0's host, else the
 * best-measured rank's of that host, so messages between ranks of a host
 * never go back in time.
 * libslog/mpi: the public API of libslog only, plus MPI.
 */
#include <stdlib.h>
#include <string.h>

#include "mw_internal.h"

#define TAG_PING 1
#define TAG_PONG 2

/* Rank 0: answer every other rank's pings, rank by rank. */
static int serve(const slog_mpi_writer *m, slog_error *e)
{
    for (int peer = 1; peer < m->size; peer++) {
        for (uint32_t k = 0; k < m->opts.sync_rounds; k++) {
            char ping = 0;
            int r = MPI_Recv(&ping, 1, MPI_CHAR, peer, TAG_PING, m->comm, MPI_STATUS_IGNORE);
            const int64_t t = mw_clock_now(m);
            if (r == MPI_SUCCESS) {
                r = MPI_Send(&t, 1, MPI_INT64_T, peer, TAG_PONG, m->comm);
            }
            if (r != MPI_SUCCESS) {
                return mw_fail_mpi(e, r, "measure the clocks");
            }
        }
    }
    return SLOG_OK;
}

static int ping(const slog_mpi_writer *m, mw_clock_est *out, slog_error *e)
{
    out->offset = 0;
    out->rtt = INT64_MAX;
    for (uint32_t k = 0; k < m->opts.sync_rounds; k++) {
        const char c = 0;
        int64_t t0 = 0;
        const int64_t sent = mw_clock_now(m);
        int r = MPI_Send(&c, 1, MPI_CHAR, 0, TAG_PING, m->comm);
        if (r == MPI_SUCCESS) {
            r = MPI_Recv(&t0, 1, MPI_INT64_T, 0, TAG_PONG, m->comm, MPI_STATUS_IGNORE);
        }
        const int64_t back = mw_clock_now(m);
        if (r != MPI_SUCCESS) {
            return mw_fail_mpi(e, r, "measure the clocks");
        }
        const int64_t rtt = back - sent;
        if (rtt >= 0 && rtt < out->rtt) {
            out->rtt = rtt;
            out->offset = t0 - (sent + rtt / 2);
        }
    }
    if (out->rtt == INT64_MAX) {
        return mw_fail(e, SLOG_EIO, "", "Failed to measure the clocks: the clock went back");
    }
    return SLOG_OK;
}

int mw_clock_measure(const slog_mpi_writer *m, mw_clock_est *out, slog_error *e)
{
    if (m->rank == 0) {
        out->offset = out->rtt = 0;
        return serve(m, e);
    }
    return ping(m, out, e);
}

/* a/2 + b/2 without overflow, rounded toward zero */
static int64_t mean2(int64_t a, int64_t b)
{
    return a / 2 + b / 2 + (a % 2 + b % 2) / 2;
}

/* A rank by its host, for sorting. */
typedef struct host_of {
    const char *host;
    int32_t rank;
} host_of;

static int by_host(const void *pa, const void *pb)
{
    const host_of *a = pa;
    const host_of *b = pb;
    const int c = strcmp(a->host, b->host);
    return c != 0 ? c : (a->rank > b->rank) - (a->rank < b->rank);
}

/* The best measurement of each kind (create, finish) among the ranks of
 * one host, group[0..n). */
static void host_offsets(const mw_rank_rec *recs, const host_of *group, size_t n, int64_t *offsets)
{
    const mw_rank_rec *best[2] = {&recs[group[0].rank], &recs[group[0].rank]};
    for (size_t i = 1; i < n; i++) {
        for (int k = 0; k < 2; k++) {
            const mw_rank_rec *const r = &recs[group[i].rank];
            best[k] = r->clock[k].rtt < best[k]->clock[k].rtt ? r : best[k];
        }
    }
    const int on_rank0_host = strcmp(group[0].host, recs[0].host) == 0;
    const int64_t off =
        on_rank0_host ? 0 : mean2(best[0]->clock[0].offset, best[1]->clock[1].offset);
    for (size_t i = 0; i < n; i++) {
        offsets[group[i].rank] = off;
    }
}

void mw_clock_merge_offsets(const mw_rank_rec *recs, int n, int per_rank, int64_t *offsets)
{
    host_of *const v = per_rank ? NULL : malloc((size_t)n * sizeof *v);
    if (v == NULL) { /* per rank (also the fallback when memory is short) */
        for (int i = 0; i < n; i++) {
            offsets[i] = mean2(recs[i].clock[0].offset, recs[i].clock[1].offset);
        }
        return;
    }
    for (int i = 0; i < n; i++) {
        v[i] = (host_of){recs[i].host, i};
    }
    qsort(v, (size_t)n, sizeof *v, by_host);
    for (size_t i = 0, j = 0; i < (size_t)n; i = j) {
        for (j = i + 1; j < (size_t)n && strcmp(v[j].host, v[i].host) == 0;) {
            j++;
        }
        host_offsets(recs, v + i, j - i, offsets);
    }
    free(v);
}
