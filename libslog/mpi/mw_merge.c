/* SPDX-License-Identifier: MIT
 *
 * mw_merge.c - rank 0 joins the job into one file when finish is given a
 * name: slog_merge_files over the job's inputs (mw_inputs.c: the rank
 * files with a top timeline "rank R" each, kind SLOG_TIMELINE_RANK, each
 * rank's times moved by its merge offset, then the arrows input, whose
 * linked timelines add no timeline of their own: its arrows land between
 * the ranks' own timelines).  A rank file left incomplete by a failed
 * finish is merged with what it holds.
 * libslog/mpi: the public API of libslog and libslog-merge only, plus MPI.
 */
#include "mw_internal.h"

int mw_merge_job(const mw_inputs *in, const char *merged, int allow_incomplete, slog_error *e)
{
    slog_merge_options mo = SLOG_MERGE_OPTIONS_INIT;
    mo.flags = allow_incomplete ? SLOG_MERGE_ALLOW_INCOMPLETE : 0;
    mo.labels = in->labels;
    mo.offsets = in->offsets;
    mo.top_kind = SLOG_TIMELINE_RANK;
    mo.links = in->links;
    mo.nlinks = in->nlinks;
    return slog_merge_files(in->paths, in->n, merged, &mo, NULL, e);
}
