/* SPDX-License-Identifier: MIT
 *
 * trace_mpif.h - what the wrappers of Open MPI's Fortran bindings share.
 * A Fortran program reaches MPI through mpi_<name>_ (mpif.h and `use
 * mpi`) or, with `use mpi_f08`, through Open MPI's ompi_<name>_f; both
 * call the C PMPI_ functions directly, so the C wrappers never see a
 * Fortran program's calls.  Each wrapper here is defined under both names,
 * calls the binding's own profiling entry pmpi_<name>_ (referenced weakly:
 * it exists only in programs linked with Fortran MPI, the only ones that
 * reach the wrapper), and records the call as its C wrapper does, from the
 * handles converted with the PMPI_*_f2c functions.  Buffers, Fortran
 * sentinels (MPI_IN_PLACE, MPI_BOTTOM) and ierror pass through as they
 * are; an ignored status is replaced by the wrapper's own, as in C.
 * Layer: slog-trace preload library; Open MPI's mpi.h and Fortran ABI.
 */
#ifndef SLOG_TRACE_MPIF_H
#define SLOG_TRACE_MPIF_H

#include "trace_mpi.h"

TRACE_WEAK(PMPI_Comm_f2c);
TRACE_WEAK(PMPI_Type_f2c);
TRACE_WEAK(PMPI_Request_f2c);
TRACE_WEAK(PMPI_Status_f2c);
TRACE_WEAK(PMPI_File_f2c);

/* Open MPI's Fortran sentinels, common blocks that the program defines:
 * their addresses are Fortran's MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE
 * and MPI_IN_PLACE. */
extern MPI_Fint mpi_fortran_status_ignore_ __attribute__((weak));
extern MPI_Fint mpi_fortran_statuses_ignore_ __attribute__((weak));
extern MPI_Fint mpi_fortran_in_place_ __attribute__((weak));

/* MPI_Fint words of one Fortran status (MPI_STATUS_SIZE). */
#define F_STATUS_WORDS (sizeof(MPI_Status) / sizeof(MPI_Fint))

/* Declare the binding's pmpi_<name>_, then define the wrapper: mpi_<name>_
 * with ompi_<name>_f as its alias; the function body follows. */
#define FORTRAN_WRAPPER(name, params)                                                              \
    extern void pmpi_##name##_ params __attribute__((weak));                                       \
    void mpi_##name##_ params;                                                                     \
    void ompi_##name##_f params __attribute__((alias("mpi_" #name "_")));                          \
    void mpi_##name##_ params

/* The same for the calls that Open MPI's mpi_f08 module makes through
 * pmpi_<name>_ (those with a LOGICAL argument: MPI_Iprobe and the tests):
 * the wrapper is defined as mpi_<name>_ and pmpi_<name>_, and calls the
 * binding's ompi_<name>_f. */
#define FORTRAN_WRAPPER_F08_PMPI(name, params)                                                     \
    extern void ompi_##name##_f params __attribute__((weak));                                      \
    void mpi_##name##_ params;                                                                     \
    void pmpi_##name##_ params __attribute__((alias("mpi_" #name "_")));                           \
    void mpi_##name##_ params

/* The start of a wrapper: declares the trace_call c, or makes the call
 * untraced and returns when it goes unrecorded. */
#define F_ENTER(call)                                                                              \
    trace_call c;                                                                                  \
    if (!trace_enter(&c)) {                                                                        \
        call;                                                                                      \
        return;                                                                                    \
    }                                                                                              \
    (void)0

static inline MPI_Comm f_comm(const MPI_Fint *h)
{
    return PMPI_Comm_f2c(*h);
}

static inline MPI_Datatype f_type(const MPI_Fint *h)
{
    return PMPI_Type_f2c(*h);
}

static inline MPI_Request f_request(const MPI_Fint *h)
{
    return PMPI_Request_f2c(*h);
}

/* The call's result as the binding left it in ierror. */
static inline int f_ret(const MPI_Fint *ierr)
{
    return ierr != NULL ? (int)*ierr : MPI_SUCCESS;
}

static inline bool f_in_place(const void *buf)
{
    return buf == (const void *)&mpi_fortran_in_place_;
}

/* The status to pass on: the program's, or own (F_STATUS_WORDS) when it
 * gave MPI_STATUS_IGNORE. */
static inline MPI_Fint *f_status(MPI_Fint *status, MPI_Fint *own)
{
    return status == &mpi_fortran_status_ignore_ ? own : status;
}

/* A Fortran status as a C one. */
static inline MPI_Status f_status_c(const MPI_Fint *f)
{
    MPI_Status s = {0};
    (void)PMPI_Status_f2c(f, &s);
    return s;
}

#endif /* SLOG_TRACE_MPIF_H */
