/* SPDX-License-Identifier: MIT
 *
 * slog_thread.h - the writer for tracers: many threads append at once, each
 * through its own location (a handle bound to one timeline, like OTF2's
 * event writer per location), and background threads turn the full buffers
 * into the file (tree, previews, LZ4, HDF5).  The calling thread only copies
 * a record into its location's buffer: it never compresses, never writes
 * the file and takes no lock except when a buffer is full.
 *
 *   slog_twriter *tw;  slog_location *loc;  uint32_t cat;
 *   slog_twriter_create(&tw, "run.slog", NULL, &err);
 *   slog_twriter_open_location(tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "main", &loc, &err);
 *   slog_twriter_category(tw, SLOG_KIND_STATE, "compute", &cat, &err);
 *   slog_location_begin(loc, cat, slog_clock_ns(), NULL, 0);
 *   slog_location_end(loc, slog_clock_ns());
 *   slog_location_close(loc);           (each thread its own, e.g. at thread exit)
 *   slog_twriter_finish(tw, &err);  slog_twriter_destroy(tw);
 *
 * Memory is bounded: each open location holds one buffer of buffer_bytes;
 * full buffers wait for the background in a queue of at most queue_bytes.
 * When the queue is full an append waits for room (default) or, with
 * SLOG_TWRITER_DROP, drops the buffer's records and counts them
 * (slog_twriter_get_stats); memory never grows past
 * open locations x buffer_bytes + queue_bytes (+ the file writer's own
 * bounded tree spine), or queue_bytes + 16 MiB when that is more: buffers
 * come from huge pages, and freed ones are kept for reuse up to that much.  A closed location's last buffer joins the queue
 * without waiting, so until the background took it the queue may hold
 * that much more (it was the location's share).
 *
 * Times: each location's begin/end/event/counter times must not decrease
 * (the calls return SLOG_EINVAL otherwise); arrows may point back in time.
 * Any interleaving of locations is accepted.
 *
 * Thread safety: slog_twriter_* calls may come from any thread at any time
 * (finish and destroy once, by one thread).  A location is used by one
 * thread at a time (normally the thread that opened it); different
 * locations run in parallel without locks.
 *
 * Write failures (a full disk): the first failure of the file's writes
 * fails the writer.  From then on appends return SLOG_ESTATE (their
 * records and those still buffered are counted in stats.dropped), and so do
 * the definitions; slog_twriter_flush and slog_twriter_finish return that
 * first error (its message names the cause, e.g. "No space left on
 * device").  The file keeps what was last flushed, marked incomplete, and
 * stats.records counts exactly that from then on.
 *
 * Crashes: the background flushes the file every few dozen nodes it
 * writes; slog_twriter_flush (on a timer) bounds what a crash loses to what
 * was appended since the last call.
 *
 * Finish with locations still open: slog_twriter_finish takes every record
 * the open locations have appended before it (their buffers included),
 * ends their still-open states at each location's last time (counted in
 * stats.truncated) and seals the file.  Appends after that return
 * SLOG_ESTATE and are counted in stats.dropped; the locations stay valid
 * until each is closed (closing after finish or destroy only frees it).
 *
 * Fork: a child process must not use its parent's writer or locations (the
 * background threads do not exist in the child).  A child that goes on
 * without exec calls slog_twriter_forget_after_fork on every writer it
 * inherited: it releases what it can without touching the parent's file.
 * Then the child may create its own writer.  libslog holds its HDF5 lock
 * across fork (pthread_atfork), so the child never inherits it locked, and
 * fork waits until each writer's background thread is idle (a working one
 * stops between two slices of work), so the child never inherits a lock a
 * background held (the allocator's included: AddressSanitizer's has no
 * fork handler).
 */
#ifndef SLOG_THREAD_H
#define SLOG_THREAD_H

#include <slog/slog_writer.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct slog_twriter slog_twriter;
typedef struct slog_location slog_location;

/** slog_twriter_options.flags: drop a full buffer (its records counted in
 *  stats.dropped) instead of waiting when the queue is full.  States whose
 *  begin or end was dropped are not written; the others stay paired. @since 0.3 */
#define SLOG_TWRITER_DROP 1u

/** Options of the threaded writer.  Zero means default for every field. */
typedef struct slog_twriter_options {
    uint32_t struct_size;     /* sizeof(slog_twriter_options) */
    uint32_t buffer_bytes;    /* per location; 4096..64Mi, default 65536 */
    uint64_t queue_bytes;     /* full buffers waiting for the background; at least
                                 2 x buffer_bytes; default 64 MiB */
    uint32_t flags;           /* SLOG_TWRITER_* bits */
    uint32_t max_wait_ms;     /* without SLOG_TWRITER_DROP: 0 (default) an append waits
                                 for room as long as it takes; N > 0: at most N ms, then
                                 its buffer is dropped (stats.dropped), and so is every
                                 full buffer until the background has freed room, so a
                                 program that holds a lock the background needs (HDF5's
                                 global lock, when it calls HDF5 itself) never deadlocks
                                 (@since 0.3; was reserved, 0) */
    const slog_writer_options *writer; /* the file's options (slog_writer.h), NULL for defaults */
} slog_twriter_options;

#define SLOG_TWRITER_OPTIONS_INIT {sizeof(slog_twriter_options), 0, 0, 0, 0, NULL}

/** What the threaded writer did; filled by slog_twriter_get_stats. */
typedef struct slog_twriter_stats {
    uint64_t records;    /* drawables written (a state once, at its end); once the
                            writer failed (a full disk), those the file holds: its last
                            flush that reached the disk (the ones the file writer had
                            taken in memory since are lost, and counted nowhere) */
    uint64_t dropped;    /* records lost (a begin or an end each): full queue with
                            SLOG_TWRITER_DROP, or appended after finish */
    uint64_t rejected;   /* drawables the file refused (unknown category or of another kind) */
    uint64_t truncated;  /* states still open at close or finish, ended at the last time */
    uint64_t waits;      /* appends that waited for room in the queue */
    uint64_t buffers;    /* full buffers handed to the background */
    uint64_t peak_queue_bytes; /* most bytes ever in the queue (with reused buffers) */
} slog_twriter_stats;

/**
 * Fill @p opts with the defaults, as SLOG_TWRITER_OPTIONS_INIT does.
 * @param opts  options to fill; must not be NULL
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API void slog_twriter_options_init(slog_twriter_options *opts);

/**
 * Create a trace file written by background threads, replacing any file at
 * @p path.
 * @param out   receives the writer (release with slog_twriter_destroy); NULL on failure
 * @param path  file name; must not be NULL
 * @param opts  options, NULL for defaults (struct_size rule: slog_common.h)
 * @param err   error details, or NULL
 * @retval SLOG_OK     created, background thread running
 * @retval SLOG_EINVAL an option out of range, or a bad struct_size
 * @retval SLOG_EIO    the file cannot be created, or no thread can be started
 * @retval SLOG_ENOMEM out of memory
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API int slog_twriter_create(slog_twriter **out, const char *path,
                                 const slog_twriter_options *opts, slog_error *err);

/**
 * Define a timeline that no location writes to (a process or host row that
 * groups the threads' rows).  Ids are dense, shared with the locations'.
 * @param tw        the writer
 * @param parent    parent timeline id or SLOG_NO_PARENT
 * @param kind      what the timeline is
 * @param name      name, copied; NULL is stored as ""
 * @param id_out    receives the id; may be NULL
 * @param err       error details, or NULL
 * @retval SLOG_OK     defined
 * @retval SLOG_EINVAL unknown parent or bad kind
 * @retval SLOG_ENOMEM out of memory
 * @retval SLOG_ESTATE the writer is finished or failed
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API int slog_twriter_add_timeline(slog_twriter *tw, uint32_t parent,
                                       slog_timeline_kind kind, const char *name,
                                       uint32_t *id_out, slog_error *err);

/**
 * The id of the category (@p kind, @p name), defined on first use (colour
 * picked from the name).  Takes a lock: call it once per name and keep the id.
 * @param tw      the writer
 * @param kind    SLOG_KIND_STATE, _EVENT, _ARROW or _COUNTER
 * @param name    name, copied; must not be NULL
 * @param id_out  receives the id; must not be NULL
 * @param err     error details, or NULL
 * @retval SLOG_OK     found or defined
 * @retval SLOG_EINVAL bad kind
 * @retval SLOG_ENOMEM out of memory
 * @retval SLOG_ESTATE the writer is finished or failed
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API int slog_twriter_category(slog_twriter *tw, slog_kind kind, const char *name,
                                   uint32_t *id_out, slog_error *err);

/**
 * slog_twriter_category with a group (Chrome's "cat", slog-trace's
 * "posix"...), given to the category when this call defines it (a name
 * already defined keeps its group).
 * @param group  group, copied; NULL for none
 * Otherwise as slog_twriter_category.  @since 0.3
 */
SLOG_API int slog_twriter_category_in(slog_twriter *tw, slog_kind kind, const char *name,
                                      const char *group, uint32_t *id_out, slog_error *err);

/**
 * Rename a timeline (an MPI rank learnt after the process timeline was
 * defined, say).  The file gets the name when the background next writes;
 * its sort key stays its id.
 * @param tw    the writer
 * @param id    the timeline
 * @param name  new name, copied; NULL is stored as ""
 * @param err   error details, or NULL
 * @retval SLOG_OK     renamed
 * @retval SLOG_EINVAL unknown timeline
 * @retval SLOG_ENOMEM out of memory
 * @retval SLOG_ESTATE the writer is finished or failed
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API int slog_twriter_set_timeline(slog_twriter *tw, uint32_t id, const char *name,
                                       slog_error *err);

/**
 * Define a timeline and open a location that appends to it.
 * @param tw      the writer
 * @param parent  parent timeline id or SLOG_NO_PARENT
 * @param kind    what the timeline is (usually SLOG_TIMELINE_THREAD)
 * @param name    name, copied; NULL is stored as ""
 * @param out     receives the location (release with slog_location_close)
 * @param err     error details, or NULL
 * @retval SLOG_OK     opened
 * @retval SLOG_EINVAL unknown parent or bad kind
 * @retval SLOG_ENOMEM out of memory
 * @retval SLOG_ESTATE the writer is finished or failed
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API int slog_twriter_open_location(slog_twriter *tw, uint32_t parent,
                                        slog_timeline_kind kind, const char *name,
                                        slog_location **out, slog_error *err);

/**
 * Timeline id of a location (for arrows and parents).
 * @param loc  the location
 * @return its timeline id
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API uint32_t slog_location_timeline(const slog_location *loc);

/**
 * Begin a state; it nests in the location's open states.
 * @param loc       the location
 * @param category  a state category id
 * @param time      ticks, not before the location's previous time
 * @param args      args, copied into the buffer (the caller's strings may
 *                  change after the call); NULL when @p nargs is 0
 * @param nargs     number of args
 * @retval SLOG_OK     recorded (with SLOG_TWRITER_DROP and a full queue, the
 *                     location's earlier records still in its buffer were
 *                     dropped to make room: stats.dropped)
 * @retval SLOG_EINVAL time before the previous one, bad args, or args
 *                     larger than a quarter of the buffer
 * @retval SLOG_ENOMEM no memory for a new buffer: the buffer's records were
 *                     dropped as in drop mode (counted), this one recorded
 *                     when it fits, else dropped too
 * @retval SLOG_ESTATE the writer is finished or failed (counted as dropped)
 * A category of another kind or unknown is refused later, by the background
 * (stats.rejected).
 * Thread safety: the location's thread.  @since 0.3
 */
SLOG_API int slog_location_begin(slog_location *loc, uint32_t category, int64_t time,
                                 const slog_arg *args, uint32_t nargs);

/**
 * End the innermost open state of the location.
 * @param loc   the location
 * @param time  ticks, not before the location's previous time
 * @retval SLOG_OK     recorded (earlier records may have been dropped, as
 *                     for slog_location_begin)
 * @retval SLOG_ESTATE no state is open, or the writer is finished or failed
 * @retval SLOG_EINVAL time before the previous one
 * Thread safety: the location's thread.  @since 0.3
 */
SLOG_API int slog_location_end(slog_location *loc, int64_t time);

/**
 * Record an event; as slog_location_begin.
 * @param loc       the location
 * @param category  an event category id
 * @param time      ticks, not before the location's previous time
 * @param args      args, copied; NULL when @p nargs is 0
 * @param nargs     number of args
 * @retval SLOG_OK, SLOG_EINVAL, SLOG_ENOMEM, SLOG_ESTATE as slog_location_begin
 * Thread safety: the location's thread.  @since 0.3
 */
SLOG_API int slog_location_event(slog_location *loc, uint32_t category, int64_t time,
                                 const slog_arg *args, uint32_t nargs);

/**
 * Record a counter sample on the location's timeline.
 * @param loc       the location
 * @param category  a counter category id
 * @param time      ticks, not before the location's previous time
 * @param value     the sample
 * @retval SLOG_OK, SLOG_EINVAL, SLOG_ENOMEM, SLOG_ESTATE as slog_location_begin
 * Thread safety: the location's thread.  @since 0.3
 */
SLOG_API int slog_location_counter(slog_location *loc, uint32_t category, int64_t time,
                                   double value);

/**
 * Record an arrow between any two timelines of the writer (from at
 * a->start to a->end); its times do not move the location's clock.
 * @param loc  the location whose buffer carries it
 * @param a    the arrow (category, from, to, start, end; end < start is
 *             SLOG_EINVAL, args copied); must not be NULL
 * @retval SLOG_OK, SLOG_EINVAL, SLOG_ENOMEM, SLOG_ESTATE as slog_location_begin
 * Thread safety: the location's thread.  @since 0.3
 */
SLOG_API int slog_location_arrow(slog_location *loc, const slog_arrow *a);

/**
 * Number of states begun and not ended on the location.
 * @param loc  the location
 * @return the open depth
 * Thread safety: the location's thread.  @since 0.3
 */
SLOG_API uint32_t slog_location_depth(const slog_location *loc);

/**
 * Close the location: hand its buffer to the background (states still open
 * are ended at its last time and counted in stats.truncated) and free it.
 * What it appended stays in the file.  Works after the writer's finish or
 * destroy too (then it only frees).
 * @param loc  the location; NULL does nothing
 * Thread safety: the location's thread (e.g. a pthread key destructor at
 * thread exit), as its last call.  @since 0.3
 */
SLOG_API void slog_location_close(slog_location *loc);

/**
 * Copy the writer's counters.
 * @param tw   the writer
 * @param out  receives the counters; must not be NULL
 * Thread safety: any thread (the counters are read one by one; while the
 * background works, records may lag by the pass it is in; after
 * slog_twriter_flush or slog_twriter_finish it is exact).  @since 0.3
 */
SLOG_API void slog_twriter_get_stats(slog_twriter *tw, slog_twriter_stats *out);

/**
 * Write everything appended before the call to the file (the open
 * locations' buffers included; states still open are not, as with
 * slog_writer_flush), so that a reader or a crash sees it, and wait for
 * it.  Appends go on meanwhile.  Each call closes partly filled nodes:
 * call it on a timer (seconds), not per record.
 * @param tw   the writer
 * @param err  error details, or NULL
 * @retval SLOG_OK     written and flushed
 * @retval SLOG_EIO    writing failed (the writer fails: finish reports it too)
 * @retval SLOG_ENOMEM out of memory (as SLOG_EIO)
 * @retval SLOG_ESTATE the writer is finished (or finished during the call)
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API int slog_twriter_flush(slog_twriter *tw, slog_error *err);

/**
 * Take everything appended so far (open locations' buffers included), end
 * the states still open (stats.truncated), write it all and seal the file.
 * Locations may stay open (see the file comment).
 * @param tw   the writer
 * @param err  error details, or NULL
 * @retval SLOG_OK     sealed
 * @retval SLOG_EIO    writing failed (also an earlier failure of the background)
 * @retval SLOG_ENOMEM out of memory
 * @retval SLOG_ESTATE already finished
 * Thread safety: any thread, once.  @since 0.3
 */
SLOG_API int slog_twriter_finish(slog_twriter *tw, slog_error *err);

/**
 * Release the writer.  Without finish, what was appended is written out as
 * far as possible and the file stays marked incomplete.  Open locations
 * stay valid until closed (appends on them are dropped).
 * @param tw  the writer; NULL does nothing
 * Thread safety: any thread, as the writer's last call.  @since 0.3
 */
SLOG_API void slog_twriter_destroy(slog_twriter *tw);

/**
 * In a child process after fork(): forget a writer inherited from the
 * parent without touching the parent's file (no HDF5 call, no write, no
 * lock of the parent's threads); its memory is released as far as safe.
 * The child's copies of the parent's locations must not be used or closed.
 * @param tw  the inherited writer; NULL does nothing
 * Thread safety: the child's only thread right after fork.  @since 0.3
 */
SLOG_API void slog_twriter_forget_after_fork(slog_twriter *tw);

/**
 * Nanoseconds of CLOCK_MONOTONIC (the vDSO: about 20 ns, no system call),
 * the clock the tracer should pass as time to a writer of 1e9 ticks per
 * second.  Comparable between processes of one host, not between hosts.
 * @return nanoseconds since an unspecified start (boot)
 * Thread safety: any thread.  @since 0.3
 */
SLOG_API int64_t slog_clock_ns(void);

#ifdef __cplusplus
}
#endif

/* ---- scope helpers ---- */

/* A name per line, so nested scopes do not shadow each other. */
#define SLOG_SCOPE_JOIN2_(a, b) a##b
#define SLOG_SCOPE_JOIN_(a, b)  SLOG_SCOPE_JOIN2_(a, b)
#define SLOG_SCOPE_NAME_        SLOG_SCOPE_JOIN_(slog_scope_, __LINE__)

#if defined(__GNUC__) && !defined(__cplusplus)
/** C scope (GCC/Clang `cleanup` attribute): begin a state of @p category on
 *  @p loc now (slog_clock_ns) and end it when the enclosing block is left,
 *  by any path (return, break, goto out of it); a failed begin ends nothing.
 *  Each argument is evaluated once.  One per block.  The times are
 *  slog_clock_ns(), nanoseconds: the writer's ticks_per_second must be
 *  10^9 (the default).  @since 0.3 */
typedef struct slog_scope_guard {
    slog_location *loc;
    int ok;
} slog_scope_guard;

/* A function, so that the macro evaluates `loc` once, as the C++ guard does. */
static inline slog_scope_guard slog_scope_guard_begin(slog_location *loc, uint32_t category)
{
    const slog_scope_guard g = {loc,
                                slog_location_begin(loc, category, slog_clock_ns(), NULL, 0) ==
                                    SLOG_OK};
    return g;
}

static inline void slog_scope_guard_end(slog_scope_guard *g)
{
    if (g->ok) {
        (void)slog_location_end(g->loc, slog_clock_ns());
    }
}

#    define SLOG_SCOPE(loc, category)                                                         \
        __attribute__((cleanup(slog_scope_guard_end), unused))                              \
        slog_scope_guard SLOG_SCOPE_NAME_ = slog_scope_guard_begin((loc), (category))
#endif

#ifdef __cplusplus
namespace slog {
/** C++ RAII guard: begins a state on construction, ends it on destruction.
 *  `slog::scope s(loc, cat);`  @since 0.3 */
class scope {
  public:
    scope(slog_location *loc, uint32_t category, const slog_arg *args = nullptr,
          uint32_t nargs = 0) noexcept
        : loc_(loc), ok_(slog_location_begin(loc, category, slog_clock_ns(), args, nargs) ==
                         SLOG_OK)
    {
    }
    ~scope()
    {
        if (ok_) {
            (void)slog_location_end(loc_, slog_clock_ns());
        }
    }
    scope(const scope &) = delete;
    scope &operator=(const scope &) = delete;

  private:
    slog_location *loc_;
    bool ok_;
};
} // namespace slog
#    define SLOG_SCOPE(loc, category) ::slog::scope SLOG_SCOPE_NAME_((loc), (category))
#endif

#endif /* SLOG_THREAD_H */
