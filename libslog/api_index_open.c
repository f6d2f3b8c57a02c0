/* SPDX-License-Identifier: MIT
 *
 * api_index_open.c - recognising an index when a file opens (its last node
 * row carries TREE_NODE_INDEX and locates the input table), checking the
 * input table against the file's own tables (every map entry names a
 * global timeline or category, every root a copied row, every path a
 * string), and what slog_reader_info and slog_reader_index_input say about
 * an index: totals over the inputs, complete only when every input is.
 * Layer 5: api.
 */
#include <stdio.h>
#include <string.h>

#include <slog/slog_index.h>

#include "api_index.h"
#include "codec_crc32c.h"
#include "util_alloc.h"
#include "util_error.h"
#include "util_sat.h"

#define INPUT_CACHE_DEFAULT ((uint64_t)4 << 20)  /* each input file's reader */
#define INDEX_CACHE_DEFAULT ((uint64_t)64 << 20) /* the index's own, as a file's */

static int corrupt(const slog_reader *r, slog_error *err, const char *what)
{
    return util_err(err, SLOG_ECORRUPT, UINT64_MAX, r->path, "Corrupt index: %s", what);
}

/* The last node row, when it locates an input table. */
static int index_row(slog_reader *r, store_node_row *row, slog_error *err)
{
    if (r->hdr.format_read_version < STORE_FORMAT_INDEX_READ_VERSION || r->sum.nodes == 0) {
        return SLOG_END;
    }
    const int rc = store_read_node_rows(r->st, r->sum.nodes - 1, 1, row, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (!(row->flags & TREE_NODE_INDEX)) {
        return SLOG_END;
    }
    if (store_node_row_crc(row) != row->row_crc) {
        return corrupt(r, err, "the input table's node row fails its checksum");
    }
    if (!r->sum.complete) {
        return util_err(err, SLOG_ECORRUPT, UINT64_MAX, r->path,
                        "Incomplete index: its writer did not finish (write it again)");
    }
    return SLOG_OK;
}

static int read_table(slog_reader *r, const store_node_row *row, ix_table *t, slog_error *err)
{
    if (row->payload_len > ((uint64_t)1 << 34)) {
        return corrupt(r, err, "the input table is too large");
    }
    int rc = store_check_blob(r->st, row->payload_off, row->payload_len, err);
    uint8_t *const blob = rc == SLOG_OK ? util_malloc((size_t)row->payload_len + 1) : NULL;
    if (rc == SLOG_OK && blob == NULL) {
        rc = util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Cannot read the input table");
    }
    store_io io = {0, 0};
    if (rc == SLOG_OK) {
        rc = store_read_blob(r->st, row->payload_off, row->payload_len, blob, &io, err);
    }
    if (rc == SLOG_OK && codec_crc32c(0, blob, (size_t)row->payload_len) != row->payload_crc) {
        rc = corrupt(r, err, "the input table fails its checksum");
    }
    const char *what = NULL;
    const int d = rc == SLOG_OK ? ix_decode(blob, (size_t)row->payload_len, t, &what) : 0;
    util_free(blob);
    if (d < 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Cannot read the input table");
    }
    return d > 0 ? corrupt(r, err, what) : rc;
}

static int valid_string(const slog_reader *r, uint64_t off)
{
    return off < r->strings_len;
}

/* Input i's row: its path, top timeline and map name what the tables hold. */
static int check_input(const slog_reader *r, const ix_table *t, uint32_t i, slog_error *err)
{
    const ix_input *const in = &t->inputs[i];
    if (!valid_string(r, in->path) || (in->top != UINT32_MAX && in->top >= r->ntl)) {
        return corrupt(r, err, "an input has a bad path or top timeline");
    }
    for (uint64_t m = 0; m < (uint64_t)in->ntimelines + in->ncategories; m++) {
        const uint32_t v = t->map[in->map_first + m];
        if (v >= (m < in->ntimelines ? r->ntl : r->ncat)) {
            return corrupt(r, err, "an input's map names an unknown timeline or category");
        }
    }
    const ix_heap *const h = t->heaps != NULL ? &t->heaps[i] : NULL;
    if (h != NULL && (h->first > r->strings_len || h->len > r->strings_len - h->first)) {
        return corrupt(r, err, "an input's string heap lies outside /strings");
    }
    return SLOG_OK;
}

static int check_table(const slog_reader *r, const ix_table *t, slog_error *err)
{
    for (uint32_t i = 0; i < t->h.ninputs; i++) {
        const int rc = check_input(r, t, i, err);
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    for (uint64_t k = 0; k < t->h.nroots; k++) {
        if (t->roots[k] + 1 >= r->sum.nodes) {
            return corrupt(r, err, "a root outside the copied rows");
        }
    }
    return SLOG_OK;
}

static int make_pool(api_index_pool *p, uint32_t n, uint32_t bound)
{
    p->by_input = util_calloc((size_t)n + 1, sizeof(void *));
    p->pins = util_calloc((size_t)n + 1, sizeof *p->pins);
    p->used = util_calloc((size_t)n + 1, sizeof *p->used);
    p->bound = bound;
    return p->by_input && p->pins && p->used ? 0 : -1;
}

static void set_dir(api_index *x, const char *path)
{
    (void)snprintf(x->dir, sizeof x->dir, "%s", path);
    char *const slash = strrchr(x->dir, '/');
    if (slash == NULL) {
        (void)snprintf(x->dir, sizeof x->dir, ".");
    } else {
        slash[slash == x->dir ? 1 : 0] = '\0';
    }
}

static void fill_index_info(slog_reader *r)
{
    api_reader_fill_info(r);
    const ix_table *const t = &r->index->t;
    for (uint32_t i = 0; i < t->h.ninputs; i++) {
        r->info.complete = r->info.complete && t->inputs[i].state == IX_OK;
    }
}

int api_index_open(slog_reader *r, uint64_t cache_bytes, slog_error *err)
{
    store_node_row row;
    int rc = index_row(r, &row, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    api_index *const x = util_calloc(1, sizeof *x);
    if (x == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Cannot open the index");
    }
    r->index = x;
    set_dir(x, r->path);
    x->input_cache_bytes = cache_bytes ? cache_bytes / 16 : INPUT_CACHE_DEFAULT;
    rc = read_table(r, &row, &x->t, err);
    if (rc == SLOG_OK) {
        rc = check_table(r, &x->t, err);
    }
    const uint32_t n = x->t.h.ninputs;
    if (rc == SLOG_OK && (make_pool(&x->files, n, API_INDEX_POOL_FILES) != 0 ||
                          make_pool(&x->views, n, API_INDEX_POOL_VIEWS) != 0)) {
        rc = util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Cannot open the index");
    }
    if (rc == SLOG_OK) {
        store_summary copied = r->sum;
        copied.nodes = r->sum.nodes - 1; /* without the input table's row */
        r->tree.st = r->st;
        r->tree.path = r->path;
        r->tree.fs = &r->fs;
        const tree_read_roots roots = {x->t.roots, x->t.h.nroots, r->sum.depth};
        rc = tree_read_open_roots(&r->tree, &copied, &roots,
                                  cache_bytes ? (size_t)cache_bytes : INDEX_CACHE_DEFAULT, err);
    }
    if (rc == SLOG_OK) {
        fill_index_info(r);
    }
    return rc;
}

static void free_pool(api_index_pool *p, uint32_t n)
{
    for (uint32_t i = 0; p->by_input != NULL && i < n; i++) {
        slog_reader_destroy(p->by_input[i]);
    }
    util_free(p->by_input);
    util_free(p->pins);
    util_free(p->used);
}

void api_index_free(api_index *x)
{
    if (x == NULL) {
        return;
    }
    free_pool(&x->views, x->t.h.ninputs);
    free_pool(&x->files, x->t.h.ninputs);
    ix_free(&x->t);
    util_free(x);
}

uint32_t slog_reader_index_inputs(const slog_reader *r)
{
    return r->index != NULL ? r->index->t.h.ninputs : 0;
}

int slog_reader_index_input(const slog_reader *r, uint32_t i, slog_index_input_info *out)
{
    if (r->index == NULL || i >= r->index->t.h.ninputs) {
        return SLOG_EINVAL;
    }
    const ix_input *const in = &r->index->t.inputs[i];
    memset(out, 0, sizeof *out);
    out->path = r->strings + in->path;
    out->state = (slog_index_input_state)in->state;
    out->top_timeline = in->top;
    out->offset = in->offset;
    out->start = in->start <= in->end ? util_sat_add_i64(in->start, in->offset) : 0;
    out->end = in->start <= in->end ? util_sat_add_i64(in->end, in->offset) : 0;
    memcpy(out->counts, in->counts, sizeof out->counts);
    out->file_bytes = in->file_bytes;
    out->opened = r->index->files.by_input[i] != NULL;
    out->embedded = r->index->t.heaps != NULL;
    return SLOG_OK;
}

uint64_t slog_reader_index_files_opened(const slog_reader *r)
{
    return r->index != NULL ? r->index->files_opened : 0;
}
