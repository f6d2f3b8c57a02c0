/* SPDX-License-Identifier: MIT
 *
 * merge_int.h - the merge library's internal state, shared by its files:
 * the inputs (reader, clock factor, offset, id maps, what was read), the
 * slice buffer of copied drawables, and the run context that
 * slog_merge_files (merge_api.c) hands to the steps: options
 * (merge_options.c), input checks and clocks (merge_inputs.c), timelines
 * and categories (merge_meta.c), the slice loop (merge_slice.c) and the
 * buffer, its sort and its appends (merge_items.c).  Every error goes
 * through merge_err, which names the file in slog_error.source.
 * Merge library (libslog/merge/): public libslog headers and libslog/shared only.
 */
#ifndef SLOG_MERGE_INT_H
#define SLOG_MERGE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slog/slog_merge.h>
#include <slog/slog_reader.h>
#include <slog/slog_writer.h>

/* 128-bit intermediates for exact products (GCC and clang) */
__extension__ typedef __int128 merge_i128;
__extension__ typedef unsigned __int128 merge_u128;

/* Output clocks above this are refused: no exact conversion is practical. */
#define MERGE_MAX_TICKS_PER_SECOND UINT64_C(1000000000000)
/* The default slice holds about this many drawables... */
#define MERGE_SLICE_TARGET ((uint64_t)1 << 16)
/* ...and a slice that would hold more than this is split in two. */
#define MERGE_SLICE_CAP ((uint64_t)1 << 18)

/* One input file. */
typedef struct merge_input {
    const char *path;
    const char *label;  /* its top timeline's name */
    char label_buf[256];
    slog_reader *r;
    const slog_file_info *info;
    uint64_t mult;      /* output ticks per input tick */
    int64_t offset;     /* added to its times, its ticks, before scaling */
    uint32_t top;       /* its top timeline in the output */
    uint32_t *tl_map;   /* input timeline id -> output id */
    uint32_t *cat_map;  /* input category id -> output id */
    uint64_t kept[4];   /* drawables written from it so far, per kind */
    uint64_t pending[4]; /* of the slice being filled (a slice may be dropped and split) */
} merge_input;

/* A drawable of the current slice, in output ids and ticks. */
typedef struct merge_item {
    int64_t start, end;
    uint64_t seq;           /* arrival number: the last tie-break, so output is deterministic */
    double value;           /* counters */
    const slog_arg *args;   /* copied into the slice arena */
    uint32_t timeline, timeline_to, category, depth, nargs;
    slog_kind kind;
} merge_item;

typedef struct merge_arena_block merge_arena_block;

/* The slice buffer: items plus an arena for their args (pointers into it
 * stay valid until merge_items_clear). */
typedef struct merge_items {
    int64_t ka, kb; /* the slice: drawables whose key lies in [ka, kb] */
    merge_item *v;
    size_t n, cap;
    const merge_item **order; /* the items sorted (pointers: cheaper to move than items) */
    size_t order_cap;
    merge_arena_block *blocks;
    uint64_t seq;
} merge_items;

/* The options as the run uses them (struct_size rule applied, defaults filled). */
typedef struct merge_opts {
    slog_merge_options o;
    slog_writer_options wo; /* the output writer's */
} merge_opts;

/* slog_merge_options.links sorted by (input, timeline); next is the first
 * link of the next input to define. */
typedef struct merge_links {
    slog_merge_link *v;
    size_t n, next;
} merge_links;

/* One run of slog_merge_files. */
typedef struct merge_ctx {
    merge_input *in;
    size_t n;
    const char *out;
    merge_opts opts;
    slog_writer *w;
    uint64_t out_tps;
    int64_t lo, hi;          /* keys of all drawables lie in [lo, hi] (output ticks) */
    bool empty;              /* no input holds a drawable */
    uint64_t total;          /* drawables of all inputs */
    merge_items items;
    merge_links links;
    slog_merge_summary sum;
    slog_error *err;
} merge_ctx;

/* Fill err (when not NULL) and return code; source names the file. */
int merge_err(slog_error *err, int code, const char *source, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A reader or writer error: keep its message, make sure it names source. */
int merge_err_source(slog_error *err, int code, const char *source);

/* merge_options.c: opts (NULL = defaults) -> dst; SLOG_EINVAL on a bad struct. */
int merge_options_load(merge_opts *dst, const slog_merge_options *opts, slog_error *err);

/* merge_inputs.c */
int merge_inputs_check_paths(const char *const *paths, size_t n, const char *out, slog_error *err);
int merge_inputs_open(merge_ctx *m, const char *const *paths);
int merge_inputs_clock(merge_ctx *m);
int merge_inputs_range(merge_ctx *m);
/* floor(a / b) for b > 0 */
int64_t merge_floor_div(int64_t a, int64_t b);
/* Input time t to output ticks; false when it overflows. */
bool merge_time_out(const merge_input *in, int64_t t, int64_t *out);

/* merge_meta.c */
int merge_meta_define(merge_ctx *m);

/* merge_links.c: check the links and keep them sorted (before the output
 * exists, so a bad link writes nothing). */
int merge_links_load(merge_ctx *m);
/* Map input @p index's linked timelines (inputs in order); *linked counts them. */
int merge_links_map(merge_ctx *m, size_t index, uint32_t *linked);

/* merge_slice.c */
int merge_slices_run(merge_ctx *m);

/* merge_items.c */
/* Copy a query item of input @p in (input ids, input ticks) into the
 * buffer when its key lies in [b->ka, b->kb]; *kept says whether it did. */
int merge_items_take(merge_items *b, merge_input *in, const slog_item *it, bool *kept,
                     slog_error *err);
/* 0, or -1 when out of memory. */
int merge_items_sort(merge_items *b);
/* Append the buffer's items to w in sorted order; counts go to sum. */
int merge_items_write(const merge_items *b, slog_writer *w, slog_merge_summary *sum,
                      slog_error *err);
/* Forget the items (keep the first arena block for the next slice). */
void merge_items_clear(merge_items *b);
void merge_items_free(merge_items *b);

#endif /* SLOG_MERGE_INT_H */
