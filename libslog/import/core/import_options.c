/* SPDX-License-Identifier: MIT
 *
 * import_options.c - slog_import_options: its _init and the struct_size rule
 * of slog_common.h (as libslog's api_options.c applies it to its own
 * structs): a caller's struct is read only up to the last member it wholly
 * holds, members it lacks take their defaults, and bytes of a newer caller
 * this library does not know must be zero.  Defaults are filled in here, so
 * importers read plain values.
 * Import library, core: public libslog headers only.
 */
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "import_run.h"
#include "import_main.h"

#define END_OF(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))
#define OPTIONS_MAX_SIZE 4096u
#define DEFS_TIMEOUT_MS_DEFAULT 60000u
#define RECORDER_MERGE_BYTES_DEFAULT ((uint64_t)1 << 30)
#define KNOWN_FLAGS                                                                                \
    (SLOG_IMPORT_NO_REORDER | SLOG_IMPORT_NO_FAST_SCAN | SLOG_IMPORT_RECORDER_RAW |                \
     SLOG_IMPORT_RECORDER_STREAM | SLOG_IMPORT_OTF2_ONE_THREAD)

/* NOLINTBEGIN(bugprone-sizeof-expression): the members are pointers, on purpose */
static const size_t import_ends[] = {
    END_OF(slog_import_options, struct_size), /* 0.3 */
    END_OF(slog_import_options, flags),
    END_OF(slog_import_options, format),
    END_OF(slog_import_options, sort_window),
    END_OF(slog_import_options, time_unit),
    END_OF(slog_import_options, otf2_definitions_timeout_ms),
    END_OF(slog_import_options, recorder_merge_bytes),
    END_OF(slog_import_options, cancel),
    END_OF(slog_import_options, writer),
    END_OF(slog_import_options, progress),
    END_OF(slog_import_options, diagnostic),
    END_OF(slog_import_options, count),
    END_OF(slog_import_options, user),
};
/* NOLINTEND(bugprone-sizeof-expression) */
_Static_assert(sizeof(slog_import_options) - END_OF(slog_import_options, user) <
                   alignof(slog_import_options),
               "a slog_import_options member is missing from import_ends");

void slog_import_options_init(slog_import_options *opts)
{
    const slog_import_options init = SLOG_IMPORT_OPTIONS_INIT;
    *opts = init;
}

static int invalid(slog_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int invalid(slog_error *err, const char *fmt, ...)
{
    if (err != NULL) {
        memset(err, 0, sizeof *err);
        err->code = SLOG_EINVAL;
        err->offset = UINT64_MAX;
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return SLOG_EINVAL;
}

/* Copy the members the caller's struct_size wholly holds. */
static int copy_known(slog_import_options *dst, const slog_import_options *src, slog_error *err)
{
    uint32_t n = 0;
    if (src != NULL) {
        memcpy(&n, src, sizeof n);
    }
    if (n > 0 && n < sizeof n) {
        return invalid(err, "Invalid slog_import_options: struct_size %u is too small", n);
    }
    if (n > OPTIONS_MAX_SIZE) {
        return invalid(err, "Invalid slog_import_options: struct_size %u is too large", n);
    }
    const unsigned char *const bytes = (const unsigned char *)src;
    for (size_t i = sizeof *dst; i < n; i++) {
        if (bytes[i] != 0) {
            return invalid(err, "Invalid slog_import_options: struct_size %u sets members "
                                "this library does not know", n);
        }
    }
    size_t known = 0;
    for (size_t i = 0; i < sizeof import_ends / sizeof import_ends[0]; i++) {
        known = import_ends[i] <= n ? import_ends[i] : known;
    }
    if (src != NULL) {
        memcpy(dst, src, known);
    }
    dst->struct_size = (uint32_t)sizeof *dst;
    return SLOG_OK;
}

int import_options_load(slog_import_options *dst, const slog_import_options *src,
                        slog_error *err)
{
    memset(dst, 0, sizeof *dst);
    const int rc = copy_known(dst, src, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if ((dst->flags & ~KNOWN_FLAGS) != 0) {
        return invalid(err, "Invalid slog_import_options.flags: 0x%x unknown",
                       dst->flags & ~KNOWN_FLAGS);
    }
    if (dst->time_unit > SLOG_IMPORT_TIME_S) {
        return invalid(err, "Invalid slog_import_options.time_unit %u", dst->time_unit);
    }
    if (dst->sort_window == 0) {
        dst->sort_window = IMPORT_SORT_WINDOW_DEFAULT;
    }
    if (dst->flags & SLOG_IMPORT_NO_REORDER) {
        dst->sort_window = 0;
    }
    if (dst->otf2_definitions_timeout_ms == 0) {
        dst->otf2_definitions_timeout_ms = DEFS_TIMEOUT_MS_DEFAULT;
    }
    if (dst->recorder_merge_bytes == 0) {
        dst->recorder_merge_bytes = RECORDER_MERGE_BYTES_DEFAULT;
    }
    if (dst->flags & SLOG_IMPORT_RECORDER_STREAM) {
        dst->recorder_merge_bytes = 0;
    }
    return SLOG_OK;
}
