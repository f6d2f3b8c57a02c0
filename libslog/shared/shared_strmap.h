/* SPDX-License-Identifier: MIT
 *
 * shared_strmap.h - a hash map from byte strings to pointers, chained, with
 * a choice of hash (shared_strmap.c).  Values are either the caller's
 * pointers (get/put) or blocks of a fixed size kept in the entry's own
 * allocation (block/take: one allocation and one lookup per key).  Walking
 * a map (clear) visits entries in bucket order, which depends on the hash
 * only: a caller whose output follows that order keeps its hash.
 * Shared internal utility: libc only.  One thread at a time per map.
 */
#ifndef SLOG_SHARED_STRMAP_H
#define SLOG_SHARED_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t (*shared_strmap_hash)(const char *key, size_t n);

typedef struct shared_strmap_entry shared_strmap_entry;

typedef struct shared_strmap {
    shared_strmap_entry **b;
    size_t nb, n;
    shared_strmap_hash hash;
} shared_strmap;

/* Byte-wise FNV-1a, folded: the default hash. */
uint64_t shared_strmap_fnv(const char *key, size_t n);

/* An empty map hashing with @p hash (NULL: shared_strmap_fnv). */
void shared_strmap_init(shared_strmap *m, shared_strmap_hash hash);
/* The value of key, NULL when absent. */
void *shared_strmap_get(const shared_strmap *m, const char *key, size_t n);
/* Set key -> @p v (non-NULL), or remove key when @p v is NULL.  0 ok, -1 no memory. */
int shared_strmap_put(shared_strmap *m, const char *key, size_t n, void *v);
/* The block of @p size bytes of key: found (*fresh false), or new and
 * uninitialised (*fresh true), 16-byte aligned; NULL on no memory. */
void *shared_strmap_block(shared_strmap *m, const char *key, size_t n, size_t size, bool *fresh);
/* Copy the block of key to @p out and remove key; false when absent. */
bool shared_strmap_take(shared_strmap *m, const char *key, size_t n, void *out, size_t size);
/* Call @p fn (if any) on every value in bucket order, then free the entries;
 * the map is empty and reusable after. */
void shared_strmap_clear(shared_strmap *m, void (*fn)(void *ctx, void *val), void *ctx);

#endif /* SLOG_SHARED_STRMAP_H */
