/* SPDX-License-Identifier: MIT
 *
 * chrome_keys.c - dense ids for the text keys the Chrome mapper looks its
 * timelines and categories up by: (input, pid, tid) -> thread_key and
 * (name, cat) -> name_key.  They are given on the reading side (the feeder
 * thread, in chrome_drive.c), while a record is still in its cache; the
 * mapper then indexes arrays by id instead of rebuilding string keys from
 * records that come cold out of the stage-1 window.
 * Equal ids mean equal text, compared as the mapper's string keys compare
 * (C strings; an absent field differs from ""), and different text gets
 * different ids.  Id 0 means none: past KEYS_MAX ids per kind no more are
 * given (memory stays bounded on traces with unique names), and the mapper
 * falls back to the strings.
 * Also the importer's fast string hash (chrome_hash), used here and by the
 * mapper's string maps.
 * Import library, chrome: libc only.
 */
#include <stdlib.h>
#include <string.h>

#include "chrome.h"

#define KEYS_MAX (1u << 20)  /* ids per table at most */
#define ABSENT SIZE_MAX      /* length of an absent field */

typedef struct kent {
    uint64_t hash;
    size_t off;          /* first part's bytes in keys_tab.bytes, then the second's */
    size_t l1, l2;       /* lengths, ABSENT for a missing field */
    uint32_t input;
} kent;

/* One table: open addressing over entry indices; id = index + 1. */
typedef struct keys_tab {
    uint32_t *slot;      /* id, 0 = empty */
    size_t nslot;        /* a power of two, at least twice the entries */
    kent *ent;
    size_t nent, capent;
    char *bytes;
    size_t nbytes, capbytes;
} keys_tab;

struct chrome_keys {
    keys_tab threads, names;
};

chrome_keys *chrome_keys_create(void)
{
    return calloc(1, sizeof(chrome_keys));
}

static void tab_free(keys_tab *t)
{
    free(t->slot);
    free(t->ent);
    free(t->bytes);
}

void chrome_keys_destroy(chrome_keys *k)
{
    if (k == NULL) {
        return;
    }
    tab_free(&k->threads);
    tab_free(&k->names);
    free(k);
}

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

/* Eight bytes at a time; the tail with overlapping loads (short keys). */
static uint64_t hash_part(uint64_t h, const char *s, size_t n)
{
    if (n == ABSENT) {
        return (h ^ 0xa5a5a5a5u) * MIX;
    }
    return chrome_hash(h, s, n);
}

uint64_t chrome_hash(uint64_t seed, const char *s, size_t n)
{
    uint64_t h = seed;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        h = (h ^ load8(s + i)) * MIX;
        h ^= h >> 32;
    }
    uint64_t tail = 0;
    const size_t left = n - i;
    if (left >= 4) {
        tail = load4(s + i) | (load4(s + n - 4) << 32);
    } else if (left > 0) {
        tail = (uint64_t)(unsigned char)s[i] | ((uint64_t)(unsigned char)s[i + left / 2] << 8) |
               ((uint64_t)(unsigned char)s[n - 1] << 16);
    }
    h = (h ^ tail ^ ((uint64_t)n << 40)) * MIX;
    return h ^ (h >> 29);
}

/* Length of a key part; @p len1 is the record's strlen + 1 hint (0 = none). */
static size_t part_len(const char *s, unsigned char len1)
{
    return s == NULL ? ABSENT : len1 != 0 ? (size_t)len1 - 1 : strlen(s);
}

/* Bytes of a part as stored (none for an absent one). */
static size_t part_bytes(size_t len)
{
    return len == ABSENT ? 0 : len;
}

static bool part_equal(const char *stored, const char *s, size_t n)
{
    return n == 0 || memcmp(stored, s, n) == 0;
}

/* A key being looked up: the input and two parts (lengths ABSENT for NULL). */
typedef struct key_parts {
    uint32_t input;
    const char *a, *b;
    size_t la, lb;
    uint64_t h;
} key_parts;

static bool tab_equal(const keys_tab *t, const kent *e, const key_parts *k)
{
    if (e->hash != k->h || e->input != k->input || e->l1 != k->la || e->l2 != k->lb) {
        return false;
    }
    const size_t na = part_bytes(k->la);
    return part_equal(t->bytes + e->off, k->a, na) &&
           part_equal(t->bytes + e->off + na, k->b, part_bytes(k->lb));
}

static int tab_grow_slots(keys_tab *t)
{
    const size_t nslot = t->nslot ? t->nslot * 2 : 64;
    uint32_t *slot = calloc(nslot, sizeof *slot);
    if (slot == NULL) {
        return -1;
    }
    for (size_t i = 0; i < t->nent; i++) {
        size_t at = (size_t)t->ent[i].hash & (nslot - 1);
        while (slot[at] != 0) {
            at = (at + 1) & (nslot - 1);
        }
        slot[at] = (uint32_t)i + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->nslot = nslot;
    return 0;
}

static int tab_reserve(keys_tab *t, size_t bytes)
{
    if (t->nent == t->capent) {
        const size_t cap = t->capent ? t->capent * 2 : 64;
        kent *e = realloc(t->ent, cap * sizeof *e);
        if (e == NULL) {
            return -1;
        }
        t->ent = e;
        t->capent = cap;
    }
    if (t->bytes == NULL || t->nbytes + bytes > t->capbytes) {
        size_t cap = t->capbytes ? t->capbytes : 1024;
        while (cap < t->nbytes + bytes) {
            cap *= 2;
        }
        char *b = realloc(t->bytes, cap);
        if (b == NULL) {
            return -1;
        }
        t->bytes = b;
        t->capbytes = cap;
    }
    return 0;
}

/* Set *id to the id of (input, a, b), found or new (0 past KEYS_MAX).
 * 0 ok, -1 no memory. */
static int tab_id(keys_tab *t, key_parts *k, uint32_t *id)
{
    const uint32_t input = k->input;
    const char *const a = k->a, *const b = k->b;
    const size_t la = k->la, lb = k->lb;
    const uint64_t h = hash_part(hash_part(input * MIX, a, la), b, lb);
    k->h = h;
    *id = 0;
    size_t at = 0;
    if (t->nslot > 0) {
        at = (size_t)h & (t->nslot - 1);
        for (uint32_t s; (s = t->slot[at]) != 0; at = (at + 1) & (t->nslot - 1)) {
            if (tab_equal(t, &t->ent[s - 1], k)) {
                *id = s;
                return 0;
            }
        }
    }
    if (t->nent >= KEYS_MAX) {
        return 0;
    }
    const size_t na = part_bytes(la), nb = part_bytes(lb);
    if (tab_reserve(t, na + nb) != 0) {
        return -1;
    }
    if (2 * (t->nent + 1) > t->nslot) {
        if (tab_grow_slots(t) != 0) {
            return -1;
        }
        at = (size_t)h & (t->nslot - 1);
        while (t->slot[at] != 0) {
            at = (at + 1) & (t->nslot - 1);
        }
    }
    kent *e = &t->ent[t->nent];
    e->hash = h;
    e->off = t->nbytes;
    e->l1 = la;
    e->l2 = lb;
    e->input = input;
    if (na > 0) {
        memcpy(t->bytes + t->nbytes, a, na);
    }
    if (nb > 0) {
        memcpy(t->bytes + t->nbytes + na, b, nb);
    }
    t->nbytes += na + nb;
    *id = (uint32_t)++t->nent;
    t->slot[at] = *id;
    return 0;
}

int chrome_keys_assign(chrome_keys *k, chrome_event *ev)
{
    key_parts thread = {ev->input, ev->pid, ev->tid, part_len(ev->pid, ev->len1_pid),
                        part_len(ev->tid, ev->len1_tid), 0};
    key_parts name = {0, ev->name, ev->cat, part_len(ev->name, ev->len1_name),
                      part_len(ev->cat, ev->len1_cat), 0};
    if (tab_id(&k->threads, &thread, &ev->thread_key) != 0 ||
        tab_id(&k->names, &name, &ev->name_key) != 0) {
        return -1;
    }
    return 0;
}
