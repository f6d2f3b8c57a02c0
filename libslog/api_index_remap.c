/* SPDX-License-Identifier: MIT
 *
 * api_index_remap.c - an item of one input as an index gives it: the
 * input's timeline and category ids replaced by the global ones of its
 * maps, times moved by the input's clock offset.  A preview's row at fold
 * 0 or 1 is a timeline of the input and maps as one; rows folded further
 * (the input's top-level timelines, or blocks of them) all lie under the
 * input's top timeline, so they come back as that row at fold 2, which is
 * what slog_reader_fold_row says of every timeline under it.
 * Layer 5: api.
 */
#include <stdlib.h>
#include <string.h>

#include "api_index.h"
#include "util_alloc.h"
#include "util_sat.h"

static uint32_t cat_of(const api_index *x, const ix_input *in, uint32_t c)
{
    return c == SLOG_CATEGORY_OTHER ? c : api_index_cat(x, in, c);
}

static void remap_preview(const api_index *x, const ix_input *in, slog_preview *p)
{
    if (p->fold <= 1 || in->top == UINT32_MAX) {
        p->row = api_index_tl(x, in, p->row);
        p->row_to = api_index_tl(x, in, p->row_to);
    } else {
        p->fold = 2;
        p->row = p->row_to = in->top;
    }
    p->category = cat_of(x, in, p->category);
    p->start = util_sat_add_i64(p->start, in->offset);
    p->end = util_sat_add_i64(p->end, in->offset);
}

static int cmp_share(const void *a, const void *b)
{
    const slog_run_share *const x = a;
    const slog_run_share *const y = b;
    return x->category < y->category ? -1 : x->category > y->category;
}

static int
remap_run(const api_index *x, const ix_input *in, slog_run *r, slog_run_share **shares, size_t *cap)
{
    r->timeline = api_index_tl(x, in, r->timeline);
    r->timeline_to = api_index_tl(x, in, r->timeline_to);
    r->category = cat_of(x, in, r->category);
    r->start = util_sat_add_i64(r->start, in->offset);
    r->end = util_sat_add_i64(r->end, in->offset);
    if (r->ncategories == 0) {
        return 0;
    }
    void *p = *shares;
    if (util_grow(&p, cap, r->ncategories, sizeof **shares) != 0) {
        return -1;
    }
    *shares = p;
    memcpy(*shares, r->categories, r->ncategories * sizeof **shares);
    for (uint32_t i = 0; i < r->ncategories; i++) {
        (*shares)[i].category = cat_of(x, in, (*shares)[i].category);
    }
    qsort(*shares, r->ncategories, sizeof **shares, cmp_share);
    r->categories = *shares;
    return 0;
}

int api_ixq_remap(const api_index *x,
                  const ix_input *in,
                  const slog_item *src,
                  slog_item *dst,
                  slog_run_share **shares,
                  size_t *cap)
{
    *dst = *src;
    const int64_t off = in->offset;
    switch (dst->kind) {
    case SLOG_KIND_STATE:
        dst->u.state.timeline = api_index_tl(x, in, dst->u.state.timeline);
        dst->u.state.category = cat_of(x, in, dst->u.state.category);
        dst->u.state.start = util_sat_add_i64(dst->u.state.start, off);
        dst->u.state.end = util_sat_add_i64(dst->u.state.end, off);
        return 0;
    case SLOG_KIND_EVENT:
        dst->u.event.timeline = api_index_tl(x, in, dst->u.event.timeline);
        dst->u.event.category = cat_of(x, in, dst->u.event.category);
        dst->u.event.time = util_sat_add_i64(dst->u.event.time, off);
        return 0;
    case SLOG_KIND_ARROW:
        dst->u.arrow.from = api_index_tl(x, in, dst->u.arrow.from);
        dst->u.arrow.to = api_index_tl(x, in, dst->u.arrow.to);
        dst->u.arrow.category = cat_of(x, in, dst->u.arrow.category);
        dst->u.arrow.start = util_sat_add_i64(dst->u.arrow.start, off);
        dst->u.arrow.end = util_sat_add_i64(dst->u.arrow.end, off);
        return 0;
    case SLOG_KIND_COUNTER:
        dst->u.counter.timeline = api_index_tl(x, in, dst->u.counter.timeline);
        dst->u.counter.category = cat_of(x, in, dst->u.counter.category);
        dst->u.counter.time = util_sat_add_i64(dst->u.counter.time, off);
        return 0;
    case SLOG_KIND_PREVIEW:
        remap_preview(x, in, &dst->u.preview);
        return 0;
    default:
        return remap_run(x, in, &dst->u.run, shares, cap);
    }
}
