/* SPDX-License-Identifier: MIT
 *
 * perfetto.h - the state shared by the files of the Perfetto importer and
 * the functions between them.  One pf_importer converts one Trace (a stream
 * of TracePacket fields) through the public writer API:
 *
 *   perfetto_stream.c   Trace framing: packets out of the byte stream, resync
 *   perfetto_packet.c   one TracePacket: sequence flags, defaults, dispatch
 *   perfetto_intern.c   per-sequence interning tables (InternedData)
 *   perfetto_clock.c    ClockSnapshot and timestamp conversion to BOOTTIME ns
 *   perfetto_tracks.c   TrackDescriptor and synthetic tracks -> timelines
 *   perfetto_args.c     DebugAnnotation -> args
 *   perfetto_events.c   typed TrackEvent: slices, instants, counters
 *   perfetto_legacy.c   Chrome legacy events (phases) and async matching
 *   perfetto_flows.c    flow ids (v2) and bind ids (v1) -> arrows
 *   perfetto_ftrace.c   ftrace bundles, sched_switch, compact_sched
 *   perfetto_counts.c   what happened to each kind of record (the summary)
 *
 * Status of internal calls: PF_OK, PF_DAMAGED (this record is skipped and
 * counted; the import goes on) or PF_FATAL (the writer failed or memory ran
 * out; pf->err says why and the import stops).
 * Import library, perfetto folder: public libslog headers, libc.
 */
#ifndef PERFETTO_H
#define PERFETTO_H

#include <slog/slog.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_wire.h"
#include "perfetto_import.h"
#include "pf_table.h"

#define PF_OK 0
#define PF_DAMAGED 1
#define PF_FATAL (-1)

#define PF_NO_ID UINT32_MAX
#define PF_SEQ_CLOCKS 64u /* sequence-scoped clock ids 64..127 */
/* Sort key base of root rows that are not processes (global and orphan
 * tracks): above every pid, so the processes come first. */
#define PF_SORT_AFTER_PROCESSES ((int64_t)1 << 40)

/* Fixed summary rows (perfetto_counts.c has their text and outcome). */
typedef enum pf_kcount {
    K_PACKETS, K_SEQUENCES, K_PACKET_DAMAGED, K_PACKET_TRUNCATED, K_RESYNC_BYTES,
    K_TRACE_FIELD, K_NEEDS_STATE_DROPPED, K_INTERNED_PACKETS,
    K_FLAG_CLEARED, K_FLAG_NEEDS, K_FLAG_CLEARED_BOOL, K_FLAG_DROPPED, K_FLAG_FIRST,
    K_TS_NO_SNAPSHOT, K_TS_NONE,
    K_TD_PROCESS, K_TD_THREAD, K_TD_COUNTER, K_TD_OTHER, K_TD_REPEAT,
    K_TL_DESCRIBED, K_TL_PID, K_TL_THREAD, K_TL_SEQ, K_TL_GLOBAL, K_TL_UNDESCRIBED, K_TL_ASYNC, K_TL_CPU,
    K_TL_LCOUNTER, K_TL_GPU,
    K_TE_BEGIN, K_TE_END, K_TE_INSTANT, K_TE_COUNTER, K_TE_UNSPEC, K_TE_NOTYPE,
    K_NAME_IID, K_NAME_IID_UNRESOLVED,
    K_SLICE, K_SLICE_STRAY_END, K_SLICE_OPEN, K_SLICE_BACKWARDS, K_TOO_DEEP,
    K_INSTANT, K_COUNTER, K_COUNTER_NOT_COUNTER_TRACK, K_EXTRA_COUNTER, K_EXTRA_COUNTER_NOUUID,
    K_ARGS, K_ARGS_BAD,
    K_FLOW_REF, K_FLOW_OLD_REF, K_FLOW_TERM_REF, K_FLOW_ARROW, K_FLOW_REVERSED,
    K_FLOW_TERM_STRAY,
    K_BIND_IDS, K_BIND_DISTINCT, K_BIND_ARROW, K_BIND_STRAY_IN,
    K_L_X, K_L_BE, K_L_E_STRAY, K_L_B_OPEN, K_L_INSTANT, K_L_ASYNC_INSTANT, K_L_ASYNC,
    K_L_ASYNC_STRAY, K_L_ASYNC_OPEN, K_L_ASYNC_IDS, K_L_COUNTER, K_L_META, K_L_CONTEXT,
    K_L_OTHER,
    K_FTRACE_EVENTS, K_FTRACE_LOST, K_SWITCH, K_SWITCH_STATE, K_SWITCH_IDLE, K_SWITCH_OPEN,
    K_SWITCH_BACKWARDS, K_COMPACT_SWITCH, K_COMPACT_WAKING, K_COMPACT_BAD,
    K_GPU_VALUES, K_GPU_SPECS,
    K_COUNT
} pf_kcount;

/* Per-sequence state (trusted_packet_sequence_id). */
typedef struct pf_seq_clock {
    bool known;
    bool incremental;
    int64_t ref_value; /* clock value at the snapshot, clock units */
    int64_t ref_ns;    /* BOOTTIME at the snapshot */
    int64_t last;      /* incremental clocks: the running value */
    int64_t mult;      /* ns per unit */
} pf_seq_clock;

typedef struct pf_seq {
    uint32_t id;
    bool state_valid;                  /* a clear was seen and no loss since */
    pf_u64map names, cats, ann_names, ann_strings; /* iid -> index in strs */
    pf_strvec strs;                    /* the interned strings ... */
    pf_arena text;                     /* ... and their bytes */
    bool has_default_clock;
    uint32_t default_clock;
    bool has_default_track;
    uint64_t default_track;
    uint64_t *extra_uuids;             /* default extra_counter_track_uuids */
    size_t n_extra, cap_extra;
    uint64_t *extra_double_uuids;
    size_t n_extra_double, cap_extra_double;
    pf_seq_clock clocks[PF_SEQ_CLOCKS];
    uint32_t thread_track;             /* legacy ThreadDescriptor track, PF_NO_ID */
    int64_t legacy_ts_us;              /* TrackEvent.timestamp_delta_us base */
} pf_seq;

/* An open slice (begin seen, end not yet). */
typedef struct pf_open {
    int64_t start;
    uint32_t category;
    uint32_t nargs;
    slog_arg *args; /* one malloc block with its strings */
} pf_open;

typedef enum pf_track_kind {
    PF_TRACK_OTHER = 0, PF_TRACK_PROCESS, PF_TRACK_THREAD, PF_TRACK_COUNTER
} pf_track_kind;

typedef struct pf_track {
    uint64_t uuid;
    uint64_t parent_uuid;
    bool has_parent;
    bool described;        /* from a TrackDescriptor */
    bool creating;         /* its timeline is being made (cycle guard) */
    pf_track_kind kind;
    slog_timeline_kind tl_kind; /* for synthetic tracks */
    int32_t pid, tid;
    char *name;            /* malloc'd, NULL if none */
    bool provisional_name; /* "track HEX": the first slice drawn on it names it */
    uint32_t timeline;     /* PF_NO_ID until created */
    uint32_t parent_track; /* synthetic parent, PF_NO_ID */
    int64_t sort_key;
    pf_kcount origin;      /* summary row counting its timeline */
    bool counter_incremental;
    int64_t counter_mult;
    double counter_last;
    uint32_t counter_seq;  /* sequence whose clear resets counter_last */
    uint32_t counter_category; /* PF_NO_ID until first sample */
    pf_open *stack;
    uint32_t depth, cap;
    uint64_t deep; /* slices skipped past SLOG_MAX_DEPTH: the next ENDs are theirs */
} pf_track;

/* A Chrome legacy async begin or end, held until the end (matched in
 * timestamp order). */
typedef struct pf_async {
    int64_t ts;
    uint64_t order;
    uint32_t key;      /* index into legacy async keys */
    bool begin;
    uint32_t category;
    uint32_t nargs;
    slog_arg *args;
    uint32_t next;     /* matching: the begin below this one on its key */
} pf_async;

typedef struct pf_async_key {
    uint32_t track;    /* the async track (timeline made on first use) */
    uint32_t open;     /* matching: top of the stack of open begins */
    uint32_t depth;    /* matching: how many are open */
    bool spans;        /* a begin or end was held for it */
    bool named;        /* named by a begin */
} pf_async_key;

typedef struct pf_cpu {
    bool running;
    int32_t pid;
    int32_t prio;
    int64_t since;
    char *comm;        /* malloc'd */
    uint32_t track;
} pf_cpu;

/* A flow endpoint waiting for its next event. */
typedef struct pf_flow_end {
    uint32_t timeline;
    int64_t ts;
} pf_flow_end;

/* A legacy bind_id reference, held until the end. */
typedef struct pf_bind {
    int64_t ts;
    size_t order;
    uint64_t id;
    uint32_t timeline;
    int dir;
} pf_bind;

/* Growable vector of u64 (scratch lists reused across packets). */
typedef struct pf_vec {
    uint64_t *v;
    size_t n, cap;
} pf_vec;

typedef struct pf_importer {
    slog_writer *w;
    pf_hooks hooks;
    slog_error *err;
    uint64_t counts[K_COUNT];
    uint64_t packet_kind[1025];   /* by TracePacket field number; 1024 = above */
    uint64_t ftrace_kind[1025];   /* by FtraceEvent field number */
    uint64_t legacy_phase[256];
    uint64_t packet_offset;       /* file offset of the packet being decoded */
    uint64_t first_damage;        /* offset of the first broken framing or cut packet */
    uint64_t order;               /* packets decoded so far */
    int64_t t_min, t_max;         /* timestamps seen (ns) */
    bool any_time;
    pf_seq *seqs;
    size_t nseqs, capseqs;
    pf_u64map seq_index;          /* sequence id -> index */
    pf_track *tracks;
    size_t ntracks, captracks;
    pf_u64map track_index;        /* described uuid -> track index */
    pf_strmap synth_tracks;       /* "pid:N" ... -> track index */
    pf_strmap categories;         /* kind|name|group -> category id */
    int64_t global_offset[64];    /* BOOTTIME - clock, ns, per global clock */
    bool global_known[64];
    pf_arena scratch;             /* per packet */
    slog_arg *args;               /* per packet args being built */
    uint32_t nargs, capargs;
    pf_u64map flows;              /* v2 flow id -> index in flow_ends */
    pf_u64map binds;              /* v1 bind id -> index in flow_ends */
    pf_flow_end *flow_ends;
    pf_bind *bind_refs;
    size_t nbind_refs, capbind_refs;
    size_t nflow_ends, capflow_ends;
    pf_async *asyncs;
    size_t nasyncs, capasyncs;
    pf_async_key *async_keys;
    size_t nasync_keys, capasync_keys;
    pf_strmap async_index;
    pf_cpu *cpus;
    uint32_t ncpus;
    uint32_t cpu_root;            /* track index of the "CPUs" group, PF_NO_ID */
    uint32_t gpu_track;           /* PF_NO_ID */
    pf_u64map gpu_names;          /* gpu counter id -> index in gpu_strs */
    pf_strvec gpu_strs;           /* names in names_arena */
    pf_vec rep[10];               /* repeated TrackEvent fields of the event (perfetto_te.h) */
    pf_arena names_arena;         /* names kept for the whole import */
} pf_importer;

/* perfetto_counts.c */
void pf_count(pf_importer *pf, pf_kcount k, uint64_t n);
void pf_report(pf_importer *pf);
void pf_warn(pf_importer *pf, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int pf_fail(pf_importer *pf, int code, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int pf_writer_failed(pf_importer *pf, const slog_error *werr);
const char *pf_packet_field_name(uint32_t num);
const char *pf_ftrace_field_name(uint32_t num);

/* perfetto_stream.c */
int pf_stream_run(pf_importer *pf, pf_read_fn read, void *user);

/* perfetto_packet.c */
int pf_packet(pf_importer *pf, const uint8_t *data, size_t len, uint64_t offset);
bool pf_packet_plausible(const uint8_t *data, size_t len);
void pf_note_time(pf_importer *pf, int64_t ns);

/* perfetto_intern.c */
pf_seq *pf_seq_get(pf_importer *pf, uint32_t id);
void pf_seq_clear(pf_seq *s);
void pf_seq_free(pf_seq *s);
int pf_interned_data(pf_importer *pf, pf_seq *s, pb_reader *r, const pb_field *f);
const char *pf_intern_lookup(const pf_seq *s, const pf_u64map *m, uint64_t iid);
int pf_defaults(pf_importer *pf, pf_seq *s, pb_reader *r, const pb_field *f);

/* perfetto_clock.c */
int pf_clock_snapshot(pf_importer *pf, pf_seq *s, pb_reader *r, const pb_field *f);
int64_t pf_clock_to_ns(pf_importer *pf, pf_seq *s, uint32_t clock, uint64_t raw);

/* perfetto_tracks.c */
int pf_track_descriptor(pf_importer *pf, pb_reader *r, const pb_field *f);
int pf_thread_descriptor(pf_importer *pf, pf_seq *s, pb_reader *r, const pb_field *f);
int pf_track_by_uuid(pf_importer *pf, uint64_t uuid, uint32_t *track);
int pf_track_rename(pf_importer *pf, uint32_t track, const char *name);
int pf_track_name_from_slice(pf_importer *pf, uint32_t track, const char *name,
                             const char *group);
int pf_track_adopt_pid(pf_importer *pf, uint32_t track, int32_t pid);
/* A track the trace does not describe, found by key ("pid:7", "cpu:2"...). */
typedef struct pf_synth {
    const char *key;
    slog_timeline_kind kind;
    const char *name;
    uint32_t parent;   /* parent track, PF_NO_ID for the root */
    pf_kcount origin;  /* summary row of its timeline */
} pf_synth;
int pf_track_synthetic(pf_importer *pf, const pf_synth *sy, uint32_t *track);
int pf_track_process(pf_importer *pf, int32_t pid, uint32_t *track);
int pf_track_thread(pf_importer *pf, int32_t pid, int32_t tid, uint32_t *track);
int pf_timeline(pf_importer *pf, uint32_t track, uint32_t *timeline);
int pf_tracks_finish(pf_importer *pf);
int pf_category(pf_importer *pf, slog_kind kind, const char *name, const char *group,
                uint32_t *id);
void pf_tracks_free(pf_importer *pf);

/* perfetto_args.c */
void pf_args_reset(pf_importer *pf);
int pf_args_add(pf_importer *pf, pf_seq *s, pb_reader *r, const pb_field *f);
int pf_args_copy(const slog_arg *args, uint32_t n, slog_arg **out);

/* perfetto_events.c */
int pf_track_event(pf_importer *pf, pf_seq *s, pb_reader *r, const pb_field *f, int64_t ts,
                   bool has_ts);
int pf_slice_push(pf_importer *pf, uint32_t track, int64_t ts, uint32_t category);
int pf_slice_pop(pf_importer *pf, uint32_t track, int64_t ts, bool *stray);
int pf_emit_event(pf_importer *pf, uint32_t track, uint32_t category, int64_t ts);
int pf_counter_sample(pf_importer *pf, uint32_t track, const char *name, int64_t ts,
                      double value);
int pf_events_finish(pf_importer *pf);
int pf_close_open(pf_importer *pf, const slog_state *st);

/* perfetto_legacy.c */
typedef struct pf_te pf_te;
int pf_legacy_event(pf_importer *pf, pf_seq *s, const pf_te *te, uint32_t track, int64_t ts);
int pf_legacy_flow(pf_importer *pf, const pf_te *te, uint32_t track, int64_t ts);
int pf_legacy_finish(pf_importer *pf);
void pf_legacy_free(pf_importer *pf);

/* perfetto_flows.c */
int pf_flow_ref(pf_importer *pf, uint64_t id, bool terminating, uint32_t timeline, int64_t ts);
int pf_bind_ref(pf_importer *pf, uint64_t id, int direction, uint32_t timeline, int64_t ts);
int pf_flows_finish(pf_importer *pf);
void pf_flows_free(pf_importer *pf);

/* perfetto_ftrace.c */
int pf_ftrace_bundle(pf_importer *pf, pb_reader *r, const pb_field *f);
int pf_ftrace_finish(pf_importer *pf);
void pf_ftrace_free(pf_importer *pf);
int pf_gpu_counters(pf_importer *pf, pb_reader *r, const pb_field *f, int64_t ts);

/* vectors */
int pf_vec_push(pf_vec *v, uint64_t x);

#endif /* PERFETTO_H */
