/* SPDX-License-Identifier: MIT
 *
 * trace_mpi_icoll.c - PMPI wrappers of the nonblocking collectives
 * (ibarrier, ibcast, ireduce, iallreduce, igather, iallgather, iscatter,
 * ialltoall), recorded when they start, with the same args as their
 * blocking forms (trace_mpi_coll.c); their completion is the MPI_Wait or
 * MPI_Test* that completes the request, recorded as such.
 * Layer: slog-trace preload library; Open MPI's mpi.h.
 */
#include "trace_core.h"
#include "trace_mpi.h"

TRACE_WEAK(PMPI_Ibarrier);
TRACE_WEAK(PMPI_Ibcast);
TRACE_WEAK(PMPI_Ireduce);
TRACE_WEAK(PMPI_Iallreduce);
TRACE_WEAK(PMPI_Igather);
TRACE_WEAK(PMPI_Iallgather);
TRACE_WEAK(PMPI_Iscatter);
TRACE_WEAK(PMPI_Ialltoall);

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    COLL_BODY(TRACE_FN_MPI_IBARRIER, PMPI_Ibarrier(comm, req), comm, -1, -1);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
    COLL_BODY(TRACE_FN_MPI_IBCAST, PMPI_Ibcast(buf, count, type, root, comm, req), comm,
              trace_mpi_bytes(count, type), root);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *req)
{
    COLL_BODY(TRACE_FN_MPI_IREDUCE, PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req),
              comm, trace_mpi_bytes(count, type), root);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request *req)
{
    COLL_BODY(TRACE_FN_MPI_IALLREDUCE, PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req),
              comm, trace_mpi_bytes(count, type), -1);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Igather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    COLL_BODY(TRACE_FN_MPI_IGATHER,
              PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req), comm,
              trace_mpi_bytes(scount, stype), root);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                   MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    COLL_BODY(TRACE_FN_MPI_IALLGATHER,
              PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req), comm,
              trace_mpi_bytes(scount, stype), -1);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    COLL_BODY(TRACE_FN_MPI_ISCATTER,
              PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req), comm,
              trace_mpi_bytes(rcount, rtype), root);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    COLL_BODY(TRACE_FN_MPI_IALLTOALL,
              PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req), comm,
              trace_mpi_comm_bytes(scount, stype, comm), -1);
}
