/* SPDX-License-Identifier: MIT
 *
 * store.h - the small table/blob interface between the tree and the file.
 * store_hdf5.c is its only implementation and the only file that includes
 * <hdf5.h>.  Every call takes the global HDF5 lock (util_lock); LZ4 work is
 * done outside it.
 *
 * The file holds (see doc/FORMAT.md): root attributes (store_header);
 * append-only datasets /timelines, /categories, /nodes (compound tables),
 * /strings (u8 heap of NUL-terminated strings), /payload (u8, chunked, LZ4
 * filter 32004, written chunk by chunk with H5Dwrite_chunk) and /summary
 * (one row, rewritten at flush and finish).  The writer uses SWMR, so a
 * killed writer leaves a file that opens up to its last flush.
 *
 * Blobs: store_append_blob starts every blob on a chunk boundary of
 * /payload and zero-pads its last chunk, so a blob is read by decoding
 * only its own chunks.
 * Layer 2: may use codec and util.
 */
#ifndef STORE_H
#define STORE_H

#include "codec_lz4.h"

#include <slog/slog_common.h>

#include <stdbool.h>

/* This library reads files whose format_read_version is at most
 * STORE_FORMAT_READ_VERSION, and writes files of STORE_FORMAT_WRITE_VERSION
 * that need a reader of STORE_FORMAT_WRITTEN_READ_VERSION (doc/FORMAT.md §9). */
#define STORE_FORMAT_READ_VERSION         4
#define STORE_FORMAT_WRITE_VERSION        4
#define STORE_FORMAT_WRITTEN_READ_VERSION 3
/* An index file (doc/FORMAT.md §13) needs a reader that knows indexes. */
#define STORE_FORMAT_INDEX_READ_VERSION   4
#define STORE_MAGIC                "libslog"

/* Immutable, written once at create as root attributes. */
typedef struct store_header {
    uint32_t format_read_version;
    uint32_t format_write_version;
    uint64_t ticks_per_second;
    uint32_t fanout;
    uint32_t chunk_bytes;      /* /payload chunk size = leaf budget */
    int32_t lz4_level;
    uint32_t preview_bytes;
    char creator[128];
} store_header;

/* Rewritten at every flush and at finish: /summary. */
typedef struct store_summary {
    uint32_t complete;         /* 1 only after finish */
    uint32_t depth;
    int64_t start, end;        /* INT64_MAX/INT64_MIN when empty */
    uint64_t counts[4];        /* per slog_kind, drawables in written nodes */
    uint64_t nodes;            /* rows in /nodes that the summary covers */
    uint64_t timelines, categories, strings_bytes, payload_bytes;
    /* format 2 (0 in format-1 files); set by store_write_summary: */
    uint32_t strings_crc;      /* CRC32C of /strings[0, strings_bytes) */
    uint32_t crc;              /* CRC32C of this 104-byte row with crc = 0 */
} store_summary;

/* Table rows.  In format 2 every row carries a CRC32C of its bytes (as
 * stored: little-endian, the struct's layout) computed with the crc member
 * zero; store_append_* fill it in, store_*_row_ok checks it.  Rows of a
 * format-1 file have crc 0 ("unverified"). */
typedef struct store_timeline_row {
    uint32_t id;
    uint32_t parent;
    uint32_t kind;
    uint32_t crc;              /* format 1: "reserved", 0 */
    int64_t sort_key;
    uint64_t name;             /* offset in /strings */
} store_timeline_row;

typedef struct store_category_row {
    uint32_t id;
    uint32_t kind;
    uint32_t rgba;
    uint32_t crc;              /* format 1: "reserved", 0 */
    uint64_t name;             /* offset in /strings */
    uint64_t group;            /* offset in /strings, UINT64_MAX if none */
} store_category_row;

typedef struct store_node_row {
    uint32_t level;            /* 0 = leaf */
    uint32_t flags;
    int64_t t0, t1;            /* bounding box of the subtree */
    uint64_t subtree_nodes;    /* post-order: subtree is [index-subtree_nodes+1, index] */
    uint64_t payload_off;      /* byte offset in /payload (chunk aligned) */
    uint64_t payload_len;      /* decoded bytes of the drawables blob */
    uint64_t preview_off;
    uint64_t preview_len;      /* 0: no preview (leaves) */
    uint64_t counts[4];        /* drawables stored in this node, per kind */
    /* format 2 (0 in format-1 files): */
    uint64_t args_off;         /* byte offset of the args blob in /payload */
    uint64_t args_len;         /* decoded bytes of the args blob; 0 = no args */
    uint32_t payload_crc;      /* CRC32C of the drawables (geometry) blob */
    uint32_t preview_crc;      /* CRC32C of the preview blob */
    uint32_t args_crc;         /* CRC32C of the args blob */
    uint32_t row_crc;          /* CRC32C of the row's first 128 bytes with row_crc = 0 */
    /* format 4 (0 in older files; 0 = unknown): where each blob's chunks lie
     * in the file, contiguous, so a reader fetches a blob with one read
     * instead of walking HDF5's chunk index.  Filled by the store. */
    uint64_t payload_addr;     /* file address of the geometry blob's first chunk */
    uint64_t preview_addr;
    uint64_t args_addr;
    uint32_t payload_zlen;     /* stored bytes of the geometry blob's chunks */
    uint32_t preview_zlen;
    uint32_t args_zlen;
    uint32_t addr_crc;         /* CRC32C of the 36 bytes above */
} store_node_row;

#define STORE_NODE_ROW_V2_BYTES 128u /* the part a format-2/3 reader reads and row_crc covers */

_Static_assert(sizeof(store_node_row) == 168, "format 4 /nodes row is 168 bytes");
_Static_assert(offsetof(store_node_row, payload_addr) == STORE_NODE_ROW_V2_BYTES,
               "format 4 members follow the format 2 row");
_Static_assert(sizeof(store_summary) == 104, "format 2 /summary row is 104 bytes");
_Static_assert(sizeof(store_timeline_row) == 32, "/timelines row is 32 bytes");
_Static_assert(sizeof(store_category_row) == 32, "/categories row is 32 bytes");

/* CRC32C of a row with its crc member taken as 0 (a node row: of its first
 * STORE_NODE_ROW_V2_BYTES bytes). */
uint32_t store_node_row_crc(const store_node_row *row);

/* CRC32C of a node row's format-4 members (payload_addr .. args_zlen). */
uint32_t store_node_addr_crc(const store_node_row *row);
uint32_t store_timeline_row_crc(const store_timeline_row *row);
uint32_t store_category_row_crc(const store_category_row *row);
uint32_t store_summary_crc(const store_summary *row);

/* I/O cost of reads, added to by store_read_blob. */
typedef struct store_io {
    uint64_t bytes_read;       /* compressed bytes fetched from the file */
    uint64_t bytes_decoded;    /* bytes after decoding */
} store_io;

typedef struct store store;

/* Writing.  create replaces the file (with STORE_NO_REPLACE: fails when
 * path exists); the header goes into attributes. */
#define STORE_NO_REPLACE 1u
int store_create(store **out, const char *path, const store_header *hdr, unsigned flags,
                 slog_error *err);
int store_append_strings(store *s, const void *bytes, size_t n, slog_error *err);
int store_append_timelines(store *s, const store_timeline_row *rows, size_t n, slog_error *err);
int store_update_timeline(store *s, const store_timeline_row *row, slog_error *err);
int store_append_categories(store *s, const store_category_row *rows, size_t n, slog_error *err);
int store_append_nodes(store *s, const store_node_row *rows, size_t n, slog_error *err);
/* Compress raw[0..n) into whole chunks and append them; *offset receives the
 * blob's start byte in /payload. */
int store_append_blob(store *s, const void *raw, size_t n, uint64_t *offset, slog_error *err);
/* The same at the gate's level; an adaptive gate skips LZ4 on the chunks
 * of a stream that does not compress (codec_lz4.h). */
int store_append_blob_gated(store *s, const void *raw, size_t n, codec_lz4_gate *gate,
                            uint64_t *offset, slog_error *err);
/* Writes sum with strings_crc (of every string appended so far) and crc set. */
int store_write_summary(store *s, const store_summary *sum, slog_error *err);
int store_flush(store *s, slog_error *err);

/* Reading.  open validates the file: not HDF5 or no magic -> SLOG_EFORMAT,
 * read version too new -> SLOG_EVERSION, missing pieces -> SLOG_ECORRUPT.
 * A file left open by a killed writer is opened read-only with SWMR. */
int store_open(store **out, const char *path, store_header *hdr, slog_error *err);
int store_read_summary(store *s, store_summary *sum, slog_error *err);
/* Whole-table reads; *rows is util_malloc'ed, caller frees with util_free. */
int store_read_strings(store *s, char **bytes, uint64_t *n, slog_error *err);
int store_read_timelines(store *s, store_timeline_row **rows, uint64_t *n, slog_error *err);
int store_read_categories(store *s, store_category_row **rows, uint64_t *n, slog_error *err);
int store_read_nodes(store *s, store_node_row **rows, uint64_t *n, slog_error *err);
/* Rows [first, first + n) of /nodes into rows (capacity n), one hyperslab
 * read; rows past the table's extent (refreshed under SWMR) -> SLOG_ECORRUPT. */
int store_read_node_rows(store *s, uint64_t first, size_t n, store_node_row *rows,
                         slog_error *err);
/* Bytes [first, first + n) of /strings into dst (capacity n), one
 * hyperslab read; past the dataset's extent -> SLOG_ECORRUPT. */
int store_read_strings_range(store *s, uint64_t first, size_t n, char *dst, slog_error *err);
/* Under SWMR read (a file a writer had open), H5Drefresh /summary (summary
 * true) or every other dataset (false) so that reads see what the writer
 * flushed since: the rewritten summary, extents, chunk indexes.  Refresh
 * and read the summary first, then the rest: the writer makes all that a
 * summary covers durable before it writes the summary.  Nothing to do for
 * a file opened plainly. */
int store_refresh(store *s, bool summary, slog_error *err);
/* true when the file was opened in SWMR read (a writer had it open, or
 * was killed with it open). */
bool store_is_swmr(const store *s);
/* Format read version of the open file (1: no checksums). */
uint32_t store_format_version(const store *s);
/* Decode the blob [offset, offset+n) into dst (capacity >= n).  Corrupt
 * chunks -> SLOG_ECORRUPT with the chunk's offset. */
int store_read_blob(store *s, uint64_t offset, uint64_t n, void *dst, store_io *io,
                    slog_error *err);
/* Where a blob's chunks lie end to end in the file: a format-4 node row's
 * addr and zlen members. */
typedef struct store_blob_addr {
    uint64_t addr; /* file address of the first chunk, 0 = unknown */
    uint32_t zlen; /* stored bytes of all the chunks */
} store_blob_addr;
/* The same for a blob whose chunks lie end to end at at.addr, at.zlen
 * stored bytes: one pread, outside the HDF5 lock, no walk of HDF5's chunk
 * index.  SLOG_OK, or 1 when that cannot be done (no POSIX descriptor, a
 * short read, bytes there that are not the blob's chunks, e.g. after
 * h5repack moved them): read it with store_read_blob then.  The caller
 * verifies the blob's checksum either way; a blob that fails it should be
 * read again with store_read_blob. */
int store_read_blob_at(store *s, store_blob_addr at, uint64_t offset, uint64_t n, void *dst,
                       store_io *io);
/* SLOG_OK when [offset, offset+n) lies inside /payload (checked before a
 * reader allocates n bytes for it), else SLOG_ECORRUPT. */
int store_check_blob(store *s, uint64_t offset, uint64_t n, slog_error *err);
uint64_t store_file_bytes(const store *s);

/* Seal a file a killed writer left marked open for writing, as
 * `h5clear -s --increment=0` does: clear the superblock's status flags
 * without the end-of-file check, and set the file's end to the end of its
 * allocated space (h5clear -s alone truncates such a file).  No reader or
 * writer may have it open.  SLOG_OK, SLOG_EIO (cannot open read-write,
 * e.g. a writer holds its lock), SLOG_ECORRUPT. */
int store_seal(const char *path, slog_error *err);

/* Close (NULL-safe).  Returns the first error of closing, if any. */
int store_close(store *s, slog_error *err);

/* In a child after fork(): release the parent's file without writing to it
 * (its descriptor goes to /dev/null first).  NULL does nothing. */
void store_forget_after_fork(store *s);

/* Register libslog's LZ4 filter (32004) with HDF5 once per process; uses
 * LZ4_decompress_safe and wins over any plugin. */
int store_register_lz4_filter(slog_error *err);

#endif /* STORE_H */
