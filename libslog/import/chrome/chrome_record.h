/* SPDX-License-Identifier: MIT
 *
 * chrome_record.h - the layout of one Chrome trace event as the importer
 * carries it from the parser to the mapper: a fixed header (times, ids,
 * flags, where it was in the input), then its args array, then every string
 * it points to, all in one block, so that a record is allocated, moved and
 * released as one piece (chrome_pool.h).  The parser builds records with a
 * chrome_builder (chrome_record.c); the mapper copies a record when a flow
 * chain needs it twice.
 * Import library, chrome: public libslog headers, libc.
 */
#ifndef SLOG_IMPORT_CHROME_RECORD_H
#define SLOG_IMPORT_CHROME_RECORD_H

#include <slog/slog.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct chrome_pool chrome_pool;

enum {
    CEV_HAS_TS = 1u << 0,
    CEV_HAS_DUR = 1u << 1,
    CEV_HAS_TDUR = 1u << 2,
    CEV_HAS_TTS = 1u << 3,
    CEV_FLOW_IN = 1u << 4,
    CEV_FLOW_OUT = 1u << 5,
    CEV_EMPTY = 1u << 6,     /* `{}`: no key at all */
    CEV_SAMPLE = 1u << 7,    /* an entry of the top-level "samples" array */
    CEV_BAD_TIME = 1u << 8,  /* ts/dur/tdur present but not a number */
    CEV_ROUNDED = 1u << 9,   /* a time had digits below 1 ns */
};

/* One trace event, packed in a single allocation: from a chrome_pool (the
 * parser's records) or malloc (pool NULL); freed with chrome_event_free. */
typedef struct chrome_event {
    chrome_pool *pool; /* owner of the block, NULL = malloc */
    uint64_t seq;     /* order of appearance over all inputs */
    uint64_t line, col, offset; /* where its '{' is, for warnings */
    size_t bytes;     /* size of the allocation (window accounting) */
    int64_t ts, dur, tdur, tts; /* ns */
    uint32_t input;   /* index of the input among those of the run */
    uint32_t flags;   /* CEV_* */
    uint32_t nargs;
    char ph[4];       /* phase text, "" when missing */
    char id_kind;     /* 0 none, 'i' id, 'l' id2.local, 'g' id2.global */
    unsigned char pool_class; /* size class of a pool block (in the padding) */
    unsigned char holds; /* the mapper's holders of the record (chrome_map.c) */
    /* strlen + 1 of name, cat, pid and tid when the parser stored them and
     * they are shorter than 254 bytes, else 0 (use strlen); in the padding */
    unsigned char len1_name, len1_cat, len1_pid, len1_tid;
    const char *name, *cat, *pid, *tid, *id, *scope, *bp, *s, *sf, *bind_id;
    slog_arg *args;   /* args members, then unknown event fields as "@key" */
    /* chrome_keys ids (0 = none: look up by the strings); set by the
     * driver, after the parser, on every record but stack frames */
    uint32_t thread_key; /* (input, pid, tid) */
    uint32_t name_key;   /* (name, cat) */
} chrome_event;

/* What a record counts for in the window memory limits: its bytes without
 * the pool link and the key ids, as before those existed, so that when the
 * byte limits release records (and so the output) does not depend on them. */
static inline size_t chrome_event_weight(const chrome_event *ev)
{
    return ev->bytes - sizeof(chrome_pool *) -
           (sizeof(chrome_event) - offsetof(chrome_event, thread_key));
}

/* ------------------------------------------------------------ builder */

#define CHROME_NO_OFF SIZE_MAX /* an absent string of a builder */

/* An arg while its event is read: strings are arena offsets. */
typedef struct chrome_barg {
    size_t key;
    slog_arg_type type;
    union {
        size_t s;
        int64_t i;
        uint64_t u;
        double d;
        bool b;
    } v;
} chrome_barg;

/* The event being read: strings live in `arena` (offsets, CHROME_NO_OFF =
 * absent) until chrome_builder_pack makes the record. */
typedef struct chrome_builder {
    char *arena;
    size_t alen, acap;
    chrome_barg *args;
    size_t nargs, capargs;
    size_t name, cat, ph, pid, tid, id, scope, bp, s, sf, bind_id;
    char id_kind;
    int64_t ts, dur, tdur, tts;
    uint32_t flags;
    uint32_t nkeys;
    unsigned char len1_name, len1_cat, len1_pid, len1_tid; /* chrome_event's */
    uint64_t line, col, offset;
    size_t key; /* current key (arena offset) in args / extras */
} chrome_builder;

/* Forget the event being built (the buffers stay for the next one). */
void chrome_builder_reset(chrome_builder *b);
void chrome_builder_free(chrome_builder *b);
/* Room for @p n more arena bytes: 0 ok, -1 no memory. */
int chrome_builder_reserve(chrome_builder *b, size_t n);
/* Append @p n bytes to the arena: 0 ok, -1 no memory. */
int chrome_builder_put(chrome_builder *b, const void *s, size_t n);
/* A NUL-terminated copy in the arena: its offset, CHROME_NO_OFF on no memory. */
size_t chrome_builder_str(chrome_builder *b, const void *s, size_t n);
/* A new arg keyed by the current key, NULL on no memory. */
chrome_barg *chrome_builder_arg(chrome_builder *b);
/* The record of the event built so far, from @p pool (NULL: malloc).  Later
 * duplicates of an args key win (as in most JSON readers).  NULL on no memory. */
chrome_event *chrome_builder_pack(const chrome_builder *b, chrome_pool *pool);

/* ------------------------------------------------------------- copies */

/* A malloc'ed copy of a whole record, its pointers moved into the copy; NULL
 * on no memory. */
chrome_event *chrome_record_clone(const chrome_event *ev);
/* A malloc'ed copy of a record's header, without args or strings but, with
 * @p with_names, name and cat (copied); with them it weighs what @p ev does
 * in the window limits, without them its header alone.  NULL on no memory. */
chrome_event *chrome_record_header(const chrome_event *ev, bool with_names);

#endif /* SLOG_IMPORT_CHROME_RECORD_H */
