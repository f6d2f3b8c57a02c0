/* SPDX-License-Identifier: MIT
 *
 * slog.h - umbrella header of libslog: scalable hierarchical trace storage.
 */
#ifndef SLOG_H
#define SLOG_H

#include <slog/slog_common.h>
#include <slog/slog_index.h>
#include <slog/slog_reader.h>
#include <slog/slog_search.h>
#include <slog/slog_stats.h>
#include <slog/slog_thread.h>
#include <slog/slog_verify.h>
#include <slog/slog_writer.h>

#endif /* SLOG_H */
