/* SPDX-License-Identifier: MIT
 *
 * trace_mpi_p2p.c - PMPI wrappers of MPI_Init/Finalize/Abort and
 * point-to-point calls.  A send records msg="send" with comm (key), src, dst (world
 * ranks), tag and bytes on its state; a blocking receive records
 * msg="recv" with the source and tag its status gives; a receive posted
 * with MPI_Irecv records msg="recv" on an "MPI message received" event
 * when a call completes it (trace_mpi_wait.c, trace_mpi_complete.c); a
 * send-receive records its receive as that event.  Every send mode
 * (standard, synchronous, buffered, ready; blocking or not) records a
 * send.  Probes record what they asked for and what they found.
 * `slog-trace merge` pairs sends with receives into arrows
 * (trace_merge_msg.c).
 * Layer: slog-trace preload library; Open MPI's mpi.h.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace_core.h"
#include "trace_mpi.h"

int trace_mpi_started(const trace_call *c, bool traced, trace_fn fn, int r)
{
    int rank = -1, size = 0;
    if (r == MPI_SUCCESS && PMPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS) {
        (void)PMPI_Comm_size(MPI_COMM_WORLD, &size);
        trace_mpi_rank = rank;
        char prefix[32];
        (void)snprintf(prefix, sizeof prefix, "rank %d: ", rank);
        trace_rename_process(prefix);
        trace_note_rank(rank, size);
    }
    if (traced) {
        trace_args a = {.n = 0};
        targ_int(&a, "world_rank", rank);
        targ_int(&a, "world_size", size);
        targ_int(&a, "ret", r);
        trace_leave(c, fn, &a);
    }
    return r;
}

int MPI_Init(int *argc, char ***argv)
{
    trace_call c;
    const bool traced = trace_enter(&c);
    return trace_mpi_started(&c, traced, TRACE_FN_MPI_INIT, PMPI_Init(argc, argv));
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    trace_call c;
    const bool traced = trace_enter(&c);
    return trace_mpi_started(&c, traced, TRACE_FN_MPI_INIT,
                             PMPI_Init_thread(argc, argv, required, provided));
}

int MPI_Finalize(void)
{
    trace_call c;
    if (!trace_enter(&c)) {
        return PMPI_Finalize();
    }
    const int r = PMPI_Finalize();
    trace_args a = {.n = 0};
    targ_int(&a, "ret", r);
    trace_leave(&c, TRACE_FN_MPI_FINALIZE, &a);
    return r;
}

void trace_mpi_aborting(const trace_call *c, MPI_Comm comm, int errorcode)
{
    trace_skip(c); /* an event, not a state: the call does not return */
    uint64_t key = 0;
    (void)trace_mpi_world(comm, 0, &key);
    trace_args a = {.n = 0};
    targ_uint(&a, "comm", key);
    targ_int(&a, "errorcode", errorcode);
    trace_event(TRACE_FN_MPI_ABORT, &a);
    trace_before_exit();
}

/* MPI_Abort ends the job (Open MPI kills every rank; this one leaves by
 * _exit), so the call is an event, with the communicator's key and the
 * error code, and the file is sealed before the call: the record of which
 * rank aborted, and why, is never lost to the kill that follows. */
int MPI_Abort(MPI_Comm comm, int errorcode)
{
    TRACE_MPI_ENTER(PMPI_Abort(comm, errorcode));
    trace_mpi_aborting(&c, comm, errorcode);
    return PMPI_Abort(comm, errorcode);
}

#define SEND_BODY(fn, call)                                                                        \
    TRACE_MPI_ENTER(call);                                                                         \
    const int r = call;                                                                            \
    trace_args a = {.n = 0};                                                                       \
    trace_mpi_send_args(&a, count, type, dest, tag, comm);                                         \
    targ_int(&a, "ret", r);                                                                        \
    trace_leave(&c, fn, &a);                                                                       \
    return r

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    SEND_BODY(TRACE_FN_MPI_SEND, PMPI_Send(buf, count, type, dest, tag, comm));
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    SEND_BODY(TRACE_FN_MPI_SSEND, PMPI_Ssend(buf, count, type, dest, tag, comm));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    SEND_BODY(TRACE_FN_MPI_ISEND, PMPI_Isend(buf, count, type, dest, tag, comm, req));
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    SEND_BODY(TRACE_FN_MPI_BSEND, PMPI_Bsend(buf, count, type, dest, tag, comm));
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    SEND_BODY(TRACE_FN_MPI_RSEND, PMPI_Rsend(buf, count, type, dest, tag, comm));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    SEND_BODY(TRACE_FN_MPI_ISSEND, PMPI_Issend(buf, count, type, dest, tag, comm, req));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Ibsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    SEND_BODY(TRACE_FN_MPI_IBSEND, PMPI_Ibsend(buf, count, type, dest, tag, comm, req));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Irsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    SEND_BODY(TRACE_FN_MPI_IRSEND, PMPI_Irsend(buf, count, type, dest, tag, comm, req));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    trace_call c;
    if (!trace_enter(&c)) {
        return PMPI_Recv(buf, count, type, source, tag, comm, status);
    }
    MPI_Status own = {0};
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    const int r = PMPI_Recv(buf, count, type, source, tag, comm, st);
    trace_args a = {.n = 0};
    if (r == MPI_SUCCESS) {
        trace_mpi_recv_args(&a, comm, type, st);
    }
    targ_int(&a, "ret", r);
    trace_leave(&c, TRACE_FN_MPI_RECV, &a);
    return r;
}

int trace_mpi_exchanged(const trace_call *c,
                        trace_fn fn,
                        trace_args *a,
                        const trace_mpi_recv *rcv,
                        const MPI_Status *st,
                        int r)
{
    if (r == MPI_SUCCESS) {
        trace_mpi_received(rcv, st);
    }
    targ_int(a, "ret", r);
    trace_leave(c, fn, a);
    return r;
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Sendrecv(const void *sbuf, int count, MPI_Datatype type, int dest, int tag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    trace_call c;
    if (!trace_enter(&c)) {
        return PMPI_Sendrecv(sbuf, count, type, dest, tag, rbuf, rcount, rtype, source, rtag, comm,
                             status);
    }
    MPI_Status own = {0};
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    trace_args a = {.n = 0};
    trace_mpi_send_args(&a, count, type, dest, tag, comm);
    const trace_mpi_recv rcv = {NULL, comm, rtype};
    return trace_mpi_exchanged(
        &c, TRACE_FN_MPI_SENDRECV, &a, &rcv, st,
        PMPI_Sendrecv(sbuf, count, type, dest, tag, rbuf, rcount, rtype, source, rtag, comm, st));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int tag, int source,
                         int rtag, MPI_Comm comm, MPI_Status *status)
{
    trace_call c;
    if (!trace_enter(&c)) {
        return PMPI_Sendrecv_replace(buf, count, type, dest, tag, source, rtag, comm, status);
    }
    MPI_Status own = {0};
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    trace_args a = {.n = 0};
    trace_mpi_send_args(&a, count, type, dest, tag, comm);
    const trace_mpi_recv rcv = {NULL, comm, type};
    return trace_mpi_exchanged(
        &c, TRACE_FN_MPI_SENDRECV_REPLACE, &a, &rcv, st,
        PMPI_Sendrecv_replace(buf, count, type, dest, tag, source, rtag, comm, st));
}

void trace_mpi_probe_args(trace_args *a, int source, int tag, MPI_Comm comm)
{
    uint64_t key = 0;
    const int src = trace_mpi_world(comm, source, &key);
    targ_uint(a, "comm", key);
    targ_int(a, "src", src);
    targ_int(a, "tag", tag);
}

int trace_mpi_probed(
    const trace_call *c, trace_fn fn, trace_args *a, MPI_Comm comm, const MPI_Status *st, int r)
{
    int n = 0;
    if (r == MPI_SUCCESS && st != NULL) {
        uint64_t key = 0;
        targ_int(a, "found_src", trace_mpi_world(comm, st->MPI_SOURCE, &key));
        targ_int(a, "found_tag", st->MPI_TAG);
        if (PMPI_Get_count(st, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED) {
            targ_int(a, "bytes", n);
        }
    }
    targ_int(a, "ret", r);
    trace_leave(c, fn, a);
    return r;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    trace_call c;
    if (!trace_enter(&c)) {
        return PMPI_Probe(source, tag, comm, status);
    }
    MPI_Status own = {0};
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    trace_args a = {.n = 0};
    trace_mpi_probe_args(&a, source, tag, comm);
    return trace_mpi_probed(&c, TRACE_FN_MPI_PROBE, &a, comm, st,
                            PMPI_Probe(source, tag, comm, st));
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    trace_call c;
    if (!trace_enter(&c)) {
        return PMPI_Iprobe(source, tag, comm, flag, status);
    }
    MPI_Status own = {0};
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    trace_args a = {.n = 0};
    trace_mpi_probe_args(&a, source, tag, comm);
    const int r = PMPI_Iprobe(source, tag, comm, flag, st);
    targ_int(&a, "flag", r == MPI_SUCCESS ? *flag : 0);
    return trace_mpi_probed(&c, TRACE_FN_MPI_IPROBE, &a, comm,
                            r == MPI_SUCCESS && *flag ? st : NULL, r);
}
