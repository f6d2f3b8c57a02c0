/* SPDX-License-Identifier: MIT
 *
 * import_mpe.h - writer side shared by the CLOG2 and SLOG-2 importers: it
 * turns decoded mpe_drawable values into libslog timelines, categories,
 * args and drawables, the same way for both formats, so that one run
 * imported from its .clog2 and from its .slog2 gives the same file content.
 *
 * Timelines (see doc/IMPORT-MPE.md): one "rank W" timeline (RANK) per
 * MPI_COMM_WORLD rank; its lines on other communicators become children
 * "comm C rank R" (and threads > 0 children "thread T"); a line whose
 * world rank is unknown becomes a top-level "line N".  With several inputs
 * in one run, each input's timelines hang under a timeline named after it.
 * Times: llround(seconds * 1e9) ns.  Args: the info values, keyed by the
 * format text before each value ("iter=%d" -> "iter").
 */
#ifndef SLOG_IMPORT_MPE_H
#define SLOG_IMPORT_MPE_H

#include <stdint.h>

#include "importer.h"
#include "mpe_decode.h"

typedef const mpe_category *(*mpe_category_fn)(const void *src, uint32_t slot);
typedef void (*mpe_line_fn)(const void *src, uint32_t line_id, mpe_line *out);

/* The decoder (clog2_conv or slog2_file) and how to ask it about slots and lines. */
typedef struct mpe_source {
    const void *src;
    mpe_category_fn category;
    mpe_line_fn line;
    uint32_t threads; /* per process */
} mpe_source;

typedef struct mpe_out mpe_out;

/* @p stream gives progress (may be NULL). */
int mpe_out_create(mpe_out **out, import_ctx *ctx, const mpe_source *src, import_stream *stream);
/* The mpe_emit_fn: append one drawable; nonzero after a writer failure. */
int mpe_out_emit(void *out, const mpe_drawable *d);
/* After a nonzero emit: the message and input offset of the failure. */
const char *mpe_out_error(const mpe_out *o, uint64_t *offset);
/* Drawables whose info was shorter than their category's format. */
uint64_t mpe_out_short_info(const mpe_out *o);
void mpe_out_destroy(mpe_out *o);

/* Read callbacks over an import_stream for mpe_in. */
long mpe_stream_read(void *stream, void *buf, size_t n);
const char *mpe_stream_error(void *stream);

#endif /* SLOG_IMPORT_MPE_H */
