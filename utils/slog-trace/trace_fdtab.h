/* SPDX-License-Identifier: MIT
 *
 * trace_fdtab.h - which file each descriptor names, so that read, write,
 * mmap... on an fd carry the file name.  Names are interned once and never
 * freed (a descriptor's entry is one pointer swapped atomically, so a
 * lookup needs no lock); memory grows with the number of distinct names.
 * Files under the trace directory are the tracer's own: calls on them are
 * not recorded (another libslog writer in the program, e.g. Python's).
 * Layer: slog-trace preload library.
 */
#ifndef SLOG_TRACE_FDTAB_H
#define SLOG_TRACE_FDTAB_H

#include <stdbool.h>
#include <stddef.h>

/* The name fd was opened with, "" when unknown. */
const char *fdtab_path(int fd);

/* True when fd names a file of the trace directory. */
bool fdtab_own(int fd);

/* True when path lies in the trace directory. */
bool trace_path_own(const char *path);

/* fd was opened on path (a failed open, fd < 0, does nothing). */
void fdtab_opened(int fd, const char *path);

/* fd was closed. */
void fdtab_closed(int fd);

/* newfd is now a copy of oldfd (dup, dup2, dup3, fcntl F_DUPFD). */
void fdtab_dup(int oldfd, int newfd);

/* The trace directory ("" before the library's constructor ran). */
const char *trace_dir(void);

#endif /* SLOG_TRACE_FDTAB_H */
