/* SPDX-License-Identifier: MIT
 *
 * node_cache.c - a small LRU: a few hundred entries at most (decoded leaves
 * are ~100 KiB), so a linear scan costs less than keeping a hash in step.
 * Layer 4.
 */
#include "node_cache.h"

#include "util_alloc.h"

void node_cache_init(node_cache *c, size_t budget)
{
    c->entries = NULL;
    c->n = 0;
    c->cap = 0;
    c->bytes = 0;
    c->budget = budget;
    c->clock = 0;
}

void node_cache_entry_free(cache_entry *e)
{
    if (e == NULL) {
        return;
    }
    fmt_decoded_free(&e->drawables);
    util_free(e->previews);
    util_free(e);
}

void node_cache_free(node_cache *c)
{
    for (size_t i = 0; i < c->n; i++) {
        node_cache_entry_free(c->entries[i]);
    }
    util_free(c->entries);
    node_cache_init(c, c->budget);
}

cache_entry *node_cache_get(node_cache *c, uint64_t key)
{
    for (size_t i = 0; i < c->n; i++) {
        cache_entry *const e = c->entries[i];
        if (e->key == key) {
            e->stamp = ++c->clock;
            e->pins++;
            return e;
        }
    }
    return NULL;
}

static void evict(node_cache *c)
{
    while (c->bytes > c->budget) {
        size_t victim = SIZE_MAX;
        for (size_t i = 0; i < c->n; i++) {
            const cache_entry *const e = c->entries[i];
            if (e->pins == 0 && (victim == SIZE_MAX || e->stamp < c->entries[victim]->stamp)) {
                victim = i;
            }
        }
        if (victim == SIZE_MAX) {
            return; /* everything pinned */
        }
        c->bytes -= c->entries[victim]->bytes;
        node_cache_entry_free(c->entries[victim]);
        c->entries[victim] = c->entries[--c->n];
    }
}

int node_cache_put(node_cache *c, cache_entry *e)
{
    void *p = c->entries;
    if (util_grow(&p, &c->cap, c->n + 1, sizeof(void *)) != 0) {
        node_cache_entry_free(e);
        return -1;
    }
    c->entries = p;
    e->stamp = ++c->clock;
    e->pins = 1;
    c->entries[c->n++] = e;
    c->bytes += e->bytes;
    evict(c);
    return 0;
}

void node_cache_unpin(cache_entry *e)
{
    if (e != NULL && e->pins > 0) {
        e->pins--;
    }
}
