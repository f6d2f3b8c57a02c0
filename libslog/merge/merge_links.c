/* SPDX-License-Identifier: MIT
 *
 * merge_links.c - slog_merge_options.links, the hook of the MPI writer
 * (libslog/mpi/mw_merge.c): a timeline of one input that stands for a
 * timeline of an earlier input takes that timeline's output id instead of
 * a new one, and an input whose every timeline is linked gets no top
 * timeline.  The links are checked and sorted by (input, timeline) once,
 * with the inputs open and before the output is created, so a bad link
 * writes nothing (merge_links_load); inputs are defined in order, so a
 * cursor hands each its links in O(links) over the whole merge.
 * Merge library (libslog/merge/): public libslog headers only.
 */
#include <stdlib.h>
#include <string.h>

#include "merge_int.h"

static int by_input_timeline(const void *pa, const void *pb)
{
    const slog_merge_link *a = pa;
    const slog_merge_link *b = pb;
    if (a->input != b->input) {
        return a->input < b->input ? -1 : 1;
    }
    return (a->timeline > b->timeline) - (a->timeline < b->timeline);
}

/* Link i names open inputs in order and timelines they have. */
static int check_link(const merge_ctx *m, const slog_merge_link *k, size_t i)
{
    if (k->input >= m->n || k->to_input >= k->input) {
        return merge_err(m->err, SLOG_EINVAL, "",
                         "Invalid slog_merge_options.links[%zu]: input %u, to_input %u "
                         "(%zu inputs; to_input must come first)",
                         i, k->input, k->to_input, m->n);
    }
    const merge_input *const in = &m->in[k->input];
    const merge_input *const to = &m->in[k->to_input];
    if (k->timeline >= in->info->timelines || k->to_timeline >= to->info->timelines) {
        return merge_err(m->err, SLOG_EINVAL, in->path,
                         "Invalid link %zu: timeline %u (of %u) to timeline %u of %s (of %u)", i,
                         k->timeline, in->info->timelines, k->to_timeline, to->path,
                         to->info->timelines);
    }
    return SLOG_OK;
}

int merge_links_load(merge_ctx *m)
{
    const slog_merge_options *const o = &m->opts.o;
    merge_links *const l = &m->links;
    for (size_t i = 0; i < o->nlinks; i++) {
        const int rc = check_link(m, &o->links[i], i);
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    if (o->nlinks == 0) {
        return SLOG_OK;
    }
    l->v = malloc(o->nlinks * sizeof *l->v);
    if (l->v == NULL) {
        return merge_err(m->err, SLOG_ENOMEM, "", "Cannot hold %zu links", o->nlinks);
    }
    memcpy(l->v, o->links, o->nlinks * sizeof *l->v);
    qsort(l->v, o->nlinks, sizeof *l->v, by_input_timeline);
    l->n = o->nlinks;
    for (size_t i = 1; i < l->n; i++) {
        if (l->v[i].input == l->v[i - 1].input && l->v[i].timeline == l->v[i - 1].timeline) {
            return merge_err(m->err, SLOG_EINVAL, m->in[l->v[i].input].path,
                             "Invalid links: its timeline %u is linked twice", l->v[i].timeline);
        }
    }
    return SLOG_OK;
}

int merge_links_map(merge_ctx *m, size_t index, uint32_t *linked)
{
    merge_links *const l = &m->links;
    merge_input *const in = &m->in[index];
    *linked = 0;
    for (; l->next < l->n && l->v[l->next].input == index; l->next++) {
        const slog_merge_link *const k = &l->v[l->next];
        in->tl_map[k->timeline] = m->in[k->to_input].tl_map[k->to_timeline];
        (*linked)++;
    }
    return SLOG_OK;
}
