/* SPDX-License-Identifier: MIT
 *
 * perfetto_legacy.c - Chrome's legacy events inside TrackEvents (no type,
 * a legacy_event with a phase), mapped as the Chrome JSON importer maps the
 * same phases: B/E nest on the track, X is a state of duration_us, I/R/O
 * are events; async spans b/e (nestable) and S/F are matched per id (id
 * kind, pid for local ids, id_scope, id) on an async timeline per id under
 * the process, with n/T/p as events there.  Async begins and ends are held
 * until the end and matched in timestamp order, because a span's begin and
 * end are often written by different threads (sequences).  C becomes
 * counter samples (one per numeric arg); M and ( ) are counted, not drawn;
 * bind_id/flow_direction (and s/t/f) go to perfetto_flows.c.
 * Import library, perfetto folder: public libslog headers, libc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_te.h"

#define LE_NAME_IID 1
#define LE_PHASE 2
#define LE_DURATION_US 3
#define LE_UNSCOPED_ID 6
#define LE_ID_SCOPE 7
#define LE_BIND_ID 8
#define LE_LOCAL_ID 10
#define LE_GLOBAL_ID 11
#define LE_FLOW_DIRECTION 13
#define LE_INSTANT_SCOPE 14
#define LE_PID_OVERRIDE 18
#define LE_TID_OVERRIDE 19
#define SCOPE_GLOBAL 1
#define SCOPE_PROCESS 2

typedef struct legacy {
    int phase;
    int64_t dur_us;
    bool has_dur, has_bind, has_pid, has_tid, has_name_iid;
    unsigned id_kind; /* 0 none, then the field number of the id */
    uint64_t id, bind_id, name_iid;
    const uint8_t *scope;
    size_t scope_len;
    int flow_dir, instant_scope;
    int32_t pid, tid;
} legacy;

static void legacy_field(legacy *l, const pb_field *e)
{
    switch (e->num) {
    case LE_NAME_IID: l->has_name_iid = true; l->name_iid = e->value; break;
    case LE_PHASE: l->phase = (int)(e->value & 0xff); break;
    case LE_DURATION_US: l->has_dur = true; l->dur_us = (int64_t)e->value; break;
    case LE_UNSCOPED_ID:
    case LE_LOCAL_ID:
    case LE_GLOBAL_ID: l->id_kind = e->num; l->id = e->value; break;
    case LE_BIND_ID: l->has_bind = true; l->bind_id = e->value; break;
    case LE_FLOW_DIRECTION: l->flow_dir = (int)e->value; break;
    case LE_INSTANT_SCOPE: l->instant_scope = (int)e->value; break;
    case LE_PID_OVERRIDE: l->has_pid = true; l->pid = (int32_t)e->value; break;
    case LE_TID_OVERRIDE: l->has_tid = true; l->tid = (int32_t)e->value; break;
    default: break;
    }
}

static int legacy_read(pb_reader *r, const pb_field *f, legacy *l)
{
    pb_reader sub;
    pb_field e;
    memset(l, 0, sizeof *l);
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    int rc;
    while ((rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == LE_ID_SCOPE && e.wire == PB_WIRE_LEN) {
            l->scope = e.data;
            l->scope_len = e.len;
        } else if (e.wire == PB_WIRE_VARINT) {
            legacy_field(l, &e);
        }
    }
    return rc == PB_END ? PF_OK : PF_DAMAGED;
}

/* ---------------------------------------------------------------- async */

static int async_key(pf_importer *pf, const legacy *l, int32_t pid, bool nestable,
                     const char *name, uint32_t *key)
{
    char text[160];
    (void)snprintf(text, sizeof text, "%c|%u|%d|%.*s|%llu", nestable ? 'n' : 'a', l->id_kind,
                   l->id_kind == LE_LOCAL_ID ? pid : 0, (int)(l->scope_len < 64 ? l->scope_len : 64),
                   l->scope ? (const char *)l->scope : "", (unsigned long long)l->id);
    if (pf_strmap_get(&pf->async_index, text, strlen(text), key)) {
        return PF_OK;
    }
    if (pf->nasync_keys == pf->capasync_keys) {
        const size_t cap = pf->capasync_keys ? pf->capasync_keys * 2 : 64;
        pf_async_key *k = realloc(pf->async_keys, cap * sizeof *k);
        if (k == NULL) {
            return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (async ids)");
        }
        pf->async_keys = k;
        pf->capasync_keys = cap;
    }
    uint32_t proc = PF_NO_ID, track = PF_NO_ID;
    char tkey[176];
    (void)snprintf(tkey, sizeof tkey, "async:%s", text);
    if (pf_track_process(pf, pid, &proc) != PF_OK) {
        return PF_FATAL;
    }
    const pf_synth sy = {tkey, SLOG_TIMELINE_ASYNC, name[0] ? name : "async", proc, K_TL_ASYNC};
    if (pf_track_synthetic(pf, &sy, &track) != PF_OK) {
        return PF_FATAL;
    }
    *key = (uint32_t)pf->nasync_keys;
    pf->async_keys[pf->nasync_keys++] = (pf_async_key){track, PF_NO_ID, 0, false, false};
    if (pf_strmap_put(&pf->async_index, text, strlen(text), *key) != 0) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (async ids)");
    }
    return PF_OK;
}

static int async_hold(pf_importer *pf, uint32_t key, bool begin, uint32_t category, int64_t ts)
{
    if (pf->nasyncs == pf->capasyncs) {
        const size_t cap = pf->capasyncs ? pf->capasyncs * 2 : 256;
        pf_async *a = realloc(pf->asyncs, cap * sizeof *a);
        if (a == NULL) {
            return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (async spans)");
        }
        pf->asyncs = a;
        pf->capasyncs = cap;
    }
    if (!pf->async_keys[key].spans) {
        pf->async_keys[key].spans = true;
        pf_count(pf, K_L_ASYNC_IDS, 1);
    }
    pf_async *a = &pf->asyncs[pf->nasyncs];
    memset(a, 0, sizeof *a);
    a->ts = ts;
    a->order = pf->nasyncs;
    a->key = key;
    a->begin = begin;
    a->category = category;
    a->next = PF_NO_ID;
    if (begin) {
        a->nargs = pf->nargs;
        if (pf_args_copy(pf->args, pf->nargs, &a->args) != PF_OK) {
            return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (async spans)");
        }
    }
    pf->nasyncs++;
    return PF_OK;
}

static int async_phase(pf_importer *pf, const legacy *l, const char *name, const char *group,
                       int32_t pid, int64_t ts)
{
    const int ph = l->phase;
    const bool nestable = ph == 'b' || ph == 'e' || ph == 'n';
    uint32_t key, cat;
    if (async_key(pf, l, pid, nestable, name, &key) != PF_OK) {
        return PF_FATAL;
    }
    if (ph == 'n' || ph == 'T' || ph == 'p') {
        pf_count(pf, K_L_ASYNC_INSTANT, 1);
        return pf_category(pf, SLOG_KIND_EVENT, name, group, &cat) == PF_OK
                   ? pf_emit_event(pf, pf->async_keys[key].track, cat, ts)
                   : PF_FATAL;
    }
    const bool begin = ph == 'b' || ph == 'S';
    if (begin && pf_category(pf, SLOG_KIND_STATE, name, group, &cat) != PF_OK) {
        return PF_FATAL;
    }
    pf_async_key *k = &pf->async_keys[key];
    if (begin && !k->named && name[0] != '\0') {
        k->named = true; /* the row is named by its first begin, wherever it came from */
        if (pf_track_rename(pf, k->track, name) != PF_OK) {
            return PF_FATAL;
        }
    }
    return async_hold(pf, key, begin, begin ? cat : PF_NO_ID, ts);
}

/* The value of a numeric arg; false for strings and JSON. */
static bool arg_number(const slog_arg *a, double *v)
{
    switch (a->type) {
    case SLOG_ARG_INT:
        *v = (double)a->v.i;
        return true;
    case SLOG_ARG_UINT:
        *v = (double)a->v.u;
        return true;
    case SLOG_ARG_DOUBLE:
        *v = a->v.d;
        return true;
    case SLOG_ARG_BOOL:
        *v = a->v.b ? 1.0 : 0.0;
        return true;
    default:
        return false;
    }
}

static int counter_phase(pf_importer *pf, const char *name, int32_t pid, int64_t ts)
{
    char key[96], series[160];
    (void)snprintf(key, sizeof key, "lcounter:%d:%.64s", pid, name);
    uint32_t proc = PF_NO_ID, track = PF_NO_ID;
    if (pf_track_process(pf, pid, &proc) != PF_OK) {
        return PF_FATAL;
    }
    const pf_synth sy = {key, SLOG_TIMELINE_COUNTER, name, proc, K_TL_LCOUNTER};
    if (pf_track_synthetic(pf, &sy, &track) != PF_OK) {
        return PF_FATAL;
    }
    for (uint32_t i = 0; i < pf->nargs; i++) {
        const slog_arg *a = &pf->args[i];
        double v;
        if (!arg_number(a, &v)) {
            continue;
        }
        (void)snprintf(series, sizeof series, "%.64s %.64s", name, a->key);
        if (pf_counter_sample(pf, track, series, ts, v) != PF_OK) {
            return PF_FATAL;
        }
        pf_count(pf, K_L_COUNTER, 1);
    }
    return PF_OK;
}

static int instant_phase(pf_importer *pf, const legacy *l, const pf_te *te, uint32_t track,
                         int32_t pid, int64_t ts)
{
    uint32_t cat;
    if (l->instant_scope == SCOPE_GLOBAL && pf_track_by_uuid(pf, 0, &track) != PF_OK) {
        return PF_FATAL;
    }
    if (l->instant_scope == SCOPE_PROCESS && pf_track_process(pf, pid, &track) != PF_OK) {
        return PF_FATAL;
    }
    pf_count(pf, K_L_INSTANT, 1);
    return pf_track_name_from_slice(pf, track, te->name_str, te->group) == PF_OK &&
                   pf_category(pf, SLOG_KIND_EVENT, te->name_str, te->group, &cat) == PF_OK
               ? pf_emit_event(pf, track, cat, ts)
               : PF_FATAL;
}

static int complete_phase(pf_importer *pf, const pf_te *te, uint32_t track, int64_t ts,
                          int64_t dur_us)
{
    uint32_t cat, tl;
    if (pf_track_name_from_slice(pf, track, te->name_str, te->group) != PF_OK ||
        pf_category(pf, SLOG_KIND_STATE, te->name_str, te->group, &cat) != PF_OK ||
        pf_timeline(pf, track, &tl) != PF_OK) {
        return PF_FATAL;
    }
    const int64_t end = ts + (dur_us > 0 ? dur_us * 1000 : 0);
    const slog_state st = {tl, cat, ts, end, pf->tracks[track].depth, pf->nargs, pf->args};
    if (st.depth > SLOG_MAX_DEPTH) {
        pf_count(pf, K_TOO_DEEP, 1);
        return PF_OK;
    }
    slog_error werr;
    if (slog_writer_append_state(pf->w, &st, &werr) != SLOG_OK) {
        return pf_writer_failed(pf, &werr);
    }
    pf_note_time(pf, end);
    pf_count(pf, K_L_X, 1);
    return PF_OK;
}

static int slice_phase(pf_importer *pf, const pf_te *te, uint32_t track, bool begin, int64_t ts)
{
    uint32_t cat;
    if (begin) {
        return pf_track_name_from_slice(pf, track, te->name_str, te->group) == PF_OK &&
                       pf_category(pf, SLOG_KIND_STATE, te->name_str, te->group, &cat) == PF_OK
                   ? pf_slice_push(pf, track, ts, cat)
                   : PF_FATAL;
    }
    bool stray;
    const int rc = pf_slice_pop(pf, track, ts, &stray);
    pf_count(pf, stray ? K_L_E_STRAY : K_L_BE, 1);
    return rc;
}

static int phase_dispatch(pf_importer *pf, const legacy *l, const pf_te *te, uint32_t track,
                          int32_t pid, int64_t ts)
{
    switch (l->phase) {
    case 'B':
    case 'E':
        return slice_phase(pf, te, track, l->phase == 'B', ts);
    case 'X':
        return complete_phase(pf, te, track, ts, l->dur_us);
    case 'I':
    case 'i':
    case 'R':
    case 'O':
        return instant_phase(pf, l, te, track, pid, ts);
    case 'b': case 'e': case 'n': case 'S': case 'F': case 'T': case 'p':
        return async_phase(pf, l, te->name_str, te->group, pid, ts);
    case 'C':
        return counter_phase(pf, te->name_str, pid, ts);
    case 's':
    case 't':
    case 'f':
        return PF_OK; /* flow steps: pf_legacy_event binds them */
    case 'M':
        pf_count(pf, K_L_META, 1);
        return PF_OK;
    case '(':
    case ')':
        pf_count(pf, K_L_CONTEXT, 1);
        return PF_OK;
    default:
        pf_count(pf, K_L_OTHER, 1);
        return PF_OK;
    }
}

/* bind_id / flow_direction (or the s/t/f phases) -> pf_bind_ref. */
static int legacy_bind(pf_importer *pf, const legacy *l, uint32_t track, int64_t ts)
{
    const bool step = l->phase == 's' || l->phase == 't' || l->phase == 'f';
    if (!l->has_bind && !(step && l->id_kind != 0)) {
        return PF_OK;
    }
    const int dir = l->phase == 's' ? 2 : l->phase == 't' ? 3 : l->phase == 'f' ? 1 : l->flow_dir;
    uint32_t tl;
    if (pf_timeline(pf, track, &tl) != PF_OK) {
        return PF_FATAL;
    }
    return pf_bind_ref(pf, l->has_bind ? l->bind_id : l->id, dir, tl, ts);
}

int pf_legacy_flow(pf_importer *pf, const pf_te *te, uint32_t track, int64_t ts)
{
    legacy l;
    pb_reader body = te->body;
    if (legacy_read(&body, &te->legacy, &l) != PF_OK) {
        return PF_DAMAGED;
    }
    return legacy_bind(pf, &l, track, ts);
}

int pf_legacy_event(pf_importer *pf, pf_seq *s, const pf_te *te, uint32_t track, int64_t ts)
{
    legacy l;
    pb_reader body = te->body;
    if (legacy_read(&body, &te->legacy, &l) != PF_OK) {
        return PF_DAMAGED;
    }
    pf->legacy_phase[l.phase & 0xff]++;
    pf_te named = *te;
    if (named.name_str[0] == '\0' && l.has_name_iid) {
        const char *n = pf_intern_lookup(s, &s->names, l.name_iid);
        named.name_str = n != NULL ? n : "";
    }
    if (l.has_pid && l.has_tid && pf_track_thread(pf, l.pid, l.tid, &track) != PF_OK) {
        return PF_FATAL;
    }
    if (l.has_pid && !l.has_tid && pf_track_adopt_pid(pf, track, l.pid) != PF_OK) {
        return PF_FATAL;
    }
    const int32_t pid = l.has_pid ? l.pid : pf->tracks[track].pid;
    const int rc = phase_dispatch(pf, &l, &named, track, pid, ts);
    return rc == PF_OK ? legacy_bind(pf, &l, track, ts) : rc;
}

/* ------------------------------------------------------------ matching */

static int by_time(const void *a, const void *b)
{
    const pf_async *x = a, *y = b;
    if (x->ts != y->ts) {
        return x->ts < y->ts ? -1 : 1;
    }
    return x->order < y->order ? -1 : x->order > y->order ? 1 : 0;
}

static int async_state(pf_importer *pf, const pf_async *b, const pf_async_key *k, int64_t end,
                       bool unclosed)
{
    uint32_t tl;
    if (pf_timeline(pf, k->track, &tl) != PF_OK) {
        return PF_FATAL;
    }
    const slog_state st = {tl, b->category, b->ts, unclosed ? b->ts : end, k->depth, b->nargs,
                           b->args};
    if (st.depth > SLOG_MAX_DEPTH) {
        pf_count(pf, K_TOO_DEEP, 1);
        return PF_OK;
    }
    if (unclosed) {
        return pf_close_open(pf, &st);
    }
    slog_error werr;
    if (slog_writer_append_state(pf->w, &st, &werr) != SLOG_OK) {
        return pf_writer_failed(pf, &werr);
    }
    return PF_OK;
}

/* One held begin or end, in time order: push, or pop into a state. */
static int async_apply(pf_importer *pf, uint32_t i)
{
    pf_async *a = &pf->asyncs[i];
    pf_async_key *k = &pf->async_keys[a->key];
    if (a->begin) {
        a->next = k->open;
        k->open = i;
        k->depth++;
        return PF_OK;
    }
    if (k->open == PF_NO_ID) {
        pf_count(pf, K_L_ASYNC_STRAY, 1);
        return PF_OK;
    }
    const pf_async *b = &pf->asyncs[k->open];
    k->open = b->next;
    k->depth--;
    pf_count(pf, K_L_ASYNC, 1);
    return async_state(pf, b, k, a->ts, false);
}

int pf_legacy_finish(pf_importer *pf)
{
    if (pf->nasyncs > 1) {
        qsort(pf->asyncs, pf->nasyncs, sizeof *pf->asyncs, by_time);
    }
    for (size_t i = 0; i < pf->nasyncs; i++) {
        if (async_apply(pf, (uint32_t)i) != PF_OK) {
            return PF_FATAL;
        }
    }
    for (size_t k = 0; k < pf->nasync_keys; k++) {
        pf_async_key *key = &pf->async_keys[k];
        while (key->open != PF_NO_ID) {
            const pf_async *b = &pf->asyncs[key->open];
            key->open = b->next;
            key->depth--;
            pf_count(pf, K_L_ASYNC_OPEN, 1);
            if (async_state(pf, b, key, 0, true) != PF_OK) {
                return PF_FATAL;
            }
        }
    }
    return PF_OK;
}

void pf_legacy_free(pf_importer *pf)
{
    for (size_t i = 0; i < pf->nasyncs; i++) {
        free(pf->asyncs[i].args);
    }
    free(pf->asyncs);
    free(pf->async_keys);
    pf_strmap_free(&pf->async_index);
}
