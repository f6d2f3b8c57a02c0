/* SPDX-License-Identifier: MIT
 *
 * slog_merge.h - joining libslog files (one per process, per MPI rank, or
 * per imported input) into one self-contained file (libslog-merge,
 * pkg-config `slog-merge`).  Every input keeps its timelines under a new
 * top-level timeline of its own (its label: "rank R" or the file name), so
 * the hierarchy reads input -> process -> thread; categories are joined by
 * (kind, name, group); args are kept.  Drawables stream through the public
 * reader and writer in time slices, in end-time order, so memory is bounded
 * by one slice, not by the inputs.  Inputs of different clocks are
 * converted exactly to the finest clock, or refused when no exact
 * conversion exists.  The same file given twice, an unreadable, damaged or
 * (without SLOG_MERGE_ALLOW_INCOMPLETE) incomplete input is refused with an
 * error naming it; the output of a failed merge is left marked incomplete.
 * Besides <stddef.h>, <stdint.h> and <stdbool.h> this header needs
 * <stdatomic.h> (<atomic> in C++) for the cancel flag
 * (slog_merge_atomic_int, the same type as slog_import.h's slog_atomic_int).
 * doc/DESIGN.md, "Merging files (slog-merge)", has the slice algorithm and
 * why every drawable is written exactly once.
 *
 * Thread safety: a merge runs on the caller's thread; separate merges may
 * run in parallel threads (each has its own readers and writer).
 */
#ifndef SLOG_MERGE_H
#define SLOG_MERGE_H

#include <slog/slog_writer.h>

#ifdef __cplusplus
#    include <atomic>
typedef std::atomic_int slog_merge_atomic_int;
extern "C" {
#else
#    include <stdatomic.h>
typedef atomic_int slog_merge_atomic_int;
#endif

/** slog_merge_options.flags: accept inputs whose writer did not finish
 *  (killed process, dead rank); their drawables up to the last flush are
 *  merged and the input counts in slog_merge_summary.incomplete_inputs.
 *  The output of such a merge is itself marked incomplete (flushed, never
 *  finished), so that it does not claim to hold everything its inputs'
 *  writers meant to write. */
#define SLOG_MERGE_ALLOW_INCOMPLETE (1u << 0)

/** slog_merge_options.flags: an input whose timelines have one root (a
 *  tracer's per-process file: process -> threads) and none linked gets no
 *  new top timeline: its root, renamed by the input's label, is the top
 *  (kind top_kind, or the root's own when top_kind is 0; sort key the
 *  input's position), so the output reads input = process -> thread.  An
 *  input of several roots gets a top timeline as without the flag.
 *  @since 0.3 */
#define SLOG_MERGE_LABEL_ROOT (1u << 1)
/** A timeline of one input that stands for a timeline of an earlier input
 *  (slog_merge_options.links): its drawables go to that input's timeline in
 *  the output, and it is not defined again.  An input whose every timeline
 *  is linked gets no top timeline: it only adds drawables to the others'
 *  timelines, as the input holding the arrows of MPI messages between the
 *  ranks' files does (slog_mpi.h).  @since 0.3 */
typedef struct slog_merge_link {
    uint32_t input;       /* position of the linked input among the inputs */
    uint32_t timeline;    /* one of its timeline ids */
    uint32_t to_input;    /* an earlier input: to_input < input */
    uint32_t to_timeline; /* the timeline id of to_input it stands for */
} slog_merge_link;

typedef struct slog_merge_options {
    uint32_t struct_size;            /* sizeof(slog_merge_options) */
    uint32_t flags;                  /* SLOG_MERGE_* */
    const char *const *labels;       /* per input, the name of its top timeline; NULL (or
                                        a NULL entry): the input's file name without
                                        directory and ".slog" */
    const int64_t *offsets;          /* per input, ticks (of that input's clock) added to
                                        each of its times (clock offsets between hosts);
                                        NULL = none */
    int64_t slice_ticks;             /* width of one time slice in output ticks; 0 = chosen
                                        from the inputs (about 2^16 drawables a slice) */
    const slog_writer_options *writer; /* options of the output writer; NULL = defaults.
                                        Its ticks_per_second, when not 0, must be a common
                                        multiple of the inputs' clocks and becomes the
                                        output's; its creator, when NULL, is "slog-merge" */
    const slog_merge_atomic_int *cancel; /* nonzero stops the merge with SLOG_EINTR; NULL */
    void (*progress)(uint64_t done, uint64_t total, void *user); /* drawables written of
                                        all the inputs hold, once a slice; NULL */
    void *user;                      /* handed to progress */
    uint32_t top_kind;               /* slog_timeline_kind of each input's top timeline;
                                        0 = SLOG_TIMELINE_GENERIC; SLOG_TIMELINE_RANK for
                                        the files of MPI ranks */
    uint32_t reserved;               /* 0 */
    const slog_merge_link *links;    /* timelines that stand for an earlier input's (each
                                        linked at most once); NULL = none */
    size_t nlinks;                   /* entries of links */
} slog_merge_options;

#define SLOG_MERGE_OPTIONS_INIT                                                                    \
    {sizeof(slog_merge_options), 0, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, 0}

/**
 * Fill @p opts with the defaults, as SLOG_MERGE_OPTIONS_INIT does.
 * @param opts  options to fill; must not be NULL
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API void slog_merge_options_init(slog_merge_options *opts);

/** What a merge wrote (filled on failure too: what was written before it). */
typedef struct slog_merge_summary {
    uint32_t inputs;
    uint32_t incomplete_inputs;      /* inputs whose writer had not finished */
    uint64_t ticks_per_second;       /* of the output */
    uint64_t states, events, arrows, counters; /* drawables written */
    uint32_t timelines, categories;  /* of the output */
    int64_t start, end;              /* time range of the output, its ticks (0, 0: empty) */
    uint64_t slices;                 /* time slices written */
    bool output_created;             /* the output file was created; after a failure it
                                        is marked incomplete (remove it or keep it) */
} slog_merge_summary;

/**
 * Merge @p n libslog files into a new file at @p out.
 * @param inputs   paths of the inputs; none may be @p out or repeat another
 *                 (by name or by device and inode)
 * @param n        number of inputs, at least 1
 * @param out      path of the new file (replaced if it exists); the output
 *                 clock is the least common multiple of the inputs' (or the
 *                 writer option's), at most 10^12 ticks per second
 * @param opts     options, NULL for defaults (struct_size rule: slog_common.h)
 * @param summary  receives what was written (also on failure), or NULL
 * @param err      error details naming the input (or output), or NULL
 * @retval SLOG_OK        merged; the output is complete, or, when
 *                        summary->incomplete_inputs > 0 (allowed with
 *                        SLOG_MERGE_ALLOW_INCOMPLETE), holds what the inputs
 *                        held and is marked incomplete
 * @retval SLOG_EINVAL    no input, an input given twice or equal to @p out,
 *                        clocks that cannot be converted exactly, times that
 *                        overflow after conversion or offset, bad options
 * @retval SLOG_ESTATE    an incomplete input without SLOG_MERGE_ALLOW_INCOMPLETE
 * @retval SLOG_EFORMAT, SLOG_EVERSION, SLOG_ECORRUPT, SLOG_EIO  an input cannot
 *                        be read (the error names it; SLOG_ECORRUPT also when
 *                        an input yields other counts than its summary says)
 *                        or the output cannot be written
 * @retval SLOG_EINTR     cancelled
 * @retval SLOG_ENOMEM    out of memory
 * Thread safety: any thread; merges in separate threads do not interfere.
 * @since 0.3
 */
SLOG_API int slog_merge_files(const char *const *inputs, size_t n, const char *out,
                              const slog_merge_options *opts, slog_merge_summary *summary,
                              slog_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SLOG_MERGE_H */
