/* SPDX-License-Identifier: MIT
 *
 * slog_writer.h - the one-pass writer: create a file, define timelines and
 * categories, append drawables in any order, finish to seal.
 *
 * Thread safety: one writer is used by one thread at a time.  Separate
 * writers may run in parallel (HDF5 calls are serialised inside libslog).
 *
 * State machine:  OPEN --append/define--> OPEN --finish--> FINISHED
 *                 any failure -> ERROR (sticky: every later call returns
 *                 SLOG_ESTATE).  destroy without finish leaves the file
 *                 marked incomplete; it still opens and yields what was
 *                 flushed.
 */
#ifndef SLOG_WRITER_H
#define SLOG_WRITER_H

#include <slog/slog_common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct slog_writer slog_writer;

/** Writer options.  Zero means default for every field. */
typedef struct slog_writer_options {
    uint32_t struct_size;       /* sizeof(slog_writer_options) */
    uint32_t leaf_bytes;        /* encoded leaf budget and chunk size; default 65536 */
    uint32_t fanout;            /* children per inner node, 2..64; default 2 */
    int32_t lz4_level;          /* 0 or 1: LZ4 fast; 2..12: LZ4 HC level */
    uint64_t ticks_per_second;  /* default 1000000000 (ns) */
    uint32_t preview_bytes;     /* preview size budget per node; default 65536 */
    uint32_t flush_nodes;       /* flush HDF5 every N written nodes; default 64 */
    const char *creator;        /* free text stored in the file, e.g. "slog-import 0.1" */
} slog_writer_options;

#define SLOG_WRITER_OPTIONS_INIT {sizeof(slog_writer_options), 0, 0, 0, 0, 0, 0, NULL}

/**
 * Fill @p opts with the defaults, as SLOG_WRITER_OPTIONS_INIT does (for
 * bindings, which cannot use the macro).
 * @param opts  options to fill; must not be NULL
 * Thread safety: any thread.  @since 0.2
 */
SLOG_API void slog_writer_options_init(slog_writer_options *opts);

/**
 * Create a new trace file, replacing any file at @p path.
 * @param out   receives the writer (caller-owned; release with slog_writer_destroy)
 * @param path  file name
 * @param opts  options, NULL for defaults
 * @param err   optional error details
 * @retval SLOG_OK, SLOG_EIO, SLOG_EINVAL, SLOG_ENOMEM
 * Thread safety: any thread.  @since 0.1
 */
SLOG_API int slog_writer_create(slog_writer **out, const char *path,
                                const slog_writer_options *opts, slog_error *err);

/**
 * Define a timeline.  Ids are assigned densely from 0 in call order.
 * @param parent  parent timeline id or SLOG_NO_PARENT
 * @param sort_key  display order among siblings (then by id)
 * @retval SLOG_OK, SLOG_EINVAL (unknown parent), SLOG_ENOMEM, SLOG_ESTATE
 * @since 0.1
 */
SLOG_API int slog_writer_add_timeline(slog_writer *w, uint32_t parent, slog_timeline_kind kind,
                                      const char *name, int64_t sort_key, uint32_t *id_out,
                                      slog_error *err);

/** Rename a timeline or change its sort key (e.g. Chrome metadata that comes late).
 *  @p name NULL keeps the name.  @retval SLOG_OK, SLOG_EINVAL, SLOG_ESTATE @since 0.1 */
SLOG_API int slog_writer_set_timeline(slog_writer *w, uint32_t id, const char *name,
                                      int64_t sort_key, slog_error *err);

/**
 * Define a category (legend entry).  Ids are assigned densely from 0.
 * @param rgba    colour 0xRRGGBBAA; 0 picks one from the name
 * @param group   optional group (Chrome's "cat"), NULL for none
 * @retval SLOG_OK, SLOG_EINVAL, SLOG_ENOMEM, SLOG_ESTATE  @since 0.1
 */
SLOG_API int slog_writer_add_category(slog_writer *w, slog_kind kind, const char *name,
                                      uint32_t rgba, const char *group, uint32_t *id_out,
                                      slog_error *err);

/** Append drawables.  Any arrival order is correct; nondecreasing end time is
 *  optimal.  Args are copied.  A state's depth is stored as given.
 *  @retval SLOG_OK, SLOG_EINVAL (unknown id, end < start), SLOG_EIO, SLOG_ENOMEM,
 *          SLOG_ESTATE  @since 0.1 */
SLOG_API int slog_writer_append_state(slog_writer *w, const slog_state *s, slog_error *err);
SLOG_API int slog_writer_append_event(slog_writer *w, const slog_event *e, slog_error *err);
SLOG_API int slog_writer_append_arrow(slog_writer *w, const slog_arrow *a, slog_error *err);
SLOG_API int slog_writer_append_counter(slog_writer *w, const slog_counter *c, slog_error *err);

/**
 * Begin a state on @p timeline at @p time; it nests inside the states begun
 * and not yet ended on that timeline, which gives its depth.  Args are copied
 * and stored with the state.
 * @retval SLOG_OK, SLOG_EINVAL, SLOG_ENOMEM, SLOG_ESTATE  @since 0.1
 */
SLOG_API int slog_writer_begin(slog_writer *w, uint32_t timeline, uint32_t category, int64_t time,
                               const slog_arg *args, uint32_t nargs, slog_error *err);

/** End the innermost open state of @p timeline at @p time and append it.
 *  @retval SLOG_OK, SLOG_ESTATE (nothing open, or time before its begin), SLOG_EIO
 *  @since 0.1 */
SLOG_API int slog_writer_end(slog_writer *w, uint32_t timeline, int64_t time, slog_error *err);

/** Number of states begun and not ended on @p timeline. @since 0.1 */
SLOG_API uint32_t slog_writer_open_depth(const slog_writer *w, uint32_t timeline);

/** Write out everything appended so far, so that a reader (or a crash) sees
 *  it: the open nodes are closed and the tree goes on as a new subtree (the
 *  file stays open and incomplete; finish joins the subtrees under one root).
 *  Each call closes partly filled nodes, so call it on a timer (seconds),
 *  not per drawable.  States still open in begin/end are not included.
 *  @retval SLOG_OK, SLOG_EIO, SLOG_ESTATE  @since 0.1 */
SLOG_API int slog_writer_flush(slog_writer *w, slog_error *err);

/**
 * Seal the file: close the tree, write the summary and mark it complete.
 * States still open through slog_writer_begin are an error (SLOG_ESTATE):
 * end them first.
 * @retval SLOG_OK, SLOG_EIO, SLOG_ESTATE, SLOG_ENOMEM  @since 0.1
 */
SLOG_API int slog_writer_finish(slog_writer *w, slog_error *err);

/** Release the writer (NULL-safe).  Without finish the file stays incomplete. @since 0.1 */
SLOG_API void slog_writer_destroy(slog_writer *w);

#ifdef __cplusplus
}
#endif
#endif /* SLOG_WRITER_H */
