/* SPDX-License-Identifier: MIT
 *
 * store_blob_loc.h - where a blob's chunks lie in the file (format 4): the
 * writer side tracks the file addresses HDF5 gave each chunk of a blob and
 * keeps the last few blobs' locations until their node row is sealed; the
 * reader side splits the bytes of contiguous chunks read with one pread and
 * decodes the part of the blob asked for.  No HDF5 here: store_hdf5.c does
 * the calls.  Layer 2 (store): may use codec and util.
 */
#ifndef STORE_BLOB_LOC_H
#define STORE_BLOB_LOC_H

#include "store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The chunks of one blob as they are written: contiguous so far? */
typedef struct chunk_span {
    uint64_t first; /* file address of the first chunk */
    uint64_t next;  /* where the next chunk must start to stay contiguous */
    bool broken;    /* a chunk landed elsewhere (or HDF5 could not say) */
} chunk_span;

/* Add a chunk of `size` stored bytes at `addr` (addr 0: unknown). */
void chunk_span_add(chunk_span *sp, size_t index, uint64_t addr, uint64_t size);

/* Locations of the most recently written blobs, by /payload offset: a
 * node's row is appended right after its blobs, so a short ring is enough;
 * a blob that fell out of it gets address 0 (read through HDF5). */
#define BLOB_LOC_RING 256u

typedef struct blob_loc {
    uint64_t off;  /* blob's byte offset in decoded /payload */
    uint64_t addr; /* file address of its first chunk, 0 = unknown */
    uint32_t zlen; /* stored bytes of all its chunks */
} blob_loc;

typedef struct blob_loc_ring {
    blob_loc e[BLOB_LOC_RING];
    unsigned n;    /* entries used, <= BLOB_LOC_RING */
    unsigned next; /* slot the next entry goes to */
} blob_loc_ring;

/* Remember a written blob (a span that broke or exceeds 4 GiB: unknown). */
void blob_loc_put(blob_loc_ring *r, uint64_t off, const chunk_span *sp);

/* Set the row's format-4 members from the ring and seal them with
 * addr_crc. */
void blob_loc_fill_row(const blob_loc_ring *r, store_node_row *row);

/* Bytes [off, off + n) of decoded /payload and where they go. */
typedef struct blob_part {
    uint64_t off;
    uint64_t n;
    unsigned char *dst; /* capacity >= n; dst[0] is byte off */
} blob_part;

/* Decode the part p of a blob starting at blob_off in /payload from the
 * bytes z[0..zlen) of its chunks laid end to end (each chunk_bytes when
 * decoded).  0 on success with *decoded the bytes decoded, -1 when the
 * bytes are not such chunks. */
int blob_loc_decode(const unsigned char *z, size_t zlen, uint32_t chunk_bytes, uint64_t blob_off,
                    const blob_part *p, uint64_t *decoded);

#endif
