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
static int temp_done(const trace_call *c, bool traced, const char *tmpl, int flags, int fd)
{
    const int err = errno;
    if (trace_self.guard == 0 && fd >= 0) {
        fdtab_opened(fd, tmpl);
    }
    if (traced && trace_path_own(tmpl)) {
        trace_skip(c);
    } else if (traced) {
        trace_args a = {.n = 0};
        targ_str(&a, "path", tmpl);
        targ_int(&a, "flags", flags);
        targ_result(&a, fd, err);
        trace_leave(c, TRACE_FN_MKSTEMP, &a);
    }
    errno = err;
    return fd;
}

#define TEMP_BODY(real, tmpl, flags, ...)                                                          \
    trace_call c;                                                                                  \
    const bool traced = trace_enter(&c);                                                           \
    const int fd_ = real(__VA_ARGS__);                                                             \
    return temp_done(&c, traced, tmpl, flags, fd_)

int mkstemp(char *tmpl)
{
    TEMP_BODY(TRACE_REAL(mkstemp), tmpl, 0, tmpl);
}

int mkstemp64(char *tmpl)
{
    TEMP_BODY(TRACE_REAL(mkstemp64), tmpl, 0, tmpl);
}

int mkostemp(char *tmpl, int flags)
{
    TEMP_BODY(TRACE_REAL(mkostemp), tmpl, flags, tmpl, flags);
}

int mkostemp64(char *tmpl, int flags)
{
    TEMP_BODY(TRACE_REAL(mkostemp64), tmpl, flags, tmpl, flags);
}

int mkstemps(char *tmpl, int suffixlen)
{
    TEMP_BODY(TRACE_REAL(mkstemps), tmpl, 0, tmpl, suffixlen);
}

int mkstemps64(char *tmpl, int suffixlen)
{
    TEMP_BODY(TRACE_REAL(mkstemps64), tmpl, 0, tmpl, suffixlen);
}

int mkostemps(char *tmpl, int suffixlen, int flags)
{
    TEMP_BODY(TRACE_REAL(mkostemps), tmpl, flags, tmpl, suffixlen, flags);
}

int mkostemps64(char *tmpl, int suffixlen, int flags)
{
    TEMP_BODY(TRACE_REAL(mkostemps64), tmpl, flags, tmpl, suffixlen, flags);
}
