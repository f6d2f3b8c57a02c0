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

typedef struct serve_import_options {
    const char *format; /* NULL or "auto": detect; else a name of slog_import_formats() */
    bool show_progress; /* draw a progress bar on stderr while importing */
} serve_import_options;

/* name is "auto" or one of slog_import_formats() (slog-serve --format). */
bool serve_import_format_known(const char *name);

/* One argument made servable, or why it could not be. */
typedef struct serve_source {
    const char *arg; /* the argument (borrowed) */
    char *path;      /* the .slog to serve (malloc'd); NULL when it could not be made */
    char *error;     /* why not, one line naming the file (malloc'd), or NULL */
} serve_source;

/* The .slog to serve for each of args[0..n) (*out: n sources, release with
 * serve_import_free).  Imports print a line on stderr, and a progress bar
 * when opts->show_progress.  An argument that cannot be imported is
 * printed on stderr and keeps its error (the others go on).  0, or -1
 * after printing that memory ran out. */
int serve_import_resolve(char *const *args, size_t n, const serve_import_options *opts,
                         serve_source **out);

void serve_import_free(serve_source *src, size_t n);

#endif /* SLOG_SERVE_IMPORT_H */
