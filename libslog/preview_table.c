/* SPDX-License-Identifier: MIT
 *
 * preview_table.c - the table of a summary's entries, keyed by (kind,
 * row, row_to, category, time bin): 4-byte slots (linear probing, grown
 * at 7/10 load) over a dense array of the entries in insertion order, so
 * probes and growth touch the slots only.  Growing re-lays the slots in
 * their old order, which fixes the slot order that pv_encode writes.
 * Also a new entry's start values (pv_entry_start) and the sticky map of
 * categories folded into "other".
 * Layer 3: may use codec and util.
 */
#include "preview_int.h"

#include "util_alloc.h"

#include <string.h>

/* Mark cat as folded into "other" (grows the map). */
int pv_drop_category(pv_summary *s, uint32_t cat)
{
    if (cat >= s->ndropped) {
        size_t n = s->ndropped ? s->ndropped : 64;
        while (n <= cat) {
            n *= 2;
        }
        uint8_t *const d = util_realloc(s->dropped, n);
        if (d == NULL) {
            return -1;
        }
        memset(d + s->ndropped, 0, n - s->ndropped);
        s->dropped = d;
        s->ndropped = n;
    }
    s->dropped[cat] = 1;
    return 0;
}

static size_t hash_key(uint8_t kind, uint32_t row, uint32_t row_to, uint32_t cat, int64_t bin)
{
    uint64_t h = ((uint64_t)row << 32 | cat) * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)row_to << 8 | kind) * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)bin * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    return (size_t)h;
}

/* Would one more entry take a table of @p cap slots holding @p n past
 * its load limit (7/10)? */
static int too_full(size_t n, size_t cap)
{
    return (n + 1) * 10 > cap * 7;
}

/* Room for the entries a table of @p cap slots holds before it grows (at
 * most 7/10 of cap: too_full); pv_table_rehash bounds cap, so cap * 7 fits. */
static size_t entries_for(size_t cap)
{
    return cap * 7 / 10 + 1;
}

/* Re-lay the slots over ncap, old slots in order (so the layout is the
 * one inserting the entries in that order gives); the entries stay. */
int pv_table_rehash(pv_summary *s, size_t ncap)
{
    /* zeroed by writing, not calloc: a large calloc is fresh zero pages
     * that the probes below read and then write, a second fault per page
     * that also flushes the other threads' TLBs (13 % of a Chrome import
     * on a virtual machine where those cost ~10 us) */
    if (ncap > UINT32_MAX || ncap > SIZE_MAX / sizeof(pv_entry)) {
        return -1;
    }
    pv_entry *const entries = util_realloc(s->entries, entries_for(ncap) * sizeof *entries);
    if (entries == NULL) {
        return -1;
    }
    s->entries = entries; /* larger than the old slots need: harmless if the rest fails */
    uint32_t *const index = util_malloc(ncap * sizeof *index);
    if (index == NULL) {
        return -1;
    }
    memset(index, 0, ncap * sizeof *index);
    for (size_t i = 0; i < s->cap; i++) {
        const uint32_t x = s->index[i];
        if (x == 0) {
            continue;
        }
        const pv_entry *const e = &entries[x - 1];
        size_t j = hash_key(e->kind, e->row, e->row_to, e->cat, e->bin) & (ncap - 1);
        while (index[j] != 0) {
            j = (j + 1) & (ncap - 1);
        }
        index[j] = x;
    }
    util_free(s->index);
    s->index = index;
    s->cap = ncap;
    return 0;
}

/* The smallest capacity that holds n entries without growing. */
size_t pv_table_cap_for(size_t n)
{
    size_t cap = 64;
    while (too_full(n, cap)) {
        cap *= 2;
    }
    return cap;
}

static int grow_check(pv_summary *s)
{
    return too_full(s->used, s->cap) ? pv_table_rehash(s, s->cap ? s->cap * 2 : 64) : 0;
}

int pv_grow_check(pv_summary *s)
{
    return grow_check(s);
}

void pv_entry_start(pv_entry *e, uint8_t kind)
{
    memset(e, 0, sizeof *e);
    e->used = 1;
    e->kind = kind;
    e->min = INT64_MAX;
    e->max = INT64_MIN;
    e->last_time = INT64_MIN;
}

/* Find or insert the entry for a key (row already folded). */
pv_entry *pv_table_lookup(pv_summary *s, uint8_t kind, uint32_t row, uint32_t row_to,
                          uint32_t cat, int64_t bin)
{
    if (grow_check(s) != 0) {
        return NULL;
    }
    size_t j = hash_key(kind, row, row_to, cat, bin) & (s->cap - 1);
    for (;;) {
        const uint32_t x = s->index[j];
        if (x == 0) {
            pv_entry *const e = &s->entries[s->used];
            pv_entry_start(e, kind);
            e->row = row;
            e->row_to = row_to;
            e->cat = cat;
            e->bin = bin;
            s->index[j] = (uint32_t)++s->used;
            return e;
        }
        pv_entry *const e = &s->entries[x - 1];
        if (e->kind == kind && e->row == row && e->row_to == row_to && e->cat == cat &&
            e->bin == bin) {
            return e;
        }
        j = (j + 1) & (s->cap - 1);
    }
}
