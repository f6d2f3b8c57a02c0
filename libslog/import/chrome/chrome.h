/* SPDX-License-Identifier: MIT
 *
 * chrome.h - internal interfaces of the Chrome Trace Event / DFTracer
 * importer, which runs as a pipeline:
 *
 *   import_stream -> chrome_parse (yajl SAX + the chrome_scan fast path,
 *                    repairs, one record per event)
 *     -> chrome_sort stage 1 (bounded window, key ts)
 *     -> chrome_map (phases -> drawables, nesting depth, async/flow matching)
 *     -> chrome_sort stage 2 (bounded window, key end time)
 *     -> chrome_out (the writer, or a recorder in the unit tests)
 *
 * Times are integer nanoseconds parsed from the decimal text (chrome_time).
 * Import library, chrome: public libslog headers only.
 */
#ifndef SLOG_IMPORT_CHROME_H
#define SLOG_IMPORT_CHROME_H

#include <slog/slog.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "importer.h"

/* ------------------------------------------------------------------ time */

/* Parse a decimal number of microseconds (JSON number text, or the content
 * of a JSON string: optional sign, digits, fraction, exponent, surrounding
 * blanks allowed) into integer nanoseconds, exactly.  Digits finer than 1 ns
 * are rounded half away from zero and *rounded is set.
 * Returns 0 ok, -1 not a number, -2 out of int64 range. */
int chrome_time_parse(const char *text, size_t len, int64_t *ns, bool *rounded);

/* Canonical text of an integer given as a JSON number or string ("007" and
 * 7 both give "7"); returns false when @p text is not an integer. */
bool chrome_int_canon(const char *text, size_t len, char *out, size_t outlen);

/* ---------------------------------------------------------------- events */

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

typedef struct chrome_pool chrome_pool;

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

/*
 * Record memory: the parser's records come from size classes of blocks cut
 * from big slabs and recycled, instead of one malloc/free each (with the
 * reader thread, every free was a cross-thread free into the feeder's malloc
 * arena).  One thread allocates (the feeder), one frees (the consumer);
 * freed blocks go to a consumer-side list handed over in bulk under a mutex.
 * Slabs are released by chrome_pool_destroy only, so a block dropped without
 * chrome_event_free (failure paths of the feeder) is not a leak.
 */
chrome_pool *chrome_pool_create(void);
/* A block of @p bytes (>= sizeof(chrome_event)) with pool and pool_class
 * set and nothing else initialised; NULL on no memory. */
chrome_event *chrome_event_alloc(chrome_pool *pool, size_t bytes);
/* Free a record from either source; NULL-safe.  Consumer side only. */
void chrome_event_free(chrome_event *ev);
/* Free on the feeder side: pool blocks are left to chrome_pool_destroy. */
void chrome_event_drop(chrome_event *ev);
void chrome_pool_destroy(chrome_pool *pool);
/* Consumer side, when it would wait for records: fault in a slab for the
 * feeder ahead of its need (a new process's first touch of memory is what
 * costs, and the pool fills up while the consumer has little to do); at most
 * a few wait.  Returns true when it added one. */
bool chrome_pool_reserve(chrome_pool *pool);

/* ------------------------------------------------------------------ keys */

/* Dense ids of the keys the mapper finds threads and categories by
 * (chrome_keys.c); one thread uses a chrome_keys at a time. */
typedef struct chrome_keys chrome_keys;

chrome_keys *chrome_keys_create(void); /* NULL on no memory */
/* Set ev->thread_key and ev->name_key.  0 ok, -1 no memory. */
int chrome_keys_assign(chrome_keys *k, chrome_event *ev);
void chrome_keys_destroy(chrome_keys *k); /* NULL-safe */

/* A fast hash of @p n bytes (word at a time), continuing from @p seed;
 * for in-memory tables only (it depends on the byte order). */
uint64_t chrome_hash(uint64_t seed, const char *s, size_t n);

/* ---------------------------------------------------------------- output */

/* Where drawables go.  The import uses the writer; tests record. */
typedef struct chrome_out {
    void *user;
    int (*add_timeline)(void *user, uint32_t parent, slog_timeline_kind kind, const char *name,
                        int64_t sort_key, uint32_t *id);
    int (*set_timeline)(void *user, uint32_t id, const char *name, int64_t sort_key);
    int (*add_category)(void *user, slog_kind kind, const char *name, const char *group,
                        uint32_t *id);
    int (*state)(void *user, const slog_state *s);
    int (*event)(void *user, const slog_event *e);
    int (*arrow)(void *user, const slog_arrow *a);
    int (*counter)(void *user, const slog_counter *c);
    /* message of the last failure, or NULL (may be NULL itself) */
    const char *(*last_error)(void *user);
} chrome_out;

/* ------------------------------------------------------------------ sort */

/* A binary min-heap of pointers with a caller-given order. */
typedef struct chrome_heap {
    void **v;
    size_t n, cap;
    int (*less)(const void *a, const void *b);
} chrome_heap;

void chrome_heap_init(chrome_heap *h, int (*less)(const void *a, const void *b));
int chrome_heap_push(chrome_heap *h, void *item); /* 0 or -1 (no memory) */
void *chrome_heap_pop(chrome_heap *h);             /* NULL when empty */
void *chrome_heap_top(const chrome_heap *h);
void chrome_heap_free(chrome_heap *h);             /* frees the array, not items */

/* Stage-1 order: ts, then order of appearance. */
int chrome_event_less(const void *a, const void *b);

/*
 * A reorder window: items with a key (k1, k2, k3), compared in that order,
 * kept inline so comparisons do not touch the items.  An arriving item is
 * appended to a sorted run (a FIFO) whose last key is not larger - the
 * fullest-fitting one, as in patience sorting - so inputs made of a few
 * interleaved sorted streams (one per thread, typically) cost O(runs) per
 * item; only when CHROME_WINDOW_RUNS runs are taken does an item enter the
 * heap.  The non-empty runs are kept in a small min-heap by head key, so
 * pop is O(log runs) for a run item and O(log n) for a heap item; and in an
 * array sorted by last key, which a best-fit append leaves sorted (no run's
 * last lies between the old last and the new one), so push is a binary
 * search.
 */
#define CHROME_WINDOW_RUNS 32

typedef struct chrome_wentry {
    int64_t k1, k2;
    uint64_t k3;
    void *item;
} chrome_wentry;

typedef struct chrome_run_q {
    chrome_wentry first;       /* copy of the head: comparisons stay in the window */
    chrome_wentry *v;          /* ring buffer, capacity a power of two */
    size_t head, len, cap;
} chrome_run_q;

typedef struct chrome_window {
    chrome_run_q runs[CHROME_WINDOW_RUNS];
    chrome_wentry last[CHROME_WINDOW_RUNS]; /* each run's last key, dense for the push scan */
    unsigned char rh[CHROME_WINDOW_RUNS];   /* min-heap of the non-empty runs by head key */
    unsigned char ord[CHROME_WINDOW_RUNS];  /* the non-empty runs by last key, ascending */
    unsigned nruns, nrh, nord;
    unsigned hint;             /* where in ord the last push's search ended */
    chrome_wentry *heap;
    size_t n, hcap;
    size_t total;
    size_t prefetch;           /* bytes of items to prefetch ahead of a pop, 0 = none */
} chrome_window;

void chrome_window_init(chrome_window *w);
/* Items are cold (records from far back): fetch the first @p bytes of
 * those about to leave, a few pops ahead. */
void chrome_window_set_prefetch(chrome_window *w, size_t bytes);
int chrome_window_push(chrome_window *w, int64_t k1, int64_t k2, uint64_t k3, void *item);
/* Smallest entry, or NULL when empty (borrowed until the next push/pop). */
const chrome_wentry *chrome_window_top(const chrome_window *w);
void *chrome_window_pop(chrome_window *w);
static inline size_t chrome_window_size(const chrome_window *w)
{
    return w->total; /* inline: checked after every record, twice */
}
void chrome_window_free(chrome_window *w); /* frees the arrays, not the items */

/* ------------------------------------------------------------------- map */

typedef struct chrome_map chrome_map;

/* What the mapper counts; reported through import_count at the end. */
typedef struct chrome_map_config {
    uint64_t window;        /* stage-2 window (drawables held back), 0 = none */
    uint64_t window_bytes;  /* and the memory they may hold */
    const char *const *input_names; /* chrome_event.input -> name (diagnostics) */
    uint32_t ninputs;
} chrome_map_config;

int chrome_map_create(chrome_map **out, const chrome_out *o, import_ctx *ctx,
                      const chrome_map_config *cfg);
/* Metadata (ph M) and stack frames are applied at once, in file order. */
int chrome_map_metadata(chrome_map *m, const chrome_event *ev);
int chrome_map_frame(chrome_map *m, uint32_t input, const char *id, const char *name,
                     const char *parent);
/* Everything else arrives here in stage-1 order; the map takes ownership. */
int chrome_map_event(chrome_map *m, chrome_event *ev);
/* Note a time seen in the input (trace end for unclosed spans). */
void chrome_map_see_time(chrome_map *m, int64_t t);
/* End of all inputs: close what is open at the trace end, flush. */
int chrome_map_finish(chrome_map *m);
/* Report counts with import_count; name of the record kinds. */
void chrome_map_report(chrome_map *m);
void chrome_map_destroy(chrome_map *m);

/* ----------------------------------------------------------------- parse */

typedef struct chrome_parser chrome_parser;

typedef enum chrome_mode {
    CHROME_MODE_AUTO = 0, /* decide from the first byte */
    CHROME_MODE_JSON,     /* one JSON document: array or object form */
    CHROME_MODE_LINES     /* JSON-lines (.pfw): one event per line */
} chrome_mode;

/* Sink of the parser: events (owned by the sink) and stack frames. */
typedef struct chrome_sink {
    void *user;
    int (*event)(void *user, chrome_event *ev);
    int (*frame)(void *user, uint32_t input, const char *id, const char *name,
                 const char *parent);
} chrome_sink;

int chrome_parser_create(chrome_parser **out, import_ctx *ctx, chrome_mode mode, uint32_t input,
                         uint64_t *seq, const chrome_sink *sink, chrome_pool *pool);
/* Feed the next bytes of the input.  0 ok, 1 failed (reported). */
int chrome_parser_feed(chrome_parser *p, const unsigned char *buf, size_t len);
/* End of input: repairs a missing closing bracket.  0 ok, 1 failed. */
int chrome_parser_finish(chrome_parser *p);
/* Report the parser's counts (repairs, skipped top-level keys). */
void chrome_parser_report(chrome_parser *p);
void chrome_parser_destroy(chrome_parser *p);

/* ----------------------------------------------------------------- drive */

/* Import inputs [0, n) merged by time into @p out (chrome_drive.c); with
 * @p threaded, reading and parsing run on a second thread (the importer.h
 * hooks must then be thread-safe).  0 ok, 1 failed (reported). */
int chrome_import(import_ctx *ctx, const char *const *paths, size_t n, chrome_mode mode,
                  const chrome_out *out, bool threaded);

/* The same on bytes in memory, fed to the parser @p chunk bytes at a time
 * (0 = all at once): for fuzzing and tests. */
int chrome_import_buffer(import_ctx *ctx, const unsigned char *data, size_t len, size_t chunk,
                         chrome_mode mode, const chrome_out *out);

/* Probe helpers: 0..100 for the JSON document and JSON-lines readings. */
int chrome_probe_json(const unsigned char *head, size_t n);
int chrome_probe_lines(const unsigned char *head, size_t n);

#endif /* SLOG_IMPORT_CHROME_H */
