/* SPDX-License-Identifier: MIT
 *
 * pf_table.h - the lookup tables of the Perfetto importer: a hash map from
 * 64-bit keys (track uuids, interning ids, flow ids, sequence ids) to 64-bit
 * values, a map from strings to 32-bit ids (categories, synthetic tracks),
 * and an arena of strings that never move once stored (interned names stay
 * valid until the arena is reset).  Open addressing, linear probing, load
 * at most 1/2; every allocation failure is reported (-1), never fatal here.
 * Import library, perfetto folder: libc only.
 */
#ifndef PF_TABLE_H
#define PF_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pf_u64map {
    uint64_t *keys;
    uint64_t *vals;
    uint8_t *used;
    size_t cap, n;
} pf_u64map;

/* 1 found (*val set), 0 not found. */
int pf_u64map_get(const pf_u64map *m, uint64_t key, uint64_t *val);
/* Insert or replace; 0 ok, -1 out of memory. */
int pf_u64map_put(pf_u64map *m, uint64_t key, uint64_t val);
/* Remove a key; 1 removed, 0 absent. */
int pf_u64map_del(pf_u64map *m, uint64_t key);
void pf_u64map_clear(pf_u64map *m);
void pf_u64map_free(pf_u64map *m);

/* Strings that keep their address: blocks of 64 KiB (bigger strings get a
 * block of their own). */
typedef struct pf_arena {
    char **blocks;
    size_t nblocks, capblocks;
    size_t used; /* bytes used in the last block */
    size_t size; /* size of the last block */
    size_t first_size; /* size of block 0 (kept by reset when standard) */
} pf_arena;

/* Copy n bytes and a NUL; NULL when out of memory. */
char *pf_arena_strdup(pf_arena *a, const void *s, size_t n);
/* n bytes of storage aligned for any scalar; NULL when out of memory. */
void *pf_arena_alloc(pf_arena *a, size_t n);
void pf_arena_reset(pf_arena *a); /* keeps the first block */
void pf_arena_free(pf_arena *a);

typedef struct pf_strmap {
    pf_u64map index; /* hash -> slot in the entry lists (chained by next) */
    char **keys;
    size_t *lens;
    uint32_t *vals;
    uint32_t *next; /* UINT32_MAX ends a chain */
    size_t n, cap;
    pf_arena text;
} pf_strmap;

/* 1 found, 0 not found. */
int pf_strmap_get(const pf_strmap *m, const void *key, size_t len, uint32_t *val);
/* Add a key that is not there; 0 ok, -1 out of memory. */
int pf_strmap_put(pf_strmap *m, const void *key, size_t len, uint32_t val);
void pf_strmap_free(pf_strmap *m);

/* Strings by index (a map's values point here, never by address). */
typedef struct pf_strvec {
    const char **v;
    size_t n, cap;
} pf_strvec;

/* Append; the index of the new entry, or -1 when out of memory. */
int64_t pf_strvec_push(pf_strvec *sv, const char *s);
void pf_strvec_free(pf_strvec *sv);

uint64_t pf_hash_bytes(const void *p, size_t n);

#endif /* PF_TABLE_H */
