/* SPDX-License-Identifier: MIT
 *
 * pf_craft.h - builders of Perfetto TracePackets for the tests and the
 * benchmark, on top of the test encoder (pb_encode.h).  Field numbers are
 * the public protos' (perfetto/trace/trace_packet.proto, the track_event and
 * ftrace folders), written down here independently of the importer.
 * A packet is opened with pk_open (Trace field 1), filled with the pk_* and
 * te_* helpers, and closed with pbe_close.
 */
#ifndef PF_CRAFT_H
#define PF_CRAFT_H

#include "pb_encode.h"

/* TracePacket */
#define PK_FTRACE 1
#define PK_CLOCK_SNAPSHOT 6
#define PK_TIMESTAMP 8
#define PK_SEQ 10
#define PK_TRACK_EVENT 11
#define PK_INTERNED 12
#define PK_FLAGS 13
#define PK_CLEARED_BOOL 41
#define PK_DROPPED 42
#define PK_CLOCK_ID 58
#define PK_DEFAULTS 59
#define PK_TRACK_DESCRIPTOR 60
#define SEQ_CLEARED 1
#define SEQ_NEEDS 2
/* TrackEvent */
#define TE_CATEGORY_IIDS 3
#define TE_ANNOTATIONS 4
#define TE_LEGACY 6
#define TE_TYPE 9
#define TE_NAME_IID 10
#define TE_TRACK 11
#define TE_EXTRA_VALUES 12
#define TE_CATEGORIES 22
#define TE_NAME 23
#define TE_COUNTER 30
#define TE_EXTRA_UUIDS 31
#define TE_FLOW_OLD 36
#define TE_DOUBLE_COUNTER 44
#define TE_FLOW 47
#define TE_TERM_FLOW 48
#define T_BEGIN 1
#define T_END 2
#define T_INSTANT 3
#define T_COUNTER 4

/* Open a TracePacket on sequence seq (0: no sequence id) with timestamp ts
 * (UINT64_MAX: none); returns the mark for pbe_close. */
size_t pk_open(pbe *e, uint32_t seq, uint64_t ts);
/* A TrackDescriptor packet: uuid, parent (0: none), name (NULL: none),
 * thread pid/tid (tid 0: not a thread; pid only: a process), counter. */
void pk_track(pbe *e, uint64_t uuid, uint64_t parent, const char *name, int32_t pid,
              int32_t tid, int counter, int incremental);
/* A TrackEvent packet: type, track uuid, name (NULL: none); more fields can
 * be added with te_open/te_close around the caller's own. */
void pk_event(pbe *e, uint32_t seq, uint64_t ts, int type, uint64_t track, const char *name);
/* Open the TrackEvent of an open packet; returns its mark. */
size_t te_open(pbe *e, int type, uint64_t track, const char *name);
/* An interned entry {iid, name} into InternedData field `table` of an open packet. */
void pk_interned(pbe *e, uint32_t table, uint64_t iid, const char *name);
/* One sched_switch in an FtraceEventBundle packet on cpu. */
void pk_switch(pbe *e, uint32_t cpu, uint64_t ts, const char *prev, int32_t prev_pid,
               const char *next, int32_t next_pid);

#endif /* PF_CRAFT_H */
