/* SPDX-License-Identifier: MIT
 *
 * trace_fdtab.h - which file each descriptor names, so that read, write,
 * mmap... on an fd carry the file name.  Names are interned once and never
 * freed (a descriptor's entry is one pointer swapped atomically, so a
 * lookup needs no lock); memory grows with the number of distinct names.
 * Files under the trace directory are the tracer's own: calls on them are
 * not recorded (another libslog writer in the program, e.g. Python's).
 * The descriptors the tracer itself opened (its writer's, under the guard)
 * are a second, separate set: the program may not close or replace them.
 * A vfork child changes neither (it shares the parent's memory, not its
 * descriptors).
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

/* fd is about to be closed: its name goes now, while the number is still
 * the caller's (cleared after the close, it could erase the name another
 * thread's open had just given the number).  Returns the name it had ("":
 * none), for the close's record. */
const char *fdtab_closing(int fd);

/* newfd is now a copy of oldfd (dup, dup2, dup3, fcntl F_DUPFD). */
void fdtab_dup(int oldfd, int newfd);

/* Every fd in [lo, hi] was closed (close_range, closefrom). */
void fdtab_closed_range(unsigned lo, unsigned hi);

/* fd is the tracer's own (opened under the guard) / no longer is.  Only
 * fds below 65536 are remembered (the tracer's sit far below). */
void fdtab_tracer_add(int fd);
void fdtab_tracer_remove(int fd);

/* True when fd is the tracer's own. */
bool fdtab_tracer(int fd);

/* The lowest of the tracer's fds in [lo, hi], or -1 when there is none. */
int fdtab_tracer_next(unsigned lo, unsigned hi);

/* The trace directory ("" before the library's constructor ran). */
const char *trace_dir(void);

#endif /* SLOG_TRACE_FDTAB_H */
