/* SPDX-License-Identifier: MIT
 *
 * api_internal.h - the reader's layout, shared by api_reader.c (open,
 * metadata) and api_query.c (queries).  Not installed.
 * Layer 5: api.
 */
#ifndef API_INTERNAL_H
#define API_INTERNAL_H

#include "preview.h"
#include "store.h"
#include "tree_read.h"

#include <slog/slog_reader.h>

/* An index's copy of an input's top levels cannot answer (a query would
 * descend into a node whose subtree stayed in the input file): internal,
 * never returned by a public call (api_index_query.c asks the file). */
#define API_ECUT (-1000)

typedef struct api_index api_index;

/* An index's overview (api_index_query.c): the query's walk of an input's
 * copied levels treats a TREE_NODE_CUT node it would descend as dense (its
 * preview stands for its subtree) instead of failing with API_ECUT. */
void api_query_cut_as_preview(slog_query *q);

struct slog_reader {
    store *st;
    store_header hdr;
    store_summary sum;
    slog_file_info info;
    char path[256];
    char *strings;
    uint64_t strings_len;
    fmt_strings fs;
    store_timeline_row *tls;
    uint64_t ntl;
    uint32_t *parent, *root;
    pv_fold_ctx ctx;
    store_category_row *cats;
    uint64_t ncat;
    tree_read tree;           /* node table, roots, node cache */
    /* slog_reader_refresh: the heap has room for strings_cap bytes; heaps
     * it outgrew stay until destroy (names and cached args point into them) */
    uint64_t strings_cap;
    char **retired;
    size_t nretired, retired_cap;
    api_index *index;         /* an index file's inputs, views and pool; NULL otherwise */
    bool view;                /* one input's view of an index: st, strings are borrowed */
};

/* /timelines rows with each one's parent and root, validated. */
typedef struct api_timelines {
    store_timeline_row *rows;
    uint64_t n;
    uint32_t *parent, *root;
} api_timelines;

/* The open path's loaders, shared with slog_reader_refresh (api_refresh.c).
 * Each reads what the file has now, keeps the first `covered` rows (the
 * summary's count) and checks them against the reader's string heap. */
int api_reader_load_summary(slog_reader *r, store_summary *sum, slog_error *err);
int api_reader_load_timelines(slog_reader *r, uint64_t covered, api_timelines *out,
                              slog_error *err);
void api_timelines_free(api_timelines *t);
/* Exchange the reader's timeline arrays with t's. */
void api_reader_swap_timelines(slog_reader *r, api_timelines *t);
int api_reader_load_categories(slog_reader *r, uint64_t covered, store_category_row **out,
                               uint64_t *n, slog_error *err);
/* slog_file_info from the summary and the tree; then, for an incomplete
 * file, the counts of what its subtrees hold (O(roots) previews). */
void api_reader_fill_info(slog_reader *r);
int api_reader_count_incomplete(slog_reader *r, slog_error *err);

#endif /* API_INTERNAL_H */
