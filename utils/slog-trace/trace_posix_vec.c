/* SPDX-License-Identifier: MIT
 *
 * trace_posix_vec.c - wrappers of the calls that move bytes through a
 * descriptor from or into several buffers: readv, writev, and preadv,
 * pwritev with their 64-bit and v2 (flags) entry points.  Each records fd,
 * file name, the bytes of all the buffers ("count"), the offset for the
 * p-calls (-1 for a v2 call at the current position, as the program gave
 * it) and the result ("ret", and "errno" on failure).
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
#include <sys/uio.h>

#include "trace_fdcall.h"

static int64_t iov_bytes(const struct iovec *iov, int n)
{
    uint64_t total = 0;
    for (int i = 0; i < n && iov != NULL; i++) {
        total += iov[i].iov_len;
    }
    return (int64_t)total;
}

#define VEC_BODY(real, fn, fd, iov, n, offset, ...)                                                \
    FD_CALL_BODY(ssize_t, real, fn, fd, FD_EXTRA(FD_NONE, iov_bytes(iov, n), offset, FD_NONE),     \
                 __VA_ARGS__)

ssize_t readv(int fd, const struct iovec *iovec, int count)
{
    VEC_BODY(TRACE_REAL(readv), TRACE_FN_READV, fd, iovec, count, FD_NONE, fd, iovec, count);
}

ssize_t writev(int fd, const struct iovec *iovec, int count)
{
    VEC_BODY(TRACE_REAL(writev), TRACE_FN_WRITEV, fd, iovec, count, FD_NONE, fd, iovec, count);
}

ssize_t preadv(int fd, const struct iovec *iovec, int count, off_t offset)
{
    VEC_BODY(TRACE_REAL(preadv), TRACE_FN_PREADV, fd, iovec, count, offset, fd, iovec, count,
             offset);
}

ssize_t preadv64(int fd, const struct iovec *iovec, int count, off64_t offset)
{
    VEC_BODY(TRACE_REAL(preadv64), TRACE_FN_PREADV, fd, iovec, count, offset, fd, iovec, count,
             offset);
}

ssize_t preadv2(int fp, const struct iovec *iovec, int count, off_t offset, int flags)
{
    VEC_BODY(TRACE_REAL(preadv2), TRACE_FN_PREADV, fp, iovec, count, offset, fp, iovec, count,
             offset, flags);
}

ssize_t preadv64v2(int fp, const struct iovec *iovec, int count, off64_t offset, int flags)
{
    VEC_BODY(TRACE_REAL(preadv64v2), TRACE_FN_PREADV, fp, iovec, count, offset, fp, iovec, count,
             offset, flags);
}

ssize_t pwritev(int fd, const struct iovec *iovec, int count, off_t offset)
{
    VEC_BODY(TRACE_REAL(pwritev), TRACE_FN_PWRITEV, fd, iovec, count, offset, fd, iovec, count,
             offset);
}

ssize_t pwritev64(int fd, const struct iovec *iovec, int count, off64_t offset)
{
    VEC_BODY(TRACE_REAL(pwritev64), TRACE_FN_PWRITEV, fd, iovec, count, offset, fd, iovec, count,
             offset);
}

ssize_t pwritev2(int fd, const struct iovec *iodev, int count, off_t offset, int flags)
{
    VEC_BODY(TRACE_REAL(pwritev2), TRACE_FN_PWRITEV, fd, iodev, count, offset, fd, iodev, count,
             offset, flags);
}

ssize_t pwritev64v2(int fd, const struct iovec *iodev, int count, off64_t offset, int flags)
{
    VEC_BODY(TRACE_REAL(pwritev64v2), TRACE_FN_PWRITEV, fd, iodev, count, offset, fd, iodev, count,
             offset, flags);
}
