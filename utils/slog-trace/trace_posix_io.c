/* SPDX-License-Identifier: MIT
 *
 * trace_posix_io.c - wrappers of the calls that move bytes through a
 * descriptor: read, write, pread, pwrite (with 64-bit and fortified entry
 * points), lseek, fsync, fdatasync, ftruncate (readv, writev and the
 * preadv/pwritev family: trace_posix_vec.c).  Each records fd, file name,
 * the bytes asked for ("count"), the result ("ret", and "errno" on
 * failure) and, where the call has one, the offset.
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
#include <unistd.h>

#include "trace_fdcall.h"
#include "trace_fortify.h"

#define BYTES(n) FD_EXTRA(FD_NONE, n, FD_NONE, FD_NONE)
#define BYTES_AT(n, off) FD_EXTRA(FD_NONE, n, off, FD_NONE)
#define NOTHING FD_EXTRA(FD_NONE, FD_NONE, FD_NONE, FD_NONE)

ssize_t read(int fd, void *buf, size_t nbytes)
{
    FD_CALL_BODY(ssize_t, TRACE_REAL(read), TRACE_FN_READ, fd, BYTES(nbytes), fd, buf, nbytes);
}

ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen)
{
    FD_CALL_BODY(ssize_t, TRACE_REAL(__read_chk), TRACE_FN_READ, fd, BYTES(nbytes), fd, buf, nbytes,
                 buflen);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    FD_CALL_BODY(ssize_t, TRACE_REAL(write), TRACE_FN_WRITE, fd, BYTES(n), fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t nbytes, off_t offset)
{
    FD_CALL_BODY(ssize_t, TRACE_REAL(pread), TRACE_FN_PREAD, fd, BYTES_AT(nbytes, offset), fd, buf,
                 nbytes, offset);
}

ssize_t pread64(int fd, void *buf, size_t nbytes, off64_t offset)
{
    FD_CALL_BODY(ssize_t, TRACE_REAL(pread64), TRACE_FN_PREAD, fd, BYTES_AT(nbytes, offset), fd,
                 buf, nbytes, offset);
}

ssize_t __pread_chk(int fd, void *buf, size_t nbytes, off_t offset, size_t buflen)
{
    FD_CALL_BODY(ssize_t, TRACE_REAL(__pread_chk), TRACE_FN_PREAD, fd, BYTES_AT(nbytes, offset),
                 fd, buf, nbytes, offset, buflen);
}

ssize_t __pread64_chk(int fd, void *buf, size_t nbytes, off64_t offset, size_t buflen)
{
    FD_CALL_BODY(ssize_t, TRACE_REAL(__pread64_chk), TRACE_FN_PREAD, fd, BYTES_AT(nbytes, offset),
                 fd, buf, nbytes, offset, buflen);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset)
{
    FD_CALL_BODY(ssize_t, TRACE_REAL(pwrite), TRACE_FN_PWRITE, fd, BYTES_AT(n, offset), fd, buf, n,
                 offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t offset)
{
    FD_CALL_BODY(ssize_t, TRACE_REAL(pwrite64), TRACE_FN_PWRITE, fd, BYTES_AT(n, offset), fd, buf,
                 n, offset);
}

off_t lseek(int fd, off_t offset, int whence)
{
    FD_CALL_BODY(off_t, TRACE_REAL(lseek), TRACE_FN_LSEEK, fd,
                 FD_EXTRA(FD_NONE, FD_NONE, offset, whence), fd, offset, whence);
}

off64_t lseek64(int fd, off64_t offset, int whence)
{
    FD_CALL_BODY(off64_t, TRACE_REAL(lseek64), TRACE_FN_LSEEK, fd,
                 FD_EXTRA(FD_NONE, FD_NONE, offset, whence), fd, offset, whence);
}

int fsync(int fd)
{
    FD_CALL_BODY(int, TRACE_REAL(fsync), TRACE_FN_FSYNC, fd, NOTHING, fd);
}

int fdatasync(int fildes)
{
    FD_CALL_BODY(int, TRACE_REAL(fdatasync), TRACE_FN_FDATASYNC, fildes, NOTHING, fildes);
}

int ftruncate(int fd, off_t length)
{
    FD_CALL_BODY(int, TRACE_REAL(ftruncate), TRACE_FN_FTRUNCATE, fd, BYTES(length), fd, length);
}

int ftruncate64(int fd, off64_t length)
{
    FD_CALL_BODY(int, TRACE_REAL(ftruncate64), TRACE_FN_FTRUNCATE, fd, BYTES(length), fd, length);
}
