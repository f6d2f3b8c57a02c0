/* SPDX-License-Identifier: MIT
 *
 * trace_mpi_coll_v.c - PMPI wrappers of the blocking collectives with a
 * count per rank or a prefix (gatherv, scatterv, allgatherv, alltoallv,
 * reduce_scatter, reduce_scatter_block, scan, exscan), recorded as
 * trace_mpi_coll.c records the others: this rank's bytes are its send
 * buffer (a sum over the ranks where the call takes a count per rank; the
 * receive counts for an in-place alltoallv) or, for scatterv, the buffer
 * it gets.
 * Layer: slog-trace preload library; Open MPI's mpi.h.
 */
#include "trace_core.h"
#include "trace_mpi.h"

TRACE_WEAK(PMPI_Gatherv);
TRACE_WEAK(PMPI_Scatterv);
TRACE_WEAK(PMPI_Allgatherv);
TRACE_WEAK(PMPI_Alltoallv);
TRACE_WEAK(PMPI_Reduce_scatter);
TRACE_WEAK(PMPI_Reduce_scatter_block);
TRACE_WEAK(PMPI_Scan);
TRACE_WEAK(PMPI_Exscan);

/* Bytes of counts[i] items of type over the ranks i of comm; -1 when
 * unknown (an inter-communicator, a type MPI cannot size). */
int64_t trace_mpi_sum_bytes(const int *counts, MPI_Datatype type, MPI_Comm comm)
{
    int size = 0, inter = 0;
    const int64_t one = trace_mpi_bytes(1, type);
    if (counts == NULL || one < 0 || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
        PMPI_Comm_size(comm, &size) != MPI_SUCCESS) {
        return -1;
    }
    int64_t n = 0;
    for (int i = 0; i < size; i++) {
        n += counts[i];
    }
    return n * one;
}

/* This rank's bytes of a call whose send buffer may be MPI_IN_PLACE. */
static int64_t sent_bytes(const void *sbuf, int count, MPI_Datatype type)
{
    return sbuf == MPI_IN_PLACE ? -1 : trace_mpi_bytes(count, type);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_GATHERV,
              PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm), comm,
              sent_bytes(sbuf, scount, stype), root);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                 void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_SCATTERV,
              PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm), comm,
              rbuf == MPI_IN_PLACE ? -1 : trace_mpi_bytes(rcount, rtype), root);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_ALLGATHERV,
              PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm), comm,
              sent_bytes(sbuf, scount, stype), -1);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                  MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_ALLTOALLV,
              PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm),
              comm,
              sbuf == MPI_IN_PLACE ? trace_mpi_sum_bytes(rcounts, rtype, comm)
                                   : trace_mpi_sum_bytes(scounts, stype, comm),
              -1);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_REDUCE_SCATTER, PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm),
              comm, trace_mpi_sum_bytes(rcounts, type, comm), -1);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_REDUCE_SCATTER_BLOCK,
              PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm), comm,
              trace_mpi_comm_bytes(rcount, type, comm), -1);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_SCAN, PMPI_Scan(sbuf, rbuf, count, type, op, comm), comm,
              trace_mpi_bytes(count, type), -1);
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm)
{
    COLL_BODY(TRACE_FN_MPI_EXSCAN, PMPI_Exscan(sbuf, rbuf, count, type, op, comm), comm,
              trace_mpi_bytes(count, type), -1);
}
