/* SPDX-License-Identifier: MIT
 *
 * merge_links.c - slog_merge_options.links, the hook of the MPI writer
 * (libslog/mpi/mw_merge.c): a timeline of one input that stands for a
 * timeline of an earlier input takes that timeline's output id instead of
 * a new one, and an input whose every timeline is linked gets no top
 * timeline.  The links are checked and sorted by input once
 * (merge_links_load); inputs are defined in order, so a cursor hands each
 * its links in O(links) over the whole merge.
 * Merge library (libslog/merge/): public libslog headers only.
 */
#include <stdlib.h>
#include <string.h>

#include "merge_int.h"

static int by_input(const void *pa, const void *pb)
{
    const slog_merge_link *a = pa;
    const slog_merge_link *b = pb;
    return (a->input > b->input) - (a->input < b->input);
}

int merge_links_load(merge_ctx *m, merge_links *l)
{
    const slog_merge_options *const o = &m->opts.o;
    l->v = NULL;
    l->n = l->next = 0;
    if (o->nlinks == 0) {
        return SLOG_OK;
    }
    for (size_t i = 0; i < o->nlinks; i++) {
        const slog_merge_link *const k = &o->links[i];
        if (k->input >= m->n || k->to_input >= k->input) {
            return merge_err(m->err, SLOG_EINVAL, "",
                             "Invalid slog_merge_options.links[%zu]: input %u, to_input %u "
                             "(%zu inputs; to_input must come first)",
                             i, k->input, k->to_input, m->n);
        }
    }
    l->v = malloc(o->nlinks * sizeof *l->v);
    if (l->v == NULL) {
        return merge_err(m->err, SLOG_ENOMEM, "", "Cannot hold %zu links", o->nlinks);
    }
    memcpy(l->v, o->links, o->nlinks * sizeof *l->v);
    qsort(l->v, o->nlinks, sizeof *l->v, by_input);
    l->n = o->nlinks;
    return SLOG_OK;
}

int merge_links_map(merge_ctx *m, merge_links *l, size_t index, uint32_t *linked)
{
    merge_input *const in = &m->in[index];
    *linked = 0;
    for (; l->next < l->n && l->v[l->next].input == index; l->next++) {
        const slog_merge_link *const k = &l->v[l->next];
        const merge_input *const to = &m->in[k->to_input];
        if (k->timeline >= in->info->timelines || k->to_timeline >= to->info->timelines ||
            in->tl_map[k->timeline] != UINT32_MAX) {
            return merge_err(m->err, SLOG_EINVAL, in->path,
                             "Invalid link: timeline %u (of %u, linked once) to timeline %u of "
                             "%s (of %u)",
                             k->timeline, in->info->timelines, k->to_timeline, to->path,
                             to->info->timelines);
        }
        in->tl_map[k->timeline] = to->tl_map[k->to_timeline];
        (*linked)++;
    }
    return SLOG_OK;
}
