/* SPDX-License-Identifier: MIT
 *
 * util_alloc.c - allocation wrappers with a fault countdown for tests.
 * Layer 0: libc only.
 */
#include "util_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Atomic: a writer's background thread allocates beside its caller. */
static size_t fail_countdown = SIZE_MAX;

void util_alloc_fail_after(size_t n)
{
    __atomic_store_n(&fail_countdown, n, __ATOMIC_RELAXED);
}

static int should_fail(void)
{
    size_t c = __atomic_load_n(&fail_countdown, __ATOMIC_RELAXED);
    while (c != SIZE_MAX) {
        if (c == 0) {
            return 1;
        }
        if (__atomic_compare_exchange_n(&fail_countdown, &c, c - 1, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
            return 0;
        }
    }
    return 0;
}

void *util_malloc(size_t n)
{
    return should_fail() ? NULL : malloc(n == 0 ? 1 : n);
}

void *util_calloc(size_t count, size_t size)
{
    return should_fail() ? NULL : calloc(count == 0 ? 1 : count, size == 0 ? 1 : size);
}

void *util_realloc(void *p, size_t n)
{
    return should_fail() ? NULL : realloc(p, n == 0 ? 1 : n);
}

void util_free(void *p)
{
    free(p);
}

char *util_strdup(const char *s)
{
    const size_t n = strlen(s) + 1;
    char *const d = util_malloc(n);
    if (d != NULL) {
        memcpy(d, s, n);
    }
    return d;
}

int util_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) {
        return 0;
    }
    size_t ncap = *cap < 16 ? 16 : *cap;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem) {
            return -1;
        }
        ncap *= 2;
    }
    void *const np = util_realloc(*p, ncap * elem);
    if (np == NULL) {
        return -1;
    }
    *p = np;
    *cap = ncap;
    return 0;
}
