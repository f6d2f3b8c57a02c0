/* SPDX-License-Identifier: MIT
 *
 * api_index_build.h - the state of slog_index_write, shared by
 * api_index_write.c (inputs, options, totals) and api_index_build.c
 * (global tables, copying an input's top levels, writing the index).
 * Not installed.
 * Layer 5: api.
 */
#ifndef API_INDEX_BUILD_H
#define API_INDEX_BUILD_H

#include <slog/slog_index.h>

#include "api_internal.h"
#include "node_format_index.h"
#include "util_intern.h"
#include "util_sat.h"

typedef struct ixb_file_id {
    uint64_t dev, ino;
} ixb_file_id;

typedef struct ixb {
    slog_index_options o;
    const char *out;
    store *st;               /* the index, created with the first input's clock */
    uint64_t tps;            /* the inputs' clock */
    uint64_t cur_bytes;      /* size of the input being added */
    util_intern strings;     /* the index's /strings */
    store_timeline_row *tls; /* global timelines */
    size_t ntl, tlcap;
    store_category_row *cats; /* global categories */
    size_t ncat, catcap;
    ix_table t; /* inputs (all allocated), map and roots (grown) */
    size_t mapcap, rootcap;
    ixb_file_id *ids;
    uint64_t nodes;       /* rows written to /nodes */
    uint64_t payload_end; /* /payload bytes in use */
    store_summary sum;
    slog_index_summary summary;
    uint8_t *blob; /* scratch for one decoded blob */
    size_t blobcap;
} ixb;

int ixb_init(ixb *b, size_t n, const char *out, slog_error *err);
/* Remove a half-written index unless keep. */
void ixb_free(ixb *b, bool keep);
int ixb_check_links(const ixb *b, size_t n, slog_error *err);
/* SLOG_INDEX_COPY_ALL: input i's whole string heap appended to the index's
 * (its args name strings by offset in it); r NULL: a missing input. */
int ixb_embed_strings(ixb *b, size_t i, const slog_reader *r, slog_error *err);
/* Input i's top timeline (unless every timeline is linked) and timelines;
 * r NULL: a missing input, its top timeline only. */
int ixb_add_timelines(ixb *b, size_t i, const slog_reader *r, const char *label, slog_error *err);
int ixb_add_categories(ixb *b, size_t i, const slog_reader *r, slog_error *err);
/* Decoded blob bytes copied per input: the option, or by default 64 MiB
 * shared by the inputs, at least 16 KiB and at most 1 MiB each. */
uint64_t ixb_copy_budget(const ixb *b);
/* Copy input i's top levels (api_index_copy.c). */
int ixb_copy_top(ixb *b, size_t i, slog_reader *r, slog_error *err);
int ixb_create_store(ixb *b, slog_error *err);
/* Append a decoded blob; *off gets its offset. */
int ixb_append_blob(ixb *b, const void *raw, size_t n, uint64_t *off, slog_error *err);
int ixb_push_root(ixb *b, uint64_t row, slog_error *err);
/* Tables, the input table and its row, the summary; close. */
int ixb_finish(ixb *b, slog_error *err);

#endif /* API_INDEX_BUILD_H */
