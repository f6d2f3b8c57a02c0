/* SPDX-License-Identifier: MIT
 *
 * trace_posix_open.c - wrappers of the calls that open and close file
 * descriptors: open, openat, creat with their 64-bit and fortified
 * (__open_2...) entry points, and close.  Each keeps the descriptor table
 * (trace_fdtab.h) current, also when the call is not recorded, and
 * records path, flags, mode and the result; opens made by the tracer's own
 * writer are noted so a fork child can cut them off (trace_process.c).
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>

#include "trace_core.h"
#include "trace_fdtab.h"
#include "trace_fortify.h"

/* The mode argument exists only with O_CREAT or O_TMPFILE. */
#define OPEN_MODE(flags, last)                                                                     \
    __extension__({                                                                                \
        unsigned m_ = 0;                                                                           \
        if (((flags) & O_CREAT) != 0 || ((flags) & O_TMPFILE) == O_TMPFILE) {                      \
            va_list ap_;                                                                           \
            va_start(ap_, last);                                                                   \
            m_ = va_arg(ap_, unsigned);                                                            \
            va_end(ap_);                                                                           \
        }                                                                                          \
        m_;                                                                                        \
    })

/* After an open returned fd: table, own-file note, record. */
static int opened(const trace_call *c, bool traced, trace_fn fn, int dirfd, const char *path,
                  int flags, unsigned mode, int fd)
{
    const int err = errno;
    if (trace_self.guard != 0) {
        trace_note_own_open(path, fd);
    } else {
        fdtab_opened(fd, path);
    }
    if (traced && trace_path_own(path)) {
        trace_skip(c);
    } else if (traced) {
        trace_args a = {.n = 0};
        targ_str(&a, "path", path);
        if (dirfd != AT_FDCWD) {
            targ_int(&a, "dirfd", dirfd);
        }
        targ_int(&a, "flags", flags);
        targ_uint(&a, "mode", mode);
        targ_result(&a, fd, err);
        trace_leave(c, fn, &a);
    }
    errno = err;
    return fd;
}

#define OPEN_BODY(real, fn, dirfd, ...)                                                            \
    trace_call c;                                                                                  \
    const bool traced = trace_enter(&c);                                                           \
    const int fd = real(__VA_ARGS__);                                                              \
    return opened(&c, traced, fn, dirfd, path, flags, mode, fd)

int open(const char *path, int flags, ...)
{
    const unsigned mode = OPEN_MODE(flags, flags);
    OPEN_BODY(TRACE_REAL(open), TRACE_FN_OPEN, AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    const unsigned mode = OPEN_MODE(flags, flags);
    OPEN_BODY(TRACE_REAL(open64), TRACE_FN_OPEN, AT_FDCWD, path, flags, mode);
}

int __open_2(const char *path, int flags)
{
    const unsigned mode = 0;
    OPEN_BODY(TRACE_REAL(__open_2), TRACE_FN_OPEN, AT_FDCWD, path, flags);
}

int __open64_2(const char *path, int flags)
{
    const unsigned mode = 0;
    OPEN_BODY(TRACE_REAL(__open64_2), TRACE_FN_OPEN, AT_FDCWD, path, flags);
}

int openat(int dirfd, const char *path, int flags, ...)
{
    const unsigned mode = OPEN_MODE(flags, flags);
    OPEN_BODY(TRACE_REAL(openat), TRACE_FN_OPENAT, dirfd, dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
    const unsigned mode = OPEN_MODE(flags, flags);
    OPEN_BODY(TRACE_REAL(openat64), TRACE_FN_OPENAT, dirfd, dirfd, path, flags, mode);
}

int __openat_2(int dirfd, const char *path, int flags)
{
    const unsigned mode = 0;
    OPEN_BODY(TRACE_REAL(__openat_2), TRACE_FN_OPENAT, dirfd, dirfd, path, flags);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
    const unsigned mode = 0;
    OPEN_BODY(TRACE_REAL(__openat64_2), TRACE_FN_OPENAT, dirfd, dirfd, path, flags);
}

int creat(const char *path, mode_t m)
{
    const int flags = O_CREAT | O_WRONLY | O_TRUNC;
    const unsigned mode = m;
    OPEN_BODY(TRACE_REAL(creat), TRACE_FN_CREAT, AT_FDCWD, path, m);
}

int creat64(const char *path, mode_t m)
{
    const int flags = O_CREAT | O_WRONLY | O_TRUNC;
    const unsigned mode = m;
    OPEN_BODY(TRACE_REAL(creat64), TRACE_FN_CREAT, AT_FDCWD, path, m);
}

int close(int fd)
{
    if (trace_self.guard != 0) {
        trace_note_own_close(fd);
        return TRACE_REAL(close)(fd);
    }
    if (trace_own_fd(fd)) {
        return 0; /* the trace file stays open; the program goes on as if closed */
    }
    trace_call c;
    bool traced = trace_enter(&c);
    if (traced && fdtab_own(fd)) {
        trace_skip(&c);
        traced = false;
    }
    const char *path = fdtab_path(fd);
    const int r = TRACE_REAL(close)(fd);
    const int err = errno;
    if (r == 0) {
        fdtab_closed(fd);
    }
    if (traced) {
        trace_args a = {.n = 0};
        targ_int(&a, "fd", fd);
        targ_str(&a, "path", path);
        targ_result(&a, r, err);
        trace_leave(&c, TRACE_FN_CLOSE, &a);
    }
    errno = err;
    return r;
}
