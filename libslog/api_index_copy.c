/* SPDX-License-Identifier: MIT
 *
 * api_index_copy.c - copying the top levels of one input's tree into an
 * index.  The levels are counted from the roots down (level 0: the roots,
 * then their children...), and the copy keeps every level whose blobs,
 * with those of the levels above, fit the per-input budget, so a copied
 * node has either all its children copied or none (then it is marked
 * TREE_NODE_CUT).  Rows go out in post-order with their subtree sizes
 * recounted; each geometry and preview blob is read, checked against its
 * CRC32C and appended again (LZ4 decoded and encoded, the node format never
 * decoded); args stay in the input file.
 * Layer 5: api.
 */
#include <string.h>

#include "api_index_build.h"
#include "codec_crc32c.h"
#include "util_alloc.h"
#include "util_error.h"

/* The children of node i, first child first, into *out (grown). */
static int
children_of(slog_reader *r, uint64_t i, uint64_t **out, size_t *n, size_t *cap, slog_error *err)
{
    *n = 0;
    uint64_t j = i;
    int got = 0;
    while ((got = tree_read_next_child(&r->tree, i, &j, err)) == 1) {
        if (*n == *cap) {
            const size_t c = *cap ? *cap * 2 : 16;
            uint64_t *const p = util_realloc(*out, c * sizeof *p);
            if (p == NULL) {
                return util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Out of memory");
            }
            *out = p;
            *cap = c;
        }
        (*out)[(*n)++] = j;
    }
    for (size_t a = 0, z = *n; a + 1 < z; a++, z--) {
        const uint64_t x = (*out)[a];
        (*out)[a] = (*out)[z - 1];
        (*out)[z - 1] = x;
    }
    return got < 0 ? got : SLOG_OK;
}

typedef struct level_list {
    uint64_t *v;
    size_t n, cap;
} level_list;

static int push(level_list *l, uint64_t x)
{
    if (l->n == l->cap) {
        const size_t c = l->cap ? l->cap * 2 : 64;
        uint64_t *const p = util_realloc(l->v, c * sizeof *p);
        if (p == NULL) {
            return -1;
        }
        l->v = p;
        l->cap = c;
    }
    l->v[l->n++] = x;
    return 0;
}

/* Blob bytes of the next level below cur into next; *bytes receives them. */
static int next_level(
    slog_reader *r, const level_list *cur, level_list *next, uint64_t *bytes, slog_error *err)
{
    uint64_t *kids = NULL;
    size_t nk = 0, cap = 0;
    int rc = SLOG_OK;
    next->n = 0;
    *bytes = 0;
    for (size_t k = 0; rc == SLOG_OK && k < cur->n; k++) {
        rc = children_of(r, cur->v[k], &kids, &nk, &cap, err);
        for (size_t c = 0; rc == SLOG_OK && c < nk; c++) {
            store_node_row row;
            rc = tree_read_node(&r->tree, kids[c], &row, err);
            if (rc == SLOG_OK && push(next, kids[c]) != 0) {
                rc = util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Out of memory");
            }
            *bytes += row.payload_len + row.preview_len;
        }
    }
    util_free(kids);
    return rc;
}

/* How many levels below the roots fit the budget (0: the roots alone). */
static int levels_to_copy(ixb *b, slog_reader *r, uint32_t *depth, slog_error *err)
{
    level_list cur = {0}, next = {0};
    uint64_t total = 0;
    int rc = SLOG_OK;
    for (uint64_t k = 0; rc == SLOG_OK && k < r->tree.nroots; k++) {
        store_node_row row;
        rc = tree_read_node(&r->tree, r->tree.roots[k], &row, err);
        total += rc == SLOG_OK ? row.payload_len + row.preview_len : 0;
        if (rc == SLOG_OK && push(&cur, r->tree.roots[k]) != 0) {
            rc = util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Out of memory");
        }
    }
    const uint64_t budget = ixb_copy_budget(b);
    *depth = 0;
    while (rc == SLOG_OK) {
        uint64_t bytes = 0;
        rc = next_level(r, &cur, &next, &bytes, err);
        if (rc != SLOG_OK || next.n == 0 || total + bytes > budget) {
            break;
        }
        total += bytes;
        (*depth)++;
        const level_list t = cur;
        cur = next;
        next = t;
    }
    util_free(cur.v);
    util_free(next.v);
    return rc;
}

/* One blob of an input node: where it is and what it must hash to. */
typedef struct blob_ref {
    uint64_t node;
    uint64_t off, len;
    uint32_t crc;
} blob_ref;

/* Read the blob, check its CRC32C, append it; *new_off gets its offset. */
static int
copy_blob(ixb *b, slog_reader *r, const blob_ref *ref, uint64_t *new_off, slog_error *err)
{
    if (ref->len > b->blobcap) {
        uint8_t *const p = util_realloc(b->blob, (size_t)ref->len);
        if (p == NULL) {
            return util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Out of memory");
        }
        b->blob = p;
        b->blobcap = (size_t)ref->len;
    }
    store_io io = {0, 0};
    int rc = store_read_blob(r->st, ref->off, ref->len, b->blob, &io, err);
    if (rc == SLOG_OK && codec_crc32c(0, b->blob, (size_t)ref->len) != ref->crc) {
        rc = util_err(err, SLOG_ECORRUPT, ref->off, r->path,
                      "Corrupt file: node %llu's blob at /payload byte %llu fails its checksum",
                      (unsigned long long)ref->node, (unsigned long long)ref->off);
    }
    if (rc == SLOG_OK) {
        rc = ixb_append_blob(b, b->blob, (size_t)ref->len, new_off, err);
    }
    b->summary.copied_bytes += rc == SLOG_OK ? ref->len : 0;
    return rc;
}

/* The copied row of input node i: blobs appended, args left behind. */
static int copy_row(ixb *b, slog_reader *r, uint64_t i, store_node_row *row, slog_error *err)
{
    int rc = SLOG_OK;
    if (row->payload_len > 0) {
        const blob_ref g = {i, row->payload_off, row->payload_len, row->payload_crc};
        rc = copy_blob(b, r, &g, &row->payload_off, err);
    }
    if (rc == SLOG_OK && row->preview_len > 0) {
        const blob_ref p = {i, row->preview_off, row->preview_len, row->preview_crc};
        rc = copy_blob(b, r, &p, &row->preview_off, err);
    }
    if (rc == SLOG_OK && row->args_len > 0 && (b->o.flags & SLOG_INDEX_COPY_ALL)) {
        const blob_ref a = {i, row->args_off, row->args_len, row->args_crc};
        rc = copy_blob(b, r, &a, &row->args_off, err);
    } else {
        row->args_off = row->args_len = 0;
        row->args_crc = 0;
    }
    row->payload_addr = row->preview_addr = row->args_addr = 0;
    row->payload_zlen = row->preview_zlen = row->args_zlen = 0;
    return rc;
}

/* Copy node i's subtree down to `left` more levels, post-order; *rows
 * receives the rows written. */
static int
copy_subtree(ixb *b, slog_reader *r, uint64_t i, uint32_t left, uint64_t *rows, slog_error *err)
{
    store_node_row row;
    int rc = tree_read_node(&r->tree, i, &row, err);
    uint64_t sub = 1;
    if (rc == SLOG_OK && left > 0 && row.subtree_nodes > 1) {
        uint64_t *kids = NULL;
        size_t nk = 0, cap = 0;
        rc = children_of(r, i, &kids, &nk, &cap, err);
        for (size_t c = 0; rc == SLOG_OK && c < nk; c++) {
            uint64_t got = 0;
            rc = copy_subtree(b, r, kids[c], left - 1, &got, err);
            sub += got;
        }
        util_free(kids);
    } else if (row.subtree_nodes > 1) {
        row.flags |= TREE_NODE_CUT;
    }
    if (rc == SLOG_OK) {
        rc = copy_row(b, r, i, &row, err);
    }
    row.subtree_nodes = sub;
    if (rc == SLOG_OK) {
        rc = store_append_nodes(b->st, &row, 1, err);
    }
    b->nodes += rc == SLOG_OK;
    b->summary.copied_nodes += rc == SLOG_OK;
    *rows = sub;
    return rc;
}

int ixb_copy_top(ixb *b, size_t i, slog_reader *r, slog_error *err)
{
    ix_input *const in = &b->t.inputs[i];
    in->roots_first = b->t.h.nroots;
    uint32_t levels = 0;
    int rc = ixb_create_store(b, err);
    if (r->tree.version < 2) { /* format 1: no checksums, args inside the geometry */
        in->nroots = 0;            /* nothing copied: its file answers every query */
        return rc == SLOG_OK && (b->o.flags & SLOG_INDEX_COPY_ALL)
                   ? util_err(err, SLOG_EINVAL, UINT64_MAX, r->path,
                              "A format-1 file cannot be copied whole (no checksums, args "
                              "inside the geometry): merge it instead")
                   : rc;
    }
    if (rc == SLOG_OK) {
        rc = levels_to_copy(b, r, &levels, err);
    }
    for (uint64_t k = 0; rc == SLOG_OK && k < r->tree.nroots; k++) {
        uint64_t rows = 0;
        rc = copy_subtree(b, r, r->tree.roots[k], levels, &rows, err);
        if (rc == SLOG_OK) {
            rc = ixb_push_root(b, b->nodes - 1, err);
        }
    }
    in->nroots = b->t.h.nroots - in->roots_first;
    return rc;
}
