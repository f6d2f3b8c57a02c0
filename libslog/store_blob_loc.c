/* SPDX-License-Identifier: MIT
 *
 * store_blob_loc.c - blob locations in the file (format 4, doc/FORMAT.md
 * §3.3): the writer's record of where HDF5 put each blob's chunks, the
 * format-4 members of a node row filled from it, and the reader's decoding
 * of a blob fetched whole by address.  Layer 2 (store): codec and util.
 */
#include "store_blob_loc.h"

#include "codec_lz4.h"
#include "util_alloc.h"

#include <string.h>

void chunk_span_add(chunk_span *sp, size_t index, uint64_t addr, uint64_t size)
{
    if (index == 0) {
        sp->first = addr;
        sp->next = addr;
        sp->broken = false;
    }
    if (addr == 0 || addr != sp->next) {
        sp->broken = true;
    }
    sp->next = addr + size;
}

void blob_loc_put(blob_loc_ring *r, uint64_t off, const chunk_span *sp)
{
    const uint64_t zlen = sp->next - sp->first;
    const bool known = !sp->broken && zlen > 0 && zlen <= UINT32_MAX;
    r->e[r->next] = (blob_loc){off, known ? sp->first : 0, known ? (uint32_t)zlen : 0};
    r->next = (r->next + 1) % BLOB_LOC_RING;
    if (r->n < BLOB_LOC_RING) {
        r->n++;
    }
}

/* The location of the blob at off (newest first), or address 0. */
static void find_loc(const blob_loc_ring *r, uint64_t off, uint64_t len, uint64_t *addr,
                     uint32_t *zlen)
{
    *addr = 0;
    *zlen = 0;
    if (len == 0) {
        return;
    }
    for (unsigned k = 1; k <= r->n; k++) {
        const blob_loc *const e = &r->e[(r->next + BLOB_LOC_RING - k) % BLOB_LOC_RING];
        if (e->off == off) {
            *addr = e->addr;
            *zlen = e->zlen;
            return;
        }
    }
}

void blob_loc_fill_row(const blob_loc_ring *r, store_node_row *row)
{
    find_loc(r, row->payload_off, row->payload_len, &row->payload_addr, &row->payload_zlen);
    find_loc(r, row->preview_off, row->preview_len, &row->preview_addr, &row->preview_zlen);
    find_loc(r, row->args_off, row->args_len, &row->args_addr, &row->args_zlen);
    row->addr_crc = store_node_addr_crc(row);
}

/* Decode the part p of the chunk starting at coff (its stored bytes
 * c[0..clen), cb when decoded; p lies inside it) into p->dst; the chunk's
 * head is decoded only up to the part's end, a part starting inside it goes
 * through scratch. */
static int decode_part(const unsigned char *c, size_t clen, uint32_t cb, uint64_t coff,
                       const blob_part *p, unsigned char *scratch)
{
    if (codec_lz4_decoded_size(c, clen) != cb) {
        return -1;
    }
    const size_t want = (size_t)(p->off + p->n - coff);
    unsigned char *const out = p->off == coff ? p->dst : scratch;
    if (codec_lz4_decode_prefix(c, clen, out, cb, want) != want) {
        return -1;
    }
    if (p->off != coff) {
        memcpy(p->dst, scratch + (p->off - coff), (size_t)p->n);
    }
    return 0;
}

int blob_loc_decode(const unsigned char *z, size_t zlen, uint32_t chunk_bytes, uint64_t blob_off,
                    const blob_part *p, uint64_t *decoded)
{
    const uint64_t off = p->off;
    const uint64_t end = p->off + p->n;
    unsigned char *scratch = NULL;
    size_t pos = 0;
    int rc = 0;
    *decoded = 0;
    for (uint64_t coff = blob_off; rc == 0 && coff < end; coff += chunk_bytes) {
        const size_t clen = codec_lz4_chunk_bytes(z + pos, zlen - pos);
        const uint64_t lo = coff > off ? coff : off;
        const uint64_t hi = coff + chunk_bytes < end ? coff + chunk_bytes : end;
        if (clen == 0) {
            rc = -1;
        } else if (hi > lo) {
            if (lo != coff && scratch == NULL && (scratch = util_malloc(chunk_bytes)) == NULL) {
                rc = -1;
                break;
            }
            const blob_part part = {lo, hi - lo, p->dst + (lo - off)};
            rc = decode_part(z + pos, clen, chunk_bytes, coff, &part, scratch);
            *decoded += hi - coff;
        }
        pos += clen;
    }
    util_free(scratch);
    return rc;
}
