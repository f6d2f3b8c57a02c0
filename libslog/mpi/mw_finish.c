/* SPDX-License-Identifier: MIT
 *
 * mw_finish.c - slog_mpi_writer_finish.  Every rank seals its file first
 * (local: whatever MPI does next, the file is whole), then, collectively:
 * the second clock measurement, the ranks' outcomes and message halves
 * gathered to rank 0.  Rank 0 computes the merge offsets, matches the
 * messages, writes the manifest ("merging"), then its outputs: the arrows
 * input (mw_arrows.c), the index over the rank files and it (mw_index.c),
 * the merged file when asked (mw_merge.c), and writes the manifest again
 * with the results.  Its verdict (the lowest failing rank's error, else
 * the first failure of its own steps) is broadcast, so every rank returns
 * the same status and error.
 * libslog/mpi: the public API of libslog and libslog-merge only, plus MPI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
    s->timelines = fi->timelines;
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
    int ranks_rc; /* a rank failed: its file may be incomplete */
    int64_t *offsets;
    mw_arrow *arrows;
    size_t narrows;
    uint64_t unmatched;
} root_run;

static int first_error(int a, int b)
{
    return a != SLOG_OK ? a : b;
}

/* Rank 0's own steps: the first failure's status and error are kept. */
typedef struct root_steps {
    int rc;
    slog_error first, scratch;
} root_steps;

/* Where a step puts its error. */
static slog_error *step_err(root_steps *st)
{
    return st->rc == SLOG_OK ? &st->first : &st->scratch;
}

static int step_done(root_steps *st, int rc)
{
    st->rc = first_error(st->rc, rc);
    return rc;
}

/* The arrows input, written, joins the inputs. */
static int add_arrows(const slog_mpi_writer *m, const root_run *run, mw_inputs *in, slog_error *e)
{
    const mw_arrows_job aj = {in->paths[in->ranks], m->ticks_per_second, run->offsets, run->arrows,
                              run->narrows};
    mw_endpoint *ends = NULL;
    size_t nends = 0;
    int rc = mw_arrows_write(&aj, &ends, &nends, e);
    if (rc == SLOG_OK && mw_inputs_add_arrows(in, ends, nends, run->recs) != SLOG_OK) {
        rc = mw_fail(e, SLOG_ENOMEM, aj.path, "Out of memory");
        (void)unlink(aj.path);
    }
    free(ends);
    return rc;
}

/* After the arrows input: the index over the rank files and it (without
 * it when it could not be written), then the merged file when asked;
 * their results go into @p job. */
static void root_outputs(const slog_mpi_writer *m, const root_run *run, mw_job *job, root_steps *st)
{
    mw_inputs in;
    const int rc = step_done(st, mw_inputs_make(&in, m->dir, m->size, run->offsets, step_err(st)));
    const int arc = rc == SLOG_OK && run->narrows > 0
                        ? step_done(st, add_arrows(m, run, &in, step_err(st)))
                        : rc;
    const int irc = rc == SLOG_OK ? step_done(st, mw_index_job(m->dir, &in, step_err(st))) : rc;
    job->index = irc == SLOG_OK ? MW_INDEX_FILE : NULL;
    job->index_code = slog_status_name(irc);
    if (run->merged != NULL) {
        const int mrc = arc == SLOG_OK
                            ? step_done(st, mw_merge_job(&in, run->merged, run->ranks_rc != SLOG_OK,
                                                         step_err(st)))
                            : arc;
        job->merge_code = slog_status_name(mrc);
    }
    mw_inputs_free(&in);
}

/* Rank 0: offsets, arrows, manifest, index, merge, manifest. */
static int root_finish(const slog_mpi_writer *m, root_run *run, slog_error *e)
{
    root_steps st = {run->msg_rc, run->msg_err, run->msg_err};
    const int rc = run->ranks_rc = ranks_verdict(m, run->recs, e);
    run->offsets = malloc((size_t)m->size * sizeof *run->offsets);
    if (run->offsets == NULL) {
        return first_error(rc, mw_fail(e, SLOG_ENOMEM, m->dir, "Out of memory"));
    }
    const int per_rank = (m->opts.flags & SLOG_MPI_OFFSET_PER_RANK) != 0 || m->opts.clock != NULL;
    mw_clock_merge_offsets(run->recs, m->size, per_rank, run->offsets);
    if (st.rc == SLOG_OK && mw_msg_match(run->msgs, run->nmsgs, &run->arrows, &run->narrows,
                                         &run->unmatched) != SLOG_OK) {
        const char *const what = "Out of memory matching the messages";
        step_done(&st, mw_fail(&st.first, SLOG_ENOMEM, m->dir, "%s", what));
    }
    mw_job job = {.status = "merging",
                  .ranks = m->size,
                  .default_clock = m->opts.clock == NULL,
                  .ticks_per_second = m->ticks_per_second,
                  .merged = run->merged,
                  .offsets = run->offsets,
                  .matched = st.rc == SLOG_OK,
                  .arrows = run->narrows,
                  .unmatched = run->unmatched};
    step_done(&st, mw_manifest_write(m->dir, &job, run->recs, step_err(&st)));
    root_outputs(m, run, &job, &st);
    job.status = rc == SLOG_OK && st.rc == SLOG_OK ? "finished" : "failed";
    step_done(&st, mw_manifest_write(m->dir, &job, run->recs, step_err(&st)));
    if (rc == SLOG_OK && st.rc != SLOG_OK) {
        *e = st.first;
        return st.rc;
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
    root_run run = {merged,  NULL, NULL, 0, SLOG_OK, {SLOG_OK, UINT64_MAX, "", ""},
                    SLOG_OK, NULL, NULL, 0, 0};
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
