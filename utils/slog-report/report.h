/* SPDX-License-Identifier: MIT
 *
 * report.h - what slog-report gathers from a libslog file and the calls
 * that gather and print it.  Everything comes from the public reader API
 * without a full scan: window statistics answered from previews
 * (slog_stats), the longest states (slog_search_top), the last counter
 * samples (slog_search_prev) and one pixel-bounded query over the whole
 * trace for the overview image and the message matrix; so the cost is
 * bounded by pixels x rows, not by the file's size.  The page is then
 * printed from this data alone (report_html.c and the section files).
 * Tools layer: public libslog headers and utils/common only.
 */
#ifndef SLOG_REPORT_H
#define SLOG_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <slog/slog.h>

#include "timeline_tree.h"

#define REPORT_PROG  "slog-report"
#define REPORT_NONE  UINT32_MAX
#define REPORT_FOLDS 40u /* folds considered: timelines, parents, tops, blocks up to 2^37 */

typedef struct report_config {
    const char *path;    /* the trace */
    const char *output;  /* the HTML file */
    uint32_t pixels;     /* overview width (query resolution = span / pixels) */
    uint32_t max_rows;   /* overview and utilisation rows at most (groups above) */
    uint32_t top;        /* longest states listed */
    uint32_t matrix_max; /* message matrix side at most (groups above) */
    uint32_t max_series; /* counter series listed at most */
    uint32_t max_cats;   /* category rows of each kind at most (the rest added up) */
    bool quiet;          /* no cost line on stderr */
} report_config;

/* What gathering cost: the API's own accounting plus the operating system's. */
typedef struct report_cost {
    uint64_t bytes_read;  /* compressed bytes the API calls read (stats, search, query) */
    uint64_t blobs_read;  /* node blobs (previews or drawables) the calls needed */
    uint64_t query_items; /* items the overview queries returned */
    uint64_t os_read;     /* bytes read(2) by the process while gathering, open included
                             (/proc/self/io rchar); UINT64_MAX when unknown */
    double ms;            /* wall time of the gathering */
} report_cost;

/* One state contribution of the overview query: a real state, one
 * category's share of a pixel run, or a state preview.  Its row is a
 * timeline (fold 0) or the group a preview was folded to. */
typedef struct report_piece {
    uint32_t fold, key, category;
    int64_t start, end;
    int64_t incl;   /* inclusive ticks */
    int64_t busy;   /* depth-0 ticks (a preview: its exclusive time) */
    uint64_t count; /* states it stands for */
} report_piece;

/* Counter samples of one (row at a fold, category): a sample, a run of
 * samples or a counter preview. */
typedef struct report_sample {
    uint32_t fold, key, category;
    uint64_t count;
    double vmin, vmax, vsum;
} report_sample;

/* An arrow count between two rows at one fold (before regrouping). */
typedef struct report_pair {
    uint32_t fold, from, to;
    uint64_t count;
} report_pair;

/* Rows for all states: timelines (fold 0) or groups of them
 * (slog_reader_fold_row), at least as coarse as every state preview the
 * overview query met, so each row's totals would be exact. */
typedef struct report_rows {
    uint32_t fold;
    uint32_t n;
    uint32_t *key;        /* per row: its key at `fold` */
    uint32_t *first;      /* per row: first timeline in display order */
    uint32_t *last;       /* per row: last timeline in display order */
    uint32_t *members;    /* per row: timelines in it */
    uint32_t *leaves;     /* per row: of them, timelines without children */
    uint32_t *row_of_key; /* per key at `fold`: its row, REPORT_NONE when none */
} report_rows;

/* A row of the overview image: a timeline or a group (report_layout.c). */
typedef struct report_img_row {
    uint32_t fold, key;
    uint32_t first, last; /* first and last member timeline, display order */
    uint32_t members;     /* timelines it stands for (not in a finer row) */
    uint32_t leaves;      /* of them, timelines without children */
    double busy;          /* depth-0 ticks (an estimate: report_util.c) */
    double inclusive;     /* summed state durations, ticks */
    double states;        /* states */
    bool estimated;       /* some of it is a group's share spread over rows */
} report_img_row;

typedef struct report_layout {
    uint32_t fold; /* of the rows of the timelines drawn one by one */
    uint32_t n;
    report_img_row *row;
    uint32_t *up;       /* REPORT_FOLDS x n: a row's key at a coarser fold */
    uint64_t up_filled; /* bit f: the keys at fold f are in up */
    uint32_t *base;     /* per key at `fold`: its row, REPORT_NONE when none */
} report_layout;

/* The overview raster: per (row, pixel) inclusive time per colour slot
 * (the most used state categories, then "other") and depth-0 busy time. */
typedef struct report_grid {
    uint32_t width;
    uint32_t nslots;    /* colour slots, "other" last */
    uint32_t *slot_cat; /* category of each slot but the last */
    uint32_t *slot_of;  /* per category: its slot */
    float *weight;      /* rows x width x nslots, ticks */
    float *busy;        /* rows x width, ticks summed over a row's members */
    int64_t t0;         /* left edge, ticks */
    int64_t resolution; /* ticks per pixel */
} report_grid;

/* Message matrix: arrows between timelines or groups of them. */
typedef struct report_matrix {
    uint32_t fold;
    uint32_t n;
    uint32_t *key;       /* per side entry: its key at side_fold */
    uint32_t *side_fold; /* per side entry: `fold`, or a coarser group's fold */
    uint64_t *count;     /* n x n, [from * n + to] */
    uint64_t total;
} report_matrix;

/* A counter series: one counter category on a timeline or a group. */
typedef struct report_series {
    uint32_t key, category;
    uint64_t count;
    double vmin, vmax, vsum, last;
    bool has_last;
} report_series;

typedef struct report {
    report_config cfg;
    slog_reader *r;
    slog_file_info fi;
    bool has_data;  /* at least one drawable: the time range is real */
    int64_t t0, t1; /* the whole window, as slog-query's default */
    timeline_tree tl;
    uint32_t *preorder_pos; /* per timeline: its position in tl.order */
    slog_category_info *cats;
    slog_stats_row *by_cat;
    size_t nby_cat;
    slog_stats_row *by_tl; /* states by timeline, when cheap (format 3); else NULL */
    size_t nby_tl;
    slog_state *top;
    uint32_t ntop;
    report_piece *pieces; /* collected by the overview query */
    size_t npieces, cap_pieces;
    report_sample *samples;
    size_t nsamples, cap_samples;
    report_pair *pairs;
    size_t npairs, cap_pairs;
    report_rows rows;
    report_layout layout;
    report_grid grid;
    report_matrix matrix;
    uint32_t series_fold; /* fold of the counter series */
    report_series *series;
    size_t nseries;        /* listed */
    size_t series_total;   /* found */
    uint32_t query_pixels; /* pixels of the overview query the items came from */
    report_cost cost;
    uint32_t ninputs;      /* an index: its input files read on demand (not copied, not missing) */
    uint64_t inputs_bytes; /* their sizes when indexed */
} report;

/* The overview query is tried at this many times the image's pixels when
 * the file's previews fold timelines together at the image's zoom. */
#define REPORT_REFINE 8u

/* Statistics by timeline are asked for only from format-3 files (whose
 * inner previews carry per-timeline totals) with at most this many
 * timelines (the writer drops the totals past preview_bytes / 8 entries;
 * without them the statistics would decode every node). */
#define REPORT_BY_TIMELINE_MAX    4096u
#define REPORT_BY_TIMELINE_FORMAT 3u

/* ---- gathering (report_data.c, report_rows.c, report_collect.c, report_grid.c) ---- */

/* Open the file and gather every section.  Prints the reason on stderr.
 * @return 0, or an exit status (1) */
int report_gather(report *rp);
void report_free(report *rp);
/* Bytes the report's reads are out of: the file, and an index's input
 * files (rp->inputs_bytes); the same as a phrase, "the file's 2.97 MiB" or
 * "the index's 26.84 KiB and its 4 input files' 85.35 KiB". */
uint64_t report_data_bytes(const report *rp);
const char *report_data_words(const report *rp, char *buf, size_t len);
/* Print "slog-report: FILE: WHAT: MESSAGE (CODE)" on stderr; returns 1. */
int report_api_error(const report *rp, const char *what, int rc, const slog_error *err);

/* Rows at the fold that fits max_rows and every state preview. */
int report_rows_build(report *rp);
/* Key at fold @p to of the key @p key at fold @p from (from <= to). */
uint32_t report_key_up(const report *rp, uint32_t key, uint32_t from, uint32_t to);
/* What the rows at a fold are, as a phrase ("one row per timeline ..."). */
const char *report_fold_words(uint32_t fold);
/* Label of a key at a fold ("name", or "first … last" for blocks). */
const char *report_key_label(const report *rp, uint32_t fold, uint32_t key, char *buf, size_t len);

/* The overview query: pieces, samples and pairs (report_collect.c). */
int report_collect(report *rp);
/* The overview image's rows (report_layout.c). */
int report_layout_build(report *rp);
/* Where a piece goes: its group at the layout's fold or its own, if coarser. */
void report_layout_target(const report *rp, const report_piece *p, uint32_t *fold, uint32_t *key);
/* Key of image row @p r at @p fold: REPORT_NONE when the row is coarser. */
uint32_t report_layout_key_at(report *rp, uint32_t r, uint32_t fold);
/* Call @p fn for each image row a piece lands on, with its share (1.0 when
 * the row takes all of it; less when a group is spread over its rows). */
typedef void (*report_spread_fn)(report *rp, uint32_t row, const report_piece *p, double share);
void report_layout_spread(report *rp, const report_piece *p, report_spread_fn fn);
/* Label of image row @p r, raw text ("parent / thread", "group (N)"). */
const char *report_row_label(const report *rp, uint32_t r, char *buf, size_t len);
/* The image row timeline @p t belongs to (the finest that covers it). */
uint32_t report_layout_row_of(const report *rp, uint32_t t);
/* With statistics by timeline (rp->by_tl), each row's exact totals: busy
 * = summed exclusive time, inclusive time, states; nothing estimated. */
void report_layout_exact_totals(report *rp);
/* Leaf timelines of image row @p r, at least 1 (1 for a timeline row). */
uint32_t report_layout_leaves(const report *rp, uint32_t r);
/* The overview raster (report_grid.c). */
int report_grid_build(report *rp);
int report_matrix_build(report *rp);
/* Counter series from the samples, their last values by search (report_series.c). */
int report_series_build(report *rp);

/* A row reference: a key at a fold (a timeline at fold 0). */
typedef struct report_ref {
    uint32_t fold, key;
} report_ref;

/* The finest fold, at least as coarse as every reference's own, at which
 * the references fall into at most @p max distinct keys (REPORT_FOLDS - 1
 * when none is). */
uint32_t report_fold_fit(const report *rp, const report_ref *refs, size_t n, uint32_t max);
/* The distinct keys of the references at @p fold (>= theirs) in display
 * order; @p keys holds at least @p cap.  @return how many (<= cap kept) */
uint32_t report_fold_keys(const report *rp,
                          const report_ref *refs,
                          size_t n,
                          uint32_t fold,
                          uint32_t *keys,
                          uint32_t cap);

/* ---- printing (report_html.c and the section files) ---- */

/* Write the whole page to @p f.  @return 0, or -1 on out of memory */
int report_write_html(const report *rp, FILE *f);

void html_text(FILE *f, const char *s);
void html_duration(FILE *f, const report *rp, int64_t ticks);
void html_count(FILE *f, uint64_t n);
void html_section_begin(FILE *f, const char *id, const char *title);
/* Table cells with the exact value in data-v: a count, a share (0..1) with
 * a bar, a duration (data-v in ns). */
void html_td_count(FILE *f, uint64_t n);
void html_td_share(FILE *f, double share);
void html_td_duration(FILE *f, const report *rp, int64_t ticks);
/* Attributes naming the timelines a row at @p fold stands for:
 * data-timeline="ID" at fold 0, else data-timelines="ID,ID,..." (left out
 * when the file has more than REPORT_LISTED_TIMELINES timelines). */
#define REPORT_LISTED_TIMELINES 20000u
void html_members_attr(FILE *f, const report *rp, uint32_t fold, uint32_t key);
int64_t report_ticks_to_ns(const report *rp, int64_t ticks);
const char *report_timeline_name(const report *rp, uint32_t id);
/* "parent / name" (thread names repeat across processes), or the name. */
const char *report_timeline_path(const report *rp, uint32_t id, char *buf, size_t len);
const char *report_category_name(const report *rp, uint32_t id);
void report_color_hex(uint32_t rgba, char out[8]);

void report_write_overview(const report *rp, FILE *f);
/* The overview's data as JSON (report_image.c). */
void report_overview_json(const report *rp, FILE *f);
int report_write_json_script(FILE *f,
                             const char *id,
                             const report *rp,
                             void (*body)(const report *rp, FILE *mem));
void report_write_categories(const report *rp, FILE *f);
void report_write_utilisation(const report *rp, FILE *f);
void report_write_top(const report *rp, FILE *f);
void report_write_matrix(const report *rp, FILE *f);
void report_write_counters(const report *rp, FILE *f);

/* ---- output (report_output.c) ---- */

/* Write the page to a temporary file beside @p path, then rename it over
 * @p path: a failure never leaves a half-written report.
 * @return 0, or an exit status (1) after printing the reason */
int report_output(const report *rp, const char *path);

#endif /* SLOG_REPORT_H */
