/* SPDX-License-Identifier: MIT
 *
 * serve_import.h - slog-serve's arguments as .slog files: a .slog (an HDF5
 * file) is served as it is; any other trace (Chrome JSON, .pfw, OTF2,
 * Recorder, ...) is imported once, through the import library
 * (slog_import.h), into a cached .slog that later runs reuse while it is
 * newer than its source.
 * Tools layer (slog-serve): public libslog headers and utils/common.
 */
#ifndef SLOG_SERVE_IMPORT_H
#define SLOG_SERVE_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

/* The .slog path to serve for each of args[0..n) (*out: n malloc'd
 * strings, release with serve_import_free).  Imports print a line on
 * stderr, and a progress bar when show_progress.  0, or -1 after printing
 * the error. */
int serve_import_resolve(char *const *args, size_t n, bool show_progress, char ***out);

void serve_import_free(char **paths, size_t n);

#endif /* SLOG_SERVE_IMPORT_H */
