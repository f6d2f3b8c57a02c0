/* SPDX-License-Identifier: MIT
 *
 * trace_posix_name.c - wrappers of the calls that remove or rename a file
 * by name relative to a directory descriptor: unlinkat (what rm and find
 * -delete call; AT_REMOVEDIR makes it an rmdir) and the rename family
 * (rename, renameat, renameat2: what mv, Python's os.replace and a
 * checkpoint's write-then-rename call), recorded as "rename" with both
 * names.  A dirfd of AT_FDCWD is left out, as fstatat's is.
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "trace_core.h"
#include "trace_fdtab.h"

/* Where a rename takes a file from and to. */
typedef struct rename_call {
    int olddirfd;
    const char *oldpath;
    int newdirfd;
    const char *newpath;
    unsigned flags;
} rename_call;

static void rename_done(const trace_call *c, const rename_call *n, int r, int err)
{
    if (trace_path_own(n->oldpath) || trace_path_own(n->newpath)) {
        trace_skip(c);
        errno = err;
        return;
    }
    trace_args a = {.n = 0};
    if (n->olddirfd != AT_FDCWD) {
        targ_int(&a, "dirfd", n->olddirfd);
    }
    targ_str(&a, "path", n->oldpath);
    if (n->newdirfd != AT_FDCWD) {
        targ_int(&a, "newdirfd", n->newdirfd);
    }
    targ_str(&a, "newpath", n->newpath);
    if (n->flags != 0) {
        targ_int(&a, "flags", n->flags);
    }
    targ_result(&a, r, err);
    trace_leave(c, TRACE_FN_RENAME, &a);
    errno = err;
}

#define RENAME_BODY(real, od, op, nd, np, fl, ...)                                                 \
    trace_call c;                                                                                  \
    if (!trace_enter(&c)) {                                                                        \
        return real(__VA_ARGS__);                                                                  \
    }                                                                                              \
    const int r = real(__VA_ARGS__);                                                               \
    rename_done(&c, &(const rename_call){od, op, nd, np, fl}, r, errno);                           \
    return r

int rename(const char *old, const char *new)
{
    RENAME_BODY(TRACE_REAL(rename), AT_FDCWD, old, AT_FDCWD, new, 0, old, new);
}

int renameat(int oldfd, const char *old, int newfd, const char *new)
{
    RENAME_BODY(TRACE_REAL(renameat), oldfd, old, newfd, new, 0, oldfd, old, newfd, new);
}

int renameat2(int oldfd, const char *old, int newfd, const char *new, unsigned int flags)
{
    RENAME_BODY(TRACE_REAL(renameat2), oldfd, old, newfd, new, flags, oldfd, old, newfd, new,
                flags);
}

/* unlinkat: dirfd (unless AT_FDCWD), path, flags (AT_REMOVEDIR), ret. */
int unlinkat(int fd, const char *name, int flag)
{
    trace_call c;
    if (!trace_enter(&c)) {
        return TRACE_REAL(unlinkat)(fd, name, flag);
    }
    const int r = TRACE_REAL(unlinkat)(fd, name, flag);
    const int err = errno;
    if (trace_path_own(name)) {
        trace_skip(&c);
        errno = err;
        return r;
    }
    trace_args a = {.n = 0};
    if (fd != AT_FDCWD) {
        targ_int(&a, "dirfd", fd);
    }
    targ_str(&a, "path", name);
    targ_int(&a, "flags", flag);
    targ_result(&a, r, err);
    trace_leave(&c, TRACE_FN_UNLINKAT, &a);
    errno = err;
    return r;
}
