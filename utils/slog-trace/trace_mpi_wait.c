/* SPDX-License-Identifier: MIT
 *
 * trace_mpi_wait.c - receives posted with MPI_Irecv: the request is noted
 * (communicator, datatype) in a small table, and MPI_Wait records an
 * "MPI message received" event with the message's args when it completes
 * it; the calls that complete several requests, or test them, use the
 * same table (trace_mpi_complete.c).
 * Layer: slog-trace preload library; Open MPI's mpi.h.
 */
#include <pthread.h>
#include <stdlib.h>

#include "trace_core.h"
#include "trace_mpi.h"

#define PENDING 4096

/* The receives posted and not yet completed (a program has few at a
 * time: a linear scan); beyond PENDING they are not followed. */
static trace_mpi_recv pending[PENDING];
static size_t npending;
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;

void trace_mpi_note_recv(MPI_Request req, MPI_Comm comm, MPI_Datatype type)
{
    pthread_mutex_lock(&pending_lock);
    if (npending < PENDING) {
        pending[npending++] = (trace_mpi_recv){req, comm, type};
    }
    pthread_mutex_unlock(&pending_lock);
}

bool trace_mpi_take_recv(MPI_Request req, trace_mpi_recv *out)
{
    bool found = false;
    pthread_mutex_lock(&pending_lock);
    for (size_t i = 0; i < npending; i++) {
        if (pending[i].req == req) {
            *out = pending[i];
            pending[i] = pending[--npending];
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&pending_lock);
    return found;
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    trace_call c;
    if (!trace_enter(&c)) {
        return PMPI_Irecv(buf, count, type, source, tag, comm, req);
    }
    const int r = PMPI_Irecv(buf, count, type, source, tag, comm, req);
    if (r == MPI_SUCCESS) {
        trace_mpi_note_recv(*req, comm, type);
    }
    const trace_mpi_persist p = {*req, false, count, type, source, tag, comm};
    return trace_mpi_posted_done(&c, TRACE_FN_MPI_IRECV, &p, r);
}

int trace_mpi_posted_done(const trace_call *c, trace_fn fn, const trace_mpi_persist *p, int r)
{
    uint64_t key = 0;
    const int peer = trace_mpi_world(p->comm, p->peer, &key);
    trace_args a = {.n = 0};
    targ_uint(&a, "comm", key);
    targ_int(&a, p->send ? "dst" : "src", peer);
    targ_int(&a, "tag", p->tag);
    targ_int(&a, "bytes", trace_mpi_bytes(p->count, p->type));
    targ_int(&a, "ret", r);
    trace_leave(c, fn, &a);
    return r;
}

void trace_mpi_received(const trace_mpi_recv *p, const MPI_Status *st)
{
    trace_args a = {.n = 0};
    trace_mpi_recv_args(&a, p->comm, p->type, st);
    trace_event(TRACE_FN_MPI_RECV_DONE, &a);
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    trace_call c;
    if (!trace_enter(&c)) {
        return PMPI_Wait(req, status);
    }
    trace_mpi_recv p;
    const bool is_recv = trace_mpi_take_recv(*req, &p);
    MPI_Status own = {0};
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    const int r = PMPI_Wait(req, st);
    if (is_recv && r == MPI_SUCCESS) {
        trace_mpi_received(&p, st);
    }
    trace_args a = {.n = 0};
    targ_int(&a, "ret", r);
    trace_leave(&c, TRACE_FN_MPI_WAIT, &a);
    return r;
}
