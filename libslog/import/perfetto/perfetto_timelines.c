/* SPDX-License-Identifier: MIT
 *
 * perfetto_timelines.c - timelines and categories for the tracks of
 * perfetto_tracks.c.  A track's timeline is made on first use, after its
 * parent's: the parent_uuid's track (a uuid not yet described gets a
 * stand-in row at the root), else the synthetic parent, else for a thread
 * the process of its pid.  A parent chain that loops or runs deeper than 64
 * links stops at the root.  Kinds: process, thread, counter; other
 * described tracks are async rows under a process, generic elsewhere.
 * Root rows other than processes (and the CPUs / GPU groups) get sort keys
 * above every pid, so the processes come first.
 * Import library, perfetto folder: public libslog headers, libc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto.h"

#define MAX_PARENT_CHAIN 64u

static int make_timeline(pf_importer *pf, uint32_t idx, unsigned depth);

/* The parent row of track idx, made first; SLOG_NO_PARENT if none. */
static int parent_timeline(pf_importer *pf, uint32_t idx, unsigned depth, uint32_t *parent,
                           uint32_t *ptrack)
{
    *parent = SLOG_NO_PARENT;
    *ptrack = PF_NO_ID;
    const pf_track *t = &pf->tracks[idx];
    uint32_t p = PF_NO_ID;
    if (t->has_parent) {
        if (pf_track_by_uuid(pf, t->parent_uuid, &p) != PF_OK) {
            return PF_FATAL;
        }
    } else if (t->parent_track != PF_NO_ID) {
        p = t->parent_track;
    } else if (t->kind == PF_TRACK_THREAD && t->described) {
        if (pf_track_process(pf, t->pid, &p) != PF_OK) {
            return PF_FATAL;
        }
    }
    if (p == PF_NO_ID || p == idx || pf->tracks[p].creating || depth >= MAX_PARENT_CHAIN) {
        return PF_OK;
    }
    if (make_timeline(pf, p, depth + 1) != PF_OK) {
        return PF_FATAL;
    }
    *parent = pf->tracks[p].timeline;
    *ptrack = p;
    return PF_OK;
}

static slog_timeline_kind kind_of(const pf_importer *pf, const pf_track *t, uint32_t ptrack)
{
    switch (t->kind) {
    case PF_TRACK_PROCESS:
        return SLOG_TIMELINE_PROCESS;
    case PF_TRACK_THREAD:
        return SLOG_TIMELINE_THREAD;
    case PF_TRACK_COUNTER:
        return SLOG_TIMELINE_COUNTER;
    default:
        break;
    }
    if (!t->described) {
        return t->tl_kind;
    }
    return ptrack != PF_NO_ID && pf->tracks[ptrack].kind == PF_TRACK_PROCESS
               ? SLOG_TIMELINE_ASYNC
               : SLOG_TIMELINE_GENERIC;
}

/* Root rows that sort after the processes: the global track, orphan
 * async/custom tracks, per-sequence tracks; not the CPUs and GPU groups. */
static bool sorts_after_processes(slog_timeline_kind kind)
{
    return kind != SLOG_TIMELINE_PROCESS && kind != SLOG_TIMELINE_HOST &&
           kind != SLOG_TIMELINE_GPU;
}

static int make_timeline(pf_importer *pf, uint32_t idx, unsigned depth)
{
    if (pf->tracks[idx].timeline != PF_NO_ID) {
        return PF_OK;
    }
    pf->tracks[idx].creating = true;
    uint32_t parent, ptrack;
    const int rc = parent_timeline(pf, idx, depth, &parent, &ptrack);
    pf_track *t = &pf->tracks[idx];
    t->creating = false;
    if (rc != PF_OK) {
        return rc;
    }
    const slog_timeline_kind kind = kind_of(pf, t, ptrack);
    if (parent == SLOG_NO_PARENT && sorts_after_processes(kind)) {
        t->sort_key += PF_SORT_AFTER_PROCESSES;
    }
    char fallback[48];
    (void)snprintf(fallback, sizeof fallback, "track %llx", (unsigned long long)t->uuid);
    slog_error werr;
    if (slog_writer_add_timeline(pf->w, parent, kind, t->name ? t->name : fallback, t->sort_key,
                                 &t->timeline, &werr) != SLOG_OK) {
        return pf_writer_failed(pf, &werr);
    }
    pf_count(pf, t->origin, 1);
    return PF_OK;
}

int pf_timeline(pf_importer *pf, uint32_t track, uint32_t *timeline)
{
    if (make_timeline(pf, track, 0) != PF_OK) {
        return PF_FATAL;
    }
    *timeline = pf->tracks[track].timeline;
    return PF_OK;
}

int pf_tracks_finish(pf_importer *pf)
{
    for (uint32_t i = 0; i < pf->ntracks; i++) {
        if (pf->tracks[i].described && pf->tracks[i].timeline == PF_NO_ID &&
            make_timeline(pf, i, 0) != PF_OK) {
            return PF_FATAL;
        }
    }
    return PF_OK;
}

int pf_category(pf_importer *pf, slog_kind kind, const char *name, const char *group,
                uint32_t *id)
{
    const size_t nl = strlen(name), gl = group ? strlen(group) : 0;
    char stack_key[256];
    char *key = nl + gl + 3 <= sizeof stack_key ? stack_key : malloc(nl + gl + 3);
    if (key == NULL) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (categories)");
    }
    key[0] = (char)('0' + (int)kind);
    memcpy(key + 1, name, nl);
    key[1 + nl] = '\x1f';
    if (gl > 0) {
        memcpy(key + 2 + nl, group, gl);
    }
    const size_t klen = nl + gl + 2;
    int rc = PF_OK;
    if (!pf_strmap_get(&pf->categories, key, klen, id)) {
        slog_error werr;
        if (slog_writer_add_category(pf->w, kind, name, 0, gl ? group : NULL, id, &werr) !=
            SLOG_OK) {
            rc = pf_writer_failed(pf, &werr);
        } else if (pf_strmap_put(&pf->categories, key, klen, *id) != 0) {
            rc = pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (categories)");
        }
    }
    if (key != stack_key) {
        free(key);
    }
    return rc;
}

void pf_tracks_free(pf_importer *pf)
{
    for (size_t i = 0; i < pf->ntracks; i++) {
        pf_track *t = &pf->tracks[i];
        for (uint32_t d = 0; d < t->depth; d++) {
            free(t->stack[d].args);
        }
        free(t->stack);
        free(t->name);
    }
    free(pf->tracks);
    pf_u64map_free(&pf->track_index);
    pf_strmap_free(&pf->synth_tracks);
    pf_strmap_free(&pf->categories);
}
