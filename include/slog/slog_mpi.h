/* SPDX-License-Identifier: MIT
 *
 * slog_mpi.h - the MPI writer (libslog-mpi, pkg-config `slog-mpi`, built
 * only where Open MPI is found): every rank of a communicator writes its
 * own file, DIR/rank-NNNNNN.slog, through an ordinary slog_writer (so a
 * crash leaves each rank's file as it last flushed), under a top timeline
 * "rank R (HOST)".  The calls measure each rank's clock offset to rank 0
 * (a ping-pong at create and at finish), record the two halves of
 * point-to-point messages, and at finish rank 0 writes DIR/manifest.jsonl
 * and DIR/index.slog, an index over the rank files (slog_index.h: read
 * like one file, nothing of them copied but their top tree levels) whose
 * arrows are the messages, matched by (source, destination, tag) in
 * order; when asked, it also merges the rank files into one file
 * (slog_merge.h).  Unlike the other public headers this one includes
 * <mpi.h> (for MPI_Comm), so a program using it is compiled with the MPI
 * compiler flags (`mpicc`, or pkg-config `slog-mpi ompi-c`).  doc/MPI.md
 * has the whole story.
 *
 *   slog_mpi_writer *m;  slog_error err;
 *   slog_mpi_writer_create(&m, MPI_COMM_WORLD, "run.d", NULL, &err);      (collective)
 *   slog_writer *w = slog_mpi_writer_handle(m);
 *   slog_writer_add_timeline(w, slog_mpi_writer_rank_timeline(m), SLOG_TIMELINE_THREAD,
 *                            "main", 0, &tl, &err);
 *   t0 = slog_mpi_now();  MPI_Send(buf, n, MPI_BYTE, dst, tag, comm);  t1 = slog_mpi_now();
 *   slog_mpi_writer_send(m, tl, dst, tag, n, t0, t1, &err);
 *   slog_mpi_writer_finish(m, "run.slog", &err);                          (collective)
 *   slog_mpi_writer_destroy(m);
 *
 * Thread safety: a writer is used by one thread at a time (the rank's
 * writer, slog_writer.h); the collective calls follow MPI's rules for
 * collectives on the communicator (every rank calls them, in the same
 * order).  The library communicates on a duplicate of the communicator, so
 * its messages never match the program's.
 */
#ifndef SLOG_MPI_H
#define SLOG_MPI_H

#include <mpi.h>
#include <slog/slog_writer.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct slog_mpi_writer slog_mpi_writer;

/** The clock the program timestamps with: ticks of the rank files' clock
 *  (slog_writer_options.ticks_per_second).  @since 0.3 */
typedef int64_t (*slog_mpi_clock_fn)(void *user);

/** slog_mpi_options.flags: one clock offset per rank.  By default, with the
 *  default clock (CLOCK_REALTIME, one per host), ranks on one host share
 *  one offset: 0 on rank 0's host, elsewhere the measurement of the host's
 *  rank with the smallest round trip.  @since 0.3 */
#define SLOG_MPI_OFFSET_PER_RANK 1u

/** Options of the MPI writer.  Zero means default for every field; every
 *  rank passes the same values. */
typedef struct slog_mpi_options {
    uint32_t struct_size;              /* sizeof(slog_mpi_options) */
    uint32_t flags;                    /* SLOG_MPI_* bits */
    const slog_writer_options *writer; /* options of every rank's writer; NULL = defaults;
                                          its creator defaults to "slog-mpi VERSION" */
    slog_mpi_clock_fn clock;           /* NULL: slog_mpi_now (CLOCK_REALTIME ns); required
                                          when writer->ticks_per_second is not 1e9 */
    void *clock_user;                  /* handed to clock */
    uint32_t sync_rounds;              /* ping-pong exchanges per rank and measurement,
                                          1..1000; default 8 */
    uint32_t max_messages;             /* message halves per rank kept for matching (48
                                          bytes each, gathered to rank 0); later ones are
                                          still recorded in the rank file but not matched;
                                          default 1048576 */
} slog_mpi_options;

#define SLOG_MPI_OPTIONS_INIT {sizeof(slog_mpi_options), 0, NULL, NULL, NULL, 0, 0}

/**
 * Fill @p opts with the defaults, as SLOG_MPI_OPTIONS_INIT does.
 * @param opts  options to fill; must not be NULL
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API void slog_mpi_options_init(slog_mpi_options *opts);

/**
 * The default clock: CLOCK_REALTIME in nanoseconds, so that the files of
 * ranks on different hosts start out comparable (NTP keeps hosts within
 * milliseconds; the measured offsets correct the rest).
 * @return nanoseconds since the Unix epoch
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API int64_t slog_mpi_now(void);

/**
 * Create the rank's file: collective over @p comm.  Rank 0 creates @p dir
 * if missing; every rank then creates DIR/rank-NNNNNN.slog (its rank in
 * @p comm, six digits) with a top timeline "rank R (HOST)" of kind
 * SLOG_TIMELINE_RANK; the clocks are measured against rank 0's; rank 0
 * writes DIR/manifest.jsonl listing every rank's file as "running".  When
 * one rank fails, every rank returns its error (the lowest failing rank's)
 * and no writer.
 * @param out   receives the writer (release with slog_mpi_writer_destroy); NULL on failure
 * @param comm  the ranks writing; duplicated, so the program may free it
 * @param dir   the job directory, the same on every rank (a shared file system
 *              when ranks run on several hosts); must not be NULL
 * @param opts  options, NULL for defaults (struct_size rule: slog_common.h)
 * @param err   error details, the same on every rank, or NULL
 * @retval SLOG_OK     created on every rank
 * @retval SLOG_EINVAL an option out of range, or a bad struct_size
 * @retval SLOG_EIO    the directory, a file or the manifest cannot be
 *                     created, or MPI failed
 * @retval SLOG_ENOMEM out of memory
 * Thread safety: one thread per rank.  @since 0.3
 */
SLOG_API int slog_mpi_writer_create(slog_mpi_writer **out, MPI_Comm comm, const char *dir,
                                    const slog_mpi_options *opts, slog_error *err);

/**
 * The rank's file writer, for its own timelines, categories and drawables
 * (slog_writer.h).  Do not call slog_writer_finish or slog_writer_destroy
 * on it: slog_mpi_writer_finish and slog_mpi_writer_destroy do.
 * @param m  the MPI writer
 * @return the writer, borrowed until slog_mpi_writer_finish or destroy; never NULL
 * Thread safety: the writer's thread.  @since 0.3
 */
SLOG_API slog_writer *slog_mpi_writer_handle(slog_mpi_writer *m);

/**
 * The id of the rank's top timeline ("rank R (HOST)"), the parent of the
 * program's timelines.
 * @param m  the MPI writer
 * @return a timeline id of the rank's file
 * Thread safety: the writer's thread.  @since 0.3
 */
SLOG_API uint32_t slog_mpi_writer_rank_timeline(const slog_mpi_writer *m);

/**
 * Record the rank's half of a message sent to @p dst: a state "MPI send"
 * on @p timeline from @p t0 to @p t1 (nested in the states open there)
 * with args msg="send", comm=0, src, dst, tag and bytes, and the record
 * finish matches with the receiver's half.  Messages are matched by (src,
 * dst, tag) in the order of their @p t0 (MPI's non-overtaking rule), so
 * @p t0 is when the send was posted (MPI_Send or MPI_Isend called) and
 * ranks are those of the communicator given to create.
 * @param m         the MPI writer
 * @param timeline  a timeline of the rank's file (the arrow leaves it at @p t0)
 * @param dst       destination rank, 0 .. size - 1
 * @param tag       message tag, >= 0
 * @param bytes     message size, >= 0
 * @param t0        send posted, clock ticks
 * @param t1        send completed, >= @p t0
 * @param err       error details, or NULL
 * @retval SLOG_OK     recorded
 * @retval SLOG_EINVAL a rank, tag, size or time out of range, an unknown timeline
 * @retval SLOG_ESTATE finished, or the rank's writer failed
 * @retval SLOG_EIO, SLOG_ENOMEM  as slog_writer_append_state
 * Thread safety: the writer's thread.  @since 0.3
 */
SLOG_API int slog_mpi_writer_send(slog_mpi_writer *m, uint32_t timeline, int dst, int tag,
                                  int64_t bytes, int64_t t0, int64_t t1, slog_error *err);

/**
 * Record the rank's half of a message received from @p src: a state "MPI
 * recv" as slog_mpi_writer_send (args msg="recv"); the arrow reaches
 * @p timeline at @p t1.  With MPI_ANY_SOURCE or MPI_ANY_TAG, pass the
 * status's source and tag; @p t0 is when the receive was posted.
 * @param m         the MPI writer
 * @param timeline  a timeline of the rank's file
 * @param src       source rank, 0 .. size - 1
 * @param tag       message tag, >= 0
 * @param bytes     message size, >= 0
 * @param t0        receive posted, clock ticks
 * @param t1        message arrived (receive completed), >= @p t0
 * @param err       error details, or NULL
 * @retval SLOG_OK     recorded
 * @retval SLOG_EINVAL a rank, tag, size or time out of range, an unknown timeline
 * @retval SLOG_ESTATE finished, or the rank's writer failed
 * @retval SLOG_EIO, SLOG_ENOMEM  as slog_writer_append_state
 * Thread safety: the writer's thread.  @since 0.3
 */
SLOG_API int slog_mpi_writer_recv(slog_mpi_writer *m, uint32_t timeline, int src, int tag,
                                  int64_t bytes, int64_t t0, int64_t t1, slog_error *err);

/**
 * Finish the job's files: collective.  The clocks are measured again;
 * every rank seals its file (slog_writer_finish; states still open on a
 * rank are an error there and leave its file incomplete); rank 0 gathers
 * each rank's outcome, writes the matched messages as arrows into
 * DIR/arrows.slog, writes DIR/index.slog over the rank files and it
 * (slog_index_write, a top timeline "rank R" per rank, each rank's times
 * moved by its clock offset: the mean of the create and finish
 * measurements; a rank file left incomplete or absent is marked so in the
 * index) and DIR/manifest.jsonl, and when @p merged_name is not NULL
 * merges the same inputs into it (slog_merge_files).  Every rank returns
 * the same status: the lowest failing rank's error, else the first
 * failure of rank 0's steps (arrows, index, merge, manifest).  The index
 * and the merge are written even when a rank failed (its file then taken
 * as incomplete, if it opens; the merged file is then marked incomplete
 * too).
 * @param m            the MPI writer
 * @param merged_name  path of the merged file (as given, not under DIR), or NULL for none
 * @param err          error details, the same on every rank, or NULL
 * @retval SLOG_OK     every file sealed, the manifest, the index and the merged file
 *                     written
 * @retval SLOG_ESTATE already finished, states still open on a rank, or a
 *                     rank's writer failed earlier (a full disk: the message
 *                     names that first failure)
 * @retval SLOG_EIO, SLOG_ENOMEM, SLOG_EINVAL  a rank's file, the manifest, the
 *                     arrows, the index, the merge, or MPI failed (the error
 *                     names the rank or file)
 * Thread safety: one thread per rank.  @since 0.3
 */
SLOG_API int slog_mpi_writer_finish(slog_mpi_writer *m, const char *merged_name, slog_error *err);

/**
 * Release the MPI writer (not collective).  Without finish the rank's file
 * stays incomplete, with what its writer flushed or could write out.
 * @param m  the MPI writer; NULL does nothing
 * Thread safety: the writer's thread, as its last call.  @since 0.3
 */
SLOG_API void slog_mpi_writer_destroy(slog_mpi_writer *m);

#ifdef __cplusplus
}
#endif

#endif /* SLOG_MPI_H */
