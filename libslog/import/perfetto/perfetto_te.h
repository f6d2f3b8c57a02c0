/* SPDX-License-Identifier: MIT
 *
 * perfetto_te.h - one TrackEvent as read by perfetto_events.c and handed
 * to perfetto_legacy.c: its scalar fields, its resolved name and
 * categories, the reader over its bytes (repeated fields are collected into
 * pf->rep[] lists on demand), and the field numbers both files use.
 * Import library, perfetto folder: public libslog headers, libc.
 */
#ifndef PERFETTO_TE_H
#define PERFETTO_TE_H

#include "perfetto.h"

/* TrackEvent fields */
#define TE_TS_DELTA_US 1
#define TE_CATEGORY_IIDS 3
#define TE_ANNOTATIONS 4
#define TE_LEGACY 6
#define TE_TYPE 9
#define TE_NAME_IID 10
#define TE_TRACK_UUID 11
#define TE_EXTRA_VALUES 12
#define TE_TS_ABS_US 16
#define TE_CATEGORIES 22
#define TE_NAME 23
#define TE_COUNTER_VALUE 30
#define TE_EXTRA_UUIDS 31
#define TE_FLOW_IDS_OLD 36
#define TE_TERM_FLOW_IDS_OLD 42
#define TE_DOUBLE_COUNTER_VALUE 44
#define TE_EXTRA_DOUBLE_UUIDS 45
#define TE_EXTRA_DOUBLE_VALUES 46
#define TE_FLOW_IDS 47
#define TE_TERM_FLOW_IDS 48

#define TYPE_SLICE_BEGIN 1
#define TYPE_SLICE_END 2
#define TYPE_INSTANT 3
#define TYPE_COUNTER 4

/* Indexes of pf->rep[] */
enum {
    REP_FLOW, REP_FLOW_OLD, REP_TERM, REP_TERM_OLD, REP_EXTRA_UUIDS, REP_EXTRA_VALUES,
    REP_XD_UUIDS, REP_XD_VALUES, REP_CAT_IIDS, REP_COUNT
};

struct pf_te {
    pb_reader body;        /* over the TrackEvent's bytes */
    uint32_t present;      /* bit REP_* when that repeated field occurs */
    bool has_type, has_track, has_name_iid, has_counter, counter_double, has_legacy;
    bool has_ts_delta, has_ts_abs, has_categories;
    uint64_t type, track_uuid, name_iid;
    const uint8_t *name;
    size_t name_len;
    int64_t counter_int;
    double counter_dbl;
    int64_t ts_delta_us, ts_abs_us;
    pb_field legacy;
    const char *name_str;  /* resolved: scratch or interned; "" if none */
    const char *group;     /* categories joined by ",", NULL if none */
};

#endif /* PERFETTO_TE_H */
