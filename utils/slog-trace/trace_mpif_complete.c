/* SPDX-License-Identifier: MIT
 *
 * trace_mpif_complete.c - wrappers of Open MPI's Fortran bindings (see
 * trace_mpif.h) of the calls that complete or test requests: MPI_Wait,
 * Waitall, Waitany, Waitsome, Test, Testall, Testany, Testsome.  As in C
 * (trace_mpi_wait.c, trace_mpi_complete.c), the receives posted with
 * MPI_Irecv among the requests (their C handles, converted before the call
 * frees them) are taken out of the table; each the call completed gets its
 * "MPI message received" event, the others go back.  Fortran's indices
 * count from 1; its statuses are arrays of MPI_STATUS_SIZE integers.
 * Layer: slog-trace preload library; Open MPI's mpi.h and Fortran ABI.
 */
#include <stdlib.h>

#include "trace_core.h"
#include "trace_mpif.h"

/* Take the n Fortran requests freqs' noted receives out (trace_mpi_batch_take). */
static bool f_take(trace_mpi_batch *b, int n, const MPI_Fint *freqs)
{
    MPI_Request *reqs = malloc((n > 0 ? (size_t)n : 1) * sizeof(MPI_Request));
    if (reqs == NULL) {
        return false;
    }
    for (int i = 0; i < n; i++) {
        reqs[i] = f_request(&freqs[i]);
    }
    const bool ok = trace_mpi_batch_take(b, n, reqs, false, NULL);
    free(reqs);
    return ok;
}

/* The call completed k requests: idx1[j] (from 1; NULL: j + 1) with the
 * Fortran status fst[j]; trace_mpi_batch_finish with them in C terms. */
static void f_finish(trace_mpi_batch *b, const MPI_Fint *idx1, int k, const MPI_Fint *fst)
{
    const size_t n = k > 0 ? (size_t)k : 1;
    MPI_Status *st = malloc(n * sizeof *st);
    int *idx = malloc(n * sizeof *idx);
    if (st == NULL || idx == NULL) {
        k = 0; /* none recorded; all go back */
    }
    for (int j = 0; j < k; j++) {
        st[j] = f_status_c(fst + (size_t)j * F_STATUS_WORDS);
        idx[j] = idx1 != NULL ? (int)idx1[j] - 1 : j;
    }
    trace_mpi_batch_finish(b, idx, k, st);
    free(st);
    free(idx);
}

/* The statuses array a call fills: the program's, or the wrapper's own
 * (n of them, freed by f_statuses_free) when it gave MPI_STATUSES_IGNORE;
 * NULL without memory. */
static MPI_Fint *f_statuses(MPI_Fint *statuses, int n)
{
    if (statuses != &mpi_fortran_statuses_ignore_) {
        return statuses;
    }
    return calloc((n > 0 ? (size_t)n : 1) * F_STATUS_WORDS, sizeof(MPI_Fint));
}

static void f_statuses_free(MPI_Fint *used, const MPI_Fint *given)
{
    if (used != given) {
        free(used);
    }
}

/* The start of a call on n requests: traced with the batch b taken and
 * st, the statuses it fills (st_expr: may use own, room for one status;
 * given: the program's, which is not freed), or made untraced. */
#define F_COMPLETION_ENTER(call, n, reqs, st_expr, given)                                          \
    F_ENTER(call);                                                                                 \
    trace_mpi_batch b;                                                                             \
    MPI_Fint own[F_STATUS_WORDS];                                                                  \
    (void)own; /* used by one-status calls only */                                                 \
    MPI_Fint *const st = (st_expr);                                                                \
    if (st == NULL || !f_take(&b, n, reqs)) {                                                      \
        f_statuses_free(st, given);                                                                \
        call;                                                                                      \
        (void)trace_mpi_completion_done(&c, fn_, n, -1, f_ret(ierr)); /* out of memory */          \
        return;                                                                                    \
    }                                                                                              \
    (void)0

/* What a call completed: k requests, idx1 (from 1; NULL: in order), with
 * their statuses in st. */
typedef struct f_done {
    const MPI_Fint *idx1;
    int k;
    const MPI_Fint *st;
} f_done;

/* The end of a call that returned r: what it completed recorded, b freed. */
static void
f_completed(const trace_call *c, trace_fn fn, trace_mpi_batch *b, const f_done *d, int r)
{
    const int n = b->n;
    if (r == MPI_SUCCESS) {
        f_finish(b, d->idx1, d->k, d->st);
    } else {
        trace_mpi_batch_drop(b);
    }
    (void)trace_mpi_completion_done(c, fn, n, r == MPI_SUCCESS ? d->k : 0, r);
}

/* NOLINTBEGIN(readability-function-size): the MPI standard fixes the parameters */

FORTRAN_WRAPPER(wait, (MPI_Fint * req, MPI_Fint *status, MPI_Fint *ierr))
{
    F_ENTER(pmpi_wait_(req, status, ierr));
    trace_mpi_recv p;
    const bool is_recv = trace_mpi_take_recv(f_request(req), &p);
    MPI_Fint own[F_STATUS_WORDS];
    MPI_Fint *const st = f_status(status, own);
    pmpi_wait_(req, st, ierr);
    const int r = f_ret(ierr);
    if (is_recv && r == MPI_SUCCESS) {
        const MPI_Status cst = f_status_c(st);
        trace_mpi_received(&p, &cst);
    }
    trace_args a = {.n = 0};
    targ_int(&a, "ret", r);
    trace_leave(&c, TRACE_FN_MPI_WAIT, &a);
}

FORTRAN_WRAPPER(waitall, (MPI_Fint * n, MPI_Fint *reqs, MPI_Fint *statuses, MPI_Fint *ierr))
{
    const trace_fn fn_ = TRACE_FN_MPI_WAITALL;
    F_COMPLETION_ENTER(pmpi_waitall_(n, reqs, statuses, ierr), (int)*n, reqs,
                       f_statuses(statuses, (int)*n), statuses);
    pmpi_waitall_(n, reqs, st, ierr);
    f_completed(&c, fn_, &b, &(const f_done){NULL, (int)*n, st}, f_ret(ierr));
    f_statuses_free(st, statuses);
}

FORTRAN_WRAPPER_F08_PMPI(
    testall, (MPI_Fint * n, MPI_Fint *reqs, int *flag, MPI_Fint *statuses, MPI_Fint *ierr))
{
    const trace_fn fn_ = TRACE_FN_MPI_TESTALL;
    F_COMPLETION_ENTER(ompi_testall_f(n, reqs, flag, statuses, ierr), (int)*n, reqs,
                       f_statuses(statuses, (int)*n), statuses);
    ompi_testall_f(n, reqs, flag, st, ierr);
    f_completed(&c, fn_, &b, &(const f_done){NULL, *flag != 0 ? (int)*n : 0, st}, f_ret(ierr));
    f_statuses_free(st, statuses);
}

FORTRAN_WRAPPER(waitany,
                (MPI_Fint * n, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr))
{
    const trace_fn fn_ = TRACE_FN_MPI_WAITANY;
    F_COMPLETION_ENTER(pmpi_waitany_(n, reqs, index, status, ierr), (int)*n, reqs,
                       f_status(status, own), st);
    pmpi_waitany_(n, reqs, index, st, ierr);
    f_completed(&c, fn_, &b, &(const f_done){index, *index != MPI_UNDEFINED ? 1 : 0, st},
                f_ret(ierr));
}

FORTRAN_WRAPPER_F08_PMPI(
    testany,
    (MPI_Fint * n, MPI_Fint *reqs, MPI_Fint *index, int *flag, MPI_Fint *status, MPI_Fint *ierr))
{
    const trace_fn fn_ = TRACE_FN_MPI_TESTANY;
    F_COMPLETION_ENTER(ompi_testany_f(n, reqs, index, flag, status, ierr), (int)*n, reqs,
                       f_status(status, own), st);
    ompi_testany_f(n, reqs, index, flag, st, ierr);
    f_completed(&c, fn_, &b,
                &(const f_done){index, *flag != 0 && *index != MPI_UNDEFINED ? 1 : 0, st},
                f_ret(ierr));
}

FORTRAN_WRAPPER(waitsome,
                (MPI_Fint * n,
                 MPI_Fint *reqs,
                 MPI_Fint *outcount,
                 MPI_Fint *indices,
                 MPI_Fint *statuses,
                 MPI_Fint *ierr))
{
    const trace_fn fn_ = TRACE_FN_MPI_WAITSOME;
    F_COMPLETION_ENTER(pmpi_waitsome_(n, reqs, outcount, indices, statuses, ierr), (int)*n, reqs,
                       f_statuses(statuses, (int)*n), statuses);
    pmpi_waitsome_(n, reqs, outcount, indices, st, ierr);
    f_completed(&c, fn_, &b,
                &(const f_done){indices, *outcount != MPI_UNDEFINED ? (int)*outcount : 0, st},
                f_ret(ierr));
    f_statuses_free(st, statuses);
}

FORTRAN_WRAPPER_F08_PMPI(testsome,
                         (MPI_Fint * n,
                          MPI_Fint *reqs,
                          MPI_Fint *outcount,
                          MPI_Fint *indices,
                          MPI_Fint *statuses,
                          MPI_Fint *ierr))
{
    const trace_fn fn_ = TRACE_FN_MPI_TESTSOME;
    F_COMPLETION_ENTER(ompi_testsome_f(n, reqs, outcount, indices, statuses, ierr), (int)*n, reqs,
                       f_statuses(statuses, (int)*n), statuses);
    ompi_testsome_f(n, reqs, outcount, indices, st, ierr);
    f_completed(&c, fn_, &b,
                &(const f_done){indices, *outcount != MPI_UNDEFINED ? (int)*outcount : 0, st},
                f_ret(ierr));
    f_statuses_free(st, statuses);
}

FORTRAN_WRAPPER_F08_PMPI(test, (MPI_Fint * req, int *flag, MPI_Fint *status, MPI_Fint *ierr))
{
    const trace_fn fn_ = TRACE_FN_MPI_TEST;
    MPI_Fint one = 1;
    F_COMPLETION_ENTER(ompi_test_f(req, flag, status, ierr), 1, req, f_status(status, own), st);
    ompi_test_f(req, flag, st, ierr);
    f_completed(&c, fn_, &b, &(const f_done){&one, *flag != 0 ? 1 : 0, st}, f_ret(ierr));
}

/* NOLINTEND(readability-function-size) */
