/* SPDX-License-Identifier: MIT
 *
 * node_format_index.h - the input table of an index file (doc/FORMAT.md §13):
 * one blob in /payload that names each input file, what identifies it, its
 * clock offset, where its timeline and category maps and the roots of its
 * copied top levels lie.  Encoded little-endian as the structs below, with
 * one CRC32C over the whole blob; decoding checks every range against the
 * blob so that no reader can index out of bounds.  No I/O.
 *
 *   OFFSET SIZE MEANING
 *   0      48   ix_header
 *   48     128  ix_input, ninputs times
 *   ...    4    u32 map entries, nmap times (per input: ntimelines global
 *               timeline ids, then ncategories global category ids)
 *   ...    8    u64 roots, nroots times (per input: its copied roots, as
 *               rows of the index's /nodes)
 *   ...    16   with IX_SELF_CONTAINED: per input, u64 first byte and u64
 *               length of its string heap inside the index's /strings
 * Layer 3: format (codec, util).
 */
#ifndef NODE_FORMAT_INDEX_H
#define NODE_FORMAT_INDEX_H

#include <stddef.h>
#include <stdint.h>

#define IX_MAGIC   "slogidx"
#define IX_VERSION 1u

typedef struct ix_header {
    char magic[8];    /* "slogidx\0" */
    uint32_t version; /* IX_VERSION */
    uint32_t ninputs;
    uint64_t nmap;      /* u32 map entries */
    uint64_t nroots;    /* u64 root entries */
    uint32_t flags;     /* IX_SELF_CONTAINED */
    uint32_t crc;       /* CRC32C of the whole blob with this member 0 */
    uint64_t reserved2; /* 0 */
} ix_header;

/* ix_header.flags: every input copied whole (all its nodes, args blobs and
 * string heap): the index answers without its input files. */
#define IX_SELF_CONTAINED 1u

/* Where an input's string heap lies in a self-contained index's /strings. */
typedef struct ix_heap {
    uint64_t first, len;
} ix_heap;

/* ix_input.state */
#define IX_OK         0u
#define IX_INCOMPLETE 1u
#define IX_MISSING    2u

typedef struct ix_input {
    uint64_t path;        /* offset of its path in /strings (relative to the index) */
    uint64_t file_bytes;  /* its size when indexed */
    uint32_t summary_crc; /* its /summary row's crc when indexed */
    uint32_t state;       /* IX_* */
    int64_t offset;       /* ticks added to its times */
    int64_t start, end;   /* its own time range (offset not applied) */
    uint64_t counts[4];   /* drawables per kind */
    uint64_t nodes;       /* rows of its /nodes when indexed */
    uint32_t top;         /* global id of its top timeline */
    uint32_t ntimelines;  /* its timelines (map entries) */
    uint32_t ncategories; /* its categories (map entries after the timelines) */
    uint32_t depth;       /* levels of its tree */
    uint64_t map_first;   /* first map entry */
    uint64_t roots_first; /* first root entry */
    uint64_t nroots;
} ix_input;

_Static_assert(sizeof(ix_header) == 48, "index header is 48 bytes");
_Static_assert(sizeof(ix_input) == 128, "index input row is 128 bytes");

typedef struct ix_table {
    ix_header h;
    ix_input *inputs;
    uint32_t *map;
    uint64_t *roots;
    ix_heap *heaps; /* per input, with IX_SELF_CONTAINED; else NULL */
} ix_table;

/* Encode t into a new blob (*out, util_malloc'ed, *n bytes), crc set.
 * 0, or -1 out of memory. */
int ix_encode(const ix_table *t, uint8_t **out, size_t *n);
/* Decode and check a blob: magic, version, crc, sizes, every input's map
 * and root ranges.  t's arrays are util_malloc'ed (ix_free).  0 ok;
 * -1 out of memory; 1 bad blob (*what says which check failed). */
int ix_decode(const uint8_t *blob, size_t n, ix_table *t, const char **what);
void ix_free(ix_table *t);

#endif /* NODE_FORMAT_INDEX_H */
