/* SPDX-License-Identifier: MIT
 *
 * util_slab.c - blocks for decoded nodes from huge-page chunks (util_slab.h).
 * Sizes come in classes a half power of two apart (4 KiB, 6 KiB, 8 KiB ...
 * 1.5 MiB), so a block wastes at most a third of itself.  A block is carved
 * from the current 2 MiB chunk; when the chunk's rest is too small, the rest
 * becomes free blocks of the classes it fits and a new chunk is mapped.  A
 * freed block goes to its class's list and is zeroed when taken again.
 * Fresh 4 KiB pages cost 12-16 us each to fault in on the virtual machines
 * this was measured on, a 2 MiB page less than a tenth of their sum.
 * Layer 0: libc and POSIX mmap only.
 */
#include "util_slab.h"

#include "util_alloc.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

/* Under AddressSanitizer, the parts of chunks not handed out (free blocks,
 * the slack after a block's bytes) are poisoned, so an overrun of a decoded
 * node or a use after its eviction is still caught as with malloc. */
#if defined(__SANITIZE_ADDRESS__)
#define SLAB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLAB_ASAN 1
#endif
#endif
#ifdef SLAB_ASAN
#include <sanitizer/asan_interface.h>
#define SLAB_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define SLAB_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define SLAB_POISON(p, n) ((void)(p), (void)(n))
#define SLAB_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define SLAB_CHUNK ((size_t)2 << 20)
#define SLAB_MIN ((size_t)4096)

/* Bytes of class @p i: 4 KiB << i/2, times 1.5 for odd i. */
static size_t class_size(unsigned i)
{
    const size_t base = SLAB_MIN << (i / 2);
    return (i & 1u) ? base + base / 2 : base;
}

/* The smallest class holding @p bytes, or UTIL_SLAB_CLASSES when none. */
static unsigned class_of(size_t bytes)
{
    unsigned i = 0;
    while (i < UTIL_SLAB_CLASSES && class_size(i) < bytes) {
        i++;
    }
    return i;
}

/* The largest class that fits in @p bytes (bytes >= SLAB_MIN). */
static unsigned class_within(size_t bytes)
{
    unsigned i = UTIL_SLAB_CLASSES - 1;
    while (i > 0 && class_size(i) > bytes) {
        i--;
    }
    return i;
}

void util_slab_init(util_slab *s, size_t limit)
{
    memset(s, 0, sizeof *s);
    s->limit = limit;
}

void util_slab_release(util_slab *s)
{
    for (size_t i = 0; i < s->nchunks; i++) {
        SLAB_UNPOISON(s->chunks[i], SLAB_CHUNK);
        (void)munmap(s->chunks[i], SLAB_CHUNK);
    }
    util_free(s->chunks);
    util_slab_init(s, s->limit);
}

/* A 2 MiB-aligned mapping of SLAB_CHUNK bytes advised for huge pages. */
static void *map_chunk(void)
{
    char *const p = mmap(NULL, 2 * SLAB_CHUNK, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        return NULL;
    }
    const size_t head = (SLAB_CHUNK - (uintptr_t)p % SLAB_CHUNK) % SLAB_CHUNK;
    if (head > 0) {
        (void)munmap(p, head);
    }
    (void)munmap(p + head + SLAB_CHUNK, SLAB_CHUNK - head);
    (void)madvise(p + head, SLAB_CHUNK, MADV_HUGEPAGE); /* advice: may be ignored */
    SLAB_POISON(p + head, SLAB_CHUNK);
    return p + head;
}

/* Turn the current chunk's rest into free blocks and map a new chunk.
 * Returns -1 at the limit or when out of memory. */
static int next_chunk(util_slab *s)
{
    while (s->left >= SLAB_MIN) {
        const unsigned c = class_within(s->left);
        util_slab_free(s, s->bump, class_size(c));
        s->bump += class_size(c);
        s->left -= class_size(c);
    }
    if ((s->nchunks + 1) * SLAB_CHUNK > s->limit) {
        return -1;
    }
    void *chunks = s->chunks; /* through a void *: no void ** written as void * */
    const int grown = util_grow(&chunks, &s->capchunks, s->nchunks + 1, sizeof *s->chunks);
    s->chunks = chunks;
    if (grown != 0) {
        return -1;
    }
    void *const chunk = map_chunk();
    if (chunk == NULL) {
        return -1;
    }
    s->chunks[s->nchunks++] = chunk;
    s->bump = chunk;
    s->left = SLAB_CHUNK;
    return 0;
}

void *util_slab_alloc(util_slab *s, size_t bytes, size_t *cap)
{
    const unsigned c = s != NULL && bytes >= SLAB_MIN * 3 / 4 ? class_of(bytes) : UTIL_SLAB_CLASSES;
    if (c < UTIL_SLAB_CLASSES) {
        util_slab_block *const b = s->free[c];
        if (b != NULL) {
            SLAB_UNPOISON(b, sizeof *b);
            s->free[c] = b->next;
            SLAB_UNPOISON(b, bytes);
            memset(b, 0, bytes);
            *cap = class_size(c);
            return b;
        }
        if (s->left >= class_size(c) || next_chunk(s) == 0) {
            void *const p = s->bump; /* never handed out: still zero */
            s->bump += class_size(c);
            s->left -= class_size(c);
            SLAB_UNPOISON(p, bytes);
            *cap = class_size(c);
            return p;
        }
    }
    *cap = 0;
    return util_calloc(1, bytes);
}

void util_slab_free(util_slab *s, void *p, size_t cap)
{
    if (p == NULL) {
        return;
    }
    if (cap == 0) {
        util_free(p);
        return;
    }
    const unsigned c = class_of(cap);
    util_slab_block *const b = p;
    SLAB_UNPOISON(b, sizeof *b);
    b->next = s->free[c];
    s->free[c] = b;
    SLAB_POISON(b, cap);
}
