/* SPDX-License-Identifier: MIT
 *
 * trace_ref.h - random reference traces for the test suites: a seeded PRNG,
 * a generator of random traces (random call trees per timeline, events,
 * arrows, counter samples, args), an in-memory copy of every drawable, a
 * writer that feeds the trace to libslog in a chosen arrival order, and the
 * brute-force side of the checks (overlap rule, canonical item keys for
 * multiset comparison, fold rows).  Uses only the public API.
 */
#ifndef TRACE_REF_H
#define TRACE_REF_H

#include <slog/slog.h>

#define TR_MAX_ARGS 3

/* xoshiro256** seeded through splitmix64: fast and reproducible. */
typedef struct tref_rng {
    uint64_t s[4];
} tref_rng;

void tref_rng_seed(tref_rng *r, uint64_t seed);
uint64_t tref_rng_next(tref_rng *r);
/** Uniform in [0, n); n > 0. */
uint64_t tref_rng_below(tref_rng *r, uint64_t n);
/** Uniform in [lo, hi]; lo <= hi. */
int64_t tref_rng_range(tref_rng *r, int64_t lo, int64_t hi);
/** True with probability percent / 100. */
int tref_rng_chance(tref_rng *r, unsigned percent);

/** One drawable of the reference copy. */
typedef struct tref_item {
    slog_kind kind;
    uint32_t timeline;   /* arrow: from */
    uint32_t to;         /* arrow only */
    uint32_t category;
    int64_t start, end;  /* events and counters: start == end */
    uint32_t depth;      /* states */
    int64_t exclusive;   /* states: duration minus direct children */
    double value;        /* counters */
    uint32_t nargs;
    slog_arg args[TR_MAX_ARGS];
    char *key;           /* canonical key, see tref_key_* */
} tref_item;

typedef struct tref_params {
    uint64_t seed;
    uint32_t timelines;        /* 1.. */
    uint32_t states;           /* approximate number of states */
    uint32_t events, arrows, counters;
    uint32_t state_categories; /* 1.. */
    uint32_t max_depth;        /* deepest nesting level */
    int64_t base;              /* first tick of the trace */
    int64_t span;              /* length of the trace in ticks */
    unsigned args_percent;     /* share of drawables carrying args */
    int64_t gap_lo, gap_hi;    /* no drawable in [gap_lo, gap_hi) when gap_hi > gap_lo */
    uint32_t gap_spanning;     /* depth-0 states on timeline 0 that span the gap */
} tref_params;

typedef struct tref_trace {
    uint32_t ntimelines;
    uint32_t *parent;          /* per timeline, SLOG_NO_PARENT at top */
    slog_timeline_kind *tkind;
    uint32_t ncategories;
    slog_kind *ckind;          /* per category */
    tref_item *items;
    size_t nitems;
    size_t cap;
    /* For begin/end arrival: each state's DFS position per timeline. */
    uint64_t *dfs_begin, *dfs_end; /* per item (states only) */
    int64_t start, end;        /* over all drawables */
    uint64_t count[4];
} tref_trace;

typedef enum tref_order {
    TR_ORDER_END = 0,      /* nondecreasing end time (children before parents) */
    TR_ORDER_SHUFFLED = 1, /* uniformly random */
    TR_ORDER_BEGIN_END = 2,/* states through slog_writer_begin/end in time order */
    TR_ORDER_REVERSED = 3  /* nonincreasing end time (worst case) */
} tref_order;

/** Generate a trace; returns 0 or -1 (out of memory). */
int tref_generate(tref_trace *t, const tref_params *p);
void tref_free(tref_trace *t);

/**
 * Write @p t to @p path in the given arrival order.  Returns the first
 * failing status (and fills @p err) or SLOG_OK.  With @p finish false the
 * writer is flushed and destroyed without finish.
 */
int tref_write(const tref_trace *t, const char *path, const slog_writer_options *o, tref_order order,
             uint64_t seed, bool finish, slog_error *err);

/** The overlap rule of slog_reader.h. */
bool tref_overlaps(int64_t start, int64_t end, int64_t t0, int64_t t1);

/** Fold row of @p tl in the reference hierarchy (slog_reader_fold_row's contract). */
uint32_t tref_fold_row(const tref_trace *t, uint32_t tl, uint32_t fold);

/** Canonical key of a returned drawable (not a preview); malloc'ed. */
char *tref_key_item(const slog_item *it);

/** Does @p it (not a preview) pass the query's filters? */
bool tref_item_matches(const tref_item *it, const slog_query_options *q);

/** Sort an array of keys in place. */
void tref_sort_keys(char **keys, size_t n);

/** Compare two sorted key multisets; on difference returns false and
 *  writes a description into @p msg. */
bool tref_same_keys(char **a, size_t na, char **b, size_t nb, char *msg, size_t msg_size);

/** Everything one query returned. */
typedef struct tref_result {
    int status;               /* SLOG_END on success */
    slog_error err;
    char **keys;              /* drawables */
    size_t nkeys;
    slog_item *items;         /* copies of drawables (args pointers cleared) */
    slog_preview *previews;
    size_t npreviews;
    slog_run *runs;           /* pixel runs; categories copied (freed with the result) */
    size_t nruns;
    uint64_t *read_nodes;
    size_t nread;
    slog_query_stats stats;
} tref_result;

/** Run a query to its end; collects everything.  Returns the create/next status. */
int tref_run_query(slog_reader *r, const slog_query_options *q, tref_result *res);
void tref_result_free(tref_result *res);

#endif /* TRACE_REF_H */
