/* SPDX-License-Identifier: MIT
 *
 * node_cache.c - LRU of decoded blobs: open-addressing hash on the blob
 * offset (linear probing, backward-shift deletion) plus a use-ordered list,
 * so get, put and evict cost O(1) however many small previews are cached.
 * Layer 4.
 */
#include "node_cache.h"

#include "util_alloc.h"

/* Slab bytes beyond the budget: the entry decoded before an eviction makes
 * room, and blocks of one size class that another cannot reuse. */
#define CACHE_SLAB_SLACK ((size_t)4 << 20)

void node_cache_init(node_cache *c, size_t budget)
{
    c->slots = NULL;
    c->cap = 0;
    c->n = 0;
    c->head = NULL;
    c->tail = NULL;
    c->bytes = 0;
    c->budget = budget;
    util_slab_init(&c->slab, budget + CACHE_SLAB_SLACK);
}

void node_cache_entry_free(cache_entry *e)
{
    if (e == NULL) {
        return;
    }
    fmt_decoded_free(&e->drawables);
    util_free(e->previews);
    util_free(e->bins.cells);
    util_free(e->tls.v);
    util_free(e);
}

void node_cache_free(node_cache *c)
{
    cache_entry *e = c->head;
    while (e != NULL) {
        cache_entry *const next = e->next;
        node_cache_entry_free(e);
        e = next;
    }
    util_free(c->slots);
    util_slab_release(&c->slab); /* every entry's block is back */
    node_cache_init(c, c->budget);
}

static size_t slot_of(const node_cache *c, uint64_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    h ^= h >> 32;
    return (size_t)h & (c->cap - 1);
}

static void unlink_entry(node_cache *c, cache_entry *e)
{
    if (e->prev != NULL) {
        e->prev->next = e->next;
    } else {
        c->head = e->next;
    }
    if (e->next != NULL) {
        e->next->prev = e->prev;
    } else {
        c->tail = e->prev;
    }
    e->prev = e->next = NULL;
}

static void push_front(node_cache *c, cache_entry *e)
{
    e->prev = NULL;
    e->next = c->head;
    if (c->head != NULL) {
        c->head->prev = e;
    }
    c->head = e;
    if (c->tail == NULL) {
        c->tail = e;
    }
}

cache_entry *node_cache_get(node_cache *c, uint64_t key)
{
    if (c->cap == 0) {
        return NULL;
    }
    for (size_t i = slot_of(c, key); c->slots[i] != NULL; i = (i + 1) & (c->cap - 1)) {
        cache_entry *const e = c->slots[i];
        if (e->key == key) {
            unlink_entry(c, e);
            push_front(c, e);
            e->pins++;
            return e;
        }
    }
    return NULL;
}

static void slot_insert(node_cache *c, cache_entry *e)
{
    size_t i = slot_of(c, e->key);
    while (c->slots[i] != NULL) {
        i = (i + 1) & (c->cap - 1);
    }
    c->slots[i] = e;
}

/* Remove e's slot, shifting later members of its probe run back. */
static void slot_remove(node_cache *c, const cache_entry *e)
{
    size_t i = slot_of(c, e->key);
    while (c->slots[i] != e) {
        i = (i + 1) & (c->cap - 1);
    }
    c->slots[i] = NULL;
    for (size_t j = (i + 1) & (c->cap - 1); c->slots[j] != NULL; j = (j + 1) & (c->cap - 1)) {
        cache_entry *const m = c->slots[j];
        c->slots[j] = NULL;
        slot_insert(c, m);
    }
}

static int grow(node_cache *c)
{
    const size_t ncap = c->cap ? c->cap * 2 : 256;
    cache_entry **const slots = util_calloc(ncap, sizeof(void *));
    if (slots == NULL) {
        return -1;
    }
    util_free(c->slots);
    c->slots = slots;
    c->cap = ncap;
    for (cache_entry *e = c->head; e != NULL; e = e->next) {
        slot_insert(c, e);
    }
    return 0;
}

/* Drop least recently used unpinned entries while over budget. */
static void evict(node_cache *c)
{
    cache_entry *e = c->tail;
    while (c->bytes > c->budget && e != NULL) {
        cache_entry *const prev = e->prev;
        if (e->pins == 0) {
            slot_remove(c, e);
            unlink_entry(c, e);
            c->bytes -= e->bytes;
            c->n--;
            node_cache_entry_free(e);
        }
        e = prev;
    }
}

int node_cache_put(node_cache *c, cache_entry *e)
{
    if ((c->n + 1) * 4 > c->cap * 3 && grow(c) != 0) {
        node_cache_entry_free(e);
        return -1;
    }
    e->pins = 1;
    slot_insert(c, e);
    push_front(c, e);
    c->n++;
    c->bytes += e->bytes;
    evict(c);
    return 0;
}

void node_cache_resize(node_cache *c, cache_entry *e, size_t bytes)
{
    c->bytes = c->bytes - e->bytes + bytes;
    e->bytes = bytes;
    evict(c);
}

void node_cache_unpin(cache_entry *e)
{
    if (e != NULL && e->pins > 0) {
        e->pins--;
    }
}
