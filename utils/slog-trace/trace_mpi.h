/* SPDX-License-Identifier: MIT
 *
 * trace_mpi.h - what the MPI wrappers share: the PMPI entry points they
 * call, referenced weakly (the preload library is loaded into programs
 * without MPI too, where they stay unresolved and are never called), and
 * the translation of a communicator's ranks to MPI_COMM_WORLD ranks with a
 * key that names the communicator the same way in every rank's file.
 * Layer: slog-trace preload library; Open MPI's mpi.h.
 */
#ifndef SLOG_TRACE_MPI_H
#define SLOG_TRACE_MPI_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_core.h"

/* The declarator (fn) in parentheses is fn itself (C11 6.7.6p6). */
#define TRACE_WEAK(fn) extern __typeof__(fn)(fn) __attribute__((weak))

TRACE_WEAK(PMPI_Init);
TRACE_WEAK(PMPI_Init_thread);
TRACE_WEAK(PMPI_Finalize);
TRACE_WEAK(PMPI_Abort);
TRACE_WEAK(PMPI_Comm_rank);
TRACE_WEAK(PMPI_Comm_size);
TRACE_WEAK(PMPI_Comm_group);
TRACE_WEAK(PMPI_Comm_free);
TRACE_WEAK(PMPI_Comm_test_inter);
TRACE_WEAK(PMPI_Group_translate_ranks);
TRACE_WEAK(PMPI_Group_free);
TRACE_WEAK(PMPI_Type_size);
TRACE_WEAK(PMPI_Get_count);
TRACE_WEAK(PMPI_Send);
TRACE_WEAK(PMPI_Ssend);
TRACE_WEAK(PMPI_Isend);
TRACE_WEAK(PMPI_Recv);
TRACE_WEAK(PMPI_Irecv);
TRACE_WEAK(PMPI_Sendrecv);
TRACE_WEAK(PMPI_Sendrecv_replace);
TRACE_WEAK(PMPI_Bsend);
TRACE_WEAK(PMPI_Rsend);
TRACE_WEAK(PMPI_Issend);
TRACE_WEAK(PMPI_Ibsend);
TRACE_WEAK(PMPI_Irsend);
TRACE_WEAK(PMPI_Probe);
TRACE_WEAK(PMPI_Iprobe);
TRACE_WEAK(PMPI_Wait);
TRACE_WEAK(PMPI_Waitall);
TRACE_WEAK(PMPI_Waitany);
TRACE_WEAK(PMPI_Waitsome);
TRACE_WEAK(PMPI_Test);
TRACE_WEAK(PMPI_Testall);
TRACE_WEAK(PMPI_Testany);
TRACE_WEAK(PMPI_Testsome);
TRACE_WEAK(PMPI_Barrier);
TRACE_WEAK(PMPI_Bcast);
TRACE_WEAK(PMPI_Reduce);
TRACE_WEAK(PMPI_Allreduce);
TRACE_WEAK(PMPI_Gather);
TRACE_WEAK(PMPI_Allgather);
TRACE_WEAK(PMPI_Scatter);
TRACE_WEAK(PMPI_Alltoall);
TRACE_WEAK(PMPI_File_get_position);
/* the objects behind Open MPI's predefined handles */
TRACE_WEAK(ompi_mpi_comm_world);
TRACE_WEAK(ompi_request_null);
TRACE_WEAK(ompi_mpi_byte);

/* This process's rank in MPI_COMM_WORLD (-1 before MPI_Init). */
extern int trace_mpi_rank;

/* The MPI_COMM_WORLD rank of rank r of comm (r itself for MPI_ANY_SOURCE,
 * MPI_PROC_NULL, an inter-communicator or a failed lookup) and the
 * communicator's key (0: MPI_COMM_WORLD; else a hash of its members'
 * world ranks, the same in every member's file). */
int trace_mpi_world(MPI_Comm comm, int r, uint64_t *key);

/* comm is about to be freed: forget what was cached about it. */
void trace_mpi_forget(MPI_Comm comm);

/* Bytes of count items of type (-1: unknown type). */
int64_t trace_mpi_bytes(int count, MPI_Datatype type);

/* Args of a send to dest of comm: msg="send", comm, src, dst, tag, bytes
 * (nothing for MPI_PROC_NULL). */
void trace_mpi_send_args(trace_args *a, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm);

/* Args of a completed receive (status st) of type on comm: msg="recv"... */
void trace_mpi_recv_args(trace_args *a, MPI_Comm comm, MPI_Datatype type, const MPI_Status *st);

/* Record collective fn on comm (trace_mpi_coll.c): the communicator's
 * key, bytes (-1: none), root (-1: none; else made a world rank), ret. */
void trace_mpi_coll_done(const trace_call *c, trace_fn fn, MPI_Comm comm, int64_t bytes, int root,
                         int r);

/* Bytes of count items of type for every rank of comm (-1: unknown). */
int64_t trace_mpi_comm_bytes(int count, MPI_Datatype type, MPI_Comm comm);

/* The start of a wrapper of an MPI call: declares the trace_call c, or
 * returns call's result untouched when the call goes unrecorded. */
#define TRACE_MPI_ENTER(call)                                                                      \
    trace_call c;                                                                                  \
    if (!trace_enter(&c)) {                                                                        \
        return call;                                                                               \
    }                                                                                              \
    (void)0

/* A wrapper's body for a collective: call, then record it. */
#define COLL_BODY(fn, call, comm, bytes, root)                                                     \
    TRACE_MPI_ENTER(call);                                                                         \
    const int r = call;                                                                            \
    trace_mpi_coll_done(&c, fn, comm, bytes, root, r);                                             \
    return r

/* A receive posted with MPI_Irecv, not yet seen complete (trace_mpi_wait.c):
 * noted when posted; taken out when a call may complete it (false: req is
 * no noted receive); noted again when that call did not; its "MPI message
 * received" event recorded when one did, with its status st. */
typedef struct trace_mpi_recv {
    MPI_Request req;
    MPI_Comm comm;
    MPI_Datatype type;
} trace_mpi_recv;
void trace_mpi_note_recv(MPI_Request req, MPI_Comm comm, MPI_Datatype type);
bool trace_mpi_take_recv(MPI_Request req, trace_mpi_recv *out);
void trace_mpi_received(const trace_mpi_recv *p, const MPI_Status *st);

/* MPI_Init or MPI_Init_thread returned r: the process's rank noted (its
 * timeline renamed, the manifest told), and the call recorded as fn when
 * traced (c); returns r. */
int trace_mpi_started(const trace_call *c, bool traced, trace_fn fn, int r);

/* MPI_Abort(comm, errorcode) is about to end the job: an event with the
 * communicator's key and the error code in place of c's state, and the
 * file sealed (the kill that follows must not lose it). */
void trace_mpi_aborting(const trace_call *c, MPI_Comm comm, int errorcode);

/* A send-receive's end: its receive (rcv, status st) as an "MPI message
 * received" event when r is MPI_SUCCESS, then the call's state with its
 * send's args a and ret; returns r. */
int trace_mpi_exchanged(const trace_call *c,
                        trace_fn fn,
                        trace_args *a,
                        const trace_mpi_recv *rcv,
                        const MPI_Status *st,
                        int r);

/* The args of a probe for source and tag on comm. */
void trace_mpi_probe_args(trace_args *a, int source, int tag, MPI_Comm comm);

/* A probe's end: a, then the message it found (status st; NULL: none) as
 * found_src (world rank), found_tag and bytes, and ret; returns r. */
int trace_mpi_probed(
    const trace_call *c, trace_fn fn, trace_args *a, MPI_Comm comm, const MPI_Status *st, int r);

/* Bytes of counts[i] items of type over the ranks of an intra-communicator
 * comm (-1: unknown, or an inter-communicator). */
int64_t trace_mpi_sum_bytes(const int *counts, MPI_Datatype type, MPI_Comm comm);

/* The noted receives among the requests of one call that completes or
 * tests several (trace_mpi_complete.c): is[i] when reqs[i] was one (taken
 * out as p[i]); st: the statuses the call fills (the program's, or the
 * wrapper's own when it ignores them; NULL when the call fills one status,
 * not an array). */
typedef struct trace_mpi_batch {
    int n;
    trace_mpi_recv *p;
    bool *is;
    MPI_Status *st;
    bool own_st;
} trace_mpi_batch;

/* Take the n requests reqs' noted receives out; false (nothing taken)
 * without memory.  statuses: the program's array (MPI_STATUSES_IGNORE:
 * the wrapper's own), used when array. */
bool trace_mpi_batch_take(
    trace_mpi_batch *b, int n, const MPI_Request *reqs, bool array, MPI_Status *statuses);

/* The call completed k requests: idx[j] (NULL: j itself) with status
 * st[j]; their receives are recorded, the others' go back; b is freed. */
void trace_mpi_batch_finish(trace_mpi_batch *b, const int *idx, int k, const MPI_Status *st);

/* Free b without putting anything back (a failed call: not followed). */
void trace_mpi_batch_drop(trace_mpi_batch *b);

/* Record a completion call: n requests given, completed of them done
 * (-1: not followed); returns r. */
int trace_mpi_completion_done(const trace_call *c, trace_fn fn, int n, int completed, int r);

/* A request posted for one message (MPI_Irecv's, or a persistent one of
 * trace_mpi_persist.c: MPI_Send_init and its modes, send; MPI_Recv_init):
 * peer is dest or source. */
typedef struct trace_mpi_persist {
    MPI_Request req;
    bool send;
    int count;
    MPI_Datatype type;
    int peer, tag;
    MPI_Comm comm;
} trace_mpi_persist;

/* Record the call fn that posted p (r: its result) as c's state with
 * comm, dst or src (world rank), tag, bytes and ret; returns r
 * (trace_mpi_wait.c). */
int trace_mpi_posted_done(const trace_call *c, trace_fn fn, const trace_mpi_persist *p, int r);

/* The call fn made p (r: its result): noted when r is MPI_SUCCESS, and
 * recorded as c's state with comm, dst or src, tag, bytes and ret. */
void trace_mpi_persist_made(const trace_call *c, trace_fn fn, const trace_mpi_persist *p, int r);

/* req was started: a noted send's "MPI message sent" event, a noted
 * receive noted as posted (trace_mpi_note_recv); nothing for others. */
void trace_mpi_persist_started(MPI_Request req);

/* req is about to be freed: forgotten, and a receive noted for it. */
void trace_mpi_persist_freed(MPI_Request req);

/* Record MPI_Start (n 1) or MPI_Startall of n requests; returns r. */
int trace_mpi_started_done(const trace_call *c, trace_fn fn, int n, int r);

/* The names of open MPI-IO files by handle (trace_mpi_files.c): fh was
 * opened as path; copy fh's name into buf of n bytes ("" when unknown);
 * fh is closed. */
void trace_mpi_file_opened(MPI_File fh, const char *path);
void trace_mpi_file_name(MPI_File fh, char *buf, size_t n);
void trace_mpi_file_closed(MPI_File fh);

/* MPI-IO records (trace_mpi_io.c).  A data call: its file, the type of
 * its items, the bytes asked, its offset (-1: none). */
typedef struct trace_mpi_io_data {
    MPI_File fh;
    MPI_Datatype type;
    int64_t asked;
    MPI_Offset offset;
} trace_mpi_io_data;

/* The individual file pointer of fh before a call moves it; -1 when MPI
 * cannot say (a file opened with MPI_MODE_SEQUENTIAL has none). */
MPI_Offset trace_mpi_io_position(MPI_File fh);

/* Record a call on fh: the args in extra, then path and ret; returns r. */
int trace_mpi_io_file_done(
    const trace_call *c, trace_fn fn, MPI_File fh, const trace_args *extra, int r);

/* Record data call d (count, offset, bytes moved by its status st; st
 * NULL: a nonblocking call's start); returns r. */
int trace_mpi_io_data_done(
    const trace_call *c, trace_fn fn, const trace_mpi_io_data *d, const MPI_Status *st, int r);

/* Record MPI_File_open of path on comm with amode, which returned r and
 * the handle *fh (its name noted when r is MPI_SUCCESS); returns r. */
int trace_mpi_io_open_done(
    const trace_call *c, MPI_Comm comm, const char *path, int amode, const MPI_File *fh, int r);

/* Record MPI_File_close of fh, named path before the call, which
 * returned r (the name forgotten when r is MPI_SUCCESS); returns r. */
int trace_mpi_io_close_done(const trace_call *c, MPI_File fh, const char *path, int r);

/* Record MPI_File_delete of path, which returned r; returns r. */
int trace_mpi_io_delete_done(const trace_call *c, const char *path, int r);

#endif /* SLOG_TRACE_MPI_H */
