/* SPDX-License-Identifier: MIT
 *
 * import_main.h - run-wide settings main.c offers to importers beyond the
 * fixed import_ctx of importer.h (kept separate so that contract does not
 * change).  Importers that do not sort or do not care may ignore it.
 */
#ifndef SLOG_IMPORT_MAIN_H
#define SLOG_IMPORT_MAIN_H

#include "importer.h"

/* Default reorder window (records) when --sort-window is not given. */
#define IMPORT_SORT_WINDOW_DEFAULT 1000000u

/* --sort-window: how many records an importer may hold back to reorder
 * its input by time (0 = no reordering). */
uint64_t import_sort_window(const import_ctx *ctx);

/* Number of warnings reported so far in this run (all inputs). */
uint64_t import_warning_count(const import_ctx *ctx);

#endif /* SLOG_IMPORT_MAIN_H */
