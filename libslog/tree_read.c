/* SPDX-License-Identifier: MIT
 *
 * tree_read.c - the reader side of the tree: the node table read lazily in
 * blocks of rows, each row verified when its block is loaded (its blobs lie
 * inside the /payload bytes the summary covers), children checked to tile
 * their parent's post-order subtree as a walk enumerates them, roots found
 * from the last row by subtree sizes, subtree drawable counts, blob
 * loading through the LRU node cache (decoding outside the HDF5 lock, in
 * store_read_blob) and the depth-first window walk.  Format 2: every node
 * row's CRC32C is checked when its block is read, every blob's before it is decoded, and a
 * node's args blob is read only when a query asks for args.
 * Layer 4: may call format/store/codec/util.
 */
#include "tree_read.h"

#include "codec_crc32c.h"
#include "tree_walk.h"
#include "util_alloc.h"
#include "util_error.h"

#include <assert.h>
#include <inttypes.h>
#include <string.h>

static int corrupt(const tree_read *t, slog_error *err, const char *what, uint64_t index)
{
    return util_err(err, SLOG_ECORRUPT, UINT64_MAX, t->path, "Corrupt file: %s (entry %llu)",
                    what, (unsigned long long)index);
}

/* A checksum mismatch names the node, its time range and the byte offset
 * (in decoded /payload for a blob, in /nodes for the row itself). */
static int crc_mismatch_row(const tree_read *t, slog_error *err, uint64_t i,
                            const store_node_row *n, const char *what, uint64_t off)
{
    return util_err(err, SLOG_ECORRUPT, off, t->path,
                    "Corrupt node %" PRIu64 " [%" PRId64 ", %" PRId64 "]: %s checksum mismatch at "
                    "byte %" PRIu64,
                    i, n->t0, n->t1, what, off);
}

static int blob_outside(uint64_t extent, uint64_t off, uint64_t len)
{
    return len > extent || off > extent - len;
}

/* Check node i's row on its own; how children tile a parent is checked by
 * tree_read_next_child as a walk meets them. */
static int check_row(const tree_read *t, uint64_t i, const store_node_row *n, slog_error *err)
{
    const uint64_t row_bytes = t->version >= 4 ? sizeof *n : STORE_NODE_ROW_V2_BYTES;
    if (t->version >= 2 && !codec_crc32c_bench_off && store_node_row_crc(n) != n->row_crc) {
        return crc_mismatch_row(t, err, i, n, "/nodes row", i * row_bytes);
    }
    if (t->version >= 4 && !codec_crc32c_bench_off && store_node_addr_crc(n) != n->addr_crc) {
        return crc_mismatch_row(t, err, i, n, "/nodes row addresses",
                                i * row_bytes + STORE_NODE_ROW_V2_BYTES);
    }
    if (n->subtree_nodes == 0 || n->subtree_nodes > i + 1 || n->level >= 64 ||
        (n->t0 > n->t1 && n->t0 != INT64_MAX) || n->preview_len == 0) {
        return corrupt(t, err, "bad node row", i);
    }
    /* blobs lie inside the /payload bytes the summary covers */
    if (blob_outside(t->payload_bytes, n->payload_off, n->payload_len) ||
        blob_outside(t->payload_bytes, n->preview_off, n->preview_len) ||
        blob_outside(t->payload_bytes, n->args_off, n->args_len)) {
        return corrupt(t, err, "node blob outside /payload", i);
    }
    return SLOG_OK;
}

/* ---- the block cache of node rows ---- */

#define PROBES 4u /* slots a block may live in: the least recently used goes */

static size_t block_slot(uint64_t block, unsigned probe)
{
    uint64_t h = (block + probe) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 56) % TREE_READ_BLOCK_SLOTS;
}

/* Read block b into slot s and verify every row, marking those that fail
 * (tree_read_node reports them); the slot stays empty when the read fails. */
static int load_block(tree_read *t, tree_read_block *s, uint64_t b, slog_error *err)
{
    s->index = UINT64_MAX;
    if (s->rows == NULL) {
        s->rows = util_malloc(TREE_READ_BLOCK_ROWS * sizeof *s->rows);
        if (s->rows == NULL) {
            return util_err(err, SLOG_ENOMEM, UINT64_MAX, t->path, "Cannot read the node table");
        }
    }
    const uint64_t first = b * TREE_READ_BLOCK_ROWS;
    const uint64_t left = t->nnodes - first;
    const size_t n = left < TREE_READ_BLOCK_ROWS ? (size_t)left : TREE_READ_BLOCK_ROWS;
    const int rc = store_read_node_rows(t->st, first, n, s->rows, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    memset(s->bad, 0, sizeof s->bad);
    for (size_t k = 0; k < n; k++) {
        if (check_row(t, first + k, &s->rows[k], NULL) != SLOG_OK) {
            s->bad[k / 64] |= 1ull << (k % 64);
        }
    }
    s->index = b;
    s->nrows = n;
    return SLOG_OK;
}

/* The slot holding block b, or the one to load it into: an empty slot or
 * the least recently used of its probes. */
static tree_read_block *find_block(tree_read *t, uint64_t b)
{
    tree_read_block *victim = NULL;
    for (unsigned p = 0; p < PROBES; p++) {
        tree_read_block *const s = &t->blocks[block_slot(b, p)];
        if (s->index == b) {
            return s;
        }
        if (victim == NULL || (victim->index != UINT64_MAX &&
                               (s->index == UINT64_MAX || s->used < victim->used))) {
            victim = s;
        }
    }
    return victim;
}

int tree_read_node(tree_read *t, uint64_t i, store_node_row *out, slog_error *err)
{
    assert(i < t->nnodes);
    const uint64_t b = i / TREE_READ_BLOCK_ROWS;
    tree_read_block *const s = find_block(t, b);
    if (s->index != b || i % TREE_READ_BLOCK_ROWS >= s->nrows) {
        const int rc = load_block(t, s, b, err);
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    s->used = ++t->tick;
    const uint64_t k = i % TREE_READ_BLOCK_ROWS;
    if (s->bad[k / 64] & (1ull << (k % 64))) {
        const int rc = check_row(t, i, &s->rows[k], err); /* fails again, naming the row */
        assert(rc != SLOG_OK);
        return rc;
    }
    *out = s->rows[k];
    return SLOG_OK;
}

int tree_read_next_child(tree_read *t, uint64_t i, uint64_t *j, slog_error *err)
{
    store_node_row n;
    int rc = tree_read_node(t, i, &n, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    const uint64_t first = i + 1 - n.subtree_nodes;
    uint64_t end = i; /* start of the subtree handed out last */
    if (*j != i) {
        store_node_row c;
        rc = tree_read_node(t, *j, &c, err);
        if (rc != SLOG_OK) {
            return rc;
        }
        end = *j + 1 - c.subtree_nodes; /* >= first: checked when handed out */
    }
    if (end == first) {
        return 0;
    }
    const uint64_t next = end - 1;
    store_node_row c;
    rc = tree_read_node(t, next, &c, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (c.subtree_nodes > next + 1 - first) {
        return corrupt(t, err, "node subtree does not fit its parent", i);
    }
    *j = next;
    return 1;
}

int tree_read_subtree_counts(tree_read *t, uint64_t i, uint64_t counts[4], tree_read_cost *cost,
                             slog_error *err)
{
    store_node_row n;
    int rc = tree_read_node(t, i, &n, err);
    if (rc != SLOG_OK || n.subtree_nodes == 1) {
        for (int k = 0; rc == SLOG_OK && k < 4; k++) {
            counts[k] += n.counts[k];
        }
        return rc;
    }
    cache_entry *e = NULL;
    rc = tree_read_load_preview(t, i, &e, cost, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    for (uint64_t k = 0; k < e->npreviews; k++) {
        const pv_entry *const p = &e->previews[k];
        if (p->kind >= 4) {
            node_cache_unpin(e);
            return corrupt(t, err, "preview entry of an unknown kind", i);
        }
        counts[p->kind] += p->count;
    }
    node_cache_unpin(e);
    return SLOG_OK;
}

int tree_read_subtree_items(tree_read *t, uint64_t i, uint64_t *items, tree_read_cost *cost,
                            slog_error *err)
{
    uint64_t c[4] = {0, 0, 0, 0};
    const int rc = tree_read_subtree_counts(t, i, c, cost, err);
    *items = c[0] + c[1] + c[2] + c[3];
    return rc;
}

/* ---- open ---- */

static int add_root(tree_read *t, uint64_t i, size_t *cap, slog_error *err)
{
    void *p = t->roots;
    if (util_grow(&p, cap, (size_t)t->nroots + 1, sizeof *t->roots) != 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, t->path, "Cannot load the node table");
    }
    t->roots = p;
    t->roots[t->nroots++] = i;
    return SLOG_OK;
}

/* Walk back from the last row by subtree sizes: the roots, last first. */
static int find_roots(tree_read *t, uint32_t complete, slog_error *err)
{
    size_t cap = 0;
    for (uint64_t i = t->nnodes; i > 0;) {
        store_node_row n;
        int rc = tree_read_node(t, i - 1, &n, err);
        if (rc == SLOG_OK) {
            rc = add_root(t, i - 1, &cap, err);
        }
        if (rc != SLOG_OK) {
            return rc;
        }
        t->depth = n.level + 1 > t->depth ? n.level + 1 : t->depth;
        i -= n.subtree_nodes;
    }
    for (uint64_t a = 0, z = t->nroots; a + 1 < z; a++, z--) {
        const uint64_t x = t->roots[a];
        t->roots[a] = t->roots[z - 1];
        t->roots[z - 1] = x;
    }
    if (complete && t->nroots > 1) {
        return corrupt(t, err, "complete file with several roots", t->nroots);
    }
    return SLOG_OK;
}

int tree_read_refresh(tree_read *t, const store_summary *sum, tree_read_view *prev,
                      slog_error *err)
{
    *prev = (tree_read_view){t->nnodes, t->payload_bytes, NULL, 0, t->depth};
    if (sum->nodes < t->nnodes || sum->payload_bytes < t->payload_bytes) {
        return corrupt(t, err, "the summary covers less than before (not the same file?)",
                       sum->nodes);
    }
    prev->roots = t->roots;
    prev->nroots = t->nroots;
    t->nnodes = sum->nodes;
    t->payload_bytes = sum->payload_bytes;
    t->roots = NULL;
    t->nroots = 0;
    t->depth = 0;
    const int rc = find_roots(t, sum->complete, err);
    if (rc != SLOG_OK) {
        tree_read_view_restore(t, prev);
    }
    return rc;
}

void tree_read_view_restore(tree_read *t, tree_read_view *prev)
{
    util_free(t->roots);
    t->nnodes = prev->nnodes;
    t->payload_bytes = prev->payload_bytes;
    t->roots = prev->roots;
    t->nroots = prev->nroots;
    t->depth = prev->depth;
    prev->roots = NULL;
}

void tree_read_view_free(tree_read_view *prev)
{
    util_free(prev->roots);
    prev->roots = NULL;
}

int tree_read_open(tree_read *t, const store_summary *sum, size_t cache_bytes, slog_error *err)
{
    store *const st = t->st;
    t->version = store_format_version(st);
    t->nnodes = sum->nodes;
    t->payload_bytes = sum->payload_bytes;
    for (size_t s = 0; s < TREE_READ_BLOCK_SLOTS; s++) {
        t->blocks[s].index = UINT64_MAX;
    }
    node_cache_init(&t->cache, cache_bytes);
    return find_roots(t, sum->complete, err);
}

int tree_read_open_roots(tree_read *t, const store_summary *sum, const tree_read_roots *roots,
                         size_t cache_bytes, slog_error *err)
{
    t->version = store_format_version(t->st);
    t->nnodes = sum->nodes;
    t->payload_bytes = sum->payload_bytes;
    for (size_t s = 0; s < TREE_READ_BLOCK_SLOTS; s++) {
        t->blocks[s].index = UINT64_MAX;
    }
    node_cache_init(&t->cache, cache_bytes);
    t->roots = util_malloc((size_t)(roots->n ? roots->n : 1) * sizeof *t->roots);
    if (t->roots == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, t->path, "Cannot list the roots");
    }
    for (uint64_t i = 0; i < roots->n; i++) {
        if (roots->v[i] >= t->nnodes) {
            return corrupt(t, err, "a root outside the node table", roots->v[i]);
        }
        t->roots[i] = roots->v[i];
    }
    t->nroots = roots->n;
    t->depth = roots->depth;
    return SLOG_OK;
}

void tree_read_close(tree_read *t)
{
    node_cache_free(&t->cache);
    for (size_t s = 0; s < TREE_READ_BLOCK_SLOTS; s++) {
        util_free(t->blocks[s].rows);
        t->blocks[s].rows = NULL;
        t->blocks[s].index = UINT64_MAX;
    }
    util_free(t->roots);
    t->roots = NULL;
    t->nnodes = t->nroots = 0;
}

uint32_t tree_read_depth(const tree_read *t)
{
    return t->depth;
}

/* ---- loading blobs ---- */

/* Decode raw (len bytes, consumed) into e; *bad gets the failing offset. */
static int decode_entry(tree_read *t, uint8_t *raw, uint64_t len, int preview,
                        cache_entry *e, uint64_t *bad)
{
    int rc;
    if (preview) {
        pv_list l;
        rc = pv_decode_all(raw, (size_t)len, &l, &e->bins, &e->tls, bad);
        e->previews = l.v;
        e->npreviews = l.n;
        e->fold = l.fold;
        e->preview_items = 0;
        for (uint64_t k = 0; k < e->npreviews; k++) {
            e->preview_items += e->previews[k].count;
        }
        util_free(raw);
        e->bytes =
            (size_t)(e->npreviews + e->bins.n + e->tls.n) * sizeof *e->previews + sizeof *e;
        return rc;
    }
    rc = fmt_node_decode_in(raw, (size_t)len, t->fs, &t->cache.slab, &e->drawables, bad);
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
    int64_t t0, t1;   /* the node's box, for messages */
    int no_args;      /* format 2 and no args blob */
    uint64_t addr;    /* format 4: file address of the blob's chunks, 0 = unknown */
    uint32_t zlen;    /* their stored bytes */
} blob_ref;

/* Format 4: fetch the blob by its chunks' file address (one pread, no walk
 * of HDF5's chunk index) and keep it only if its checksum holds; anything
 * else (no address, a repacked file, damage) leaves it to HDF5's path. */
static int read_by_address(tree_read *t, const blob_ref *b, uint8_t *raw, tree_read_cost *cost)
{
    store_io io = {0, 0};
    const store_blob_addr at = {b->addr, b->zlen};
    if (b->addr == 0 || store_read_blob_at(t->st, at, b->off, b->len, raw, &io) != SLOG_OK) {
        return 0;
    }
    cost->bytes_read += io.bytes_read;
    cost->bytes_decoded += io.bytes_decoded;
    /* (bench_crc_cost's checksums-off runs trust the fresh file's addresses) */
    return codec_crc32c_bench_off || codec_crc32c(0, raw, (size_t)b->len) == b->crc;
}

/* A failure of the store reading a blob (out of its dataset, a chunk that
 * does not decode, EIO), with the node it belongs to named before it. */
static int blob_failed(const tree_read *t, const blob_ref *b, int rc, const slog_error *why,
                       slog_error *err)
{
    return util_err(err, rc, why->offset, t->path,
                    "%s node %" PRIu64 " [%" PRId64 ", %" PRId64 "]: its %s blob: %s",
                    rc == SLOG_ECORRUPT ? "Corrupt" : "Cannot read", b->node, b->t0, b->t1,
                    b->what, why->message);
}

/* Read the blob's bytes into a new buffer and verify its checksum (format 2). */
static int read_verified(tree_read *t, const blob_ref *b, uint8_t **out, tree_read_cost *cost,
                         slog_error *err)
{
    *out = NULL;
    slog_error why;
    memset(&why, 0, sizeof why);
    const int range = store_check_blob(t->st, b->off, b->len, &why);
    if (range != SLOG_OK) {
        return blob_failed(t, b, range, &why, err);
    }
    uint8_t *const raw = util_malloc((size_t)b->len + 1);
    if (raw == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, t->path, "Cannot read a node");
    }
    if (read_by_address(t, b, raw, cost)) {
        *out = raw;
        return SLOG_OK;
    }
    store_io io = {0, 0};
    int rc = store_read_blob(t->st, b->off, b->len, raw, &io, &why);
    cost->bytes_read += io.bytes_read;
    cost->bytes_decoded += io.bytes_decoded;
    if (rc != SLOG_OK) {
        rc = blob_failed(t, b, rc, &why, err);
    } else if (t->version >= 2 && !codec_crc32c_bench_off &&
               codec_crc32c(0, raw, (size_t)b->len) != b->crc) {
        rc = util_err(err, SLOG_ECORRUPT, b->off, t->path,
                      "Corrupt node %" PRIu64 " [%" PRId64 ", %" PRId64 "]: %s checksum "
                      "mismatch at byte %" PRIu64,
                      b->node, b->t0, b->t1, b->what, b->off);
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
    return util_err(err, SLOG_ECORRUPT, at, t->path,
                    "Corrupt node %" PRIu64 " [%" PRId64 ", %" PRId64 "]: bad %s blob at payload "
                    "byte %" PRIu64,
                    b->node, b->t0, b->t1, b->what, at);
}

/* SLOG_ENOMEM, err filled.  The code is returned as a constant, not as
 * util_err's result: the analyzer cannot see into util_err, and would take
 * a path where it returned SLOG_OK with *out unset. */
static int no_memory(const tree_read *t, const char *what, slog_error *err)
{
    (void)util_err(err, SLOG_ENOMEM, UINT64_MAX, t->path, "%s", what);
    return SLOG_ENOMEM;
}

static int load_entry(tree_read *t, const blob_ref *b, int preview, cache_entry **out,
                      tree_read_cost *cost, slog_error *err)
{
    cache_entry *e = util_calloc(1, sizeof *e);
    if (e == NULL) {
        return no_memory(t, "Cannot read a node", err);
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
    if (rc == SLOG_OK && !preview && b->no_args) {
        e->drawables.args_attached = 1; /* no args blob: nothing to attach */
    }
    if (rc != SLOG_OK) {
        node_cache_entry_free(e);
        return rc;
    }
    e->key = b->off;
    e->is_preview = preview;
    if (node_cache_put(&t->cache, e) != 0) {
        return no_memory(t, "Cannot cache a node", err);
    }
    *out = e;
    return SLOG_OK;
}

static int load_blob(tree_read *t, uint64_t node, int preview, cache_entry **out,
                     tree_read_cost *cost, slog_error *err)
{
    store_node_row row;
    const int rc = tree_read_node(t, node, &row, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    const store_node_row *const n = &row;
    const blob_ref b = {node,
                        preview ? n->preview_off : n->payload_off,
                        preview ? n->preview_len : n->payload_len,
                        preview ? n->preview_crc : n->payload_crc,
                        preview ? "preview" : "drawables",
                        n->t0,
                        n->t1,
                        n->args_len == 0 && t->version >= 2,
                        preview ? n->preview_addr : n->payload_addr,
                        preview ? n->preview_zlen : n->payload_zlen};
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
    if (e->drawables.args_attached) {
        return SLOG_OK;
    }
    store_node_row n;
    int rc = tree_read_node(t, node, &n, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (n.args_len == 0) {
        e->drawables.args_attached = 1;
        return SLOG_OK;
    }
    const blob_ref b = {node, n.args_off, n.args_len, n.args_crc, "args", n.t0, n.t1, 0,
                        n.args_addr,  n.args_zlen};
    uint8_t *raw = NULL;
    rc = read_verified(t, &b, &raw, cost, err);
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

static int walk_push(tree_read_walk *w, uint64_t node, slog_error *err)
{
    store_node_row n;
    const int rc = tree_read_node(w->t, node, &n, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    void *p = w->stack;
    if (util_grow(&p, &w->cap, w->sp + 1, sizeof *w->stack) != 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, w->t->path, "Cannot walk the tree");
    }
    w->stack = p;
    w->stack[w->sp].node = node;
    w->stack[w->sp].t0 = n.t0 <= n.t1 ? n.t0 : INT64_MAX;
    w->sp++;
    return SLOG_OK;
}

int tree_read_walk_init(tree_read_walk *w, tree_read *t, int64_t w0, int64_t w1, slog_error *err)
{
    w->t = t;
    w->w0 = w0;
    w->w1 = w1;
    w->stack = NULL;
    w->sp = w->cap = 0;
    w->visited = 0;
    for (uint64_t i = t->nroots; i > 0; i--) {
        const int rc = walk_push(w, t->roots[i - 1], err);
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    return SLOG_OK;
}

int tree_read_walk_next(tree_read_walk *w, uint64_t *node, slog_error *err)
{
    while (w->sp > 0) {
        const uint64_t i = w->stack[--w->sp].node;
        w->visited++;
        store_node_row n;
        const int rc = tree_read_node(w->t, i, &n, err);
        if (rc != SLOG_OK) {
            return rc;
        }
        if (tree_walk_touches(&n, w->w0, w->w1)) {
            *node = i;
            return 1;
        }
    }
    return 0;
}

int tree_read_walk_descend(tree_read_walk *w, uint64_t node, slog_error *err)
{
    uint64_t j = node;
    int more;
    while ((more = tree_read_next_child(w->t, node, &j, err)) == 1) {
        const int rc = walk_push(w, j, err);
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    return more;
}

int64_t tree_read_walk_low(const tree_read_walk *w)
{
    int64_t low = INT64_MAX;
    for (size_t i = 0; i < w->sp; i++) {
        low = w->stack[i].t0 < low ? w->stack[i].t0 : low;
    }
    return low;
}

void tree_read_walk_free(tree_read_walk *w)
{
    util_free(w->stack);
    w->stack = NULL;
    w->sp = w->cap = 0;
}
