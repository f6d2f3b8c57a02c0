/* SPDX-License-Identifier: MIT
 *
 * chrome_map_int.h - what the files of the Chrome mapper share: the mapper's
 * state, the things it keeps per thread, process, async span, flow point and
 * object, the drawables waiting in its output window, and the record
 * ownership rule.
 *
 * Ownership: a record reaches the mapper once (chrome_map_event) and its
 * handler borrows it.  Whatever keeps it beyond the handler (an open span,
 * an async stack, a flow point, a live object, a waiting drawable, the X
 * group, a deferred sample) takes a hold (map_hold) and gives it back
 * (map_release) when it lets go; chrome_map_event holds the record for the
 * handler's duration.  map_release, when the last hold goes, is the only
 * place a record returns to the pool, so no failure path frees one.
 *
 * Files: chrome_map.c (entry points, phase dispatch, teardown),
 * chrome_map_out.c (drawables and the output window), chrome_map_tl.c
 * (timelines, categories, metadata, keys), chrome_map_span.c (B/E/X, async
 * spans, objects), chrome_map_flow.c (flows and bindings),
 * chrome_map_sample.c (counters, samples, stack frames).
 * Import library, chrome: public libslog headers, libc.
 */
#ifndef SLOG_IMPORT_CHROME_MAP_INT_H
#define SLOG_IMPORT_CHROME_MAP_INT_H

#include <shared_strmap.h>
#include <stdbool.h>
#include <stdint.h>

#include "chrome.h"

/* ------------------------------------------------------------- counts */

typedef enum kcount {
    K_BE, K_E_STRAY, K_B_OPEN, K_TOO_DEEP,
    K_X, K_X_TDUR, K_X_NODUR, K_X_NEG,
    K_INSTANT,
    K_COUNTER, K_COUNTER_BAD, K_COUNTER_EMPTY,
    K_ASYNC, K_ASYNC_N, K_ASYNC_E_STRAY, K_ASYNC_OPEN,
    K_LASYNC, K_LASYNC_STEP, K_LASYNC_F_STRAY, K_LASYNC_OPEN,
    K_FLOW, K_FLOW_STRAY, K_FLOW_OPEN, K_FLOW_BACK,
    K_BIND, K_BIND_STRAY, K_BIND_OPEN,
    K_OBJ, K_OBJ_SNAP, K_OBJ_D_STRAY, K_OBJ_OPEN,
    K_M_PNAME, K_M_TNAME, K_M_PSORT, K_M_TSORT, K_M_LABELS, K_M_OTHER,
    K_SAMPLE, K_SAMPLE_TOP,
    K_CLOCK, K_MEM, K_CTX,
    K_EMPTY, K_NO_PH, K_NO_TS, K_BAD_TIME, K_UNKNOWN, K_LATE,
    K_COUNT
} kcount;

/* ------------------------------------------------------------- state */

/* Keys are built in a reusable buffer: parts separated by 0x1f. */
typedef struct kbuf {
    char *s;
    size_t n, cap;
} kbuf;

typedef struct span {
    int64_t start, end;
    char kind;          /* 'B' open B, 'x' open X (no dur), 'X' closed X */
    chrome_event *ev;   /* B and open X: the begin record (held) */
} span;

typedef struct thread {
    uint32_t tl;
    int64_t sort;
    span *st;
    size_t n, cap;
    uint64_t deep; /* open B spans skipped past SLOG_MAX_DEPTH: the next Es are theirs */
} thread;

typedef struct process {
    uint32_t tl;
    uint32_t input;
    char *pid;
    char *name;         /* from process_name, or NULL */
    char *labels;
    int64_t sort;
    uint32_t *lanes;    /* async lane timelines */
    bool *lane_busy;
    size_t nlanes;
} process;

typedef struct open_async {
    uint32_t lane;      /* index in the process's lanes */
    process *proc;
    chrome_event **st;  /* stack of begin records (held) */
    size_t n, cap;
} open_async;

typedef struct point {
    uint32_t tl;
    int64_t t;
    chrome_event *ev;   /* held */
} point;

typedef struct object {
    uint32_t tl;
    chrome_event *born; /* N record while alive (held) */
} object;

typedef struct frame {
    char *name;
    char *parent;
} frame;

/* A drawable waiting in the output window. */
typedef struct pending {
    slog_kind kind;
    int64_t start, end;
    uint64_t seq;
    union {
        slog_state s;
        slog_event e;
        slog_arrow a;
        slog_counter c;
    } u;
    chrome_event *ev[2]; /* records whose strings the args point into (held) */
    slog_arg *own_args;  /* allocated args array, or NULL */
    char *own_str;       /* a string an extra arg points to, or NULL */
    size_t bytes;        /* memory held (window accounting) */
    struct pending *next_spare; /* on chrome_map.spare */
} pending;

/* A counter's series as last seen for one name_key: per args index the
 * series key with its counter timeline and category. */
typedef struct series_ref {
    char *key;          /* NULL = none cached at this index */
    uint32_t tl, cat;
} series_ref;

typedef struct counter_ref {
    uint32_t thread_key;
    char *id;           /* the record's id (NULL = none) */
    series_ref *s;
    size_t ns;
} counter_ref;

/* What a chrome_event.thread_key stands for, once looked up. */
typedef struct thread_ref {
    thread *t;
    process *p;
} thread_ref;

struct chrome_map {
    chrome_out out;
    import_ctx *ctx;
    chrome_map_config cfg;
    shared_strmap procs, threads, cats, counters, asyncs, flows, binds, objects, frames;
    shared_strmap early_f; /* f that came before its s (the s was late) */
    kbuf k;
    thread_ref *by_thread_key; /* [thread_key], NULL members = not yet */
    size_t nthread_keys;
    uint32_t (*by_name_key)[4]; /* [name_key][slog_kind]: category + 1, 0 = not yet */
    size_t nname_keys;
    counter_ref **counter_by_name_key; /* [name_key] of C records, NULL = none yet */
    size_t ncounter_keys;
    uint32_t *globals;   /* per input: global timeline + 1 (0 = none yet) */
    size_t nglobals;
    uint64_t nprocs_seen;
    chrome_window out_win;
    pending *spare;      /* written pendings kept for reuse (cache-warm) */
    size_t nspare;
    uint64_t out_seq;
    uint64_t held;       /* bytes held in out_win */
    int64_t watermark;   /* largest ts processed */
    int64_t trace_end;   /* largest time seen anywhere */
    bool any_time;
    chrome_event **xgroup; /* X events with the same ts (held) */
    size_t nx, capx;
    chrome_event **deferred; /* samples waiting for their stack frames (held) */
    size_t ndef, capdef;
    uint64_t counts[K_COUNT];
    int failed;
};

/* ---------------------------------------------------------- ownership */

static inline chrome_event *map_hold(chrome_event *ev)
{
    ev->holds++;
    return ev;
}

/* Give a hold back; the last one returns the record to its pool. */
static inline void map_release(chrome_event *ev)
{
    if (ev != NULL && --ev->holds == 0) {
        chrome_event_free(ev);
    }
}

/* ---------------------------------------------------- chrome_map.c */

/* Report a failure once (later ones return 1 without a message). */
int map_fail(chrome_map *m, const chrome_event *ev, const char *what);
/* Diagnostics name the input a record came from. */
void map_set_input(chrome_map *m, uint32_t input);
/* A warning about one record; the literal message is also its cap key. */
#define map_warn(m, ev, msg)                                                                   \
    do {                                                                                       \
        map_set_input((m), (ev)->input);                                                       \
        import_warn((m)->ctx, (ev)->line, (ev)->col, (ev)->offset, msg);                       \
    } while (0)
/* The trace's end for spans closed there: the last time seen, not before @p start. */
int64_t map_end_time(const chrome_map *m, int64_t start);

/* ----------------------------------------------- chrome_map_tl.c */

int kb_add(kbuf *k, const char *part);
int kb_addu(kbuf *k, uint64_t v);
/* The id kind of a record as a key part ("-" for none). */
int kb_add_id_kind(kbuf *k, const chrome_event *ev);
process *map_process(chrome_map *m, uint32_t input, const char *pid);
thread *map_thread(chrome_map *m, uint32_t input, const char *pid, const char *tid);
/* The record's thread (failure reported) or process (unreported), NULL on failure. */
thread *event_thread(chrome_map *m, const chrome_event *ev);
process *event_process(chrome_map *m, const chrome_event *ev);
int map_global(chrome_map *m, uint32_t input, uint32_t *tl);
/* The category of (kind, name, cat); @p key is the name_key of that name
 * and cat (0 if none or if name is not the record's). */
int map_category(chrome_map *m, slog_kind kind, uint32_t key, const char *name, const char *cat,
                 uint32_t *id);
/* An array indexed by key ids, grown to hold @p key (zeroed); 0 ok, -1 no memory. */
int key_cache_grow(void *arrp, size_t *n, size_t elem, uint32_t key);
void map_free_timelines(chrome_map *m);

/* ---------------------------------------------- chrome_map_out.c */

/* Where a state drawable goes. */
typedef struct state_at {
    uint32_t tl;
    int64_t start, end;
    uint32_t depth;
    const char *flag;   /* a true bool arg added, or NULL */
} state_at;

/* Drawables: each holds the records it points into; 0 ok, else failed
 * (reported).  A state's args are @p a's, plus those of @p b (NULL: none)
 * that @p a lacks. */
int put_state(chrome_map *m, const state_at *at, chrome_event *a, chrome_event *b);
int put_event(chrome_map *m, uint32_t tl, chrome_event *ev, const char *name,
              const slog_arg *extra, char *own_str);
int put_arrow(chrome_map *m, const point *from, chrome_event *to_ev, uint32_t to_tl, kcount ok);
int put_counter(chrome_map *m, const chrome_event *ev, uint32_t tl, uint32_t cat, double v);
/* Release drawables over the window, and (@p upto) those before the watermark; all with @p all. */
int map_drain(chrome_map *m, bool all, bool upto);
void map_free_output(chrome_map *m);

/* ---------------------------------------------- chrome_map_span.c */

int map_begin(chrome_map *m, chrome_event *ev);
int map_end(chrome_map *m, chrome_event *ev);
int map_complete(chrome_map *m, chrome_event *ev);
int async_begin(chrome_map *m, chrome_event *ev, const char *ns);
int async_end(chrome_map *m, chrome_event *ev, const char *ns, kcount ok, kcount stray);
int async_point(chrome_map *m, chrome_event *ev, const char *ns, kcount ok);
int map_object(chrome_map *m, chrome_event *ev, char ph);
/* Close what is open at the trace end (@p emit) or only let go; 0 ok. */
int map_close_spans(chrome_map *m, bool emit);

/* ---------------------------------------------- chrome_map_flow.c */

int map_flow(chrome_map *m, chrome_event *ev, char ph);
/* Flow v2 bindings of a slice-like record (bind_id, flow_in, flow_out). */
int maybe_bind(chrome_map *m, const chrome_event *ev);
/* Let go of the flow points; count those never finished (@p count). */
void map_close_flows(chrome_map *m, bool count);

/* -------------------------------------------- chrome_map_sample.c */

int map_counter(chrome_map *m, chrome_event *ev);
int map_sample(chrome_map *m, chrome_event *ev);
/* Samples that waited for stack frames; 0 ok. */
int map_flush_deferred(chrome_map *m);
void map_free_samples(chrome_map *m);

#endif /* SLOG_IMPORT_CHROME_MAP_INT_H */
