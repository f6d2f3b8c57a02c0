/* SPDX-License-Identifier: MIT
 *
 * mw_finish.c - slog_mpi_writer_finish.  Every rank seals its file first
 * (local: whatever MPI does next, the file is whole), then, collectively:
 * the second clock measurement, the ranks' outcomes and message halves
 * gathered to rank 0.  Rank 0 computes the merge offsets, matches the
 * messages, writes the manifest ("merging"), merges, and writes the
 * manifest again with the result.  Its verdict (the lowest failing rank's
 * error, else the first failure of its own steps) is broadcast, so every
 * rank returns the same status and error.
 * libslog/mpi: the public API of libslog and libslog-merge only, plus MPI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slog/slog_reader.h>

#include "mw_internal.h"

/* The file's time range and counts, as a reader sees it now. */
static void read_outcome(mw_rank_rec *s, const char *path)
{
    slog_reader *r = NULL;
    if (slog_reader_open(&r, path, NULL, NULL) != SLOG_OK) {
        return;
    }
    const slog_file_info *fi = slog_reader_info(r);
    s->have_info = 1;
    s->complete = fi->complete;
    s->start = fi->start;
    s->end = fi->end;
    s->counts[0] = fi->states;
    s->counts[1] = fi->events;
    s->counts[2] = fi->arrows;
    s->counts[3] = fi->counters;
    slog_reader_destroy(r);
}

/* Local: seal the rank's file (a failure leaves it incomplete). */
static void seal_file(slog_mpi_writer *m)
{
    mw_rank_rec *const s = &m->self;
    slog_error e = {SLOG_OK, UINT64_MAX, "", ""};
    const int rc = slog_writer_finish(m->w, &e);
    slog_writer_destroy(m->w);
    m->w = NULL;
    s->state = rc == SLOG_OK ? MW_RANK_OK : MW_RANK_FAILED;
    s->code = rc;
    if (rc != SLOG_OK) {
        (void)snprintf(s->error, sizeof s->error, "%s", e.message);
    }
    s->messages = m->nmsgs;
    read_outcome(s, m->path);
}

/* Rank 0's verdict on the ranks: the lowest failing one, if any. */
static int ranks_verdict(const slog_mpi_writer *m, const mw_rank_rec *recs, slog_error *e)
{
    for (int i = 0; i < m->size; i++) {
        if (recs[i].state != MW_RANK_OK) {
            char path[sizeof e->source];
            (void)snprintf(path, sizeof path, "%s/rank-%06d.slog", m->dir, i);
            return mw_fail(e, recs[i].code, path, "Rank %d: %.200s", i, recs[i].error);
        }
    }
    return SLOG_OK;
}

typedef struct root_run {
    const char *merged;
    mw_rank_rec *recs;
    mw_msg_rec *msgs;
    size_t nmsgs;
    int msg_rc; /* gathering the messages */
    slog_error msg_err;
    int64_t *offsets;
    mw_arrow *arrows;
    size_t narrows;
    uint64_t unmatched;
} root_run;

static int first_error(int a, int b)
{
    return a != SLOG_OK ? a : b;
}

/* Where a step puts its error: the first failure's is kept. */
static slog_error *slot(int step, slog_error *first, slog_error *scratch)
{
    return step == SLOG_OK ? first : scratch;
}

/* Rank 0: offsets, arrows, manifest, merge, manifest. */
static int root_finish(const slog_mpi_writer *m, root_run *run, slog_error *e)
{
    slog_error first = run->msg_err, scratch = first;
    int rc = ranks_verdict(m, run->recs, e);
    run->offsets = malloc((size_t)m->size * sizeof *run->offsets);
    if (run->offsets == NULL) {
        return first_error(rc, mw_fail(e, SLOG_ENOMEM, m->dir, "Out of memory"));
    }
    const int per_rank = (m->opts.flags & SLOG_MPI_OFFSET_PER_RANK) != 0 || m->opts.clock != NULL;
    mw_clock_merge_offsets(run->recs, m->size, per_rank, run->offsets);
    int step = run->msg_rc;
    if (step == SLOG_OK && mw_msg_match(run->msgs, run->nmsgs, &run->arrows, &run->narrows,
                                        &run->unmatched) != SLOG_OK) {
        step = mw_fail(&first, SLOG_ENOMEM, m->dir, "Out of memory matching the messages");
    }
    mw_job job = {run->merged != NULL ? "merging" : (rc == SLOG_OK ? "finished" : "failed"),
                  m->size,
                  m->opts.clock == NULL,
                  m->ticks_per_second,
                  run->merged,
                  NULL,
                  run->offsets,
                  step == SLOG_OK,
                  run->narrows,
                  run->unmatched};
    step =
        first_error(step, mw_manifest_write(m->dir, &job, run->recs, slot(step, &first, &scratch)));
    if (run->merged != NULL) {
        const mw_job_merge jm = {m->dir,        run->merged,         m->size,
                                 rc != SLOG_OK, m->ticks_per_second, run->offsets,
                                 run->arrows,   run->narrows};
        const int mrc = mw_merge_job(&jm, slot(step, &first, &scratch));
        step = first_error(step, mrc);
        job.merge_code = slog_status_name(mrc);
        job.status = rc == SLOG_OK && step == SLOG_OK ? "finished" : "failed";
        step = first_error(
            step, mw_manifest_write(m->dir, &job, run->recs, slot(step, &first, &scratch)));
    }
    if (rc == SLOG_OK && step != SLOG_OK) {
        *e = first;
        rc = step;
    }
    return rc;
}

static void root_free(root_run *run)
{
    free(run->recs);
    free(run->msgs);
    free(run->offsets);
    free(run->arrows);
}

/* Rank 0's verdict to every rank.  The others wait while rank 0 merges
 * (seconds to minutes): they poll every millisecond and sleep in between
 * instead of spinning in MPI_Bcast, so that ranks sharing rank 0's cores
 * (an oversubscribed node) leave them to the merge. */
static int quiet_bcast(const slog_mpi_writer *m, slog_error *e)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int r = MPI_Ibcast(e, (int)sizeof *e, MPI_BYTE, 0, m->comm, &req);
    const struct timespec pause = {0, 1000000};
    int done = m->rank == 0; /* rank 0 sends: nothing to wait for */
    while (r == MPI_SUCCESS && !done) {
        r = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (r == MPI_SUCCESS && !done) {
            (void)nanosleep(&pause, NULL);
        }
    }
    /* completes rank 0's send; a no-op on a request MPI_Test completed (or
     * on MPI_REQUEST_NULL when MPI_Ibcast failed) */
    const int w = MPI_Wait(&req, MPI_STATUS_IGNORE);
    return r != MPI_SUCCESS ? r : w;
}

/* Collective: clocks, outcomes, messages to rank 0; rank 0's verdict to all. */
static int finish_job(slog_mpi_writer *m, const char *merged, slog_error *e)
{
    int rc = mw_agree(m, mw_clock_measure(m, &m->self.clock[1], e), e);
    root_run run = {merged, NULL, NULL, 0, SLOG_OK, {SLOG_OK, UINT64_MAX, "", ""},
                    NULL,   NULL, 0,    0};
    if (rc == SLOG_OK) {
        rc = mw_manifest_gather(m, &run.recs, e);
    }
    if (rc == SLOG_OK) {
        /* all ranks agree on its outcome (mw_root_alloc); MPI errors abort */
        run.msg_rc = mw_msg_gather(m, &run.msgs, &run.nmsgs, &run.msg_err);
        if (m->rank == 0) {
            e->code = root_finish(m, &run, e);
        }
        const int r = quiet_bcast(m, e);
        rc = r != MPI_SUCCESS ? mw_fail_mpi(e, r, "share the outcome") : e->code;
    }
    root_free(&run);
    return rc;
}

int slog_mpi_writer_finish(slog_mpi_writer *m, const char *merged_name, slog_error *err)
{
    slog_error e = {SLOG_OK, UINT64_MAX, "", ""};
    if (m->finished) {
        const int rc = mw_fail(&e, SLOG_ESTATE, m->dir, "Cannot finish: already finished");
        if (err != NULL) {
            *err = e;
        }
        return rc;
    }
    m->finished = 1;
    seal_file(m);
    const int rc = finish_job(m, merged_name, &e);
    free(m->msgs);
    m->msgs = NULL;
    m->nmsgs = m->cap = 0;
    (void)MPI_Comm_free(&m->comm);
    if (err != NULL && rc != SLOG_OK) {
        *err = e;
    }
    return rc;
}
