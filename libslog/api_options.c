/* SPDX-License-Identifier: MIT
 *
 * api_options.c - struct_size versioning of the public options structs and
 * their *_options_init functions.  Each struct has a table of the end
 * offsets of its members, in declaration order (append-only, like the
 * struct): a caller's struct_size is rounded down to the end of the last
 * member it wholly holds, so an older caller's struct is read only as far as
 * it goes and the members it lacks take their defaults.
 * Adding a member to a public options struct means adding it to its table;
 * the static assertions catch a table that stops short of the struct.
 * Layer 5: api.
 */
#include "api_options.h"

#include "util_error.h"

#include <assert.h>
#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#define END_OF(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))
/* END_OF for a member that points to a struct, its type given (clang-tidy's
 * bugprone-sizeof-expression takes sizeof of such a member for a mistake) */
#define END_OF_PTR(type, member, ptype) (offsetof(type, member) + sizeof(ptype))
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct options_layout {
    const char *name;
    size_t size;        /* the library's sizeof */
    const size_t *ends; /* member end offsets, increasing */
    size_t nends;
} options_layout;

static const size_t reader_ends[] = {
    END_OF(slog_reader_options, struct_size), /* 0.1 */
    END_OF(slog_reader_options, reserved),
    END_OF(slog_reader_options, cache_bytes),
};
_Static_assert(sizeof(slog_reader_options) - END_OF(slog_reader_options, cache_bytes) <
                   alignof(slog_reader_options),
               "a slog_reader_options member is missing from reader_ends");

static const size_t writer_ends[] = {
    END_OF(slog_writer_options, struct_size), /* 0.1 */
    END_OF(slog_writer_options, leaf_bytes),
    END_OF(slog_writer_options, fanout),
    END_OF(slog_writer_options, lz4_level),
    END_OF(slog_writer_options, ticks_per_second),
    END_OF(slog_writer_options, preview_bytes),
    END_OF(slog_writer_options, flush_nodes),
    END_OF(slog_writer_options, creator),
    END_OF(slog_writer_options, flags), /* 0.2 */
    END_OF(slog_writer_options, reserved),
    END_OF(slog_writer_options, on_flush), /* 0.3 */
    END_OF(slog_writer_options, on_flush_ctx),
};
_Static_assert(sizeof(slog_writer_options) - END_OF(slog_writer_options, on_flush_ctx) <
                   alignof(slog_writer_options),
               "a slog_writer_options member is missing from writer_ends");

static const size_t query_ends[] = {
    END_OF(slog_query_options, struct_size), /* 0.1 */
    END_OF(slog_query_options, kinds),
    END_OF(slog_query_options, t0),
    END_OF(slog_query_options, t1),
    END_OF(slog_query_options, resolution),
    END_OF(slog_query_options, timelines),
    END_OF(slog_query_options, ntimelines),
    END_OF(slog_query_options, ncategories),
    END_OF(slog_query_options, categories),
    END_OF(slog_query_options, flags), /* 0.2 */
    END_OF(slog_query_options, reserved), /* 0.3 */
    END_OF(slog_query_options, first_node),
};
_Static_assert(sizeof(slog_query_options) - END_OF(slog_query_options, first_node) <
                   alignof(slog_query_options),
               "a slog_query_options member is missing from query_ends");

static const size_t stats_ends[] = {
    END_OF(slog_stats_options, struct_size), /* 0.2 */
    END_OF(slog_stats_options, by),
    END_OF(slog_stats_options, t0),
    END_OF(slog_stats_options, t1),
    END_OF(slog_stats_options, kinds),
    END_OF(slog_stats_options, ntimelines),
    END_OF(slog_stats_options, timelines),
    END_OF(slog_stats_options, categories),
    END_OF(slog_stats_options, ncategories),
    END_OF(slog_stats_options, reserved),
};
_Static_assert(sizeof(slog_stats_options) - END_OF(slog_stats_options, reserved) <
                   alignof(slog_stats_options),
               "a slog_stats_options member is missing from stats_ends");

static const size_t search_ends[] = {
    END_OF(slog_search_options, struct_size), /* 0.2 */
    END_OF(slog_search_options, kinds),
    END_OF(slog_search_options, t0),
    END_OF(slog_search_options, t1),
    END_OF(slog_search_options, ntimelines),
    END_OF(slog_search_options, timelines),
    END_OF(slog_search_options, categories),
    END_OF(slog_search_options, ncategories),
    END_OF(slog_search_options, flags),
    END_OF(slog_search_options, name_contains),
};
_Static_assert(sizeof(slog_search_options) - END_OF(slog_search_options, name_contains) <
                   alignof(slog_search_options),
               "a slog_search_options member is missing from search_ends");

static const size_t twriter_ends[] = {
    END_OF(slog_twriter_options, struct_size), /* 0.3 */
    END_OF(slog_twriter_options, buffer_bytes),
    END_OF(slog_twriter_options, queue_bytes),
    END_OF(slog_twriter_options, flags),
    END_OF(slog_twriter_options, max_wait_ms),
    END_OF_PTR(slog_twriter_options, writer, const slog_writer_options *),
};
_Static_assert(sizeof(slog_twriter_options) -
                       END_OF_PTR(slog_twriter_options, writer, const slog_writer_options *) <
                   alignof(slog_twriter_options),
               "a slog_twriter_options member is missing from twriter_ends");

/* NOLINTBEGIN(bugprone-sizeof-expression): the members are pointers, on purpose */
static const size_t index_ends[] = {
    END_OF(slog_index_options, struct_size), /* 0.3 */
    END_OF(slog_index_options, flags),
    END_OF(slog_index_options, labels),
    END_OF(slog_index_options, offsets),
    END_OF(slog_index_options, top_kind),
    END_OF(slog_index_options, reserved),
    END_OF(slog_index_options, copy_bytes),
    END_OF_PTR(slog_index_options, links, const slog_index_link *),
    END_OF(slog_index_options, nlinks),
};
/* NOLINTEND(bugprone-sizeof-expression) */
_Static_assert(sizeof(slog_index_options) - END_OF(slog_index_options, nlinks) <
                   alignof(slog_index_options),
               "a slog_index_options member is missing from index_ends");

static size_t whole_members(const options_layout *l, size_t n)
{
    size_t known = 0;
    for (size_t i = 0; i < l->nends && l->ends[i] <= n; i++) {
        known = l->ends[i];
    }
    return known;
}

/* The bytes a newer caller has beyond our struct must all be zero: a member
 * we do not know, set to anything but its default, is a request we cannot
 * honour. */
static int newer_bytes_zero(const unsigned char *src, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        if (src[i] != 0) {
            return 0;
        }
    }
    return 1;
}

static int load(const options_layout *l, void *dst, const void *src, const char *path,
                slog_error *err)
{
    memset(dst, 0, l->size);
    uint32_t n = 0;
    if (src != NULL) {
        memcpy(&n, src, sizeof n);
    }
    if (n > 0 && n < sizeof n) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, path,
                        "Invalid %s: struct_size %u is smaller than its struct_size member",
                        l->name, n);
    }
    if (n > API_OPTIONS_MAX_SIZE) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, path,
                        "Invalid %s: struct_size %u is above %u", l->name, n,
                        API_OPTIONS_MAX_SIZE);
    }
    if (n > l->size && !newer_bytes_zero(src, l->size, n)) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, path,
                        "Invalid %s: struct_size %u sets members this libslog %s does not "
                        "know (it knows %zu bytes)",
                        l->name, n, SLOG_VERSION_STRING, l->size);
    }
    if (src != NULL) {
        memcpy(dst, src, whole_members(l, n < l->size ? n : l->size));
    }
    const uint32_t size = (uint32_t)l->size;
    memcpy(dst, &size, sizeof size);
    return SLOG_OK;
}

/* A member that must be zero: reserved words and unknown flag bits are a
 * newer caller's requests, which this library cannot honour silently. */
static int must_be_zero(int rc, uint32_t bits, const char *what, const char *path,
                        slog_error *err)
{
    if (rc != SLOG_OK || bits == 0) {
        return rc;
    }
    return util_err(err, SLOG_EINVAL, UINT64_MAX, path,
                    "Invalid %s: 0x%x set, which this libslog %s does not know", what, bits,
                    SLOG_VERSION_STRING);
}

int api_reader_options_load(slog_reader_options *dst, const slog_reader_options *src,
                            const char *path, slog_error *err)
{
    static const options_layout l = {"slog_reader_options", sizeof *dst, reader_ends,
                                     COUNT(reader_ends)};
    const int rc = load(&l, dst, src, path, err);
    return must_be_zero(rc, dst->reserved, "slog_reader_options.reserved", path, err);
}

int api_writer_options_load(slog_writer_options *dst, const slog_writer_options *src,
                            const char *path, slog_error *err)
{
    static const options_layout l = {"slog_writer_options", sizeof *dst, writer_ends,
                                     COUNT(writer_ends)};
    int rc = load(&l, dst, src, path, err);
    const uint32_t known = SLOG_WRITER_TIME_BINS | SLOG_WRITER_BACKGROUND | SLOG_WRITER_NO_REPLACE;
    rc = must_be_zero(rc, dst->flags & ~known, "slog_writer_options.flags", path, err);
    return must_be_zero(rc, dst->reserved, "slog_writer_options.reserved", path, err);
}

int api_query_options_load(slog_query_options *dst, const slog_query_options *src,
                           const char *path, slog_error *err)
{
    static const options_layout l = {"slog_query_options", sizeof *dst, query_ends,
                                     COUNT(query_ends)};
    int rc = load(&l, dst, src, path, err);
    rc = must_be_zero(rc, dst->flags & ~SLOG_QUERY_ARGS, "slog_query_options.flags", path, err);
    return must_be_zero(rc, dst->reserved, "slog_query_options.reserved", path, err);
}

int api_stats_options_load(slog_stats_options *dst, const slog_stats_options *src,
                           const char *path, slog_error *err)
{
    static const options_layout l = {"slog_stats_options", sizeof *dst, stats_ends,
                                     COUNT(stats_ends)};
    const int rc = load(&l, dst, src, path, err);
    return must_be_zero(rc, dst->reserved, "slog_stats_options.reserved", path, err);
}

int api_search_options_load(slog_search_options *dst, const slog_search_options *src,
                            const char *path, slog_error *err)
{
    static const options_layout l = {"slog_search_options", sizeof *dst, search_ends,
                                     COUNT(search_ends)};
    const int rc = load(&l, dst, src, path, err);
    return must_be_zero(rc, dst->flags & ~SLOG_SEARCH_WITHIN, "slog_search_options.flags", path,
                        err);
}

int api_twriter_options_load(slog_twriter_options *dst, const slog_twriter_options *src,
                             const char *path, slog_error *err)
{
    static const options_layout l = {"slog_twriter_options", sizeof *dst, twriter_ends,
                                     COUNT(twriter_ends)};
    int rc = load(&l, dst, src, path, err);
    return must_be_zero(rc, dst->flags & ~SLOG_TWRITER_DROP, "slog_twriter_options.flags", path,
                        err);
}

int api_index_options_load(slog_index_options *dst, const slog_index_options *src,
                           const char *path, slog_error *err)
{
    static const options_layout l = {"slog_index_options", sizeof *dst, index_ends,
                                     COUNT(index_ends)};
    int rc = load(&l, dst, src, path, err);
    const uint32_t known =
        SLOG_INDEX_ALLOW_INCOMPLETE | SLOG_INDEX_ALLOW_MISSING | SLOG_INDEX_COPY_ALL;
    rc = must_be_zero(rc, dst->flags & ~known, "slog_index_options.flags", path, err);
    rc = must_be_zero(rc, dst->reserved, "slog_index_options.reserved", path, err);
    if (rc == SLOG_OK && dst->top_kind > SLOG_TIMELINE_RANK) {
        rc = util_err(err, SLOG_EINVAL, UINT64_MAX, path,
                      "Invalid slog_index_options.top_kind %u", dst->top_kind);
    }
    return rc;
}

void slog_twriter_options_init(slog_twriter_options *opts)
{
    assert(opts != NULL);
    const slog_twriter_options init = SLOG_TWRITER_OPTIONS_INIT;
    *opts = init;
}

void slog_reader_options_init(slog_reader_options *opts)
{
    assert(opts != NULL);
    const slog_reader_options init = SLOG_READER_OPTIONS_INIT;
    *opts = init;
}

void slog_writer_options_init(slog_writer_options *opts)
{
    assert(opts != NULL);
    const slog_writer_options init = SLOG_WRITER_OPTIONS_INIT;
    *opts = init;
}

void slog_query_options_init(slog_query_options *opts)
{
    assert(opts != NULL);
    const slog_query_options init = SLOG_QUERY_OPTIONS_INIT;
    *opts = init;
}

void slog_stats_options_init(slog_stats_options *opts)
{
    assert(opts != NULL);
    const slog_stats_options init = SLOG_STATS_OPTIONS_INIT;
    *opts = init;
}

void slog_search_options_init(slog_search_options *opts)
{
    assert(opts != NULL);
    const slog_search_options init = SLOG_SEARCH_OPTIONS_INIT;
    *opts = init;
}
