/* SPDX-License-Identifier: MIT
 *
 * api_verify.c - slog_reader_verify (slog_verify.h): every node of the file
 * read and checked on its own - its row (CRC32C and structure), then its
 * drawables, args and preview blobs (CRC32C, then the decoders) through the
 * tree layer's loaders - so one damaged node never hides another.  Each
 * damaged node is reported with its box (for a damaged row, the box of its
 * nearest intact ancestor: post-order puts it after the node) and the byte
 * offset of the first failure.  An index verifies its copied levels and
 * then each input file (one that cannot be opened is reported as one
 * damaged entry standing for its drawables).  Damage is data, not an error of the call:
 * only running out of memory or the caller's stop ends the scan early.
 * Layer 5: api.
 */
#include "api_index.h"
#include "api_internal.h"
#include "util_error.h"

#include <slog/slog_index.h>
#include <slog/slog_verify.h>
#include <stdio.h>
#include <string.h>

/* Rows looked at after a damaged row for its nearest intact ancestor. */
#define ANCESTOR_SCAN 4096u

static void note(slog_node_damage *d, uint32_t part, int code, const slog_error *e)
{
    if (d->parts == 0) {
        d->code = code;
        d->offset = e->offset;
        (void)snprintf(d->message, sizeof d->message, "%s", e->message);
    }
    d->parts |= part;
}

/* The box of the nearest intact ancestor of row i (post-order: the first
 * later row whose subtree reaches back to i), else the file's range. */
static void ancestor_range(slog_reader *r, uint64_t i, slog_node_damage *d)
{
    d->start = r->sum.start;
    d->end = r->sum.end;
    const uint64_t last = r->tree.nnodes - i - 1 < ANCESTOR_SCAN ? r->tree.nnodes
                                                                  : i + 1 + ANCESTOR_SCAN;
    for (uint64_t j = i + 1; j < last; j++) {
        store_node_row a;
        if (tree_read_node(&r->tree, j, &a, NULL) == SLOG_OK && j + 1 - a.subtree_nodes <= i) {
            d->start = a.t0;
            d->end = a.t1;
            return;
        }
    }
}

/* Load (and so verify and decode) one blob of node i; the damage is noted. */
static int check_blob(slog_reader *r, uint64_t i, uint32_t part, slog_node_damage *d,
                      slog_verify_totals *tot)
{
    tree_read *const t = &r->tree;
    tree_read_cost cost = {0, 0, 0};
    slog_error e;
    memset(&e, 0, sizeof e);
    cache_entry *ce = NULL;
    int rc = part == SLOG_DAMAGE_PREVIEW ? tree_read_load_preview(t, i, &ce, &cost, &e)
                                         : tree_read_load_drawables(t, i, &ce, &cost, &e);
    if (rc == SLOG_OK && part == SLOG_DAMAGE_ARGS) {
        rc = tree_read_load_args(t, i, ce, &cost, &e);
    }
    node_cache_unpin(ce);
    tot->bytes_verified += cost.bytes_decoded;
    tot->blobs += cost.bytes_decoded > 0 ? 1u : 0u;
    if (rc == SLOG_ENOMEM) {
        return rc;
    }
    if (rc != SLOG_OK) {
        note(d, part, rc, &e);
    }
    return SLOG_OK;
}

/* Check node i; d->parts says what is damaged.  SLOG_OK or SLOG_ENOMEM. */
static int verify_node(slog_reader *r, uint64_t i, slog_node_damage *d, slog_verify_totals *tot)
{
    memset(d, 0, sizeof *d);
    d->index = i;
    d->level = UINT32_MAX;
    d->offset = UINT64_MAX;
    store_node_row row;
    slog_error e;
    memset(&e, 0, sizeof e);
    const int rc = tree_read_node(&r->tree, i, &row, &e);
    if (rc != SLOG_OK) {
        note(d, SLOG_DAMAGE_ROW, rc, &e);
        ancestor_range(r, i, d);
        return rc == SLOG_ENOMEM ? rc : SLOG_OK;
    }
    d->level = row.level;
    d->start = row.t0;
    d->end = row.t1;
    d->range_exact = true;
    d->drawables = row.counts[0] + row.counts[1] + row.counts[2] + row.counts[3];
    int fatal = SLOG_OK;
    if (row.payload_len > 0) {
        fatal = check_blob(r, i, SLOG_DAMAGE_DRAWABLES, d, tot);
        if (fatal == SLOG_OK && row.args_len > 0 && d->parts == 0) {
            fatal = check_blob(r, i, SLOG_DAMAGE_ARGS, d, tot);
        }
    }
    if (fatal == SLOG_OK) {
        fatal = check_blob(r, i, SLOG_DAMAGE_PREVIEW, d, tot);
    }
    if ((d->parts & SLOG_DAMAGE_DRAWABLES) == 0) {
        tot->drawables_intact += d->drawables;
    } else {
        tot->drawables_lost += d->drawables;
    }
    return fatal;
}

/* The nodes of r's own node table (an index: its copied top levels). */
static int verify_nodes(slog_reader *r, slog_damage_fn on_damage, void *user,
                        slog_verify_totals *tot, slog_error *err)
{
    int rc = SLOG_OK;
    for (uint64_t i = 0; rc == SLOG_OK && i < r->tree.nnodes; i++) {
        slog_node_damage d;
        rc = verify_node(r, i, &d, tot);
        tot->nodes++;
        if (rc != SLOG_OK) {
            return util_err(err, rc, UINT64_MAX, r->path, "Cannot verify node %llu: out of memory",
                            (unsigned long long)i);
        }
        if (d.parts != 0) {
            tot->nodes_damaged++;
            rc = on_damage != NULL ? on_damage(&d, user) : SLOG_OK;
        }
    }
    return rc;
}

/* An input's damage, reported with the input's path in front. */
typedef struct input_sink {
    slog_damage_fn on_damage;
    void *user;
    const char *path;
} input_sink;

static int input_damage(const slog_node_damage *d, void *user)
{
    const input_sink *const s = user;
    slog_node_damage named = *d;
    (void)snprintf(named.message, sizeof named.message, "input %.96s: %.140s", s->path,
                   d->message);
    return s->on_damage != NULL ? s->on_damage(&named, s->user) : SLOG_OK;
}

/* An input file that cannot be opened (missing, changed, damaged tables)
 * is one damaged "node" standing for all its drawables. */
static int input_unreadable(slog_reader *r, uint32_t k, const slog_error *e, input_sink *s,
                            slog_verify_totals *tot)
{
    slog_index_input_info in;
    (void)slog_reader_index_input(r, k, &in);
    slog_node_damage d;
    memset(&d, 0, sizeof d);
    d.index = UINT64_MAX;
    d.parts = SLOG_DAMAGE_ROW;
    d.level = UINT32_MAX;
    d.start = in.start;
    d.end = in.end;
    d.drawables = in.counts[0] + in.counts[1] + in.counts[2] + in.counts[3];
    d.code = e->code;
    d.offset = UINT64_MAX;
    (void)snprintf(d.message, sizeof d.message, "%s", e->message);
    tot->nodes_damaged++;
    tot->drawables_lost += d.drawables;
    return input_damage(&d, s);
}

/* An index: its copied levels (their drawables are the inputs', counted
 * there), then every input file. */
static int verify_index(slog_reader *r, slog_damage_fn on_damage, void *user,
                        slog_verify_totals *tot, slog_error *err)
{
    slog_verify_totals copy;
    memset(&copy, 0, sizeof copy);
    int rc = verify_nodes(r, on_damage, user, &copy, err);
    tot->nodes = copy.nodes;
    tot->nodes_damaged = copy.nodes_damaged;
    tot->blobs = copy.blobs;
    tot->bytes_verified = copy.bytes_verified;
    for (uint32_t k = 0; rc == SLOG_OK && k < slog_reader_index_inputs(r); k++) {
        slog_index_input_info in;
        (void)slog_reader_index_input(r, k, &in);
        input_sink s = {on_damage, user, in.path};
        slog_reader *f = NULL;
        slog_error e;
        memset(&e, 0, sizeof e);
        if (api_index_file(r, k, &f, &e) != SLOG_OK) {
            rc = input_unreadable(r, k, &e, &s, tot);
            continue;
        }
        slog_verify_totals t;
        memset(&t, 0, sizeof t);
        rc = verify_nodes(f, input_damage, &s, &t, err);
        api_index_unpin(r, k, 1);
        tot->nodes += t.nodes;
        tot->nodes_damaged += t.nodes_damaged;
        tot->blobs += t.blobs;
        tot->bytes_verified += t.bytes_verified;
        tot->drawables_intact += t.drawables_intact;
        tot->drawables_lost += t.drawables_lost;
    }
    return rc;
}

int slog_reader_verify(slog_reader *r, slog_damage_fn on_damage, void *user,
                       slog_verify_totals *totals, slog_error *err)
{
    slog_verify_totals tot;
    memset(&tot, 0, sizeof tot);
    slog_index_input_info first;
    const int whole = slog_reader_index_input(r, 0, &first) == SLOG_OK && first.embedded;
    const int rc = r->index != NULL && !whole ? verify_index(r, on_damage, user, &tot, err)
                                              : verify_nodes(r, on_damage, user, &tot, err);
    if (totals != NULL) {
        *totals = tot;
    }
    if (rc == SLOG_EINTR) {
        return util_err(err, SLOG_EINTR, UINT64_MAX, r->path, "Verification stopped by the caller");
    }
    return rc;
}
