/* SPDX-License-Identifier: MIT
 *
 * node_format_index.c - encoding and checking the input table of an index file
 * (node_format_index.h has the layout).  The blob is the structs end to end,
 * little-endian as this library's other rows are; one CRC32C covers it.
 * Layer 3: format (codec, util).
 */
#include "node_format_index.h"

#include <string.h>

#include "codec_crc32c.h"
#include "util_alloc.h"

static size_t heap_bytes(const ix_header *h)
{
    return (h->flags & IX_SELF_CONTAINED) ? (size_t)h->ninputs * sizeof(ix_heap) : 0;
}

static size_t blob_bytes(const ix_header *h)
{
    return sizeof *h + (size_t)h->ninputs * sizeof(ix_input) + (size_t)h->nmap * 4u +
           (size_t)h->nroots * 8u + heap_bytes(h);
}

int ix_encode(const ix_table *t, uint8_t **out, size_t *n)
{
    ix_header h = t->h;
    memset(h.magic, 0, sizeof h.magic);
    memcpy(h.magic, IX_MAGIC, sizeof IX_MAGIC);
    h.version = IX_VERSION;
    h.crc = 0;
    const size_t len = blob_bytes(&h);
    uint8_t *const b = util_malloc(len);
    if (b == NULL) {
        return -1;
    }
    size_t at = 0;
    memcpy(b, &h, sizeof h);
    at += sizeof h;
    memcpy(b + at, t->inputs, (size_t)h.ninputs * sizeof(ix_input));
    at += (size_t)h.ninputs * sizeof(ix_input);
    memcpy(b + at, t->map, (size_t)h.nmap * 4u);
    at += (size_t)h.nmap * 4u;
    memcpy(b + at, t->roots, (size_t)h.nroots * 8u);
    at += (size_t)h.nroots * 8u;
    if (heap_bytes(&h) > 0) {
        memcpy(b + at, t->heaps, heap_bytes(&h));
    }
    const uint32_t crc = codec_crc32c(0, b, len);
    memcpy(b + offsetof(ix_header, crc), &crc, sizeof crc);
    *out = b;
    *n = len;
    return 0;
}

static int check_inputs(const ix_table *t, const char **what)
{
    for (uint32_t i = 0; i < t->h.ninputs; i++) {
        const ix_input *const in = &t->inputs[i];
        const uint64_t nmap = (uint64_t)in->ntimelines + in->ncategories;
        if (in->map_first > t->h.nmap || nmap > t->h.nmap - in->map_first) {
            *what = "an input's map lies outside the table";
            return 1;
        }
        if (in->roots_first > t->h.nroots || in->nroots > t->h.nroots - in->roots_first) {
            *what = "an input's roots lie outside the table";
            return 1;
        }
        if (in->state > IX_MISSING || in->depth > 64) {
            *what = "an input row has a bad state or depth";
            return 1;
        }
    }
    return 0;
}

static int copy_arrays(const uint8_t *blob, ix_table *t)
{
    const size_t ni = (size_t)t->h.ninputs * sizeof(ix_input);
    const size_t nm = (size_t)t->h.nmap * 4u;
    const size_t nr = (size_t)t->h.nroots * 8u;
    t->inputs = util_malloc(ni ? ni : 1);
    t->map = util_malloc(nm ? nm : 1);
    t->roots = util_malloc(nr ? nr : 1);
    const size_t nh = heap_bytes(&t->h);
    t->heaps = nh > 0 ? util_malloc(nh) : NULL;
    if (t->inputs == NULL || t->map == NULL || t->roots == NULL || (nh > 0 && !t->heaps)) {
        return -1;
    }
    const uint8_t *p = blob + sizeof(ix_header);
    memcpy(t->inputs, p, ni);
    memcpy(t->map, p + ni, nm);
    memcpy(t->roots, p + ni + nm, nr);
    if (nh > 0) {
        memcpy(t->heaps, p + ni + nm + nr, nh);
    }
    return 0;
}

int ix_decode(const uint8_t *blob, size_t n, ix_table *t, const char **what)
{
    memset(t, 0, sizeof *t);
    if (n < sizeof(ix_header)) {
        *what = "the input table is shorter than its header";
        return 1;
    }
    memcpy(&t->h, blob, sizeof t->h);
    ix_header zeroed = t->h;
    zeroed.crc = 0;
    uint32_t crc = codec_crc32c(0, &zeroed, sizeof zeroed);
    crc = codec_crc32c(crc, blob + sizeof zeroed, n - sizeof zeroed);
    if (memcmp(t->h.magic, IX_MAGIC, sizeof IX_MAGIC) != 0 || t->h.version != IX_VERSION ||
        (t->h.flags & ~IX_SELF_CONTAINED) != 0) {
        *what = "the input table has a bad magic or version";
        return 1;
    }
    if (t->h.ninputs > (1u << 24) || t->h.nmap > ((uint64_t)1 << 40) ||
        t->h.nroots > ((uint64_t)1 << 40) || blob_bytes(&t->h) != n) {
        *what = "the input table's sizes do not match its length";
        return 1;
    }
    if (crc != t->h.crc) {
        *what = "the input table fails its checksum";
        return 1;
    }
    if (copy_arrays(blob, t) != 0) {
        ix_free(t);
        return -1;
    }
    const int rc = check_inputs(t, what);
    if (rc != 0) {
        ix_free(t);
    }
    return rc;
}

void ix_free(ix_table *t)
{
    util_free(t->inputs);
    util_free(t->map);
    util_free(t->roots);
    util_free(t->heaps);
    t->heaps = NULL;
    t->inputs = NULL;
    t->map = NULL;
    t->roots = NULL;
}
