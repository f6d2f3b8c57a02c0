/* SPDX-License-Identifier: MIT
 *
 * trace_posix_temp.c - wrappers of the mkstemp family (mkstemp, mkostemp,
 * mkstemps, mkostemps and their 64-bit names), recorded as "mkstemp".
 * The C library opens the file inside, past the open wrappers, so without
 * these its descriptor had no name: GNU sort's temporary files, 386 061
 * fwrites with path "" in one run.  After the call the template holds the
 * file's name, which names the descriptor and the record.
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#include <stdlib.h>

#include "trace_core.h"
#include "trace_fdtab.h"

/* The descriptor's name, then the record: path, flags (mkostemp's), ret. */
static int temp_done(const trace_call *c, bool traced, const char *template, int flags, int fd)
{
    const int err = errno;
    if (trace_self.guard == 0 && fd >= 0) {
        fdtab_opened(fd, template);
    }
    if (traced && trace_path_own(template)) {
        trace_skip(c);
    } else if (traced) {
        trace_args a = {.n = 0};
        targ_str(&a, "path", template);
        targ_int(&a, "flags", flags);
        targ_result(&a, fd, err);
        trace_leave(c, TRACE_FN_MKSTEMP, &a);
    }
    errno = err;
    return fd;
}

#define TEMP_BODY(real, template, flags, ...)                                                          \
    trace_call c;                                                                                  \
    const bool traced = trace_enter(&c);                                                           \
    const int fd_ = real(__VA_ARGS__);                                                             \
    return temp_done(&c, traced, template, flags, fd_)

int mkstemp(char *template)
{
    TEMP_BODY(TRACE_REAL(mkstemp), template, 0, template);
}

int mkstemp64(char *template)
{
    TEMP_BODY(TRACE_REAL(mkstemp64), template, 0, template);
}

int mkostemp(char *template, int flags)
{
    TEMP_BODY(TRACE_REAL(mkostemp), template, flags, template, flags);
}

int mkostemp64(char *template, int flags)
{
    TEMP_BODY(TRACE_REAL(mkostemp64), template, flags, template, flags);
}

int mkstemps(char *template, int suffixlen)
{
    TEMP_BODY(TRACE_REAL(mkstemps), template, 0, template, suffixlen);
}

int mkstemps64(char *template, int suffixlen)
{
    TEMP_BODY(TRACE_REAL(mkstemps64), template, 0, template, suffixlen);
}

int mkostemps(char *template, int suffixlen, int flags)
{
    TEMP_BODY(TRACE_REAL(mkostemps), template, flags, template, suffixlen, flags);
}

int mkostemps64(char *template, int suffixlen, int flags)
{
    TEMP_BODY(TRACE_REAL(mkostemps64), template, flags, template, suffixlen, flags);
}
