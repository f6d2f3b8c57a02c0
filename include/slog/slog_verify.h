/* SPDX-License-Identifier: MIT
 *
 * slog_verify.h - verifying a whole file and reading around damage (for
 * slog-check and its --salvage): every node's row and blobs (drawables,
 * args, preview) read, checked against their CRC32C and decoded, each
 * damaged node reported with its time range and byte offset; and a query
 * over the drawables of one node, so a tool can copy everything that
 * verifies into a new file through the public writer.
 * Thread safety: as for the reader (slog_reader.h): one thread at a time
 * per reader.
 */
#ifndef SLOG_VERIFY_H
#define SLOG_VERIFY_H

#include <slog/slog_reader.h>

#ifdef __cplusplus
extern "C" {
#endif

/** slog_node_damage.parts: which parts of a node failed. @since 0.3 */
#define SLOG_DAMAGE_ROW 1u       /* its /nodes row: nothing of the node can be used */
#define SLOG_DAMAGE_DRAWABLES 2u /* its drawables blob */
#define SLOG_DAMAGE_ARGS 4u      /* its args blob (drawables without args still read) */
#define SLOG_DAMAGE_PREVIEW 8u   /* its preview blob (zoomed-out queries and statistics) */

/** One damaged node, as slog_reader_verify reports it. @since 0.3 */
typedef struct slog_node_damage {
    uint64_t index;     /* post-order index in the node table (of an index's input file:
                           the message starts "input PATH:"); UINT64_MAX: an index's
                           input file that cannot be read at all (drawables: all of it) */
    uint32_t parts;     /* SLOG_DAMAGE_* bits */
    uint32_t level;     /* 0 = leaf; UINT32_MAX when the row itself is damaged */
    int64_t start, end; /* the node's box; row damaged: the box of its nearest intact
                           ancestor (range_exact false), or the file's time range */
    bool range_exact;   /* true: start/end come from the node's own row */
    uint64_t drawables; /* drawables its row says it stores (0 when the row is damaged) */
    int code;           /* status of the first failure (SLOG_ECORRUPT, ...) */
    uint64_t offset;    /* its byte offset: in decoded /payload for a blob, in /nodes for
                           the row; UINT64_MAX if unknown */
    char message[256];  /* the first failure, one sentence */
} slog_node_damage;

/** Called once per damaged node, in index order; return SLOG_OK to go on or
 *  SLOG_EINTR to stop. @since 0.3 */
typedef int (*slog_damage_fn)(const slog_node_damage *damage, void *user);

/** What slog_reader_verify looked at. @since 0.3 */
typedef struct slog_verify_totals {
    uint64_t nodes;            /* rows of the node table checked */
    uint64_t nodes_damaged;    /* of them, reported damaged */
    uint64_t blobs;            /* blobs read, verified and decoded */
    uint64_t bytes_verified;   /* decoded bytes of those blobs */
    uint64_t drawables_intact; /* drawables in nodes whose row and drawables verify */
    uint64_t drawables_lost;   /* drawables rows say damaged nodes store */
} slog_verify_totals;

/**
 * Read every node of the file (each row, then its drawables, args and
 * preview blobs: checksum, then decoder) and report each damaged node
 * through @p on_damage.  Damage is not an error of this call: it goes on
 * to the next node, so one bad node never hides the others.  The tables
 * (timelines, categories, strings, summary) were verified by
 * slog_reader_open.  Format-1 files have no checksums: only the decoders
 * and the structural checks find damage there.
 * @param r          the reader (its node cache is used; hence non-const)
 * @param on_damage  called per damaged node; NULL to count only
 * @param user       passed to @p on_damage
 * @param totals     filled with what was checked; may be NULL
 * @param err        error details of a failure of the call itself, or NULL
 * @retval SLOG_OK     every node was checked (damaged or not)
 * @retval SLOG_EINTR  @p on_damage asked to stop
 * @retval SLOG_ENOMEM out of memory
 * Thread safety: the reader's thread.  @since 0.3
 */
SLOG_API int slog_reader_verify(slog_reader *r, slog_damage_fn on_damage, void *user,
                                slog_verify_totals *totals, slog_error *err);

/**
 * A query over exactly the drawables stored in node @p index (not its
 * subtree's), whatever their times: what slog-check --salvage copies node
 * by node around damaged ones.  Only the kinds, timelines, categories and
 * flags (SLOG_QUERY_ARGS) of @p opts apply; the window and resolution are
 * ignored (no previews, no pixel runs).  Items come with slog_query_next
 * or slog_query_next_batch and are released with slog_query_destroy.
 * @param out    receives the query (caller-owned); NULL on failure
 * @param r      the reader
 * @param index  post-order node index, 0 .. slog_file_info.nodes - 1
 * @param opts   filters, NULL for all drawables without args
 * @param err    error details, or NULL
 * @retval SLOG_OK       created (a damaged node fails on slog_query_next)
 * @retval SLOG_EINVAL   index out of range, unknown ids, bad struct_size
 * @retval SLOG_ENOMEM   out of memory
 * Thread safety: the reader's thread.  @since 0.3
 */
SLOG_API int slog_query_create_node(slog_query **out, slog_reader *r, uint64_t index,
                                    const slog_query_options *opts, slog_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SLOG_VERIFY_H */
