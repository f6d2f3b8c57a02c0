/* SPDX-License-Identifier: MIT
 *
 * otf2_hostile.c - writes OTF2 archives that are legal to libotf2 but
 * hostile to an importer (issue 16 item 6), for tests/hostile/hostile.py:
 *   deep N       one location, N ENTERs, then N LEAVEs, then one more pair
 *                (a writer takes 100000 levels);
 *   absurd       counts and times that cannot be true: a location that says
 *                it holds 2^64-1 events, a 1 Hz clock whose trace length is
 *                2^64-1 ticks, events at 2^62 ticks and at 2^64-1 ticks
 *                (past int64 nanoseconds), between two good ones;
 *   locations N  N locations (threads of one process), one ENTER/LEAVE pair
 *                each.
 * Usage: otf2_hostile CASE DIR [N]; the archive is DIR/traces.otf2.
 * Test tool: libotf2 and libc only.
 */
#include <otf2/otf2.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { S_EMPTY, S_MAIN, S_HOST, S_NODE, S_RANK, S_THREAD, S_STRINGS };

static const char *const strings[S_STRINGS] = {"", "main", "host", "node", "rank 0", "thread"};

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    (void)ud, (void)ft, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)ud, (void)ft, (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_cb = {pre_flush, post_flush};

static int failed(const char *what, OTF2_ErrorCode rc)
{
    (void)fprintf(stderr, "otf2_hostile: %s: %s\n", what, OTF2_Error_GetName(rc));
    return 1;
}

#define TRY(call) \
    do { \
        const OTF2_ErrorCode rc_ = (call); \
        if (rc_ != OTF2_SUCCESS) { \
            return failed(#call, rc_); \
        } \
    } while (0)

/* The events of location @p loc for @p kase. */
static int write_events(OTF2_EvtWriter *w, const char *kase, uint64_t n, uint64_t loc)
{
    if (strcmp(kase, "deep") == 0) {
        for (uint64_t i = 0; i < n; i++) {
            TRY(OTF2_EvtWriter_Enter(w, NULL, 1 + i, 0));
        }
        for (uint64_t i = 0; i < n; i++) {
            TRY(OTF2_EvtWriter_Leave(w, NULL, 1 + n + i, 0));
        }
        TRY(OTF2_EvtWriter_Enter(w, NULL, 2 * n + 1, 0));
        TRY(OTF2_EvtWriter_Leave(w, NULL, 2 * n + 2, 0));
        return 0;
    }
    if (strcmp(kase, "absurd") == 0) {
        const uint64_t times[] = {1, 2, (uint64_t)1 << 62, ((uint64_t)1 << 62) + 1, UINT64_MAX - 1,
                                  UINT64_MAX};
        for (size_t i = 0; i < sizeof times / sizeof *times; i += 2) {
            TRY(OTF2_EvtWriter_Enter(w, NULL, times[i], 0));
            TRY(OTF2_EvtWriter_Leave(w, NULL, times[i + 1], 0));
        }
        return 0;
    }
    TRY(OTF2_EvtWriter_Enter(w, NULL, 10 + loc, 0));
    TRY(OTF2_EvtWriter_Leave(w, NULL, 20 + loc, 0));
    return 0;
}

static int write_defs(OTF2_Archive *a, const char *kase, uint64_t nloc, uint64_t events)
{
    OTF2_GlobalDefWriter *const g = OTF2_Archive_GetGlobalDefWriter(a);
    if (g == NULL) {
        return failed("OTF2_Archive_GetGlobalDefWriter", OTF2_ERROR_INVALID);
    }
    const int absurd = strcmp(kase, "absurd") == 0;
    TRY(OTF2_GlobalDefWriter_WriteClockProperties(g, absurd ? 1 : 1000000000u, 0,
                                                  absurd ? UINT64_MAX : 4 * events + 100, 0));
    for (uint32_t s = 0; s < S_STRINGS; s++) {
        TRY(OTF2_GlobalDefWriter_WriteString(g, s, strings[s]));
    }
    TRY(OTF2_GlobalDefWriter_WriteRegion(g, 0, S_MAIN, S_MAIN, S_EMPTY, OTF2_REGION_ROLE_FUNCTION,
                                         OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0));
    TRY(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, S_HOST, S_NODE,
                                                 OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    TRY(OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, S_RANK, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP));
    for (uint64_t l = 0; l < nloc; l++) {
        TRY(OTF2_GlobalDefWriter_WriteLocation(g, l, S_THREAD, OTF2_LOCATION_TYPE_CPU_THREAD,
                                               absurd ? UINT64_MAX : events, 0));
    }
    return 0;
}

static uint64_t events_per_location(const char *kase, uint64_t n)
{
    return strcmp(kase, "deep") == 0 ? 2 * n + 2 : strcmp(kase, "absurd") == 0 ? 6 : 2;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "deep") != 0 && strcmp(argv[1], "absurd") != 0 &&
                     strcmp(argv[1], "locations") != 0)) {
        (void)fprintf(stderr, "usage: otf2_hostile deep|absurd|locations DIR [N]\n");
        return 2;
    }
    const char *const kase = argv[1];
    const uint64_t n = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    const uint64_t nloc = strcmp(kase, "locations") == 0 ? n : 1;
    OTF2_Archive *const a = OTF2_Archive_Open(argv[2], "traces", OTF2_FILEMODE_WRITE, 1 << 20,
                                              4 << 20, OTF2_SUBSTRATE_POSIX,
                                              OTF2_COMPRESSION_NONE);
    if (a == NULL) {
        (void)fprintf(stderr, "otf2_hostile: cannot create an archive in %s\n", argv[2]);
        return 1;
    }
    int bad = OTF2_Archive_SetFlushCallbacks(a, &flush_cb, NULL) != OTF2_SUCCESS ||
              OTF2_Archive_SetSerialCollectiveCallbacks(a) != OTF2_SUCCESS ||
              OTF2_Archive_OpenEvtFiles(a) != OTF2_SUCCESS;
    for (uint64_t l = 0; l < nloc && !bad; l++) {
        OTF2_EvtWriter *const w = OTF2_Archive_GetEvtWriter(a, l);
        bad = w == NULL || write_events(w, kase, n, l) != 0 ||
              OTF2_Archive_CloseEvtWriter(a, w) != OTF2_SUCCESS;
    }
    bad = bad || OTF2_Archive_CloseEvtFiles(a) != OTF2_SUCCESS ||
          write_defs(a, kase, nloc, events_per_location(kase, n)) != 0;
    if (OTF2_Archive_Close(a) != OTF2_SUCCESS || bad) {
        (void)fprintf(stderr, "otf2_hostile: writing the %s archive failed\n", kase);
        return 1;
    }
    return 0;
}
