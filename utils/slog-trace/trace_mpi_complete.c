/* SPDX-License-Identifier: MIT
 *
 * trace_mpi_complete.c - PMPI wrappers of the calls that complete or test
 * requests other than MPI_Wait: MPI_Waitall, MPI_Waitany, MPI_Waitsome,
 * MPI_Test, MPI_Testall, MPI_Testany, MPI_Testsome.  The receives posted
 * with MPI_Irecv among their requests are taken out of the table of
 * trace_mpi_wait.c before the call; each that the call completed gets its
 * "MPI message received" event, the others go back for a later call.
 * Each call is a state with count (requests given), completed (how many
 * this call completed) and ret.
 * Layer: slog-trace preload library; Open MPI's mpi.h.
 */
#include <stdlib.h>

#include "trace_core.h"
#include "trace_mpi.h"

void trace_mpi_batch_drop(trace_mpi_batch *b)
{
    free(b->p);
    free(b->is);
    if (b->own_st) {
        free(b->st);
    }
}

bool trace_mpi_batch_take(
    trace_mpi_batch *b, int n, const MPI_Request *reqs, bool array, MPI_Status *statuses)
{
    const size_t count = n > 0 ? (size_t)n : 1;
    *b = (trace_mpi_batch){.n = n, .own_st = array && statuses == MPI_STATUSES_IGNORE};
    b->p = malloc(count * sizeof *b->p);
    b->is = malloc(count * sizeof *b->is);
    b->st = b->own_st ? calloc(count, sizeof *b->st) : array ? statuses : NULL;
    if (b->p == NULL || b->is == NULL || (array && b->st == NULL)) {
        trace_mpi_batch_drop(b);
        return false;
    }
    for (int i = 0; i < n; i++) {
        b->is[i] = trace_mpi_take_recv(reqs[i], &b->p[i]);
    }
    return true;
}

void trace_mpi_batch_finish(trace_mpi_batch *b, const int *idx, int k, const MPI_Status *st)
{
    for (int j = 0; j < k; j++) {
        const int i = idx != NULL ? idx[j] : j;
        if (i >= 0 && i < b->n && b->is[i]) {
            trace_mpi_received(&b->p[i], &st[j]);
            b->is[i] = false;
        }
    }
    for (int i = 0; i < b->n; i++) {
        if (b->is[i]) {
            trace_mpi_note_recv(b->p[i].req, b->p[i].comm, b->p[i].type);
        }
    }
    trace_mpi_batch_drop(b);
}

int trace_mpi_completion_done(const trace_call *c, trace_fn fn, int n, int completed, int r)
{
    trace_args a = {.n = 0};
    targ_int(&a, "count", n);
    targ_int(&a, "completed", completed);
    targ_int(&a, "ret", r);
    trace_leave(c, fn, &a);
    return r;
}

/* The call's body: untraced, or traced with the batch taken (b, ok). */
#define COMPLETION_ENTER(call, n, reqs, array, statuses)                                           \
    TRACE_MPI_ENTER(call);                                                                         \
    trace_mpi_batch b;                                                                             \
    if (!trace_mpi_batch_take(&b, n, reqs, array, statuses)) {                                     \
        return trace_mpi_completion_done(&c, fn_, n, -1, call); /* not followed: out of memory */  \
    }

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    const trace_fn fn_ = TRACE_FN_MPI_WAITALL;
    COMPLETION_ENTER(PMPI_Waitall(n, reqs, statuses), n, reqs, true, statuses);
    const int r = PMPI_Waitall(n, reqs, b.st);
    r == MPI_SUCCESS ? trace_mpi_batch_finish(&b, NULL, n, b.st) : trace_mpi_batch_drop(&b);
    return trace_mpi_completion_done(&c, fn_, n, r == MPI_SUCCESS ? n : 0, r);
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    const trace_fn fn_ = TRACE_FN_MPI_TESTALL;
    COMPLETION_ENTER(PMPI_Testall(n, reqs, flag, statuses), n, reqs, true, statuses);
    const int r = PMPI_Testall(n, reqs, flag, b.st);
    const int k = r == MPI_SUCCESS && *flag ? n : 0;
    r == MPI_SUCCESS ? trace_mpi_batch_finish(&b, NULL, k, b.st) : trace_mpi_batch_drop(&b);
    return trace_mpi_completion_done(&c, fn_, n, k, r);
}

/* Waitany's, Testany's and Test's end: request *index completed with
 * status st (index NULL: none did). */
static int any_done(const trace_call *c,
                    trace_fn fn,
                    trace_mpi_batch *b,
                    const int *index,
                    const MPI_Status *st,
                    int r)
{
    const int k = r == MPI_SUCCESS && index != NULL && *index != MPI_UNDEFINED ? 1 : 0;
    r == MPI_SUCCESS ? trace_mpi_batch_finish(b, index, k, st) : trace_mpi_batch_drop(b);
    return trace_mpi_completion_done(c, fn, b->n, k, r);
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    const trace_fn fn_ = TRACE_FN_MPI_WAITANY;
    COMPLETION_ENTER(PMPI_Waitany(n, reqs, index, status), n, reqs, false, NULL);
    MPI_Status own = {0};
    MPI_Status *const st = status == MPI_STATUS_IGNORE ? &own : status;
    const int r = PMPI_Waitany(n, reqs, index, st);
    return any_done(&c, fn_, &b, index, st, r);
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    const trace_fn fn_ = TRACE_FN_MPI_TESTANY;
    COMPLETION_ENTER(PMPI_Testany(n, reqs, index, flag, status), n, reqs, false, NULL);
    MPI_Status own = {0};
    MPI_Status *const st = status == MPI_STATUS_IGNORE ? &own : status;
    const int r = PMPI_Testany(n, reqs, index, flag, st);
    return any_done(&c, fn_, &b, r == MPI_SUCCESS && *flag != 0 ? index : NULL, st, r);
}

/* Waitsome's and Testsome's end: *outcount requests completed, indices. */
static int some_done(const trace_call *c,
                     trace_fn fn,
                     trace_mpi_batch *b,
                     const int *outcount,
                     const int *indices,
                     int r)
{
    const int k = r == MPI_SUCCESS && *outcount != MPI_UNDEFINED ? *outcount : 0;
    r == MPI_SUCCESS ? trace_mpi_batch_finish(b, indices, k, b->st) : trace_mpi_batch_drop(b);
    return trace_mpi_completion_done(c, fn, b->n, k, r);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    const trace_fn fn_ = TRACE_FN_MPI_WAITSOME;
    COMPLETION_ENTER(PMPI_Waitsome(n, reqs, outcount, indices, statuses), n, reqs, true,
                     statuses);
    const int r = PMPI_Waitsome(n, reqs, outcount, indices, b.st);
    return some_done(&c, fn_, &b, outcount, indices, r);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    const trace_fn fn_ = TRACE_FN_MPI_TESTSOME;
    COMPLETION_ENTER(PMPI_Testsome(n, reqs, outcount, indices, statuses), n, reqs, true,
                     statuses);
    const int r = PMPI_Testsome(n, reqs, outcount, indices, b.st);
    return some_done(&c, fn_, &b, outcount, indices, r);
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    const trace_fn fn_ = TRACE_FN_MPI_TEST;
    COMPLETION_ENTER(PMPI_Test(req, flag, status), 1, req, false, NULL);
    MPI_Status own = {0};
    MPI_Status *const st = status == MPI_STATUS_IGNORE ? &own : status;
    const int r = PMPI_Test(req, flag, st);
    const int zero = 0;
    return any_done(&c, fn_, &b, r == MPI_SUCCESS && *flag != 0 ? &zero : NULL, st, r);
}
