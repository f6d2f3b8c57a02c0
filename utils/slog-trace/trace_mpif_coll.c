/* SPDX-License-Identifier: MIT
 *
 * trace_mpif_coll.c - wrappers of Open MPI's Fortran bindings (see
 * trace_mpif.h) of the collectives, blocking and nonblocking: recorded as
 * their C wrappers record them (trace_mpi_coll.c, trace_mpi_coll_v.c,
 * trace_mpi_icoll.c), with the communicator's key, this rank's bytes and
 * the root as a world rank; Fortran's MPI_IN_PLACE is recognised where
 * the C wrappers look for MPI_IN_PLACE.
 * Layer: slog-trace preload library; Open MPI's mpi.h and Fortran ABI.
 */
#include "trace_core.h"
#include "trace_mpif.h"

/* A collective: the call, then its state (trace_mpi_coll_done). */
#define F_COLL(fn, call, bytes, root)                                                              \
    F_ENTER(call);                                                                                 \
    call;                                                                                          \
    trace_mpi_coll_done(&c, fn, f_comm(comm), bytes, root, f_ret(ierr))

static int64_t f_bytes(const MPI_Fint *count, const MPI_Fint *type)
{
    return trace_mpi_bytes((int)*count, f_type(type));
}

/* The bytes of count items of type for every rank of comm. */
static int64_t f_comm_bytes(const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *comm)
{
    return trace_mpi_comm_bytes((int)*count, f_type(type), f_comm(comm));
}

/* The bytes of counts[i] items of type over comm's ranks. */
static int64_t f_sum_bytes(const MPI_Fint *counts, const MPI_Fint *type, const MPI_Fint *comm)
{
    return trace_mpi_sum_bytes(counts, f_type(type), f_comm(comm));
}

/* NOLINTBEGIN(readability-function-size): the MPI standard fixes the parameters */

FORTRAN_WRAPPER(barrier, (MPI_Fint * comm, MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_BARRIER, pmpi_barrier_(comm, ierr), -1, -1);
}

FORTRAN_WRAPPER(
    bcast,
    (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_BCAST, pmpi_bcast_(buf, count, type, root, comm, ierr),
           f_bytes(count, type), (int)*root);
}

FORTRAN_WRAPPER(reduce,
                (void *sbuf,
                 void *rbuf,
                 MPI_Fint *count,
                 MPI_Fint *type,
                 MPI_Fint *op,
                 MPI_Fint *root,
                 MPI_Fint *comm,
                 MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_REDUCE, pmpi_reduce_(sbuf, rbuf, count, type, op, root, comm, ierr),
           f_bytes(count, type), (int)*root);
}

FORTRAN_WRAPPER(allreduce,
                (void *sbuf,
                 void *rbuf,
                 MPI_Fint *count,
                 MPI_Fint *type,
                 MPI_Fint *op,
                 MPI_Fint *comm,
                 MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_ALLREDUCE, pmpi_allreduce_(sbuf, rbuf, count, type, op, comm, ierr),
           f_bytes(count, type), -1);
}

#define F_GATHER_PARAMS                                                                            \
    (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount, MPI_Fint *rtype, \
     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
#define F_ALLGATHER_PARAMS                                                                         \
    (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount, MPI_Fint *rtype, \
     MPI_Fint *comm, MPI_Fint *ierr)

FORTRAN_WRAPPER(gather, F_GATHER_PARAMS)
{
    F_COLL(TRACE_FN_MPI_GATHER,
           pmpi_gather_(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr),
           f_bytes(scount, stype), (int)*root);
}

FORTRAN_WRAPPER(allgather, F_ALLGATHER_PARAMS)
{
    F_COLL(TRACE_FN_MPI_ALLGATHER,
           pmpi_allgather_(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr),
           f_bytes(scount, stype), -1);
}

FORTRAN_WRAPPER(scatter, F_GATHER_PARAMS)
{
    F_COLL(TRACE_FN_MPI_SCATTER,
           pmpi_scatter_(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr),
           f_bytes(rcount, rtype), (int)*root);
}

FORTRAN_WRAPPER(alltoall, F_ALLGATHER_PARAMS)
{
    F_COLL(TRACE_FN_MPI_ALLTOALL,
           pmpi_alltoall_(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr),
           f_comm_bytes(scount, stype, comm), -1);
}

FORTRAN_WRAPPER(gatherv,
                (void *sbuf,
                 MPI_Fint *scount,
                 MPI_Fint *stype,
                 void *rbuf,
                 MPI_Fint *rcounts,
                 MPI_Fint *displs,
                 MPI_Fint *rtype,
                 MPI_Fint *root,
                 MPI_Fint *comm,
                 MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_GATHERV,
           pmpi_gatherv_(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr),
           f_in_place(sbuf) ? -1 : f_bytes(scount, stype), (int)*root);
}

FORTRAN_WRAPPER(scatterv,
                (void *sbuf,
                 MPI_Fint *scounts,
                 MPI_Fint *displs,
                 MPI_Fint *stype,
                 void *rbuf,
                 MPI_Fint *rcount,
                 MPI_Fint *rtype,
                 MPI_Fint *root,
                 MPI_Fint *comm,
                 MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_SCATTERV,
           pmpi_scatterv_(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr),
           f_in_place(rbuf) ? -1 : f_bytes(rcount, rtype), (int)*root);
}

FORTRAN_WRAPPER(allgatherv,
                (void *sbuf,
                 MPI_Fint *scount,
                 MPI_Fint *stype,
                 void *rbuf,
                 MPI_Fint *rcounts,
                 MPI_Fint *displs,
                 MPI_Fint *rtype,
                 MPI_Fint *comm,
                 MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_ALLGATHERV,
           pmpi_allgatherv_(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr),
           f_in_place(sbuf) ? -1 : f_bytes(scount, stype), -1);
}

FORTRAN_WRAPPER(alltoallv,
                (void *sbuf,
                 MPI_Fint *scounts,
                 MPI_Fint *sdispls,
                 MPI_Fint *stype,
                 void *rbuf,
                 MPI_Fint *rcounts,
                 MPI_Fint *rdispls,
                 MPI_Fint *rtype,
                 MPI_Fint *comm,
                 MPI_Fint *ierr))
{
    F_COLL(
        TRACE_FN_MPI_ALLTOALLV,
        pmpi_alltoallv_(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierr),
        f_in_place(sbuf) ? f_sum_bytes(rcounts, rtype, comm) : f_sum_bytes(scounts, stype, comm),
        -1);
}

FORTRAN_WRAPPER(reduce_scatter,
                (void *sbuf,
                 void *rbuf,
                 MPI_Fint *rcounts,
                 MPI_Fint *type,
                 MPI_Fint *op,
                 MPI_Fint *comm,
                 MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_REDUCE_SCATTER,
           pmpi_reduce_scatter_(sbuf, rbuf, rcounts, type, op, comm, ierr),
           f_sum_bytes(rcounts, type, comm), -1);
}

FORTRAN_WRAPPER(reduce_scatter_block,
                (void *sbuf,
                 void *rbuf,
                 MPI_Fint *rcount,
                 MPI_Fint *type,
                 MPI_Fint *op,
                 MPI_Fint *comm,
                 MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_REDUCE_SCATTER_BLOCK,
           pmpi_reduce_scatter_block_(sbuf, rbuf, rcount, type, op, comm, ierr),
           f_comm_bytes(rcount, type, comm), -1);
}

FORTRAN_WRAPPER(scan,
                (void *sbuf,
                 void *rbuf,
                 MPI_Fint *count,
                 MPI_Fint *type,
                 MPI_Fint *op,
                 MPI_Fint *comm,
                 MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_SCAN, pmpi_scan_(sbuf, rbuf, count, type, op, comm, ierr),
           f_bytes(count, type), -1);
}

FORTRAN_WRAPPER(exscan,
                (void *sbuf,
                 void *rbuf,
                 MPI_Fint *count,
                 MPI_Fint *type,
                 MPI_Fint *op,
                 MPI_Fint *comm,
                 MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_EXSCAN, pmpi_exscan_(sbuf, rbuf, count, type, op, comm, ierr),
           f_bytes(count, type), -1);
}

FORTRAN_WRAPPER(ibarrier, (MPI_Fint * comm, MPI_Fint *req, MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_IBARRIER, pmpi_ibarrier_(comm, req, ierr), -1, -1);
}

FORTRAN_WRAPPER(ibcast,
                (void *buf,
                 MPI_Fint *count,
                 MPI_Fint *type,
                 MPI_Fint *root,
                 MPI_Fint *comm,
                 MPI_Fint *req,
                 MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_IBCAST, pmpi_ibcast_(buf, count, type, root, comm, req, ierr),
           f_bytes(count, type), (int)*root);
}

FORTRAN_WRAPPER(ireduce,
                (void *sbuf,
                 void *rbuf,
                 MPI_Fint *count,
                 MPI_Fint *type,
                 MPI_Fint *op,
                 MPI_Fint *root,
                 MPI_Fint *comm,
                 MPI_Fint *req,
                 MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_IREDUCE, pmpi_ireduce_(sbuf, rbuf, count, type, op, root, comm, req, ierr),
           f_bytes(count, type), (int)*root);
}

FORTRAN_WRAPPER(iallreduce,
                (void *sbuf,
                 void *rbuf,
                 MPI_Fint *count,
                 MPI_Fint *type,
                 MPI_Fint *op,
                 MPI_Fint *comm,
                 MPI_Fint *req,
                 MPI_Fint *ierr))
{
    F_COLL(TRACE_FN_MPI_IALLREDUCE, pmpi_iallreduce_(sbuf, rbuf, count, type, op, comm, req, ierr),
           f_bytes(count, type), -1);
}

#define F_IGATHER_PARAMS                                                                           \
    (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount, MPI_Fint *rtype, \
     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
#define F_IALLGATHER_PARAMS                                                                        \
    (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount, MPI_Fint *rtype, \
     MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)

FORTRAN_WRAPPER(igather, F_IGATHER_PARAMS)
{
    F_COLL(TRACE_FN_MPI_IGATHER,
           pmpi_igather_(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req, ierr),
           f_bytes(scount, stype), (int)*root);
}

FORTRAN_WRAPPER(iallgather, F_IALLGATHER_PARAMS)
{
    F_COLL(TRACE_FN_MPI_IALLGATHER,
           pmpi_iallgather_(sbuf, scount, stype, rbuf, rcount, rtype, comm, req, ierr),
           f_bytes(scount, stype), -1);
}

FORTRAN_WRAPPER(iscatter, F_IGATHER_PARAMS)
{
    F_COLL(TRACE_FN_MPI_ISCATTER,
           pmpi_iscatter_(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req, ierr),
           f_bytes(rcount, rtype), (int)*root);
}

FORTRAN_WRAPPER(ialltoall, F_IALLGATHER_PARAMS)
{
    F_COLL(TRACE_FN_MPI_IALLTOALL,
           pmpi_ialltoall_(sbuf, scount, stype, rbuf, rcount, rtype, comm, req, ierr),
           f_comm_bytes(scount, stype, comm), -1);
}

/* NOLINTEND(readability-function-size) */
