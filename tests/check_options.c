/* SPDX-License-Identifier: MIT
 *
 * check_options.c - the ABI rule of the options structs (struct_size): a
 * caller compiled against an older, smaller struct still works, whatever
 * lies in memory past its struct_size; struct_size 0 means every default;
 * a newer caller's larger struct is accepted only when the members this
 * library does not know are zero; the *_options_init functions give what
 * the INIT macros give.  Only the public API is used, as a binding would.
 */
#include <slog/slog.h>

#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NSTATES 100

/* slog_query_options as libslog 0.1 declared it (56 bytes on LP64). */
typedef struct query_options_v01 {
    uint32_t struct_size;
    uint32_t kinds;
    int64_t t0, t1;
    int64_t resolution;
    const uint32_t *timelines;
    uint32_t ntimelines;
    uint32_t ncategories;
    const uint32_t *categories;
} query_options_v01;

/* An options struct followed by bytes a caller may or may not own. */
typedef union writer_buf {
    slog_writer_options o;
    unsigned char bytes[sizeof(slog_writer_options) + 64];
} writer_buf;

typedef union query_buf {
    slog_query_options o;
    unsigned char bytes[sizeof(slog_query_options) + 64];
} query_buf;

static char path[64];

static void write_file(const slog_writer_options *o)
{
    slog_writer *w;
    slog_error err;
    uint32_t tl[2], cat;
    ck_assert_int_eq(slog_writer_create(&w, path, o, &err), SLOG_OK);
    for (int t = 0; t < 2; t++) {
        ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t", t,
                                                  &tl[t], &err),
                         SLOG_OK);
    }
    ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_STATE, "s", 0, NULL, &cat, &err),
                     SLOG_OK);
    for (int i = 0; i < NSTATES; i++) {
        for (int t = 0; t < 2; t++) {
            const slog_state s = {tl[t], cat, (int64_t)i * 10, (int64_t)i * 10 + 5, 0, 0, NULL};
            ck_assert_int_eq(slog_writer_append_state(w, &s, &err), SLOG_OK);
        }
    }
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);
}

static void setup(void)
{
    (void)snprintf(path, sizeof path, "/tmp/check_options_%d.slog", (int)getpid());
    write_file(NULL);
}

static void teardown(void)
{
    (void)unlink(path);
}

/* Items a query returns; opts is passed as the library sees it. */
static uint64_t count_items(const void *opts, int *rc)
{
    slog_reader *r;
    slog_error err;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    slog_query *q;
    *rc = slog_query_create(&q, r, opts, &err);
    uint64_t n = 0;
    if (*rc == SLOG_OK) {
        const slog_item *item;
        while (slog_query_next(q, &item, &err) == SLOG_OK) {
            n++;
        }
        slog_query_destroy(q);
    }
    slog_reader_destroy(r);
    return n;
}

static void assert_einval(int rc, const slog_error *err)
{
    ck_assert_int_eq(rc, SLOG_EINVAL);
    ck_assert_int_eq(err->code, SLOG_EINVAL);
    ck_assert_uint_eq(err->offset, UINT64_MAX);
    ck_assert_ptr_nonnull(strstr(err->message, "struct_size"));
}

START_TEST(test_options_init_functions_match_macros)
{
    slog_reader_options r, rm = SLOG_READER_OPTIONS_INIT;
    memset(&r, 0xff, sizeof r);
    slog_reader_options_init(&r);
    ck_assert_uint_eq(r.struct_size, sizeof r);
    ck_assert_uint_eq(r.reserved, rm.reserved);
    ck_assert_uint_eq(r.cache_bytes, rm.cache_bytes);

    slog_writer_options w, wm = SLOG_WRITER_OPTIONS_INIT;
    memset(&w, 0xff, sizeof w);
    slog_writer_options_init(&w);
    ck_assert_uint_eq(w.struct_size, sizeof w);
    ck_assert_uint_eq(w.leaf_bytes + w.fanout + w.preview_bytes + w.flush_nodes, 0);
    ck_assert_int_eq(w.lz4_level, wm.lz4_level);
    ck_assert_uint_eq(w.ticks_per_second, wm.ticks_per_second);
    ck_assert_ptr_null(w.creator);

    slog_query_options q;
    memset(&q, 0xff, sizeof q);
    slog_query_options_init(&q);
    ck_assert_uint_eq(q.struct_size, sizeof q);
    ck_assert_uint_eq(q.kinds + q.ntimelines + q.ncategories, 0);
    ck_assert_int_eq(q.t0 | q.t1 | q.resolution, 0);
    ck_assert_ptr_null(q.timelines);
    ck_assert_ptr_null(q.categories);
}
END_TEST

START_TEST(test_options_stats_search_init_functions_match_macros)
{
    slog_stats_options st, stm = SLOG_STATS_OPTIONS_INIT;
    memset(&st, 0xff, sizeof st);
    slog_stats_options_init(&st);
    ck_assert_uint_eq(st.struct_size, stm.struct_size);
    ck_assert_uint_eq(st.by + st.kinds + st.ntimelines + st.ncategories + st.reserved, 0);
    ck_assert_int_eq(st.t0 | st.t1, 0);
    ck_assert_ptr_null(st.timelines);
    ck_assert_ptr_null(st.categories);

    slog_search_options se, sem = SLOG_SEARCH_OPTIONS_INIT;
    memset(&se, 0xff, sizeof se);
    slog_search_options_init(&se);
    ck_assert_uint_eq(se.struct_size, sem.struct_size);
    ck_assert_uint_eq(se.kinds + se.ntimelines + se.ncategories + se.flags, 0);
    ck_assert_int_eq(se.t0 | se.t1, 0);
    ck_assert_ptr_null(se.timelines);
    ck_assert_ptr_null(se.categories);
    ck_assert_ptr_null(se.name_contains);
}
END_TEST

/* A program compiled against 0.1 passes its 0.1 struct (and struct_size). */
START_TEST(test_options_query_v01_layout_still_filters)
{
    static const uint32_t one = 1;
    query_options_v01 v;
    memset(&v, 0, sizeof v);
    v.struct_size = sizeof v;
    v.t0 = 0;
    v.t1 = NSTATES * 10;
    v.timelines = &one;
    v.ntimelines = 1;
    int rc;
    ck_assert_uint_eq(count_items(&v, &rc), NSTATES);
    ck_assert_int_eq(rc, SLOG_OK);
    slog_query_options cur = SLOG_QUERY_OPTIONS_INIT;
    cur.t1 = NSTATES * 10;
    ck_assert_uint_eq(count_items(&cur, &rc), 2 * NSTATES);
}
END_TEST

/* Garbage past struct_size is never read: members beyond take defaults. */
START_TEST(test_options_smaller_struct_takes_defaults_beyond_size)
{
    writer_buf wb;
    memset(&wb, 0xff, sizeof wb); /* lz4_level -1 would be refused, creator would crash */
    wb.o.struct_size = (uint32_t)offsetof(slog_writer_options, lz4_level);
    wb.o.leaf_bytes = 4096;
    wb.o.fanout = 4;
    write_file(&wb.o);
    slog_reader *r;
    slog_error err;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    const slog_file_info *const fi = slog_reader_info(r);
    ck_assert_uint_eq(fi->fanout, 4);
    ck_assert_uint_eq(fi->leaf_bytes, 4096);
    ck_assert_uint_eq(fi->ticks_per_second, 1000000000u);
    ck_assert_str_eq(fi->creator, "libslog " SLOG_VERSION_STRING);
    slog_reader_destroy(r);

    query_buf qb;
    memset(&qb, 0xff, sizeof qb); /* timelines would point nowhere */
    qb.o.struct_size = (uint32_t)offsetof(slog_query_options, timelines);
    qb.o.kinds = 0;
    qb.o.t0 = 0;
    qb.o.t1 = NSTATES * 10;
    qb.o.resolution = 0;
    int rc;
    ck_assert_uint_eq(count_items(&qb.o, &rc), 2 * NSTATES);
    ck_assert_int_eq(rc, SLOG_OK);
}
END_TEST

START_TEST(test_options_struct_size_zero_means_defaults)
{
    writer_buf wb;
    memset(&wb, 0xff, sizeof wb);
    wb.o.struct_size = 0;
    write_file(&wb.o);
    slog_reader *r;
    slog_error err;
    slog_reader_options ro;
    memset(&ro, 0xff, sizeof ro);
    ro.struct_size = 0;
    ck_assert_int_eq(slog_reader_open(&r, path, &ro, &err), SLOG_OK);
    ck_assert_uint_eq(slog_reader_info(r)->fanout, 2);
    slog_reader_destroy(r);

    query_buf qb;
    memset(&qb, 0xff, sizeof qb);
    qb.o.struct_size = 0; /* the default window [0, 0) holds nothing */
    int rc;
    ck_assert_uint_eq(count_items(&qb.o, &rc), 0);
    ck_assert_int_eq(rc, SLOG_OK);
}
END_TEST

/* A newer caller: unknown members at their default (zero) are fine. */
START_TEST(test_options_larger_struct_needs_zero_tail)
{
    query_buf qb;
    memset(&qb, 0, sizeof qb);
    qb.o.struct_size = sizeof qb.bytes;
    qb.o.t1 = NSTATES * 10;
    int rc;
    ck_assert_uint_eq(count_items(&qb.o, &rc), 2 * NSTATES);
    ck_assert_int_eq(rc, SLOG_OK);

    qb.bytes[sizeof qb.bytes - 1] = 1;
    slog_reader *r;
    slog_error err;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    slog_query *q = NULL;
    memset(&err, 0xff, sizeof err);
    assert_einval(slog_query_create(&q, r, &qb.o, &err), &err);
    ck_assert_ptr_null(q);
    slog_reader_destroy(r);

    writer_buf wb;
    memset(&wb, 0, sizeof wb);
    wb.o.struct_size = sizeof wb.bytes;
    wb.bytes[sizeof(slog_writer_options)] = 7;
    slog_writer *w = NULL;
    memset(&err, 0xff, sizeof err);
    assert_einval(slog_writer_create(&w, path, &wb.o, &err), &err);
    ck_assert_ptr_null(w);
}
END_TEST

/* Reserved words and unknown flag bits are refused, not ignored. */
START_TEST(test_options_reserved_and_unknown_flags_are_einval)
{
    slog_reader_options ro = SLOG_READER_OPTIONS_INIT;
    ro.reserved = 1;
    slog_reader *r = NULL;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    ck_assert_int_eq(slog_reader_open(&r, path, &ro, &err), SLOG_EINVAL);
    ck_assert_ptr_null(r);
    ck_assert_uint_eq(err.offset, UINT64_MAX);
    ck_assert_ptr_nonnull(strstr(err.message, "slog_reader_options.reserved"));

    slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    qo.t1 = NSTATES * 10;
    qo.flags = SLOG_QUERY_ARGS | (1u << 7);
    int rc;
    ck_assert_uint_eq(count_items(&qo, &rc), 0);
    ck_assert_int_eq(rc, SLOG_EINVAL);
    qo.flags = SLOG_QUERY_ARGS;
    ck_assert_uint_eq(count_items(&qo, &rc), 2 * NSTATES);
    ck_assert_int_eq(rc, SLOG_OK);
    /* a kind bit this library does not know, as slog_stats_compute and
     * slog_search_next refuse it (it was taken as "all kinds" and ignored) */
    qo.kinds = (1u << SLOG_KIND_STATE) | (1u << 6);
    ck_assert_uint_eq(count_items(&qo, &rc), 0);
    ck_assert_int_eq(rc, SLOG_EINVAL);
    qo.kinds = 1u << SLOG_KIND_STATE;
    ck_assert_uint_eq(count_items(&qo, &rc), 2 * NSTATES);
    ck_assert_int_eq(rc, SLOG_OK);
}
END_TEST

static const uint32_t bad_sizes[] = {1, 3, 4097, UINT32_MAX};

START_TEST(test_options_bad_struct_size_is_einval)
{
    slog_reader_options ro = SLOG_READER_OPTIONS_INIT;
    ro.struct_size = bad_sizes[_i];
    slog_reader *r = NULL;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    assert_einval(slog_reader_open(&r, path, &ro, &err), &err);
    ck_assert_ptr_null(r);
    ck_assert_str_eq(err.source, path);
}
END_TEST

int main(void)
{
    Suite *const s = suite_create("options");
    TCase *const tc = tcase_create("options");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_options_init_functions_match_macros);
    tcase_add_test(tc, test_options_stats_search_init_functions_match_macros);
    tcase_add_test(tc, test_options_query_v01_layout_still_filters);
    tcase_add_test(tc, test_options_smaller_struct_takes_defaults_beyond_size);
    tcase_add_test(tc, test_options_struct_size_zero_means_defaults);
    tcase_add_test(tc, test_options_larger_struct_needs_zero_tail);
    tcase_add_test(tc, test_options_reserved_and_unknown_flags_are_einval);
    tcase_add_loop_test(tc, test_options_bad_struct_size_is_einval, 0,
                        (int)(sizeof bad_sizes / sizeof bad_sizes[0]));
    suite_add_tcase(s, tc);
    SRunner *const sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
