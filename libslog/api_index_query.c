/* SPDX-License-Identifier: MIT
 *
 * api_index_query.c - a query over an index, answered input by input in
 * input order.  For each input whose time range meets the window and which
 * holds a selected timeline and category, the query is translated into the
 * input's ids and clock (window minus its offset) and asked first of the
 * input's view (its copied top levels, inside the index): when the walk
 * never needs a node below the copy (a zoomed-out view) the view answers,
 * else (API_ECUT) the input file does, opened through the pool.  A probe
 * run decides this before any item of the input is handed out, and fills
 * the view's node cache, so the answering run costs little.  Items come
 * back with global timeline and category ids and offset times; previews
 * folded above an input's own timelines come back on its top timeline.
 * Layer 5: api.
 */
#include <stdlib.h>
#include <string.h>

#include "api_index.h"
#include "util_alloc.h"
#include "util_error.h"
#include "util_sat.h"

struct api_ixq {
    slog_reader *ix;
    slog_query_options o;      /* in global ids; arrays below */
    api_index_part p;          /* the selection, and the current input's part of it */
    uint32_t next_input;
    slog_query *sub; /* the current input's query, NULL between inputs */
    uint32_t sub_input;
    int sub_file;         /* the sub-query runs on the input file */
    slog_run_share *shares;
    size_t shares_cap;
    slog_query_stats done; /* cost of the finished sub-queries and probes */
    int overview;          /* all timelines of many inputs at a resolution: the copies
                              answer, a CUT node as its preview */
};

int api_ixq_create(api_ixq **out, slog_reader *r, const slog_query_options *o, slog_error *err)
{
    *out = NULL;
    if (o->first_node > 0) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, r->path,
                        "first_node does not apply to an index (it does not grow)");
    }
    api_ixq *const x = util_calloc(1, sizeof *x);
    if (x == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Cannot create the query");
    }
    x->ix = r;
    x->o = *o;
    const api_index_ids ids = {o->timelines, o->ntimelines, o->categories, o->ncategories};
    const int rc = api_index_part_init(&x->p, r, &ids, err);
    if (rc != SLOG_OK) {
        api_ixq_free(x);
        return rc;
    }
    x->o.timelines = NULL;
    x->o.categories = NULL;
    x->overview = o->timelines == NULL && o->resolution > 0 &&
                  r->index->t.h.ninputs > API_INDEX_OVERVIEW_INPUTS;
    *out = x;
    return SLOG_OK;
}

/* The query in input in's ids and clock; *wanted 0 when nothing of it is
 * wanted.  0, or -1 out of memory. */
static int local_options(api_ixq *x, const ix_input *in, slog_query_options *lo, int *wanted)
{
    *lo = x->o;
    const int got = api_index_part_of(&x->p, x->ix, in, x->o.t0, x->o.t1);
    *wanted = got > 0;
    if (got <= 0) {
        return got < 0 ? -1 : 0;
    }
    lo->t0 = x->p.t0;
    lo->t1 = x->p.t1;
    lo->timelines = x->p.tl_sel ? x->p.ltl : NULL;
    lo->ntimelines = x->p.tl_sel ? x->p.nltl : 0;
    lo->categories = x->p.cat_sel ? x->p.lcat : NULL;
    lo->ncategories = x->p.cat_sel ? x->p.nlcat : 0;
    return 0;
}

static void add_stats(slog_query_stats *to, const slog_query *q)
{
    slog_query_stats s;
    slog_query_stats_get(q, &s);
    to->nodes_visited += s.nodes_visited;
    to->nodes_read += s.nodes_read;
    to->cache_hits += s.cache_hits;
    to->bytes_read += s.bytes_read;
    to->bytes_decoded += s.bytes_decoded;
}

/* Can input k's view answer lo?  1 yes, 0 no (a node below its copy is
 * needed), < 0 an error. */
/* A drawable that may carry args (kept in the input file unless the
 * index holds the input whole). */
static int carries_args(const slog_item *it)
{
    return it->kind == SLOG_KIND_STATE || it->kind == SLOG_KIND_EVENT ||
           it->kind == SLOG_KIND_ARROW;
}

static int
view_answers(api_ixq *x, slog_reader *view, const slog_query_options *lo, slog_error *err)
{
    const int need_args = (lo->flags & SLOG_QUERY_ARGS) && x->ix->index->t.heaps == NULL;
    slog_query *probe = NULL;
    int rc = slog_query_create(&probe, view, lo, err);
    if (rc == SLOG_OK && x->overview) {
        api_query_cut_as_preview(probe);
    }
    const slog_item *it = NULL;
    while (rc == SLOG_OK) {
        rc = slog_query_next(probe, &it, err);
        if (rc == SLOG_OK && need_args && carries_args(it)) {
            rc = API_ECUT; /* its args are in the input file */
        }
    }
    if (probe != NULL) {
        add_stats(&x->done, probe);
    }
    slog_query_destroy(probe);
    if (rc == API_ECUT) {
        if (err != NULL) {
            memset(err, 0, sizeof *err);
        }
        return 0;
    }
    return rc == SLOG_END ? 1 : rc;
}

static int start_on(api_ixq *x, uint32_t k, int file, const slog_query_options *lo, slog_error *err)
{
    slog_reader *r = NULL;
    int rc = file ? api_index_file(x->ix, k, &r, err) : api_index_view(x->ix, k, &r, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    int answers = 1;
    const int whole = x->ix->index->t.heaps != NULL;
    const int args = (lo->flags & SLOG_QUERY_ARGS) != 0;
    if (!file && !whole && (!x->overview || args)) { /* a whole copy has no CUT node and
                                                        holds the args; an overview needs
                                                        the file only for args */
        answers = view_answers(x, r, lo, err);
    }
    if (answers == 1) {
        rc = slog_query_create(&x->sub, r, lo, err);
    }
    if (answers == 1 && rc == SLOG_OK && x->overview) {
        api_query_cut_as_preview(x->sub);
    }
    if (answers != 1 || rc != SLOG_OK) {
        api_index_unpin(x->ix, k, file);
        return answers < 0 ? answers : answers == 0 ? SLOG_END : rc;
    }
    x->sub_input = k;
    x->sub_file = file;
    return SLOG_OK;
}

/* Start the next input that has something to say; SLOG_END when none. */
static int start_next(api_ixq *x, slog_error *err)
{
    const ix_table *const t = &x->ix->index->t;
    while (x->next_input < t->h.ninputs) {
        const uint32_t k = x->next_input++;
        const ix_input *const in = &t->inputs[k];
        slog_query_options lo;
        int wanted = 0;
        if (local_options(x, in, &lo, &wanted) != 0) {
            return util_err(err, SLOG_ENOMEM, UINT64_MAX, x->ix->path, "Cannot run the query");
        }
        if (!wanted) {
            continue;
        }
        const int use_view = in->nroots > 0; /* asked for args, the probe checks */
        int rc = use_view ? start_on(x, k, 0, &lo, err) : SLOG_END;
        if (rc == SLOG_END) {
            rc = start_on(x, k, 1, &lo, err);
        }
        return rc;
    }
    return SLOG_END;
}

static void end_sub(api_ixq *x)
{
    if (x->sub != NULL) {
        add_stats(&x->done, x->sub);
        slog_query_destroy(x->sub);
        x->sub = NULL;
        api_index_unpin(x->ix, x->sub_input, x->sub_file);
    }
}

int api_ixq_next(api_ixq *x, slog_item *item, slog_error *err)
{
    for (;;) {
        if (x->sub == NULL) {
            const int rc = start_next(x, err);
            if (rc != SLOG_OK) {
                return rc;
            }
        }
        const slog_item *it = NULL;
        const int rc = slog_query_next(x->sub, &it, err);
        if (rc == SLOG_OK) {
            const ix_input *const in = &x->ix->index->t.inputs[x->sub_input];
            return api_ixq_remap(x->ix->index, in, it, item, &x->shares, &x->shares_cap) == 0
                       ? SLOG_OK
                       : util_err(err, SLOG_ENOMEM, UINT64_MAX, x->ix->path, "Out of memory");
        }
        end_sub(x);
        if (rc != SLOG_END) {
            return rc;
        }
    }
}

void api_ixq_stats(const api_ixq *x, slog_query_stats *out)
{
    *out = x->done;
    if (x->sub != NULL) {
        add_stats(out, x->sub);
    }
}

void api_ixq_free(api_ixq *x)
{
    if (x == NULL) {
        return;
    }
    end_sub(x);
    api_index_part_free(&x->p);
    util_free(x->shares);
    util_free(x);
}
