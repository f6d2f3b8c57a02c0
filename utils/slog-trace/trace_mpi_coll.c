/* SPDX-License-Identifier: MIT
 *
 * trace_mpi_coll.c - PMPI wrappers of the collectives (barrier, bcast,
 * reduce, allreduce, gather, allgather, scatter, alltoall), recorded as
 * states with the communicator's key, the bytes this rank sends and the
 * root as a world rank where the call has one; and MPI_Comm_free, which
 * drops the communicator from the rank translation cache.
 * Layer: slog-trace preload library; Open MPI's mpi.h.
 */
#include "trace_core.h"
#include "trace_mpi.h"

static void coll_done(const trace_call *c, trace_fn fn, MPI_Comm comm, int64_t bytes, int root,
                      int r)
{
    uint64_t key = 0;
    const int wroot = trace_mpi_world(comm, root, &key);
    if (root < 0) {
        (void)trace_mpi_world(comm, 0, &key);
    }
    trace_args a = {.n = 0};
    targ_uint(&a, "comm", key);
    if (bytes >= 0) {
        targ_int(&a, "bytes", bytes);
    }
    if (root >= 0) {
        targ_int(&a, "root", wroot);
    }
    targ_int(&a, "ret", r);
    trace_leave(c, fn, &a);
}

#define COLL_BODY(fn, call, comm, bytes, root)                                                     \
    trace_call c;                                                                                  \
    if (!trace_enter(&c)) {                                                                        \
        return call;                                                                               \
    }                                                                                              \
    const int r = call;                                                                            \
    coll_done(&c, fn, comm, bytes, root, r);                                                       \
    return r

int MPI_Barrier(MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_BARRIER, PMPI_Barrier(comm), comm, -1, -1);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_BCAST, PMPI_Bcast(buf, count, type, root, comm), comm,
              trace_mpi_bytes(count, type), root);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_REDUCE, PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm), comm,
              trace_mpi_bytes(count, type), root);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_ALLREDUCE, PMPI_Allreduce(sbuf, rbuf, count, type, op, comm), comm,
              trace_mpi_bytes(count, type), -1);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_GATHER,
              PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm), comm,
              trace_mpi_bytes(scount, stype), root);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_ALLGATHER,
              PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm), comm,
              trace_mpi_bytes(scount, stype), -1);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_SCATTER,
              PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm), comm,
              trace_mpi_bytes(rcount, rtype), root);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_ALLTOALL,
              PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm), comm,
              trace_mpi_bytes(scount, stype), -1);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (comm != NULL) {
        trace_mpi_forget(*comm);
    }
    return PMPI_Comm_free(comm);
}
