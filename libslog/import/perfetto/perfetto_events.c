/* SPDX-License-Identifier: MIT
 *
 * perfetto_events.c - typed TrackEvents -> drawables.  The event is read
 * whole first (a damaged one is skipped before anything is written), then:
 * SLICE_BEGIN pushes on its track's stack and SLICE_END pops it into a
 * state (depth = the stack below it; END's args join BEGIN's), in file
 * order per track; INSTANT is an event; COUNTER and extra_counter_values
 * are counter samples (incremental counters add up per track, reset when
 * their sequence clears).  An event without type but with a legacy_event
 * goes to perfetto_legacy.c; flow ids of any event go to perfetto_flows.c.
 * The track is track_uuid, else the sequence's default, else its legacy
 * thread, else a track per sequence; uuid 0 is the global track (a legacy
 * event with uuid 0 stays on its sequence's thread).
 * Import library, perfetto folder: public libslog headers, libc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_te.h"

/* Which pf->rep[] list a field number feeds (REP_COUNT: none). */
static unsigned rep_of(uint32_t num)
{
    switch (num) {
    case TE_FLOW_IDS: return REP_FLOW;
    case TE_FLOW_IDS_OLD: return REP_FLOW_OLD;
    case TE_TERM_FLOW_IDS: return REP_TERM;
    case TE_TERM_FLOW_IDS_OLD: return REP_TERM_OLD;
    case TE_EXTRA_UUIDS: return REP_EXTRA_UUIDS;
    case TE_EXTRA_VALUES: return REP_EXTRA_VALUES;
    case TE_EXTRA_DOUBLE_UUIDS: return REP_XD_UUIDS;
    case TE_EXTRA_DOUBLE_VALUES: return REP_XD_VALUES;
    case TE_CATEGORY_IIDS: return REP_CAT_IIDS;
    default: return REP_COUNT;
    }
}

static void te_scalar(pf_te *te, const pb_field *e)
{
    switch (e->num) {
    case TE_TYPE: te->has_type = true; te->type = e->value; break;
    case TE_TRACK_UUID: te->has_track = true; te->track_uuid = e->value; break;
    case TE_NAME_IID: te->has_name_iid = true; te->name_iid = e->value; break;
    case TE_COUNTER_VALUE: te->has_counter = true; te->counter_int = (int64_t)e->value; break;
    case TE_DOUBLE_COUNTER_VALUE:
        te->has_counter = te->counter_double = true;
        te->counter_dbl = pb_double(e->value);
        break;
    case TE_TS_DELTA_US: te->has_ts_delta = true; te->ts_delta_us = (int64_t)e->value; break;
    case TE_TS_ABS_US: te->has_ts_abs = true; te->ts_abs_us = (int64_t)e->value; break;
    default: break;
    }
}

static int te_read(pb_reader *r, const pb_field *f, pf_te *te)
{
    memset(te, 0, sizeof *te);
    if (pb_sub(r, f, &te->body) != PB_OK) {
        return PF_DAMAGED;
    }
    pb_reader sub = te->body;
    pb_field e;
    int rc;
    while ((rc = pb_next(&sub, &e)) == PB_OK) {
        const unsigned rep = rep_of(e.num);
        if (rep != REP_COUNT) {
            te->present |= 1u << rep;
        } else if (e.num == TE_NAME && e.wire == PB_WIRE_LEN) {
            te->name = e.data;
            te->name_len = e.len;
        } else if (e.num == TE_CATEGORIES) {
            te->has_categories = true;
        } else if (e.num == TE_LEGACY && e.wire == PB_WIRE_LEN) {
            te->has_legacy = true;
            te->legacy = e;
        } else if (e.wire != PB_WIRE_LEN) {
            te_scalar(te, &e);
        }
    }
    return rc == PB_END ? PF_OK : PF_DAMAGED;
}

/* Collect repeated field `rep` of te into pf->rep[rep]. */
static int te_collect(pf_importer *pf, const pf_te *te, unsigned rep, uint32_t num,
                      pb_wire_type elem)
{
    pf_vec *v = &pf->rep[rep];
    v->n = 0;
    if (!(te->present & (1u << rep))) {
        return PF_OK;
    }
    pb_reader sub = te->body;
    pb_field e;
    while (pb_next(&sub, &e) == PB_OK) {
        if (e.num != num) {
            continue;
        }
        pb_packed it;
        uint64_t x;
        int rc = pb_packed_init(&it, &e, elem);
        while (rc == PB_OK && (rc = pb_packed_next(&it, &x)) == PB_OK) {
            if (pf_vec_push(v, x) != 0) {
                return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory");
            }
        }
        if (rc != PB_END) {
            return PF_DAMAGED;
        }
    }
    return PF_OK;
}

static int te_collect_all(pf_importer *pf, const pf_te *te)
{
    static const struct {
        unsigned rep;
        uint32_t num;
        pb_wire_type elem;
    } lists[] = {
        {REP_FLOW, TE_FLOW_IDS, PB_WIRE_I64},
        {REP_FLOW_OLD, TE_FLOW_IDS_OLD, PB_WIRE_VARINT},
        {REP_TERM, TE_TERM_FLOW_IDS, PB_WIRE_I64},
        {REP_TERM_OLD, TE_TERM_FLOW_IDS_OLD, PB_WIRE_VARINT},
        {REP_EXTRA_UUIDS, TE_EXTRA_UUIDS, PB_WIRE_VARINT},
        {REP_EXTRA_VALUES, TE_EXTRA_VALUES, PB_WIRE_VARINT},
        {REP_XD_UUIDS, TE_EXTRA_DOUBLE_UUIDS, PB_WIRE_VARINT},
        {REP_XD_VALUES, TE_EXTRA_DOUBLE_VALUES, PB_WIRE_I64},
        {REP_CAT_IIDS, TE_CATEGORY_IIDS, PB_WIRE_VARINT},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        const int rc = te_collect(pf, te, lists[i].rep, lists[i].num, lists[i].elem);
        if (rc != PF_OK) {
            return rc;
        }
    }
    return PF_OK;
}

/* Append part p[0, n) to the list at out[0, at) with a "," between; the new
 * length.  out NULL only measures. */
static size_t group_part(char *out, size_t at, const void *p, size_t n)
{
    if (n == 0) {
        return at;
    }
    if (out != NULL) {
        if (at > 0) {
            out[at] = ',';
        }
        memcpy(out + at + (at > 0 ? 1 : 0), p, n);
    }
    return at + (at > 0 ? 1 : 0) + n;
}

static size_t group_join(const pf_importer *pf, const pf_seq *s, const pf_te *te, char *out)
{
    size_t at = 0;
    for (size_t i = 0; i < pf->rep[REP_CAT_IIDS].n; i++) {
        const char *c = pf_intern_lookup(s, &s->cats, pf->rep[REP_CAT_IIDS].v[i]);
        at = group_part(out, at, c, c != NULL ? strlen(c) : 0);
    }
    pb_reader sub = te->body;
    pb_field e;
    while (te->has_categories && pb_next(&sub, &e) == PB_OK) {
        if (e.num == TE_CATEGORIES && e.wire == PB_WIRE_LEN) {
            at = group_part(out, at, e.data, e.len);
        }
    }
    return at;
}

/* Categories (interned ids, then strings) joined by ",", in scratch. */
static int te_group(pf_importer *pf, const pf_seq *s, pf_te *te)
{
    const size_t n = group_join(pf, s, te, NULL);
    if (n == 0) {
        return PF_OK;
    }
    char *out = pf_arena_alloc(&pf->scratch, n + 1);
    if (out == NULL) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory");
    }
    (void)group_join(pf, s, te, out);
    out[n] = '\0';
    te->group = out;
    return PF_OK;
}

static int te_name(pf_importer *pf, const pf_seq *s, pf_te *te)
{
    te->name_str = "";
    if (te->name != NULL) {
        te->name_str = pf_arena_strdup(&pf->scratch, te->name, te->name_len);
        return te->name_str != NULL ? PF_OK
                                    : pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory");
    }
    if (te->has_name_iid) {
        pf_count(pf, K_NAME_IID, 1);
        const char *n = pf_intern_lookup(s, &s->names, te->name_iid);
        if (n == NULL) {
            pf_count(pf, K_NAME_IID_UNRESOLVED, 1);
            char tmp[48];
            (void)snprintf(tmp, sizeof tmp, "name iid %llu", (unsigned long long)te->name_iid);
            n = pf_arena_strdup(&pf->scratch, tmp, strlen(tmp));
        }
        te->name_str = n != NULL ? n : "";
    }
    return PF_OK;
}

static int te_args(pf_importer *pf, pf_seq *s, const pf_te *te)
{
    pf_args_reset(pf);
    pb_reader sub = te->body;
    pb_field e;
    while (pb_next(&sub, &e) == PB_OK) {
        if (e.num == TE_ANNOTATIONS && e.wire == PB_WIRE_LEN) {
            const int rc = pf_args_add(pf, s, &sub, &e);
            if (rc != PF_OK) {
                return rc;
            }
        }
    }
    return PF_OK;
}

static int te_track(pf_importer *pf, pf_seq *s, const pf_te *te, uint32_t *track)
{
    const bool legacy = !te->has_type && te->has_legacy;
    if (te->has_track && !(legacy && te->track_uuid == 0)) {
        return pf_track_by_uuid(pf, te->track_uuid, track);
    }
    if (s->has_default_track) {
        return pf_track_by_uuid(pf, s->default_track, track);
    }
    if (s->thread_track != PF_NO_ID) {
        *track = s->thread_track;
        return PF_OK;
    }
    char key[32], name[32];
    (void)snprintf(key, sizeof key, "seq:%u", s->id);
    (void)snprintf(name, sizeof name, "sequence %u", s->id);
    const pf_synth sy = {key, SLOG_TIMELINE_GENERIC, name, PF_NO_ID, K_TL_SEQ};
    return pf_track_synthetic(pf, &sy, track);
}

/* ------------------------------------------------------------- drawables */

_Static_assert(SLOG_MAX_DEPTH == 100000u, "K_TOO_DEEP's text names the limit");

/* A slice that would nest deeper than a writer takes is skipped and counted
 * (the stack holds at most SLOG_MAX_DEPTH + 1 slices). */
int pf_slice_push(pf_importer *pf, uint32_t track, int64_t ts, uint32_t category)
{
    pf_track *t = &pf->tracks[track];
    if (t->depth > SLOG_MAX_DEPTH) {
        t->deep++;
        pf_count(pf, K_TOO_DEEP, 1);
        return PF_OK;
    }
    if (t->depth == t->cap) {
        const uint32_t cap = t->cap ? t->cap * 2 : 8;
        pf_open *st = realloc(t->stack, cap * sizeof *st);
        if (st == NULL) {
            return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (open slices)");
        }
        t->stack = st;
        t->cap = cap;
    }
    pf_open *o = &t->stack[t->depth];
    o->start = ts;
    o->category = category;
    o->nargs = pf->nargs;
    if (pf_args_copy(pf->args, pf->nargs, &o->args) != PF_OK) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (open slices)");
    }
    t->depth++;
    return PF_OK;
}

/* BEGIN's args followed by END's (pf->args), in scratch. */
static const slog_arg *joined_args(pf_importer *pf, const pf_open *o, uint32_t *n)
{
    *n = o->nargs + pf->nargs;
    if (pf->nargs == 0 || o->nargs == 0) {
        return pf->nargs == 0 ? o->args : pf->args;
    }
    slog_arg *a = pf_arena_alloc(&pf->scratch, *n * sizeof *a);
    if (a == NULL) {
        *n = o->nargs;
        return o->args;
    }
    memcpy(a, o->args, o->nargs * sizeof *a);
    memcpy(a + o->nargs, pf->args, pf->nargs * sizeof *a);
    return a;
}

int pf_slice_pop(pf_importer *pf, uint32_t track, int64_t ts, bool *stray)
{
    pf_track *t = &pf->tracks[track];
    if (t->deep > 0) {
        t->deep--; /* ends a slice skipped as too deep */
        *stray = false;
        return PF_OK;
    }
    *stray = t->depth == 0;
    if (*stray) {
        return PF_OK;
    }
    pf_open o = t->stack[--t->depth];
    int rc = PF_OK;
    if (ts < o.start) {
        pf_count(pf, K_SLICE_BACKWARDS, 1);
    } else {
        uint32_t tl = 0, n = 0;
        rc = pf_timeline(pf, track, &tl);
        const slog_arg *args = joined_args(pf, &o, &n);
        const slog_state st = {tl, o.category, o.start, ts, pf->tracks[track].depth, n, args};
        slog_error werr;
        if (rc == PF_OK && slog_writer_append_state(pf->w, &st, &werr) != SLOG_OK) {
            rc = pf_writer_failed(pf, &werr);
        }
        pf_note_time(pf, ts);
    }
    free(o.args);
    return rc;
}

int pf_emit_event(pf_importer *pf, uint32_t track, uint32_t category, int64_t ts)
{
    uint32_t tl;
    if (pf_timeline(pf, track, &tl) != PF_OK) {
        return PF_FATAL;
    }
    const slog_event ev = {tl, category, ts, pf->nargs, pf->args};
    slog_error werr;
    if (slog_writer_append_event(pf->w, &ev, &werr) != SLOG_OK) {
        return pf_writer_failed(pf, &werr);
    }
    pf_note_time(pf, ts);
    return PF_OK;
}

static int counter_append(pf_importer *pf, uint32_t track, uint32_t cat, int64_t ts,
                          double value)
{
    uint32_t tl;
    if (pf_timeline(pf, track, &tl) != PF_OK) {
        return PF_FATAL;
    }
    const slog_counter c = {tl, cat, ts, value};
    slog_error werr;
    if (slog_writer_append_counter(pf->w, &c, &werr) != SLOG_OK) {
        return pf_writer_failed(pf, &werr);
    }
    pf_note_time(pf, ts);
    return PF_OK;
}

int pf_counter_sample(pf_importer *pf, uint32_t track, const char *name, int64_t ts,
                      double value)
{
    pf_track *t = &pf->tracks[track];
    if (t->counter_incremental) {
        t->counter_last += value;
        value = t->counter_last;
    }
    value *= (double)t->counter_mult;
    uint32_t cat = t->counter_category;
    if (name != NULL || cat == PF_NO_ID) {
        const char *cname = name ? name : t->name ? t->name : "counter";
        if (pf_category(pf, SLOG_KIND_COUNTER, cname, NULL, &cat) != PF_OK) {
            return PF_FATAL;
        }
        if (name == NULL) {
            pf->tracks[track].counter_category = cat;
        }
    }
    return counter_append(pf, track, cat, ts, value);
}

/* ---------------------------------------------------------------- events */

/* One list of extra counter values, each on the track of the same index in
 * the event's uuid list, else the sequence defaults'. */
static int extra_list(pf_importer *pf, pf_seq *s, bool dbl, int64_t ts)
{
    const pf_vec *vals = &pf->rep[dbl ? REP_XD_VALUES : REP_EXTRA_VALUES];
    const pf_vec *own = &pf->rep[dbl ? REP_XD_UUIDS : REP_EXTRA_UUIDS];
    const uint64_t *uuids = own->v;
    size_t nu = own->n;
    if (nu == 0) {
        uuids = dbl ? s->extra_double_uuids : s->extra_uuids;
        nu = dbl ? s->n_extra_double : s->n_extra;
    }
    for (size_t i = 0; i < vals->n; i++) {
        if (i >= nu) {
            pf_count(pf, K_EXTRA_COUNTER_NOUUID, vals->n - i);
            break;
        }
        uint32_t track;
        if (pf_track_by_uuid(pf, uuids[i], &track) != PF_OK) {
            return PF_FATAL;
        }
        pf->tracks[track].counter_seq = s->id;
        const double v = dbl ? pb_double(vals->v[i]) : (double)(int64_t)vals->v[i];
        if (pf_counter_sample(pf, track, NULL, ts, v) != PF_OK) {
            return PF_FATAL;
        }
        pf_count(pf, K_EXTRA_COUNTER, 1);
    }
    return PF_OK;
}

static int extra_counters(pf_importer *pf, pf_seq *s, int64_t ts)
{
    const int rc = extra_list(pf, s, false, ts);
    return rc == PF_OK ? extra_list(pf, s, true, ts) : rc;
}

static int te_flows(pf_importer *pf, uint32_t track, int64_t ts)
{
    static const struct {
        unsigned rep;
        bool term;
        pf_kcount count;
    } lists[] = {{REP_FLOW, false, K_FLOW_REF}, {REP_FLOW_OLD, false, K_FLOW_OLD_REF},
                 {REP_TERM, true, K_FLOW_TERM_REF}, {REP_TERM_OLD, true, K_FLOW_TERM_REF}};
    uint32_t tl = PF_NO_ID;
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
        const pf_vec *v = &pf->rep[lists[l].rep];
        if (v->n > 0 && tl == PF_NO_ID && pf_timeline(pf, track, &tl) != PF_OK) {
            return PF_FATAL;
        }
        pf_count(pf, lists[l].count, v->n);
        for (size_t i = 0; i < v->n; i++) {
            if (pf_flow_ref(pf, v->v[i], lists[l].term, tl, ts) != PF_OK) {
                return PF_FATAL;
            }
        }
    }
    return PF_OK;
}

static int typed_event(pf_importer *pf, const pf_te *te, uint32_t track, int64_t ts)
{
    uint32_t cat;
    bool stray = false;
    int rc = PF_OK;
    switch (te->type) {
    case TYPE_SLICE_BEGIN:
        pf_count(pf, K_TE_BEGIN, 1);
        rc = pf_track_name_from_slice(pf, track, te->name_str, te->group);
        if (rc == PF_OK) {
            rc = pf_category(pf, SLOG_KIND_STATE, te->name_str, te->group, &cat);
        }
        return rc == PF_OK ? pf_slice_push(pf, track, ts, cat) : rc;
    case TYPE_SLICE_END:
        pf_count(pf, K_TE_END, 1);
        rc = pf_slice_pop(pf, track, ts, &stray);
        pf_count(pf, stray ? K_SLICE_STRAY_END : K_SLICE, 1);
        return rc;
    case TYPE_INSTANT:
        pf_count(pf, K_TE_INSTANT, 1);
        pf_count(pf, K_INSTANT, 1);
        rc = pf_track_name_from_slice(pf, track, te->name_str, te->group);
        if (rc == PF_OK) {
            rc = pf_category(pf, SLOG_KIND_EVENT, te->name_str, te->group, &cat);
        }
        return rc == PF_OK ? pf_emit_event(pf, track, cat, ts) : rc;
    case TYPE_COUNTER:
        pf_count(pf, K_TE_COUNTER, 1);
        if (!te->has_counter) {
            return PF_OK;
        }
        pf_count(pf, pf->tracks[track].kind == PF_TRACK_COUNTER ? K_COUNTER
                                                               : K_COUNTER_NOT_COUNTER_TRACK, 1);
        return pf_counter_sample(pf, track, NULL, ts,
                                 te->counter_double ? te->counter_dbl : (double)te->counter_int);
    default:
        pf_count(pf, K_TE_NOTYPE, 1);
        return PF_OK;
    }
}

/* The event's time: the packet's, else the deprecated TrackEvent fields. */
static bool te_time(pf_importer *pf, pf_seq *s, const pf_te *te, int64_t *ts, bool has_ts)
{
    if (has_ts) {
        return true;
    }
    if (te->has_ts_abs) {
        *ts = te->ts_abs_us * 1000;
        return true;
    }
    if (te->has_ts_delta) {
        s->legacy_ts_us += te->ts_delta_us;
        *ts = s->legacy_ts_us * 1000;
        return true;
    }
    pf_count(pf, K_TS_NONE, 1);
    return false;
}

int pf_track_event(pf_importer *pf, pf_seq *s, pb_reader *r, const pb_field *f, int64_t ts,
                   bool has_ts)
{
    pf_te te;
    int rc = te_read(r, f, &te);
    if (rc == PF_OK) {
        rc = te_collect_all(pf, &te);
    }
    if (rc == PF_OK) {
        rc = te_args(pf, s, &te);
    }
    if (rc == PF_OK) {
        rc = te_name(pf, s, &te);
    }
    if (rc == PF_OK) {
        rc = te_group(pf, s, &te);
    }
    if (rc != PF_OK || !te_time(pf, s, &te, &ts, has_ts)) {
        return rc;
    }
    pf_note_time(pf, ts);
    uint32_t track;
    if (te_track(pf, s, &te, &track) != PF_OK) {
        return PF_FATAL;
    }
    if ((!te.has_type || te.type == 0) && te.has_legacy) {
        pf_count(pf, K_TE_UNSPEC, 1);
        rc = pf_legacy_event(pf, s, &te, track, ts);
    } else {
        rc = typed_event(pf, &te, track, ts);
        if (rc == PF_OK && te.has_legacy) {
            rc = pf_legacy_flow(pf, &te, track, ts);
        }
    }
    if (rc == PF_OK) {
        rc = te_flows(pf, track, ts);
    }
    return rc == PF_OK ? extra_counters(pf, s, ts) : rc;
}

/* A state closed at the trace's end (st->end is ignored), flagged with arg
 * "slog.unclosed". */
int pf_close_open(pf_importer *pf, const slog_state *st)
{
    slog_arg *all = malloc((st->nargs + 1) * sizeof *all);
    if (all == NULL) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory");
    }
    if (st->nargs > 0) {
        memcpy(all, st->args, st->nargs * sizeof *all);
    }
    all[st->nargs].key = "slog.unclosed";
    all[st->nargs].type = SLOG_ARG_BOOL;
    all[st->nargs].v.b = true;
    slog_state closed = *st;
    closed.end = pf->t_max > st->start ? pf->t_max : st->start;
    closed.nargs = st->nargs + 1;
    closed.args = all;
    slog_error werr;
    const int rc = slog_writer_append_state(pf->w, &closed, &werr);
    free(all);
    return rc == SLOG_OK ? PF_OK : pf_writer_failed(pf, &werr);
}

int pf_events_finish(pf_importer *pf)
{
    for (uint32_t i = 0; i < pf->ntracks; i++) {
        while (pf->tracks[i].depth > 0) {
            uint32_t tl;
            if (pf_timeline(pf, i, &tl) != PF_OK) {
                return PF_FATAL;
            }
            pf_track *t = &pf->tracks[i];
            pf_open o = t->stack[--t->depth];
            const slog_state st = {tl, o.category, o.start, o.start, t->depth, o.nargs, o.args};
            const int rc = pf_close_open(pf, &st);
            free(o.args);
            pf_count(pf, K_SLICE_OPEN, 1);
            if (rc != PF_OK) {
                return rc;
            }
        }
    }
    return PF_OK;
}
