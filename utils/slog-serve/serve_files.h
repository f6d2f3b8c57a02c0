/* SPDX-License-Identifier: MIT
 *
 * serve_files.h - the files slog-serve serves, each with a pool of readers.
 * A slog_reader is used by one thread at a time, so a request checks a
 * reader out of its file's pool and checks it back in when done; the pool
 * opens a new reader when none is idle (at most one per worker thread is
 * ever out, so the pool stays bounded).
 *
 * Live files: a checkout stats the file and, when its size or modification
 * time changed, starts a new generation; an idle reader of an older one is
 * brought up to date with slog_reader_refresh (what the writer flushed
 * since; a reader that cannot refresh, e.g. a file rewritten in place, is
 * replaced by a new one).  When the path names another file (device or
 * inode), idle readers are closed and new ones opened.
 * Tools layer (slog-serve): public libslog headers and libc.
 */
#ifndef SLOG_SERVE_FILES_H
#define SLOG_SERVE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slog/slog.h>

#include "serve_import.h"

typedef struct serve_files serve_files;

/* A checked-out reader.  Times in the API are relative to origin (the
 * file's start, or 0 for a file without drawables). */
typedef struct serve_lease {
    slog_reader *r;
    const slog_file_info *fi;
    int64_t origin;
    size_t file;
    uint64_t generation;
} serve_lease;

/* Status of one file, for /api/files. */
typedef struct serve_file_status {
    const char *name; /* base name, borrowed */
    uint64_t bytes;   /* size now */
    bool exists;
} serve_file_status;

/* What each file's readers may keep. */
typedef struct serve_files_budget {
    uint32_t pool_size;   /* idle readers kept per file */
    uint64_t cache_bytes; /* node cache of each reader */
} serve_files_budget;

/* Take every source and open each once: one that does not open (or was not
 * imported: src[i].path NULL) is printed on stderr and stays in the list,
 * failed; *servable counts those that opened.  A file that failed to open
 * is tried again at each checkout (it may appear later, as a writer's
 * does); one that was not imported fails every checkout with its error.
 * Returns 0, or -1 when memory ran out (printed). */
int serve_files_create(serve_files **out,
                       const serve_source *src,
                       size_t n,
                       serve_files_budget budget,
                       size_t *servable);

void serve_files_destroy(serve_files *fs);

size_t serve_files_count(const serve_files *fs);

void serve_files_status(const serve_files *fs, size_t f, serve_file_status *out);

/* Check out a reader of file f (f < count), reopened when the file changed.
 * Returns SLOG_OK or the error of slog_reader_open (err filled); SLOG_EIO
 * with the import's error for a source that was not imported. */
int serve_files_checkout(serve_files *fs, size_t f, serve_lease *out, slog_error *err);

/* Give the reader back (closed when its generation is stale or the pool
 * is full). */
void serve_files_checkin(serve_files *fs, serve_lease *lease);

#endif /* SLOG_SERVE_FILES_H */
