/* SPDX-License-Identifier: MIT
 *
 * trace_posix_open.c - wrappers of the calls that open and close file
 * descriptors: open, openat, creat with their 64-bit and fortified
 * (__open_2...) entry points, close, and (kept in the table, not
 * recorded) close_range and closefrom.  Each keeps the descriptor table
 * (trace_fdtab.h) current, also when the call is not recorded, and
 * records path, flags, mode and the result.  A descriptor the tracer
 * itself opens (under the guard: its writer's, HDF5's) is moved above the
 * program's range, made close-on-exec and marked as the tracer's, so the
 * program's fd numbers are those of an untraced run, no exec'd program
 * inherits it, a fork child can cut it off (trace_process.c), and the
 * program's close, close_range and closefrom pass over it.
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/resource.h>
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

/* The lowest number for the tracer's descriptors: 64 below the soft
 * RLIMIT_NOFILE, capped at 1024 (the kernel sizes a process's descriptor
 * table by its highest fd, and fork copies it); half the limit when that
 * is below 128 (the program then has few to spare either way). */
static int own_fd_base(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        return -1;
    }
    const rlim_t lim = rl.rlim_cur < 1024 ? rl.rlim_cur : 1024;
    return lim >= 128 ? (int)(lim - 64) : (int)(lim / 2);
}

/* fd, opened by the tracer itself: moved up to own_fd_base or above when
 * there is room (else left where it is), close-on-exec, marked as the
 * tracer's.  Returns the descriptor to use. */
static int own_opened(int fd)
{
    const int base = own_fd_base();
    const int high = fd < base ? TRACE_REAL(fcntl)(fd, F_DUPFD_CLOEXEC, base) : -1;
    if (high >= 0) {
        (void)TRACE_REAL(close)(fd);
        fd = high;
    } else {
        (void)TRACE_REAL(fcntl)(fd, F_SETFD, FD_CLOEXEC);
    }
    fdtab_tracer_add(fd);
    return fd;
}

/* After an open returned fd: table, the tracer's own, record. */
static int opened(const trace_call *c, bool traced, const open_call *o, int fd)
{
    const int err = errno;
    if (trace_self.guard != 0 && fd >= 0) {
        fd = own_opened(fd);
    } else if (trace_self.guard == 0) {
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
        fdtab_tracer_remove(fd);
        return TRACE_REAL(close)(fd);
    }
    if (fdtab_tracer(fd)) {
        return 0; /* the trace file stays open; the program goes on as if closed */
    }
    trace_call c;
    bool traced = trace_enter(&c);
    if (traced && fdtab_own(fd)) {
        trace_skip(&c);
        traced = false;
    }
    /* The name goes first: once closed, the number may be another thread's.
     * A failed close leaves it nameless too (EBADF: it was not open; Linux
     * releases the number on EINTR and EIO). */
    const char *path = fdtab_closing(fd);
    const int r = TRACE_REAL(close)(fd);
    const int err = errno;
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

/* close_range over [lo, hi], none of it the tracer's: the names go. */
static int close_span(unsigned lo, unsigned hi, int flags)
{
    const int r = TRACE_REAL(close_range)(lo, hi, flags);
    if (r == 0 && ((unsigned)flags & CLOSE_RANGE_CLOEXEC) == 0) {
        fdtab_closed_range(lo, hi);
    }
    return r;
}

/* close_range and closefrom close the spans between the tracer's fds. */
int close_range(unsigned fd, unsigned max_fd, int flags)
{
    if (trace_self.guard != 0 || fd > max_fd) {
        return TRACE_REAL(close_range)(fd, max_fd, flags);
    }
    for (unsigned from = fd;;) {
        const int own = fdtab_tracer_next(from, max_fd);
        if (own < 0) {
            return close_span(from, max_fd, flags);
        }
        if ((unsigned)own > from && close_span(from, (unsigned)own - 1, flags) != 0) {
            return -1;
        }
        if ((unsigned)own == max_fd) {
            return 0;
        }
        from = (unsigned)own + 1;
    }
}

/* Close [lo, hi], none of it the tracer's: close_range, else one by one. */
static void close_each(unsigned lo, unsigned hi)
{
    if (close_span(lo, hi, 0) != 0) {
        int (*const real_close)(int) = TRACE_REAL(close);
        for (unsigned fd = lo; fd <= hi; fd++) {
            (void)real_close((int)fd);
        }
        fdtab_closed_range(lo, hi);
    }
}

void closefrom(int lowfd)
{
    unsigned from = lowfd > 0 ? (unsigned)lowfd : 0;
    int own = -1;
    while (trace_self.guard == 0 && (own = fdtab_tracer_next(from, UINT_MAX)) >= 0) {
        if ((unsigned)own > from) {
            close_each(from, (unsigned)own - 1);
        }
        from = (unsigned)own + 1;
    }
    TRACE_REAL(closefrom)((int)from);
    if (trace_self.guard == 0) {
        fdtab_closed_range(from, UINT_MAX);
    }
}
