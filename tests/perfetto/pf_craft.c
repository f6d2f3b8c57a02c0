/* SPDX-License-Identifier: MIT
 *
 * pf_craft.c - the TracePacket builders of pf_craft.h (test-only).
 */
#include "pf_craft.h"

#include <stdint.h>

size_t pk_open(pbe *e, uint32_t seq, uint64_t ts)
{
    const size_t m = pbe_open(e, 1);
    if (seq != 0) {
        pbe_uint(e, PK_SEQ, seq);
    }
    if (ts != UINT64_MAX) {
        pbe_uint(e, PK_TIMESTAMP, ts);
    }
    return m;
}

void pk_track(pbe *e, uint64_t uuid, uint64_t parent, const char *name, int32_t pid,
              int32_t tid, int counter, int incremental)
{
    const size_t m = pk_open(e, 1, UINT64_MAX);
    const size_t d = pbe_open(e, PK_TRACK_DESCRIPTOR);
    pbe_uint(e, 1, uuid);
    if (parent != 0) {
        pbe_uint(e, 5, parent);
    }
    if (name != NULL) {
        pbe_string(e, 2, name);
    }
    if (pid != 0) {
        const size_t p = pbe_open(e, tid != 0 ? 4 : 3);
        pbe_int(e, 1, pid);
        if (tid != 0) {
            pbe_int(e, 2, tid);
        }
        pbe_close(e, p);
    }
    if (counter) {
        const size_t c = pbe_open(e, 8);
        if (incremental) {
            pbe_uint(e, 5, 1);
        }
        pbe_close(e, c);
    }
    pbe_close(e, d);
    pbe_close(e, m);
}

size_t te_open(pbe *e, int type, uint64_t track, const char *name)
{
    const size_t t = pbe_open(e, PK_TRACK_EVENT);
    if (type != 0) {
        pbe_uint(e, TE_TYPE, (uint64_t)type);
    }
    pbe_uint(e, TE_TRACK, track);
    if (name != NULL) {
        pbe_string(e, TE_NAME, name);
    }
    return t;
}

void pk_event(pbe *e, uint32_t seq, uint64_t ts, int type, uint64_t track, const char *name)
{
    const size_t m = pk_open(e, seq, ts);
    pbe_close(e, te_open(e, type, track, name));
    pbe_close(e, m);
}

void pk_interned(pbe *e, uint32_t table, uint64_t iid, const char *name)
{
    const size_t i = pbe_open(e, PK_INTERNED);
    const size_t t = pbe_open(e, table);
    pbe_uint(e, 1, iid);
    pbe_string(e, 2, name);
    pbe_close(e, t);
    pbe_close(e, i);
}

void pk_switch(pbe *e, uint32_t cpu, uint64_t ts, const char *prev, int32_t prev_pid,
               const char *next, int32_t next_pid)
{
    const size_t m = pk_open(e, 0, UINT64_MAX);
    const size_t b = pbe_open(e, PK_FTRACE);
    pbe_uint(e, 1, cpu);
    const size_t ev = pbe_open(e, 2);
    pbe_uint(e, 1, ts);
    pbe_uint(e, 2, (uint64_t)prev_pid);
    const size_t sw = pbe_open(e, 4);
    pbe_string(e, 1, prev);
    pbe_int(e, 2, prev_pid);
    pbe_int(e, 4, 1);
    pbe_string(e, 5, next);
    pbe_int(e, 6, next_pid);
    pbe_int(e, 7, 120);
    pbe_close(e, sw);
    pbe_close(e, ev);
    pbe_close(e, b);
    pbe_close(e, m);
}
