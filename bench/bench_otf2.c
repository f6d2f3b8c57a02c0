/* SPDX-License-Identifier: MIT
 *
 * bench_otf2.c - OTF2 writer and index-less window scan for the
 * benchmarks.  The writer follows OTF2's documented serial recipe (flush
 * callbacks, serial collectives, event files, empty local definitions,
 * global definitions with per-location event counts).  The scan uses the
 * global event reader (events of all locations merged by time) and keeps
 * one stack of open Enter times per location.
 */
#include "bench_otf2.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    (void)user;
    (void)type;
    (void)loc;
    (void)caller;
    (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)user;
    (void)type;
    (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

#define BLOCK 65536

static int write_defs(OTF2_Archive *ar, uint32_t timelines, uint32_t categories,
                      const uint64_t *nevents, uint64_t last_time)
{
    if (OTF2_Archive_OpenDefFiles(ar) != OTF2_SUCCESS) {
        return -1;
    }
    for (uint32_t l = 0; l < timelines; l++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, l);
        OTF2_Archive_CloseDefWriter(ar, dw);
    }
    OTF2_Archive_CloseDefFiles(ar);
    OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(ar);
    if (!gw) {
        return -1;
    }
    OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000u, 0, last_time + 1,
                                              OTF2_UNDEFINED_TIMESTAMP);
    uint32_t s = 0;
    char name[64];
    OTF2_GlobalDefWriter_WriteString(gw, s++, "");
    OTF2_GlobalDefWriter_WriteString(gw, s++, "node");
    OTF2_GlobalDefWriter_WriteString(gw, s++, "process 0");
    const uint32_t first_cat = s;
    for (uint32_t c = 0; c < categories; c++) {
        snprintf(name, sizeof name, "c%u", c);
        OTF2_GlobalDefWriter_WriteString(gw, s++, name);
    }
    const uint32_t first_tl = s;
    for (uint32_t l = 0; l < timelines; l++) {
        snprintf(name, sizeof name, "t%u", l);
        OTF2_GlobalDefWriter_WriteString(gw, s++, name);
    }
    for (uint32_t c = 0; c < categories; c++) {
        OTF2_GlobalDefWriter_WriteRegion(gw, c, first_cat + c, first_cat + c, 0,
                                         OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                         OTF2_REGION_FLAG_NONE, 0, 0, 0);
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 1, 1, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, 2, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    for (uint32_t l = 0; l < timelines; l++) {
        OTF2_GlobalDefWriter_WriteLocation(gw, l, first_tl + l, OTF2_LOCATION_TYPE_CPU_THREAD,
                                           nevents[l], 0);
    }
    return 0;
}

int bench_otf2_write(const char *dir, uint64_t states, uint32_t timelines, uint32_t categories,
                     uint64_t seed, bench_timer *timer, uint64_t *written)
{
    bgen g;
    bgen_op *ops = malloc(BLOCK * sizeof *ops);
    OTF2_EvtWriter **ew = calloc(timelines, sizeof *ew);
    uint64_t *nev = calloc(timelines, sizeof *nev);
    if (!ops || !ew || !nev || bgen_init(&g, states, timelines, categories, seed) != 0) {
        free(ops);
        free(ew);
        free(nev);
        return -1;
    }
    bench_timer_start(timer);
    int rc = -1;
    int64_t last = 0;
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "trace", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                         4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    if (!ar) {
        bench_timer_stop(timer);
        goto out;
    }
    OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    if (OTF2_Archive_OpenEvtFiles(ar) != OTF2_SUCCESS) {
        goto close;
    }
    for (uint32_t l = 0; l < timelines; l++) {
        ew[l] = OTF2_Archive_GetEvtWriter(ar, l);
        if (!ew[l]) {
            goto close;
        }
    }
    bench_timer_stop(timer);
    size_t n;
    while ((n = bgen_fill(&g, ops, BLOCK)) > 0) {
        bench_timer_start(timer);
        for (size_t i = 0; i < n; i++) {
            const bgen_op *op = &ops[i];
            if (op->leave) {
                OTF2_EvtWriter_Leave(ew[op->tl], NULL, (OTF2_TimeStamp)op->time, op->cat);
            } else {
                OTF2_EvtWriter_Enter(ew[op->tl], NULL, (OTF2_TimeStamp)op->time, op->cat);
            }
        }
        bench_timer_stop(timer);
        last = ops[n - 1].time;
    }
    bench_timer_start(timer);
    for (uint32_t l = 0; l < timelines; l++) {
        OTF2_EvtWriter_GetNumberOfEvents(ew[l], &nev[l]);
        OTF2_Archive_CloseEvtWriter(ar, ew[l]);
    }
    OTF2_Archive_CloseEvtFiles(ar);
    rc = write_defs(ar, timelines, categories, nev, (uint64_t)last);
close:
    if (OTF2_Archive_Close(ar) != OTF2_SUCCESS) {
        rc = -1;
    }
    bench_timer_stop(timer);
    *written = g.states;
out:
    bgen_free(&g);
    free(ops);
    free(ew);
    free(nev);
    return rc;
}

/* ---- calling-thread cost (bench_thread) ------------------------------------ */

static double thread_cpu_secs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int bench_otf2_pairs(const char *dir, uint64_t pairs, double *secs, double *cpu)
{
    const uint64_t nev = 2 * pairs;
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "trace", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                         4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    if (!ar) {
        return -1;
    }
    int rc = -1;
    OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_EvtWriter *ew = NULL;
    if (OTF2_Archive_OpenEvtFiles(ar) == OTF2_SUCCESS) {
        ew = OTF2_Archive_GetEvtWriter(ar, 0);
    }
    if (ew != NULL) {
        const double t0 = bench_now(), c0 = thread_cpu_secs();
        for (uint64_t i = 0; i < pairs; i++) {
            OTF2_EvtWriter_Enter(ew, NULL, (OTF2_TimeStamp)(2 * i), (OTF2_RegionRef)(i & 7));
            OTF2_EvtWriter_Leave(ew, NULL, (OTF2_TimeStamp)(2 * i + 1), (OTF2_RegionRef)(i & 7));
        }
        *secs = bench_now() - t0;
        *cpu = thread_cpu_secs() - c0;
        OTF2_Archive_CloseEvtWriter(ar, ew);
        OTF2_Archive_CloseEvtFiles(ar);
        rc = write_defs(ar, 1, 8, &nev, 2 * pairs);
    }
    if (OTF2_Archive_Close(ar) != OTF2_SUCCESS) {
        rc = -1;
    }
    return rc;
}

/* ---- window scan -------------------------------------------------------------- */

typedef struct scan {
    int64_t t0, t1;
    int stop;
    uint64_t nloc;
    uint64_t *locs;
    uint32_t *depth;     /* per location */
    int64_t *starts;     /* nloc x 64 */
    uint64_t states, events;
    int stopped;
} scan;

static OTF2_CallbackCode def_location(void *user, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t nevents,
                                      OTF2_LocationGroupRef group)
{
    (void)name;
    (void)type;
    (void)nevents;
    (void)group;
    scan *s = user;
    uint64_t *l = realloc(s->locs, (s->nloc + 1) * sizeof *l);
    if (!l) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    s->locs = l;
    s->locs[s->nloc++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef loc, OTF2_TimeStamp time, void *user,
                                  OTF2_AttributeList *attrs, OTF2_RegionRef region)
{
    (void)attrs;
    (void)region;
    scan *s = user;
    s->events++;
    if (s->stop && (int64_t)time >= s->t1) {
        s->stopped = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    uint32_t *d = &s->depth[loc];
    if (*d < 64) {
        s->starts[loc * 64 + *d] = (int64_t)time;
    }
    (*d)++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef loc, OTF2_TimeStamp time, void *user,
                                  OTF2_AttributeList *attrs, OTF2_RegionRef region)
{
    (void)attrs;
    (void)region;
    scan *s = user;
    s->events++;
    if (s->stop && (int64_t)time >= s->t1) {
        s->stopped = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    uint32_t *d = &s->depth[loc];
    if (*d == 0) {
        return OTF2_CALLBACK_SUCCESS;
    }
    (*d)--;
    const int64_t start = *d < 64 ? s->starts[loc * 64 + *d] : INT64_MIN;
    const int64_t end = (int64_t)time;
    const int overlaps = start == end ? (s->t0 <= start && start < s->t1)
                                      : (start < s->t1 && end > s->t0);
    s->states += (uint64_t)overlaps;
    return OTF2_CALLBACK_SUCCESS;
}

int bench_otf2_window(const char *dir, int64_t t0, int64_t t1, int stop_at_t1,
                      uint64_t *states, uint64_t *events_read)
{
    char anchor[1024];
    snprintf(anchor, sizeof anchor, "%s/trace.otf2", dir);
    scan s;
    memset(&s, 0, sizeof s);
    s.t0 = t0;
    s.t1 = t1;
    s.stop = stop_at_t1;
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd) {
        return -1;
    }
    int rc = -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, def_location);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, &s);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    uint64_t ndefs = 0;
    OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &ndefs);
    uint64_t maxloc = 0;
    for (uint64_t i = 0; i < s.nloc; i++) {
        OTF2_Reader_SelectLocation(rd, s.locs[i]);
        maxloc = s.locs[i] > maxloc ? s.locs[i] : maxloc;
    }
    s.depth = calloc(maxloc + 1, sizeof *s.depth);
    s.starts = calloc((maxloc + 1) * 64, sizeof *s.starts);
    if (!s.depth || !s.starts) {
        goto out;
    }
    const bool defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(rd);
    for (uint64_t i = 0; i < s.nloc; i++) {
        if (defs) {
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, s.locs[i]);
            if (dr) {
                uint64_t n = 0;
                OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
                OTF2_Reader_CloseDefReader(rd, dr);
            }
        }
        OTF2_Reader_GetEvtReader(rd, s.locs[i]);
    }
    if (defs) {
        OTF2_Reader_CloseDefFiles(rd);
    }
    OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader(rd);
    OTF2_GlobalEvtReaderCallbacks *ecb = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ecb, on_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ecb, on_leave);
    OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, ecb, &s);
    OTF2_GlobalEvtReaderCallbacks_Delete(ecb);
    uint64_t nread = 0;
    const OTF2_ErrorCode e = OTF2_Reader_ReadAllGlobalEvents(rd, ger, &nread);
    if (e == OTF2_SUCCESS || (s.stopped && e == OTF2_ERROR_INTERRUPTED_BY_CALLBACK)) {
        rc = 0;
    }
    if (s.stopped) { /* states still open at t1 started before it and overlap */
        for (uint64_t l = 0; l <= maxloc; l++) {
            s.states += s.depth[l];
        }
    }
    OTF2_Reader_CloseGlobalEvtReader(rd, ger);
    OTF2_Reader_CloseEvtFiles(rd);
out:
    OTF2_Reader_Close(rd);
    *states = s.states;
    *events_read = s.events;
    free(s.locs);
    free(s.depth);
    free(s.starts);
    return rc;
}
