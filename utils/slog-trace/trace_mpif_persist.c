/* SPDX-License-Identifier: MIT
 *
 * trace_mpif_persist.c - wrappers of Open MPI's Fortran bindings (see
 * trace_mpif.h) of persistent requests: MPI_Send_init (and its modes),
 * MPI_Recv_init, MPI_Start, MPI_Startall and MPI_Request_free, recorded as
 * their C wrappers record them (trace_mpi_persist.c), from the requests'
 * C handles (the same object from start to start).
 * Layer: slog-trace preload library; Open MPI's mpi.h and Fortran ABI.
 */
#include <stdlib.h>

#include "trace_core.h"
#include "trace_mpif.h"

/* A persistent request's creation: the call, then its record. */
#define F_INIT(fn, is_send, call)                                                                  \
    F_ENTER(call);                                                                                 \
    call;                                                                                          \
    const int r_ = f_ret(ierr);                                                                    \
    const trace_mpi_persist p_ = {r_ == MPI_SUCCESS ? f_request(req) : NULL,                       \
                                  is_send,                                                         \
                                  (int)*count,                                                     \
                                  f_type(type),                                                    \
                                  (int)*peer,                                                      \
                                  (int)*tag,                                                       \
                                  f_comm(comm)};                                                   \
    trace_mpi_persist_made(&c, fn, &p_, r_)

#define F_INIT_PARAMS                                                                              \
    (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *peer, MPI_Fint *tag, MPI_Fint *comm,    \
     MPI_Fint *req, MPI_Fint *ierr)

/* NOLINTBEGIN(readability-function-size): the MPI standard fixes the parameters */

FORTRAN_WRAPPER(send_init, F_INIT_PARAMS)
{
    F_INIT(TRACE_FN_MPI_SEND_INIT, true,
           pmpi_send_init_(buf, count, type, peer, tag, comm, req, ierr));
}

FORTRAN_WRAPPER(ssend_init, F_INIT_PARAMS)
{
    F_INIT(TRACE_FN_MPI_SSEND_INIT, true,
           pmpi_ssend_init_(buf, count, type, peer, tag, comm, req, ierr));
}

FORTRAN_WRAPPER(bsend_init, F_INIT_PARAMS)
{
    F_INIT(TRACE_FN_MPI_BSEND_INIT, true,
           pmpi_bsend_init_(buf, count, type, peer, tag, comm, req, ierr));
}

FORTRAN_WRAPPER(rsend_init, F_INIT_PARAMS)
{
    F_INIT(TRACE_FN_MPI_RSEND_INIT, true,
           pmpi_rsend_init_(buf, count, type, peer, tag, comm, req, ierr));
}

FORTRAN_WRAPPER(recv_init, F_INIT_PARAMS)
{
    F_INIT(TRACE_FN_MPI_RECV_INIT, false,
           pmpi_recv_init_(buf, count, type, peer, tag, comm, req, ierr));
}

/* NOLINTEND(readability-function-size) */

FORTRAN_WRAPPER(start, (MPI_Fint * req, MPI_Fint *ierr))
{
    F_ENTER(pmpi_start_(req, ierr));
    const MPI_Request h = f_request(req);
    pmpi_start_(req, ierr);
    if (f_ret(ierr) == MPI_SUCCESS) {
        trace_mpi_persist_started(h);
    }
    (void)trace_mpi_started_done(&c, TRACE_FN_MPI_START, 1, f_ret(ierr));
}

FORTRAN_WRAPPER(startall, (MPI_Fint * n, MPI_Fint *reqs, MPI_Fint *ierr))
{
    F_ENTER(pmpi_startall_(n, reqs, ierr));
    pmpi_startall_(n, reqs, ierr);
    for (MPI_Fint i = 0; f_ret(ierr) == MPI_SUCCESS && i < *n; i++) {
        trace_mpi_persist_started(f_request(&reqs[i]));
    }
    (void)trace_mpi_started_done(&c, TRACE_FN_MPI_STARTALL, (int)*n, f_ret(ierr));
}

/* Not recorded: the request is forgotten (trace_mpi_persist_freed). */
FORTRAN_WRAPPER(request_free, (MPI_Fint * req, MPI_Fint *ierr))
{
    if (req != NULL) {
        trace_mpi_persist_freed(f_request(req));
    }
    pmpi_request_free_(req, ierr);
}
