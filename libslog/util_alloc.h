/* SPDX-License-Identifier: MIT
 *
 * util_alloc.h - every allocation of libslog goes through here, so tests can
 * make the Nth allocation fail (util_alloc_fail_after) and check that each
 * failure is reported cleanly and leaks nothing.
 * Layer 0: libc only.
 */
#ifndef UTIL_ALLOC_H
#define UTIL_ALLOC_H

#include <stddef.h>

void *util_malloc(size_t n);
void *util_calloc(size_t count, size_t size);
void *util_realloc(void *p, size_t n);
void util_free(void *p);
char *util_strdup(const char *s);

/* Grow *p (an array of *cap elements of elem bytes) to hold at least need
 * elements, doubling.  Returns 0 or -1 (out of memory, *p unchanged). */
int util_grow(void **p, size_t *cap, size_t need, size_t elem);

/* Test hook: after n more successful allocations, every allocation fails
 * until reset with n = (size_t)-1.  Not thread-safe; tests only. */
void util_alloc_fail_after(size_t n);

#endif /* UTIL_ALLOC_H */
