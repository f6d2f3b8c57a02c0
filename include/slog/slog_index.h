/* SPDX-License-Identifier: MIT
 *
 * slog_index.h - an index file joins many libslog files (one per MPI rank
 * or per process) without copying their drawables.  It holds a global
 * timeline hierarchy (each input under a top timeline of its own: input ->
 * process -> thread), a global category table (names unified by kind, name
 * and group), the inputs by relative path with what identifies them (size,
 * summary checksum), their clock offsets, and a copy of the top levels of
 * each input's tree (node rows, geometry and preview blobs, copied with
 * their checksums, never decoded into drawables).
 *
 * slog_reader_open opens an index like any file: metadata, queries,
 * statistics and search answer over all inputs in global ids and times.
 * A query is answered input by input: from the copied top levels when its
 * zoom needs nothing below them (a zoomed-out view reads only the index),
 * else from the input file itself, opened on first use and kept in a
 * bounded pool; an input none of whose rows or categories is selected is
 * never opened.  At a resolution, a copied node whose subtree stayed in its
 * input and which is at most 16 pixels wide stands as its preview (the
 * zoomed-out case).  A query at a resolution over all timelines of an index of
 * more than 64 inputs is an overview: the copies answer alone, a node whose
 * subtree stayed in its input standing as its preview (exact totals, the
 * copy's time resolution); select rows to see them finer.  doc/FORMAT.md section 13 has the layout.
 *
 * Thread safety: slog_index_write runs on the caller's thread; separate
 * calls may run in parallel threads.
 */
#ifndef SLOG_INDEX_H
#define SLOG_INDEX_H

#include <slog/slog_reader.h>

#ifdef __cplusplus
extern "C" {
#endif

/** slog_index_options.flags: accept inputs whose writer did not finish
 *  (killed process, dead rank); the index marks them incomplete. */
#define SLOG_INDEX_ALLOW_INCOMPLETE (1u << 0)
/** slog_index_options.flags: an input that does not exist is recorded as
 *  missing (its top timeline stays, empty) instead of failing. */
#define SLOG_INDEX_ALLOW_MISSING (1u << 1)
/** slog_index_options.flags: copy every input whole (every node with its
 *  geometry, args and preview blobs, and its string heap) instead of its top
 *  levels: one self-contained file that answers without its inputs, made
 *  without decoding a drawable (`slog-merge --copy`).  copy_bytes is
 *  ignored; inputs of format 1 are refused (merge them instead). */
#define SLOG_INDEX_COPY_ALL (1u << 2)

/** A timeline of one input that stands for a timeline of an earlier input
 *  (the arrows of MPI messages between ranks' files; see slog_merge_link). */
typedef struct slog_index_link {
    uint32_t input;
    uint32_t timeline;
    uint32_t to_input; /* < input */
    uint32_t to_timeline;
} slog_index_link;

typedef struct slog_index_options {
    uint32_t struct_size;         /* sizeof(slog_index_options) */
    uint32_t flags;               /* SLOG_INDEX_* */
    const char *const *labels;    /* per input, its top timeline's name; NULL (or a NULL
                                     entry): the file name without directory and ".slog" */
    const int64_t *offsets;       /* per input, ticks added to each of its times (clock
                                     offsets between hosts); NULL = none */
    uint32_t top_kind;            /* slog_timeline_kind of the top timelines; 0 = GENERIC */
    uint32_t reserved;            /* 0 */
    uint64_t copy_bytes;           /* per input, at most this many decoded blob bytes of its
                                      top tree levels go into the index; 0 = 64 MiB shared
                                      by the inputs, at least 16 KiB and at most 1 MiB each
                                      (the root level is copied whatever its size) */
    const slog_index_link *links; /* NULL = none */
    size_t nlinks;
} slog_index_options;

#define SLOG_INDEX_OPTIONS_INIT                                                                    \
    {                                                                                              \
        sizeof(slog_index_options), 0, NULL, NULL, 0, 0, 0, NULL, 0                                \
    }

/**
 * Fill @p opts with the defaults, as SLOG_INDEX_OPTIONS_INIT does.
 * @param opts  options to fill; must not be NULL
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API void slog_index_options_init(slog_index_options *opts);

/** What slog_index_write wrote. */
typedef struct slog_index_summary {
    uint32_t inputs, missing, incomplete;
    uint32_t timelines, categories; /* global */
    uint64_t states, events, arrows, counters;
    uint64_t copied_nodes; /* node rows copied from the inputs */
    uint64_t copied_bytes; /* decoded blob bytes copied */
    uint64_t file_bytes;   /* of the index */
} slog_index_summary;

/**
 * Write an index over @p n libslog files.  Inputs are named in the index
 * relative to the index's directory when they lie under it, else by
 * absolute path.  All inputs must share one clock (ticks per second).
 * @param inputs   paths of the inputs; none may repeat another (by name or
 *                 by device and inode) or be @p out
 * @param n        number of inputs, 1 .. 2^24
 * @param out      path of the index (replaced if it exists)
 * @param opts     options, NULL for defaults (struct_size rule: slog_common.h)
 * @param summary  receives what was written, or NULL
 * @param err      error details naming the input, or NULL
 * @retval SLOG_OK       written and complete
 * @retval SLOG_EINVAL   no input, a repeated input, an index as an input,
 *                       different clocks, a bad link, bad options
 * @retval SLOG_ESTATE   an incomplete input without SLOG_INDEX_ALLOW_INCOMPLETE
 * @retval SLOG_EIO      an input cannot be read (missing, without
 *                       SLOG_INDEX_ALLOW_MISSING) or the index cannot be written
 * @retval SLOG_EFORMAT, SLOG_EVERSION, SLOG_ECORRUPT  an input is not a
 *                       libslog file, too new, or damaged
 * @retval SLOG_ENOMEM   out of memory
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API int slog_index_write(const char *const *inputs,
                              size_t n,
                              const char *out,
                              const slog_index_options *opts,
                              slog_index_summary *summary,
                              slog_error *err);

/** State of one input of an index. */
typedef enum slog_index_input_state {
    SLOG_INDEX_INPUT_OK = 0,
    SLOG_INDEX_INPUT_INCOMPLETE = 1, /* its writer had not finished */
    SLOG_INDEX_INPUT_MISSING = 2     /* absent when the index was written */
} slog_index_input_state;

typedef struct slog_index_input_info {
    const char *path; /* as the index names it; borrowed until destroy */
    slog_index_input_state state;
    uint32_t top_timeline; /* global id of its top timeline */
    int64_t offset;        /* ticks added to its times */
    int64_t start, end;    /* its time range, offset applied; 0, 0 when it has no drawables */
    uint64_t counts[4];    /* drawables per kind */
    uint64_t file_bytes;   /* its size when indexed */
    bool opened;           /* its file is open in the reader's pool now */
    bool embedded;         /* copied whole (SLOG_INDEX_COPY_ALL): its file is never read */
} slog_index_input_info;

/**
 * Number of inputs when @p r reads an index, 0 for an ordinary file.
 * Thread safety: the reader's thread.  @since 0.3
 */
SLOG_API uint32_t slog_reader_index_inputs(const slog_reader *r);

/**
 * One input of an index.
 * @retval SLOG_OK     filled
 * @retval SLOG_EINVAL not an index, or no such input
 * Thread safety: the reader's thread.  @since 0.3
 */
SLOG_API int slog_reader_index_input(const slog_reader *r, uint32_t i, slog_index_input_info *out);

/**
 * Input files the reader of an index has opened so far (each counted once
 * per open; the pool closes the least recently used beyond its bound).
 * 0 for an ordinary file.
 * Thread safety: the reader's thread.  @since 0.3
 */
SLOG_API uint64_t slog_reader_index_files_opened(const slog_reader *r);

#ifdef __cplusplus
}
#endif
#endif /* SLOG_INDEX_H */
