/* SPDX-License-Identifier: MIT
 *
 * pf_table.c - hash maps and the string arena of pf_table.h.  Keys are mixed
 * with a 64-bit finaliser, so sequential ids (interning ids, uuids counted
 * up) spread over the table; the string map hashes with FNV-1a and chains
 * equal hashes, comparing the bytes, so collisions never merge two keys.
 * Import library, perfetto folder: libc only.
 */
#include "pf_table.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK 65536u

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdu;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53u;
    x ^= x >> 33;
    return x;
}

uint64_t pf_hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 0x100000001b3u;
    }
    return h;
}

static size_t find_slot(const pf_u64map *m, uint64_t key)
{
    size_t i = (size_t)mix(key) & (m->cap - 1);
    while (m->used[i] && m->keys[i] != key) {
        i = (i + 1) & (m->cap - 1);
    }
    return i;
}

int pf_u64map_get(const pf_u64map *m, uint64_t key, uint64_t *val)
{
    if (m->n == 0) {
        return 0;
    }
    const size_t i = find_slot(m, key);
    if (!m->used[i]) {
        return 0;
    }
    *val = m->vals[i];
    return 1;
}

static int grow(pf_u64map *m)
{
    const size_t cap = m->cap ? m->cap * 2 : 16;
    pf_u64map bigger = {calloc(cap, sizeof(uint64_t)), calloc(cap, sizeof(uint64_t)),
                        calloc(cap, 1), cap, 0};
    if (bigger.keys == NULL || bigger.vals == NULL || bigger.used == NULL) {
        pf_u64map_free(&bigger);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->used[i]) {
            const size_t j = find_slot(&bigger, m->keys[i]);
            bigger.used[j] = 1;
            bigger.keys[j] = m->keys[i];
            bigger.vals[j] = m->vals[i];
            bigger.n++;
        }
    }
    pf_u64map_free(m);
    *m = bigger;
    return 0;
}

int pf_u64map_put(pf_u64map *m, uint64_t key, uint64_t val)
{
    if ((m->n + 1) * 2 > m->cap && grow(m) != 0) {
        return -1;
    }
    const size_t i = find_slot(m, key);
    if (!m->used[i]) {
        m->used[i] = 1;
        m->keys[i] = key;
        m->n++;
    }
    m->vals[i] = val;
    return 0;
}

int pf_u64map_del(pf_u64map *m, uint64_t key)
{
    if (m->n == 0) {
        return 0;
    }
    size_t i = find_slot(m, key);
    if (!m->used[i]) {
        return 0;
    }
    m->used[i] = 0;
    m->n--;
    /* re-seat the rest of the probe run so lookups still find it */
    for (size_t j = (i + 1) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
        const uint64_t k = m->keys[j], v = m->vals[j];
        m->used[j] = 0;
        const size_t s = find_slot(m, k);
        m->used[s] = 1;
        m->keys[s] = k;
        m->vals[s] = v;
    }
    return 1;
}

void pf_u64map_clear(pf_u64map *m)
{
    if (m->used != NULL) {
        memset(m->used, 0, m->cap);
    }
    m->n = 0;
}

void pf_u64map_free(pf_u64map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

/* ---------------------------------------------------------------- arena */

void *pf_arena_alloc(pf_arena *a, size_t n)
{
    n = (n + 7u) & ~(size_t)7u;
    if (a->nblocks == 0 || a->used + n > a->size) {
        if (a->nblocks == a->capblocks) {
            const size_t cap = a->capblocks ? a->capblocks * 2 : 8;
            char **b = realloc((void *)a->blocks, cap * sizeof *b);
            if (b == NULL) {
                return NULL;
            }
            a->blocks = b;
            a->capblocks = cap;
        }
        const size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        char *block = malloc(size);
        if (block == NULL) {
            return NULL;
        }
        if (a->nblocks == 0) {
            a->first_size = size;
        }
        a->blocks[a->nblocks++] = block;
        a->size = size;
        a->used = 0;
    }
    char *p = a->blocks[a->nblocks - 1] + a->used;
    a->used += n;
    return p;
}

char *pf_arena_strdup(pf_arena *a, const void *s, size_t n)
{
    char *p = pf_arena_alloc(a, n + 1);
    if (p != NULL) {
        if (n > 0) {
            memcpy(p, s, n);
        }
        p[n] = '\0';
    }
    return p;
}

void pf_arena_reset(pf_arena *a)
{
    const size_t keep = a->nblocks > 0 && a->first_size == ARENA_BLOCK ? 1 : 0;
    for (size_t i = keep; i < a->nblocks; i++) {
        free(a->blocks[i]);
    }
    a->nblocks = keep;
    a->used = 0;
    a->size = keep ? ARENA_BLOCK : 0;
}

void pf_arena_free(pf_arena *a)
{
    for (size_t i = 0; i < a->nblocks; i++) {
        free(a->blocks[i]);
    }
    free((void *)a->blocks);
    memset(a, 0, sizeof *a);
}

/* ----------------------------------------------------------- string map */

int pf_strmap_get(const pf_strmap *m, const void *key, size_t len, uint32_t *val)
{
    uint64_t slot;
    if (!pf_u64map_get(&m->index, pf_hash_bytes(key, len), &slot)) {
        return 0;
    }
    for (uint32_t i = (uint32_t)slot; i != UINT32_MAX; i = m->next[i]) {
        if (m->lens[i] == len && memcmp(m->keys[i], key, len) == 0) {
            *val = m->vals[i];
            return 1;
        }
    }
    return 0;
}

static int strmap_reserve(pf_strmap *m)
{
    if (m->n < m->cap) {
        return 0;
    }
    const size_t cap = m->cap ? m->cap * 2 : 64;
    char **keys = realloc((void *)m->keys, cap * sizeof *keys);
    if (keys != NULL) {
        m->keys = keys;
    }
    size_t *lens = realloc(m->lens, cap * sizeof *lens);
    if (lens != NULL) {
        m->lens = lens;
    }
    uint32_t *vals = realloc(m->vals, cap * sizeof *vals);
    if (vals != NULL) {
        m->vals = vals;
    }
    uint32_t *next = realloc(m->next, cap * sizeof *next);
    if (next != NULL) {
        m->next = next;
    }
    if (keys == NULL || lens == NULL || vals == NULL || next == NULL) {
        return -1;
    }
    m->cap = cap;
    return 0;
}

int pf_strmap_put(pf_strmap *m, const void *key, size_t len, uint32_t val)
{
    if (m->n >= UINT32_MAX - 1 || strmap_reserve(m) != 0) {
        return -1;
    }
    char *copy = pf_arena_strdup(&m->text, key, len);
    if (copy == NULL) {
        return -1;
    }
    const uint64_t h = pf_hash_bytes(key, len);
    uint64_t head;
    const uint32_t i = (uint32_t)m->n;
    m->next[i] = pf_u64map_get(&m->index, h, &head) ? (uint32_t)head : UINT32_MAX;
    if (pf_u64map_put(&m->index, h, i) != 0) {
        return -1;
    }
    m->keys[i] = copy;
    m->lens[i] = len;
    m->vals[i] = val;
    m->n++;
    return 0;
}

void pf_strmap_free(pf_strmap *m)
{
    pf_u64map_free(&m->index);
    free((void *)m->keys);
    free(m->lens);
    free(m->vals);
    free(m->next);
    pf_arena_free(&m->text);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------- string vector */

int64_t pf_strvec_push(pf_strvec *sv, const char *s)
{
    if (sv->n == sv->cap) {
        const size_t cap = sv->cap ? sv->cap * 2 : 64;
        const char **v = realloc((void *)sv->v, cap * sizeof *v);
        if (v == NULL) {
            return -1;
        }
        sv->v = v;
        sv->cap = cap;
    }
    sv->v[sv->n] = s;
    return (int64_t)sv->n++;
}

void pf_strvec_free(pf_strvec *sv)
{
    free((void *)sv->v);
    memset(sv, 0, sizeof *sv);
}
