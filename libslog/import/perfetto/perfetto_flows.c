/* SPDX-License-Identifier: MIT
 *
 * perfetto_flows.c - flows -> arrows.  TrackEvent flow ids (flow_ids and
 * the older flow_ids_old) link every event that carries an id to the
 * previous event with the same id, one arrow per link; a terminating id
 * links and then forgets the id, so it may start a new flow later.  Chrome
 * legacy flows (bind_id with flow_direction) work the same way: FLOW_OUT
 * opens (or continues) a flow, FLOW_INOUT links and continues, FLOW_IN
 * links and closes; these are held and linked in time order at the end.
 * Perfetto orders a flow's events by time, so a link
 * whose second event is earlier than the first is drawn from the earlier.
 * Import library, perfetto folder: public libslog headers, libc.
 */
#include <stdlib.h>

#include "perfetto.h"

#define FLOW_IN 1
#define FLOW_OUT 2
#define FLOW_INOUT 3

static int arrow(pf_importer *pf, const pf_flow_end *from, uint32_t timeline, int64_t ts,
                 pf_kcount what)
{
    uint32_t category;
    if (pf_category(pf, SLOG_KIND_ARROW, "flow", NULL, &category) != PF_OK) {
        return PF_FATAL;
    }
    slog_arrow a = {category, from->timeline, timeline, from->ts, ts, 0, NULL};
    if (ts < from->ts) {
        a.from = timeline;
        a.to = from->timeline;
        a.start = ts;
        a.end = from->ts;
        pf_count(pf, K_FLOW_REVERSED, 1);
    }
    slog_error werr;
    if (slog_writer_append_arrow(pf->w, &a, &werr) != SLOG_OK) {
        return pf_writer_failed(pf, &werr);
    }
    pf_count(pf, what, 1);
    return PF_OK;
}

/* Remember (timeline, ts) as the open end of id in map m. */
static int remember(pf_importer *pf, pf_u64map *m, uint64_t id, uint32_t timeline, int64_t ts)
{
    uint64_t at;
    if (pf_u64map_get(m, id, &at)) {
        pf->flow_ends[at].timeline = timeline;
        pf->flow_ends[at].ts = ts;
        return PF_OK;
    }
    if (pf->nflow_ends == pf->capflow_ends) {
        const size_t cap = pf->capflow_ends ? pf->capflow_ends * 2 : 64;
        pf_flow_end *e = realloc(pf->flow_ends, cap * sizeof *e);
        if (e == NULL) {
            return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (flows)");
        }
        pf->flow_ends = e;
        pf->capflow_ends = cap;
    }
    pf->flow_ends[pf->nflow_ends] = (pf_flow_end){timeline, ts};
    if (pf_u64map_put(m, id, pf->nflow_ends++) != 0) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (flows)");
    }
    return PF_OK;
}

/* One event of a flow. */
typedef struct flow_step {
    uint64_t id;
    uint32_t timeline;
    int64_t ts;
    bool link;       /* draw an arrow from the open end, if any */
    bool keep;       /* this event is the new open end (else the id closes) */
    pf_kcount what;  /* the arrow's summary row */
} flow_step;

/* Link from the open end of the id (if any); then keep this end or close. */
static int step(pf_importer *pf, pf_u64map *m, const flow_step *fs, bool *linked)
{
    uint64_t at;
    *linked = false;
    if (fs->link && pf_u64map_get(m, fs->id, &at)) {
        const pf_flow_end from = pf->flow_ends[at];
        if (arrow(pf, &from, fs->timeline, fs->ts, fs->what) != PF_OK) {
            return PF_FATAL;
        }
        *linked = true;
    }
    if (fs->keep) {
        return remember(pf, m, fs->id, fs->timeline, fs->ts);
    }
    (void)pf_u64map_del(m, fs->id); /* its flow_ends slot is not reused */
    return PF_OK;
}

int pf_flow_ref(pf_importer *pf, uint64_t id, bool terminating, uint32_t timeline, int64_t ts)
{
    bool linked;
    const flow_step fs = {id, timeline, ts, true, !terminating, K_FLOW_ARROW};
    const int rc = step(pf, &pf->flows, &fs, &linked);
    if (rc == PF_OK && terminating && !linked) {
        pf_count(pf, K_FLOW_TERM_STRAY, 1);
    }
    return rc;
}

int pf_bind_ref(pf_importer *pf, uint64_t id, int direction, uint32_t timeline, int64_t ts)
{
    if (direction != FLOW_IN && direction != FLOW_OUT && direction != FLOW_INOUT) {
        return PF_OK;
    }
    pf_count(pf, K_BIND_IDS, 1);
    if (pf->nbind_refs == pf->capbind_refs) {
        const size_t cap = pf->capbind_refs ? pf->capbind_refs * 2 : 256;
        pf_bind *b = realloc(pf->bind_refs, cap * sizeof *b);
        if (b == NULL) {
            return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (flows)");
        }
        pf->bind_refs = b;
        pf->capbind_refs = cap;
    }
    pf->bind_refs[pf->nbind_refs] = (pf_bind){ts, pf->nbind_refs, id, timeline, direction};
    pf->nbind_refs++;
    return PF_OK;
}

static int bind_by_time(const void *a, const void *b)
{
    const pf_bind *x = a, *y = b;
    if (x->ts != y->ts) {
        return x->ts < y->ts ? -1 : 1;
    }
    return x->order < y->order ? -1 : x->order > y->order ? 1 : 0;
}

/* Legacy flows are linked in time order (their events come from many
 * threads): FLOW_OUT opens, FLOW_INOUT links and goes on, FLOW_IN closes. */
int pf_flows_finish(pf_importer *pf)
{
    if (pf->nbind_refs > 1) {
        qsort(pf->bind_refs, pf->nbind_refs, sizeof *pf->bind_refs, bind_by_time);
    }
    pf_u64map seen = {0};
    int rc = PF_OK;
    for (size_t i = 0; rc == PF_OK && i < pf->nbind_refs; i++) {
        const pf_bind *b = &pf->bind_refs[i];
        uint64_t dummy;
        if (!pf_u64map_get(&seen, b->id, &dummy)) {
            pf_count(pf, K_BIND_DISTINCT, 1);
            if (pf_u64map_put(&seen, b->id, 0) != 0) {
                rc = pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (flows)");
                break;
            }
        }
        bool linked;
        const flow_step fs = {b->id, b->timeline, b->ts, b->dir != FLOW_OUT, b->dir != FLOW_IN,
                              K_BIND_ARROW};
        rc = step(pf, &pf->binds, &fs, &linked);
        if (rc == PF_OK && b->dir == FLOW_IN && !linked) {
            pf_count(pf, K_BIND_STRAY_IN, 1);
        }
    }
    pf_u64map_free(&seen);
    return rc;
}

void pf_flows_free(pf_importer *pf)
{
    pf_u64map_free(&pf->flows);
    pf_u64map_free(&pf->binds);
    free(pf->flow_ends);
    free(pf->bind_refs);
}
