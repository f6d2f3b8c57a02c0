/* SPDX-License-Identifier: MIT
 *
 * trace_mpi_persist.c - persistent requests: MPI_Send_init (and the
 * Ssend, Bsend, Rsend modes) and MPI_Recv_init are states with the
 * message's args (no "msg": they send nothing) and note the request in a
 * small table; each MPI_Start or MPI_Startall of a noted request starts one
 * message: a send as an "MPI message sent" event with msg="send" (paired by
 * `slog-trace merge` like any send), a receive noted as MPI_Irecv's are, so
 * that the call completing it records "MPI message received" (the handle
 * stays the same from start to start).  MPI_Request_free forgets the
 * request (and a receive noted for it).
 * Layer: slog-trace preload library; Open MPI's mpi.h.
 */
#include <pthread.h>

#include "trace_core.h"
#include "trace_mpi.h"

TRACE_WEAK(PMPI_Send_init);
TRACE_WEAK(PMPI_Ssend_init);
TRACE_WEAK(PMPI_Bsend_init);
TRACE_WEAK(PMPI_Rsend_init);
TRACE_WEAK(PMPI_Recv_init);
TRACE_WEAK(PMPI_Start);
TRACE_WEAK(PMPI_Startall);
TRACE_WEAK(PMPI_Request_free);

#define PERSISTENT 1024

/* The persistent requests made and not freed (a program has few: a linear
 * scan); beyond PERSISTENT they are not followed. */
static trace_mpi_persist table[PERSISTENT];
static size_t ntable;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

/* Copy of the noted request req into *out; false when it is none. */
static bool find(MPI_Request req, trace_mpi_persist *out)
{
    bool found = false;
    pthread_mutex_lock(&table_lock);
    for (size_t i = 0; i < ntable && !found; i++) {
        if (table[i].req == req) {
            *out = table[i];
            found = true;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return found;
}

void trace_mpi_persist_made(const trace_call *c, trace_fn fn, const trace_mpi_persist *p, int r)
{
    if (r == MPI_SUCCESS) {
        pthread_mutex_lock(&table_lock);
        if (ntable < PERSISTENT) {
            table[ntable++] = *p;
        }
        pthread_mutex_unlock(&table_lock);
    }
    (void)trace_mpi_posted_done(c, fn, p, r);
}

void trace_mpi_persist_started(MPI_Request req)
{
    trace_mpi_persist p;
    if (!find(req, &p)) {
        return;
    }
    if (!p.send) {
        trace_mpi_note_recv(req, p.comm, p.type);
        return;
    }
    trace_args a = {.n = 0};
    trace_mpi_send_args(&a, p.count, p.type, p.peer, p.tag, p.comm);
    if (a.n > 0) { /* none for MPI_PROC_NULL */
        trace_event(TRACE_FN_MPI_SEND_STARTED, &a);
    }
}

void trace_mpi_persist_freed(MPI_Request req)
{
    trace_mpi_recv unused;
    (void)trace_mpi_take_recv(req, &unused);
    pthread_mutex_lock(&table_lock);
    for (size_t i = 0; i < ntable; i++) {
        if (table[i].req == req) {
            table[i] = table[--ntable];
            break;
        }
    }
    pthread_mutex_unlock(&table_lock);
}

/* A persistent send's creation: the call, then its record. */
#define SEND_INIT_BODY(fn, call)                                                                   \
    TRACE_MPI_ENTER(call);                                                                         \
    const int r = call;                                                                            \
    const trace_mpi_persist p = {*req, true, count, type, dest, tag, comm};                        \
    trace_mpi_persist_made(&c, fn, &p, r);                                                         \
    return r

/* NOLINTBEGIN(readability-function-size): the MPI standard fixes the parameters */

int MPI_Send_init(const void *buf,
                  int count,
                  MPI_Datatype type,
                  int dest,
                  int tag,
                  MPI_Comm comm,
                  MPI_Request *req)
{
    SEND_INIT_BODY(TRACE_FN_MPI_SEND_INIT, PMPI_Send_init(buf, count, type, dest, tag, comm, req));
}

int MPI_Ssend_init(const void *buf,
                   int count,
                   MPI_Datatype type,
                   int dest,
                   int tag,
                   MPI_Comm comm,
                   MPI_Request *req)
{
    SEND_INIT_BODY(TRACE_FN_MPI_SSEND_INIT,
                   PMPI_Ssend_init(buf, count, type, dest, tag, comm, req));
}

int MPI_Bsend_init(const void *buf,
                   int count,
                   MPI_Datatype type,
                   int dest,
                   int tag,
                   MPI_Comm comm,
                   MPI_Request *req)
{
    SEND_INIT_BODY(TRACE_FN_MPI_BSEND_INIT,
                   PMPI_Bsend_init(buf, count, type, dest, tag, comm, req));
}

int MPI_Rsend_init(const void *buf,
                   int count,
                   MPI_Datatype type,
                   int dest,
                   int tag,
                   MPI_Comm comm,
                   MPI_Request *req)
{
    SEND_INIT_BODY(TRACE_FN_MPI_RSEND_INIT,
                   PMPI_Rsend_init(buf, count, type, dest, tag, comm, req));
}

int MPI_Recv_init(
    void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
    TRACE_MPI_ENTER(PMPI_Recv_init(buf, count, type, source, tag, comm, req));
    const int r = PMPI_Recv_init(buf, count, type, source, tag, comm, req);
    const trace_mpi_persist p = {*req, false, count, type, source, tag, comm};
    trace_mpi_persist_made(&c, TRACE_FN_MPI_RECV_INIT, &p, r);
    return r;
}

/* NOLINTEND(readability-function-size) */

int trace_mpi_started_done(const trace_call *c, trace_fn fn, int n, int r)
{
    trace_args a = {.n = 0};
    targ_int(&a, "count", n);
    targ_int(&a, "ret", r);
    trace_leave(c, fn, &a);
    return r;
}

int MPI_Start(MPI_Request *req)
{
    TRACE_MPI_ENTER(PMPI_Start(req));
    const MPI_Request h = *req;
    const int r = PMPI_Start(req);
    if (r == MPI_SUCCESS) {
        trace_mpi_persist_started(h);
    }
    return trace_mpi_started_done(&c, TRACE_FN_MPI_START, 1, r);
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    TRACE_MPI_ENTER(PMPI_Startall(n, reqs));
    const int r = PMPI_Startall(n, reqs);
    for (int i = 0; r == MPI_SUCCESS && i < n; i++) {
        trace_mpi_persist_started(reqs[i]);
    }
    return trace_mpi_started_done(&c, TRACE_FN_MPI_STARTALL, n, r);
}

/* Not recorded: the request is forgotten (its table entries). */
int MPI_Request_free(MPI_Request *req)
{
    if (req != NULL) {
        trace_mpi_persist_freed(*req);
    }
    return PMPI_Request_free(req);
}
