/* SPDX-License-Identifier: MIT
 *
 * slog_import.h - the import library (libslog-import, pkg-config
 * `slog-import`): convert traces of other tools (Chrome Trace Event JSON,
 * DFTracer .pfw, OTF2, Recorder, MPE CLOG2, SLOG-2 and Perfetto protobuf
 * traces) into a libslog file.
 * Detect a format from an input's first bytes, then import one or more
 * inputs (paths, caller-supplied read callbacks or memory buffers) into an
 * open writer or a new file.  Options follow the struct_size rule of
 * slog_common.h; progress, diagnostics and per-record-kind counts reach the
 * caller through callbacks in the options; the outcome comes back as a
 * summary struct.  The library keeps no process-global state of its own:
 * imports in separate threads do not interfere, and a failure never ends
 * the process (it returns an error).  Besides <stddef.h>, <stdint.h> and
 * <stdbool.h> this header needs <stdatomic.h> (<atomic> in C++) for the
 * cancel flag.
 */
#ifndef SLOG_IMPORT_H
#define SLOG_IMPORT_H

#include <slog/slog_writer.h>

#ifdef __cplusplus
#    include <atomic>
typedef std::atomic_int slog_atomic_int;
extern "C" {
#else
#    include <stdatomic.h>
typedef atomic_int slog_atomic_int;
#endif

/** How a record of the input ended up (per-record-kind counts). */
typedef enum slog_import_outcome {
    SLOG_IMPORT_IMPORTED = 0, /* mapped to a drawable, timeline, category or metadata */
    SLOG_IMPORT_SKIPPED = 1,  /* understood but not representable: counted, reported */
    SLOG_IMPORT_REPAIRED = 2  /* broken input fixed up (with a warning) */
} slog_import_outcome;

/** Severity of a diagnostic. */
typedef enum slog_import_severity {
    SLOG_IMPORT_WARNING = 0, /* the import goes on */
    SLOG_IMPORT_ERROR = 1    /* the import stops; the same text is in slog_error */
} slog_import_severity;

/** One warning or error, as handed to slog_import_options.diagnostic. */
typedef struct slog_import_diagnostic {
    slog_import_severity severity;
    const char *source;  /* input (or output) it concerns, as the caller named it; "" if none */
    uint64_t line;       /* 1-based line of a text input, 0 if unknown */
    uint64_t column;     /* 1-based column, 0 if unknown */
    uint64_t offset;     /* input byte offset, UINT64_MAX if unknown */
    const char *message; /* one sentence, no newline */
    const void *kind;    /* the same pointer for every diagnostic of one kind (to cap prints) */
} slog_import_diagnostic;

/**
 * Reads the next bytes of a caller-supplied input.
 * @param buf  where to put them
 * @param cap  at most this many bytes
 * @param got  set to the bytes read; 0 means the end of the input
 * @param user slog_import_input.read_user
 * @retval SLOG_OK bytes read (or the end)
 * @retval <0 a read error (the import stops with it)
 */
typedef int (*slog_import_read_fn)(void *buf, size_t cap, size_t *got, void *user);

/**
 * One input.  Exactly one of three sources: a path (read == NULL and
 * data == NULL: a file, a directory for OTF2/Recorder, "-" for standard
 * input, or a pipe), a read callback (read once, like a pipe: formats read
 * in two passes and zip archives need a path or memory), or a memory buffer
 * (data, size; zip archives still need a path).  `name` names the input in
 * diagnostics and the summary and must be unique among the inputs of one
 * call.  .gz content is undone for every source.
 */
typedef struct slog_import_input {
    const char *name;         /* path, or the name shown for read/data inputs */
    slog_import_read_fn read; /* non-NULL: the bytes come from read(…, read_user) */
    void *read_user;
    const void *data; /* non-NULL: the bytes are data[0, size) (borrowed for the call) */
    size_t size;
} slog_import_input;

/** Flags of slog_import_options.flags. */
#define SLOG_IMPORT_NO_REORDER      0x1u /* hold nothing back to reorder by time */
#define SLOG_IMPORT_NO_FAST_SCAN    0x2u /* Chrome/.pfw: yajl reads every event (no scanner) */
#define SLOG_IMPORT_RECORDER_RAW    0x4u /* Recorder: keep per-rank clocks (no barrier alignment) */
#define SLOG_IMPORT_RECORDER_STREAM 0x8u /* Recorder: write ranks one after another (no merge) */
#define SLOG_IMPORT_OTF2_ONE_THREAD 0x10u /* OTF2: map records on the reading thread (no second
                                             thread; the output is the same) */

/** Units of Chrome/.pfw `ts` and `dur` numbers (slog_import_options.time_unit). */
typedef enum slog_import_time_unit {
    SLOG_IMPORT_TIME_DEFAULT = 0, /* the format's own: microseconds for Chrome and .pfw */
    SLOG_IMPORT_TIME_NS = 1,
    SLOG_IMPORT_TIME_US = 2,
    SLOG_IMPORT_TIME_MS = 3,
    SLOG_IMPORT_TIME_S = 4
} slog_import_time_unit;

/**
 * Options of an import (struct_size rule: slog_common.h).  Callbacks of one
 * import are never called concurrently (the library serialises them) but
 * may be called from a thread the library started; `user` is passed last
 * to each.  All members are optional.
 */
typedef struct slog_import_options {
    uint32_t struct_size;
    uint32_t flags;           /* SLOG_IMPORT_* flags */
    const char *format;       /* NULL or "auto": detect each input; else a name of
                                 slog_import_formats() used for every input */
    uint64_t sort_window;     /* records held back to reorder by time; 0: 1000000
                                 (SLOG_IMPORT_NO_REORDER for none) */
    uint32_t time_unit;       /* slog_import_time_unit */
    uint32_t otf2_definitions_timeout_ms; /* bound on libotf2 reading an archive's
                                             definitions (it loops forever on some damaged
                                             archives); 0: 60000 */
    uint64_t recorder_merge_bytes; /* decoded timestamps held to merge Recorder ranks by
                                      time; 0: 1 GiB */
    /* Set to non-zero from any thread to stop the import (it then fails with SLOG_EINTR). */
    const slog_atomic_int *cancel;
    /* Writer options of the file slog_import_file creates (NULL: 1 ns ticks, time bins,
     * the file built on the writer's background thread, creator "libslog-import VERSION");
     * ticks_per_second is always 10^9.  SLOG_WRITER_BACKGROUND is dropped when no processor
     * is left for that thread (the Chrome/.pfw importer keeps two busy itself): the file
     * is the same either way. */
    const slog_writer_options *writer;
    /* Bytes of the current input consumed so far, of total (0: unknown), at most every
     * 64 Ki records or chunk. */
    void (*progress)(const char *input, uint64_t done, uint64_t total, void *user);
    /* Each warning, and the error that stops an import. */
    void (*diagnostic)(const slog_import_diagnostic *d, void *user);
    /* Each count as importers make it: n records of kind `what` had `outcome`. */
    void (*count)(const char *what, slog_import_outcome outcome, uint64_t n, void *user);
    void *user;
} slog_import_options;

#define SLOG_IMPORT_OPTIONS_INIT                                                                   \
    {sizeof(slog_import_options), 0, NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}

/**
 * Fill @p opts with the defaults, as SLOG_IMPORT_OPTIONS_INIT does.
 * @param opts options to fill (not NULL)
 * Thread safety: any thread.
 * @since 0.3
 */
SLOG_API void slog_import_options_init(slog_import_options *opts);

/** One row of the summary: how the records of one kind ended up. */
typedef struct slog_import_count {
    const char *what; /* e.g. "X -> state", "MPI_Send", "POSIX read" */
    uint64_t imported, skipped, repaired;
} slog_import_count;

/** What an import did (owned by the library until slog_import_summary_destroy). */
typedef struct slog_import_summary {
    bool complete;          /* every input imported (and the file finished) */
    bool output_created;    /* slog_import_file made the output (false: it failed before,
                               in the options, the detection or creating the file) */
    size_t ninputs;
    const char *const *formats; /* format used per input, NULL where none was found */
    size_t ncounts;
    const slog_import_count *counts; /* in order of first appearance */
    uint64_t imported, skipped, repaired; /* totals over counts */
    uint64_t warnings;
    uint64_t input_bytes; /* file bytes of the inputs (whole archives for OTF2 and
                             Recorder; bytes read for standard input, pipes, callbacks) */
    double seconds;       /* wall time of the call */
} slog_import_summary;

/**
 * The formats this build imports, in probe order, NULL-terminated:
 * "chrome", "pfw", "otf2", "clog2", "slog2", "recorder", "perfetto" (and any
 * added later).
 * @retval a static array
 * Thread safety: any thread.
 * @since 0.3
 */
SLOG_API const char *const *slog_import_formats(void);

/**
 * Recognise a format from the first bytes of an input.
 * @param format  set to the format's name (static), or NULL when none fits
 * @param name    the input's path or name (a directory is recognised by path
 *                when @p head is NULL); may be NULL
 * @param head    its first bytes (gzip content is inflated here), or NULL
 * @param n       how many (64 KiB are enough for every format)
 * @retval SLOG_OK     *format set (possibly to NULL)
 * @retval SLOG_ENOMEM out of memory
 * Thread safety: any thread.
 * @since 0.3
 */
SLOG_API int slog_import_detect(const char **format, const char *name, const void *head, size_t n);

/**
 * Recognise the format of an input by reading its first bytes (a path is
 * opened; standard input, pipes and callbacks keep what was read, but only
 * within one slog_import_* call, so prefer letting slog_import_into detect).
 * @param format set to the format's name (static)
 * @param input  the input
 * @param err    details on failure; may be NULL
 * @retval SLOG_OK     *format set
 * @retval SLOG_EIO    the input cannot be opened or read
 * @retval SLOG_EPARSE no format recognises it
 * @retval SLOG_ENOMEM out of memory
 * Thread safety: any thread, one call per input at a time.
 * @since 0.3
 */
SLOG_API int slog_import_detect_input(const char **format, const slog_import_input *input,
                                      slog_error *err);

/**
 * Import inputs into an open writer (ticks of 1 ns).  Inputs of one format
 * that can be merged (Chrome, .pfw) are imported together, merged by time;
 * the others one after another.  The writer is not finished.  An input that
 * fails (cannot be read, is of no known format, is damaged) is reported
 * through opts->diagnostic with what it gave before the damage kept, and the
 * other inputs are still imported; the call then returns the first error
 * (only cancelling stops at once).
 * @param summary set to the summary (also on failure, with the counts so far;
 *                NULL only when out of memory); free with
 *                slog_import_summary_destroy.  May be NULL.
 * @param w       the writer, used by this call only while it runs
 * @param inputs  @p n inputs
 * @param opts    options; NULL for the defaults
 * @param err     details on failure (source, byte offset, message); may be NULL
 * @retval SLOG_OK      every input imported
 * @retval SLOG_EINVAL  bad options (unknown format name, struct_size), no input,
 *                      two inputs of one name
 * @retval SLOG_EIO     an input cannot be read, or the writer failed
 * @retval SLOG_EPARSE  an input is not of its format or is damaged beyond repair
 * @retval SLOG_EINTR   cancelled through opts->cancel, or libotf2 did not finish
 *                      reading definitions in time
 * @retval SLOG_ENOMEM  out of memory
 * Thread safety: one call per writer; separate calls run in parallel.
 * @since 0.3
 */
SLOG_API int slog_import_into(slog_import_summary **summary, slog_writer *w,
                              const slog_import_input *inputs, size_t n,
                              const slog_import_options *opts, slog_error *err);

/**
 * Import inputs into a new file at @p output (replaced), finished on success
 * and left marked incomplete on failure.
 * @param summary as for slog_import_into; May be NULL.
 * @param output  path of the .slog file
 * @param inputs  @p n inputs
 * @param opts    options (opts->writer for the file's writer options); NULL for defaults
 * @param err     details on failure; may be NULL
 * @retval as slog_import_into, and the errors of slog_writer_create/finish
 * Thread safety: separate calls (separate outputs) run in parallel.
 * @since 0.3
 */
SLOG_API int slog_import_file(slog_import_summary **summary, const char *output,
                              const slog_import_input *inputs, size_t n,
                              const slog_import_options *opts, slog_error *err);

/**
 * Free a summary.
 * @param summary the summary; NULL is allowed
 * Thread safety: any thread.
 * @since 0.3
 */
SLOG_API void slog_import_summary_destroy(slog_import_summary *summary);

#ifdef __cplusplus
}
#endif

#endif /* SLOG_IMPORT_H */
