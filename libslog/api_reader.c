/* SPDX-License-Identifier: MIT
 *
 * api_reader.c - opening a file: attributes, summary, string heap,
 * timeline and category tables, each validated so that no later query can
 * index out of bounds, and the metadata calls; the node table, its roots
 * and the node cache belong to the tree layer (tree_read).  An incomplete
 * file (writer killed) is read up to the counts of its last summary.
 * Format 2: the summary, the string heap and every timeline and category
 * row are checked against their CRC32C first.
 * Layer 5: api.
 */
#include "api_index.h"
#include "api_internal.h"
#include "api_options.h"
#include "codec_crc32c.h"
#include "util_alloc.h"
#include "util_error.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define DEFAULT_CACHE_BYTES (64u << 20)
#define SUMMARY_READ_ATTEMPTS 8

static int corrupt(slog_reader *r, slog_error *err, const char *what, uint64_t index)
{
    return util_err(err, SLOG_ECORRUPT, UINT64_MAX, r->path, "Corrupt file: %s (entry %llu)",
                    what, (unsigned long long)index);
}

static int checksummed(const slog_reader *r)
{
    return r->hdr.format_read_version >= 2;
}

static int crc_mismatch(slog_reader *r, slog_error *err, const char *what, uint64_t index)
{
    return util_err(err, SLOG_ECORRUPT, UINT64_MAX, r->path,
                    "Corrupt file: %s checksum mismatch (entry %llu)", what,
                    (unsigned long long)index);
}

/* Times relative to the start and durations must fit an int64: writers
 * refuse a wider range, so a file that has one is damaged. */
static int check_span(slog_reader *r, const store_summary *sum, slog_error *err)
{
    int64_t span;
    if (sum->start <= sum->end && __builtin_sub_overflow(sum->end, sum->start, &span)) {
        return corrupt(r, err, "time range spans more than 2^63-1 ticks", 0);
    }
    return SLOG_OK;
}

/* The summary is rewritten in place at every flush: a live reader may
 * catch it half written, so a mismatch is read again from the file after
 * a growing pause (0.1 ms .. 12.8 ms, 25.5 ms in all) before it counts. */
int api_reader_load_summary(slog_reader *r, store_summary *sum, slog_error *err)
{
    long pause_ns = 100000;
    for (int attempt = 0; attempt < SUMMARY_READ_ATTEMPTS; attempt++, pause_ns *= 2) {
        const int rc = store_read_summary(r->st, sum, err);
        if (rc != SLOG_OK || !checksummed(r) || store_summary_crc(sum) == sum->crc) {
            return rc == SLOG_OK ? check_span(r, sum, err) : rc;
        }
        const struct timespec pause = {0, pause_ns};
        (void)nanosleep(&pause, NULL);
    }
    return crc_mismatch(r, err, "/summary", 0);
}

static int valid_string(const slog_reader *r, uint64_t off)
{
    return off < r->strings_len;
}

static int load_strings(slog_reader *r, slog_error *err)
{
    int rc = store_read_strings(r->st, &r->strings, &r->strings_len, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (r->strings_len > r->sum.strings_bytes && (r->sum.strings_bytes > 0 || checksummed(r))) {
        r->strings_len = r->sum.strings_bytes; /* tail written after the last summary */
    }
    if (checksummed(r) && (r->strings_len != r->sum.strings_bytes ||
                           codec_crc32c(0, r->strings, (size_t)r->strings_len) !=
                               r->sum.strings_crc)) {
        return crc_mismatch(r, err, "/strings", r->strings_len);
    }
    if (r->strings_len > 0 && r->strings[r->strings_len - 1] != '\0') {
        return corrupt(r, err, "string heap does not end with NUL", r->strings_len);
    }
    r->fs.heap = r->strings;
    r->fs.len = r->strings_len;
    r->strings_cap = r->strings_len;
    return SLOG_OK;
}

/* Check rows[0..n) of /timelines and build each one's parent and root. */
static int check_timelines(slog_reader *r, const store_timeline_row *rows, uint64_t n,
                           uint32_t *parent, uint32_t *root, slog_error *err)
{
    for (uint64_t i = 0; i < n; i++) {
        const store_timeline_row *const t = &rows[i];
        if (checksummed(r) && store_timeline_row_crc(t) != t->crc) {
            return crc_mismatch(r, err, "/timelines row", i);
        }
        if (t->id != i || (t->parent != SLOG_NO_PARENT && t->parent >= i) ||
            t->kind > SLOG_TIMELINE_RANK || !valid_string(r, t->name)) {
            return corrupt(r, err, "bad timeline row", i);
        }
        parent[i] = t->parent;
        root[i] = t->parent == SLOG_NO_PARENT ? (uint32_t)i : root[t->parent];
    }
    return SLOG_OK;
}

int api_reader_load_timelines(slog_reader *r, uint64_t covered, api_timelines *out,
                              slog_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = store_read_timelines(r->st, &out->rows, &out->n, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    out->n = out->n > covered ? covered : out->n;
    out->parent = util_calloc((size_t)out->n + 1, sizeof *out->parent);
    out->root = util_calloc((size_t)out->n + 1, sizeof *out->root);
    if (out->parent == NULL || out->root == NULL) {
        rc = util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Cannot load timelines");
    } else {
        rc = check_timelines(r, out->rows, out->n, out->parent, out->root, err);
    }
    if (rc != SLOG_OK) {
        api_timelines_free(out);
    }
    return rc;
}

void api_timelines_free(api_timelines *t)
{
    util_free(t->rows);
    util_free(t->parent);
    util_free(t->root);
    memset(t, 0, sizeof *t);
}

/* Exchange the reader's timeline arrays with t's. */
void api_reader_swap_timelines(slog_reader *r, api_timelines *t)
{
    const api_timelines mine = {r->tls, r->ntl, r->parent, r->root};
    r->tls = t->rows;
    r->ntl = t->n;
    r->parent = t->parent;
    r->root = t->root;
    r->ctx.parent = r->parent;
    r->ctx.root = r->root;
    r->ctx.ntimelines = (uint32_t)r->ntl;
    *t = mine;
}

static int load_timelines(slog_reader *r, slog_error *err)
{
    api_timelines t;
    const int rc = api_reader_load_timelines(r, r->sum.timelines, &t, err);
    if (rc == SLOG_OK) {
        api_reader_swap_timelines(r, &t);
        api_timelines_free(&t);
    }
    return rc;
}

int api_reader_load_categories(slog_reader *r, uint64_t covered, store_category_row **out,
                               uint64_t *n, slog_error *err)
{
    int rc = store_read_categories(r->st, out, n, err);
    *n = *n > covered ? covered : *n;
    for (uint64_t i = 0; rc == SLOG_OK && i < *n; i++) {
        const store_category_row *const c = &(*out)[i];
        if (checksummed(r) && store_category_row_crc(c) != c->crc) {
            rc = crc_mismatch(r, err, "/categories row", i);
        } else if (c->id != i || c->kind > SLOG_KIND_COUNTER || !valid_string(r, c->name) ||
                   (c->group != UINT64_MAX && !valid_string(r, c->group))) {
            rc = corrupt(r, err, "bad category row", i);
        }
    }
    if (rc != SLOG_OK) {
        util_free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

static int load_categories(slog_reader *r, slog_error *err)
{
    return api_reader_load_categories(r, r->sum.categories, &r->cats, &r->ncat, err);
}

void api_reader_fill_info(slog_reader *r)
{
    slog_file_info *const f = &r->info;
    memset(f, 0, sizeof *f);
    f->format_read_version = r->hdr.format_read_version;
    f->format_write_version = r->hdr.format_write_version;
    f->complete = r->sum.complete != 0;
    f->ticks_per_second = r->hdr.ticks_per_second;
    f->start = r->sum.start;
    f->end = r->sum.end;
    f->states = r->sum.counts[SLOG_KIND_STATE];
    f->events = r->sum.counts[SLOG_KIND_EVENT];
    f->arrows = r->sum.counts[SLOG_KIND_ARROW];
    f->counters = r->sum.counts[SLOG_KIND_COUNTER];
    f->timelines = (uint32_t)r->ntl;
    f->categories = (uint32_t)r->ncat;
    f->nodes = r->tree.nnodes;
    f->depth = tree_read_depth(&r->tree);
    f->fanout = r->hdr.fanout;
    f->leaf_bytes = r->hdr.chunk_bytes;
    f->file_bytes = store_file_bytes(r->st);
    f->payload_bytes = r->sum.payload_bytes;
    f->creator = r->hdr.creator;
    f->checksums = checksummed(r) != 0;
}

/* Counts of an incomplete file: what its readable subtrees hold, from the
 * roots' rows and previews (exact totals), so O(roots), not O(nodes). */
int api_reader_count_incomplete(slog_reader *r, slog_error *err)
{
    slog_file_info *const f = &r->info;
    if (f->complete) {
        return SLOG_OK;
    }
    uint64_t c[4] = {0, 0, 0, 0};
    for (uint64_t i = 0; i < r->tree.nroots; i++) {
        tree_read_cost cost = {0, 0, 0};
        const int rc = tree_read_subtree_counts(&r->tree, r->tree.roots[i], c, &cost, err);
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    f->states = c[0];
    f->events = c[1];
    f->arrows = c[2];
    f->counters = c[3];
    return SLOG_OK;
}

/* The node table: an index's copied top levels (api_index_open.c) or the
 * file's own tree; then the info. */
static int open_tree(slog_reader *r, uint64_t cache_bytes, slog_error *err)
{
    int rc = api_index_open(r, cache_bytes, err);
    if (rc != SLOG_END) {
        return rc;
    }
    const size_t cache = cache_bytes ? (size_t)cache_bytes : DEFAULT_CACHE_BYTES;
    r->tree.st = r->st;
    r->tree.path = r->path;
    r->tree.fs = &r->fs;
    rc = tree_read_open(&r->tree, &r->sum, cache, err);
    if (rc == SLOG_OK) {
        api_reader_fill_info(r);
        rc = api_reader_count_incomplete(r, err);
    }
    return rc;
}

int slog_reader_open(slog_reader **out, const char *path, const slog_reader_options *opts,
                     slog_error *err)
{
    *out = NULL;
    slog_reader_options o;
    int rc = api_reader_options_load(&o, opts, path, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    slog_reader *const r = util_calloc(1, sizeof *r);
    if (r == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, path, "Cannot allocate the reader");
    }
    (void)snprintf(r->path, sizeof r->path, "%s", path);
    rc = store_open(&r->st, path, &r->hdr, err);
    if (rc == SLOG_OK) {
        rc = api_reader_load_summary(r, &r->sum, err);
    }
    if (rc == SLOG_OK) {
        rc = load_strings(r, err);
    }
    if (rc == SLOG_OK) {
        rc = load_timelines(r, err);
    }
    if (rc == SLOG_OK) {
        rc = load_categories(r, err);
    }
    if (rc == SLOG_OK) {
        rc = open_tree(r, o.cache_bytes, err);
    }
    if (rc != SLOG_OK) {
        slog_reader_destroy(r);
        return rc;
    }
    *out = r;
    return SLOG_OK;
}

void slog_reader_destroy(slog_reader *r)
{
    if (r == NULL) {
        return;
    }
    tree_read_close(&r->tree);
    api_index_free(r->index);
    if (!r->view) { /* a view borrows its index's store and strings */
        (void)store_close(r->st, NULL);
        util_free(r->strings);
    }
    for (size_t i = 0; i < r->nretired; i++) {
        util_free(r->retired[i]);
    }
    util_free(r->retired);
    util_free(r->tls);
    util_free(r->parent);
    util_free(r->root);
    util_free(r->cats);
    util_free(r);
}

const slog_file_info *slog_reader_info(const slog_reader *r)
{
    return &r->info;
}

int slog_reader_timeline(const slog_reader *r, uint32_t id, slog_timeline_info *out)
{
    if (id >= r->ntl) {
        return SLOG_EINVAL;
    }
    const store_timeline_row *const t = &r->tls[id];
    out->id = id;
    out->parent = t->parent;
    out->kind = (slog_timeline_kind)t->kind;
    out->sort_key = t->sort_key;
    out->name = r->strings + t->name;
    return SLOG_OK;
}

int slog_reader_category(const slog_reader *r, uint32_t id, slog_category_info *out)
{
    if (id >= r->ncat) {
        return SLOG_EINVAL;
    }
    const store_category_row *const c = &r->cats[id];
    out->id = id;
    out->kind = (slog_kind)c->kind;
    out->rgba = c->rgba;
    out->name = r->strings + c->name;
    out->group = c->group == UINT64_MAX ? "" : r->strings + c->group;
    return SLOG_OK;
}

int slog_reader_node(slog_reader *r, uint64_t index, slog_node_info *out)
{
    if (index >= r->tree.nnodes) {
        return SLOG_EINVAL;
    }
    store_node_row row;
    const int rc = tree_read_node(&r->tree, index, &row, NULL);
    if (rc != SLOG_OK) {
        return rc;
    }
    const store_node_row *const n = &row;
    out->index = index;
    out->level = n->level;
    out->start = n->t0;
    out->end = n->t1;
    out->subtree_nodes = n->subtree_nodes;
    memcpy(out->counts, n->counts, sizeof out->counts);
    out->payload_bytes = n->payload_len;
    out->preview_bytes = n->preview_len;
    out->flags = n->flags;
    return SLOG_OK;
}

uint32_t slog_reader_fold_row(const slog_reader *r, uint32_t timeline, uint32_t fold)
{
    return pv_fold_row(&r->ctx, timeline, 0, fold);
}
