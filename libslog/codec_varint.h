/* SPDX-License-Identifier: MIT
 *
 * codec_varint.h - LEB128 unsigned varints and zig-zag signed integers, the
 * integer encoding of node payloads and previews.  Decoders are bounds
 * checked: they take the end pointer and report overruns.
 * Layer 1: may use util.
 */
#ifndef CODEC_VARINT_H
#define CODEC_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define CODEC_VARINT_MAX 10

static inline uint64_t codec_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (0 - ((uint64_t)v >> 63)); /* no signed shift */
}

static inline int64_t codec_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline unsigned codec_varint_len(uint64_t v)
{
    unsigned n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Write v at p (room for CODEC_VARINT_MAX bytes); returns the byte after. */
static inline uint8_t *codec_varint_put(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Read a varint from [*pp, end); advances *pp.  Returns 0 ok, -1 overrun or
 * overlong encoding. */
static inline int codec_varint_get(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (p >= end) {
            return -1;
        }
        const uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            *pp = p;
            *out = v;
            return 0;
        }
    }
    return -1;
}

#endif /* CODEC_VARINT_H */
