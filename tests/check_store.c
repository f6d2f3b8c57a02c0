/* SPDX-License-Identifier: MIT
 *
 * check_store.c - the HDF5 store: write, reopen and read back every table
 * and blob; a writer killed after a flush; and every kind of bad file (not
 * HDF5, no magic, newer version, truncated, missing pieces, corrupt chunks).
 * Bad files are crafted with the HDF5 API directly.
 */
#include <check.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store.h"
#include "util_alloc.h"

static char tmpdir[256];
static char path[512];

static void setup(void)
{
    (void)snprintf(tmpdir, sizeof tmpdir, "/tmp/check_store.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    (void)snprintf(path, sizeof path, "%s/t.slog", tmpdir);
}

static void teardown(void)
{
    char cmd[600];
    (void)snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    (void)system(cmd);
}

static void err_poison(slog_error *err)
{
    memset(err, 0xff, sizeof *err);
}

static store_header test_header(uint32_t chunk)
{
    store_header h;
    memset(&h, 0, sizeof h);
    h.format_read_version = STORE_FORMAT_WRITTEN_READ_VERSION;
    h.format_write_version = STORE_FORMAT_WRITE_VERSION;
    h.ticks_per_second = 1000000000u;
    h.fanout = 2;
    h.chunk_bytes = chunk;
    h.lz4_level = 1;
    h.preview_bytes = 4096;
    (void)snprintf(h.creator, sizeof h.creator, "check_store 0.1");
    return h;
}

/* Deterministic trace-like bytes. */
static void fill_blob(unsigned char *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (unsigned char)((i % 16 < 8) ? (x >> 28) : (i / 16));
    }
}

static store_node_row node_row(uint32_t i)
{
    store_node_row r;
    memset(&r, 0, sizeof r);
    r.level = i % 3;
    r.flags = i;
    r.t0 = -1000 + (int64_t)i;
    r.t1 = INT64_MAX - i;
    r.subtree_nodes = i + 1;
    r.payload_off = (uint64_t)i << 33;
    r.payload_len = 77 + i;
    r.preview_off = UINT64_MAX - i;
    r.preview_len = (uint64_t)i * 3;
    for (int k = 0; k < 4; k++) {
        r.counts[k] = (uint64_t)i * 10 + (uint64_t)k;
    }
    r.args_off = (uint64_t)i << 20;
    r.args_len = i % 5;
    r.payload_crc = i * 7u;
    r.preview_crc = ~i;
    r.args_crc = i << 3;
    r.row_crc = store_node_row_crc(&r); /* what the store seals it with */
    r.addr_crc = store_node_addr_crc(&r); /* no blob at those offsets: addresses 0 */
    return r;
}

static const char strings[] = "main\0worker\0MPI_Send\0";

/* Write a small complete file: strings, 3 timelines, 2 categories, n nodes,
 * the given blobs.  offsets receives each blob's offset. */
static void write_file(uint32_t chunk,
                       size_t nnodes,
                       const size_t *blob_sizes,
                       size_t nblobs,
                       uint64_t *offsets,
                       bool close_it)
{
    slog_error err;
    store *s = NULL;
    const store_header h = test_header(chunk);
    ck_assert_int_eq(store_create(&s, path, &h, 0, &err), SLOG_OK);
    ck_assert_int_eq(store_append_strings(s, strings, sizeof strings, &err), SLOG_OK);
    const store_timeline_row tl[3] = {
        {0, SLOG_NO_PARENT, 2, 0, 5, 0}, {1, 0, 3, 0, -7, 5}, {2, 0, 3, 0, 9, 12}};
    ck_assert_int_eq(store_append_timelines(s, tl, 3, &err), SLOG_OK);
    const store_category_row cat[2] = {{0, 0, 0xff0000ffu, 0, 12, UINT64_MAX},
                                       {1, 2, 0x00ff00ffu, 0, 5, 0}};
    ck_assert_int_eq(store_append_categories(s, cat, 2, &err), SLOG_OK);
    for (size_t i = 0; i < nnodes; i++) {
        const store_node_row r = node_row((uint32_t)i);
        ck_assert_int_eq(store_append_nodes(s, &r, 1, &err), SLOG_OK);
    }
    for (size_t b = 0; b < nblobs; b++) {
        unsigned char *const raw = malloc(blob_sizes[b] + 1);
        fill_blob(raw, blob_sizes[b], (uint32_t)b);
        ck_assert_int_eq(store_append_blob(s, raw, blob_sizes[b], &offsets[b], &err), SLOG_OK);
        free(raw);
    }
    store_summary sum;
    memset(&sum, 0, sizeof sum);
    sum.complete = 1;
    sum.depth = 4;
    sum.start = -5;
    sum.end = 123456789;
    sum.counts[0] = 11;
    sum.counts[3] = 44;
    sum.nodes = nnodes;
    sum.timelines = 3;
    sum.categories = 2;
    sum.strings_bytes = sizeof strings;
    ck_assert_int_eq(store_write_summary(s, &sum, &err), SLOG_OK);
    ck_assert_int_eq(store_flush(s, &err), SLOG_OK);
    if (close_it) {
        ck_assert_int_eq(store_close(s, &err), SLOG_OK);
    }
}

static void check_blob(store *s, uint64_t off, size_t n, uint32_t seed, store_io *io)
{
    slog_error err;
    unsigned char *const want = malloc(n + 1);
    unsigned char *const got = malloc(n + 1);
    fill_blob(want, n, seed);
    ck_assert_int_eq(store_read_blob(s, off, n, got, io, &err), SLOG_OK);
    ck_assert_int_eq(memcmp(want, got, n), 0);
    free(got);
    free(want);
}

START_TEST(test_store_round_trip_tables)
{
    write_file(4096, 2500, NULL, 0, NULL, true);
    slog_error err;
    store *s = NULL;
    store_header h;
    ck_assert_int_eq(store_open(&s, path, &h, &err), SLOG_OK);
    const store_header want = test_header(4096);
    ck_assert_int_eq(memcmp(&h, &want, sizeof h), 0);

    char *str = NULL;
    uint64_t n = 0;
    ck_assert_int_eq(store_read_strings(s, &str, &n, &err), SLOG_OK);
    ck_assert_uint_eq(n, sizeof strings);
    ck_assert_int_eq(memcmp(str, strings, sizeof strings), 0);
    util_free(str);

    store_timeline_row *tl = NULL;
    ck_assert_int_eq(store_read_timelines(s, &tl, &n, &err), SLOG_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(tl[0].parent, SLOG_NO_PARENT);
    ck_assert_int_eq(tl[1].sort_key, -7);
    ck_assert_uint_eq(tl[2].name, 12);
    for (int i = 0; i < 3; i++) { /* format 2: rows sealed with their CRC32C */
        ck_assert_uint_ne(tl[i].crc, 0);
        ck_assert_uint_eq(tl[i].crc, store_timeline_row_crc(&tl[i]));
    }
    util_free(tl);

    store_category_row *cat = NULL;
    ck_assert_int_eq(store_read_categories(s, &cat, &n, &err), SLOG_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(cat[0].rgba, 0xff0000ffu);
    ck_assert_uint_eq(cat[0].group, UINT64_MAX);
    ck_assert_uint_eq(cat[1].kind, 2);
    ck_assert_uint_eq(cat[1].crc, store_category_row_crc(&cat[1]));
    util_free(cat);

    store_node_row *nodes = NULL;
    ck_assert_int_eq(store_read_nodes(s, &nodes, &n, &err), SLOG_OK);
    ck_assert_uint_eq(n, 2500);
    for (uint32_t i = 0; i < 2500; i++) {
        const store_node_row r = node_row(i);
        ck_assert_int_eq(memcmp(&nodes[i], &r, sizeof r), 0);
    }
    util_free(nodes);

    store_summary sum;
    ck_assert_int_eq(store_read_summary(s, &sum, &err), SLOG_OK);
    ck_assert_uint_eq(sum.complete, 1);
    ck_assert_int_eq(sum.start, -5);
    ck_assert_int_eq(sum.end, 123456789);
    ck_assert_uint_eq(sum.counts[3], 44);
    ck_assert_uint_eq(sum.nodes, 2500);
    ck_assert_uint_gt(store_file_bytes(s), 0);
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
}
END_TEST

START_TEST(test_store_empty_file_opens)
{
    slog_error err;
    store *s = NULL;
    const store_header h = test_header(65536);
    ck_assert_int_eq(store_create(&s, path, &h, 0, &err), SLOG_OK);
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
    store_header got;
    ck_assert_int_eq(store_open(&s, path, &got, &err), SLOG_OK);
    store_node_row *nodes = NULL;
    uint64_t n = 99;
    ck_assert_int_eq(store_read_nodes(s, &nodes, &n, &err), SLOG_OK);
    ck_assert_uint_eq(n, 0);
    ck_assert_ptr_null(nodes);
    store_summary sum;
    ck_assert_int_eq(store_read_summary(s, &sum, &err), SLOG_OK);
    ck_assert_uint_eq(sum.complete, 0);
    ck_assert_int_eq(sum.start, INT64_MAX);
    ck_assert_int_eq(sum.end, INT64_MIN);
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
    ck_assert_int_eq(store_close(NULL, &err), SLOG_OK);
}
END_TEST

START_TEST(test_store_blobs_across_chunks)
{
    const size_t sizes[] = {1, 4096, 10000, 3 * 4096 + 1, 4095, 0, 70000};
    const size_t nb = sizeof sizes / sizeof sizes[0];
    uint64_t off[sizeof sizes / sizeof sizes[0]];
    write_file(4096, 3, sizes, nb, off, true);
    /* Every blob starts on a chunk boundary, right after the previous one. */
    uint64_t expect = 0;
    for (size_t b = 0; b < nb; b++) {
        ck_assert_uint_eq(off[b], expect);
        expect += (sizes[b] + 4095) / 4096 * 4096;
    }
    slog_error err;
    store *s = NULL;
    store_header h;
    ck_assert_int_eq(store_open(&s, path, &h, &err), SLOG_OK);
    for (size_t b = 0; b < nb; b++) {
        store_io io = {0, 0};
        check_blob(s, off[b], sizes[b], (uint32_t)b, &io);
        /* Only the blob's own bytes are decoded, not the padding of its
         * last chunk; a stored chunk never exceeds its raw bytes plus the
         * 16-byte chunk header. */
        ck_assert_uint_eq(io.bytes_decoded, sizes[b]);
        ck_assert_uint_le(io.bytes_read, (4096 + 16) * ((sizes[b] + 4095) / 4096));
    }
    /* A sub-range that straddles chunk boundaries. */
    unsigned char full[10000];
    unsigned char part[5000];
    fill_blob(full, sizeof full, 2);
    store_io io = {0, 0};
    ck_assert_int_eq(store_read_blob(s, off[2] + 3000, 5000, part, &io, &err), SLOG_OK);
    ck_assert_int_eq(memcmp(part, full + 3000, 5000), 0);
    /* The first chunk decodes whole (the range starts inside it), the
     * second only up to the range's end. */
    ck_assert_uint_eq(io.bytes_decoded, 8000);
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
}
END_TEST

START_TEST(test_store_blob_past_end_is_ecorrupt)
{
    const size_t sizes[] = {5000};
    uint64_t off[1];
    write_file(4096, 1, sizes, 1, off, true);
    slog_error err;
    store *s = NULL;
    store_header h;
    ck_assert_int_eq(store_open(&s, path, &h, &err), SLOG_OK);
    unsigned char buf[8192];
    err_poison(&err);
    ck_assert_int_eq(store_read_blob(s, 4096, 4097, buf, NULL, &err), SLOG_ECORRUPT);
    ck_assert_int_eq(err.code, SLOG_ECORRUPT);
    ck_assert_uint_eq(err.offset, 4096);
    ck_assert_int_eq(store_read_blob(s, UINT64_MAX - 2, 10, buf, NULL, &err), SLOG_ECORRUPT);
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
}
END_TEST

START_TEST(test_store_update_timeline)
{
    slog_error err;
    store *s = NULL;
    const store_header h = test_header(4096);
    ck_assert_int_eq(store_create(&s, path, &h, 0, &err), SLOG_OK);
    const store_timeline_row tl[3] = {
        {7, SLOG_NO_PARENT, 1, 0, 0, 0}, {3, 7, 2, 0, 0, 0}, {1, 3, 3, 0, 0, 0}};
    ck_assert_int_eq(store_append_timelines(s, tl, 3, &err), SLOG_OK);
    const store_timeline_row upd = {3, 7, 2, 0, 42, 99};
    ck_assert_int_eq(store_update_timeline(s, &upd, &err), SLOG_OK);
    const store_timeline_row bad = {5, 7, 2, 0, 42, 99};
    ck_assert_int_eq(store_update_timeline(s, &bad, &err), SLOG_EINVAL);
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
    store_header got;
    ck_assert_int_eq(store_open(&s, path, &got, &err), SLOG_OK);
    store_timeline_row *rows = NULL;
    uint64_t n = 0;
    ck_assert_int_eq(store_read_timelines(s, &rows, &n, &err), SLOG_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(rows[1].sort_key, 42);
    ck_assert_uint_eq(rows[1].name, 99);
    ck_assert_uint_eq(rows[0].id, 7);
    util_free(rows);
    ck_assert_int_eq(store_append_nodes(s, NULL, 0, &err), SLOG_ESTATE);
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
}
END_TEST

START_TEST(test_store_killed_writer_opens_up_to_flush)
{
    const size_t sizes[] = {9000};
    const pid_t pid = fork();
    ck_assert_int_ne(pid, -1);
    if (pid == 0) {
        uint64_t off[1];
        write_file(4096, 100, sizes, 1, off, false); /* flushed, never closed */
        _exit(0);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    slog_error err;
    store *s = NULL;
    store_header h;
    ck_assert_int_eq(store_open(&s, path, &h, &err), SLOG_OK);
    store_node_row *nodes = NULL;
    uint64_t n = 0;
    ck_assert_int_eq(store_read_nodes(s, &nodes, &n, &err), SLOG_OK);
    ck_assert_uint_eq(n, 100);
    const store_node_row r = node_row(99);
    ck_assert_int_eq(memcmp(&nodes[99], &r, sizeof r), 0);
    util_free(nodes);
    check_blob(s, 0, sizes[0], 0, NULL);
    store_summary sum;
    ck_assert_int_eq(store_read_summary(s, &sum, &err), SLOG_OK);
    ck_assert_uint_eq(sum.nodes, 100);
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
}
END_TEST

static void append_nodes(store *s, uint32_t first, uint32_t n)
{
    slog_error err;
    for (uint32_t i = first; i < first + n; i++) {
        const store_node_row r = node_row(i);
        ck_assert_int_eq(store_append_nodes(s, &r, 1, &err), SLOG_OK);
    }
    ck_assert_int_eq(store_flush(s, &err), SLOG_OK);
}

static void live_writer(int to_reader, int from_reader)
{
    slog_error err;
    store *s = NULL;
    const store_header h = test_header(4096);
    char byte = 'w';
    if (store_create(&s, path, &h, 0, &err) != SLOG_OK) {
        _exit(1);
    }
    append_nodes(s, 0, 100);
    if (write(to_reader, &byte, 1) != 1 || read(from_reader, &byte, 1) != 1) {
        _exit(2);
    }
    append_nodes(s, 100, 150);
    if (write(to_reader, &byte, 1) != 1 || read(from_reader, &byte, 1) != 1) {
        _exit(3);
    }
    _exit(store_close(s, &err) == SLOG_OK ? 0 : 4);
}

static uint64_t count_nodes(store *s)
{
    slog_error err;
    store_node_row *nodes = NULL;
    uint64_t n = 0;
    ck_assert_int_eq(store_read_nodes(s, &nodes, &n, &err), SLOG_OK);
    if (n > 0) {
        const store_node_row r = node_row((uint32_t)n - 1);
        ck_assert_int_eq(memcmp(&nodes[n - 1], &r, sizeof r), 0);
    }
    util_free(nodes);
    return n;
}

START_TEST(test_store_live_reader_follows_writer)
{
    int w2r[2];
    int r2w[2];
    ck_assert_int_eq(pipe(w2r), 0);
    ck_assert_int_eq(pipe(r2w), 0);
    const pid_t pid = fork();
    ck_assert_int_ne(pid, -1);
    if (pid == 0) {
        live_writer(w2r[1], r2w[0]);
    }
    char byte = 'r';
    ck_assert_int_eq(read(w2r[0], &byte, 1), 1);
    slog_error err;
    store *s = NULL;
    store_header h;
    ck_assert_int_eq(store_open(&s, path, &h, &err), SLOG_OK);
    ck_assert_uint_eq(count_nodes(s), 100);
    ck_assert_int_eq(write(r2w[1], &byte, 1), 1);
    ck_assert_int_eq(read(w2r[0], &byte, 1), 1);
    ck_assert_uint_eq(count_nodes(s), 250);
    ck_assert_int_eq(write(r2w[1], &byte, 1), 1);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
}
END_TEST

START_TEST(test_store_reader_opens_file_of_open_writer)
{
    slog_error err;
    store *w = NULL;
    const store_header h = test_header(4096);
    ck_assert_int_eq(store_create(&w, path, &h, 0, &err), SLOG_OK);
    append_nodes(w, 0, 10);
    store *r = NULL;
    store_header got;
    ck_assert_int_eq(store_open(&r, path, &got, &err), SLOG_OK);
    ck_assert_uint_eq(count_nodes(r), 10);
    append_nodes(w, 10, 5);
    ck_assert_uint_eq(count_nodes(r), 15);
    ck_assert_int_eq(store_close(r, &err), SLOG_OK);
    ck_assert_int_eq(store_close(w, &err), SLOG_OK);
}
END_TEST

static void expect_open_fails(int code, const char *needle)
{
    slog_error err;
    err_poison(&err);
    store *s = (store *)&err;
    store_header h;
    ck_assert_int_eq(store_open(&s, path, &h, &err), code);
    ck_assert_ptr_null(s);
    ck_assert_int_eq(err.code, code);
    ck_assert_str_eq(err.source, path);
    if (needle != NULL) {
        ck_assert_msg(strstr(err.message, needle) != NULL, "message: %s", err.message);
    }
}

START_TEST(test_store_missing_file_is_eio)
{
    expect_open_fails(SLOG_EIO, "No such file");
}
END_TEST

/* No descriptor left (a merge of more files than the limit): the open says
 * so (EIO, the system's reason), not that the file is no HDF5 file. */
START_TEST(test_store_no_descriptor_left_is_eio)
{
    slog_error err;
    store *s = NULL;
    const store_header h = test_header(65536);
    ck_assert_int_eq(store_create(&s, path, &h, 0, &err), SLOG_OK);
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
    struct rlimit rl;
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    rl.rlim_cur = 64; /* this test's own process (Check forks one per test) */
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    int fds[64], n = 0;
    while (n < 64 && (fds[n] = dup(0)) >= 0) {
        n++;
    }
    expect_open_fails(SLOG_EIO, "Too many open files");
    while (n > 0) {
        (void)close(fds[--n]);
    }
    store_header got;
    ck_assert_int_eq(store_open(&s, path, &got, &err), SLOG_OK);
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
}
END_TEST

START_TEST(test_store_not_hdf5_is_eformat)
{
    FILE *const f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 1000; i++) {
        (void)fputs("{\"traceEvents\": []}\n", f);
    }
    ck_assert_int_eq(fclose(f), 0);
    expect_open_fails(SLOG_EFORMAT, "Not an HDF5 file");
    FILE *const g = fopen(path, "w");
    ck_assert_int_eq(fclose(g), 0);
    expect_open_fails(SLOG_EFORMAT, NULL);
}
END_TEST

START_TEST(test_store_hdf5_without_magic_is_eformat)
{
    const hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(f, 0);
    const hsize_t dims[1] = {4};
    const hid_t sp = H5Screate_simple(1, dims, NULL);
    const hid_t d =
        H5Dcreate2(f, "nodes", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(d, 0);
    H5Dclose(d);
    H5Sclose(sp);
    H5Fclose(f);
    expect_open_fails(SLOG_EFORMAT, "Not a libslog file");
}
END_TEST

/* Reopen a closed store file read-write with plain HDF5 and apply fn. */
static void patch_file(void (*fn)(hid_t file))
{
    const hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    ck_assert_int_ge(f, 0);
    fn(f);
    ck_assert_int_ge(H5Fclose(f), 0);
}

static void bump_read_version(hid_t f)
{
    const hid_t a = H5Aopen_by_name(f, "/", "format_read_version", H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(a, 0);
    const uint32_t v = STORE_FORMAT_READ_VERSION + 1;
    ck_assert_int_ge(H5Awrite(a, H5T_NATIVE_UINT32, &v), 0);
    H5Aclose(a);
}

START_TEST(test_store_version_too_new_is_eversion)
{
    write_file(4096, 1, NULL, 0, NULL, true);
    patch_file(bump_read_version);
    char want[64];
    (void)snprintf(want, sizeof want, "format read version %u", STORE_FORMAT_READ_VERSION + 1);
    expect_open_fails(SLOG_EVERSION, want);
}
END_TEST

static void delete_nodes(hid_t f)
{
    ck_assert_int_ge(H5Ldelete(f, "nodes", H5P_DEFAULT), 0);
}

START_TEST(test_store_missing_dataset_is_ecorrupt)
{
    write_file(4096, 1, NULL, 0, NULL, true);
    patch_file(delete_nodes);
    expect_open_fails(SLOG_ECORRUPT, "/nodes");
}
END_TEST

static void retype_nodes(hid_t f)
{
    ck_assert_int_ge(H5Ldelete(f, "nodes", H5P_DEFAULT), 0);
    const hsize_t dims[1] = {3};
    const hid_t sp = H5Screate_simple(1, dims, NULL);
    const hid_t t = H5Tcreate(H5T_COMPOUND, 8);
    H5Tinsert(t, "level", 0, H5T_STD_U32LE);
    H5Tinsert(t, "flags", 4, H5T_STD_U16LE);
    const hid_t d = H5Dcreate2(f, "nodes", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(d, 0);
    H5Dclose(d);
    H5Tclose(t);
    H5Sclose(sp);
}

START_TEST(test_store_wrong_type_is_ecorrupt)
{
    write_file(4096, 1, NULL, 0, NULL, true);
    patch_file(retype_nodes);
    expect_open_fails(SLOG_ECORRUPT, "wrong type");
}
END_TEST

static void delete_fanout(hid_t f)
{
    ck_assert_int_ge(H5Adelete(f, "fanout"), 0);
}

START_TEST(test_store_missing_attribute_is_ecorrupt)
{
    write_file(4096, 1, NULL, 0, NULL, true);
    patch_file(delete_fanout);
    expect_open_fails(SLOG_ECORRUPT, "fanout");
}
END_TEST

static off_t file_size(const char *p)
{
    struct stat st;
    ck_assert_int_eq(stat(p, &st), 0);
    return st.st_size;
}

/* Open and read everything; any result but a crash is acceptable, and a
 * failure must carry an error code. */
static int open_and_read_all(const char *p, const uint64_t *off, const size_t *sizes, size_t nb)
{
    slog_error err;
    store *s = NULL;
    store_header h;
    int rc = store_open(&s, p, &h, &err);
    if (rc < 0) {
        ck_assert_int_eq(err.code, rc);
        return rc;
    }
    store_node_row *nodes = NULL;
    uint64_t n = 0;
    rc = store_read_nodes(s, &nodes, &n, &err);
    for (size_t b = 0; rc == SLOG_OK && b < nb; b++) {
        unsigned char *const buf = malloc(sizes[b] + 1);
        rc = store_read_blob(s, off[b], sizes[b], buf, NULL, &err);
        free(buf);
    }
    util_free(nodes);
    store_summary sum;
    if (rc == SLOG_OK) {
        rc = store_read_summary(s, &sum, &err);
    }
    (void)store_close(s, NULL);
    return rc;
}

/* Cut the file at 39 lengths; each cut must fail to open or to read. */
static void check_truncations(const uint64_t *off, const size_t *sizes, size_t nb)
{
    ck_assert_int_eq(open_and_read_all(path, off, sizes, nb), SLOG_OK);
    const off_t full = file_size(path);
    char cut[600];
    (void)snprintf(cut, sizeof cut, "%s/cut.slog", tmpdir);
    for (int k = 1; k < 40; k++) {
        const off_t len = full * k / 40;
        char cmd[1400];
        (void)snprintf(cmd, sizeof cmd, "head -c %lld '%s' > '%s'", (long long)len, path, cut);
        ck_assert_int_eq(system(cmd), 0);
        const int rc = open_and_read_all(cut, off, sizes, nb);
        ck_assert_msg(rc == SLOG_ECORRUPT || rc == SLOG_EFORMAT, "cut at %lld: rc %d",
                      (long long)len, rc);
    }
}

START_TEST(test_store_truncated_file_is_error)
{
    const size_t sizes[] = {20000, 30000};
    uint64_t off[2];
    write_file(4096, 300, sizes, 2, off, true);
    check_truncations(off, sizes, 2);
}
END_TEST

START_TEST(test_store_truncated_file_of_killed_writer_is_error)
{
    const size_t sizes[] = {20000, 30000};
    const uint64_t off[2] = {0, 20480};
    const pid_t pid = fork();
    ck_assert_int_ne(pid, -1);
    if (pid == 0) {
        uint64_t got[2];
        write_file(4096, 300, sizes, 2, got, false); /* flushed, never closed */
        _exit(got[1] == off[1] ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    check_truncations(off, sizes, 2);
}
END_TEST

static void poke(off_t where, const void *bytes, size_t n)
{
    const int fd = open(path, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, bytes, n, where), (ssize_t)n);
    ck_assert_int_eq(close(fd), 0);
}

START_TEST(test_store_bad_superblock_checksum_is_ecorrupt_fast)
{
    write_file(4096, 1, NULL, 0, NULL, true);
    /* Superblock v3: 8-byte signature, then versions, addresses and a
     * checksum; byte 30 lies in the end-of-file address. */
    const unsigned char junk = 0x5a;
    poke(30, &junk, 1);
    const time_t t0 = time(NULL);
    expect_open_fails(SLOG_ECORRUPT, "checksum");
    ck_assert_int_le(time(NULL) - t0, 3);
}
END_TEST

/* File address and size of the /payload chunk at byte coff. */
static void chunk_location(uint64_t coff, haddr_t *addr, hsize_t *size)
{
    const hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t d = H5Dopen2(f, "payload", H5P_DEFAULT);
    ck_assert_int_ge(d, 0);
    const hsize_t off[1] = {coff};
    unsigned mask = 0;
    ck_assert_int_ge(H5Dget_chunk_info_by_coord(d, off, &mask, addr, size), 0);
    H5Dclose(d);
    H5Fclose(f);
}

START_TEST(test_store_corrupt_payload_is_ecorrupt)
{
    const size_t sizes[] = {12288};
    uint64_t off[1];
    write_file(4096, 1, sizes, 1, off, true);
    haddr_t addr = 0;
    hsize_t size = 0;
    chunk_location(4096, &addr, &size);
    ck_assert_uint_gt(size, 16);
    /* Block length prefix past the end of the chunk. */
    const unsigned char junk[4] = {0x7f, 0xff, 0x00, 0x01};
    poke((off_t)addr + 12, junk, sizeof junk);
    slog_error err;
    store *s = NULL;
    store_header h;
    ck_assert_int_eq(store_open(&s, path, &h, &err), SLOG_OK);
    unsigned char buf[3 * 4096];
    err_poison(&err);
    ck_assert_int_eq(store_read_blob(s, 0, sizeof buf, buf, NULL, &err), SLOG_ECORRUPT);
    ck_assert_int_eq(err.code, SLOG_ECORRUPT);
    ck_assert_uint_eq(err.offset, 4096);
    ck_assert_msg(strstr(err.message, "byte 4096") != NULL, "%s", err.message);
    /* The chunks before and after still read. */
    ck_assert_int_eq(store_read_blob(s, 0, 4096, buf, NULL, &err), SLOG_OK);
    ck_assert_int_eq(store_read_blob(s, 8192, 4096, buf, NULL, &err), SLOG_OK);
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
    /* Announced size wrong: decodes, but not to the chunk size. */
    const unsigned char small[8] = {0, 0, 0, 0, 0, 0, 0x0f, 0xff};
    write_file(4096, 1, sizes, 1, off, true);
    chunk_location(0, &addr, &size);
    poke((off_t)addr, small, sizeof small);
    ck_assert_int_eq(store_open(&s, path, &h, &err), SLOG_OK);
    err_poison(&err);
    ck_assert_int_eq(store_read_blob(s, 0, 100, buf, NULL, &err), SLOG_ECORRUPT);
    ck_assert_uint_eq(err.offset, 0);
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
}
END_TEST

START_TEST(test_store_filter_decodes_through_hdf5)
{
    const size_t sizes[] = {10000};
    uint64_t off[1];
    write_file(4096, 1, sizes, 1, off, true);
    slog_error err;
    ck_assert_int_eq(store_register_lz4_filter(&err), SLOG_OK);
    ck_assert_int_gt(H5Zfilter_avail(32004), 0);
    const hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t d = H5Dopen2(f, "payload", H5P_DEFAULT);
    ck_assert_int_ge(d, 0);
    unsigned char got[3 * 4096];
    ck_assert_int_ge(H5Dread(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, got), 0);
    unsigned char want[10000];
    fill_blob(want, sizeof want, 0);
    ck_assert_int_eq(memcmp(got, want, sizeof want), 0);
    for (size_t i = sizeof want; i < sizeof got; i++) {
        ck_assert_uint_eq(got[i], 0);
    }
    H5Dclose(d);
    H5Fclose(f);
    /* A corrupt chunk makes H5Dread fail, not crash. */
    haddr_t addr = 0;
    hsize_t size = 0;
    chunk_location(4096, &addr, &size);
    const unsigned char junk[4] = {0x7f, 0xff, 0x00, 0x01};
    poke((off_t)addr + 12, junk, sizeof junk);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const hid_t f2 = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t d2 = H5Dopen2(f2, "payload", H5P_DEFAULT);
    ck_assert_int_lt(H5Dread(d2, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, got), 0);
    H5Dclose(d2);
    H5Fclose(f2);
}
END_TEST

/* Path-like names, as DFTracer's file tables give: about 200 KB of them. */
static char *many_names(size_t *n)
{
    const size_t want = 200000;
    char *const p = malloc(want + 128);
    ck_assert_ptr_nonnull(p);
    size_t at = 0;
    for (unsigned i = 0; at < want; i++) {
        at += (size_t)snprintf(p + at, 128, "/p/gpfs1/run%02u/out/rank%04u/file_%06u.dat", i % 7,
                               i / 7 % 512, i) +
              1;
    }
    *n = at;
    return p;
}

/* /strings as plain HDF5 sees it: its one filter, chunk size, stored bytes
 * and the heap itself (read without any plugin). */
static hsize_t strings_storage(H5Z_filter_t *filter, hsize_t *chunk, char *heap, size_t n)
{
    const hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t d = H5Dopen2(f, "strings", H5P_DEFAULT);
    ck_assert_int_ge(d, 0);
    const hid_t dcpl = H5Dget_create_plist(d);
    ck_assert_int_eq(H5Pget_nfilters(dcpl), 1);
    unsigned flags = 0;
    unsigned config = 0;
    size_t ncd = 0;
    *filter = H5Pget_filter2(dcpl, 0, &flags, &ncd, NULL, 0, NULL, &config);
    ck_assert_int_eq(H5Pget_chunk(dcpl, 1, chunk), 1);
    const hsize_t stored = H5Dget_storage_size(d);
    const hid_t sp = H5Dget_space(d);
    ck_assert_int_eq(H5Sget_simple_extent_npoints(sp), (hssize_t)n);
    ck_assert_int_ge(H5Dread(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, heap), 0);
    H5Sclose(sp);
    H5Pclose(dcpl);
    H5Dclose(d);
    H5Fclose(f);
    return stored;
}

/* /strings is deflated by HDF5 (doc/FORMAT.md §4): many names, appended
 * over several flushes as a writer does (each rewrites the last chunk),
 * take a fraction of their bytes and read back exactly through the store
 * and through plain HDF5; a few names take less than the 512-byte raw
 * chunk of earlier files. */
START_TEST(test_store_strings_are_deflated)
{
    size_t n = 0;
    char *const names = many_names(&n);
    slog_error err;
    store *s = NULL;
    const store_header h = test_header(4096);
    ck_assert_int_eq(store_create(&s, path, &h, 0, &err), SLOG_OK);
    for (size_t part = 0, done = 0; part < 7; part++) {
        const size_t upto = part == 6 ? n : n / 7 * (part + 1);
        ck_assert_int_eq(store_append_strings(s, names + done, upto - done, &err), SLOG_OK);
        ck_assert_int_eq(store_flush(s, &err), SLOG_OK);
        done = upto;
    }
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
    H5Z_filter_t filter = H5Z_FILTER_NONE;
    hsize_t chunk = 0;
    char *const heap = malloc(n);
    const hsize_t stored = strings_storage(&filter, &chunk, heap, n);
    ck_assert_int_eq(filter, H5Z_FILTER_DEFLATE);
    ck_assert_uint_eq(chunk, 16384);
    ck_assert_msg(stored < n / 5, "%zu bytes of names stored in %llu", n,
                  (unsigned long long)stored);
    ck_assert_int_eq(memcmp(heap, names, n), 0);
    store_header got;
    ck_assert_int_eq(store_open(&s, path, &got, &err), SLOG_OK);
    char *str = NULL;
    uint64_t len = 0;
    ck_assert_int_eq(store_read_strings(s, &str, &len, &err), SLOG_OK);
    ck_assert_uint_eq(len, n);
    ck_assert_int_eq(memcmp(str, names, n), 0);
    util_free(str);
    ck_assert_int_eq(store_close(s, &err), SLOG_OK);
    write_file(4096, 1, NULL, 0, NULL, true); /* strings: 21 bytes */
    ck_assert_uint_lt(strings_storage(&filter, &chunk, heap, sizeof strings), 128);
    ck_assert_int_eq(memcmp(heap, strings, sizeof strings), 0);
    free(heap);
    free(names);
}
END_TEST

START_TEST(test_store_create_rejects_bad_chunk_size)
{
    slog_error err;
    store *s = NULL;
    const store_header h = test_header(0);
    err_poison(&err);
    ck_assert_int_eq(store_create(&s, path, &h, 0, &err), SLOG_EINVAL);
    ck_assert_ptr_null(s);
    ck_assert_int_eq(err.code, SLOG_EINVAL);
}
END_TEST

START_TEST(test_store_create_out_of_memory_is_clean)
{
    for (size_t n = 0; n < 50; n++) {
        slog_error err;
        store *s = NULL;
        const store_header h = test_header(4096);
        util_alloc_fail_after(n);
        const int rc = store_create(&s, path, &h, 0, &err);
        util_alloc_fail_after((size_t)-1);
        if (rc == SLOG_OK) {
            ck_assert_int_eq(store_close(s, &err), SLOG_OK);
            return;
        }
        ck_assert_int_eq(rc, SLOG_ENOMEM);
        ck_assert_ptr_null(s);
    }
    ck_abort_msg("store_create never succeeded");
}
END_TEST

/* Open, read a table and a blob with the Nth allocation failing. */
static int open_read_with_failure(size_t n)
{
    slog_error err;
    store *s = NULL;
    store_header h;
    unsigned char buf[5000];
    util_alloc_fail_after(n);
    int rc = store_open(&s, path, &h, &err);
    store_node_row *nodes = NULL;
    uint64_t count = 0;
    if (rc == SLOG_OK) {
        rc = store_read_nodes(s, &nodes, &count, &err);
    }
    if (rc == SLOG_OK) {
        rc = store_read_blob(s, 0, sizeof buf, buf, NULL, &err);
    }
    util_alloc_fail_after((size_t)-1);
    util_free(nodes);
    if (s != NULL) {
        ck_assert_int_eq(store_close(s, &err), SLOG_OK);
    }
    ck_assert(rc == SLOG_OK || (rc == SLOG_ENOMEM && err.code == SLOG_ENOMEM));
    return rc;
}

START_TEST(test_store_open_out_of_memory_is_clean)
{
    const size_t sizes[] = {5000};
    uint64_t off[1];
    write_file(4096, 10, sizes, 1, off, true);
    for (size_t n = 0; n < 50; n++) {
        if (open_read_with_failure(n) == SLOG_OK) {
            return;
        }
    }
    ck_abort_msg("store_open never succeeded");
}
END_TEST

static Suite *store_suite(void)
{
    Suite *const s = suite_create("store");
    struct {
        const char *name;
        const TTest *fn;
    } tests[] = {
        {"round_trip_tables", test_store_round_trip_tables},
        {"empty_file_opens", test_store_empty_file_opens},
        {"blobs_across_chunks", test_store_blobs_across_chunks},
        {"blob_past_end_is_ecorrupt", test_store_blob_past_end_is_ecorrupt},
        {"update_timeline", test_store_update_timeline},
        {"killed_writer_opens_up_to_flush", test_store_killed_writer_opens_up_to_flush},
        {"live_reader_follows_writer", test_store_live_reader_follows_writer},
        {"reader_opens_file_of_open_writer", test_store_reader_opens_file_of_open_writer},
        {"missing_file_is_eio", test_store_missing_file_is_eio},
        {"no_descriptor_left_is_eio", test_store_no_descriptor_left_is_eio},
        {"not_hdf5_is_eformat", test_store_not_hdf5_is_eformat},
        {"hdf5_without_magic_is_eformat", test_store_hdf5_without_magic_is_eformat},
        {"version_too_new_is_eversion", test_store_version_too_new_is_eversion},
        {"missing_dataset_is_ecorrupt", test_store_missing_dataset_is_ecorrupt},
        {"wrong_type_is_ecorrupt", test_store_wrong_type_is_ecorrupt},
        {"missing_attribute_is_ecorrupt", test_store_missing_attribute_is_ecorrupt},
        {"truncated_file_is_error", test_store_truncated_file_is_error},
        {"truncated_file_of_killed_writer_is_error",
         test_store_truncated_file_of_killed_writer_is_error},
        {"corrupt_payload_is_ecorrupt", test_store_corrupt_payload_is_ecorrupt},
        {"bad_superblock_checksum_is_ecorrupt_fast",
         test_store_bad_superblock_checksum_is_ecorrupt_fast},
        {"filter_decodes_through_hdf5", test_store_filter_decodes_through_hdf5},
        {"strings_are_deflated", test_store_strings_are_deflated},
        {"create_rejects_bad_chunk_size", test_store_create_rejects_bad_chunk_size},
        {"create_out_of_memory_is_clean", test_store_create_out_of_memory_is_clean},
        {"open_out_of_memory_is_clean", test_store_open_out_of_memory_is_clean},
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        TCase *const tc = tcase_create(tests[i].name);
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, tests[i].fn);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    SRunner *const sr = srunner_create(store_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
