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

/* What an open asked for: category, dirfd (AT_FDCWD: none), path, flags
 * and mode. */
typedef struct open_call {
    trace_fn fn;
    int dirfd;
    const char *path;
    int flags;
    unsigned mode;
} open_call;

/* After an open returned fd: table, own-file note, record. */
static int opened(const trace_call *c, bool traced, const open_call *o, int fd)
{
    const int err = errno;
    if (trace_self.guard != 0) {
        trace_note_own_open(o->path, fd);
    } else {
        fdtab_opened(fd, o->path);
    }
    if (traced && trace_path_own(o->path)) {
        trace_skip(c);
    } else if (traced) {
        trace_args a = {.n = 0};
        targ_str(&a, "path", o->path);
        if (o->dirfd != AT_FDCWD) {
            targ_int(&a, "dirfd", o->dirfd);
        }
        targ_int(&a, "flags", o->flags);
        targ_uint(&a, "mode", o->mode);
        targ_result(&a, fd, err);
        trace_leave(c, o->fn, &a);
    }
    errno = err;
    return fd;
}

#define OPEN_BODY(real, fn, dirfd, path, flags, mode, ...)                                         \
    trace_call c;                                                                                  \
    const bool traced = trace_enter(&c);                                                           \
    const int fd_ = real(__VA_ARGS__);                                                             \
    return opened(&c, traced, &(const open_call){fn, dirfd, path, flags, mode}, fd_)

int open(const char *file, int oflag, ...)
{
    const unsigned mode = OPEN_MODE(oflag, oflag);
    OPEN_BODY(TRACE_REAL(open), TRACE_FN_OPEN, AT_FDCWD, file, oflag, mode, file, oflag, mode);
}

int open64(const char *file, int oflag, ...)
{
    const unsigned mode = OPEN_MODE(oflag, oflag);
    OPEN_BODY(TRACE_REAL(open64), TRACE_FN_OPEN, AT_FDCWD, file, oflag, mode, file, oflag, mode);
}

int __open_2(const char *path, int flags)
{
    OPEN_BODY(TRACE_REAL(__open_2), TRACE_FN_OPEN, AT_FDCWD, path, flags, 0u, path, flags);
}

int __open64_2(const char *path, int flags)
{
    OPEN_BODY(TRACE_REAL(__open64_2), TRACE_FN_OPEN, AT_FDCWD, path, flags, 0u, path, flags);
}

int openat(int fd, const char *file, int oflag, ...)
{
    const unsigned mode = OPEN_MODE(oflag, oflag);
    OPEN_BODY(TRACE_REAL(openat), TRACE_FN_OPENAT, fd, file, oflag, mode, fd, file, oflag, mode);
}

int openat64(int fd, const char *file, int oflag, ...)
{
    const unsigned mode = OPEN_MODE(oflag, oflag);
    OPEN_BODY(TRACE_REAL(openat64), TRACE_FN_OPENAT, fd, file, oflag, mode, fd, file, oflag, mode);
}

int __openat_2(int dirfd, const char *path, int flags)
{
    OPEN_BODY(TRACE_REAL(__openat_2), TRACE_FN_OPENAT, dirfd, path, flags, 0u, dirfd, path, flags);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
    OPEN_BODY(TRACE_REAL(__openat64_2), TRACE_FN_OPENAT, dirfd, path, flags, 0u, dirfd, path,
              flags);
}

#define CREAT_FLAGS (O_CREAT | O_WRONLY | O_TRUNC)

int creat(const char *file, mode_t mode)
{
    OPEN_BODY(TRACE_REAL(creat), TRACE_FN_CREAT, AT_FDCWD, file, CREAT_FLAGS, mode, file, mode);
}

int creat64(const char *file, mode_t mode)
{
    OPEN_BODY(TRACE_REAL(creat64), TRACE_FN_CREAT, AT_FDCWD, file, CREAT_FLAGS, mode, file, mode);
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
