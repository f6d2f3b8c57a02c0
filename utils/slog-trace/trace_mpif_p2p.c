/* SPDX-License-Identifier: MIT
 *
 * trace_mpif_p2p.c - wrappers of Open MPI's Fortran bindings (see
 * trace_mpif.h) of MPI_Init/Init_thread/Finalize/Abort, the point-to-point
 * calls and MPI_Comm_free: recorded with the categories and args of their
 * C wrappers (trace_mpi_p2p.c, trace_mpi_wait.c), so that `slog-trace
 * merge` pairs a Fortran rank's messages with any other rank's.
 * Layer: slog-trace preload library; Open MPI's mpi.h and Fortran ABI.
 */
#include "trace_core.h"
#include "trace_mpif.h"

/* NOLINTBEGIN(readability-function-size): the MPI standard fixes the parameters */

FORTRAN_WRAPPER(init, (MPI_Fint * ierr))
{
    trace_call c;
    const bool traced = trace_enter(&c);
    pmpi_init_(ierr);
    (void)trace_mpi_started(&c, traced, TRACE_FN_MPI_INIT, f_ret(ierr));
}

FORTRAN_WRAPPER(init_thread, (MPI_Fint * required, MPI_Fint *provided, MPI_Fint *ierr))
{
    trace_call c;
    const bool traced = trace_enter(&c);
    pmpi_init_thread_(required, provided, ierr);
    (void)trace_mpi_started(&c, traced, TRACE_FN_MPI_INIT, f_ret(ierr));
}

FORTRAN_WRAPPER(finalize, (MPI_Fint * ierr))
{
    F_ENTER(pmpi_finalize_(ierr));
    pmpi_finalize_(ierr);
    trace_args a = {.n = 0};
    targ_int(&a, "ret", f_ret(ierr));
    trace_leave(&c, TRACE_FN_MPI_FINALIZE, &a);
}

FORTRAN_WRAPPER(abort, (MPI_Fint * comm, MPI_Fint *errorcode, MPI_Fint *ierr))
{
    F_ENTER(pmpi_abort_(comm, errorcode, ierr));
    trace_mpi_aborting(&c, f_comm(comm), (int)*errorcode);
    pmpi_abort_(comm, errorcode, ierr);
}

/* A send in any mode: the call, then its state with the send's args. */
#define F_SEND(fn, call)                                                                           \
    F_ENTER(call);                                                                                 \
    call;                                                                                          \
    trace_args a = {.n = 0};                                                                       \
    trace_mpi_send_args(&a, (int)*count, f_type(type), (int)*dest, (int)*tag, f_comm(comm));       \
    targ_int(&a, "ret", f_ret(ierr));                                                              \
    trace_leave(&c, fn, &a)

#define F_SEND_PARAMS                                                                              \
    (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm,    \
     MPI_Fint *ierr)
#define F_ISEND_PARAMS                                                                             \
    (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm,    \
     MPI_Fint *req, MPI_Fint *ierr)

FORTRAN_WRAPPER(send, F_SEND_PARAMS)
{
    F_SEND(TRACE_FN_MPI_SEND, pmpi_send_(buf, count, type, dest, tag, comm, ierr));
}

FORTRAN_WRAPPER(ssend, F_SEND_PARAMS)
{
    F_SEND(TRACE_FN_MPI_SSEND, pmpi_ssend_(buf, count, type, dest, tag, comm, ierr));
}

FORTRAN_WRAPPER(bsend, F_SEND_PARAMS)
{
    F_SEND(TRACE_FN_MPI_BSEND, pmpi_bsend_(buf, count, type, dest, tag, comm, ierr));
}

FORTRAN_WRAPPER(rsend, F_SEND_PARAMS)
{
    F_SEND(TRACE_FN_MPI_RSEND, pmpi_rsend_(buf, count, type, dest, tag, comm, ierr));
}

FORTRAN_WRAPPER(isend, F_ISEND_PARAMS)
{
    F_SEND(TRACE_FN_MPI_ISEND, pmpi_isend_(buf, count, type, dest, tag, comm, req, ierr));
}

FORTRAN_WRAPPER(issend, F_ISEND_PARAMS)
{
    F_SEND(TRACE_FN_MPI_ISSEND, pmpi_issend_(buf, count, type, dest, tag, comm, req, ierr));
}

FORTRAN_WRAPPER(ibsend, F_ISEND_PARAMS)
{
    F_SEND(TRACE_FN_MPI_IBSEND, pmpi_ibsend_(buf, count, type, dest, tag, comm, req, ierr));
}

FORTRAN_WRAPPER(irsend, F_ISEND_PARAMS)
{
    F_SEND(TRACE_FN_MPI_IRSEND, pmpi_irsend_(buf, count, type, dest, tag, comm, req, ierr));
}

FORTRAN_WRAPPER(recv,
                (void *buf,
                 MPI_Fint *count,
                 MPI_Fint *type,
                 MPI_Fint *source,
                 MPI_Fint *tag,
                 MPI_Fint *comm,
                 MPI_Fint *status,
                 MPI_Fint *ierr))
{
    F_ENTER(pmpi_recv_(buf, count, type, source, tag, comm, status, ierr));
    MPI_Fint own[F_STATUS_WORDS];
    MPI_Fint *const st = f_status(status, own);
    pmpi_recv_(buf, count, type, source, tag, comm, st, ierr);
    const int r = f_ret(ierr);
    trace_args a = {.n = 0};
    if (r == MPI_SUCCESS) {
        const MPI_Status cst = f_status_c(st);
        trace_mpi_recv_args(&a, f_comm(comm), f_type(type), &cst);
    }
    targ_int(&a, "ret", r);
    trace_leave(&c, TRACE_FN_MPI_RECV, &a);
}

FORTRAN_WRAPPER(irecv,
                (void *buf,
                 MPI_Fint *count,
                 MPI_Fint *type,
                 MPI_Fint *source,
                 MPI_Fint *tag,
                 MPI_Fint *comm,
                 MPI_Fint *req,
                 MPI_Fint *ierr))
{
    F_ENTER(pmpi_irecv_(buf, count, type, source, tag, comm, req, ierr));
    pmpi_irecv_(buf, count, type, source, tag, comm, req, ierr);
    const int r = f_ret(ierr);
    const trace_mpi_persist p = {r == MPI_SUCCESS ? f_request(req) : NULL,
                                 false,
                                 (int)*count,
                                 f_type(type),
                                 (int)*source,
                                 (int)*tag,
                                 f_comm(comm)};
    if (r == MPI_SUCCESS) {
        trace_mpi_note_recv(p.req, p.comm, p.type);
    }
    (void)trace_mpi_posted_done(&c, TRACE_FN_MPI_IRECV, &p, r);
}

/* A send-receive's end: the send's args, then trace_mpi_exchanged. */
static void f_exchanged(const trace_call *c,
                        trace_fn fn,
                        const MPI_Fint *send,
                        MPI_Fint *rtype,
                        MPI_Fint *comm,
                        const MPI_Fint *st,
                        const MPI_Fint *ierr)
{
    /* send: count, type, dest, tag */
    const MPI_Comm cc = f_comm(comm);
    trace_args a = {.n = 0};
    trace_mpi_send_args(&a, (int)send[0], PMPI_Type_f2c(send[1]), (int)send[2], (int)send[3], cc);
    const trace_mpi_recv rcv = {NULL, cc, f_type(rtype)};
    const MPI_Status cst = f_status_c(st);
    (void)trace_mpi_exchanged(c, fn, &a, &rcv, &cst, f_ret(ierr));
}

FORTRAN_WRAPPER(sendrecv,
                (void *sbuf,
                 MPI_Fint *count,
                 MPI_Fint *type,
                 MPI_Fint *dest,
                 MPI_Fint *tag,
                 void *rbuf,
                 MPI_Fint *rcount,
                 MPI_Fint *rtype,
                 MPI_Fint *source,
                 MPI_Fint *rtag,
                 MPI_Fint *comm,
                 MPI_Fint *status,
                 MPI_Fint *ierr))
{
    F_ENTER(pmpi_sendrecv_(sbuf, count, type, dest, tag, rbuf, rcount, rtype, source, rtag, comm,
                           status, ierr));
    MPI_Fint own[F_STATUS_WORDS];
    MPI_Fint *const st = f_status(status, own);
    pmpi_sendrecv_(sbuf, count, type, dest, tag, rbuf, rcount, rtype, source, rtag, comm, st, ierr);
    const MPI_Fint send[4] = {*count, *type, *dest, *tag};
    f_exchanged(&c, TRACE_FN_MPI_SENDRECV, send, rtype, comm, st, ierr);
}

FORTRAN_WRAPPER(sendrecv_replace,
                (void *buf,
                 MPI_Fint *count,
                 MPI_Fint *type,
                 MPI_Fint *dest,
                 MPI_Fint *tag,
                 MPI_Fint *source,
                 MPI_Fint *rtag,
                 MPI_Fint *comm,
                 MPI_Fint *status,
                 MPI_Fint *ierr))
{
    F_ENTER(pmpi_sendrecv_replace_(buf, count, type, dest, tag, source, rtag, comm, status, ierr));
    MPI_Fint own[F_STATUS_WORDS];
    MPI_Fint *const st = f_status(status, own);
    pmpi_sendrecv_replace_(buf, count, type, dest, tag, source, rtag, comm, st, ierr);
    const MPI_Fint send[4] = {*count, *type, *dest, *tag};
    f_exchanged(&c, TRACE_FN_MPI_SENDRECV_REPLACE, send, type, comm, st, ierr);
}

FORTRAN_WRAPPER(
    probe, (MPI_Fint * source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr))
{
    F_ENTER(pmpi_probe_(source, tag, comm, status, ierr));
    MPI_Fint own[F_STATUS_WORDS];
    MPI_Fint *const st = f_status(status, own);
    pmpi_probe_(source, tag, comm, st, ierr);
    const MPI_Comm cc = f_comm(comm);
    trace_args a = {.n = 0};
    trace_mpi_probe_args(&a, (int)*source, (int)*tag, cc);
    const MPI_Status cst = f_status_c(st);
    (void)trace_mpi_probed(&c, TRACE_FN_MPI_PROBE, &a, cc, &cst, f_ret(ierr));
}

/* flag: a Fortran LOGICAL (gfortran's default kind: an int, nonzero true) */
FORTRAN_WRAPPER_F08_PMPI(
    iprobe,
    (MPI_Fint * source, MPI_Fint *tag, MPI_Fint *comm, int *flag, MPI_Fint *status, MPI_Fint *ierr))
{
    F_ENTER(ompi_iprobe_f(source, tag, comm, flag, status, ierr));
    MPI_Fint own[F_STATUS_WORDS];
    MPI_Fint *const st = f_status(status, own);
    ompi_iprobe_f(source, tag, comm, flag, st, ierr);
    const int r = f_ret(ierr);
    const bool found = r == MPI_SUCCESS && *flag != 0;
    const MPI_Comm cc = f_comm(comm);
    trace_args a = {.n = 0};
    trace_mpi_probe_args(&a, (int)*source, (int)*tag, cc);
    targ_int(&a, "flag", found ? 1 : 0);
    const MPI_Status cst = f_status_c(st);
    (void)trace_mpi_probed(&c, TRACE_FN_MPI_IPROBE, &a, cc, found ? &cst : NULL, r);
}

/* Not recorded (nor is its C wrapper's call): the communicator leaves the
 * rank translation cache. */
FORTRAN_WRAPPER(comm_free, (MPI_Fint * comm, MPI_Fint *ierr))
{
    if (comm != NULL) {
        trace_mpi_forget(f_comm(comm));
    }
    pmpi_comm_free_(comm, ierr);
}

/* NOLINTEND(readability-function-size) */
