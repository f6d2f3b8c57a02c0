/* SPDX-License-Identifier: MIT
 *
 * trace_posix_copy.c - wrappers of the calls that move bytes from one
 * descriptor to another inside the kernel: copy_file_range (GNU cp and
 * cat copy files with it, so without it their trace shows opens and no
 * data) and sendfile, sendfile64.  Recorded with both descriptors, their
 * paths, the bytes asked for and the result (the bytes moved).
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#include <sys/sendfile.h>
#include <unistd.h>

#include "trace_core.h"
#include "trace_fdtab.h"

/* Record a copy of count bytes from in to out that returned r. */
static ssize_t
copied(const trace_call *c, bool traced, trace_fn fn, const int fds[2], size_t count, ssize_t r)
{
    const int err = errno;
    if (traced) {
        trace_args a = {.n = 0};
        targ_int(&a, "fd_in", fds[0]);
        targ_str(&a, "path_in", fdtab_path(fds[0]));
        targ_int(&a, "fd_out", fds[1]);
        targ_str(&a, "path_out", fdtab_path(fds[1]));
        targ_uint(&a, "count", count);
        targ_result(&a, r, err);
        trace_leave(c, fn, &a);
    }
    errno = err;
    return r;
}

#define COPY_BODY(fn, fd_in, fd_out, count, real, ...)                                             \
    trace_call c;                                                                                  \
    const bool traced = trace_enter(&c);                                                           \
    const ssize_t r = real(__VA_ARGS__);                                                           \
    return copied(&c, traced, fn, (const int[2]){fd_in, fd_out}, count, r)

ssize_t copy_file_range(
    int infd, off64_t *pinoff, int outfd, off64_t *poutoff, size_t length, unsigned int flags)
{
    COPY_BODY(TRACE_FN_COPY_FILE_RANGE, infd, outfd, length, TRACE_REAL(copy_file_range), infd,
              pinoff, outfd, poutoff, length, flags);
}

ssize_t sendfile(int out_fd, int in_fd, off_t *offset, size_t count)
{
    COPY_BODY(TRACE_FN_SENDFILE, in_fd, out_fd, count, TRACE_REAL(sendfile), out_fd, in_fd, offset,
              count);
}

ssize_t sendfile64(int out_fd, int in_fd, off64_t *offset, size_t count)
{
    COPY_BODY(TRACE_FN_SENDFILE, in_fd, out_fd, count, TRACE_REAL(sendfile64), out_fd, in_fd,
              offset, count);
}
