/* SPDX-License-Identifier: MIT
 *
 * otf2_defs.h - the OTF2 global definitions an import needs, kept in
 * tables keyed by OTF2 id: strings, clock, system tree, location groups,
 * locations, regions, groups, communicators, metrics, attributes,
 * parameters and calling contexts.  Definitions are collected first and
 * checked afterwards (otf2_defs_check), so an archive may define a thing
 * after the thing that refers to it; a reference to something never
 * defined is an error naming the definition.  Only built with OTF2.
 */
#ifndef SLOG_IMPORT_OTF2_DEFS_H
#define SLOG_IMPORT_OTF2_DEFS_H

#include <otf2/otf2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slog/slog_common.h>

#define OTF2_NO_INDEX UINT32_MAX

/* Open-addressing map from a 64-bit OTF2 id to a dense table index.
 * Writers usually number definitions 0, 1, 2, ... in the order they write
 * them, so ids below `dense` map to themselves and are answered without a
 * hash probe (every entry is in the hash table as well). */
typedef struct otf2_idmap {
    uint64_t *keys;
    uint32_t *vals; /* OTF2_NO_INDEX marks an empty slot */
    size_t cap;     /* power of two, or 0 */
    size_t count;
    size_t dense; /* keys 0 .. dense-1 are present, each mapped to itself */
} otf2_idmap;

uint32_t otf2_idmap_get(const otf2_idmap *m, uint64_t key);
int otf2_idmap_put(otf2_idmap *m, uint64_t key, uint32_t val);
void otf2_idmap_free(otf2_idmap *m);

typedef struct otf2_def_stn {
    uint64_t id;
    OTF2_StringRef name, class_name;
    uint64_t parent;  /* OTF2_UNDEFINED_SYSTEM_TREE_NODE for a root */
    uint32_t domains; /* bit mask of (1u << OTF2_SystemTreeDomain) */
    uint32_t timeline;
    uint8_t visit; /* 0 new, 1 in progress, 2 done (cycle check) */
} otf2_def_stn;

typedef struct otf2_def_lgroup {
    uint64_t id;
    OTF2_StringRef name;
    OTF2_LocationGroupType type;
    uint64_t stn; /* OTF2_UNDEFINED_SYSTEM_TREE_NODE if none */
    bool mpi;     /* holds a member of an MPI COMM_LOCATIONS group */
    uint32_t timeline;
} otf2_def_lgroup;

/* A growable list of args. */
typedef struct otf2_args {
    slog_arg *v;
    uint32_t n, cap;
} otf2_args;

/* One open Enter (or collective, or calling context) on a location. */
typedef struct otf2_frame {
    uint32_t category; /* OTF2_NO_INDEX while a collective waits for its End */
    uint64_t region;   /* OTF2 region id, UINT64_MAX for a collective */
    int64_t start;     /* ns */
    bool event;        /* an event written by slog's exporter (see IMPORT-OTF2.md) */
    otf2_args args;
} otf2_frame;

typedef struct otf2_def_loc {
    uint64_t id;
    OTF2_StringRef name;
    OTF2_LocationType type;
    uint64_t events; /* number of events the definition announces */
    uint64_t group;
    uint32_t group_index;
    uint32_t timeline;
    /* Event state, filled while reading events. */
    otf2_frame *stack;
    uint32_t depth, cap_stack;
    uint64_t deep; /* ENTERs skipped past SLOG_MAX_DEPTH: the next LEAVEs are theirs */
    int64_t last_time; /* ns of the last event seen on this location */
    uint64_t seen;     /* events seen */
} otf2_def_loc;

typedef struct otf2_def_region {
    uint64_t id;
    OTF2_StringRef name, description;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
    bool event;        /* described "slog:event:...": Enter+Leave is one event */
    uint32_t category; /* created on first use */
} otf2_def_region;

typedef struct otf2_def_group {
    uint64_t id;
    OTF2_StringRef name;
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    uint32_t nmembers;
    uint64_t *members;
} otf2_def_group;

typedef struct otf2_def_comm {
    uint64_t id;
    OTF2_StringRef name;
    uint64_t group;   /* intra-communicator: its group */
    uint64_t group_b; /* inter-communicator: the second group, else UINT64_MAX */
} otf2_def_comm;

typedef struct otf2_def_member {
    uint64_t id;
    OTF2_StringRef name, unit, description;
    OTF2_MetricMode mode;
    uint32_t category; /* created on first use */
} otf2_def_member;

/* Metric classes and instances share one id space. */
typedef struct otf2_def_metric {
    uint64_t id;
    bool instance;
    uint64_t class_id;           /* instance: its class */
    uint64_t recorder;           /* instance: recording location */
    OTF2_MetricScope scope_kind; /* instance: what it measures */
    uint64_t scope;
    bool shared;       /* instance: its recorder records the class for other scopes too */
    uint8_t nmembers;  /* class */
    uint64_t *members; /* class: member ids */
} otf2_def_metric;

typedef struct otf2_def_named {
    uint64_t id;
    OTF2_StringRef name;
    uint32_t type; /* attribute: OTF2_Type; parameter: OTF2_ParameterType */
} otf2_def_named;

typedef struct otf2_def_context {
    uint64_t id;
    uint64_t region;
} otf2_def_context;

#define OTF2_TABLE(T)                                                                              \
    struct {                                                                                       \
        T *v;                                                                                      \
        uint32_t n, cap;                                                                           \
        otf2_idmap map;                                                                            \
    }

typedef struct otf2_defs {
    /* strings are a table of char* keyed by string ref */
    OTF2_TABLE(char *) strings;
    bool have_clock;
    uint64_t resolution, offset, length;
    OTF2_TABLE(otf2_def_stn) stns;
    OTF2_TABLE(otf2_def_lgroup) lgroups;
    OTF2_TABLE(otf2_def_loc) locs;
    OTF2_TABLE(otf2_def_region) regions;
    OTF2_TABLE(otf2_def_group) groups;
    OTF2_TABLE(otf2_def_comm) comms;
    OTF2_TABLE(otf2_def_member) members;
    OTF2_TABLE(otf2_def_metric) metrics;
    OTF2_TABLE(otf2_def_named) attrs;
    OTF2_TABLE(otf2_def_named) params;
    OTF2_TABLE(otf2_def_context) contexts;
    char *paradigm_names[256]; /* from PARADIGM definitions */
    uint64_t unknown_defs;     /* definition records this reader does not know */
    uint64_t ignored_defs;     /* known but not needed (properties, topologies, I/O) */
    bool oom;
    char error[512]; /* first definition error, "" if none */
} otf2_defs;

/* Register global-definition callbacks that fill @p d. */
int otf2_defs_register(OTF2_GlobalDefReaderCallbacks *cb);
void otf2_defs_free(otf2_defs *d);

/* After all definitions: resolve and check every reference.  Returns 0, or
 * -1 with d->error naming the definition. */
int otf2_defs_check(otf2_defs *d);

/* String of a ref, NULL if undefined.  OTF2_UNDEFINED_STRING gives "". */
const char *otf2_defs_string(const otf2_defs *d, OTF2_StringRef ref);

/* Lookups by OTF2 id; NULL when undefined. */
otf2_def_loc *otf2_defs_loc(otf2_defs *d, uint64_t id);
otf2_def_region *otf2_defs_region(otf2_defs *d, uint64_t id);
const otf2_def_comm *otf2_defs_comm(const otf2_defs *d, uint64_t id);
const otf2_def_group *otf2_defs_group(const otf2_defs *d, uint64_t id);
otf2_def_member *otf2_defs_member(otf2_defs *d, uint64_t id);
const otf2_def_metric *otf2_defs_metric(const otf2_defs *d, uint64_t id);
const otf2_def_named *otf2_defs_attr(const otf2_defs *d, uint64_t id);
const otf2_def_named *otf2_defs_param(const otf2_defs *d, uint64_t id);
const otf2_def_context *otf2_defs_context(const otf2_defs *d, uint64_t id);

/* Resolve @p rank of communicator @p comm, as seen from location @p self,
 * to the location-group index of the peer.  Returns OTF2_NO_INDEX when the
 * rank cannot be resolved. */
uint32_t otf2_defs_rank_group(otf2_defs *d, uint64_t comm, uint32_t rank, uint64_t self);

/* Names for enums ("MPI", "function", "ALLREDUCE", "CPU_THREAD"). */
const char *otf2_paradigm_name(const otf2_defs *d, OTF2_Paradigm p, char *buf, size_t n);
const char *otf2_role_name(OTF2_RegionRole r);
const char *otf2_collective_name(OTF2_CollectiveOp op);

/* Ticks -> ns: round((t - offset) * 1e9 / resolution), half away from zero,
 * in 128-bit integers.  Exact for every 64-bit tick value; saturates at
 * INT64_MIN/INT64_MAX.  A resolution of 0 is taken as 1 GHz. */
int64_t otf2_ticks_to_ns(uint64_t t, uint64_t offset, uint64_t resolution);

/* The same conversion with the resolution's reciprocal computed once, for
 * the per-event path: otf2_clock_ns(c, t) == otf2_ticks_to_ns(t, offset,
 * resolution) for every t. */
typedef struct otf2_clock {
    uint64_t offset, resolution; /* resolution != 0 */
    uint64_t inv;                /* UINT64_MAX / resolution */
} otf2_clock;

void otf2_clock_init(otf2_clock *c, uint64_t offset, uint64_t resolution);
int64_t otf2_clock_ns(const otf2_clock *c, uint64_t t);

#endif /* SLOG_IMPORT_OTF2_DEFS_H */
