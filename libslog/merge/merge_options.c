/* SPDX-License-Identifier: MIT
 *
 * merge_options.c - slog_merge_options: its _init and the struct_size rule
 * of slog_common.h (the rule api_options.c and import_options.c apply to
 * theirs): a caller's struct is read only up to the last member it wholly
 * holds, members it lacks take their defaults, and bytes of a newer caller
 * that this library does not know must be zero.  A table of the members'
 * end offsets, in declaration order (append-only, like the struct), says
 * which members a struct_size holds; a static assertion catches a table
 * that stops short.  The slog_writer_options the caller points to are
 * copied to set the output clock and creator and handed on with the
 * caller's struct_size whenever that covers both, so the writer applies
 * the rule to them itself (no second copy of the writer's table here).
 * Merge library: public libslog headers only.
 */
#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#include "merge_int.h"

#define END_OF(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))
#define OPTIONS_MAX_SIZE 4096u
#define KNOWN_FLAGS (SLOG_MERGE_ALLOW_INCOMPLETE | SLOG_MERGE_LABEL_ROOT)
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* NOLINTBEGIN(bugprone-sizeof-expression): the members are pointers, on purpose */
static const size_t merge_ends[] = {
    END_OF(slog_merge_options, struct_size), /* 0.3 */
    END_OF(slog_merge_options, flags),
    END_OF(slog_merge_options, labels),
    END_OF(slog_merge_options, offsets),
    END_OF(slog_merge_options, slice_ticks),
    END_OF(slog_merge_options, writer),
    END_OF(slog_merge_options, cancel),
    END_OF(slog_merge_options, progress),
    END_OF(slog_merge_options, user),
    END_OF(slog_merge_options, top_kind),
    END_OF(slog_merge_options, reserved),
    END_OF(slog_merge_options, links),
    END_OF(slog_merge_options, nlinks),
};
/* NOLINTEND(bugprone-sizeof-expression) */
_Static_assert(sizeof(slog_merge_options) - END_OF(slog_merge_options, nlinks) <
                   alignof(slog_merge_options),
               "a slog_merge_options member is missing from merge_ends");

void slog_merge_options_init(slog_merge_options *opts)
{
    const slog_merge_options init = SLOG_MERGE_OPTIONS_INIT;
    *opts = init;
}

/* The caller's struct_size n of a struct of this library's size: 1..3 and
 * above 4096 are refused, and so are non-zero bytes past our struct. */
static int check_size(const void *src, uint32_t n, size_t size, const char *name, slog_error *err)
{
    if ((n > 0 && n < sizeof n) || n > OPTIONS_MAX_SIZE) {
        return merge_err(err, SLOG_EINVAL, "", "Invalid %s: struct_size %u", name, n);
    }
    const unsigned char *const bytes = src;
    for (size_t i = size; i < n; i++) {
        if (bytes[i] != 0) {
            return merge_err(err, SLOG_EINVAL, "",
                             "Invalid %s: struct_size %u sets members this library does not know",
                             name, n);
        }
    }
    return SLOG_OK;
}

/* The members of src (NULL: none) that its struct_size wholly holds. */
static int copy_known(slog_merge_options *dst, const slog_merge_options *src, slog_error *err)
{
    memset(dst, 0, sizeof *dst);
    const uint32_t n = src != NULL ? src->struct_size : 0;
    const int rc = check_size(src, n, sizeof *dst, "slog_merge_options", err);
    size_t known = 0;
    for (size_t i = 0; rc == SLOG_OK && i < COUNT(merge_ends); i++) {
        known = merge_ends[i] <= n ? merge_ends[i] : known;
    }
    if (known > 0) {
        memcpy(dst, src, known);
    }
    dst->struct_size = (uint32_t)sizeof *dst;
    return rc;
}

/* The caller's writer options (NULL: defaults) with room for the output
 * clock and creator.  ticks_per_second and creator are members since 0.1,
 * after four 4-byte members: a struct_size that holds them is handed on
 * (the writer rounds it down itself); a smaller one is cut to whole 4-byte
 * members and the rest takes the defaults (zeros). */
static int copy_writer(slog_writer_options *dst, const slog_writer_options *src, slog_error *err)
{
    memset(dst, 0, sizeof *dst);
    const uint32_t n = src != NULL ? src->struct_size : 0;
    const int rc = check_size(src, n, sizeof *dst, "slog_writer_options", err);
    const size_t both = END_OF(slog_writer_options, creator);
    const size_t copy = n >= sizeof *dst ? sizeof *dst : n >= both ? n : n & ~(size_t)3;
    if (rc == SLOG_OK && copy > 0) {
        memcpy(dst, src, copy);
    }
    dst->struct_size = n >= both && n < sizeof *dst ? n : (uint32_t)sizeof *dst;
    return rc;
}

int merge_options_load(merge_opts *dst, const slog_merge_options *opts, slog_error *err)
{
    int rc = copy_known(&dst->o, opts, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    const slog_merge_options *const o = &dst->o;
    if ((o->flags & ~KNOWN_FLAGS) != 0) {
        return merge_err(err, SLOG_EINVAL, "", "Invalid slog_merge_options.flags: 0x%x unknown",
                         o->flags & ~KNOWN_FLAGS);
    }
    if (o->nlinks > 0 && o->links == NULL) {
        return merge_err(err, SLOG_EINVAL, "", "Invalid slog_merge_options: %zu links, no array",
                         o->nlinks);
    }
    if (o->reserved != 0 || o->slice_ticks < 0 || o->top_kind > SLOG_TIMELINE_RANK) {
        return merge_err(err, SLOG_EINVAL, "",
                         "Invalid slog_merge_options: reserved %u, slice_ticks %lld, top_kind %u",
                         o->reserved, (long long)o->slice_ticks, o->top_kind);
    }
    rc = copy_writer(&dst->wo, o->writer, err);
    if (rc == SLOG_OK && dst->wo.creator == NULL) {
        dst->wo.creator = "slog-merge " SLOG_VERSION_STRING;
    }
    return rc;
}
