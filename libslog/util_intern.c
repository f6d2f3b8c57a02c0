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

/* A slot holds the offset + 1 in its low OFF_BITS and the top bits of the
 * string's hash above them, so a probe compares strings only when those
 * agree. */
#define OFF_BITS 40
#define OFF_MASK ((1ull << OFF_BITS) - 1)
#define TAG(h) ((h) & ~OFF_MASK)

#define MIX 0x9e3779b97f4a7c15ull

static uint64_t load8(const char *s)
{
    uint64_t w;
    memcpy(&w, s, sizeof w);
    return w;
}

static uint64_t load4(const char *s)
{
    uint32_t w;
    memcpy(&w, s, sizeof w);
    return w;
}

/* Eight bytes at a time, the tail with overlapping loads: the table lives
 * in memory only, so the hash may depend on the byte order. */
static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = len * MIX;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        h = (h ^ load8(s + i)) * MIX;
        h ^= h >> 32;
    }
    uint64_t tail = 0;
    const size_t left = len - i;
    if (left >= 4) {
        tail = load4(s + i) | (load4(s + len - 4) << 32);
    } else if (left > 0) {
        tail = (uint64_t)(uint8_t)s[i] | ((uint64_t)(uint8_t)s[i + left / 2] << 8) |
               ((uint64_t)(uint8_t)s[len - 1] << 16);
    }
    h = (h ^ tail) * MIX;
    return h ^ (h >> 29);
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
        const char *const s = (const char *)t->heap.data + ((t->slots[i] & OFF_MASK) - 1);
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
    const uint64_t h = hash_bytes(s, len);
    size_t j = (size_t)h & (t->cap - 1);
    for (uint64_t slot; (slot = t->slots[j]) != 0; j = (j + 1) & (t->cap - 1)) {
        if (TAG(slot) != TAG(h)) {
            continue;
        }
        const char *const cand = (const char *)t->heap.data + ((slot & OFF_MASK) - 1);
        if (strncmp(cand, s, len) == 0 && cand[len] == '\0') {
            return (slot & OFF_MASK) - 1;
        }
    }
    if ((optional && t->heap.len + len + 1 > t->optional_cap) ||
        t->heap.len + len + 1 >= OFF_MASK) {
        return UINT64_MAX;
    }
    const uint64_t off = t->heap.len;
    const char nul = '\0';
    if (util_buf_append(&t->heap, s, len) != 0 || util_buf_append(&t->heap, &nul, 1) != 0) {
        t->heap.len = (size_t)off;
        return UINT64_MAX;
    }
    t->slots[j] = TAG(h) | (off + 1);
    t->used++;
    return off;
}
