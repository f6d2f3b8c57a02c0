/* SPDX-License-Identifier: MIT
 *
 * codec_lz4.c - chunks in the format of the HDF5 LZ4 filter 32004 (see
 * codec_lz4.h for the byte table).  The encoder gives LZ4 an output capacity
 * of one byte less than the block, so a block that would not shrink fails to
 * compress and is stored raw; a stored block is therefore never larger than
 * its input and codec_lz4_bound is n + 12 + 4 per block.  The decoder trusts
 * nothing: every length is checked against both buffers before use and
 * LZ4_decompress_safe must produce exactly the announced block size.
 * Layer 1: may use util.
 */
#include "codec_lz4.h"

#include <limits.h>
#include <lz4.h>
#include <lz4hc.h>
#include <string.h>

enum {
    HEADER_BYTES = 12,
    BLOCK_PREFIX_BYTES = 4
};

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void put_be64(unsigned char *p, uint64_t v)
{
    put_be32(p, (uint32_t)(v >> 32));
    put_be32(p + 4, (uint32_t)v);
}

static uint32_t get_be32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static uint64_t get_be64(const unsigned char *p)
{
    return ((uint64_t)get_be32(p) << 32) | (uint64_t)get_be32(p + 4);
}

/* The block size actually used for n input bytes (the filter stores the
 * same value: min(block, n)). */
static size_t effective_block(size_t n, uint32_t block)
{
    return (size_t)block < n ? (size_t)block : n;
}

size_t codec_lz4_bound(size_t n, uint32_t block)
{
    if (n == 0) {
        return HEADER_BYTES;
    }
    if (block == 0) {
        return 0;
    }
    const size_t b = effective_block(n, block);
    const size_t nblocks = (n - 1) / b + 1;
    if (nblocks > (SIZE_MAX - HEADER_BYTES - n) / BLOCK_PREFIX_BYTES) {
        return 0;
    }
    return HEADER_BYTES + nblocks * BLOCK_PREFIX_BYTES + n;
}

/* Compress one block into dst (room for len bytes); returns the stored size:
 * < len when compressed, == len when stored raw. */
static size_t encode_block(const char *src, size_t len, char *dst, int level)
{
    int c = 0;
    if (len > 1 && level != CODEC_LZ4_STORE) {
        const int cap = (int)len - 1;
        if (level >= LZ4HC_CLEVEL_MIN) {
            const int hc = level > LZ4HC_CLEVEL_MAX ? LZ4HC_CLEVEL_MAX : level;
            c = LZ4_compress_HC(src, dst, (int)len, cap, hc);
        } else {
            c = LZ4_compress_default(src, dst, (int)len, cap);
        }
    }
    if (c <= 0 || (size_t)c >= len) {
        memcpy(dst, src, len);
        return len;
    }
    return (size_t)c;
}

size_t codec_lz4_encode(const void *src, size_t n, void *dst, size_t cap, uint32_t block, int level)
{
    const size_t need = codec_lz4_bound(n, block);
    if (need == 0 || cap < need || (n > 0 && src == NULL) || dst == NULL) {
        return 0;
    }
    const size_t b = effective_block(n, block);
    if (b > (size_t)LZ4_MAX_INPUT_SIZE) {
        return 0;
    }
    unsigned char *const out = dst;
    const char *in = src;
    put_be64(out, (uint64_t)n);
    put_be32(out + 8, (uint32_t)b);
    size_t pos = HEADER_BYTES;
    for (size_t done = 0; done < n;) {
        const size_t len = n - done < b ? n - done : b;
        const size_t stored =
            encode_block(in + done, len, (char *)out + pos + BLOCK_PREFIX_BYTES, level);
        put_be32(out + pos, (uint32_t)stored);
        pos += BLOCK_PREFIX_BYTES + stored;
        done += len;
    }
    return pos;
}

/* ---- chunks that end in zero padding ------------------------------------ */

enum {
    PAD_ALIGN = 256,    /* the content block is rounded up to this */
    PAD_MAX_BLOCKS = 4  /* the padding takes at most this many blocks */
};

size_t codec_lz4_padded_block(size_t content, size_t n)
{
    const size_t least = (n + PAD_MAX_BLOCKS - 1) / PAD_MAX_BLOCKS;
    size_t b = content > least ? content : least;
    b = (b + PAD_ALIGN - 1) / PAD_ALIGN * PAD_ALIGN;
    return b > n - n / 16 ? n : b; /* nearly full: one block, as before */
}

/* The LZ4 block of len zero bytes (len >= 13): one zero literal, a match
 * at offset 1 over all but the last 5 bytes, then 5 zero literals (LZ4's
 * rule: the last 5 bytes are literals and the last match starts at least
 * 12 bytes before the end).  Its size is 10 bytes plus the match length's
 * extra bytes: */
static size_t zero_block_extra(size_t len)
{
    const size_t m = len - 10; /* match length beyond LZ4's minimum of 4 */
    return m < 15 ? 0 : (m - 15) / 255 + 1;
}

/* Write that block at dst; returns its size. */
static size_t zero_block(unsigned char *dst, size_t len)
{
    const size_t m = len - 10, extra = zero_block_extra(len);
    dst[0] = (unsigned char)(0x10 | (m < 15 ? m : 15));
    dst[1] = 0; /* the literal */
    dst[2] = 1; /* offset 1, little-endian */
    dst[3] = 0;
    if (extra > 0) {
        memset(dst + 4, 255, extra - 1);
        dst[4 + extra - 1] = (unsigned char)((m - 15) % 255);
    }
    dst[4 + extra] = 0x50; /* last sequence: 5 literals, no match */
    memset(dst + 5 + extra, 0, 5);
    return 10 + extra;
}

/* The chunk's padding after its content block b, in zero blocks (blocks
 * under 13 bytes raw) at out, or only their size when out is NULL. */
static size_t put_zero_blocks(unsigned char *out, size_t n, size_t b)
{
    size_t pos = 0;
    for (size_t done = b; done < n; done += b) {
        const size_t len = n - done < b ? n - done : b;
        unsigned char *const blk = out != NULL ? out + pos + BLOCK_PREFIX_BYTES : NULL;
        size_t z = len;
        if (len >= 13) {
            z = blk != NULL ? zero_block(blk, len) : 10 + zero_block_extra(len);
        } else if (blk != NULL) {
            memset(blk, 0, len);
        }
        if (out != NULL) {
            put_be32(out + pos, (uint32_t)z);
        }
        pos += BLOCK_PREFIX_BYTES + z;
    }
    return pos;
}

static int gate_level(const codec_lz4_gate *g, size_t content, size_t block);
static void gate_note(codec_lz4_gate *g, size_t content, size_t block, size_t stored, int used);

size_t codec_lz4_encode_chunk(const void *src, size_t content, size_t n, void *dst, size_t cap,
                              codec_lz4_gate *gate)
{
    const size_t b = codec_lz4_padded_block(content, n);
    /* the padding's blocks take far less than the padding, so cap >=
     * codec_lz4_bound(n, n) always suffices */
    if (n == 0 || b > (size_t)LZ4_MAX_INPUT_SIZE || src == NULL || dst == NULL ||
        cap < HEADER_BYTES + BLOCK_PREFIX_BYTES + b + put_zero_blocks(NULL, n, b)) {
        return 0;
    }
    const int level = gate_level(gate, content, b);
    unsigned char *const out = dst;
    put_be64(out, (uint64_t)n);
    put_be32(out + 8, (uint32_t)b);
    const size_t c = encode_block(src, b, (char *)out + HEADER_BYTES + BLOCK_PREFIX_BYTES, level);
    put_be32(out + HEADER_BYTES, (uint32_t)c);
    gate_note(gate, content, b, c, level);
    const size_t pos = HEADER_BYTES + BLOCK_PREFIX_BYTES + c;
    return pos + put_zero_blocks(out + pos, n, b);
}

/* A content block at least 15/16 content counts as full. */
static int gate_full(size_t content, size_t block)
{
    return content >= block - block / 16;
}

static int gate_level(const codec_lz4_gate *g, size_t content, size_t block)
{
    return g->skip > 0 && gate_full(content, block) ? CODEC_LZ4_STORE : g->level;
}

/* stored: the content block's stored size. */
static void gate_note(codec_lz4_gate *g, size_t content, size_t block, size_t stored, int used)
{
    if (!g->adaptive || !gate_full(content, block)) {
        return;
    }
    if (used == CODEC_LZ4_STORE) {
        g->skip--;
        return;
    }
    g->skip = stored > block - block / 8 ? CODEC_LZ4_GATE_SKIP : 0;
}

uint64_t codec_lz4_decoded_size(const void *src, size_t n)
{
    if (src == NULL || n < HEADER_BYTES) {
        return 0;
    }
    return get_be64(src);
}

/* Decode one stored block of csize bytes into dst[0..len), or only its
 * first `want` bytes (want <= len; LZ4 stops there). */
static int decode_block(const unsigned char *in, uint32_t csize, unsigned char *dst, size_t len,
                        size_t want)
{
    if ((size_t)csize == len) {
        memcpy(dst, in, want);
        return 0;
    }
    if (csize == 0 || csize > (uint32_t)INT_MAX || len > (size_t)INT_MAX) {
        return -1;
    }
    const int got = want == len
                        ? LZ4_decompress_safe((const char *)in, (char *)dst, (int)csize, (int)len)
                        : LZ4_decompress_safe_partial((const char *)in, (char *)dst, (int)csize,
                                                      (int)want, (int)want);
    return got >= 0 && (size_t)got == want ? 0 : -1;
}

/* Decode the first `want` bytes of the chunk (all of it with want =
 * SIZE_MAX): the decoded size on success, SIZE_MAX when corrupt. */
/* The chunk header: decoded size (*total, at most cap) and block size (*b).
 * 0, or -1 when corrupt. */
static int read_header(const unsigned char *in, size_t n, const unsigned char *out, size_t cap,
                       size_t *total, size_t *b)
{
    if (in == NULL || n < HEADER_BYTES) {
        return -1;
    }
    const uint64_t orig = get_be64(in);
    const uint32_t hdr_block = get_be32(in + 8);
    if (orig > (uint64_t)cap || orig >= (uint64_t)SIZE_MAX) {
        return -1;
    }
    if (orig > 0 && (hdr_block == 0 || out == NULL)) {
        return -1;
    }
    *total = (size_t)orig;
    *b = effective_block(*total, hdr_block);
    return 0;
}

static size_t decode_upto(const unsigned char *in, size_t n, unsigned char *out, size_t cap,
                          size_t want)
{
    size_t total = 0, b = 0;
    if (read_header(in, n, out, cap, &total, &b) != 0) {
        return SIZE_MAX;
    }
    const size_t goal = want < total ? want : total;
    size_t pos = HEADER_BYTES;
    size_t done = 0;
    while (done < goal) {
        if (n - pos < BLOCK_PREFIX_BYTES) {
            return SIZE_MAX;
        }
        const uint32_t csize = get_be32(in + pos);
        pos += BLOCK_PREFIX_BYTES;
        if ((size_t)csize > n - pos) {
            return SIZE_MAX;
        }
        const size_t len = total - done < b ? total - done : b;
        const size_t part = goal - done < len ? goal - done : len;
        if (decode_block(in + pos, csize, out + done, len, part) != 0) {
            return SIZE_MAX;
        }
        pos += csize;
        done += part;
    }
    if (goal < total) {
        return goal;
    }
    /* Every writer of this format stores exactly its blocks; trailing bytes
     * mean the sizes were tampered with. */
    return pos == n ? total : SIZE_MAX;
}

size_t codec_lz4_decode(const void *src, size_t n, void *dst, size_t cap)
{
    return decode_upto(src, n, dst, cap, SIZE_MAX);
}

size_t codec_lz4_decode_prefix(const void *src, size_t n, void *dst, size_t cap, size_t want)
{
    return decode_upto(src, n, dst, cap, want);
}

size_t codec_lz4_chunk_bytes(const void *src, size_t n)
{
    if (src == NULL || n < HEADER_BYTES) {
        return 0;
    }
    const unsigned char *const in = src;
    const uint64_t total = get_be64(in);
    const uint32_t hdr_block = get_be32(in + 8);
    if (total >= (uint64_t)SIZE_MAX || (total > 0 && hdr_block == 0)) {
        return 0;
    }
    const size_t b = effective_block((size_t)total, hdr_block);
    size_t pos = HEADER_BYTES;
    for (uint64_t done = 0; done < total; done += b) {
        if (n - pos < BLOCK_PREFIX_BYTES) {
            return 0;
        }
        const uint32_t csize = get_be32(in + pos);
        pos += BLOCK_PREFIX_BYTES;
        if ((size_t)csize > n - pos) {
            return 0;
        }
        pos += csize;
    }
    return pos;
}
