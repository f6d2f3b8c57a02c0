/* SPDX-License-Identifier: MIT
 *
 * slog2_decode.h - SLOG-2 (version "SLOG 2.0.6", Java DataOutput, big-
 * endian) decoding without libslog: header, tree nodes, category map,
 * line-ID maps and tree directory.  Real drawables (states, events,
 * arrows) come out through a callback; preview shadows are parsed, checked
 * and counted, never emitted.
 *
 * File layout:
 *   OFFSET      SIZE   MEANING
 *   0           108    header: i16+10 version, i16 children per node, i32 leaf
 *                      size, i16 max depth, i32 max buffer, 7 FileBlockPtrs
 *                      (i64 fptr, i32 size): categories, methods, line-ID
 *                      maps, tree root, tree directory, annotations, postamble
 *   108         ...    tree nodes, back to back, leaves first
 *   ...         ...    category map, line-ID maps, tree directory (end)
 * Node: f64 t0, f64 t1, i16 depth, i32 xpos, FBP (itself); i32 n + n x
 * (u8 kind, object) events/arrows; i32 n + n x (u8 kind, object) states;
 * i32 n + n x shadow buffer (one per child).
 *
 * Two passes over the same bytes (the metadata sits at the end, so a gzip
 * stream is simply read twice): slog2_file_scan walks every node (checks
 * its structure, keeps the states of inner nodes for nesting depths) and
 * reads the metadata; slog2_file_emit walks the nodes again and emits.
 */
#ifndef SLOG_SLOG2_DECODE_H
#define SLOG_SLOG2_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpe_decode.h"

#define SLOG2_HEADER_SIZE 108

/* True when the bytes start with the SLOG-2 version string ("SLOG 2."). */
bool slog2_probe(const unsigned char *head, size_t n);

typedef struct slog2_fbp {
    int64_t fptr;
    int32_t size;
} slog2_fbp;

typedef struct slog2_header {
    char version[16];
    int16_t children; /* per node */
    int32_t leaf_bytes;
    int16_t max_depth;
    int32_t max_buffer;
    slog2_fbp categories, methods, lines, root, dir, annotations, postamble;
} slog2_header;

int slog2_header_parse(slog2_header *h, const unsigned char *buf, size_t n, mpe_err *e);

typedef struct slog2_stats {
    uint64_t nodes;
    uint64_t states, events, arrows; /* real drawables emitted */
    uint64_t shadows;                /* preview objects (skipped) */
    uint64_t composites;             /* composite objects (their parts are emitted) */
    uint64_t arrows_backwards;       /* receive before send: end set to start */
} slog2_stats;

typedef struct slog2_file slog2_file;

/* Pass 1 over the input from byte 0. */
int slog2_file_scan(slog2_file **out, mpe_in *in, mpe_err *e);
/* Pass 2 over a fresh input of the same bytes, from byte 0. */
int slog2_file_emit(slog2_file *f, mpe_in *in, mpe_emit_fn emit, void *user, mpe_err *e);

const slog2_header *slog2_file_header(const slog2_file *f);
void slog2_file_stats(const slog2_file *f, slog2_stats *out);
/* Categories by slot (shadow categories -1..-3 included, kind as stored). */
uint32_t slog2_file_ncategories(const slog2_file *f);
const mpe_category *slog2_file_category(const slog2_file *f, uint32_t slot);
/* What a line ID means, from the line-ID maps (world rank -1 if unlisted). */
void slog2_file_line(const slog2_file *f, uint32_t line_id, mpe_line *out);
/* Threads per process: 1 unless the maps have a "thread" column. */
uint32_t slog2_file_threads(const slog2_file *f);
void slog2_file_destroy(slog2_file *f);

#endif /* SLOG_SLOG2_DECODE_H */
