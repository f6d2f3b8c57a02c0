/* SPDX-License-Identifier: MIT
 *
 * trace_fdcall.c - recording a call on a descriptor (trace_fdcall.h).
 * Layer: slog-trace preload library.
 */
#include "trace_fdcall.h"

#include "trace_fdtab.h"

static void opt_int(trace_args *a, const char *key, int64_t v)
{
    if (v != FD_NONE) {
        targ_int(a, key, v);
    }
}

void trace_fd_done(const trace_call *c, trace_fn fn, int fd, const fd_extra *x, int64_t ret,
                   int err)
{
    if (fdtab_own(fd)) {
        trace_skip(c);
        errno = err;
        return;
    }
    trace_args a = {.n = 0};
    targ_int(&a, "fd", fd);
    targ_str(&a, "path", fdtab_path(fd));
    opt_int(&a, "size", x->size);
    opt_int(&a, "count", x->count);
    opt_int(&a, "offset", x->offset);
    opt_int(&a, "whence", x->whence);
    targ_result(&a, ret, err);
    trace_leave(c, fn, &a);
    errno = err;
}
