/* SPDX-License-Identifier: MIT
 *
 * api_thread.h - the layout of the threaded writer (slog_thread.h), shared by
 * api_thread.c (create, definitions, locations, finish), api_thread_append.c
 * (the calling thread's records and buffer handover) and api_thread_drain.c
 * (the background thread that feeds the records to the file writer).
 *
 * Buffers hold records (tw_rec, 8-byte aligned, size in the header word).
 * A location appends to its own buffer and publishes the end with a release
 * store of `pos`; a full buffer goes to the queue under `qmu` and the
 * background takes it in FIFO order, so one location's records reach the
 * file writer in the order they were appended.  Lock order: reg_mu, then a
 * location's mu, then def_mu or qmu; slab_mu last, with nothing taken under
 * it.  Buffers come from huge pages (util_slab.h): a fresh 4 KiB page cost
 * more than the records written into it on a virtual machine
 * (doc/PERFORMANCE.md, "Per-thread writers").  Only the background thread (and
 * finish/destroy after it stopped) touches the slog_writer; fork() waits
 * until it is idle (api_thread_fork.c).
 * Layer 5: api.
 */
#ifndef API_THREAD_H
#define API_THREAD_H

#include <pthread.h>
#include <slog/slog_thread.h>
#include <stdatomic.h>

#include "util_slab.h"

enum { TW_BEGIN = 1, TW_END, TW_EVENT, TW_COUNTER, TW_ARROW, TW_GAP };
#define TW_HAS_ARGS   0x80u   /* word: args follow the fixed part */
#define TW_TYPE_MASK  0x7fu
#define TW_SIZE_SHIFT 8u      /* word >> 8: record bytes / 8 */

/* Every record starts with this; END uses only word and time. */
typedef struct tw_rec {
    uint32_t word;
    uint32_t cat;
    int64_t time;
} tw_rec;

typedef struct tw_arrow_rec {
    tw_rec h;       /* h.time = start */
    int64_t end;
    uint32_t from, to;
} tw_arrow_rec;

typedef struct tw_counter_rec {
    tw_rec h;
    double value;
} tw_counter_rec;

/* A dropped stretch of a location: h.cat = the lowest open depth in it (the
 * states below stay), h.time = the location's last time; the states open
 * above that depth before it ended in it, so they are not written (their
 * ends are lost), and `lost_begins` states begun in it (still open after
 * it) are not written either: their ends are skipped. */
typedef struct tw_gap_rec {
    tw_rec h;
    uint32_t lost_begins, reserved;
} tw_gap_rec;

#define TW_ITEM_CLOSE 1u /* the location closed: end its open states */

typedef struct tw_item {
    struct tw_item *next;
    uint8_t *data;
    size_t len, cap;
    size_t block;        /* data's size class in tw->slab (0: util_calloc'd) */
    uint32_t timeline;
    uint32_t flags;
    int64_t last_time;   /* the location's clock after these records (INT64_MIN: unknown) */
    size_t begin;        /* records start here (a flush took the bytes before) */
} tw_item;

typedef struct tw_def_timeline {
    uint32_t parent;
    slog_timeline_kind kind;
    char *name;
    bool renamed;             /* a name the background has still to give the writer */
} tw_def_timeline;

typedef struct tw_def_category {
    slog_kind kind;
    char *name;
    char *group;              /* NULL: none */
} tw_def_category;

struct slog_location {
    /* the owning thread's hot fields */
    uint8_t *buf;
    size_t cap;
    _Atomic size_t pos;   /* bytes written; release-stored after each record */
    int64_t last;
    uint32_t depth;
    uint32_t timeline;
    uint32_t drop_min_depth;  /* lowest depth in the current buffer (drop mode) */
    struct slog_twriter *tw;
    tw_item *item;            /* the current buffer */
    size_t taken;             /* bytes finish or flush already took (under mu) */
    pthread_mutex_t mu;
    struct slog_location *prev, *next; /* the writer's list (reg_mu) */
};

/* A state begun and not yet ended, as the background sees it; its args
 * (put_args' layout) wait in the timeline's arena until its end. */
typedef struct tw_open {
    int64_t start;
    uint32_t cat;
    uint32_t lost;       /* begun in a dropped stretch: its end is skipped */
    size_t args_off, args_len;
} tw_open;

typedef struct tw_bg_timeline {
    tw_open *open;       /* innermost last */
    size_t depth, cap;
    uint8_t *arena;      /* args of the open states */
    size_t arena_len, arena_cap;
    int64_t last;        /* the location's last time */
    /* api_thread_merge.c: items waiting to be replayed in time order */
    tw_item *head, *tail;
    size_t off;          /* replay position in head */
    int64_t handed;      /* the location's clock at the end of the last item handed over */
    uint8_t tracked;     /* it handed items and did not close: it holds the watermark */
    uint8_t listed;      /* in tw->active */
} tw_bg_timeline;

/* slog_twriter.finished: appends stop when either bit is set */
#define TW_FINISHED 1 /* finish or destroy began (set first) */
#define TW_FAILED   2 /* the file writer failed (tw_fail): appends are refused */

struct slog_twriter {
    _Atomic int finished;     /* TW_FINISHED | TW_FAILED; checked by appends */
    _Atomic int refs;         /* 1 for the writer + 1 per open location */
    slog_twriter_options opts;
    slog_writer_options wopts;
    char path[256];

    pthread_mutex_t reg_mu;   /* the open locations' list */
    slog_location *locs;

    pthread_mutex_t def_mu;   /* timeline and category definitions */
    tw_def_timeline *tls;
    size_t ntl, cap_tl;
    size_t renames;           /* synced timelines renamed since (tls[i].renamed) */
    tw_def_category *cats;
    size_t ncat, cap_cat;

    pthread_mutex_t slab_mu;  /* slab: the buffers' memory, from huge pages (tw_item_new) */
    util_slab slab;

    pthread_mutex_t qmu;      /* the queue, the pool and the counters below */
    pthread_cond_t q_nonempty, q_space;
    tw_item *head, *tail, *pool;
    uint64_t qbytes;          /* queued + pooled buffer bytes */
    int stalled;              /* an append gave up waiting (max_wait_ms): the next ones
                                 drop at once until there is room again */
    int stop;                 /* background: drain and exit */
    uint64_t flush_req, flush_done; /* slog_twriter_flush generations */
    int flush_rc;
    pthread_cond_t flushed;
    pthread_t bg;
    int bg_running;

    /* api_thread_fork.c: fork() waits until the background is idle, so the
     * child never inherits a lock it held (bg_busy and the wait under qmu) */
    int bg_busy;              /* from before its start to its first wait; while it works;
                                 from its last work until it was joined */
    _Atomic int fork_waiting; /* a fork waits: the background starts no work */
    pthread_cond_t fork_cv;   /* bg_busy or fork_waiting went to 0 */
    struct slog_twriter *fork_prev, *fork_next; /* writers with a background */

    /* background-only state */
    slog_writer *w;
    size_t synced_tl, synced_cat;
    tw_bg_timeline *bgtl;
    size_t cap_bgtl;
    slog_arg *scratch;
    size_t cap_scratch;
    uint32_t *active;         /* timelines with items waiting (api_thread_merge.c) */
    size_t nactive, cap_active;
    uint64_t pending_bytes;   /* their buffers' bytes */
    int failed;               /* the file writer failed (SLOG_EIO etc.) */
    slog_error fail_err;      /* the first failure's error, kept for flush and finish */
    slog_error call_err;      /* what the file writer's latest call said */
    uint64_t records;         /* records replayed: published to n_records after each pass (a
                                 locked add per record held up the replay's loads) */

    _Atomic uint64_t n_records, n_dropped, n_rejected, n_truncated, n_waits, n_buffers;
    /* drawables the file holds as of its last flush that reached the disk
     * (the file writer's on_flush, durable): stats.records once the writer
     * failed, when what the file writer took in memory is lost */
    _Atomic uint64_t n_durable;
    slog_flush_fn user_on_flush; /* the caller's slog_writer_options.on_flush, called after */
    void *user_on_flush_ctx;
    uint64_t peak_qbytes;     /* under qmu */
};

/* api_thread.c: drop one reference (the writer's or a location's); the last frees. */
void tw_unref(slog_twriter *tw);

/* api_thread_finish.c: copy what every open location published since the
 * last capture into the queue (with @p flags); under reg_mu. */
void tw_capture_locations(slog_twriter *tw, uint32_t flags);

/* api_thread_append.c */
int tw_handover(slog_location *loc, size_t need);
void tw_enqueue_locked(slog_twriter *tw, tw_item *it);
tw_item *tw_item_new(slog_twriter *tw, size_t cap);
void tw_item_free(slog_twriter *tw, tw_item *it);
uint64_t tw_count_records(const uint8_t *p, size_t len);

/* api_thread_drain.c */
void *tw_background_main(void *arg);
/* The file writer failed with @p rc (@p cause: its error, NULL for none):
 * the first failure is kept and appends are refused from now on. */
void tw_fail(slog_twriter *tw, int rc, const slog_error *cause);
int tw_sync_definitions(slog_twriter *tw);
size_t tw_replay_one(slog_twriter *tw, uint32_t timeline, const uint8_t *p);
void tw_end_open_states(slog_twriter *tw, uint32_t timeline);
void tw_recycle(slog_twriter *tw, tw_item *it);

/* api_thread_merge.c: items wait per timeline and are replayed in time
 * order across timelines, up to the watermark (everything with force). */
int tw_merge_add(slog_twriter *tw, tw_item *it);
void tw_merge_emit(slog_twriter *tw, int force);

/* api_thread_fork.c: a writer is tracked (bg_busy set) from before its
 * background starts until after it was joined (tw_fork_joined).  The
 * background reports idle (_idle_locked, under qmu) before it waits for
 * work and calls _work_locked (under qmu) before it works, tw_fork_point
 * between two slices.  The fork handlers: tests call them to hold a fork. */
void tw_fork_track(slog_twriter *tw);
void tw_fork_untrack(slog_twriter *tw);
void tw_fork_joined(slog_twriter *tw);
void tw_fork_idle_locked(slog_twriter *tw);
void tw_fork_work_locked(slog_twriter *tw);
void tw_fork_point(slog_twriter *tw);
void tw_atfork_prepare(void);
void tw_atfork_parent(void);

/* api_writer.c: a child after fork releases the parent's file writer. */
void api_writer_forget_after_fork(slog_writer *w);

#endif /* API_THREAD_H */
