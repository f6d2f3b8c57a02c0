/* SPDX-License-Identifier: MIT
 *
 * trace_posix_meta.c - wrappers of the calls about files rather than their
 * bytes: the stat family (stat, lstat, fstat, fstatat with their 64-bit
 * names, statx), memory maps (mmap, munmap, msync), descriptor copies
 * (dup, dup2, dup3 and, kept in the table but not recorded, fcntl's
 * F_DUPFD and F_DUPFD_CLOEXEC: the copy keeps the file name) and unlink.
 * dup2 and dup3 onto one of the tracer's own descriptors are refused with
 * EBADF: HDF5 holds that number and would write the program's file.
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_core.h"
#include "trace_fdtab.h"

/* A call on a path (dirfd AT_FDCWD: none) or on an fd (path NULL). */
static void meta_done(const trace_call *c, trace_fn fn, int fd, const char *path, int64_t r,
                      int err)
{
    if (path != NULL ? trace_path_own(path) : fdtab_own(fd)) {
        trace_skip(c);
        return;
    }
    trace_args a = {.n = 0};
    if (path == NULL) {
        targ_int(&a, "fd", fd);
        path = fdtab_path(fd);
    } else if (fd != AT_FDCWD) {
        targ_int(&a, "dirfd", fd);
    }
    targ_str(&a, "path", path);
    targ_result(&a, r, err);
    trace_leave(c, fn, &a);
    errno = err;
}

#define META_BODY(real, fn, fd, path, ...)                                                         \
    trace_call c;                                                                                  \
    if (!trace_enter(&c)) {                                                                        \
        return real(__VA_ARGS__);                                                                  \
    }                                                                                              \
    const int r = real(__VA_ARGS__);                                                               \
    meta_done(&c, fn, fd, path, r, errno);                                                         \
    return r

int stat(const char *file, struct stat *buf)
{
    META_BODY(TRACE_REAL(stat), TRACE_FN_STAT, AT_FDCWD, file, file, buf);
}

int stat64(const char *file, struct stat64 *buf)
{
    META_BODY(TRACE_REAL(stat64), TRACE_FN_STAT, AT_FDCWD, file, file, buf);
}

int lstat(const char *file, struct stat *buf)
{
    META_BODY(TRACE_REAL(lstat), TRACE_FN_LSTAT, AT_FDCWD, file, file, buf);
}

int lstat64(const char *file, struct stat64 *buf)
{
    META_BODY(TRACE_REAL(lstat64), TRACE_FN_LSTAT, AT_FDCWD, file, file, buf);
}

int fstat(int fd, struct stat *buf)
{
    META_BODY(TRACE_REAL(fstat), TRACE_FN_FSTAT, fd, NULL, fd, buf);
}

int fstat64(int fd, struct stat64 *buf)
{
    META_BODY(TRACE_REAL(fstat64), TRACE_FN_FSTAT, fd, NULL, fd, buf);
}

int fstatat(int fd, const char *file, struct stat *buf, int flag)
{
    META_BODY(TRACE_REAL(fstatat), TRACE_FN_FSTATAT, fd, file, fd, file, buf, flag);
}

int fstatat64(int fd, const char *file, struct stat64 *buf, int flag)
{
    META_BODY(TRACE_REAL(fstatat64), TRACE_FN_FSTATAT, fd, file, fd, file, buf, flag);
}

int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *buf)
{
    META_BODY(TRACE_REAL(statx), TRACE_FN_STATX, dirfd, path, dirfd, path, flags, mask, buf);
}

int unlink(const char *name)
{
    META_BODY(TRACE_REAL(unlink), TRACE_FN_UNLINK, AT_FDCWD, name, name);
}

/* What an mmap asked for (fd < 0: an anonymous map). */
typedef struct mmap_call {
    size_t len;
    int prot;
    int flags;
    int fd;
    int64_t offset;
} mmap_call;

/* mmap: fd and file (none for anonymous maps), length, offset, prot, flags. */
static void mmap_done(const trace_call *c, const mmap_call *m, const void *r, int err)
{
    if (m->fd >= 0 && fdtab_own(m->fd)) {
        trace_skip(c);
        return;
    }
    trace_args a = {.n = 0};
    targ_int(&a, "fd", m->fd);
    targ_str(&a, "path", m->fd >= 0 ? fdtab_path(m->fd) : "");
    targ_uint(&a, "length", m->len);
    targ_int(&a, "offset", m->offset);
    targ_int(&a, "prot", m->prot);
    targ_int(&a, "flags", m->flags);
    targ_result(&a, r == MAP_FAILED ? -1 : 0, err);
    trace_leave(c, TRACE_FN_MMAP, &a);
    errno = err;
}

#define MMAP_BODY(real)                                                                            \
    trace_call c;                                                                                  \
    if (!trace_enter(&c)) {                                                                        \
        return real(addr, len, prot, flags, fd, offset);                                           \
    }                                                                                              \
    void *r = real(addr, len, prot, flags, fd, offset);                                            \
    mmap_done(&c, &(const mmap_call){len, prot, flags, fd, offset}, r, errno);                     \
    return r

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
    MMAP_BODY(TRACE_REAL(mmap));
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t offset)
{
    MMAP_BODY(TRACE_REAL(mmap64));
}

/* munmap, msync: the length and the result. */
static void unmap_done(const trace_call *c, trace_fn fn, size_t len, int r, int err)
{
    trace_args a = {.n = 0};
    targ_uint(&a, "length", len);
    targ_result(&a, r, err);
    trace_leave(c, fn, &a);
    errno = err;
}

#define UNMAP_BODY(real, fn, ...)                                                                  \
    trace_call c;                                                                                  \
    if (!trace_enter(&c)) {                                                                        \
        return real(__VA_ARGS__);                                                                  \
    }                                                                                              \
    const int r = real(__VA_ARGS__);                                                               \
    unmap_done(&c, fn, len, r, errno);                                                             \
    return r

int munmap(void *addr, size_t len)
{
    UNMAP_BODY(TRACE_REAL(munmap), TRACE_FN_MUNMAP, addr, len);
}

int msync(void *addr, size_t len, int flags)
{
    UNMAP_BODY(TRACE_REAL(msync), TRACE_FN_MSYNC, addr, len, flags);
}

/* dup family: the new descriptor names the old one's file. */
static int dup_done(const trace_call *c, bool traced, trace_fn fn, int oldfd, int r)
{
    const int err = errno;
    if (r >= 0 && trace_self.guard == 0) {
        fdtab_dup(oldfd, r);
    }
    if (traced) {
        trace_args a = {.n = 0};
        targ_int(&a, "fd", oldfd);
        targ_str(&a, "path", fdtab_path(oldfd));
        targ_result(&a, r, err);
        trace_leave(c, fn, &a);
    }
    errno = err;
    return r;
}

int dup(int fd)
{
    trace_call c;
    const bool traced = trace_enter(&c);
    return dup_done(&c, traced, TRACE_FN_DUP, fd, TRACE_REAL(dup)(fd));
}

/* True (errno EBADF, said once) when the program's dup2/dup3 would replace
 * one of the tracer's descriptors. */
static bool onto_tracer(const char *call, int fd, int fd2)
{
    if (trace_self.guard != 0 || fd == fd2 || !fdtab_tracer(fd2)) {
        return false;
    }
    trace_refused_own(call, fd2);
    errno = EBADF;
    return true;
}

int dup2(int fd, int fd2)
{
    trace_call c;
    const bool traced = trace_enter(&c);
    const int r = onto_tracer("dup2", fd, fd2) ? -1 : TRACE_REAL(dup2)(fd, fd2);
    return dup_done(&c, traced, TRACE_FN_DUP2, fd, r);
}

int dup3(int fd, int fd2, int flags)
{
    trace_call c;
    const bool traced = trace_enter(&c);
    const int r = onto_tracer("dup3", fd, fd2) ? -1 : TRACE_REAL(dup3)(fd, fd2, flags);
    return dup_done(&c, traced, TRACE_FN_DUP3, fd, r);
}

/* fcntl: a F_DUPFD copy keeps the file name.  The third argument is taken
 * as a pointer whatever cmd is, as the C library's own fcntl does. */
static int fcntl_done(int fd, int cmd, int r)
{
    if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && trace_self.guard == 0) {
        const int err = errno;
        fdtab_dup(fd, r);
        errno = err;
    }
    return r;
}

#define FCNTL_ARG(cmd)                                                                             \
    __extension__({                                                                                \
        va_list ap_;                                                                               \
        va_start(ap_, cmd);                                                                        \
        void *a_ = va_arg(ap_, void *);                                                            \
        va_end(ap_);                                                                               \
        a_;                                                                                        \
    })

int fcntl(int fd, int cmd, ...)
{
    void *const arg = FCNTL_ARG(cmd);
    return fcntl_done(fd, cmd, TRACE_REAL(fcntl)(fd, cmd, arg));
}

int fcntl64(int fd, int cmd, ...)
{
    void *const arg = FCNTL_ARG(cmd);
    return fcntl_done(fd, cmd, TRACE_REAL(fcntl64)(fd, cmd, arg));
}
