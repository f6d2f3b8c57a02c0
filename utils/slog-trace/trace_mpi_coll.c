/* SPDX-License-Identifier: MIT
 *
 * trace_mpi_coll.c - PMPI wrappers of the blocking collectives with one
 * count (barrier, bcast, reduce, allreduce, gather, allgather, scatter,
 * alltoall), recorded as states with the communicator's key, this rank's
 * bytes (its send buffer; for bcast and scatter the buffer it gets) and
 * the root as a world rank where the call has one (trace_mpi_coll_done);
 * and MPI_Comm_free, which drops the communicator from the rank
 * translation cache.
 * Layer: slog-trace preload library; Open MPI's mpi.h.
 */
#include "trace_core.h"
#include "trace_mpi.h"

void trace_mpi_coll_done(const trace_call *c, trace_fn fn, MPI_Comm comm, int64_t bytes, int root,
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

int64_t trace_mpi_comm_bytes(int count, MPI_Datatype type, MPI_Comm comm)
{
    int size = 0;
    return PMPI_Comm_size(comm, &size) == MPI_SUCCESS ? trace_mpi_bytes(count, type) * size : -1;
}

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
              trace_mpi_comm_bytes(scount, stype, comm), -1);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (comm != NULL) {
        trace_mpi_forget(*comm);
    }
    return PMPI_Comm_free(comm);
}
