/* SPDX-License-Identifier: MIT
 *
 * slog_reader.h - open a libslog file, read its metadata, and query a time
 * window at a resolution.  Opening reads attributes, the timeline, category
 * and node tables and interned strings, never a node payload.
 *
 * Thread safety: a reader (and the queries made from it) is used by one
 * thread at a time; separate readers may run in parallel.  Query results are
 * borrowed and immutable until the next slog_query_next or destroy.
 *
 * Every call taking `slog_error *err` fills it (when not NULL) on failure;
 * NULL means no details.  Reader and query handles must not be NULL.
 */
#ifndef SLOG_READER_H
#define SLOG_READER_H

#include <slog/slog_common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct slog_reader slog_reader;
typedef struct slog_query slog_query;

typedef struct slog_reader_options {
    uint32_t struct_size;  /* sizeof(slog_reader_options) */
    uint32_t reserved;
    uint64_t cache_bytes;  /* LRU cache of decoded nodes; default 64 MiB */
} slog_reader_options;

#define SLOG_READER_OPTIONS_INIT {sizeof(slog_reader_options), 0, 0}

/**
 * Fill @p opts with the defaults, as SLOG_READER_OPTIONS_INIT does (for
 * bindings, which cannot use the macro).
 * @param opts  options to fill; must not be NULL
 * Thread safety: any thread.  @since 0.2
 */
SLOG_API void slog_reader_options_init(slog_reader_options *opts);

/** What the file says about itself. */
typedef struct slog_file_info {
    uint32_t format_read_version;  /* a reader must know at least this version */
    uint32_t format_write_version; /* version of the writer that made the file */
    bool complete;                 /* false: writer did not finish (crash, kill) */
    uint64_t ticks_per_second;
    int64_t start;                 /* smallest start time, ticks */
    int64_t end;                   /* largest end time, ticks */
    uint64_t states, events, arrows, counters;
    uint32_t timelines, categories;
    uint64_t nodes;
    uint32_t depth;                /* levels of the tree (1 = a single leaf) */
    uint32_t fanout;
    uint32_t leaf_bytes;
    uint64_t file_bytes;
    uint64_t payload_bytes;        /* decoded bytes of /payload in use (whole chunks) */
    const char *creator;           /* borrowed until slog_reader_destroy */
    bool checksums;                /* @since 0.3: true when every node blob and table row
                                      carries a CRC32C that each read verifies (format 2
                                      and later); false: an older file, read unverified */
} slog_file_info;

typedef struct slog_timeline_info {
    uint32_t id;
    uint32_t parent;               /* SLOG_NO_PARENT for a top-level timeline */
    slog_timeline_kind kind;
    int64_t sort_key;
    const char *name;              /* borrowed until slog_reader_destroy */
} slog_timeline_info;

typedef struct slog_category_info {
    uint32_t id;
    slog_kind kind;
    uint32_t rgba;
    const char *name;              /* borrowed until slog_reader_destroy */
    const char *group;             /* "" when none */
} slog_category_info;

/** Node of the tree as the node table says (for tools and tests). */
typedef struct slog_node_info {
    uint64_t index;                /* post-order position in the node table */
    uint32_t level;                /* 0 = leaf */
    int64_t start, end;            /* bounding box of the whole subtree */
    uint64_t subtree_nodes;        /* nodes in its subtree, itself included */
    uint64_t counts[4];            /* drawables stored in this node, per kind */
    uint64_t payload_bytes;        /* decoded bytes of its drawables blob (0: none) */
    uint64_t preview_bytes;        /* decoded bytes of its preview blob */
    uint32_t flags;                /* SLOG_NODE_SPILL: late drawables of an inner node,
                                      written as an extra pseudo-leaf child */
} slog_node_info;

#define SLOG_NODE_SPILL 1u

/**
 * Open a file for reading: attributes, tables and strings, never a node
 * payload.  An incomplete file (writer killed) opens too;
 * slog_file_info.complete tells.
 * @param out   receives the reader (caller-owned; release with
 *              slog_reader_destroy); NULL on failure
 * @param path  file name; must not be NULL
 * @param opts  options, NULL for defaults (struct_size rule: slog_common.h)
 * @param err   error details, or NULL
 * @retval SLOG_OK       opened
 * @retval SLOG_EFORMAT  not HDF5, or not a libslog file
 * @retval SLOG_EVERSION the file needs a newer reader (format read version)
 * @retval SLOG_ECORRUPT truncated or inconsistent tables
 * @retval SLOG_EIO      the file cannot be read
 * @retval SLOG_ENOMEM   out of memory
 * @retval SLOG_EINVAL   a bad options struct_size
 * Thread safety: any thread; the new reader is then used by one thread at a
 * time.  @since 0.1
 */
SLOG_API int slog_reader_open(slog_reader **out, const char *path,
                              const slog_reader_options *opts, slog_error *err);

/**
 * Close the file and release the reader; destroy its queries first.
 * @param r  the reader; NULL does nothing
 * Thread safety: the reader's thread, as its last call.  @since 0.1
 */
SLOG_API void slog_reader_destroy(slog_reader *r);

/**
 * Follow a file that a live writer is still writing (@since 0.3): grow the
 * reader's view to what the writer flushed since open or the last refresh.
 *
 * The view is what the file's summary covered at the writer's last flush:
 * a prefix of the node table, which is in post-order, so every visible
 * node's whole subtree is visible; the timelines, categories and strings
 * written by then; the complete flag.  A drawable becomes visible when the
 * node holding it is written: when a leaf fills, and at every
 * slog_writer_flush (which closes partly filled nodes); a state still open
 * through slog_writer_begin is not.  A view only grows: visible nodes keep
 * their indices and drawables, timelines and categories keep their ids,
 * slog_file_info's counts never decrease, and the nodes a refresh adds have
 * indices >= the previous slog_file_info.nodes, so a query with first_node
 * set to that number returns exactly the drawables added (slog-query
 * --follow does so).  Once the writer finished, complete is true and the
 * view is the whole file, as a new slog_reader_open would see it.
 *
 * Queries created before keep the view they were created with: they go on
 * walking the nodes that were visible then.  Decoded nodes in the cache
 * stay valid; names and other borrowed strings stay valid until
 * slog_reader_destroy; the slog_reader_info pointer stays the same and its
 * contents change.  Cost: the new strings, the timeline and category
 * tables, and one node row (plus one preview) per top-level subtree.
 * A file opened when its writer had closed it does not change.
 *
 * Atomic: on error the reader keeps its previous view and stays usable, so
 * a follower may try again at its next tick.
 * @param r     the reader
 * @param grew  receives true when the view changed (nodes, timelines,
 *              categories, strings or the complete flag); may be NULL
 * @param err   error details, or NULL
 * @retval SLOG_OK       the view is the file's last flushed state
 * @retval SLOG_ECORRUPT the added part fails its checks, or the file now
 *                       covers less than the view (rewritten by another
 *                       writer: open it again)
 * @retval SLOG_EIO      the file cannot be read
 * @retval SLOG_ENOMEM   out of memory
 * Thread safety: the reader's thread (other readers of the same file may
 * refresh in parallel).  @since 0.3
 */
SLOG_API int slog_reader_refresh(slog_reader *r, bool *grew, slog_error *err);

/**
 * What the file says about itself.
 * @param r  the reader
 * @return the summary, borrowed until slog_reader_destroy; never NULL
 * Thread safety: the reader's thread.  @since 0.1
 */
SLOG_API const slog_file_info *slog_reader_info(const slog_reader *r);

/**
 * Metadata of one timeline.
 * @param r    the reader
 * @param id   timeline id, 0 .. slog_file_info.timelines - 1
 * @param out  filled on SLOG_OK (name borrowed until slog_reader_destroy);
 *             must not be NULL
 * @retval SLOG_OK     filled
 * @retval SLOG_EINVAL no such id
 * Thread safety: the reader's thread.  @since 0.1
 */
SLOG_API int slog_reader_timeline(const slog_reader *r, uint32_t id, slog_timeline_info *out);

/**
 * Metadata of one category.
 * @param r    the reader
 * @param id   category id, 0 .. slog_file_info.categories - 1
 * @param out  filled on SLOG_OK (strings borrowed until slog_reader_destroy);
 *             must not be NULL
 * @retval SLOG_OK     filled
 * @retval SLOG_EINVAL no such id
 * Thread safety: the reader's thread.  @since 0.1
 */
SLOG_API int slog_reader_category(const slog_reader *r, uint32_t id, slog_category_info *out);

/**
 * One entry of the node table (for tools and tests).  The node table is
 * read lazily: the entry's block of rows is read and verified on first use
 * and kept in the reader's bounded row cache (hence the non-const handle).
 * @param r      the reader
 * @param index  post-order index, 0 .. slog_file_info.nodes - 1
 * @param out    filled on SLOG_OK; must not be NULL
 * @retval SLOG_OK       filled
 * @retval SLOG_EINVAL   index out of range
 * @retval SLOG_ECORRUPT the entry's block of rows fails its checks
 * @retval SLOG_ENOMEM   out of memory
 * Thread safety: the reader's thread.  @since 0.1 (non-const handle since 0.2)
 */
SLOG_API int slog_reader_node(slog_reader *r, uint64_t index, slog_node_info *out);

/**
 * Preview rows: a preview row is a timeline (fold 0) or a group of timelines.
 * fold 1: the parent timeline (itself if top-level); fold 2: the top-level
 * ancestor; fold 2+s: block number (top-level ancestor id >> s).
 * @param r         the reader
 * @param timeline  timeline id (an unknown id is its own parent and ancestor)
 * @param fold      fold level, as in slog_preview.fold
 * @return the row of @p timeline at @p fold
 * Thread safety: the reader's thread.  @since 0.1
 */
SLOG_API uint32_t slog_reader_fold_row(const slog_reader *r, uint32_t timeline, uint32_t fold);

/** Category id used for rare categories folded together in a preview. */
#define SLOG_CATEGORY_OTHER UINT32_MAX

/** A preview: the summary of a node's whole subtree for one (row, category). */
typedef struct slog_preview {
    slog_kind of;          /* which kind of drawable it summarises */
    uint32_t fold;         /* see slog_reader_fold_row */
    uint32_t row;          /* timeline or group; arrows: source row */
    uint32_t row_to;       /* arrows: destination row; otherwise equal to row */
    uint32_t category;     /* or SLOG_CATEGORY_OTHER */
    int64_t start, end;    /* node bounding box */
    uint64_t count;
    int64_t inclusive;     /* states: summed durations, ticks (exact) */
    int64_t exclusive;     /* states: summed durations minus direct children */
    int64_t min, max;      /* states and arrows: shortest and longest duration */
    double vmin, vmax, vsum, vlast; /* counters (vmin, vmax: NaN samples left out,
                                       NaN only when all are) */
} slog_preview;

/** One category's exact part of a pixel run. @since 0.2 */
typedef struct slog_run_share {
    uint32_t category;
    uint64_t count;
    int64_t inclusive;     /* states and arrows: summed durations, ticks (exact) */
    int64_t min, max;      /* states and arrows: shortest and longest duration */
} slog_run_share;

/**
 * A pixel run (@since 0.2): at resolution > 0, two or more drawables of one
 * kind that each lie within one pixel of the window (their extent clipped
 * to the window starts and ends in the same pixel) and share that pixel on
 * the same row: states on (timeline, depth), events on a timeline, counter
 * samples of one (timeline, category), arrows of one (from, to) pair.
 * A drawable alone in its pixel on its row comes back as itself.  A run's
 * totals are exact: per category in @p categories, over all in count and
 * inclusive.  Pixel p covers [t0 + p*resolution, t0 + (p+1)*resolution).
 */
typedef struct slog_run {
    slog_kind of;          /* kind of the merged drawables */
    uint32_t timeline;     /* arrows: source timeline */
    uint32_t timeline_to;  /* arrows: destination timeline; otherwise equal to timeline */
    uint32_t depth;        /* states: nesting depth; otherwise 0 */
    uint32_t category;     /* dominant category: most inclusive time (states, arrows),
                              most items (events, counters); ties go to the lower id */
    int64_t start, end;    /* earliest start and latest end of the merged drawables */
    uint64_t count;        /* drawables merged (at least 2) */
    uint64_t dominant_count;     /* of them, in the dominant category */
    int64_t inclusive;           /* states and arrows: summed durations, ticks */
    int64_t dominant_inclusive;  /* of it, the dominant category's */
    double vmin, vmax, vsum, vlast; /* counters: values (vlast: of the latest sample;
                                       vmin, vmax: NaN samples left out) */
    uint32_t ncategories;
    const slog_run_share *categories; /* per category, ascending ids; borrowed until
                                         the next slog_query_next */
} slog_run;

typedef struct slog_item {
    slog_kind kind;
    union {
        slog_state state;
        slog_event event;
        slog_arrow arrow;
        slog_counter counter;
        slog_preview preview;
        slog_run run;
    } u;
} slog_item;

typedef struct slog_query_options {
    uint32_t struct_size;        /* sizeof(slog_query_options) */
    uint32_t kinds;              /* bit mask of (1u << slog_kind); 0 = all.  Real
                                    drawables by their bits; previews with the
                                    SLOG_KIND_PREVIEW bit, summarising the drawable kinds
                                    set (all four when none is); pixel runs with the
                                    SLOG_KIND_RUN bit (without it, sub-pixel drawables
                                    come back one by one) */
    int64_t t0, t1;              /* window [t0, t1) in ticks */
    int64_t resolution;          /* ticks per pixel; 0 = full detail, no previews or runs */
    const uint32_t *timelines;   /* NULL = all; a state/event/counter matches by its
                                    timeline, an arrow by either end */
    uint32_t ntimelines;
    uint32_t ncategories;
    const uint32_t *categories;  /* NULL = all */
    uint32_t flags;              /* SLOG_QUERY_*; since 0.2 (read only when struct_size
                                    covers it, else 0) */
    uint32_t reserved;           /* 0 (since 0.3) */
    uint64_t first_node;         /* since 0.3: skip the nodes whose index is below it,
                                    with their subtrees (post-order: all written
                                    before it); 0 = none.  With the previous
                                    slog_file_info.nodes after slog_reader_refresh: only
                                    what the refresh added.  Needs resolution 0 */
} slog_query_options;

/** slog_query_options.flags: attach args to states, events and arrows.
 *  Without it a query reads and decodes no args (format 2 stores them apart
 *  from the geometry) and items come with nargs = 0.  @since 0.2 */
#define SLOG_QUERY_ARGS (1u << 0)

#define SLOG_QUERY_OPTIONS_INIT {sizeof(slog_query_options), 0, 0, 0, 0, NULL, 0, 0, NULL, 0, 0, 0}

/**
 * Fill @p opts with the defaults, as SLOG_QUERY_OPTIONS_INIT does (for
 * bindings, which cannot use the macro): all kinds, all timelines and
 * categories, full detail, no args, the empty window [0, 0).
 * @param opts  options to fill; must not be NULL
 * Thread safety: any thread.  @since 0.2
 */
SLOG_API void slog_query_options_init(slog_query_options *opts);

/** What a query cost so far. */
typedef struct slog_query_stats {
    uint64_t nodes_visited;   /* node table entries looked at */
    uint64_t nodes_read;      /* node blobs needed (payload or preview) */
    uint64_t cache_hits;      /* of those, found decoded in the cache */
    uint64_t bytes_read;      /* compressed bytes read from the file */
    uint64_t bytes_decoded;   /* bytes after LZ4 decoding */
    uint64_t items;           /* items returned */
} slog_query_stats;

/**
 * Start a query.  Items come in node order; within the window every
 * drawable that overlaps [t0, t1) is returned exactly once (a state
 * [s, e) overlaps when s < t1 and e > t0; a point t when t0 <= t < t1).
 * With resolution > 0 (ticks per pixel) the answer is pixel-bounded:
 * - a subtree whose detail is finer than a pixel comes back as its
 *   previews instead of its drawables: it spans less than one pixel, or at
 *   most 16 pixels while holding more than one drawable per pixel per row,
 *   counting the rows present in its preview (within the selection);
 * - with the SLOG_KIND_RUN bit (set by kinds = 0), drawables lying within
 *   one pixel on their row are merged into slog_run items (a drawable alone
 *   in its pixel comes back as itself); runs come after the drawables of
 *   the node that completes them, in (pixel, kind, row) order.
 * At most 4 x pixels x rows x depth levels items then come back (rows:
 * timelines plus counter series; see doc/DESIGN.md, "Pixel runs").
 * Counters are never summed across series when every category is selected
 * (since 0.3): where a preview folds counters over timelines or into
 * "other", an inner node's counters come back as one preview per timeline
 * (fold 0, category SLOG_CATEGORY_OTHER: that timeline's counters together)
 * and a leaf's as its samples (or their runs); only a file whose inner
 * nodes lack per-timeline totals (thousands of timelines, or tiny leaves)
 * still answers folded counters there (doc/DESIGN.md, "Counters at a
 * distance").
 * Calls fill the reader's node cache, so the reader is not const.
 * @param out   receives the query (caller-owned; release with
 *              slog_query_destroy before the reader); NULL on failure
 * @param r     the reader
 * @param opts  window, resolution and filters; NULL is SLOG_EINVAL (the
 *              struct_size rule: slog_common.h).  Copied: the id arrays may
 *              be freed once this returns
 * @param err   error details, or NULL
 * @retval SLOG_OK     created
 * @retval SLOG_EINVAL opts NULL, a bad struct_size, t1 < t0, resolution < 0,
 *                     an unknown timeline or category id, first_node with a
 *                     resolution > 0, kind bits outside SLOG_KINDS_ALL
 * @retval SLOG_ENOMEM out of memory
 * Thread safety: the reader's thread.  @since 0.1
 */
SLOG_API int slog_query_create(slog_query **out, slog_reader *r, const slog_query_options *opts,
                               slog_error *err);

/**
 * Next item of the query.  After an error the query only returns SLOG_ESTATE.
 * @param q     the query
 * @param item  receives the item, borrowed until the next call on @p q or
 *              its destroy; NULL unless SLOG_OK
 * @param err   error details, or NULL
 * @retval SLOG_OK       *item is the next item
 * @retval SLOG_END      no more items
 * @retval SLOG_ECORRUPT a damaged node (the message names it)
 * @retval SLOG_EIO      the file cannot be read
 * @retval SLOG_ENOMEM   out of memory
 * @retval SLOG_ESTATE   an earlier call failed
 * Thread safety: the reader's thread.  @since 0.1
 */
SLOG_API int slog_query_next(slog_query *q, const slog_item **item, slog_error *err);

/**
 * Caller-provided column arrays for slog_query_next_batch (@since 0.2): item
 * i of a batch is entry i of every array.  Each non-NULL array holds at
 * least @p capacity entries; a NULL array is not filled.  Args are not
 * part of a batch (slog_query_next gives them).  Per kind:
 *
 *   column       state     event  arrow     counter  preview          run
 *   timeline     timeline  tl     from      tl       row              timeline
 *   timeline_to  = tl      = tl   to        = tl     row_to           timeline_to
 *   category     category  cat    cat       cat      category         dominant category
 *   start, end   start,end time   start,end time     node box         span of the run
 *   depth        depth     0      0         0        fold             depth
 *   of           state     event  arrow     counter  summarised kind  merged kind
 *   count        1         1      1         1        count            count
 *   inclusive    duration  0      duration  0        inclusive        inclusive
 *   value        0         0      0         value    vlast            vlast
 */
typedef struct slog_batch {
    size_t capacity;         /* entries each non-NULL array holds */
    uint8_t *kind;           /* slog_kind */
    uint8_t *of;             /* kind of what the item is or summarises */
    uint32_t *timeline;
    uint32_t *timeline_to;
    uint32_t *category;
    int64_t *start;
    int64_t *end;
    uint32_t *depth;
    uint64_t *count;
    int64_t *inclusive;
    double *value;
} slog_batch;

/**
 * Up to @p cols->capacity next items of the query, as columns: one call
 * per thousands of items for a binding.  The items and their order are
 * exactly those slog_query_next would give.
 * @param q     the query
 * @param cols  the column arrays (see slog_batch); capacity > 0
 * @param n     receives the number of items filled (also on an error: the
 *              items before it are valid)
 * @param err   error details, or NULL
 * @retval SLOG_OK       *n >= 1 items filled (fewer than capacity only at
 *                       the end of the query)
 * @retval SLOG_END      no more items (*n == 0)
 * @retval SLOG_EINVAL   capacity 0
 * @retval SLOG_ECORRUPT, SLOG_EIO, SLOG_ENOMEM, SLOG_ESTATE  as slog_query_next
 * Thread safety: the reader's thread.  @since 0.2
 */
SLOG_API int slog_query_next_batch(slog_query *q, slog_batch *cols, size_t *n, slog_error *err);

/**
 * What the query cost so far.
 * @param q    the query
 * @param out  filled; must not be NULL
 * Thread safety: the reader's thread.  @since 0.1
 */
SLOG_API void slog_query_stats_get(const slog_query *q, slog_query_stats *out);

/**
 * Indices of the nodes whose blobs this query needed so far, in read order.
 * @param q      the query
 * @param count  receives the number of indices; must not be NULL
 * @return the indices, borrowed until the next call on @p q or its
 *         destroy; NULL when none was read
 * Thread safety: the reader's thread.  @since 0.1
 */
SLOG_API const uint64_t *slog_query_read_nodes(const slog_query *q, size_t *count);

/**
 * Release the query (its items become invalid).
 * @param q  the query; NULL does nothing
 * Thread safety: the reader's thread.  @since 0.1
 */
SLOG_API void slog_query_destroy(slog_query *q);

#ifdef __cplusplus
}
#endif
#endif /* SLOG_READER_H */
