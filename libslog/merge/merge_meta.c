/* SPDX-License-Identifier: MIT
 *
 * merge_meta.c - the output's timelines and categories.  Each input gets
 * a new top timeline (its label, kind slog_merge_options.top_kind, sort
 * key = its position among the inputs); each of its timelines is defined
 * again under it with its name, kind and sort key, its parent remapped,
 * parents always before children: the ids are taken in order and a
 * timeline whose parent is not defined yet has its chain of undefined
 * ancestors defined first (the reader guarantees parent < id today; the
 * merge does not rely on it, and a cycle is reported as damage).
 * With SLOG_MERGE_LABEL_ROOT, an input of one root timeline has that root
 * renamed by its label as its top instead.  Timelines linked to an earlier
 * input's (slog_merge_options.links, merge_links.c) take that one's id; an
 * input all of whose timelines are linked gets no top timeline.  Categories of all inputs are joined by
 * (kind, name, group) in a string map; the first input that has one gives
 * its colour.  The result is one
 * id map per input and table, used on every drawable.
 * Merge library: public libslog headers and libslog/shared only.
 */
#include <stdlib.h>
#include <string.h>

#include "merge_int.h"
#include <shared_grow.h>
#include <shared_strmap.h>

typedef struct key_buf {
    char *p;
    size_t cap;
} key_buf;

/* Define the undefined ancestors of timeline id, then id (stack: room for
 * every timeline of the input). */
static int define_chain(merge_ctx *m, merge_input *in, uint32_t id, uint32_t *stack)
{
    const uint32_t n = in->info->timelines;
    uint32_t depth = 0;
    for (uint32_t cur = id;;) {
        if (depth == n) {
            return merge_err(m->err, SLOG_ECORRUPT, in->path,
                             "Timeline %u: its ancestors make a cycle", id);
        }
        stack[depth++] = cur;
        slog_timeline_info ti;
        if (slog_reader_timeline(in->r, cur, &ti) != SLOG_OK ||
            (ti.parent != SLOG_NO_PARENT && ti.parent >= n)) {
            return merge_err(m->err, SLOG_ECORRUPT, in->path, "Timeline %u: bad parent", cur);
        }
        if (ti.parent == SLOG_NO_PARENT || in->tl_map[ti.parent] != UINT32_MAX) {
            break;
        }
        cur = ti.parent;
    }
    while (depth > 0) {
        slog_timeline_info ti;
        const uint32_t cur = stack[--depth];
        (void)slog_reader_timeline(in->r, cur, &ti); /* read above */
        const uint32_t parent = ti.parent == SLOG_NO_PARENT ? in->top : in->tl_map[ti.parent];
        const int rc = slog_writer_add_timeline(m->w, parent, ti.kind, ti.name, ti.sort_key,
                                                &in->tl_map[cur], m->err);
        if (rc != SLOG_OK) {
            return merge_err_source(m->err, rc, m->out);
        }
    }
    return SLOG_OK;
}

/* The input's one root timeline, when SLOG_MERGE_LABEL_ROOT asks for it
 * to be the top and it has exactly one and no link; else UINT32_MAX. */
static uint32_t root_as_top(const merge_ctx *m, const merge_input *in, uint32_t linked)
{
    uint32_t root = UINT32_MAX;
    if ((m->opts.o.flags & SLOG_MERGE_LABEL_ROOT) == 0 || linked > 0) {
        return UINT32_MAX;
    }
    for (uint32_t id = 0; id < in->info->timelines; id++) {
        slog_timeline_info ti;
        if (slog_reader_timeline(in->r, id, &ti) != SLOG_OK) {
            return UINT32_MAX; /* define_chain reports the damage */
        }
        if (ti.parent == SLOG_NO_PARENT) {
            if (root != UINT32_MAX) {
                return UINT32_MAX;
            }
            root = id;
        }
    }
    return root;
}

/* The input's top timeline: a new one named by its label, or its root
 * (root_as_top) renamed so; kind top_kind (the root's own when 0 and it is
 * the root), sort key its position among the inputs. */
static int define_top(merge_ctx *m, merge_input *in, size_t index, uint32_t root)
{
    slog_timeline_kind kind = (slog_timeline_kind)m->opts.o.top_kind;
    slog_timeline_info ti;
    if (root != UINT32_MAX && kind == SLOG_TIMELINE_GENERIC &&
        slog_reader_timeline(in->r, root, &ti) == SLOG_OK) {
        kind = ti.kind;
    }
    const int rc = slog_writer_add_timeline(m->w, SLOG_NO_PARENT, kind, in->label, (int64_t)index,
                                            &in->top, m->err);
    if (rc == SLOG_OK && root != UINT32_MAX) {
        in->tl_map[root] = in->top;
    }
    m->sum.timelines += rc == SLOG_OK && root == UINT32_MAX;
    return merge_err_source(m->err, rc, m->out);
}

/* The input's top timeline (unless it only links to others' timelines) and
 * its timelines under it. */
static int define_timelines(merge_ctx *m, merge_input *in, size_t index)
{
    const uint32_t n = in->info->timelines;
    in->tl_map = malloc(((size_t)n + 1) * sizeof *in->tl_map);
    uint32_t *const stack = malloc(((size_t)n + 1) * sizeof *stack);
    if (in->tl_map == NULL || stack == NULL) {
        free(stack);
        return merge_err(m->err, SLOG_ENOMEM, in->path, "Cannot map its %u timelines", n);
    }
    memset(in->tl_map, 0xff, ((size_t)n + 1) * sizeof *in->tl_map);
    uint32_t linked = 0;
    int rc = merge_links_map(m, index, &linked);
    if (rc == SLOG_OK && (linked < n || n == 0)) {
        rc = define_top(m, in, index, root_as_top(m, in, linked));
    }
    for (uint32_t id = 0; id < n && rc == SLOG_OK; id++) {
        if (in->tl_map[id] == UINT32_MAX) {
            rc = define_chain(m, in, id, stack);
        }
    }
    m->sum.timelines += rc == SLOG_OK ? n - linked : 0;
    free(stack);
    return rc;
}

/* kind, name, NUL, group: the join key of a category. */
static int category_key(key_buf *k, const slog_category_info *ci, size_t *len)
{
    const size_t nn = strlen(ci->name);
    const size_t ng = strlen(ci->group);
    if (shared_grow(&k->p, &k->cap, nn + ng + 2, 1) != 0 || k->p == NULL) {
        return -1;
    }
    k->p[0] = (char)('0' + (int)ci->kind);
    memcpy(k->p + 1, ci->name, nn);
    k->p[1 + nn] = '\0';
    memcpy(k->p + 2 + nn, ci->group, ng);
    *len = nn + ng + 2;
    return 0;
}

static int map_category(merge_ctx *m, merge_input *in, uint32_t c, shared_strmap *cats,
                        key_buf *k)
{
    slog_category_info ci;
    if (slog_reader_category(in->r, c, &ci) != SLOG_OK) {
        return merge_err(m->err, SLOG_ECORRUPT, in->path, "Category %u cannot be read", c);
    }
    size_t len = 0;
    bool fresh = false;
    uint32_t *const id =
        category_key(k, &ci, &len) == 0 ? shared_strmap_block(cats, k->p, len, sizeof *id, &fresh)
                                        : NULL;
    if (id == NULL) {
        return merge_err(m->err, SLOG_ENOMEM, in->path, "Cannot map category %u", c);
    }
    if (fresh) {
        const int rc = slog_writer_add_category(m->w, ci.kind, ci.name, ci.rgba,
                                                ci.group[0] != '\0' ? ci.group : NULL, id, m->err);
        if (rc != SLOG_OK) {
            (void)shared_strmap_put(cats, k->p, len, NULL);
            return merge_err_source(m->err, rc, m->out);
        }
        m->sum.categories++;
    }
    in->cat_map[c] = *id;
    return SLOG_OK;
}

static int define_categories(merge_ctx *m, merge_input *in, shared_strmap *cats, key_buf *k)
{
    const uint32_t n = in->info->categories;
    in->cat_map = malloc(((size_t)n + 1) * sizeof *in->cat_map);
    if (in->cat_map == NULL) {
        return merge_err(m->err, SLOG_ENOMEM, in->path, "Cannot map its %u categories", n);
    }
    int rc = SLOG_OK;
    for (uint32_t c = 0; c < n && rc == SLOG_OK; c++) {
        rc = map_category(m, in, c, cats, k);
    }
    return rc;
}

int merge_meta_define(merge_ctx *m)
{
    shared_strmap cats;
    shared_strmap_init(&cats, NULL);
    key_buf k = {NULL, 0};
    int rc = SLOG_OK;
    for (size_t i = 0; i < m->n && rc == SLOG_OK; i++) {
        rc = define_timelines(m, &m->in[i], i);
        if (rc == SLOG_OK) {
            rc = define_categories(m, &m->in[i], &cats, &k);
        }
    }
    shared_strmap_clear(&cats, NULL, NULL);
    free(k.p);
    return rc;
}
