/* SPDX-License-Identifier: MIT
 *
 * api_options.h - the ABI rule of the public options structs in one place:
 * a caller's struct, whatever libslog version it was compiled against, is
 * copied into the library's current layout before any member is read.
 * NULL or struct_size 0: every member takes its default (zero).  A member is
 * read only when it lies wholly within the caller's first struct_size bytes;
 * the others are zero (default).  A struct_size larger than the library's
 * sizeof is accepted when the extra bytes (a newer caller's members) are all
 * zero, up to API_OPTIONS_MAX_SIZE; otherwise SLOG_EINVAL.
 * Layer 5: api.
 */
#ifndef API_OPTIONS_H
#define API_OPTIONS_H

#include <slog/slog_reader.h>
#include <slog/slog_search.h>
#include <slog/slog_stats.h>
#include <slog/slog_thread.h>
#include <slog/slog_index.h>
#include <slog/slog_writer.h>

/* Largest struct_size looked at; a bigger one is taken for garbage. */
#define API_OPTIONS_MAX_SIZE 4096u

/* Each copies *src (NULL allowed) into *dst and sets dst->struct_size to
 * sizeof *dst.  @retval SLOG_OK, SLOG_EINVAL (struct_size 1..3, above the
 * maximum, or newer members set); err names @p path. */
int api_reader_options_load(slog_reader_options *dst, const slog_reader_options *src,
                            const char *path, slog_error *err);
int api_writer_options_load(slog_writer_options *dst, const slog_writer_options *src,
                            const char *path, slog_error *err);
int api_query_options_load(slog_query_options *dst, const slog_query_options *src,
                           const char *path, slog_error *err);
int api_stats_options_load(slog_stats_options *dst, const slog_stats_options *src,
                           const char *path, slog_error *err);
int api_search_options_load(slog_search_options *dst, const slog_search_options *src,
                            const char *path, slog_error *err);
int api_index_options_load(slog_index_options *dst, const slog_index_options *src,
                           const char *path, slog_error *err);
int api_twriter_options_load(slog_twriter_options *dst, const slog_twriter_options *src,
                             const char *path, slog_error *err);

#endif /* API_OPTIONS_H */
