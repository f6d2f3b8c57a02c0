/* SPDX-License-Identifier: MIT
 *
 * slog_writer.h - the one-pass writer: create a file, define timelines and
 * categories, append drawables in any order, finish to seal.
 *
 * Thread safety: one writer is used by one thread at a time.  Separate
 * writers may run in parallel (HDF5 calls are serialised inside libslog).
 *
 * State machine:  OPEN --append/define--> OPEN --finish--> FINISHED
 *                 a failure while writing (building the tree, the file:
 *                 SLOG_EIO, SLOG_ENOMEM from an append, flush or finish)
 *                 -> ERROR (sticky: every later call returns SLOG_ESTATE).
 *                 A rejected argument (SLOG_EINVAL) or a call that does not
 *                 fit (SLOG_ESTATE from end/finish with open states) changes
 *                 nothing.  destroy without finish leaves the file marked
 *                 incomplete; it still opens and yields what was flushed.
 *
 * Every call taking `slog_error *err` fills it (when not NULL) on failure;
 * NULL means no details.  The writer handle must not be NULL.
 */
#ifndef SLOG_WRITER_H
#define SLOG_WRITER_H

#include <slog/slog_common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct slog_writer slog_writer;

/** What a flush made (or is about to make) durable, for
 *  slog_writer_options.on_flush (@since 0.3). */
typedef struct slog_flush_info {
    uint64_t nodes;            /* nodes written (what a reader of the file sees) */
    uint64_t counts[4];        /* drawables in them, per slog_kind */
    bool complete;             /* the finishing flush */
    bool durable;              /* false: the summary is about to be written;
                                  true: it is written and flushed to the file */
} slog_flush_info;

/** Called by the writer's thread at every flush, twice: before it writes
 *  the summary that makes the new nodes visible (durable false) and after
 *  that summary reached the file (durable true).  A file whose writer was
 *  killed holds what the last durable call said, or what a later
 *  not-yet-durable call said (a kill between the two).  It must not call
 *  the writer. */
typedef void (*slog_flush_fn)(void *ctx, const slog_flush_info *info);

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
    uint32_t flags;             /* SLOG_WRITER_* bits; default 0 (@since 0.2) */
    uint32_t reserved;          /* 0 */
    slog_flush_fn on_flush;     /* NULL: none (@since 0.3) */
    void *on_flush_ctx;         /* its first argument */
} slog_writer_options;

/** slog_writer_options.flags: give every leaf's preview time bins, so that a
 *  zoomed-out query may answer a wide, dense leaf from its preview (one item
 *  per row, category and pixel) instead of decoding it.  Costs writer CPU
 *  (about 2.7x on slog-synth) and ~5 % of file size; off by default so
 *  tracers keep the fast path; slog-import turns it on (doc/DESIGN.md,
 *  "Time bins"). @since 0.2 */
#define SLOG_WRITER_TIME_BINS 1u

/** slog_writer_options.flags: build the file on a background thread.  The
 *  calling thread only checks each call and copies the drawable into a
 *  batch; one thread of the writer's own builds the tree, previews, LZ4 and
 *  HDF5 writes, in the same order, so the file is the same byte for byte.
 *  Memory: four batches of 1 MiB, reused (a caller that gets ahead waits).
 *  An error the background meets (a failed write) is returned by a later
 *  call: the append that hands over the next batch, flush or finish.
 *  on_flush is then called on the background thread.  A child process must
 *  not use or destroy a background writer it inherited.  Meant for
 *  importers and converters with a second core (slog-import turns it on);
 *  tracers use slog_thread.h. @since 0.3 */
#define SLOG_WRITER_BACKGROUND 2u

/** slog_writer_options.flags: never replace a file at the path:
 *  slog_writer_create fails (SLOG_EIO, "... exists") when one is there,
 *  checked at once and again when the new file is put in place, which is
 *  atomic (a hard link: a file that appears meanwhile is kept, never
 *  overwritten; on a file system without hard links the last check and
 *  the rename are two steps).  Without it a file at the path is replaced.
 *  @since 0.3 */
#define SLOG_WRITER_NO_REPLACE 4u

#define SLOG_WRITER_OPTIONS_INIT {sizeof(slog_writer_options), 0, 0, 0, 0, 0, 0, NULL, 0, 0, NULL, NULL}

/**
 * Fill @p opts with the defaults, as SLOG_WRITER_OPTIONS_INIT does (for
 * bindings, which cannot use the macro).
 * @param opts  options to fill; must not be NULL
 * Thread safety: any thread.  @since 0.2
 */
SLOG_API void slog_writer_options_init(slog_writer_options *opts);

/**
 * Create a new trace file, replacing any file at @p path (unless
 * SLOG_WRITER_NO_REPLACE).
 * @param out   receives the writer (caller-owned; release with
 *              slog_writer_destroy); NULL on failure
 * @param path  file name; must not be NULL
 * @param opts  options, NULL for defaults (struct_size rule: slog_common.h)
 * @param err   error details, or NULL
 * @retval SLOG_OK     created
 * @retval SLOG_EINVAL an option out of range, or a bad struct_size
 * @retval SLOG_EIO    the file cannot be created
 * @retval SLOG_ENOMEM out of memory
 * Thread safety: any thread; the new writer is then used by one thread at a time.
 * @since 0.1
 */
SLOG_API int slog_writer_create(slog_writer **out, const char *path,
                                const slog_writer_options *opts, slog_error *err);

/**
 * Define a timeline.  Ids are assigned densely from 0 in call order.
 * @param w         the writer
 * @param parent    parent timeline id or SLOG_NO_PARENT
 * @param kind      what the timeline is (process, thread...)
 * @param name      name, copied; NULL is stored as ""
 * @param sort_key  display order among siblings (then by id)
 * @param id_out    receives the new id; may be NULL
 * @param err       error details, or NULL
 * @retval SLOG_OK     defined
 * @retval SLOG_EINVAL unknown parent, bad kind, or 2^32 - 1 timelines already
 * @retval SLOG_ENOMEM out of memory
 * @retval SLOG_ESTATE the writer is finished or failed
 * Thread safety: the writer's thread.  @since 0.1
 */
SLOG_API int slog_writer_add_timeline(slog_writer *w, uint32_t parent, slog_timeline_kind kind,
                                      const char *name, int64_t sort_key, uint32_t *id_out,
                                      slog_error *err);

/**
 * Rename a timeline or change its sort key (e.g. Chrome metadata that comes late).
 * @param w         the writer
 * @param id        timeline id
 * @param name      new name, copied; NULL keeps the name
 * @param sort_key  new sort key
 * @param err       error details, or NULL
 * @retval SLOG_OK     changed
 * @retval SLOG_EINVAL unknown timeline
 * @retval SLOG_ENOMEM out of memory (a new name)
 * @retval SLOG_ESTATE the writer is finished or failed
 * Thread safety: the writer's thread.  @since 0.1
 */
SLOG_API int slog_writer_set_timeline(slog_writer *w, uint32_t id, const char *name,
                                      int64_t sort_key, slog_error *err);

/**
 * Define a category (legend entry).  Ids are assigned densely from 0.
 * @param w       the writer
 * @param kind    the kind of drawable it names (not SLOG_KIND_PREVIEW)
 * @param name    name, copied; NULL is stored as ""
 * @param rgba    colour 0xRRGGBBAA, stored as given; 0 picks one of 32 from the
 *                name, unlike the colours of the writer's other categories of this
 *                kind while they last (doc/FORMAT.md §3.2)
 * @param group   optional group (Chrome's "cat"), copied; NULL for none
 * @param id_out  receives the new id; may be NULL
 * @param err     error details, or NULL
 * @retval SLOG_OK     defined
 * @retval SLOG_EINVAL bad kind, or 2^32 - 1 categories already
 * @retval SLOG_ENOMEM out of memory
 * @retval SLOG_ESTATE the writer is finished or failed
 * Thread safety: the writer's thread.  @since 0.1
 */
SLOG_API int slog_writer_add_category(slog_writer *w, slog_kind kind, const char *name,
                                      uint32_t rgba, const char *group, uint32_t *id_out,
                                      slog_error *err);

/** The deepest nesting a state may have (slog_state.depth): a writer
 * refuses a deeper one (SLOG_EINVAL), and so does slog_location_begin
 * (slog_thread.h) at its begin; the importers skip and count it.
 * @since 0.3 */
#define SLOG_MAX_DEPTH 100000u

/**
 * Append a state.  Any arrival order is correct; nondecreasing end time is
 * optimal.  Its args are copied; its depth is stored as given.
 * @param w    the writer
 * @param s    the state; must not be NULL (s->args may be NULL when nargs is 0)
 * @param err  error details, or NULL
 * @retval SLOG_OK     appended
 * @retval SLOG_EINVAL unknown timeline or category, a category of another
 *                     kind, end < start, depth above SLOG_MAX_DEPTH, bad args, or
 *                     times that would make the file span more than
 *                     INT64_MAX ticks (every drawable kind)
 * @retval SLOG_EIO    writing a finished node failed (the writer fails)
 * @retval SLOG_ENOMEM out of memory (the writer fails when it was writing)
 * @retval SLOG_ESTATE the writer is finished or failed
 * Thread safety: the writer's thread.  @since 0.1
 */
SLOG_API int slog_writer_append_state(slog_writer *w, const slog_state *s, slog_error *err);

/**
 * Append an event (a point in time); as slog_writer_append_state.
 * @param w    the writer
 * @param e    the event; must not be NULL
 * @param err  error details, or NULL
 * @retval SLOG_OK     appended
 * @retval SLOG_EINVAL unknown timeline or category, a category of another kind, bad args
 * @retval SLOG_EIO    writing a finished node failed (the writer fails)
 * @retval SLOG_ENOMEM out of memory
 * @retval SLOG_ESTATE the writer is finished or failed
 * Thread safety: the writer's thread.  @since 0.1
 */
SLOG_API int slog_writer_append_event(slog_writer *w, const slog_event *e, slog_error *err);

/**
 * Append an arrow (from one timeline at start to another at end); as
 * slog_writer_append_state.
 * @param w    the writer
 * @param a    the arrow; must not be NULL
 * @param err  error details, or NULL
 * @retval SLOG_OK     appended
 * @retval SLOG_EINVAL unknown timeline or category, a category of another
 *                     kind, end < start, bad args
 * @retval SLOG_EIO    writing a finished node failed (the writer fails)
 * @retval SLOG_ENOMEM out of memory
 * @retval SLOG_ESTATE the writer is finished or failed
 * Thread safety: the writer's thread.  @since 0.1
 */
SLOG_API int slog_writer_append_arrow(slog_writer *w, const slog_arrow *a, slog_error *err);

/**
 * Append a counter sample; as slog_writer_append_state.
 * @param w    the writer
 * @param c    the sample; must not be NULL
 * @param err  error details, or NULL
 * @retval SLOG_OK     appended
 * @retval SLOG_EINVAL unknown timeline or category, a category of another kind
 * @retval SLOG_EIO    writing a finished node failed (the writer fails)
 * @retval SLOG_ENOMEM out of memory
 * @retval SLOG_ESTATE the writer is finished or failed
 * Thread safety: the writer's thread.  @since 0.1
 */
SLOG_API int slog_writer_append_counter(slog_writer *w, const slog_counter *c, slog_error *err);

/**
 * Begin a state on @p timeline at @p time; it nests inside the states begun
 * and not yet ended on that timeline, which gives its depth.  Args are copied
 * and stored with the state.
 * @param w         the writer
 * @param timeline  timeline id
 * @param category  a state category id
 * @param time      begin time, ticks; not before the enclosing state's begin
 * @param args      args, copied; NULL when @p nargs is 0
 * @param nargs     number of args
 * @param err       error details, or NULL
 * @retval SLOG_OK     begun
 * @retval SLOG_EINVAL unknown timeline or category, a category of another
 *                     kind, bad args, time before the enclosing state's begin
 * @retval SLOG_ENOMEM out of memory
 * @retval SLOG_ESTATE the writer is finished or failed
 * Thread safety: the writer's thread.  @since 0.1
 */
SLOG_API int slog_writer_begin(slog_writer *w, uint32_t timeline, uint32_t category, int64_t time,
                               const slog_arg *args, uint32_t nargs, slog_error *err);

/**
 * End the innermost open state of @p timeline at @p time and append it.
 * @param w         the writer
 * @param timeline  timeline id
 * @param time      end time, ticks
 * @param err       error details, or NULL
 * @retval SLOG_OK     ended and appended
 * @retval SLOG_EINVAL unknown timeline, or an end that would make the file
 *                     span more than INT64_MAX ticks (the state stays open)
 * @retval SLOG_ESTATE nothing open on the timeline, time before its begin,
 *                     or the writer is finished or failed
 * @retval SLOG_EIO    writing a finished node failed (the writer fails)
 * @retval SLOG_ENOMEM out of memory (the writer fails)
 * Thread safety: the writer's thread.  @since 0.1
 */
SLOG_API int slog_writer_end(slog_writer *w, uint32_t timeline, int64_t time, slog_error *err);

/**
 * Number of states begun and not ended on @p timeline.
 * @param w         the writer
 * @param timeline  timeline id
 * @return the open depth; 0 for an unknown timeline
 * Thread safety: the writer's thread.  @since 0.1
 */
SLOG_API uint32_t slog_writer_open_depth(const slog_writer *w, uint32_t timeline);

/**
 * Write out everything appended so far, so that a reader (or a crash) sees
 * it: the open nodes are closed and the tree goes on as a new subtree (the
 * file stays open and incomplete; finish joins the subtrees under one root).
 * Each call closes partly filled nodes, so call it on a timer (seconds),
 * not per drawable.  States still open in begin/end are not included.
 * @param w    the writer
 * @param err  error details, or NULL
 * @retval SLOG_OK     flushed
 * @retval SLOG_EIO    writing failed (the writer fails)
 * @retval SLOG_ENOMEM out of memory (the writer fails)
 * @retval SLOG_ESTATE the writer is finished or failed
 * Thread safety: the writer's thread.  @since 0.1
 */
SLOG_API int slog_writer_flush(slog_writer *w, slog_error *err);

/**
 * Seal the file: close the tree, write the summary and mark it complete.
 * States still open through slog_writer_begin are an error (SLOG_ESTATE,
 * nothing changes): end them first.
 * @param w    the writer
 * @param err  error details, or NULL
 * @retval SLOG_OK     sealed; only slog_writer_destroy remains to call
 * @retval SLOG_EIO    writing or closing failed (the writer fails)
 * @retval SLOG_ENOMEM out of memory (the writer fails)
 * @retval SLOG_ESTATE states still open, or the writer is finished or failed
 * Thread safety: the writer's thread.  @since 0.1
 */
SLOG_API int slog_writer_finish(slog_writer *w, slog_error *err);

/**
 * Release the writer.  Without finish, everything appended is written out
 * (the open nodes are closed, as slog_writer_flush closes them; states
 * still open through slog_writer_begin are not) and the file stays marked
 * incomplete.
 * @param w  the writer; NULL does nothing
 * Thread safety: the writer's thread, as its last call.  @since 0.1
 */
SLOG_API void slog_writer_destroy(slog_writer *w);

/**
 * Seal a file whose writer was killed (@since 0.3), so that tools opening
 * it without SWMR (h5dump, h5py, HDF5 tools) can read it.  Such a file is
 * still marked open for writing in its HDF5 superblock; libslog readers
 * open it anyway (SWMR read), other tools refuse it.  Sealing clears that
 * mark and sets the file's end to the end of the space HDF5 allocated, as
 * `h5clear -s --increment=0` does (`h5clear -s` alone truncates such a
 * file and destroys its data).  What the file holds does not change: it
 * stays incomplete (slog_file_info.complete false) with the nodes its last
 * flush covered.  A file that opens without SWMR is left as it is.
 * @param path    the file; no writer or reader may have it open
 * @param sealed  receives true when the file was sealed, false when it
 *                needed nothing; may be NULL
 * @param err     error details, or NULL
 * @retval SLOG_OK       sealed, or nothing to do
 * @retval SLOG_EFORMAT  not HDF5, or not a libslog file
 * @retval SLOG_ECORRUPT damaged, or still marked after sealing
 * @retval SLOG_EIO      it cannot be opened read-write (a live writer, or
 *                       no permission)
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API int slog_file_seal(const char *path, bool *sealed, slog_error *err);

#ifdef __cplusplus
}
#endif
#endif /* SLOG_WRITER_H */
