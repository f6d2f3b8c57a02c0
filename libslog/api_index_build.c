/* SPDX-License-Identifier: MIT
 *
 * api_index_build.c - the global tables of an index and its last steps:
 * each input's timelines under a top timeline of its own (a linked
 * timeline maps to an earlier input's instead), categories unified by
 * (kind, name, group) through the interned heap (equal strings, equal
 * offsets), the per-input maps, and at the end the tables, the input table
 * blob, the TREE_NODE_INDEX row that locates it, and the summary.
 * Layer 5: api.
 */
#include "api_index_build.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "codec_crc32c.h"
#include "util_alloc.h"
#include "util_error.h"

#define INDEX_CHUNK_BYTES 65536u

static int oom(const ixb *b, slog_error *err)
{
    return util_err(err, SLOG_ENOMEM, UINT64_MAX, b->out, "Out of memory writing the index");
}

int ixb_init(ixb *b, size_t n, const char *out, slog_error *err)
{
    memset(b, 0, sizeof *b);
    b->out = out;
    util_intern_init(&b->strings, SIZE_MAX);
    b->sum.start = INT64_MAX;
    b->sum.end = INT64_MIN;
    b->t.h.ninputs = (uint32_t)n;
    b->t.inputs = util_calloc(n, sizeof *b->t.inputs);
    b->ids = util_calloc(n, sizeof *b->ids);
    if (b->t.inputs == NULL || b->ids == NULL || util_intern_add(&b->strings, "", 0, 0) != 0) {
        return oom(b, err);
    }
    return SLOG_OK;
}

void ixb_free(ixb *b, bool keep)
{
    if (b->st != NULL) {
        (void)store_close(b->st, NULL);
        if (!keep) {
            (void)unlink(b->out);
        }
    }
    util_intern_free(&b->strings);
    util_free(b->tls);
    util_free(b->cats);
    ix_free(&b->t);
    util_free(b->ids);
    util_free(b->blob);
}

int ixb_embed_strings(ixb *b, size_t i, const slog_reader *r, slog_error *err)
{
    if (b->t.heaps == NULL) {
        b->t.h.flags |= IX_SELF_CONTAINED;
        b->t.heaps = util_calloc(b->t.h.ninputs, sizeof *b->t.heaps);
        if (b->t.heaps == NULL) {
            return oom(b, err);
        }
    }
    if (r == NULL) {
        return SLOG_OK; /* missing: no strings */
    }
    b->t.heaps[i].first = b->strings.heap.len;
    b->t.heaps[i].len = r->strings_len;
    return util_buf_append(&b->strings.heap, r->strings, (size_t)r->strings_len) == 0
               ? SLOG_OK
               : oom(b, err);
}

int ixb_check_links(const ixb *b, size_t n, slog_error *err)
{
    for (size_t k = 0; k < b->o.nlinks; k++) {
        const slog_index_link *const l = &b->o.links[k];
        if (l->input >= n || l->to_input >= l->input) {
            return util_err(err, SLOG_EINVAL, UINT64_MAX, b->out,
                            "Link %zu: input %u must follow to_input %u (of %zu inputs)", k,
                            l->input, l->to_input, n);
        }
    }
    return SLOG_OK;
}

/* The global timeline that input i's timeline tl stands for, if linked. */
static uint32_t linked_to(const ixb *b, size_t i, uint32_t tl)
{
    for (size_t k = 0; k < b->o.nlinks; k++) {
        const slog_index_link *const l = &b->o.links[k];
        if (l->input == i && l->timeline == tl) {
            const ix_input *const to = &b->t.inputs[l->to_input];
            return l->to_timeline < to->ntimelines ? b->t.map[to->map_first + l->to_timeline]
                                                   : UINT32_MAX - 1;
        }
    }
    return UINT32_MAX;
}

static int push_map(ixb *b, uint32_t v, slog_error *err)
{
    void *map = b->t.map; /* through a void *: no uint32_t * written as void * */
    const int grown = util_grow(&map, &b->mapcap, (size_t)b->t.h.nmap + 1, sizeof *b->t.map);
    b->t.map = map;
    if (grown != 0) {
        return oom(b, err);
    }
    b->t.map[b->t.h.nmap++] = v;
    return SLOG_OK;
}

/* A new global timeline like *proto (its id, name offset and crc set here). */
static int push_timeline(
    ixb *b, const store_timeline_row *proto, const char *name, uint32_t *id, slog_error *err)
{
    const uint64_t off = util_intern_add(&b->strings, name, strlen(name), 0);
    void *tls = b->tls; /* through a void *: no row pointer written as void * */
    const int grown =
        off == UINT64_MAX ? -1 : util_grow(&tls, &b->tlcap, b->ntl + 1, sizeof *b->tls);
    b->tls = tls;
    if (grown != 0) {
        return oom(b, err);
    }
    if (b->ntl >= UINT32_MAX - 2) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, b->out, "Too many timelines for one index");
    }
    *id = (uint32_t)b->ntl;
    b->tls[b->ntl] = *proto;
    b->tls[b->ntl].id = *id;
    b->tls[b->ntl].crc = 0;
    b->tls[b->ntl++].name = off;
    return SLOG_OK;
}

static int all_linked(const ixb *b, size_t i, uint32_t ntl)
{
    for (uint32_t l = 0; l < ntl; l++) {
        if (linked_to(b, i, l) == UINT32_MAX) {
            return 0;
        }
    }
    return ntl > 0;
}

int ixb_add_timelines(ixb *b, size_t i, const slog_reader *r, const char *label, slog_error *err)
{
    ix_input *const in = &b->t.inputs[i];
    const uint32_t ntl = r ? (uint32_t)r->ntl : 0;
    in->top = UINT32_MAX;
    int rc = SLOG_OK;
    if (!all_linked(b, i, ntl)) {
        const store_timeline_row top = {0, SLOG_NO_PARENT, b->o.top_kind, 0, (int64_t)i, 0};
        rc = push_timeline(b, &top, label, &in->top, err);
    }
    in->map_first = b->t.h.nmap;
    in->ntimelines = ntl;
    for (uint32_t l = 0; rc == SLOG_OK && l < ntl; l++) {
        uint32_t g = linked_to(b, i, l);
        if (g == UINT32_MAX - 1) {
            return util_err(err, SLOG_EINVAL, UINT64_MAX, b->out,
                            "Input %zu timeline %u links to a timeline its target lacks", i, l);
        }
        if (g == UINT32_MAX) {
            const store_timeline_row *const t = &r->tls[l];
            const uint32_t p =
                t->parent == SLOG_NO_PARENT ? in->top : b->t.map[in->map_first + t->parent];
            const store_timeline_row proto = {0, p, t->kind, 0, t->sort_key, 0};
            rc = push_timeline(b, &proto, r->strings + t->name, &g, err);
        }
        if (rc == SLOG_OK) {
            rc = push_map(b, g, err);
        }
    }
    return rc;
}

static int find_category(ixb *b, const store_category_row *want, uint32_t *id, slog_error *err)
{
    for (size_t c = 0; c < b->ncat; c++) {
        const store_category_row *const g = &b->cats[c];
        if (g->kind == want->kind && g->name == want->name && g->group == want->group) {
            *id = (uint32_t)c;
            return SLOG_OK;
        }
    }
    void *cats = b->cats; /* through a void *: no row pointer written as void * */
    const int grown = util_grow(&cats, &b->catcap, b->ncat + 1, sizeof *b->cats);
    b->cats = cats;
    if (grown != 0) {
        return oom(b, err);
    }
    *id = (uint32_t)b->ncat;
    b->cats[b->ncat] = *want;
    b->cats[b->ncat++].id = *id;
    return SLOG_OK;
}

int ixb_add_categories(ixb *b, size_t i, const slog_reader *r, slog_error *err)
{
    ix_input *const in = &b->t.inputs[i];
    in->ncategories = (uint32_t)r->ncat;
    for (uint64_t c = 0; c < r->ncat; c++) {
        const store_category_row *const s = &r->cats[c];
        const char *const name = r->strings + s->name;
        const char *const group = s->group == UINT64_MAX ? NULL : r->strings + s->group;
        store_category_row want = {0, s->kind, s->rgba, 0, 0, UINT64_MAX};
        want.name = util_intern_add(&b->strings, name, strlen(name), 0);
        if (group != NULL) {
            want.group = util_intern_add(&b->strings, group, strlen(group), 0);
        }
        if (want.name == UINT64_MAX || (group != NULL && want.group == UINT64_MAX)) {
            return oom(b, err);
        }
        uint32_t g = 0;
        int rc = find_category(b, &want, &g, err);
        if (rc == SLOG_OK) {
            rc = push_map(b, g, err);
        }
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    return SLOG_OK;
}

uint64_t ixb_copy_budget(const ixb *b)
{
    if (b->o.flags & SLOG_INDEX_COPY_ALL) {
        return UINT64_MAX;
    }
    if (b->o.copy_bytes != 0) {
        return b->o.copy_bytes;
    }
    const uint64_t share = ((uint64_t)64 << 20) / (b->t.h.ninputs ? b->t.h.ninputs : 1);
    const uint64_t lo = (uint64_t)16 << 10;
    const uint64_t hi = (uint64_t)1 << 20;
    return share < lo ? lo : share > hi ? hi : share;
}

int ixb_create_store(ixb *b, slog_error *err)
{
    if (b->st != NULL) {
        return SLOG_OK;
    }
    store_header h;
    memset(&h, 0, sizeof h);
    h.format_read_version = STORE_FORMAT_INDEX_READ_VERSION;
    h.format_write_version = STORE_FORMAT_WRITE_VERSION;
    h.ticks_per_second = b->tps;
    h.fanout = 2;
    h.chunk_bytes = INDEX_CHUNK_BYTES;
    h.preview_bytes = 65536;
    (void)snprintf(h.creator, sizeof h.creator, "slog_index_write (libslog %s)",
                   SLOG_VERSION_STRING);
    return store_create(&b->st, b->out, &h, 0, err);
}

int ixb_append_blob(ixb *b, const void *raw, size_t n, uint64_t *off, slog_error *err)
{
    const int rc = store_append_blob(b->st, raw, n, off, err);
    if (rc == SLOG_OK) {
        const uint64_t chunks = ((uint64_t)n + INDEX_CHUNK_BYTES - 1) / INDEX_CHUNK_BYTES;
        b->payload_end = *off + chunks * INDEX_CHUNK_BYTES;
    }
    return rc;
}

int ixb_push_root(ixb *b, uint64_t row, slog_error *err)
{
    void *roots = b->t.roots; /* through a void *: no uint64_t * written as void * */
    const int grown = util_grow(&roots, &b->rootcap, (size_t)b->t.h.nroots + 1, sizeof *b->t.roots);
    b->t.roots = roots;
    if (grown != 0) {
        return oom(b, err);
    }
    b->t.roots[b->t.h.nroots++] = row;
    return SLOG_OK;
}

/* The input table as a blob, and the row that locates it. */
static int write_input_table(ixb *b, slog_error *err)
{
    uint8_t *blob = NULL;
    size_t n = 0;
    if (ix_encode(&b->t, &blob, &n) != 0) {
        return oom(b, err);
    }
    store_node_row row;
    memset(&row, 0, sizeof row);
    row.flags = TREE_NODE_INDEX;
    row.t0 = b->sum.start <= b->sum.end ? b->sum.start : 0;
    row.t1 = b->sum.start <= b->sum.end ? b->sum.end : -1;
    row.subtree_nodes = 1;
    row.payload_len = n;
    row.payload_crc = codec_crc32c(0, blob, n);
    memcpy(row.counts, b->sum.counts, sizeof row.counts);
    int rc = ixb_append_blob(b, blob, n, &row.payload_off, err);
    util_free(blob);
    if (rc == SLOG_OK) {
        rc = store_append_nodes(b->st, &row, 1, err);
    }
    b->nodes += rc == SLOG_OK;
    return rc;
}

int ixb_finish(ixb *b, slog_error *err)
{
    int rc = ixb_create_store(b, err);
    if (rc == SLOG_OK) {
        rc = store_append_strings(b->st, b->strings.heap.data, b->strings.heap.len, err);
    }
    if (rc == SLOG_OK) {
        rc = store_append_timelines(b->st, b->tls, b->ntl, err);
    }
    if (rc == SLOG_OK) {
        rc = store_append_categories(b->st, b->cats, b->ncat, err);
    }
    if (rc == SLOG_OK) {
        rc = write_input_table(b, err);
    }
    if (rc == SLOG_OK) {
        b->sum.complete = 1;
        b->sum.nodes = b->nodes;
        b->sum.timelines = b->ntl;
        b->sum.categories = b->ncat;
        b->sum.strings_bytes = b->strings.heap.len;
        b->sum.payload_bytes = b->payload_end;
        rc = store_write_summary(b->st, &b->sum, err);
    }
    if (rc == SLOG_OK) {
        rc = store_close(b->st, err);
        b->st = NULL;
    }
    return rc;
}
