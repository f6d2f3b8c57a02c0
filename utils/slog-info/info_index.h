/* SPDX-License-Identifier: MIT
 *
 * info_index.h - what slog-info says about an index file's inputs.
 */
#ifndef INFO_INDEX_H
#define INFO_INDEX_H

#include <stdbool.h>

#include <slog/slog.h>

#include "json_out.h"

/* Nothing for an ordinary file.  Text: a summary line and one line per
 * input (the first max_lines unless all). */
void info_index_text(const slog_reader *r, bool all, unsigned max_lines);
/* An "index" member: {"inputs": [...]}; nothing for an ordinary file. */
void info_index_json(json_writer *j, const slog_reader *r);

#endif /* INFO_INDEX_H */
