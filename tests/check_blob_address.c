/* SPDX-License-Identifier: MIT
 *
 * check_blob_address.c - format 4's chunk addresses in /nodes (doc/FORMAT.md
 * §3.3): a reader fetches a blob by its recorded file address and keeps it
 * only when the blob's checksum holds, so addresses that no longer point at
 * the blob (a repacked file: h5repack moves every chunk but copies the rows)
 * or that are unknown (0) give exactly the same answers through HDF5's chunk
 * index; a changed address with its checksum not resealed is a corrupt row.
 * Each file is queried in full (with args) and at 300 pixels, and the
 * answers are compared item by item with the untouched file's.
 */
#include "ck_quiet.h"
#include "trace_ref.h"

#include <check.h>
#include <hdf5.h>
#include <slog/slog.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROW_BYTES 168u /* a format-4 /nodes row */
#define ADDR_AT   128u /* payload_addr, preview_addr, args_addr: 3 x u64 */
#define CRC_AT    164u /* addr_crc: CRC32C of bytes [128, 164) */

static char good[512], moved[512];

static uint32_t crc32c(const unsigned char *p, size_t n)
{
    uint32_t c = ~0u;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) {
            c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
        }
    }
    return ~c;
}

static void setup(void)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(good, sizeof good, "%s/addr_good_%d.slog", tmp, (int)getpid());
    snprintf(moved, sizeof moved, "%s/addr_moved_%d.slog", tmp, (int)getpid());
    const tref_params p = {.seed = 77, .timelines = 5, .states = 4000, .events = 400,
                           .arrows = 100, .counters = 300, .state_categories = 5,
                           .max_depth = 4, .base = 1000, .span = 8000000,
                           .args_percent = 40};
    tref_trace t;
    ck_assert_int_eq(tref_generate(&t, &p), 0);
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 2048;
    slog_error err;
    const int rc = tref_write(&t, good, &o, TR_ORDER_END, 1, true, &err);
    tref_free(&t);
    ck_assert_msg(rc == SLOG_OK, "writing: %s", err.message);
}

static void teardown(void)
{
    remove(good);
    remove(moved);
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    ck_assert(in != NULL && out != NULL);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
    }
    fclose(in);
    ck_assert_int_eq(fclose(out), 0);
}

/* Rewrite every node row's known addresses: + delta (0 delta: set to 0,
 * unknown); reseal addr_crc unless told not to.  Returns the rows changed. */
static size_t rewrite_addresses(const char *path, int64_t delta, int reseal)
{
    const hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    ck_assert_int_ge(f, 0);
    const hid_t d = H5Dopen2(f, "nodes", H5P_DEFAULT);
    const hid_t ft = H5Dget_type(d);
    ck_assert_uint_eq(H5Tget_size(ft), ROW_BYTES);
    const hid_t sp = H5Dget_space(d);
    hsize_t n = 0;
    ck_assert_int_eq(H5Sget_simple_extent_dims(sp, &n, NULL), 1);
    unsigned char *rows = malloc((size_t)n * ROW_BYTES);
    ck_assert_int_ge(H5Dread(d, ft, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows), 0);
    size_t changed = 0;
    for (hsize_t i = 0; i < n; i++) {
        unsigned char *const r = rows + i * ROW_BYTES;
        for (int b = 0; b < 3; b++) {
            uint64_t a;
            memcpy(&a, r + ADDR_AT + 8 * b, 8);
            if (a != 0) {
                a = delta == 0 ? 0 : (uint64_t)((int64_t)a + delta);
                memcpy(r + ADDR_AT + 8 * b, &a, 8);
                changed++;
            }
        }
        if (reseal) {
            const uint32_t c = crc32c(r + ADDR_AT, CRC_AT - ADDR_AT);
            memcpy(r + CRC_AT, &c, 4);
        }
    }
    ck_assert_int_ge(H5Dwrite(d, ft, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows), 0);
    free(rows);
    H5Sclose(sp);
    H5Tclose(ft);
    H5Dclose(d);
    H5Fclose(f);
    return changed;
}

/* The whole trace, or 300 pixels of it, with args. */
static void run(const char *path, int pixels, tref_result *res)
{
    slog_reader *r = NULL;
    slog_error err;
    ck_assert_msg(slog_reader_open(&r, path, NULL, &err) == SLOG_OK, "%s", err.message);
    const slog_file_info *in = slog_reader_info(r);
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.flags = SLOG_QUERY_ARGS;
    q.t0 = in->start;
    q.t1 = in->end + 1;
    q.resolution = pixels ? (q.t1 - q.t0 + pixels - 1) / pixels : 0;
    tref_run_query(r, &q, res);
    slog_reader_destroy(r);
}

static void expect_same_answers(const char *path)
{
    for (int pixels = 0; pixels <= 300; pixels += 300) {
        tref_result a, b;
        run(good, pixels, &a);
        run(path, pixels, &b);
        ck_assert_int_eq(a.status, SLOG_END);
        ck_assert_msg(b.status == SLOG_END, "%s", b.err.message);
        char msg[1024];
        tref_sort_keys(a.keys, a.nkeys);
        tref_sort_keys(b.keys, b.nkeys);
        ck_assert_msg(tref_same_keys(b.keys, b.nkeys, a.keys, a.nkeys, msg, sizeof msg), "%s",
                      msg);
        ck_assert_uint_eq(b.npreviews, a.npreviews);
        ck_assert_uint_eq(b.nruns, a.nruns);
        ck_assert_uint_gt(a.nkeys, 0);
        tref_result_free(&a);
        tref_result_free(&b);
    }
}

/* Addresses that point elsewhere in the file (as after h5repack). */
START_TEST(test_stale_addresses_fall_back)
{
    copy_file(good, moved);
    ck_assert_uint_gt(rewrite_addresses(moved, 5, 1), 10);
    expect_same_answers(moved);
    copy_file(good, moved);
    ck_assert_uint_gt(rewrite_addresses(moved, -3000, 1), 10);
    expect_same_answers(moved);
}
END_TEST

START_TEST(test_unknown_addresses_read_through_hdf5)
{
    copy_file(good, moved);
    ck_assert_uint_gt(rewrite_addresses(moved, 0, 1), 10);
    expect_same_answers(moved);
}
END_TEST

/* An address changed without its checksum is a corrupt row, named. */
START_TEST(test_changed_address_is_corrupt_row)
{
    copy_file(good, moved);
    ck_assert_uint_gt(rewrite_addresses(moved, 64, 0), 10);
    /* The open verifies the rows of the last block; a query the rest. */
    slog_reader *r = NULL;
    slog_error err;
    int rc = slog_reader_open(&r, moved, NULL, &err);
    if (rc == SLOG_OK) {
        tref_result b;
        slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
        q.t0 = INT64_MIN;
        q.t1 = INT64_MAX;
        tref_run_query(r, &q, &b);
        rc = b.status;
        err = b.err;
        tref_result_free(&b);
        slog_reader_destroy(r);
    }
    ck_assert_int_eq(rc, SLOG_ECORRUPT);
    ck_assert_msg(strstr(err.message, "/nodes row addresses checksum mismatch") != NULL, "%s",
                  err.message);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("blob_address");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_stale_addresses_fall_back);
    tcase_add_test(tc, test_unknown_addresses_read_through_hdf5);
    tcase_add_test(tc, test_changed_address_is_corrupt_row);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
