/* SPDX-License-Identifier: MIT
 *
 * node_format.h - the drawables of one node, in memory (writer side) and as
 * bytes (doc/FORMAT.md §10).  Format 2 stores a node's geometry and its
 * args in two blobs, so drawing never decodes args:
 *
 * Geometry blob ('D', version 3; versions 1 and 2 are read too, see below):
 *   OFFSET  SIZE    MEANING
 *   0       1       'D' (0x44)
 *   1       1       blob version (3)
 *   2       var     counts: states, events, arrows, counters (4 varints)
 *   .       var     base time (zig-zag varint); time deltas start from it
 *   .       var     time unit u >= 1 (varint): every time delta, duration and
 *                   children difference below is stored divided by u (the
 *                   gcd of them all; 1000 for microsecond traces in ns)
 *   .       var     state columns, each n varints: timeline, category,
 *                   end delta (zig-zag, from the previous state's end; the
 *                   writer's optimal order is by end time, so deltas are
 *                   small and non-negative), duration, depth; start =
 *                   end - duration
 *   .       var     children column: bitmap (n bits), then per set bit the
 *                   zig-zag children difference: children time (duration -
 *                   exclusive) minus what the node's own states show of it
 *                   (node_format_nest.h); 0 for nearly every state
 *   .       var     event columns: timeline, category, time delta
 *   .       var     arrow columns: category, from, to, end delta, duration
 *   .       var     counter columns: timeline, category, time delta, then
 *                   n little-endian IEEE-754 doubles
 *
 * Args blob ('A', version 1), only when some item has args:
 *   0       1       'A' (0x41)
 *   1       1       blob version (1)
 *   2       var     counts: states, events, arrows (3 varints, equal to
 *                   the geometry blob's)
 *   .       var     args length of every state, event, arrow (varints,
 *                   0 = none), in item order
 *   .       var     args bytes of every item with args, in item order
 *
 * Version 2 geometry blobs (format 2 files) store in the children column the
 * smaller of children time and exclusive time, tagged in bit 0.  Version 1
 * blobs (format 1 files) have no time unit, an args-length column last in
 * each state/event/arrow column group, no children column, and the args
 * bytes after the counter columns.
 *
 * Args of one item: varint count, then per arg varint key (offset of the key
 * in /strings), u8 type, value: STRING/JSON inline = varint length, bytes,
 * NUL; STRING/JSON by reference (type | 0x10) = varint offset in /strings;
 * INT zig-zag varint; UINT varint; DOUBLE 8 bytes LE; BOOL u8.
 * No I/O here, so it is easy to fuzz.
 * Layer 3: may use codec and util.
 */
#ifndef NODE_FORMAT_H
#define NODE_FORMAT_H

#include "node_format_cols.h"
#include "node_format_nest.h"
#include "util_buf.h"
#include "util_slab.h"

#include <slog/slog_common.h>

#define FMT_BLOB_DRAWABLES 0x44
#define FMT_BLOB_ARGS      0x41
#define FMT_GEOMETRY_V1    1 /* format 1: args inside the drawables blob */
#define FMT_GEOMETRY_V2    2 /* format 2: geometry only, children-time column */
#define FMT_GEOMETRY_V3    3 /* format 3: children time beyond what the node shows */
#define FMT_ARGS_VERSION   1
#define FMT_ARG_REF        0x10

typedef struct fmt_state_rec {
    int64_t start, end;
    int64_t excl;         /* exclusive time, for previews */
    uint32_t timeline, category, depth;
    uint32_t args_len;    /* 0 = no args */
    uint32_t args_off;    /* offset in fmt_node.args */
    int64_t resid;        /* set by fmt_node_add_state: children time (end - start -
                             excl) minus what the node's own states show of it
                             (node_format_nest.h), modulo 2^64; stored */
} fmt_state_rec;

typedef struct fmt_event_rec {
    int64_t time;
    uint32_t timeline, category;
    uint32_t args_len, args_off;
} fmt_event_rec;

typedef struct fmt_arrow_rec {
    int64_t start, end;
    uint32_t category, from, to;
    uint32_t args_len, args_off;
} fmt_arrow_rec;

typedef struct fmt_counter_rec {
    int64_t time;
    double value;
    uint32_t timeline, category;
} fmt_counter_rec;

/* Drawables of one open node, in arrival order. */
typedef struct fmt_node {
    fmt_state_rec *states;
    fmt_event_rec *events;
    fmt_arrow_rec *arrows;
    fmt_counter_rec *counters;
    size_t n[4], cap[4];
    util_buf args;           /* encoded args of the items above */
    int64_t base;            /* time of the first item */
    int64_t last[4];         /* previous start/time per kind (delta coding) */
    uint64_t encoded_bytes;  /* size of the geometry columns with time unit 1 (no header) */
    uint64_t args_bytes;     /* exact size of the args blob's length column + bytes */
    size_t with_args;        /* items that have args (0: no args blob) */
    int64_t t0, t1;          /* bounding box of the items */
    fmt_nest nest;           /* the node-local children-time rule over the states */
    fmt_cols cols;           /* the state columns' bytes, written as states arrive */
} fmt_node;

void fmt_node_init(fmt_node *n);
void fmt_node_reset(fmt_node *n); /* empty, keeps memory */
void fmt_node_free(fmt_node *n);
size_t fmt_node_count(const fmt_node *n);

/* Append one item; args (already encoded with fmt_args_encode) are copied.
 * Return 0 or -1 (out of memory; the node is unchanged). */
int fmt_node_add_state(fmt_node *n, const fmt_state_rec *r, const uint8_t *args, size_t args_len);
int fmt_node_add_event(fmt_node *n, const fmt_event_rec *r, const uint8_t *args, size_t args_len);
int fmt_node_add_arrow(fmt_node *n, const fmt_arrow_rec *r, const uint8_t *args, size_t args_len);
int fmt_node_add_counter(fmt_node *n, const fmt_counter_rec *r);

/* Encode the node's geometry blob ('D' v3) into out (appending).
 * 0 or -1 (ENOMEM). */
int fmt_node_encode(const fmt_node *n, util_buf *out);

/* Encode the node's args blob ('A' v1) into out (appending); appends
 * nothing when no item has args (n->with_args == 0).  0 or -1 (ENOMEM). */
int fmt_node_encode_args(const fmt_node *n, util_buf *out);

/* Sizes of the two blobs fmt_node_encode(_args) would write: the geometry
 * blob at most (its time unit may shorten it), the args blob exactly. */
uint64_t fmt_node_geometry_size(const fmt_node *n);
uint64_t fmt_node_args_size(const fmt_node *n);

/* Resolves a string offset of /strings to its text; NULL when invalid. */
typedef struct fmt_strings {
    const char *heap;
    uint64_t len;
} fmt_strings;

const char *fmt_string_at(const fmt_strings *s, uint64_t off);

/* A decoded geometry blob (reader side), with its args once attached.
 * Item args point into args (the slog_arg array), whose strings point into
 * raw (v1), args_raw (v2) or the string heap. */
typedef struct fmt_decoded {
    uint8_t *raw;            /* owned: the geometry blob bytes (v1: kept for args) */
    size_t raw_len;
    slog_state *states;
    slog_event *events;
    slog_arrow *arrows;
    slog_counter *counters;
    uint64_t n[4];
    int64_t *state_excl;     /* v2, v3: exclusive time of each state (v3: once
                                fmt_decoded_resolve_excl ran); NULL for v1 */
    int excl_pending;        /* v3: state_excl holds the stored differences */
    int args_attached;       /* v1: always 1; v2: after fmt_args_attach */
    uint8_t *args_raw;       /* owned: the args blob bytes (v2) */
    slog_arg *args;
    uint64_t nargs;
    size_t mem_bytes;        /* memory held, for the cache */
    util_slab *slab;         /* where block came from (NULL: util_calloc) */
    void *block;             /* owned: states, events, arrows, counters, state_excl */
    size_t block_cap;        /* block's size to free it with (util_slab_free) */
} fmt_decoded;

/* Decode a geometry blob raw[0..len), version 1 (args included) or 2 (args
 * NULL/0 until fmt_args_attach).  Ownership of raw passes to out on
 * success; v2 frees raw itself (nothing points into it).
 * Returns SLOG_OK, SLOG_ECORRUPT (with the byte offset in *bad_offset) or
 * SLOG_ENOMEM. */
int fmt_node_decode(uint8_t *raw, size_t len, const fmt_strings *strings, fmt_decoded *out,
                    uint64_t *bad_offset);
/* The same, with the items' arrays from @p slab (NULL: util_calloc). */
int fmt_node_decode_in(uint8_t *raw, size_t len, const fmt_strings *strings, util_slab *slab,
                       fmt_decoded *out, uint64_t *bad_offset);

/* Decode an args blob raw[0..len) and attach its args to the items of g (a
 * decoded v2 geometry blob without args).  Ownership of raw passes to g on
 * success; on failure g is unchanged and raw stays the caller's.
 * Returns SLOG_OK, SLOG_ECORRUPT (counts differ from d's, or bad bytes; the
 * byte offset in *bad_offset) or SLOG_ENOMEM. */
int fmt_args_attach(fmt_decoded *g, uint8_t *raw, size_t len, const fmt_strings *strings,
                    uint64_t *bad_offset);
void fmt_decoded_free(fmt_decoded *d);

/* Turn a decoded v3 blob's stored children-time differences into each
 * state's exclusive time (node_format_nest.h); nothing to do for v1 and v2
 * or when done before.  0, or -1 (out of memory; d unchanged). */
int fmt_decoded_resolve_excl(fmt_decoded *d);

/* Args encoding (writer side).  intern(user, text, len) returns the
 * string's offset in /strings, or UINT64_MAX to store the value inline.
 * Keys must always be interned. */
typedef uint64_t (*fmt_intern_fn)(void *user, const char *text, size_t len, int is_key);
int fmt_args_encode(const slog_arg *args, uint32_t nargs, fmt_intern_fn intern, void *user,
                    util_buf *out);

#endif /* NODE_FORMAT_H */
