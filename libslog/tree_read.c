/* SPDX-License-Identifier: MIT
 *
 * tree_read.c - the reader side of the tree: node-table validation (every
 * node's children tile its post-order subtree, its blobs lie inside the
 * /payload bytes the summary covers), roots, subtree drawable counts, blob
 * loading through the LRU node cache (decoding outside the HDF5 lock, in
 * store_read_blob) and the depth-first window walk.  Format 2: every node
 * row's CRC32C is checked at open, every blob's before it is decoded, and a
 * node's args blob is read only when a query asks for args.
 * Layer 4: may call format/store/codec/util.
 */
#include "tree_read.h"

#include "codec_crc32c.h"
#include "tree_walk.h"
#include "util_alloc.h"
#include "util_error.h"

#include <inttypes.h>

static int corrupt(const tree_read *t, slog_error *err, const char *what, uint64_t index)
{
    return util_err(err, SLOG_ECORRUPT, UINT64_MAX, t->path, "Corrupt file: %s (entry %llu)",
                    what, (unsigned long long)index);
}

/* A checksum mismatch names the node, its time range and the byte offset
 * (in decoded /payload for a blob, in /nodes for the row itself). */
static int crc_mismatch(const tree_read *t, slog_error *err, uint64_t i, const char *what,
                        uint64_t off)
{
    const store_node_row *const n = &t->nodes[i];
    return util_err(err, SLOG_ECORRUPT, off, t->path,
                    "Corrupt node %" PRIu64 " [%" PRId64 ", %" PRId64 "]: %s checksum mismatch at "
                    "byte %" PRIu64,
                    i, n->t0, n->t1, what, off);
}

static int blob_outside(uint64_t extent, uint64_t off, uint64_t len)
{
    return len > extent || off > extent - len;
}

/* Check that node i's row is intact and its children tile its subtree. */
static int check_node(const tree_read *t, uint64_t extent, uint64_t i, slog_error *err)
{
    const store_node_row *const n = &t->nodes[i];
    if (t->version >= 2 && store_node_row_crc(n) != n->row_crc) {
        return crc_mismatch(t, err, i, "/nodes row", i * sizeof *n);
    }
    if (n->subtree_nodes == 0 || n->subtree_nodes > i + 1 || n->level >= 64 ||
        (n->t0 > n->t1 && n->t0 != INT64_MAX) || n->preview_len == 0) {
        return corrupt(t, err, "bad node row", i);
    }
    /* blobs lie inside the /payload bytes the summary covers */
    if (blob_outside(extent, n->payload_off, n->payload_len) ||
        blob_outside(extent, n->preview_off, n->preview_len) ||
        blob_outside(extent, n->args_off, n->args_len)) {
        return corrupt(t, err, "node blob outside /payload", i);
    }
    const uint64_t first = i + 1 - n->subtree_nodes;
    uint64_t j = i;
    while (j > first) {
        const uint64_t sz = t->nodes[j - 1].subtree_nodes;
        if (sz == 0 || sz > j - first) {
            return corrupt(t, err, "node subtree does not fit its parent", i);
        }
        j -= sz;
    }
    return SLOG_OK;
}

static void count_subtree_items(tree_read *t)
{
    for (uint64_t i = 0; i < t->nnodes; i++) {
        const store_node_row *const n = &t->nodes[i];
        uint64_t items = n->counts[0] + n->counts[1] + n->counts[2] + n->counts[3];
        uint64_t j = i;
        while (tree_walk_next_child(t->nodes, i, &j)) {
            items += t->subtree_items[j]; /* children come before their parent */
        }
        t->subtree_items[i] = items;
    }
}

static int find_roots(tree_read *t, const store_summary *sum, slog_error *err)
{
    uint64_t count = 0;
    for (uint64_t i = t->nnodes; i > 0; i -= t->nodes[i - 1].subtree_nodes) {
        count++;
    }
    t->roots = util_calloc((size_t)count + 1, sizeof *t->roots);
    if (t->roots == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, t->path, "Cannot load the node table");
    }
    t->nroots = count;
    for (uint64_t i = t->nnodes; i > 0; i -= t->nodes[i - 1].subtree_nodes) {
        t->roots[--count] = i - 1;
    }
    if (sum->complete && t->nroots > 1) {
        return corrupt(t, err, "complete file with several roots", t->nroots);
    }
    return SLOG_OK;
}

int tree_read_open(tree_read *t, const store_summary *sum, size_t cache_bytes, slog_error *err)
{
    store *const st = t->st;
    t->version = store_format_version(st);
    node_cache_init(&t->cache, cache_bytes);
    int rc = store_read_nodes(st, &t->nodes, &t->nnodes, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (t->nnodes < sum->nodes) {
        return corrupt(t, err, "node table shorter than its summary", t->nnodes);
    }
    t->nnodes = sum->nodes;
    for (uint64_t i = 0; i < t->nnodes; i++) {
        rc = check_node(t, sum->payload_bytes, i, err);
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    t->subtree_items = util_calloc((size_t)t->nnodes + 1, sizeof *t->subtree_items);
    if (t->subtree_items == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, t->path, "Cannot load the node table");
    }
    count_subtree_items(t);
    return find_roots(t, sum, err);
}

void tree_read_close(tree_read *t)
{
    node_cache_free(&t->cache);
    util_free(t->nodes);
    util_free(t->subtree_items);
    util_free(t->roots);
    t->nodes = NULL;
    t->subtree_items = NULL;
    t->roots = NULL;
    t->nnodes = t->nroots = 0;
}

uint32_t tree_read_depth(const tree_read *t)
{
    uint32_t depth = 0;
    for (uint64_t i = 0; i < t->nroots; i++) {
        const uint32_t d = t->nodes[t->roots[i]].level + 1;
        depth = d > depth ? d : depth;
    }
    return depth;
}

/* ---- loading blobs ---- */

/* Decode raw (len bytes, consumed) into e; *bad gets the failing offset. */
static int decode_entry(const tree_read *t, uint8_t *raw, uint64_t len, int preview,
                        cache_entry *e, uint64_t *bad)
{
    int rc;
    if (preview) {
        rc = pv_decode(raw, (size_t)len, &e->previews, &e->npreviews, &e->fold, bad);
        util_free(raw);
        e->bytes = (size_t)e->npreviews * sizeof *e->previews + sizeof *e;
        return rc;
    }
    rc = fmt_node_decode(raw, (size_t)len, t->fs, &e->drawables, bad);
    if (rc != SLOG_OK) {
        util_free(raw);
    }
    e->bytes = e->drawables.mem_bytes + sizeof *e;
    return rc;
}

/* One blob of a node: where it is and what it must hash to. */
typedef struct blob_ref {
    uint64_t node;
    uint64_t off, len;
    uint32_t crc;
    const char *what; /* "drawables", "preview", "args" */
} blob_ref;

/* Read the blob's bytes into a new buffer and verify its checksum (format 2). */
static int read_verified(tree_read *t, const blob_ref *b, uint8_t **out, tree_read_cost *cost,
                         slog_error *err)
{
    *out = NULL;
    const int range = store_check_blob(t->st, b->off, b->len, err);
    if (range != SLOG_OK) {
        return range;
    }
    uint8_t *const raw = util_malloc((size_t)b->len + 1);
    if (raw == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, t->path, "Cannot read a node");
    }
    store_io io = {0, 0};
    int rc = store_read_blob(t->st, b->off, b->len, raw, &io, err);
    cost->bytes_read += io.bytes_read;
    cost->bytes_decoded += io.bytes_decoded;
    if (rc == SLOG_OK && t->version >= 2 && codec_crc32c(0, raw, (size_t)b->len) != b->crc) {
        rc = crc_mismatch(t, err, b->node, b->what, b->off);
    }
    if (rc != SLOG_OK) {
        util_free(raw);
        return rc;
    }
    *out = raw;
    return SLOG_OK;
}

static int decode_failed(const tree_read *t, const blob_ref *b, uint64_t bad, slog_error *err)
{
    const uint64_t at = b->off + bad;
    const store_node_row *const n = &t->nodes[b->node];
    return util_err(err, SLOG_ECORRUPT, at, t->path,
                    "Corrupt node %" PRIu64 " [%" PRId64 ", %" PRId64 "]: bad %s blob at payload "
                    "byte %" PRIu64,
                    b->node, n->t0, n->t1, b->what, at);
}

static int load_entry(tree_read *t, const blob_ref *b, int preview, cache_entry **out,
                      tree_read_cost *cost, slog_error *err)
{
    cache_entry *e = util_calloc(1, sizeof *e);
    if (e == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, t->path, "Cannot read a node");
    }
    uint8_t *raw = NULL;
    int rc = read_verified(t, b, &raw, cost, err);
    uint64_t bad = UINT64_MAX; /* set by the blob decoders only */
    if (rc == SLOG_OK) {
        rc = decode_entry(t, raw, b->len, preview, e, &bad);
    }
    if (rc == SLOG_ECORRUPT && bad != UINT64_MAX) {
        rc = decode_failed(t, b, bad, err);
    }
    if (rc == SLOG_OK && !preview && t->nodes[b->node].args_len == 0 && t->version >= 2) {
        e->drawables.args_attached = 1; /* no args blob: nothing to attach */
    }
    if (rc != SLOG_OK) {
        node_cache_entry_free(e);
        return rc;
    }
    e->key = b->off;
    e->is_preview = preview;
    if (node_cache_put(&t->cache, e) != 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, t->path, "Cannot cache a node");
    }
    *out = e;
    return SLOG_OK;
}

static int load_blob(tree_read *t, uint64_t node, int preview, cache_entry **out,
                     tree_read_cost *cost, slog_error *err)
{
    const store_node_row *const n = &t->nodes[node];
    const blob_ref b = {node, preview ? n->preview_off : n->payload_off,
                        preview ? n->preview_len : n->payload_len,
                        preview ? n->preview_crc : n->payload_crc, preview ? "preview" : "drawables"};
    cache_entry *e = node_cache_get(&t->cache, b.off);
    if (e != NULL && e->is_preview == preview) {
        cost->cache_hits++;
        *out = e;
        return SLOG_OK;
    }
    node_cache_unpin(e);
    return load_entry(t, &b, preview, out, cost, err);
}

int tree_read_load_drawables(tree_read *t, uint64_t node, cache_entry **out, tree_read_cost *cost,
                             slog_error *err)
{
    return load_blob(t, node, 0, out, cost, err);
}

int tree_read_load_preview(tree_read *t, uint64_t node, cache_entry **out, tree_read_cost *cost,
                           slog_error *err)
{
    return load_blob(t, node, 1, out, cost, err);
}

int tree_read_load_args(tree_read *t, uint64_t node, cache_entry *e, tree_read_cost *cost,
                        slog_error *err)
{
    const store_node_row *const n = &t->nodes[node];
    if (e->drawables.args_attached || n->args_len == 0) {
        e->drawables.args_attached = 1;
        return SLOG_OK;
    }
    const blob_ref b = {node, n->args_off, n->args_len, n->args_crc, "args"};
    uint8_t *raw = NULL;
    int rc = read_verified(t, &b, &raw, cost, err);
    uint64_t bad = UINT64_MAX;
    if (rc == SLOG_OK) {
        rc = fmt_args_attach(&e->drawables, raw, (size_t)b.len, t->fs, &bad);
        if (rc != SLOG_OK) {
            util_free(raw);
        }
    }
    if (rc == SLOG_ECORRUPT && bad != UINT64_MAX) {
        return decode_failed(t, &b, bad, err);
    }
    if (rc == SLOG_ENOMEM) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, t->path, "Cannot read a node's args");
    }
    if (rc == SLOG_OK) {
        node_cache_resize(&t->cache, e, e->drawables.mem_bytes + sizeof *e);
    }
    return rc;
}

/* ---- window walk ---- */

static int walk_push(tree_read_walk *w, uint64_t node)
{
    void *p = w->stack;
    if (util_grow(&p, &w->cap, w->sp + 1, sizeof *w->stack) != 0) {
        return -1;
    }
    w->stack = p;
    w->stack[w->sp++] = node;
    return 0;
}

int tree_read_walk_init(tree_read_walk *w, const tree_read *t, int64_t w0, int64_t w1)
{
    w->t = t;
    w->w0 = w0;
    w->w1 = w1;
    w->stack = NULL;
    w->sp = w->cap = 0;
    w->visited = 0;
    for (uint64_t i = t->nroots; i > 0; i--) {
        if (walk_push(w, t->roots[i - 1]) != 0) {
            return -1;
        }
    }
    return 0;
}

int tree_read_walk_next(tree_read_walk *w, uint64_t *node)
{
    while (w->sp > 0) {
        const uint64_t i = w->stack[--w->sp];
        w->visited++;
        if (tree_walk_touches(&w->t->nodes[i], w->w0, w->w1)) {
            *node = i;
            return 1;
        }
    }
    return 0;
}

int tree_read_walk_descend(tree_read_walk *w, uint64_t node)
{
    uint64_t j = node;
    while (tree_walk_next_child(w->t->nodes, node, &j)) {
        if (walk_push(w, j) != 0) {
            return -1;
        }
    }
    return 0;
}

int64_t tree_read_walk_low(const tree_read_walk *w)
{
    int64_t low = INT64_MAX;
    for (size_t i = 0; i < w->sp; i++) {
        const int64_t t0 = w->t->nodes[w->stack[i]].t0;
        low = t0 < low ? t0 : low;
    }
    return low;
}

void tree_read_walk_free(tree_read_walk *w)
{
    util_free(w->stack);
    w->stack = NULL;
    w->sp = w->cap = 0;
}
