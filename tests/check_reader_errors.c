/* SPDX-License-Identifier: MIT
 *
 * check_reader_errors.c - opening what is not a good libslog file (issue 2
 * item 9): not HDF5 at all, HDF5 but not libslog, a newer format read
 * version, truncated copies, and copies with bytes flipped at many offsets.
 * Each gives a specific code with a non-empty message, never a crash; a
 * damaged file that still opens must answer queries with an error or with
 * well-formed data.  Node rows are read lazily (in blocks, verified when
 * read), so a damaged row far from the roots fails the query that meets it,
 * not the open.  Run under -Db_sanitize=address,undefined in CI.
 * Crafted HDF5 files are made with the HDF5 C API here.
 */
#include "ck_quiet.h"
#include <dirent.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "trace_ref.h"

static char tmpdir[256];
static char good[512];  /* a valid libslog file */
static char bad[512];   /* the crafted file of one test */
static unsigned char *good_bytes;
static size_t good_size;

static void tmpdir_setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/check_reader_errors.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        abort();
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void tmpdir_teardown(void)
{
    DIR *d = opendir(tmpdir);
    if (d) {
        const struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            char p[768];
            if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
                snprintf(p, sizeof p, "%s/%s", tmpdir, de->d_name);
                remove(p);
            }
        }
        closedir(d);
    }
    rmdir(tmpdir);
}

static void write_bytes(const char *p, const void *data, size_t n)
{
    FILE *f = fopen(p, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

static unsigned char *read_bytes(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    const long size = ftell(f);
    ck_assert_int_gt(size, 0);
    ck_assert_int_eq(fseek(f, 0, SEEK_SET), 0);
    unsigned char *buf = malloc((size_t)size);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *n = (size_t)size;
    return buf;
}

/* Checked fixture: a valid file with every kind and args, small leaves. */
static void good_setup(void)
{
    snprintf(good, sizeof good, "%s/good_%d.slog", tmpdir, (int)getpid());
    snprintf(bad, sizeof bad, "%s/bad_%d.slog", tmpdir, (int)getpid());
    const tref_params p = {.seed = 4242,
                         .timelines = 6,
                         .states = 3000,
                         .events = 300,
                         .arrows = 100,
                         .counters = 300,
                         .state_categories = 4,
                         .max_depth = 5,
                         .base = 0,
                         .span = 5000000,
                         .args_percent = 30};
    tref_trace t;
    if (tref_generate(&t, &p) != 0) {
        abort();
    }
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 1024;
    slog_error err;
    const int rc = tref_write(&t, good, &o, TR_ORDER_END, 1, true, &err);
    tref_free(&t);
    ck_assert_msg(rc == SLOG_OK, "writing the good file: %s: %s", slog_status_name(rc),
                  err.message);
    good_bytes = read_bytes(good, &good_size);
}

static void good_teardown(void)
{
    remove(good);
    remove(bad);
    free(good_bytes);
    good_bytes = NULL;
}

/* Open @p p expecting failure with one of @p codes; checks the error record. */
static int open_fails(const char *p, const int *codes, int ncodes)
{
    slog_reader *r = NULL;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    const int rc = slog_reader_open(&r, p, NULL, &err);
    bool listed = false;
    for (int i = 0; i < ncodes; i++) {
        listed = listed || rc == codes[i];
    }
    ck_assert_msg(listed, "open gave %s", slog_status_name(rc));
    ck_assert_ptr_null(r);
    ck_assert_int_eq(err.code, rc);
    ck_assert_msg(memchr(err.message, '\0', sizeof err.message) != NULL, "message unterminated");
    ck_assert_msg(err.message[0] != '\0', "empty message for %s", slog_status_name(rc));
    ck_assert_msg(memchr(err.source, '\0', sizeof err.source) != NULL, "source unterminated");
    ck_assert_msg(strcmp(err.source, p) == 0, "error source '%s', expected the file '%s'",
                  err.source, p);
    ck_assert_msg(err.offset == UINT64_MAX || err.offset <= (uint64_t)good_size + (1u << 20),
                  "error offset %llu", (unsigned long long)err.offset);
    /* A NULL error record is fine too. */
    ck_assert_int_eq(slog_reader_open(&r, p, NULL, NULL), rc);
    ck_assert_ptr_null(r);
    return rc;
}

static const int format_only[] = {SLOG_EFORMAT};

/* ---- not HDF5 -------------------------------------------------------------------------- */

START_TEST(test_reader_errors_not_hdf5_is_format_error)
{
    unsigned char buf[8192];
    size_t n = 0;
    switch (_i) {
    case 0: /* empty */
        break;
    case 1: { /* random bytes */
        tref_rng r;
        tref_rng_seed(&r, 1);
        for (size_t i = 0; i < sizeof buf; i++) {
            buf[i] = (unsigned char)tref_rng_next(&r);
        }
        n = sizeof buf;
        break;
    }
    case 2: { /* text */
        const char *text = "{\"traceEvents\": []}\nthis is not a trace\n";
        n = strlen(text);
        memcpy(buf, text, n);
        break;
    }
    case 3: /* one byte */
        buf[0] = 0x89;
        n = 1;
        break;
    default: /* zeros */
        memset(buf, 0, sizeof buf);
        n = sizeof buf;
        break;
    }
    write_bytes(bad, buf, n);
    open_fails(bad, format_only, 1);
}
END_TEST

START_TEST(test_reader_errors_missing_file_is_io_error)
{
    static const int io[] = {SLOG_EIO};
    char p[600];
    snprintf(p, sizeof p, "%s/does-not-exist.slog", tmpdir);
    open_fails(p, io, 1);
}
END_TEST

/* ---- HDF5 but not libslog ---------------------------------------------------------------- */

START_TEST(test_reader_errors_foreign_hdf5_is_format_error)
{
    const hid_t f = H5Fcreate(bad, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(f, 0);
    if (_i >= 1) {
        const hsize_t dims[1] = {16};
        const hid_t sp = H5Screate_simple(1, dims, NULL);
        const hid_t d = H5Dcreate2(f, _i == 1 ? "data" : "payload", H5T_NATIVE_INT32, sp,
                                   H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        ck_assert_int_ge(d, 0);
        int32_t v[16];
        for (int i = 0; i < 16; i++) {
            v[i] = i;
        }
        ck_assert_int_ge(H5Dwrite(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
        H5Dclose(d);
        const hid_t g = H5Gcreate2(f, "nodes", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Gclose(g);
        const hid_t as = H5Screate(H5S_SCALAR);
        const hid_t a = H5Acreate2(f, "format_read_version", H5T_NATIVE_UINT32, as, H5P_DEFAULT,
                                   H5P_DEFAULT);
        const uint32_t one = 1;
        ck_assert_int_ge(H5Awrite(a, H5T_NATIVE_UINT32, &one), 0);
        H5Aclose(a);
        H5Sclose(as);
        H5Sclose(sp);
    }
    H5Fclose(f);
    open_fails(bad, format_only, 1);
}
END_TEST

/* ---- newer format version ------------------------------------------------------------------ */

typedef struct attr_names {
    char names[64][128];
    int n;
} attr_names;

static herr_t collect_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)loc;
    (void)info;
    attr_names *an = data;
    if (an->n < 64) {
        snprintf(an->names[an->n++], sizeof an->names[0], "%s", name);
    }
    return 0;
}

static bool names_read_version(const char *name)
{
    char low[128];
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof low; i++) {
        low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
    }
    low[i] = '\0';
    return strstr(low, "read") && strstr(low, "version");
}

/* Set every integer field named like "*read*version*" in the root
 * attributes (plain or inside a compound) to 999.  Returns how many. */
static int bump_read_version(const char *p)
{
    const hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    ck_assert_msg(f >= 0, "HDF5 cannot open the libslog file read-write");
    attr_names an = {.n = 0};
    hsize_t idx = 0;
    H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_attr, &an);
    int bumped = 0;
    for (int i = 0; i < an.n; i++) {
        const hid_t a = H5Aopen(f, an.names[i], H5P_DEFAULT);
        const hid_t type = H5Aget_type(a);
        const H5T_class_t cls = H5Tget_class(type);
        const hid_t space = H5Aget_space(a);
        const hssize_t npoints = H5Sget_simple_extent_npoints(space);
        const size_t tsize = H5Tget_size(type);
        if (cls == H5T_INTEGER && names_read_version(an.names[i]) && npoints >= 1) {
            uint64_t v[16];
            for (int k = 0; k < 16; k++) {
                v[k] = 999;
            }
            ck_assert_int_le(npoints, 16);
            ck_assert_int_ge(H5Awrite(a, H5T_NATIVE_UINT64, v), 0);
            bumped++;
        } else if (cls == H5T_COMPOUND && npoints == 1) {
            unsigned char *buf = calloc(1, tsize);
            ck_assert_ptr_nonnull(buf);
            ck_assert_int_ge(H5Aread(a, type, buf), 0);
            const int nm = H5Tget_nmembers(type);
            int changed = 0;
            for (int m = 0; m < nm; m++) {
                char *mname = H5Tget_member_name(type, (unsigned)m);
                const hid_t mt = H5Tget_member_type(type, (unsigned)m);
                if (mname && names_read_version(mname) && H5Tget_class(mt) == H5T_INTEGER) {
                    const size_t off = H5Tget_member_offset(type, (unsigned)m);
                    const size_t msz = H5Tget_size(mt);
                    const uint64_t v = 999;
                    ck_assert_uint_le(msz, 8);
                    memcpy(buf + off, &v, msz); /* little-endian host and file */
                    changed++;
                }
                H5Tclose(mt);
                H5free_memory(mname);
            }
            if (changed) {
                ck_assert_int_ge(H5Awrite(a, type, buf), 0);
                bumped += changed;
            }
            free(buf);
        }
        H5Sclose(space);
        H5Tclose(type);
        H5Aclose(a);
    }
    H5Fclose(f);
    return bumped;
}

START_TEST(test_reader_errors_newer_read_version_is_version_error)
{
    write_bytes(bad, good_bytes, good_size);
    ck_assert_msg(bump_read_version(bad) > 0, "no root attribute holds the format read version");
    static const int version[] = {SLOG_EVERSION};
    open_fails(bad, version, 1);
}
END_TEST

/* ---- truncated -------------------------------------------------------------------------------- */

/* Full-detail content of a file, sorted keys; status in res->status. */
static int all_items(slog_reader *r, tref_result *res)
{
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.flags = SLOG_QUERY_ARGS;
    q.t0 = INT64_MIN;
    q.t1 = INT64_MAX;
    tref_run_query(r, &q, res);
    tref_sort_keys(res->keys, res->nkeys);
    return res->status;
}

START_TEST(test_reader_errors_truncated_is_error_never_silent)
{
    static const double cuts[] = {0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99};
    static const int open_codes[] = {SLOG_ECORRUPT, SLOG_EFORMAT, SLOG_EIO};
    size_t size = (size_t)((double)good_size * cuts[_i % 8]);
    if (_i >= 8) {
        size = good_size - (size_t)(_i - 7);
    }
    write_bytes(bad, good_bytes, size);
    slog_reader *r = NULL;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    const int rc = slog_reader_open(&r, bad, NULL, &err);
    if (rc != SLOG_OK) {
        open_fails(bad, open_codes, 3);
        return;
    }
    /* It opened: then the data must all be there, or the query must fail. */
    slog_reader *g = NULL;
    ck_assert_int_eq(slog_reader_open(&g, good, NULL, NULL), SLOG_OK);
    tref_result want, got;
    ck_assert_int_eq(all_items(g, &want), SLOG_END);
    const int qs = all_items(r, &got);
    if (qs == SLOG_END) {
        char msg[1024];
        ck_assert_msg(tref_same_keys(got.keys, got.nkeys, want.keys, want.nkeys, msg, sizeof msg),
                      "file cut to %zu of %zu bytes opens and answers wrongly without error: %s",
                      size, good_size, msg);
    } else {
        ck_assert_msg(qs == SLOG_ECORRUPT || qs == SLOG_EIO, "query gave %s",
                      slog_status_name(qs));
        ck_assert_int_eq(got.err.code, qs);
        ck_assert(got.err.message[0] != '\0');
    }
    tref_result_free(&want);
    tref_result_free(&got);
    slog_reader_destroy(g);
    slog_reader_destroy(r);
}
END_TEST

/* ---- corrupted bytes --------------------------------------------------------------------------- */

static void assert_well_formed(const slog_reader *r, const slog_item *it)
{
    const slog_file_info *in = slog_reader_info(r);
    switch (it->kind) {
    case SLOG_KIND_STATE:
        ck_assert_uint_lt(it->u.state.timeline, in->timelines);
        ck_assert_uint_lt(it->u.state.category, in->categories);
        ck_assert_int_le(it->u.state.start, it->u.state.end);
        ck_assert(it->u.state.nargs == 0 || it->u.state.args != NULL);
        for (uint32_t i = 0; i < it->u.state.nargs; i++) {
            ck_assert_ptr_nonnull(it->u.state.args[i].key);
        }
        break;
    case SLOG_KIND_EVENT:
        ck_assert_uint_lt(it->u.event.timeline, in->timelines);
        ck_assert_uint_lt(it->u.event.category, in->categories);
        ck_assert(it->u.event.nargs == 0 || it->u.event.args != NULL);
        break;
    case SLOG_KIND_ARROW:
        ck_assert_uint_lt(it->u.arrow.from, in->timelines);
        ck_assert_uint_lt(it->u.arrow.to, in->timelines);
        ck_assert_uint_lt(it->u.arrow.category, in->categories);
        ck_assert_int_le(it->u.arrow.start, it->u.arrow.end);
        break;
    case SLOG_KIND_COUNTER:
        ck_assert_uint_lt(it->u.counter.timeline, in->timelines);
        ck_assert_uint_lt(it->u.counter.category, in->categories);
        break;
    case SLOG_KIND_PREVIEW:
        ck_assert_uint_le(it->u.preview.of, SLOG_KIND_COUNTER);
        ck_assert(it->u.preview.category == SLOG_CATEGORY_OTHER ||
                  it->u.preview.category < in->categories);
        break;
    case SLOG_KIND_RUN:
        ck_assert_uint_le(it->u.run.of, SLOG_KIND_COUNTER);
        ck_assert_uint_lt(it->u.run.timeline, in->timelines);
        ck_assert_uint_lt(it->u.run.category, in->categories);
        ck_assert_uint_ge(it->u.run.count, 2);
        ck_assert_uint_ge(it->u.run.ncategories, 1);
        ck_assert_int_le(it->u.run.start, it->u.run.end);
        break;
    default:
        ck_abort_msg("item of kind %d", (int)it->kind);
    }
    /* Args strings must be readable (ASan catches bad pointers). */
    const slog_arg *args = it->kind == SLOG_KIND_STATE   ? it->u.state.args
                           : it->kind == SLOG_KIND_EVENT ? it->u.event.args
                           : it->kind == SLOG_KIND_ARROW ? it->u.arrow.args
                                                         : NULL;
    const uint32_t nargs = it->kind == SLOG_KIND_STATE   ? it->u.state.nargs
                           : it->kind == SLOG_KIND_EVENT ? it->u.event.nargs
                           : it->kind == SLOG_KIND_ARROW ? it->u.arrow.nargs
                                                         : 0;
    for (uint32_t i = 0; args && i < nargs; i++) {
        (void)strlen(args[i].key);
        if (args[i].type == SLOG_ARG_STRING || args[i].type == SLOG_ARG_JSON) {
            ck_assert_ptr_nonnull(args[i].v.s);
            (void)strlen(args[i].v.s);
        }
    }
}

/* Queries on a damaged file end with SLOG_END or a documented error. */
static void query_damaged(slog_reader *r, int64_t t0, int64_t t1, int64_t resolution)
{
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.flags = SLOG_QUERY_ARGS;
    q.t0 = t0;
    q.t1 = t1;
    q.resolution = resolution;
    slog_query *qq = NULL;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    int rc = slog_query_create(&qq, r, &q, &err);
    if (rc != SLOG_OK) {
        ck_assert_msg(rc == SLOG_ENOMEM || rc == SLOG_ECORRUPT || rc == SLOG_EIO,
                      "query_create gave %s", slog_status_name(rc));
        return;
    }
    const slog_item *it = NULL;
    uint64_t n = 0;
    while ((rc = slog_query_next(qq, &it, &err)) == SLOG_OK) {
        assert_well_formed(r, it);
        n++;
        ck_assert_uint_lt(n, 100000000u);
    }
    ck_assert_msg(rc == SLOG_END || rc == SLOG_ECORRUPT || rc == SLOG_EIO || rc == SLOG_ENOMEM,
                  "query_next gave %s", slog_status_name(rc));
    if (rc != SLOG_END) {
        ck_assert_int_eq(err.code, rc);
        ck_assert(err.message[0] != '\0');
    }
    slog_query_destroy(qq);
}

#define FLIPS_PER_RUN 24

START_TEST(test_reader_errors_flipped_bytes_never_crash)
{
    static const int open_codes[] = {SLOG_EFORMAT, SLOG_ECORRUPT, SLOG_EIO, SLOG_EVERSION,
                                     SLOG_ENOMEM};
    unsigned char *copy = malloc(good_size);
    ck_assert_ptr_nonnull(copy);
    tref_rng rng;
    tref_rng_seed(&rng, 1000 + (uint64_t)_i);
    for (int k = 0; k < FLIPS_PER_RUN; k++) {
        memcpy(copy, good_bytes, good_size);
        /* Even runs: offsets spread over the whole file; odd runs: random
         * offsets in its middle half, where the payload lives. */
        size_t off;
        if (_i % 2 == 0) {
            off = (size_t)(((uint64_t)(_i / 2) * FLIPS_PER_RUN + (uint64_t)k) * good_size /
                           (FLIPS_PER_RUN * 4u));
        } else {
            off = good_size / 4 + (size_t)tref_rng_below(&rng, good_size / 2);
        }
        const size_t len = 1 + (size_t)tref_rng_below(&rng, 4);
        for (size_t b = off; b < off + len && b < good_size; b++) {
            copy[b] ^= (unsigned char)(1u + tref_rng_below(&rng, 255));
        }
        write_bytes(bad, copy, good_size);
        slog_reader *r = NULL;
        slog_error err;
        memset(&err, 0xff, sizeof err);
        const int rc = slog_reader_open(&r, bad, NULL, &err);
        if (rc != SLOG_OK) {
            bool listed = false;
            for (size_t c = 0; c < sizeof open_codes / sizeof open_codes[0]; c++) {
                listed = listed || rc == open_codes[c];
            }
            ck_assert_msg(listed, "flip at %zu: open gave %s", off, slog_status_name(rc));
            ck_assert_int_eq(err.code, rc);
            ck_assert(err.message[0] != '\0');
            continue;
        }
        const slog_file_info *in = slog_reader_info(r);
        const int64_t span = in->end > in->start ? in->end - in->start : 1;
        query_damaged(r, INT64_MIN, INT64_MAX, 0);
        query_damaged(r, in->start + span / 3, in->start + span / 2, 0);
        query_damaged(r, in->start, in->end + 1, span / 100 + 1);
        query_damaged(r, in->start + span / 4, in->start + span / 4 + span / 50, span / 5000 + 1);
        for (uint64_t i = 0; i < in->nodes && i < 100000; i++) {
            /* rows are read lazily: a damaged one is an error when met */
            slog_node_info ni;
            const int nrc = slog_reader_node(r, i, &ni);
            ck_assert_msg(nrc == SLOG_OK || nrc == SLOG_ECORRUPT || nrc == SLOG_EIO,
                          "node %llu gave %s", (unsigned long long)i, slog_status_name(nrc));
        }
        slog_reader_destroy(r);
    }
    free(copy);
}
END_TEST

/* ---- checksums (format 2) --------------------------------------------------------------- */

/* Read or write one element of dataset @p name at @p index, through a
 * memory type holding only member @p member (NULL: the whole u8 element). */
static void one_element(hid_t f, const char *name, const char *member, hid_t mtype, hsize_t index,
                        void *buf, int write)
{
    const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    ck_assert_int_ge(d, 0);
    hid_t t = mtype;
    if (member != NULL) {
        t = H5Tcreate(H5T_COMPOUND, H5Tget_size(mtype));
        ck_assert_int_ge(H5Tinsert(t, member, 0, mtype), 0);
    }
    const hid_t fs = H5Dget_space(d);
    const hsize_t one[1] = {1};
    const hid_t ms = H5Screate_simple(1, one, NULL);
    ck_assert_int_ge(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &index, NULL, one, NULL), 0);
    const herr_t rc = write ? H5Dwrite(d, t, ms, fs, H5P_DEFAULT, buf)
                            : H5Dread(d, t, ms, fs, H5P_DEFAULT, buf);
    ck_assert_int_ge(rc, 0);
    H5Sclose(ms);
    H5Sclose(fs);
    if (member != NULL) {
        H5Tclose(t);
    }
    H5Dclose(d);
}

/* Add 1 to a u64/i64 member (or flip a u8 byte) of one element in place. */
static void bump_element(const char *p, const char *name, const char *member, hsize_t index)
{
    const hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    ck_assert_int_ge(f, 0);
    if (member == NULL) {
        unsigned char b = 0;
        one_element(f, name, NULL, H5T_NATIVE_UINT8, index, &b, 0);
        b ^= 0x10;
        one_element(f, name, NULL, H5T_NATIVE_UINT8, index, &b, 1);
    } else {
        uint64_t v = 0;
        one_element(f, name, member, H5T_NATIVE_UINT64, index, &v, 0);
        v += 1;
        one_element(f, name, member, H5T_NATIVE_UINT64, index, &v, 1);
    }
    H5Fclose(f);
}

static uint64_t node0_member(const char *p, const char *member)
{
    const hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    ck_assert_int_ge(f, 0);
    uint64_t v = 0;
    one_element(f, "nodes", member, H5T_NATIVE_UINT64, 0, &v, 0);
    H5Fclose(f);
    return v;
}

static int query_all(slog_reader *r, uint32_t flags, slog_error *err)
{
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.flags = flags;
    q.t0 = INT64_MIN;
    q.t1 = INT64_MAX;
    slog_query *qy = NULL;
    int rc = slog_query_create(&qy, r, &q, err);
    const slog_item *it = NULL;
    while (rc == SLOG_OK) {
        rc = slog_query_next(qy, &it, err);
    }
    slog_query_destroy(qy);
    return rc;
}

static void expect_message(const slog_error *err, const char *a, const char *b)
{
    ck_assert_msg(strstr(err->message, a) != NULL && strstr(err->message, b) != NULL,
                  "message '%s' should name '%s' and '%s'", err->message, a, b);
}

/* A changed table row or string fails the open, naming the row; a changed
 * /nodes row that is not a root fails alone, when a query meets it (the
 * other rows of its block stay usable). */
START_TEST(test_reader_errors_checksum_catches_table_changes)
{
    static const struct {
        const char *dset, *member, *names;
    } cases[] = {{"nodes", "t0", "node 0 ["}, {"nodes", "args_off", "node 0 ["},
                 {"timelines", "sort_key", "/timelines row"},
                 {"categories", "name", "/categories row"}, {"strings", NULL, "/strings"},
                 {"summary", "start", "/summary"}};
    write_bytes(bad, good_bytes, good_size);
    bump_element(bad, cases[_i].dset, cases[_i].member, cases[_i].member ? 0 : 3);
    slog_error err;
    if (strcmp(cases[_i].dset, "nodes") == 0) {
        slog_reader *r = NULL;
        ck_assert_int_eq(slog_reader_open(&r, bad, NULL, &err), SLOG_OK);
        memset(&err, 0xff, sizeof err);
        ck_assert_int_eq(query_all(r, 0, &err), SLOG_ECORRUPT);
        slog_reader_destroy(r);
    } else {
        static const int corrupt[] = {SLOG_ECORRUPT};
        open_fails(bad, corrupt, 1);
        ck_assert_int_eq(slog_reader_open(&(slog_reader *){NULL}, bad, NULL, &err), SLOG_ECORRUPT);
    }
    expect_message(&err, cases[_i].names, "checksum mismatch");
}
END_TEST

static void clear_addresses(const char *p, hsize_t i);

/* A changed byte inside a blob fails the query that reads it, naming the
 * node, its time range and the blob's offset; the args blob is read (and
 * so checked) only by a query that asks for args. */
START_TEST(test_reader_errors_checksum_catches_blob_changes)
{
    const char *const member = _i == 0 ? "payload_off" : "args_off";
    const uint64_t off = node0_member(good, member);
    ck_assert(_i == 0 || node0_member(good, "args_len") > 2);
    write_bytes(bad, good_bytes, good_size);
    bump_element(bad, "payload", NULL, off + 2);
    /* HDF5 rewrote the chunk elsewhere; the row's format-4 address still
     * points at the old bytes (which verify): make the reader use HDF5's
     * chunk index, as for a row without addresses. */
    clear_addresses(bad, 0);
    slog_reader *r = NULL;
    slog_error err;
    ck_assert_int_eq(slog_reader_open(&r, bad, NULL, &err), SLOG_OK);
    memset(&err, 0xff, sizeof err);
    const int plain = query_all(r, 0, &err);
    if (_i == 0) {
        ck_assert_int_eq(plain, SLOG_ECORRUPT);
        expect_message(&err, "node 0 [", "drawables checksum mismatch");
    } else {
        ck_assert_int_eq(plain, SLOG_END); /* no args asked: the args blob is not read */
        ck_assert_int_eq(query_all(r, SLOG_QUERY_ARGS, &err), SLOG_ECORRUPT);
        expect_message(&err, "node 0 [", "args checksum mismatch");
    }
    ck_assert_uint_eq(err.offset, off);
    slog_reader_destroy(r);
}
END_TEST

/* Raw file address and stored size of the first /payload chunk. */
static void first_chunk(const char *p, haddr_t *addr, hsize_t *size)
{
    const hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t d = f >= 0 ? H5Dopen2(f, "/payload", H5P_DEFAULT) : H5I_INVALID_HID;
    const hid_t sp = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hsize_t where[1] = {0};
    unsigned mask = 0;
    ck_assert(sp >= 0 && H5Dget_chunk_info(d, sp, 0, where, &mask, addr, size) >= 0);
    H5Sclose(sp);
    H5Dclose(d);
    H5Fclose(f);
}

/* A /payload chunk that no longer decodes fails the query that reads it,
 * naming the node whose blob lies there (it said only "Corrupt /payload
 * chunk at byte 0: does not decode to 65536 bytes"); statistics too. */
START_TEST(test_reader_errors_undecodable_chunk_names_the_node)
{
    write_bytes(bad, good_bytes, good_size);
    haddr_t addr = 0;
    hsize_t size = 0;
    first_chunk(bad, &addr, &size);
    ck_assert_uint_gt(size, 64);
    unsigned char junk[48];
    memset(junk, 0xff, sizeof junk); /* LZ4 tokens of endless literal runs */
    FILE *const f = fopen(bad, "r+b");
    ck_assert(f != NULL && fseek(f, (long)(addr + size / 2), SEEK_SET) == 0);
    ck_assert_uint_eq(fwrite(junk, 1, sizeof junk, f), sizeof junk);
    fclose(f);
    slog_reader *r = NULL;
    slog_error err;
    ck_assert_int_eq(slog_reader_open(&r, bad, NULL, &err), SLOG_OK);
    memset(&err, 0xff, sizeof err);
    ck_assert_int_eq(query_all(r, SLOG_QUERY_ARGS, &err), SLOG_ECORRUPT);
    expect_message(&err, "Corrupt node ", " blob: ");
    ck_assert_str_eq(err.source, bad);
    slog_stats_options so = SLOG_STATS_OPTIONS_INIT;
    so.t0 = INT64_MIN;
    so.t1 = INT64_MAX;
    so.by = SLOG_STATS_BY_BOTH;
    slog_stats *st = NULL;
    if (slog_stats_compute(&st, r, &so, &err) != SLOG_OK) {
        expect_message(&err, "ode ", "[");
    }
    slog_stats_destroy(st);
    slog_reader_destroy(r);
}
END_TEST

/* ---- lazy node table ---------------------------------------------------------------------- */

/* A file with many blocks of node rows (tree_read.h reads 128 at a time). */
static uint64_t write_big(const char *p)
{
    const tref_params prm = {.seed = 77,
                             .timelines = 4,
                             .states = 30000,
                             .events = 0,
                             .arrows = 0,
                             .counters = 0,
                             .state_categories = 3,
                             .max_depth = 3,
                             .base = 0,
                             .span = 50000000,
                             .args_percent = 0};
    tref_trace t;
    ck_assert_int_eq(tref_generate(&t, &prm), 0);
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 512;
    slog_error err;
    const int rc = tref_write(&t, p, &o, TR_ORDER_END, 1, true, &err);
    tref_free(&t);
    ck_assert_msg(rc == SLOG_OK, "writing: %s", err.message);
    slog_reader *r = NULL;
    ck_assert_int_eq(slog_reader_open(&r, p, NULL, &err), SLOG_OK);
    const uint64_t n = slog_reader_info(r)->nodes;
    slog_reader_destroy(r);
    ck_assert_uint_gt(n, 3 * 128); /* node 0's block is not the root's */
    return n;
}

/* A damaged row away from the root does not fail the open (only the root's
 * rows are read there) but always fails what meets it, naming the node. */
START_TEST(test_reader_errors_lazy_row_fails_when_met)
{
    const uint64_t n = write_big(bad);
    bump_element(bad, "nodes", "t0", 0);
    slog_reader *r = NULL;
    slog_error err;
    ck_assert_int_eq(slog_reader_open(&r, bad, NULL, &err), SLOG_OK);
    slog_node_info ni;
    ck_assert_int_eq(slog_reader_node(r, n - 1, &ni), SLOG_OK);
    ck_assert_int_eq(slog_reader_node(r, 0, &ni), SLOG_ECORRUPT);
    memset(&err, 0xff, sizeof err);
    ck_assert_int_eq(query_all(r, 0, &err), SLOG_ECORRUPT);
    expect_message(&err, "node 0 [", "checksum mismatch");
    ck_assert_uint_eq(err.offset, 0);
    slog_reader_destroy(r);
}
END_TEST

static uint32_t crc32c(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) {
            c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
        }
    }
    return ~c;
}

/* Read node row i's 168 bytes (format 4), let edit change them, write them
 * back. */
static void edit_node_row(const char *p, hsize_t i, void (*edit)(unsigned char *row, uint64_t v),
                          uint64_t v)
{
    const hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    ck_assert_int_ge(f, 0);
    const hid_t d = H5Dopen2(f, "nodes", H5P_DEFAULT);
    const hid_t ft = H5Dget_type(d);
    ck_assert_uint_eq(H5Tget_size(ft), 168); /* format 4; row_crc covers the first 128 */
    unsigned char row[168];
    const hsize_t one[1] = {1};
    const hid_t fs = H5Dget_space(d);
    const hid_t ms = H5Screate_simple(1, one, NULL);
    ck_assert_int_ge(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &i, NULL, one, NULL), 0);
    ck_assert_int_ge(H5Dread(d, ft, ms, fs, H5P_DEFAULT, row), 0);
    edit(row, v);
    ck_assert_int_ge(H5Dwrite(d, ft, ms, fs, H5P_DEFAULT, row), 0);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Tclose(ft);
    H5Dclose(d);
    H5Fclose(f);
}

/* subtree_nodes (byte 24) = v, row_crc (byte 124) resealed. */
static void put_subtree_nodes(unsigned char *row, uint64_t v)
{
    memcpy(row + 24, &v, 8); /* little-endian host, as the format */
    memset(row + 124, 0, 4);
    const uint32_t c = crc32c(row, 128);
    memcpy(row + 124, &c, 4);
}

/* The format-4 chunk addresses (bytes 128..164) zeroed, addr_crc (byte
 * 164) resealed. */
static void put_no_addresses(unsigned char *row, uint64_t v)
{
    (void)v;
    memset(row + 128, 0, 36);
    const uint32_t c = crc32c(row + 128, 36);
    memcpy(row + 164, &c, 4);
}

static void set_subtree_nodes(const char *p, hsize_t i, uint64_t v)
{
    edit_node_row(p, i, put_subtree_nodes, v);
}

static void clear_addresses(const char *p, hsize_t i)
{
    edit_node_row(p, i, put_no_addresses, 0);
}

/* A row that passes its own checks but whose subtree overruns its parent's
 * is caught by the children enumeration, naming the parent. */
START_TEST(test_reader_errors_lazy_children_must_tile_parent)
{
    const uint64_t n = write_big(bad);
    slog_reader *r = NULL;
    slog_error err;
    ck_assert_int_eq(slog_reader_open(&r, bad, NULL, &err), SLOG_OK);
    slog_node_info p;
    ck_assert_int_eq(slog_reader_node(r, n - 2, &p), SLOG_OK); /* the root's last child */
    slog_reader_destroy(r);
    ck_assert_uint_gt(p.subtree_nodes, 1);
    ck_assert_uint_lt(p.subtree_nodes, n - 1);
    set_subtree_nodes(bad, n - 3, p.subtree_nodes); /* one more than fits */
    ck_assert_int_eq(slog_reader_open(&r, bad, NULL, &err), SLOG_OK);
    memset(&err, 0xff, sizeof err);
    ck_assert_int_eq(query_all(r, 0, &err), SLOG_ECORRUPT);
    char name[64];
    snprintf(name, sizeof name, "(entry %llu)", (unsigned long long)(n - 2));
    expect_message(&err, "subtree does not fit its parent", name);
    slog_reader_destroy(r);
}
END_TEST

static Suite *reader_errors_suite(void)
{
    Suite *s = suite_create("reader_errors");
    TCase *tc = tcase_create("reader_errors");
    tcase_add_unchecked_fixture(tc, tmpdir_setup, tmpdir_teardown);
    tcase_add_checked_fixture(tc, good_setup, good_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_reader_errors_not_hdf5_is_format_error, 0, 5);
    tcase_add_test(tc, test_reader_errors_missing_file_is_io_error);
    tcase_add_loop_test(tc, test_reader_errors_foreign_hdf5_is_format_error, 0, 3);
    tcase_add_test(tc, test_reader_errors_newer_read_version_is_version_error);
    tcase_add_loop_test(tc, test_reader_errors_truncated_is_error_never_silent, 0, 12);
    tcase_add_loop_test(tc, test_reader_errors_flipped_bytes_never_crash, 0, 8);
    tcase_add_loop_test(tc, test_reader_errors_checksum_catches_table_changes, 0, 6);
    tcase_add_loop_test(tc, test_reader_errors_checksum_catches_blob_changes, 0, 2);
    tcase_add_test(tc, test_reader_errors_undecodable_chunk_names_the_node);
    tcase_add_test(tc, test_reader_errors_lazy_row_fails_when_met);
    tcase_add_test(tc, test_reader_errors_lazy_children_must_tile_parent);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(reader_errors_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
