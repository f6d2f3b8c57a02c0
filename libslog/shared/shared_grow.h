/* SPDX-License-Identifier: MIT
 *
 * shared_grow.h - growing a heap array to a needed length: the helper four
 * files of the importers and tools each had a copy of.
 * libslog/shared/ holds the small internal utilities that the core, the
 * import library and the tools all use (doc/DESIGN.md, "Shared internal
 * utilities"): libc only, no libslog header, never installed.
 */
#ifndef SLOG_SHARED_GROW_H
#define SLOG_SHARED_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Inline, so there is no library to link: the importers' decoders and the
 * tools' sources are also compiled straight into tests and benchmarks. */

/* Grow the array behind @p arrp (the address of a T*) to hold at least
 * @p need elements of @p elem bytes: capacity doubles from 16 (or from *cap),
 * new elements are zeroed.  0 ok (also when already big enough), -1 on no
 * memory or overflow, the array and *cap then untouched. */
static inline int shared_grow(void *arrp, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) {
        return 0;
    }
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) {
            return -1;
        }
        ncap *= 2;
    }
    if (elem != 0 && ncap > SIZE_MAX / elem) {
        return -1;
    }
    void *p;
    memcpy(&p, arrp, sizeof p); /* arrp is a T**: no aliasing through void** */
    char *const q = realloc(p, ncap * elem);
    if (q == NULL) {
        return -1;
    }
    memset(q + *cap * elem, 0, (ncap - *cap) * elem);
    memcpy(arrp, &q, sizeof q);
    *cap = ncap;
    return 0;
}

/* The same with a uint32_t capacity (tables indexed by 32-bit ids). */
static inline int shared_grow32(void *arrp, uint32_t *cap, uint32_t need, size_t elem)
{
    size_t c = *cap;
    if (shared_grow(arrp, &c, need, elem) != 0) {
        return -1;
    }
    if (c > UINT32_MAX) {
        c = UINT32_MAX; /* need fits: only the doubling overshot */
    }
    *cap = (uint32_t)c;
    return 0;
}

#endif /* SLOG_SHARED_GROW_H */
