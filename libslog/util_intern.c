/* SPDX-License-Identifier: MIT
 *
 * util_intern.c - open-addressing string table over a byte heap.
 * Layer 0: libc only.
 */
#include "util_intern.h"

#include "util_alloc.h"

#include <string.h>

void util_intern_init(util_intern *t, size_t optional_cap)
{
    memset(t, 0, sizeof *t);
    t->optional_cap = optional_cap;
}

void util_intern_free(util_intern *t)
{
    util_buf_free(&t->heap);
    util_free(t->slots);
    memset(t, 0, sizeof *t);
}

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    }
    return h ^ (h >> 31);
}

static int grow(util_intern *t)
{
    const size_t ncap = t->cap ? t->cap * 2 : 1024;
    uint64_t *const slots = util_calloc(ncap, sizeof *slots);
    if (slots == NULL) {
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (t->slots[i] == 0) {
            continue;
        }
        const char *const s = (const char *)t->heap.data + (t->slots[i] - 1);
        size_t j = (size_t)hash_bytes(s, strlen(s)) & (ncap - 1);
        while (slots[j] != 0) {
            j = (j + 1) & (ncap - 1);
        }
        slots[j] = t->slots[i];
    }
    util_free(t->slots);
    t->slots = slots;
    t->cap = ncap;
    return 0;
}

uint64_t util_intern_add(util_intern *t, const char *s, size_t len, int optional)
{
    if (memchr(s, '\0', len) != NULL) {
        return UINT64_MAX; /* embedded NUL: cannot live in a C-string heap */
    }
    if ((t->used + 1) * 4 > t->cap * 3 && grow(t) != 0) {
        return UINT64_MAX;
    }
    size_t j = (size_t)hash_bytes(s, len) & (t->cap - 1);
    while (t->slots[j] != 0) {
        const char *const cand = (const char *)t->heap.data + (t->slots[j] - 1);
        if (strncmp(cand, s, len) == 0 && cand[len] == '\0') {
            return t->slots[j] - 1;
        }
        j = (j + 1) & (t->cap - 1);
    }
    if (optional && t->heap.len + len + 1 > t->optional_cap) {
        return UINT64_MAX;
    }
    const uint64_t off = t->heap.len;
    const char nul = '\0';
    if (util_buf_append(&t->heap, s, len) != 0 || util_buf_append(&t->heap, &nul, 1) != 0) {
        t->heap.len = (size_t)off;
        return UINT64_MAX;
    }
    t->slots[j] = off + 1;
    t->used++;
    return off;
}
