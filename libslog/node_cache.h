/* SPDX-License-Identifier: MIT
 *
 * node_cache.h - LRU cache of decoded blobs (a node's drawables or its
 * preview), keyed by the blob's offset in /payload and bounded in bytes.
 * A hash finds entries, a doubly linked list keeps them in use order;
 * entries in use by a query are pinned and never evicted.
 * Layer 4: may call format/store/codec/util.
 */
#ifndef NODE_CACHE_H
#define NODE_CACHE_H

#include "node_format.h"
#include "preview.h"
#include "util_slab.h"

typedef struct cache_entry {
    uint64_t key;         /* blob offset */
    int is_preview;
    fmt_decoded drawables;
    pv_entry *previews;
    uint64_t npreviews;
    uint64_t preview_items; /* the sum of the previews' counts: the subtree's drawables */
    uint32_t fold;
    pv_bins bins;         /* the preview's time bins (none for version 1) */
    pv_tls tls;           /* the preview's per-timeline totals (version 3) */
    size_t bytes;
    uint32_t pins;
    struct cache_entry *prev, *next; /* use order: head = most recent */
} cache_entry;

typedef struct node_cache {
    cache_entry **slots;  /* open addressing by key; NULL = empty */
    size_t cap, n;
    cache_entry *head, *tail;
    size_t bytes, budget;
    util_slab slab;       /* memory of the entries' decoded items (budget + 4 MiB at most) */
} node_cache;

void node_cache_init(node_cache *c, size_t budget);
void node_cache_free(node_cache *c);

/* Pinned entry for key, or NULL. */
cache_entry *node_cache_get(node_cache *c, uint64_t key);
/* Insert a filled entry whose key is not cached (ownership passes, returned
 * pinned); evicts unpinned least recently used entries above the budget.
 * -1 on ENOMEM (the entry is then freed). */
int node_cache_put(node_cache *c, cache_entry *e);
void node_cache_unpin(cache_entry *e);
/* A pinned entry grew (args attached): account its new size. */
void node_cache_resize(node_cache *c, cache_entry *e, size_t bytes);
void node_cache_entry_free(cache_entry *e);

#endif /* NODE_CACHE_H */
