/* SPDX-License-Identifier: MIT
 *
 * recorder_decode.h - pure decoding of Recorder 2.4.x / 2.5.x trace folders
 * (VERSION, recorder.mt header and function table, call-signature tables,
 * Sequitur grammars, timestamp deltas), with no writer calls, so the decoded
 * records can be compared with the corpus dumps and fuzzed.  Layout notes:
 * /work/shared/corpus/recorder/FORMAT-NOTES.md and doc/IMPORT-RECORDER.md.
 *
 * Use: rec_trace_open() on the folder, then for each rank rec_rank_open()
 * and rec_rank_next() until SLOG_END.  Records come in the rank's call order
 * (start order); every timestamp pair is consumed strictly in sequence.
 * Every byte read is bounds-checked; a damaged file gives SLOG_ECORRUPT (or
 * SLOG_EPARSE / SLOG_EVERSION / SLOG_EIO) with err->source = the file inside
 * the folder and err->offset = the byte offset in that file.
 *
 * On-disk headers of recorder.mt (little-endian, x86_64 ABI padding):
 *
 *   2.5.x  OFFSET SIZE MEANING            2.4.x  OFFSET SIZE MEANING
 *          0      4    total_ranks               0      4    total_ranks
 *          4      6    bools: posix, mpi,        8      8    start_ts (f64)
 *                      mpiio, hdf5,              16     8    time_resolution
 *                      store_tid, depth          24     4    ts_buffer_elements
 *          16     8    start_ts (f64 s)          28     4    ts_compression_algo
 *          24     8    time_resolution (s)       32     4    interprocess_compression
 *          32     4    ts_buffer_elements
 *          36     4    bools: ts_compression, interprocess_compression,
 *                      inter-/intraprocess pattern recognition
 *   then, from byte 40, function names each ended by '\n' (index = func_id).
 *
 * Call-signature key (both versions):  [0,8) tid, [8] func_id, [9] depth,
 * [10] arg_count, [11,15) args_len, [15,15+args_len) args, each + ' '.
 *
 * Thread safety: a rec_trace and its rec_rank objects are used by one thread.
 */
#ifndef SLOG_RECORDER_DECODE_H
#define SLOG_RECORDER_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slog/slog_common.h>

#define REC_HEADER_BYTES    40u
#define REC_KEY_FIXED_BYTES 15u
#define REC_USER_FUNC_ID    255u /* -finstrument-functions record: args = object, symbol */

/* Layer a function id belongs to (Recorder's own split of the table). */
typedef enum rec_layer {
    REC_LAYER_POSIX = 0,
    REC_LAYER_MPI = 1,
    REC_LAYER_MPIIO = 2,
    REC_LAYER_HDF5 = 3,
    REC_LAYER_USER = 4
} rec_layer;

/* The recorder.mt header, both layouts folded into one. */
typedef struct rec_header {
    unsigned version_major, version_minor, version_patch;
    char version[32]; /* VERSION file text, trimmed */
    int32_t total_ranks;
    bool posix_tracing, mpi_tracing, mpiio_tracing, hdf5_tracing; /* 2.5 only; true in 2.4 */
    bool store_tid;         /* 2.5: header flag; 2.4: false (tids are used when nonzero) */
    bool store_call_depth;  /* 2.5: header flag; 2.4: true */
    double start_ts;        /* epoch seconds of rank 0's start */
    double time_resolution; /* seconds per tick */
    int32_t ts_buffer_elements;
    int32_t ts_compression_algo;   /* 2.4 only */
    bool ts_compression;           /* 2.5: zlib chunks in recorder.ts */
    bool interprocess_compression; /* merged CST + unique grammars */
    bool interprocess_pattern_recognition;
    bool intraprocess_pattern_recognition;
} rec_header;

/* One call signature (a CST terminal).  args is borrowed from the trace. */
typedef struct rec_sig {
    uint64_t tid;
    uint8_t func_id;
    uint8_t depth;
    uint8_t arg_count;
    uint32_t args_len;
    const char *args; /* args_len bytes, not NUL-terminated */
    uint32_t count;   /* occurrence count stored in the CST */
} rec_sig;

/* One decoded record. */
typedef struct rec_record {
    uint64_t index;       /* 0-based position in the rank's call sequence */
    int64_t tstart, tend; /* ticks of time_resolution since the rank's start */
    uint32_t terminal;    /* CST terminal id */
    const rec_sig *sig;   /* borrowed until rec_rank_close */
} rec_record;

typedef struct rec_trace rec_trace;
typedef struct rec_rank rec_rank;

/** Open a trace folder: reads VERSION, recorder.mt and, with interprocess
 *  compression, the merged CST, unique grammars and ug.mt.
 *  @retval SLOG_OK, SLOG_EIO, SLOG_ECORRUPT, SLOG_EPARSE, SLOG_EVERSION, SLOG_ENOMEM */
int rec_trace_open(rec_trace **out, const char *dir, slog_error *err);
void rec_trace_close(rec_trace *t);

const rec_header *rec_trace_header(const rec_trace *t);
uint32_t rec_trace_func_count(const rec_trace *t);
/** Name of a function id; for REC_USER_FUNC_ID "user_function"; NULL if unknown. */
const char *rec_trace_func_name(const rec_trace *t, uint32_t func_id);
/** Layer of a function id (see FORMAT-NOTES.md section 2). */
rec_layer rec_trace_func_layer(const rec_trace *t, uint32_t func_id);
const char *rec_layer_name(rec_layer layer);

/** Load one rank: its CST and grammar (unless merged), its timestamps, and
 *  validate that the grammar expands to exactly as many records as there are
 *  timestamp pairs.  Nothing is returned for a rank that fails this.
 *  @retval SLOG_OK, SLOG_EIO, SLOG_ECORRUPT, SLOG_EPARSE, SLOG_ENOMEM */
int rec_rank_open(rec_rank **out, rec_trace *t, uint32_t rank, slog_error *err);
/** As rec_rank_open, but a rank whose timestamps are cut short (a cut
 *  recorder.ts chunk or <rank>.ts file) opens with the records that have
 *  both timestamps, in order; rec_rank_damage() says what was cut.  Every
 *  other damage fails as in rec_rank_open.
 *  @retval SLOG_OK, SLOG_EIO, SLOG_ECORRUPT, SLOG_EPARSE, SLOG_ENOMEM */
int rec_rank_open_cut(rec_rank **out, rec_trace *t, uint32_t rank, slog_error *err);
/** True when the rank was opened cut short; *err (may be NULL) gets the
 *  error rec_rank_open would have returned (file, offset, message). */
bool rec_rank_damage(const rec_rank *r, slog_error *err);
/** Records rec_rank_next returns: rec_rank_record_count unless cut short. */
uint64_t rec_rank_available(const rec_rank *r);
void rec_rank_close(rec_rank *r);
/** Records of the rank (the grammar's expansion length). */
uint64_t rec_rank_record_count(const rec_rank *r);
/** Next record in call order.  @retval SLOG_OK, SLOG_END */
int rec_rank_next(rec_rank *r, rec_record *out);
/** Restart the iteration from the first record. */
void rec_rank_rewind(rec_rank *r);

/** Split a signature's argument text.  Each argument is followed by one
 *  space; returns the number of arguments found (at most max), stores their
 *  starts and lengths.  *rest receives the bytes left after the last one
 *  (0 for well-formed text). */
uint32_t rec_split_args(
    const rec_sig *sig, const char **starts, uint32_t *lens, uint32_t max, uint32_t *rest);

/** Convert ticks to nanoseconds: exact integer multiply when the resolution
 *  is a whole number of ns (the default 1e-7 s = 100 ns), else rounded. */
int64_t rec_ticks_to_ns(const rec_header *h, int64_t ticks);
/** start_ts as epoch nanoseconds (whole seconds exact, fraction rounded to ns). */
int64_t rec_start_ns(const rec_header *h);

#endif /* SLOG_RECORDER_DECODE_H */
