/* SPDX-License-Identifier: MIT
 *
 * api_index_select.c - a selection over an index in one input's terms:
 * global timeline and category ids chosen by a query, statistics or search
 * become the input's local ids through its maps, and the window moves into
 * the input's clock.  An input with no selected id, or whose time range
 * misses the window, is never opened.
 * Layer 5: api.
 */
#include <string.h>

#include "api_index.h"
#include "util_alloc.h"
#include "util_error.h"
#include "util_sat.h"

uint8_t *api_index_selection(const uint32_t *ids, uint32_t n, uint64_t universe)
{
    uint8_t *const sel = util_calloc((size_t)universe + 1, 1);
    for (uint32_t i = 0; sel != NULL && i < n; i++) {
        if (ids[i] < universe) {
            sel[ids[i]] = 1;
        }
    }
    return sel;
}

int api_index_local_ids(const api_index *x,
                        const ix_input *in,
                        const uint8_t *sel,
                        int cats,
                        uint32_t **ids,
                        uint32_t *n)
{
    const uint32_t count = cats ? in->ncategories : in->ntimelines;
    uint32_t *const v = util_realloc(*ids, ((size_t)count + 1) * sizeof *v);
    if (v == NULL) {
        return -1;
    }
    *ids = v;
    *n = 0;
    for (uint32_t l = 0; l < count; l++) {
        const uint32_t g = cats ? api_index_cat(x, in, l) : api_index_tl(x, in, l);
        if (sel[g]) {
            v[(*n)++] = l;
        }
    }
    return 0;
}

int api_index_local_window(const ix_input *in, int64_t t0, int64_t t1, int64_t *l0, int64_t *l1)
{
    if (in->state == IX_MISSING || in->start > in->end) {
        return 0;
    }
    const int64_t s = util_sat_add_i64(in->start, in->offset);
    const int64_t e = util_sat_add_i64(in->end, in->offset);
    if (!(s < t1 && e >= t0)) {
        return 0;
    }
    const int64_t back = in->offset == INT64_MIN ? INT64_MAX : -in->offset;
    *l0 = util_sat_add_i64(t0, back);
    *l1 = util_sat_add_i64(t1, back);
    return 1;
}

int api_index_part_init(api_index_part *p,
                        slog_reader *r,
                        const api_index_ids *ids,
                        slog_error *err)
{
    memset(p, 0, sizeof *p);
    for (uint32_t i = 0; ids->tls != NULL && i < ids->ntl; i++) {
        if (ids->tls[i] >= r->ntl) {
            return util_err(err, SLOG_EINVAL, UINT64_MAX, r->path, "Unknown timeline %u",
                            ids->tls[i]);
        }
    }
    for (uint32_t i = 0; ids->cats != NULL && i < ids->ncat; i++) {
        if (ids->cats[i] >= r->ncat) {
            return util_err(err, SLOG_EINVAL, UINT64_MAX, r->path, "Unknown category %u",
                            ids->cats[i]);
        }
    }
    p->tl_sel = ids->tls ? api_index_selection(ids->tls, ids->ntl, r->ntl) : NULL;
    p->cat_sel = ids->cats ? api_index_selection(ids->cats, ids->ncat, r->ncat) : NULL;
    if ((ids->tls && !p->tl_sel) || (ids->cats && !p->cat_sel)) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Out of memory");
    }
    return SLOG_OK;
}

void api_index_part_free(api_index_part *p)
{
    util_free(p->tl_sel);
    util_free(p->cat_sel);
    util_free(p->ltl);
    util_free(p->lcat);
}

/* Input k's part: 1 (filled), 0 (nothing of it selected), -1 (no memory). */
int api_index_part_of(
    api_index_part *p, const slog_reader *r, const ix_input *in, int64_t t0, int64_t t1)
{
    if (!api_index_local_window(in, t0, t1, &p->t0, &p->t1)) {
        return 0;
    }
    if (p->tl_sel && api_index_local_ids(r->index, in, p->tl_sel, 0, &p->ltl, &p->nltl) != 0) {
        return -1;
    }
    if (p->cat_sel && api_index_local_ids(r->index, in, p->cat_sel, 1, &p->lcat, &p->nlcat) != 0) {
        return -1;
    }
    return (!p->tl_sel || p->nltl > 0) && (!p->cat_sel || p->nlcat > 0);
}
