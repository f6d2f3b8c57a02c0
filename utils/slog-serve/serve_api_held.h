/* SPDX-License-Identifier: MIT
 *
 * serve_api_held.h - the counter values in force at a window's left edge,
 * for /api/window?held=1 (serve_api_held.c).
 * Tools layer (slog-serve): public libslog headers.
 */
#ifndef SLOG_SERVE_API_HELD_H
#define SLOG_SERVE_API_HELD_H

#include <slog/slog.h>

#include "serve_encode.h"
#include "serve_files.h"

/* Append to @p c, for each row of query @p q (all timelines when it has no
 * row filter) that is a counter track, its last sample before q->t0 within
 * a bounded look back, as the row a query gives a sample (time < q->t0).
 * SLOG_OK, or the library's error (SLOG_ENOMEM when @p c cannot grow). */
int serve_held_counters(const serve_lease *lease, const slog_query_options *q, serve_columns *c,
                        slog_error *err);

#endif /* SLOG_SERVE_API_HELD_H */
