/* SPDX-License-Identifier: MIT
 *
 * api_index_pool.c - the readers an index reader opens for its inputs, in
 * two bounded LRU pools: views (an input's copied top levels inside the
 * index, with the input's own timeline and category ids rebuilt from the
 * maps, sharing the index's store and strings) and files (the input file
 * itself, opened on first use and checked against what the index recorded:
 * size, summary checksum, clock, so that a file changed after indexing says
 * so instead of answering wrongly).
 * Layer 5: api.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api_index.h"
#include "util_alloc.h"
#include "util_error.h"

#define VIEW_CACHE_BYTES ((size_t)2 << 20)

/* (global, local) pairs sorted by global id, to find a local parent. */
typedef struct id_pair {
    uint32_t g, l;
} id_pair;

static int cmp_pair(const void *a, const void *b)
{
    const id_pair *const x = a;
    const id_pair *const y = b;
    return x->g < y->g ? -1 : x->g > y->g;
}

static uint32_t local_of(const id_pair *p, uint32_t n, uint32_t g)
{
    const id_pair key = {g, 0};
    const id_pair *const hit = bsearch(&key, p, n, sizeof *p, cmp_pair);
    return hit != NULL ? hit->l : SLOG_NO_PARENT;
}

/* The input's own timeline table, from the global one and its map. */
static int view_timelines(slog_reader *v, const slog_reader *ix, const ix_input *in)
{
    const uint32_t n = in->ntimelines;
    id_pair *const pairs = util_malloc(((size_t)n + 1) * sizeof *pairs);
    v->tls = util_calloc((size_t)n + 1, sizeof *v->tls);
    v->parent = util_calloc((size_t)n + 1, sizeof *v->parent);
    v->root = util_calloc((size_t)n + 1, sizeof *v->root);
    if (pairs == NULL || v->tls == NULL || v->parent == NULL || v->root == NULL) {
        util_free(pairs);
        return -1;
    }
    for (uint32_t l = 0; l < n; l++) {
        pairs[l] = (id_pair){api_index_tl(ix->index, in, l), l};
    }
    qsort(pairs, n, sizeof *pairs, cmp_pair);
    for (uint32_t l = 0; l < n; l++) {
        const store_timeline_row *const g = &ix->tls[api_index_tl(ix->index, in, l)];
        uint32_t p = g->parent == SLOG_NO_PARENT ? SLOG_NO_PARENT : local_of(pairs, n, g->parent);
        p = p < l ? p : SLOG_NO_PARENT; /* the top timeline, or a linked parent */
        v->tls[l] = (store_timeline_row){l, p, g->kind, 0, g->sort_key, g->name};
        v->parent[l] = p;
        v->root[l] = p == SLOG_NO_PARENT ? l : v->root[p];
    }
    util_free(pairs);
    v->ntl = n;
    v->ctx.parent = v->parent;
    v->ctx.root = v->root;
    v->ctx.ntimelines = n;
    return 0;
}

static int view_categories(slog_reader *v, const slog_reader *ix, const ix_input *in)
{
    v->cats = util_calloc((size_t)in->ncategories + 1, sizeof *v->cats);
    if (v->cats == NULL) {
        return -1;
    }
    for (uint32_t c = 0; c < in->ncategories; c++) {
        v->cats[c] = ix->cats[api_index_cat(ix->index, in, c)];
        v->cats[c].id = c;
    }
    v->ncat = in->ncategories;
    return 0;
}

static int open_view(slog_reader *ix, uint32_t k, slog_reader **out, slog_error *err)
{
    const ix_input *const in = &ix->index->t.inputs[k];
    slog_reader *const v = util_calloc(1, sizeof *v);
    if (v == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, ix->path, "Cannot open an input's view");
    }
    v->view = true;
    v->st = ix->st;
    v->hdr = ix->hdr;
    v->sum = ix->sum;
    v->sum.nodes = ix->tree.nnodes;
    (void)snprintf(v->path, sizeof v->path, "%s", ix->path);
    v->strings = ix->strings;
    v->strings_len = ix->strings_len;
    v->fs = ix->fs;
    if (ix->index->t.heaps != NULL) { /* copied whole: args name its own heap */
        const ix_heap *const h = &ix->index->t.heaps[k];
        v->fs.heap = ix->strings + h->first;
        v->fs.len = h->len;
    }
    int rc = view_timelines(v, ix, in) == 0 && view_categories(v, ix, in) == 0
                 ? SLOG_OK
                 : util_err(err, SLOG_ENOMEM, UINT64_MAX, ix->path, "Cannot open an input's view");
    if (rc == SLOG_OK) {
        v->tree.st = v->st;
        v->tree.path = v->path;
        v->tree.fs = &v->fs;
        const tree_read_roots roots = {&ix->index->t.roots[in->roots_first], in->nroots, in->depth};
        rc = tree_read_open_roots(&v->tree, &v->sum, &roots, VIEW_CACHE_BYTES, err);
    }
    if (rc != SLOG_OK) {
        slog_reader_destroy(v);
        return rc;
    }
    *out = v;
    return SLOG_OK;
}

static int changed(const slog_reader *ix,
                   const char *path,
                   const ix_input *in,
                   const slog_reader *f,
                   slog_error *err)
{
    struct stat st;
    const uint64_t now = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    if (now != in->file_bytes || f->sum.crc != in->summary_crc) {
        return util_err(err, SLOG_ECORRUPT, UINT64_MAX, path,
                        "This input of index %s changed after the index was written (%llu bytes "
                        "then, %llu now): write the index again",
                        ix->path, (unsigned long long)in->file_bytes, (unsigned long long)now);
    }
    if (f->hdr.ticks_per_second != ix->hdr.ticks_per_second || f->index != NULL) {
        return util_err(err, SLOG_ECORRUPT, UINT64_MAX, path,
                        "This input of index %s is not the file indexed (its clock differs)",
                        ix->path);
    }
    return SLOG_OK;
}

static int open_input_file(slog_reader *ix, uint32_t k, slog_reader **out, slog_error *err)
{
    api_index *const x = ix->index;
    const ix_input *const in = &x->t.inputs[k];
    const char *const name = ix->strings + in->path;
    char path[PATH_MAX + 256];
    if (name[0] == '/') {
        (void)snprintf(path, sizeof path, "%s", name);
    } else {
        (void)snprintf(path, sizeof path, "%s/%s", x->dir, name);
    }
    if (in->state == IX_MISSING) {
        return util_err(err, SLOG_EIO, UINT64_MAX, path, "Input %u of index %s is missing", k,
                        ix->path);
    }
    const slog_reader_options ro = {sizeof ro, 0, x->input_cache_bytes};
    int rc = slog_reader_open(out, path, &ro, err);
    if (rc == SLOG_OK) {
        rc = changed(ix, path, in, *out, err);
    }
    if (rc != SLOG_OK) {
        slog_reader_destroy(*out);
        *out = NULL;
        return rc;
    }
    x->files_opened++;
    return SLOG_OK;
}

/* Close the least recently used unpinned reader of a full pool. */
static void make_room(api_index_pool *p)
{
    while (p->nopen >= p->bound) {
        uint32_t best = UINT32_MAX;
        for (uint32_t s = 0; s < p->nopen; s++) {
            const uint32_t k = p->open[s];
            if (p->pins[k] == 0 && (best == UINT32_MAX || p->used[k] < p->used[p->open[best]])) {
                best = s;
            }
        }
        if (best == UINT32_MAX) {
            return; /* all in use: the next one opens past the bound, until unpinned */
        }
        const uint32_t k = p->open[best];
        slog_reader_destroy(p->by_input[k]);
        p->by_input[k] = NULL;
        p->open[best] = p->open[--p->nopen];
    }
}

static int
get(slog_reader *ix, api_index_pool *p, uint32_t k, int file, slog_reader **out, slog_error *err)
{
    api_index *const x = ix->index;
    if (p->by_input[k] == NULL) {
        make_room(p);
        slog_reader *r = NULL;
        const int rc = file ? open_input_file(ix, k, &r, err) : open_view(ix, k, &r, err);
        if (rc != SLOG_OK) {
            return rc;
        }
        p->by_input[k] = r;
        if (p->nopen < p->bound) {
            p->open[p->nopen++] = k;
        }
    }
    p->pins[k]++;
    p->used[k] = ++x->tick;
    *out = p->by_input[k];
    return SLOG_OK;
}

int api_index_view(slog_reader *r, uint32_t k, slog_reader **out, slog_error *err)
{
    return get(r, &r->index->views, k, 0, out, err);
}

int api_index_file(slog_reader *r, uint32_t k, slog_reader **out, slog_error *err)
{
    return get(r, &r->index->files, k, 1, out, err);
}

int api_index_source(slog_reader *r, uint32_t k, slog_reader **out, int *file, slog_error *err)
{
    *file = r->index->t.heaps == NULL;
    return *file ? api_index_file(r, k, out, err) : api_index_view(r, k, out, err);
}

static bool listed(const api_index_pool *p, uint32_t k)
{
    for (uint32_t s = 0; s < p->nopen; s++) {
        if (p->open[s] == k) {
            return true;
        }
    }
    return false;
}

void api_index_unpin(slog_reader *r, uint32_t k, int file)
{
    api_index_pool *const p = file ? &r->index->files : &r->index->views;
    if (p->pins[k] > 0) {
        p->pins[k]--;
    }
    if (p->pins[k] == 0 && p->by_input[k] != NULL && !listed(p, k)) {
        /* opened past the bound while every pooled reader was in use:
         * closed as soon as nothing uses it, so the pool keeps its bound */
        slog_reader_destroy(p->by_input[k]);
        p->by_input[k] = NULL;
    }
}
