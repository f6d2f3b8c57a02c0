/* SPDX-License-Identifier: MIT
 *
 * timeline_tree.c - children lists (CSR arrays built by counting), a
 * display pre-order and subtree marks.  A timeline is a root when its
 * parent is SLOG_NO_PARENT, out of range, or itself; whatever the pre-order
 * from those roots misses sits on a parent cycle and is appended as a root
 * of its own, so `order` is always a permutation of all ids.
 * Tools layer: public libslog reader API and libc.
 */
#include "timeline_tree.h"

#include <stdlib.h>
#include <string.h>

static bool is_root(const timeline_tree *t, uint32_t id)
{
    const uint32_t p = t->info[id].parent;
    return p == SLOG_NO_PARENT || p >= t->n || p == id;
}

static const timeline_tree *sort_ctx;

static int cmp_sibling(const void *a, const void *b)
{
    const slog_timeline_info *x = &sort_ctx->info[*(const uint32_t *)a];
    const slog_timeline_info *y = &sort_ctx->info[*(const uint32_t *)b];
    if (x->sort_key != y->sort_key) {
        return x->sort_key < y->sort_key ? -1 : 1;
    }
    return x->id < y->id ? -1 : (x->id > y->id);
}

static int build_children(timeline_tree *t)
{
    t->first_child = calloc((size_t)t->n + 2, sizeof *t->first_child);
    t->children = calloc((size_t)t->n + 1, sizeof *t->children);
    if (t->first_child == NULL || t->children == NULL) {
        return -1;
    }
    /* slot n collects the roots, so they sort like siblings */
    uint32_t *const start = t->first_child;
    for (uint32_t i = 0; i < t->n; i++) {
        start[(is_root(t, i) ? t->n : t->info[i].parent) + 1]++;
    }
    for (uint32_t i = 0; i <= t->n; i++) {
        start[i + 1] += start[i];
    }
    uint32_t *fill = calloc((size_t)t->n + 1, sizeof *fill);
    if (fill == NULL) {
        return -1;
    }
    for (uint32_t i = 0; i < t->n; i++) {
        const uint32_t p = is_root(t, i) ? t->n : t->info[i].parent;
        t->children[start[p] + fill[p]++] = i;
    }
    free(fill);
    sort_ctx = t;
    for (uint32_t p = 0; p <= t->n; p++) {
        qsort(t->children + start[p], start[p + 1] - start[p], sizeof *t->children, cmp_sibling);
    }
    return 0;
}

/* Pre-order from `root`, appending to order[*k]; depth from `d0`. */
static void
walk(timeline_tree *t, uint32_t root, uint32_t d0, uint8_t *seen, uint32_t *stack, uint32_t *k)
{
    uint32_t sp = 0;
    stack[sp++] = root;
    t->depth[root] = d0;
    while (sp > 0) {
        const uint32_t id = stack[--sp];
        if (seen[id]) {
            continue;
        }
        seen[id] = 1;
        t->order[(*k)++] = id;
        /* push in reverse so the first child comes out first */
        for (uint32_t c = t->first_child[id + 1]; c-- > t->first_child[id];) {
            const uint32_t child = t->children[c];
            if (!seen[child] && sp < t->n) {
                t->depth[child] = t->depth[id] + 1;
                stack[sp++] = child;
            }
        }
    }
}

static int build_order(timeline_tree *t)
{
    t->order = calloc((size_t)t->n + 1, sizeof *t->order);
    t->depth = calloc((size_t)t->n + 1, sizeof *t->depth);
    uint8_t *seen = calloc((size_t)t->n + 1, 1);
    uint32_t *stack = calloc((size_t)t->n + 1, sizeof *stack);
    if (t->order == NULL || t->depth == NULL || seen == NULL || stack == NULL) {
        free(seen);
        free(stack);
        return -1;
    }
    uint32_t k = 0;
    for (uint32_t c = t->first_child[t->n]; c < t->first_child[t->n + 1]; c++) {
        walk(t, t->children[c], 0, seen, stack, &k);
    }
    for (uint32_t i = 0; i < t->n; i++) {
        if (!seen[i]) {
            walk(t, i, 0, seen, stack, &k); /* on a parent cycle */
        }
    }
    free(seen);
    free(stack);
    return 0;
}

int timeline_tree_load(timeline_tree *t, const slog_reader *r)
{
    memset(t, 0, sizeof *t);
    t->n = slog_reader_info(r)->timelines;
    t->info = calloc((size_t)t->n + 1, sizeof *t->info);
    if (t->info == NULL) {
        return -1;
    }
    for (uint32_t i = 0; i < t->n; i++) {
        if (slog_reader_timeline(r, i, &t->info[i]) != SLOG_OK) {
            return -1;
        }
        t->info[i].id = i;
        if (t->info[i].name == NULL) {
            t->info[i].name = "";
        }
    }
    if (build_children(t) != 0 || build_order(t) != 0) {
        return -1;
    }
    return 0;
}

void timeline_tree_free(timeline_tree *t)
{
    free(t->info);
    free(t->first_child);
    free(t->children);
    free(t->order);
    free(t->depth);
    memset(t, 0, sizeof *t);
}

uint32_t timeline_tree_nchildren(const timeline_tree *t, uint32_t id)
{
    return t->first_child[id + 1] - t->first_child[id];
}

void timeline_tree_mark_subtree(const timeline_tree *t, uint32_t id, uint8_t *mark, uint32_t *stack)
{
    uint32_t sp = 0;
    if (mark[id]) {
        return;
    }
    mark[id] = 1;
    stack[sp++] = id;
    while (sp > 0) {
        const uint32_t x = stack[--sp];
        for (uint32_t c = t->first_child[x]; c < t->first_child[x + 1]; c++) {
            const uint32_t child = t->children[c];
            if (!mark[child]) {
                mark[child] = 1;
                stack[sp++] = child;
            }
        }
    }
}

const char *timeline_kind_name(slog_timeline_kind kind)
{
    switch (kind) {
    case SLOG_TIMELINE_GENERIC:
        return "generic";
    case SLOG_TIMELINE_HOST:
        return "host";
    case SLOG_TIMELINE_PROCESS:
        return "process";
    case SLOG_TIMELINE_THREAD:
        return "thread";
    case SLOG_TIMELINE_ASYNC:
        return "async";
    case SLOG_TIMELINE_COUNTER:
        return "counter";
    case SLOG_TIMELINE_GPU:
        return "gpu";
    case SLOG_TIMELINE_RANK:
        return "rank";
    }
    return "unknown";
}

const char *drawable_kind_name(slog_kind kind)
{
    switch (kind) {
    case SLOG_KIND_STATE:
        return "state";
    case SLOG_KIND_EVENT:
        return "event";
    case SLOG_KIND_ARROW:
        return "arrow";
    case SLOG_KIND_COUNTER:
        return "counter";
    case SLOG_KIND_PREVIEW:
        return "preview";
    case SLOG_KIND_RUN:
        return "run";
    }
    return "unknown";
}

const char *display_text(const char *s, char *buf, size_t len)
{
    if (len == 0) {
        return "";
    }
    size_t i = 0;
    for (; s != NULL && s[i] != '\0' && i + 1 < len; i++) {
        buf[i] = s[i];
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
            buf[i] = '?';
        }
    }
    buf[i] = '\0';
    if (s != NULL && s[i] != '\0' && len >= 4) {
        memcpy(buf + len - 4, "...", 4); /* cut (may split a UTF-8 sequence) */
    }
    return buf;
}
