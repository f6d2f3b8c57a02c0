/* SPDX-License-Identifier: MIT
 *
 * pb_encode.c - the test-only wire-format encoder of pb_encode.h.  Nested
 * messages are written in place and their length varint is inserted when
 * they close (one memmove per message), so every length is minimal.
 */
#include "pb_encode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool grow(pbe *e, size_t n)
{
    if (e->failed) {
        return false;
    }
    if (e->len + n <= e->cap) {
        return true;
    }
    size_t cap = e->cap ? e->cap : 256;
    while (cap < e->len + n) {
        cap *= 2;
    }
    uint8_t *d = realloc(e->data, cap);
    if (d == NULL) {
        e->failed = true;
        return false;
    }
    e->data = d;
    e->cap = cap;
    return true;
}

void pbe_raw(pbe *e, const void *bytes, size_t n)
{
    if (n > 0 && grow(e, n)) {
        memcpy(e->data + e->len, bytes, n);
        e->len += n;
    }
}

static size_t varint_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

void pbe_varint(pbe *e, uint64_t v)
{
    uint8_t tmp[10];
    pbe_raw(e, tmp, varint_put(tmp, v));
}

void pbe_tag(pbe *e, uint32_t field, unsigned wire)
{
    pbe_varint(e, ((uint64_t)field << 3) | wire);
}

void pbe_uint(pbe *e, uint32_t field, uint64_t v)
{
    pbe_tag(e, field, 0);
    pbe_varint(e, v);
}

void pbe_int(pbe *e, uint32_t field, int64_t v)
{
    pbe_uint(e, field, (uint64_t)v);
}

void pbe_sint(pbe *e, uint32_t field, int64_t v)
{
    pbe_uint(e, field, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void put_le(pbe *e, uint64_t v, unsigned n)
{
    uint8_t b[8];
    for (unsigned i = 0; i < n; i++) {
        b[i] = (uint8_t)(v >> (8 * i));
    }
    pbe_raw(e, b, n);
}

void pbe_fixed64(pbe *e, uint32_t field, uint64_t v)
{
    pbe_tag(e, field, 1);
    put_le(e, v, 8);
}

void pbe_fixed32(pbe *e, uint32_t field, uint32_t v)
{
    pbe_tag(e, field, 5);
    put_le(e, v, 4);
}

void pbe_double(pbe *e, uint32_t field, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    pbe_fixed64(e, field, bits);
}

void pbe_bytes(pbe *e, uint32_t field, const void *p, size_t n)
{
    pbe_tag(e, field, 2);
    pbe_varint(e, n);
    pbe_raw(e, p, n);
}

void pbe_string(pbe *e, uint32_t field, const char *s)
{
    pbe_bytes(e, field, s, strlen(s));
}

size_t pbe_open(pbe *e, uint32_t field)
{
    pbe_tag(e, field, 2);
    return e->len;
}

void pbe_close(pbe *e, size_t mark)
{
    if (e->failed || mark > e->len) {
        return;
    }
    uint8_t tmp[10];
    const size_t n = varint_put(tmp, e->len - mark);
    if (!grow(e, n)) {
        return;
    }
    memmove(e->data + mark + n, e->data + mark, e->len - mark);
    memcpy(e->data + mark, tmp, n);
    e->len += n;
}

void pbe_free(pbe *e)
{
    free(e->data);
    memset(e, 0, sizeof *e);
}

int pbe_save(const pbe *e, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return -1;
    }
    const size_t n = e->len ? fwrite(e->data, 1, e->len, f) : 0;
    const int closed = fclose(f);
    return n == e->len && closed == 0 && !e->failed ? 0 : -1;
}
