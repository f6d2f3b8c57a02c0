/* SPDX-License-Identifier: MIT
 *
 * shared_strmap.c - string-keyed hash map (shared_strmap.h): power-of-two
 * bucket array, chains in insertion order reversed per bucket on growth,
 * the full hash kept in each entry so that growing never rehashes a key.
 * Shared internal utility: libc only.
 */
#include <stdlib.h>
#include <string.h>

#include "shared_strmap.h"

struct shared_strmap_entry {
    shared_strmap_entry *next;
    uint64_t hash;
    void *val;
    size_t klen;
    char key[];
};

#define BLOCK_ALIGN 16u

uint64_t shared_strmap_fnv(const char *key, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)key[i];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

void shared_strmap_init(shared_strmap *m, shared_strmap_hash hash)
{
    m->b = NULL;
    m->nb = m->n = 0;
    m->hash = hash != NULL ? hash : shared_strmap_fnv;
}

static shared_strmap_entry **slot_of(const shared_strmap *m, const char *k, size_t n, uint64_t h)
{
    shared_strmap_entry **e = &m->b[h & (m->nb - 1)];
    while (*e != NULL && !((*e)->hash == h && (*e)->klen == n && memcmp((*e)->key, k, n) == 0)) {
        e = &(*e)->next;
    }
    return e;
}

void *shared_strmap_get(const shared_strmap *m, const char *key, size_t n)
{
    if (m->nb == 0) {
        return NULL;
    }
    shared_strmap_entry *const *e = slot_of(m, key, n, m->hash(key, n));
    return *e != NULL ? (*e)->val : NULL;
}

static int grow_buckets(shared_strmap *m)
{
    const size_t nb = m->nb ? m->nb * 2 : 64;
    shared_strmap_entry **b = calloc(nb, sizeof(shared_strmap_entry *));
    if (b == NULL) {
        return -1;
    }
    for (size_t i = 0; i < m->nb; i++) {
        shared_strmap_entry *e = m->b[i];
        while (e != NULL) {
            shared_strmap_entry *next = e->next;
            e->next = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
            e = next;
        }
    }
    free((void *)m->b);
    m->b = b;
    m->nb = nb;
    return 0;
}

/* A new entry for key with @p extra bytes after the key (aligned), linked at
 * *at; NULL on no memory. */
static shared_strmap_entry *entry_new(shared_strmap *m, shared_strmap_entry **at, const char *k,
                                      size_t n, uint64_t h, size_t extra)
{
    const size_t head = offsetof(shared_strmap_entry, key) + n;
    const size_t off = extra ? (head + BLOCK_ALIGN - 1) / BLOCK_ALIGN * BLOCK_ALIGN : head;
    char *mem = malloc(off + extra);
    if (mem == NULL) {
        return NULL;
    }
    shared_strmap_entry *e = (shared_strmap_entry *)(void *)mem;
    e->next = NULL;
    e->hash = h;
    e->val = extra ? mem + off : NULL;
    e->klen = n;
    memcpy(e->key, k, n);
    *at = e;
    m->n++;
    return e;
}

static void entry_unlink(shared_strmap *m, shared_strmap_entry **at)
{
    shared_strmap_entry *dead = *at;
    *at = dead->next;
    free(dead);
    m->n--;
}

int shared_strmap_put(shared_strmap *m, const char *key, size_t n, void *v)
{
    if (m->n + 1 > m->nb && grow_buckets(m) != 0) {
        return -1;
    }
    const uint64_t h = m->hash(key, n);
    shared_strmap_entry **e = slot_of(m, key, n, h);
    if (*e != NULL) {
        if (v == NULL) {
            entry_unlink(m, e);
        } else {
            (*e)->val = v;
        }
        return 0;
    }
    if (v == NULL) {
        return 0;
    }
    shared_strmap_entry *ne = entry_new(m, e, key, n, h, 0);
    if (ne == NULL) {
        return -1;
    }
    ne->val = v;
    return 0;
}

void *shared_strmap_block(shared_strmap *m, const char *key, size_t n, size_t size, bool *fresh)
{
    if (m->n + 1 > m->nb && grow_buckets(m) != 0) {
        return NULL;
    }
    const uint64_t h = m->hash(key, n);
    shared_strmap_entry **e = slot_of(m, key, n, h);
    *fresh = *e == NULL;
    if (*e != NULL) {
        return (*e)->val;
    }
    const shared_strmap_entry *ne = entry_new(m, e, key, n, h, size ? size : 1);
    return ne != NULL ? ne->val : NULL;
}

bool shared_strmap_take(shared_strmap *m, const char *key, size_t n, void *out, size_t size)
{
    if (m->nb == 0) {
        return false;
    }
    shared_strmap_entry **e = slot_of(m, key, n, m->hash(key, n));
    if (*e == NULL) {
        return false;
    }
    memcpy(out, (*e)->val, size);
    entry_unlink(m, e);
    return true;
}

void shared_strmap_clear(shared_strmap *m, void (*fn)(void *ctx, void *val), void *ctx)
{
    for (size_t i = 0; i < m->nb; i++) {
        shared_strmap_entry *e = m->b[i];
        while (e != NULL) {
            shared_strmap_entry *next = e->next;
            if (fn != NULL) {
                fn(ctx, e->val);
            }
            free(e);
            e = next;
        }
    }
    free((void *)m->b);
    m->b = NULL;
    m->nb = m->n = 0;
}
