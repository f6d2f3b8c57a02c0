/* SPDX-License-Identifier: MIT
 *
 * perfetto_tracks.c - tracks and their timelines.  A TrackDescriptor
 * (process, thread, counter or other: async and custom tracks) is kept by
 * uuid, once however often it is re-emitted; tracks the trace never
 * describes are made here too: a process per pid, a thread per (pid, tid),
 * the global track (uuid 0), one per sequence, per legacy async id, per CPU.
 * A track's timeline is made when first needed, after its parent's
 * (parent_uuid, else the process of a thread), so the parent is always
 * known to the writer; described tracks that never carried an event get
 * their timeline at the end, so every descriptor is a row.  Names: the
 * descriptor's first non-empty one, else Perfetto's (tid N, pid N,
 * thread_time); an unnamed async/custom track is "track HEX" only until
 * its first slice names it, as Perfetto's UI does.
 * Import library, perfetto folder: public libslog headers, libc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto.h"

#define TD_UUID 1
#define TD_NAME 2
#define TD_PROCESS 3
#define TD_THREAD 4
#define TD_PARENT 5
#define TD_COUNTER 8
#define TD_STATIC_NAME 10
#define PD_PID 1
#define PD_NAME 6
#define THD_PID 1
#define THD_TID 2
#define THD_NAME 5
#define CD_TYPE 1
#define CD_THREAD_TIME_NS 1
#define CD_THREAD_INSTRUCTION_COUNT 2
#define CD_MULT 4
#define CD_INCREMENTAL 5

static int track_new(pf_importer *pf, uint32_t *idx)
{
    if (pf->ntracks == pf->captracks) {
        const size_t cap = pf->captracks ? pf->captracks * 2 : 64;
        pf_track *t = realloc(pf->tracks, cap * sizeof *t);
        if (t == NULL) {
            (void)pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (tracks)");
            return PF_FATAL;
        }
        pf->tracks = t;
        pf->captracks = cap;
    }
    pf_track *t = &pf->tracks[pf->ntracks];
    memset(t, 0, sizeof *t);
    t->timeline = PF_NO_ID;
    t->parent_track = PF_NO_ID;
    t->counter_category = PF_NO_ID;
    t->counter_mult = 1;
    *idx = (uint32_t)pf->ntracks++;
    return PF_OK;
}

static int set_name(pf_importer *pf, uint32_t idx, const void *name, size_t len)
{
    char *copy = malloc(len + 1);
    if (copy == NULL) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (track names)");
    }
    memcpy(copy, name, len);
    copy[len] = '\0';
    free(pf->tracks[idx].name);
    pf->tracks[idx].name = copy;
    return PF_OK;
}

int pf_track_synthetic(pf_importer *pf, const pf_synth *sy, uint32_t *track)
{
    if (pf_strmap_get(&pf->synth_tracks, sy->key, strlen(sy->key), track)) {
        return PF_OK;
    }
    int rc = track_new(pf, track);
    if (rc == PF_OK) {
        rc = set_name(pf, *track, sy->name, strlen(sy->name));
    }
    if (rc != PF_OK) {
        return rc;
    }
    pf_track *t = &pf->tracks[*track];
    t->tl_kind = sy->kind;
    t->parent_track = sy->parent;
    t->origin = sy->origin;
    t->kind = sy->kind == SLOG_TIMELINE_PROCESS  ? PF_TRACK_PROCESS
              : sy->kind == SLOG_TIMELINE_THREAD ? PF_TRACK_THREAD
                                                 : PF_TRACK_OTHER;
    if (pf_strmap_put(&pf->synth_tracks, sy->key, strlen(sy->key), *track) != 0) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (tracks)");
    }
    return PF_OK;
}

int pf_track_process(pf_importer *pf, int32_t pid, uint32_t *track)
{
    char key[32], name[32];
    (void)snprintf(key, sizeof key, "pid:%d", pid);
    (void)snprintf(name, sizeof name, "pid %d", pid);
    const pf_synth sy = {key, SLOG_TIMELINE_PROCESS, name, PF_NO_ID, K_TL_PID};
    const int rc = pf_track_synthetic(pf, &sy, track);
    if (rc == PF_OK) {
        pf->tracks[*track].pid = pid;
        pf->tracks[*track].sort_key = pid;
    }
    return rc;
}

int pf_track_thread(pf_importer *pf, int32_t pid, int32_t tid, uint32_t *track)
{
    char key[48], name[32];
    (void)snprintf(key, sizeof key, "tid:%d:%d", pid, tid);
    if (pf_strmap_get(&pf->synth_tracks, key, strlen(key), track)) {
        return PF_OK;
    }
    uint32_t proc = PF_NO_ID;
    int rc = pf_track_process(pf, pid, &proc);
    (void)snprintf(name, sizeof name, "tid %d", tid);
    if (rc == PF_OK) {
        const pf_synth sy = {key, SLOG_TIMELINE_THREAD, name, proc, K_TL_THREAD};
        rc = pf_track_synthetic(pf, &sy, track);
    }
    if (rc == PF_OK) {
        pf->tracks[*track].pid = pid;
        pf->tracks[*track].tid = tid;
        pf->tracks[*track].sort_key = tid;
    }
    return rc;
}

int pf_track_by_uuid(pf_importer *pf, uint64_t uuid, uint32_t *track)
{
    uint64_t at;
    if (pf_u64map_get(&pf->track_index, uuid, &at)) {
        *track = (uint32_t)at;
        return PF_OK;
    }
    char name[48];
    (void)snprintf(name, sizeof name, uuid == 0 ? "global" : "track %llx",
                   (unsigned long long)uuid);
    int rc = track_new(pf, track);
    if (rc == PF_OK) {
        rc = set_name(pf, *track, name, strlen(name));
    }
    if (rc != PF_OK) {
        return rc;
    }
    pf->tracks[*track].uuid = uuid;
    pf->tracks[*track].provisional_name = uuid != 0;
    pf->tracks[*track].tl_kind = SLOG_TIMELINE_GENERIC;
    pf->tracks[*track].origin = uuid == 0 ? K_TL_GLOBAL : K_TL_UNDESCRIBED;
    if (pf_u64map_put(&pf->track_index, uuid, *track) != 0) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (tracks)");
    }
    return PF_OK;
}

/* ----------------------------------------------------------- descriptor */

typedef struct td_fields {
    uint64_t uuid, parent;
    bool has_parent;
    const uint8_t *name, *pname, *tname;
    size_t name_len, pname_len, tname_len;
    bool process, thread, counter, counter_incremental;
    int32_t pid, tid;
    int64_t mult;
    uint64_t counter_type; /* BuiltinCounterType, 0 unspecified */
} td_fields;

/* ProcessDescriptor (is_thread false) or ThreadDescriptor fields. */
static int read_pt(pb_reader *r, const pb_field *f, td_fields *d, bool is_thread)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    int rc;
    while ((rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == PD_PID && e.wire == PB_WIRE_VARINT) {
            d->pid = (int32_t)e.value;
        } else if (is_thread && e.num == THD_TID && e.wire == PB_WIRE_VARINT) {
            d->tid = (int32_t)e.value;
        } else if (e.wire == PB_WIRE_LEN && e.num == (is_thread ? THD_NAME : PD_NAME)) {
            *(is_thread ? &d->tname : &d->pname) = e.data;
            *(is_thread ? &d->tname_len : &d->pname_len) = e.len;
        }
    }
    return rc == PB_END ? PF_OK : PF_DAMAGED;
}

static int read_counter(pb_reader *r, const pb_field *f, td_fields *d)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    int rc;
    while ((rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == CD_TYPE && e.wire == PB_WIRE_VARINT) {
            d->counter_type = e.value;
        } else if (e.num == CD_MULT && e.wire == PB_WIRE_VARINT && (int64_t)e.value != 0) {
            d->mult = (int64_t)e.value;
        } else if (e.num == CD_INCREMENTAL && e.wire == PB_WIRE_VARINT) {
            d->counter_incremental = e.value != 0;
        }
    }
    return rc == PB_END ? PF_OK : PF_DAMAGED;
}

static int read_descriptor(pb_reader *r, const pb_field *f, td_fields *d)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    memset(d, 0, sizeof *d);
    d->mult = 1;
    int rc, st = PF_OK;
    while (st == PF_OK && (rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == TD_UUID && e.wire == PB_WIRE_VARINT) {
            d->uuid = e.value;
        } else if (e.num == TD_PARENT && e.wire == PB_WIRE_VARINT) {
            d->parent = e.value;
            d->has_parent = true;
        } else if ((e.num == TD_NAME || e.num == TD_STATIC_NAME) && e.wire == PB_WIRE_LEN) {
            d->name = e.data;
            d->name_len = e.len;
        } else if (e.num == TD_PROCESS || e.num == TD_THREAD) {
            *(e.num == TD_PROCESS ? &d->process : &d->thread) = true;
            st = read_pt(&sub, &e, d, e.num == TD_THREAD);
        } else if (e.num == TD_COUNTER) {
            d->counter = true;
            st = read_counter(&sub, &e, d);
        }
    }
    return st != PF_OK ? st : rc == PB_END ? PF_OK : PF_DAMAGED;
}

/* What a descriptor without a name is called (as Perfetto shows it), NULL
 * for a track a slice may name later. */
static const char *unnamed_descriptor(const td_fields *d, char *buf, size_t cap)
{
    if (d->thread || d->process) {
        (void)snprintf(buf, cap, d->thread ? "tid %d" : "pid %d", d->thread ? d->tid : d->pid);
        return buf;
    }
    if (d->counter && d->counter_type == CD_THREAD_TIME_NS) {
        return "thread_time";
    }
    if (d->counter && d->counter_type == CD_THREAD_INSTRUCTION_COUNT) {
        return "thread_instruction_count";
    }
    return NULL;
}

/* Name the track from the descriptor's first non-empty name (name,
 * thread_name, process_name).  Without one, a made-up "track HEX" gets the
 * fallback above, a name already given is kept (re-emitted descriptors
 * often leave it out).  The timeline, if made, is renamed. */
static int describe_name(pf_importer *pf, uint32_t idx, const td_fields *d)
{
    const uint8_t *const given[] = {d->name, d->tname, d->pname};
    const size_t lens[] = {d->name_len, d->tname_len, d->pname_len};
    const char *n = NULL;
    size_t len = 0;
    for (size_t i = 0; i < sizeof lens / sizeof lens[0] && n == NULL; i++) {
        if (given[i] != NULL && lens[i] > 0) {
            n = (const char *)given[i];
            len = lens[i];
        }
    }
    char fallback[32];
    if (n == NULL && pf->tracks[idx].provisional_name) {
        n = unnamed_descriptor(d, fallback, sizeof fallback);
        len = n != NULL ? strlen(n) : 0;
    }
    pf_track *t = &pf->tracks[idx];
    if (n == NULL || (t->name != NULL && strlen(t->name) == len && memcmp(t->name, n, len) == 0)) {
        t->provisional_name = t->provisional_name && n == NULL;
        return PF_OK;
    }
    if (set_name(pf, idx, n, len) != PF_OK) {
        return PF_FATAL;
    }
    return pf_track_rename(pf, idx, pf->tracks[idx].name);
}

int pf_track_rename(pf_importer *pf, uint32_t track, const char *name)
{
    if (pf->tracks[track].name != name && set_name(pf, track, name, strlen(name)) != PF_OK) {
        return PF_FATAL;
    }
    pf_track *t = &pf->tracks[track];
    t->provisional_name = false;
    slog_error werr;
    if (t->timeline != PF_NO_ID &&
        slog_writer_set_timeline(pf->w, t->timeline, t->name, t->sort_key, &werr) != SLOG_OK) {
        return pf_writer_failed(pf, &werr);
    }
    return PF_OK;
}

/* Perfetto's UI names a track without a name after its slices: the first
 * slice or instant drawn on a "track HEX" names it (its name, else its
 * categories). */
int pf_track_name_from_slice(pf_importer *pf, uint32_t track, const char *name,
                             const char *group)
{
    if (!pf->tracks[track].provisional_name) {
        return PF_OK;
    }
    const char *n = name[0] != '\0' ? name : group != NULL && group[0] != '\0' ? group : NULL;
    return n != NULL ? pf_track_rename(pf, track, n) : PF_OK;
}

/* A legacy event's pid places a track nothing else places (no parent_uuid,
 * not a process or thread) under that process, if its row is not made yet. */
int pf_track_adopt_pid(pf_importer *pf, uint32_t track, int32_t pid)
{
    const pf_track *t = &pf->tracks[track];
    if (t->timeline != PF_NO_ID || t->has_parent || t->parent_track != PF_NO_ID ||
        t->kind != PF_TRACK_OTHER || t->uuid == 0) {
        return PF_OK;
    }
    uint32_t proc;
    if (pf_track_process(pf, pid, &proc) != PF_OK) {
        return PF_FATAL;
    }
    pf->tracks[track].parent_track = proc;
    return PF_OK;
}

/* A process or thread descriptor also answers for its pid / (pid, tid). */
static int register_ids(pf_importer *pf, uint32_t idx)
{
    pf_track *t = &pf->tracks[idx];
    char key[48];
    if (t->kind == PF_TRACK_PROCESS) {
        (void)snprintf(key, sizeof key, "pid:%d", t->pid);
    } else if (t->kind == PF_TRACK_THREAD) {
        (void)snprintf(key, sizeof key, "tid:%d:%d", t->pid, t->tid);
    } else {
        return PF_OK;
    }
    uint32_t other;
    if (pf_strmap_get(&pf->synth_tracks, key, strlen(key), &other)) {
        if (other != idx && t->timeline == PF_NO_ID) {
            t->timeline = pf->tracks[other].timeline; /* adopt the stand-in's row */
        }
        return PF_OK;
    }
    if (pf_strmap_put(&pf->synth_tracks, key, strlen(key), idx) != 0) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (tracks)");
    }
    return PF_OK;
}

static void describe_kind(pf_importer *pf, pf_track *t, const td_fields *d)
{
    t->described = true;
    t->uuid = d->uuid;
    t->parent_uuid = d->parent;
    t->has_parent = d->has_parent;
    t->pid = d->pid;
    t->tid = d->tid;
    t->origin = K_TL_DESCRIBED;
    t->kind = d->counter   ? PF_TRACK_COUNTER
              : d->thread  ? PF_TRACK_THREAD
              : d->process ? PF_TRACK_PROCESS
                           : PF_TRACK_OTHER;
    t->sort_key = t->kind == PF_TRACK_THREAD ? d->tid : t->kind == PF_TRACK_PROCESS ? d->pid : 0;
    t->counter_incremental = d->counter_incremental;
    t->counter_mult = d->mult;
    static const pf_kcount by_kind[] = {K_TD_OTHER, K_TD_PROCESS, K_TD_THREAD, K_TD_COUNTER};
    pf_count(pf, by_kind[t->kind], 1);
}

int pf_track_descriptor(pf_importer *pf, pb_reader *r, const pb_field *f)
{
    td_fields d;
    const int st = read_descriptor(r, f, &d);
    if (st != PF_OK) {
        return st;
    }
    uint32_t idx;
    if (pf_track_by_uuid(pf, d.uuid, &idx) != PF_OK) {
        return PF_FATAL;
    }
    pf_track *t = &pf->tracks[idx];
    if (t->described) {
        pf_count(pf, K_TD_REPEAT, 1);
        return describe_name(pf, idx, &d);
    }
    describe_kind(pf, t, &d);
    if (describe_name(pf, idx, &d) != PF_OK) {
        return PF_FATAL;
    }
    return register_ids(pf, idx);
}

int pf_thread_descriptor(pf_importer *pf, pf_seq *s, pb_reader *r, const pb_field *f)
{
    td_fields d;
    memset(&d, 0, sizeof d);
    const int st = read_pt(r, f, &d, true);
    if (st != PF_OK) {
        return st;
    }
    uint32_t idx;
    if (pf_track_thread(pf, d.pid, d.tid, &idx) != PF_OK) {
        return PF_FATAL;
    }
    s->thread_track = idx;
    return d.tname != NULL ? describe_name(pf, idx, &d) : PF_OK;
}
