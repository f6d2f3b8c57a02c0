/* SPDX-License-Identifier: MIT
 *
 * util_slab.h - zeroed blocks for decoded nodes, carved from 2 MiB mappings
 * advised for transparent huge pages and recycled by size class, so a
 * reader's node cache neither faults in fresh 4 KiB pages for every node it
 * decodes nor hands its memory back to the system on every eviction
 * (doc/PERFORMANCE.md, "Decoded nodes in huge pages").  One slab belongs to
 * one node cache and is used by one thread at a time.  It holds at most
 * `limit` bytes of mappings; past that, and for small blocks, blocks come
 * from util_calloc.
 * Layer 0: libc and POSIX mmap only.
 */
#ifndef UTIL_SLAB_H
#define UTIL_SLAB_H

#include <stddef.h>

#define UTIL_SLAB_CLASSES 18 /* 4 KiB, 6 KiB, 8 KiB, 12 KiB ... 1 MiB, 1.5 MiB */

typedef struct util_slab_block {
    struct util_slab_block *next;
} util_slab_block;

typedef struct util_slab {
    util_slab_block *free[UTIL_SLAB_CLASSES]; /* blocks given back, by class */
    char *bump;     /* the current chunk's part not yet carved */
    size_t left;    /* its bytes */
    void **chunks;  /* every 2 MiB mapping, unmapped by util_slab_release */
    size_t nchunks, capchunks;
    size_t limit;   /* most bytes of chunks to map */
} util_slab;

void util_slab_init(util_slab *s, size_t limit);
/* Unmap everything; every block must have been freed or be dropped. */
void util_slab_release(util_slab *s);

/* A zeroed block of at least @p bytes from @p s (NULL: from util_calloc),
 * or NULL when out of memory.  *cap gets the value to free it with. */
void *util_slab_alloc(util_slab *s, size_t bytes, size_t *cap);
/* Give back a block from util_slab_alloc with its cap (NULL p: nothing). */
void util_slab_free(util_slab *s, void *p, size_t cap);

#endif /* UTIL_SLAB_H */
