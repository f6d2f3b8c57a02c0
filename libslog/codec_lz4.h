/* SPDX-License-Identifier: MIT
 *
 * codec_lz4.h - chunks in the on-disk format of the registered HDF5 LZ4
 * filter (id 32004), so h5dump/h5py with the standard plugin read them:
 *
 *   OFFSET  SIZE  MEANING
 *   0       8     original (decoded) size, big-endian u64
 *   8       4     block size, big-endian u32
 *   12      ...   per block: u32 big-endian compressed size, then the raw
 *                 LZ4 block; a block that would not shrink is stored raw
 *                 (compressed size == its decoded size)
 *
 * The only file that includes <lz4.h>.  Decoding uses LZ4_decompress_safe.
 * Layer 1: may use util.
 */
#ifndef CODEC_LZ4_H
#define CODEC_LZ4_H

#include <stddef.h>
#include <stdint.h>

/* Largest encoded size of n input bytes split in blocks of block bytes. */
size_t codec_lz4_bound(size_t n, uint32_t block);

/* Level that stores every block raw, without trying LZ4. */
#define CODEC_LZ4_STORE (-1)

/* Encode src[0..n) into dst (capacity cap >= codec_lz4_bound(n, block)).
 * level CODEC_LZ4_STORE: raw blocks; 0..1: LZ4 fast; 2..12: LZ4 HC.
 * Returns the encoded size, 0 on error. */
size_t codec_lz4_encode(const void *src, size_t n, void *dst, size_t cap, uint32_t block,
                        int level);

/* The compression of a stream of chunks: its level, and when adaptive
 * (a writer's node geometry and previews at the fast level), whether to
 * try at all: when LZ4 shrinks a full content block by less than 1/8, the
 * next CODEC_LZ4_GATE_SKIP full ones of the stream are stored raw without
 * trying, then LZ4 is tried again.  A content block that is partly zero
 * padding is always compressed.  Raw blocks are part of the filter's
 * format, so readers see no difference. */
#define CODEC_LZ4_GATE_SKIP 15
typedef struct codec_lz4_gate {
    int level;     /* as codec_lz4_encode's */
    int adaptive;  /* 0: always level */
    uint32_t skip; /* full blocks still to store raw */
} codec_lz4_gate;

/* The first ("content") block size of a chunk of n bytes holding content
 * bytes and then zero padding: content rounded up to 256, at least n/4;
 * n itself when that is nearly all of n. */
size_t codec_lz4_padded_block(size_t content, size_t n);

/* Encode a chunk of n bytes, content bytes and then zeros, into dst
 * (capacity cap >= codec_lz4_bound(n, n); n >= 512) as the gate says.  src
 * holds the content block: content bytes then zeros up to
 * codec_lz4_padded_block(content, n), and only that is read.  The content
 * block is compressed (or stored raw); the padding after it goes in zero
 * blocks written directly (10 bytes plus one per 255 zeros), so LZ4 never
 * reads them.
 * Returns the encoded size, 0 on error. */
size_t codec_lz4_encode_chunk(const void *src, size_t content, size_t n, void *dst, size_t cap,
                              codec_lz4_gate *gate);

/* Decoded size announced by an encoded chunk; 0 if shorter than its header. */
uint64_t codec_lz4_decoded_size(const void *src, size_t n);

/* Decode src[0..n) into dst (capacity cap).  Returns the decoded size, or
 * SIZE_MAX when the input is corrupt or dst too small (never reads or writes
 * out of bounds). */
size_t codec_lz4_decode(const void *src, size_t n, void *dst, size_t cap);

/* Decode only the first `want` bytes of src[0..n) into dst (capacity cap),
 * stopping there: a reader that needs the head of a chunk (a short blob in
 * a zero-padded chunk) skips decoding the rest.  Returns `want` (the whole
 * decoded size when that is smaller), or SIZE_MAX when what it decoded is
 * corrupt; the part not decoded is not checked. */
size_t codec_lz4_decode_prefix(const void *src, size_t n, void *dst, size_t cap, size_t want);

/* Stored length of the one encoded chunk at the start of src[0..n) (its
 * header and block prefixes walked, nothing decoded), so that chunks laid
 * end to end can be split; 0 when they do not fit in n bytes. */
size_t codec_lz4_chunk_bytes(const void *src, size_t n);

#endif /* CODEC_LZ4_H */
