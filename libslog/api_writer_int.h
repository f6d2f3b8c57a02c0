/* SPDX-License-Identifier: MIT
 *
 * api_writer_int.h - the file writer's state, split between the two sides
 * of a writer (not installed):
 *   caller side (api_writer.c): validation, the timeline, category and
 *     string tables, begin/end stacks, the time range checks;
 *   apply side (api_writer_apply.c): exclusive time, the tree builder, the
 *     store, and the flushes that append the tables to the file.
 * A synchronous writer runs both on the calling thread.  With
 * SLOG_WRITER_BACKGROUND the apply side runs on one background thread
 * (api_writer_bg.h): the caller packs each checked drawable into a record
 * (wrec) and the background applies the records in order.  What both
 * sides touch:
 *   - table rows are only appended; the apply side reads rows below the
 *     counts its records brought (a_ntl, a_ncat, a_strings), which the
 *     caller wrote before handing the records over;
 *   - moving a table (a realloc) and renaming a timeline happen under
 *     grow_mu, which the apply side holds while it writes the tables;
 *   - everything else is one side's own (the a_ and c_ prefixes).
 * Layer 5: api.
 */
#ifndef API_WRITER_INT_H
#define API_WRITER_INT_H

#include <pthread.h>

#include <slog/slog_writer.h>

#include "api_writer_bg.h"
#include "api_writer_colour.h"
#include "node_format.h"
#include "preview.h"
#include "store.h"
#include "tree_build.h"
#include "util_buf.h"
#include "util_intern.h"

typedef enum writer_state { W_OPEN, W_FINISHED, W_ERROR } writer_state;

typedef struct open_state {
    int64_t start;
    uint32_t category;
    uint32_t args_off, args_len; /* in the timeline's args buffer */
} open_state;

/* Caller side: a timeline's begin/end stack. */
typedef struct timeline_rt {
    open_state *stack;
    size_t depth, cap;
    util_buf args;
} timeline_rt;

typedef struct child_acc {
    int64_t sum;    /* durations of closed children waiting for their parent */
    int64_t lo, hi; /* their box */
} child_acc;

/* Apply side: a timeline's exclusive-time accumulators, one per depth. */
typedef struct timeline_acc {
    child_acc *acc;
    size_t cap;
} timeline_acc;

struct slog_writer {
    writer_state state;
    slog_error fail_err; /* what put it in W_ERROR (api_writer_fail), for the later calls */
    char path[256];
    /* caller side */
    store_timeline_row *tls;
    timeline_rt *rt;
    uint32_t *root;              /* each timeline's top-level ancestor */
    size_t ntl, cap_tl;
    uint8_t *tl_dirty; /* renamed after written (grow_mu) */
    store_category_row *cats;
    size_t ncat, cap_cat;
    writer_colours colours; /* palette colours in use (api_writer_colour.h) */
    util_intern strings;
    util_buf argbuf;
    int64_t c_tmin, c_tmax; /* time range of what was accepted */
    wbg *bg;                /* NULL: synchronous */
    size_t c_strings, c_ncat; /* tables as the last WOP_TABLES said (background) */
    pthread_mutex_t grow_mu;
    /* apply side */
    store *st;
    tree_builder *tb;
    pv_fold_ctx ctx; /* over a_parent, a_root */
    uint32_t *a_parent, *a_root;
    timeline_acc *a_acc;
    size_t a_ntl, a_cap;
    size_t a_ncat, a_strings; /* table rows the applied records may use */
    size_t tl_written, cat_written, strings_written;
    int64_t t_min, t_max;
    uint32_t flush_nodes;
    uint64_t nodes_at_flush;
    slog_flush_fn on_flush;
    void *on_flush_ctx;
};

/* What the caller hands the apply side (native layout, never in a file). */
typedef enum wrec_op {
    WOP_STATE,
    WOP_EVENT,
    WOP_ARROW,
    WOP_COUNTER,
    WOP_TIMELINE,
    WOP_TABLES /* how far the string heap and categories reach from here on */
} wrec_op;

typedef struct wrec {
    uint32_t op;       /* wrec_op */
    uint32_t args_len; /* bytes of encoded args after the record, padded to 8 */
    union {
        fmt_state_rec s;
        fmt_event_rec e;
        fmt_arrow_rec a;
        fmt_counter_rec c;
        struct {
            uint32_t id, parent, root;
        } tl;
        struct {
            uint64_t strings, ncat;
        } tables;
    } u;
} wrec;

/* api_writer_apply.c: one record, on whichever thread applies.  Returns
 * SLOG_OK or an error with err set (the caller marks the writer). */
int api_writer_apply(slog_writer *w, const wrec *r, const uint8_t *args, slog_error *err);
/* A state, without the record (the synchronous writer's path); sets s->excl. */
int api_writer_apply_state(slog_writer *w, fmt_state_rec *s, const uint8_t *args,
                           size_t args_len, slog_error *err);
/* A background batch: its records. */
int api_writer_apply_batch(void *ctx, const uint8_t *batch, size_t len, slog_error *err);
/* Append the new table rows and the summary to the file; complete = 1 marks
 * it finished.  Synchronous writers first take the caller's counts. */
int api_writer_flush_tables(slog_writer *w, uint32_t complete, slog_error *err);
void api_writer_apply_free(slog_writer *w);

#endif /* API_WRITER_INT_H */
