/* SPDX-License-Identifier: MIT
 *
 * clog2_decode.h - MPE CLOG2 (CLOG-02.44) decoding without libslog: the
 * preamble, the record stream of the data blocks, the communicator table,
 * and the conversion of records into drawables (clog2TOslog2's semantics).
 * Byte layouts: ../../doc/IMPORT-MPE.md and the corpus FORMAT-NOTES.md.
 *
 * File layout (big-endian):
 *   OFFSET         SIZE            MEANING
 *   0              1024            preamble: NUL-separated ASCII strings
 *   1024           N * block_size  data blocks of packed records
 *   commtable      4 + 40 * count  communicator table, then end of file
 * Record: f64 time, i32 icomm, i32 rank, i32 thread, i32 rectype, then a
 * body whose size is fixed per rectype.
 *
 * Two passes: definitions (STATEDEF/EVENTDEF) may come at the end of the
 * file, so pass 1 gives every record to clog2_conv_learn, pass 2 (a fresh
 * reader over the same input) gives them to clog2_conv_feed, which emits
 * drawables in completion order.
 */
#ifndef SLOG_CLOG2_DECODE_H
#define SLOG_CLOG2_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpe_decode.h"

#define CLOG2_PREAMBLE_SIZE 1024
#define CLOG2_HEADER_SIZE   24

/* True when the bytes start like a CLOG2 file ("CLOG-02.nn" and a NUL). */
bool clog2_probe(const unsigned char *head, size_t n);

typedef struct clog2_preamble {
    char version[16];
    bool big_endian;
    bool finalized;
    uint32_t block_size;
    int32_t num_buffered_blocks;
    int32_t world_size;   /* W */
    int32_t thread_count; /* T */
    int32_t known_eventID_start;
    int32_t user_eventID_start;
    int32_t known_solo_eventID_start;
    int32_t user_solo_eventID_start;
    int32_t known_stateID_count;
    int32_t user_stateID_count;
    int32_t known_solo_eventID_count;
    int32_t user_solo_eventID_count;
    uint64_t commtable_fptr;
} clog2_preamble;

int clog2_preamble_parse(clog2_preamble *p, const unsigned char *buf, size_t n, mpe_err *e);

typedef enum clog2_rectype {
    CLOG2_ENDLOG = 0,
    CLOG2_ENDBLOCK = 1,
    CLOG2_STATEDEF = 2,
    CLOG2_EVENTDEF = 3,
    CLOG2_CONSTDEF = 4,
    CLOG2_BAREEVT = 5,
    CLOG2_CARGOEVT = 6,
    CLOG2_MSGEVT = 7,
    CLOG2_COLLEVT = 8,
    CLOG2_COMMEVT = 9,
    CLOG2_SRCLOC = 10,
    CLOG2_TIMESHIFT = 11,
    CLOG2_RECTYPES = 12
} clog2_rectype;

#define CLOG2_CARGO_SIZE 32
#define CLOG2_SEND       (-101)
#define CLOG2_RECV       (-102)

/* One record; strings are NUL-terminated copies of the fixed fields. */
typedef struct clog2_record {
    uint64_t offset; /* of its header */
    double time;
    int32_t icomm, rank, thread, rectype;
    int32_t etype;      /* STATEDEF: start event; EVENTDEF/CONSTDEF/BARE/CARGO/MSG/COMM: etype */
    int32_t a, b, c, d; /* STATEDEF: state id, final event; MSG: partner icomm, partner rank,
                           tag, size; COMM: icomm, rank, world rank */
    char color[25], name[41], format[41];
    const unsigned char *cargo; /* CARGOEVT: 32 bytes, valid until the next record */
    double shift;               /* TIMESHIFT */
} clog2_record;

typedef struct clog2_comm {
    int32_t lid;
    int32_t kind; /* -1 unknown, 0 inter, 1 intra, 2 local, 3 remote */
} clog2_comm;

typedef struct clog2_reader clog2_reader;

/* Read and check the preamble.  The reader borrows @p in. */
int clog2_reader_open(clog2_reader **out, mpe_in *in, mpe_err *e);
const clog2_preamble *clog2_reader_preamble(const clog2_reader *r);
/* 0: *rec filled; 1: end (ENDLOG seen, comm table read, input ended);
 * -1: error in *e.  ENDBLOCK/ENDLOG records are consumed, never returned. */
int clog2_reader_next(clog2_reader *r, clog2_record *rec, mpe_err *e);
/* Communicator table (after the end). */
const clog2_comm *clog2_reader_comms(const clog2_reader *r, size_t *n);
/* Records per rectype so far. */
const uint64_t *clog2_reader_counts(const clog2_reader *r);
void clog2_reader_destroy(clog2_reader *r);

/* ---- conversion into drawables ------------------------------------- */

typedef struct clog2_conv clog2_conv;

typedef struct clog2_conv_stats {
    uint64_t states, events, arrows;
    uint64_t unmatched_starts; /* start events never closed */
    uint64_t unmatched_finals; /* final events without an open start */
    uint64_t unmatched_msgs;   /* sends or receives without a partner */
    uint64_t arrows_backwards; /* receive logged before its send (end set to start) */
    uint64_t ignored;          /* CONSTDEF, COLLEVT, SRCLOC, TIMESHIFT records */
} clog2_conv_stats;

int clog2_conv_create(clog2_conv **out, const clog2_preamble *p, mpe_err *e);
/* Pass 1: learn definitions and communicator membership from a record. */
int clog2_conv_learn(clog2_conv *c, const clog2_record *rec, mpe_err *e);
/* Pass 2: turn a record into drawables (emit may run 0 or more times). */
int clog2_conv_feed(
    clog2_conv *c, const clog2_record *rec, mpe_emit_fn emit, void *user, mpe_err *e);
/* After pass 2: counts, including drawables left unmatched. */
void clog2_conv_stats_get(const clog2_conv *c, clog2_conv_stats *out);

/* Categories by slot: slot == SLOG-2 index (0 message, 1 + known state, ...). */
uint32_t clog2_conv_ncategories(const clog2_conv *c);
const mpe_category *clog2_conv_category(const clog2_conv *c, uint32_t slot);
/* What a line ID means (world rank from the COMMEVT records). */
void clog2_conv_line(const clog2_conv *c, uint32_t line_id, mpe_line *out);
uint32_t clog2_conv_threads(const clog2_conv *c);
void clog2_conv_destroy(clog2_conv *c);

#endif /* SLOG_CLOG2_DECODE_H */
