/* SPDX-License-Identifier: MIT
 *
 * mw_inputs.c - what rank 0 hands the index and the merge alike: the
 * inputs in order (DIR/rank-NNNNNN.slog for every rank, then the arrows
 * input when messages were matched), their labels ("rank R"; the arrows
 * input "MPI messages", seen only if one of its timelines stays unlinked),
 * their clock offsets (a rank's merge offset; 0 for the arrows input,
 * whose times are on rank 0's clock already; all in the ranks' one
 * clock's ticks) and the links of the arrows input's timelines to the
 * rank files' timelines they stand for.  An endpoint is linked only when
 * its rank's file holds that timeline as the rank read it after finish
 * (a dead rank's file may lack it, or be gone): a link to a timeline its
 * target lacks fails the index and the merge, where an unlinked endpoint
 * only keeps its arrows on a timeline "rank R timeline T" of its own.
 * libslog/mpi: the public API of libslog and libslog-merge only, plus MPI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_internal.h"

int mw_inputs_make(mw_inputs *in, const char *dir, int ranks, const int64_t *offsets, slog_error *e)
{
    const size_t label_bytes = 24; /* "rank -2147483648" and its NUL fit */
    const size_t per = strlen(dir) + 32 + label_bytes;
    const size_t n = (size_t)ranks + 1;
    memset(in, 0, sizeof *in);
    in->paths = calloc(2 * n, sizeof *in->paths);
    in->offsets = calloc(n, sizeof *in->offsets);
    in->text = malloc(n * per);
    if (in->paths == NULL || in->offsets == NULL || in->text == NULL) {
        mw_inputs_free(in);
        return mw_fail(e, SLOG_ENOMEM, dir, "Out of memory");
    }
    in->labels = in->paths + n;
    for (int i = 0; i < ranks; i++) {
        char *const path = in->text + (size_t)i * per;
        char *const label = path + per - label_bytes;
        (void)snprintf(path, per - label_bytes, "%s/rank-%06d.slog", dir, i);
        (void)snprintf(label, label_bytes, "rank %d", i);
        in->paths[i] = path;
        in->labels[i] = label;
        in->offsets[i] = offsets[i];
    }
    char *const arrows = in->text + (size_t)ranks * per;
    (void)snprintf(arrows, per, "%s/" MW_ARROWS_FILE, dir);
    in->paths[ranks] = arrows; /* an input once mw_inputs_add_arrows counts it */
    in->labels[ranks] = "MPI messages";
    in->n = in->ranks = (size_t)ranks;
    return SLOG_OK;
}

/* The rank file holds the timeline, as its rank read it after finish. */
static int holds(const mw_rank_rec *recs, const mw_endpoint *end)
{
    const mw_rank_rec *const r = &recs[end->rank];
    return r->have_info && end->timeline < r->timelines;
}

int mw_inputs_add_arrows(mw_inputs *in,
                         const mw_endpoint *ends,
                         size_t nends,
                         const mw_rank_rec *recs)
{
    in->links = malloc(nends * sizeof *in->links + 1);
    if (in->links == NULL) {
        return SLOG_ENOMEM;
    }
    const uint32_t self = (uint32_t)in->ranks;
    for (size_t i = 0; i < nends; i++) {
        if (holds(recs, &ends[i])) {
            in->links[in->nlinks++] =
                (slog_merge_link){self, (uint32_t)i, ends[i].rank, ends[i].timeline};
        }
    }
    in->n = in->ranks + 1;
    return SLOG_OK;
}

void mw_inputs_free(mw_inputs *in)
{
    free(in->paths);
    free(in->offsets);
    free(in->links);
    free(in->text);
    memset(in, 0, sizeof *in);
}
