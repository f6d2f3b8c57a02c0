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
};

#endif /* API_INTERNAL_H */
