/* SPDX-License-Identifier: MIT
 *
 * check_recorder.c - the Recorder decoder against the corpus: every record
 * of every trace folder (rank, function, depth, tid, argument text, start
 * and end tick) must equal the independent decoder's *.decoded.txt, and the
 * per-rank, per-function and per-depth counts must equal *.reference.txt
 * (which come from Recorder's own recorder2text).  Then hostile inputs:
 * the crafted folders in tests/data/recorder/ (n_* must fail with the code,
 * file and byte offset their `expect` file names), every truncation of
 * every file, and every byte flipped, none of which may crash or pass off a
 * damaged trace as the original.  With the slog-import binary and the
 * reader built, each corpus folder is also imported and the per-rank and
 * per-function state counts in the output are checked against the same
 * reference counts.
 */
#define _GNU_SOURCE /* asprintf */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder_decode.h"

#ifndef SLOG_SOURCE_ROOT
#    define SLOG_SOURCE_ROOT "."
#endif

static const char *const traces[] = {
    "posix_mpi",           "posix_mpi_tid_nocomp", "mpiio_hdf5",
    "mpiio_hdf5_patterns", "posix_mpi-v2.4.0",     "mpiio_hdf5-v2.4.0",
};
#define NTRACES ((int)(sizeof traces / sizeof traces[0]))

static char *corpus_path(const char *name)
{
    const char *root = getenv("SLOG_CORPUS");
    static char fallback[4096];
    if (root == NULL || root[0] == '\0') {
        snprintf(fallback, sizeof fallback, "%s/../shared/corpus", SLOG_SOURCE_ROOT);
        root = fallback;
    }
    char *p = NULL;
    ck_assert_int_ge(asprintf(&p, "%s/recorder/%s", root, name), 0);
    return p;
}

static char *read_text(const char *path)
{
    FILE *const f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s: %s", path, strerror(errno));
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    const long n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    char *const buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* "0.0003318" -> 3318 ticks of 1e-7 s (the dumps print 7 decimals). */
static int64_t parse_ticks(const char *s)
{
    int64_t whole = 0, frac = 0;
    int digits = 0;
    while (*s >= '0' && *s <= '9') {
        whole = whole * 10 + (*s++ - '0');
    }
    ck_assert_int_eq(*s, '.');
    s++;
    while (*s >= '0' && *s <= '9') {
        frac = frac * 10 + (*s++ - '0');
        digits++;
    }
    ck_assert_int_eq(digits, 7);
    return whole * 10000000 + frac;
}

/* Next line of text (NUL-terminated in place), or NULL at the end. */
static char *next_line(char **cursor)
{
    char *const line = *cursor;
    if (line == NULL || *line == '\0') {
        return NULL;
    }
    char *const nl = strchr(line, '\n');
    if (nl != NULL) {
        *nl = '\0';
        *cursor = nl + 1;
    } else {
        *cursor = line + strlen(line);
    }
    return line;
}

/* ------------------------------------------------------------------ */

START_TEST(test_recorder_decode_matches_decoded_txt)
{
    char *const dir = corpus_path(traces[_i]);
    char *txtpath = NULL;
    ck_assert_int_ge(asprintf(&txtpath, "%s.decoded.txt", dir), 0);
    char *const text = read_text(txtpath);

    rec_trace *t = NULL;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    ck_assert_msg(rec_trace_open(&t, dir, &err) == SLOG_OK, "%s: %s: %s", traces[_i], err.source,
                  err.message);
    const rec_header *const h = rec_trace_header(t);
    ck_assert(h->time_resolution == 1e-7); /* the dumps print 7 decimals */

    char *cur = text, *line;
    while ((line = next_line(&cur)) != NULL && strncmp(line, "## records (", 12) != 0) {
        if (strncmp(line, "# VERSION ", 10) == 0) {
            ck_assert_str_eq(line + 10, h->version);
        }
        int n = 0;
        if (sscanf(line, "# total_ranks = %d", &n) == 1) {
            ck_assert_int_eq(n, h->total_ranks);
        }
        unsigned nf = 0;
        if (sscanf(line, "# functions in recorder.mt list: %u", &nf) == 1) {
            ck_assert_uint_eq(nf, rec_trace_func_count(t));
        }
    }
    ck_assert_ptr_nonnull(line);

    uint64_t total = 0;
    for (uint32_t r = 0; r < (uint32_t)h->total_ranks; r++) {
        rec_rank *rk = NULL;
        ck_assert_msg(rec_rank_open(&rk, t, r, &err) == SLOG_OK, "%s rank %u: %s: %s", traces[_i],
                      r, err.source, err.message);
        rec_record rec;
        uint64_t n = 0;
        while (rec_rank_next(rk, &rec) == SLOG_OK) {
            line = next_line(&cur);
            ck_assert_msg(line != NULL, "%s: decoded.txt ends before rank %u record %" PRIu64,
                          traces[_i], r, n);
            unsigned rank = 0, depth = 0;
            char ts0[32], ts1[32], func[128];
            unsigned long long tid = 0;
            int used = 0;
            ck_assert_int_eq(sscanf(line, "%u %31s %31s %127s %u %llu %n", &rank, ts0, ts1, func,
                                    &depth, &tid, &used),
                             6);
            ck_assert_uint_eq(rank, r);
            ck_assert_uint_eq(rec.index, n);
            ck_assert_msg(rec.tstart == parse_ticks(ts0) && rec.tend == parse_ticks(ts1),
                          "%s rank %u record %" PRIu64 ": ticks %" PRId64 " %" PRId64
                          ", decoded.txt: %s",
                          traces[_i], r, n, rec.tstart, rec.tend, line);
            ck_assert_str_eq(rec_trace_func_name(t, rec.sig->func_id), func);
            ck_assert_uint_eq(rec.sig->depth, depth);
            ck_assert_uint_eq(rec.sig->tid, tid);
            /* decoded.txt prints "( " + the raw argument text + ")" */
            const char *const args = line + used;
            ck_assert_msg(strncmp(args, "( ", 2) == 0, "%s", line);
            ck_assert_uint_eq(strlen(args), rec.sig->args_len + 3);
            ck_assert_msg(memcmp(args + 2, rec.sig->args, rec.sig->args_len) == 0, "%s", line);
            ck_assert_str_eq(args + 2 + rec.sig->args_len, ")");
            /* and the text splits into exactly arg_count arguments */
            const char *starts[256];
            uint32_t lens[256], rest = 1;
            ck_assert_uint_eq(rec_split_args(rec.sig, starts, lens, 256, &rest),
                              rec.sig->arg_count);
            ck_assert_uint_eq(rest, 0);
            n++;
        }
        ck_assert_uint_eq(n, rec_rank_record_count(rk));
        total += n;
        rec_rank_close(rk);
    }
    /* nothing left over in the dump */
    while ((line = next_line(&cur)) != NULL) {
        ck_assert_msg(line[0] == '\0', "%s: extra line in decoded.txt: %s", traces[_i], line);
    }
    ck_assert_uint_gt(total, 0);
    rec_trace_close(t);
    free(text);
    free(txtpath);
    free(dir);
}
END_TEST

/* ------------------------------------------------------------------ */
/* per-rank / per-function / per-depth counts vs *.reference.txt        */

#define MAXF 256
#define MAXR 16
#define MAXD 8

typedef struct counts {
    char names[MAXF][64];
    uint64_t per[MAXF][MAXR];
    uint32_t nnames;
    uint64_t rank[MAXR];
    uint64_t depth[MAXD][MAXR];
} counts;

static uint32_t counts_slot(counts *c, const char *name)
{
    for (uint32_t i = 0; i < c->nnames; i++) {
        if (strcmp(c->names[i], name) == 0) {
            return i;
        }
    }
    ck_assert_uint_lt(c->nnames, MAXF);
    snprintf(c->names[c->nnames], sizeof c->names[0], "%s", name);
    return c->nnames++;
}

static void counts_from_reference(counts *c, const char *path, uint32_t nranks)
{
    char *const text = read_text(path);
    char *cur = text, *line;
    int section = 0; /* 1 ranks, 2 functions, 3 depths */
    while ((line = next_line(&cur)) != NULL) {
        if (strncmp(line, "## ", 3) == 0) {
            section = strncmp(line, "## records per rank", 19) == 0         ? 1
                      : strncmp(line, "## records per function", 23) == 0   ? 2
                      : strncmp(line, "## records per call depth", 25) == 0 ? 3
                                                                            : 0;
            continue;
        }
        unsigned r = 0, d = 0;
        int dused = 0;
        unsigned long long v = 0;
        if (section == 1 && sscanf(line, "rank %u: %llu", &r, &v) == 2) {
            ck_assert_uint_lt(r, nranks);
            c->rank[r] = v;
        } else if (section == 2 && line[0] != '\0') {
            char name[64];
            int used = 0;
            ck_assert_int_eq(sscanf(line, "%63s%n", name, &used), 1);
            const uint32_t s = counts_slot(c, name);
            const char *p = line + used;
            for (uint32_t k = 0; k < nranks; k++) {
                int u = 0;
                ck_assert_int_eq(sscanf(p, "%llu%n", &v, &u), 1);
                c->per[s][k] = v;
                p += u;
            }
        } else if (section == 3 && sscanf(line, "depth %u:%n", &d, &dused) == 1) {
            const char *p = line + dused;
            ck_assert_uint_lt(d, MAXD);
            for (uint32_t k = 0; k < nranks; k++) {
                int u = 0;
                ck_assert_int_eq(sscanf(p, "%llu%n", &v, &u), 1);
                c->depth[d][k] = v;
                p += u;
            }
        }
    }
    free(text);
}

static void
assert_counts_equal(const counts *got, const counts *want, uint32_t nranks, const char *what)
{
    ck_assert_uint_eq(got->nnames, want->nnames);
    for (uint32_t i = 0; i < want->nnames; i++) {
        uint32_t j = 0;
        while (j < got->nnames && strcmp(got->names[j], want->names[i]) != 0) {
            j++;
        }
        ck_assert_msg(j < got->nnames, "%s: %s missing", what, want->names[i]);
        for (uint32_t r = 0; r < nranks; r++) {
            ck_assert_msg(got->per[j][r] == want->per[i][r],
                          "%s: %s rank %u: %" PRIu64 " records, reference %" PRIu64, what,
                          want->names[i], r, got->per[j][r], want->per[i][r]);
        }
    }
    for (uint32_t r = 0; r < nranks; r++) {
        ck_assert_uint_eq(got->rank[r], want->rank[r]);
        for (uint32_t d = 0; d < MAXD; d++) {
            ck_assert_uint_eq(got->depth[d][r], want->depth[d][r]);
        }
    }
}

START_TEST(test_recorder_counts_match_reference)
{
    char *const dir = corpus_path(traces[_i]);
    char *refpath = NULL;
    ck_assert_int_ge(asprintf(&refpath, "%s.reference.txt", dir), 0);
    rec_trace *t = NULL;
    slog_error err;
    ck_assert_int_eq(rec_trace_open(&t, dir, &err), SLOG_OK);
    const uint32_t nranks = (uint32_t)rec_trace_header(t)->total_ranks;
    ck_assert_uint_le(nranks, MAXR);

    counts *const want = calloc(1, sizeof *want), *const got = calloc(1, sizeof *got);
    ck_assert_ptr_nonnull(want);
    ck_assert_ptr_nonnull(got);
    counts_from_reference(want, refpath, nranks);
    ck_assert_uint_gt(want->nnames, 0);
    for (uint32_t r = 0; r < nranks; r++) {
        rec_rank *rk = NULL;
        ck_assert_int_eq(rec_rank_open(&rk, t, r, &err), SLOG_OK);
        rec_record rec;
        while (rec_rank_next(rk, &rec) == SLOG_OK) {
            got->per[counts_slot(got, rec_trace_func_name(t, rec.sig->func_id))][r]++;
            got->rank[r]++;
            ck_assert_uint_lt(rec.sig->depth, MAXD);
            got->depth[rec.sig->depth][r]++;
        }
        rec_rank_close(rk);
    }
    assert_counts_equal(got, want, nranks, traces[_i]);
    free(want);
    free(got);
    rec_trace_close(t);
    free(refpath);
    free(dir);
}
END_TEST

/* Layers follow Recorder's split of the function table. */
START_TEST(test_recorder_layers_follow_table_split)
{
    char *const dir = corpus_path("mpiio_hdf5");
    rec_trace *t = NULL;
    ck_assert_int_eq(rec_trace_open(&t, dir, NULL), SLOG_OK);
    const struct {
        const char *name;
        rec_layer layer;
    } want[] = {{"open", REC_LAYER_POSIX},          {"fflush", REC_LAYER_POSIX},
                {"MPI_File_open", REC_LAYER_MPIIO}, {"MPI_File_get_size", REC_LAYER_MPIIO},
                {"MPI_Barrier", REC_LAYER_MPI},     {"MPI_Comm_split_type", REC_LAYER_MPI},
                {"H5Fcreate", REC_LAYER_HDF5},      {"H5Dwrite", REC_LAYER_HDF5}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        uint32_t id = 0;
        while (id < rec_trace_func_count(t) && strcmp(rec_trace_func_name(t, id), want[k].name)) {
            id++;
        }
        ck_assert_uint_lt(id, rec_trace_func_count(t));
        ck_assert_int_eq(rec_trace_func_layer(t, id), want[k].layer);
    }
    ck_assert_int_eq(rec_trace_func_layer(t, REC_USER_FUNC_ID), REC_LAYER_USER);
    ck_assert_str_eq(rec_layer_name(REC_LAYER_MPIIO), "MPI-IO");
    rec_trace_close(t);
    free(dir);
}
END_TEST

START_TEST(test_recorder_ticks_convert_exactly)
{
    rec_header h;
    memset(&h, 0, sizeof h);
    h.time_resolution = 1e-7;
    ck_assert_int_eq(rec_ticks_to_ns(&h, 3318), 331800);
    ck_assert_int_eq(rec_ticks_to_ns(&h, INT64_C(4294967295) * 3), INT64_C(1288490188500));
    h.time_resolution = 1e-6;
    ck_assert_int_eq(rec_ticks_to_ns(&h, 7), 7000);
    h.time_resolution = 2.5e-10; /* 0.25 ns: rounded */
    ck_assert_int_eq(rec_ticks_to_ns(&h, 10), 3);
    h.start_ts = 1795239580.484657;
    const int64_t ns = rec_start_ns(&h);
    /* within the double's own precision (2^-22 s at this magnitude) */
    ck_assert_int_ge(ns, INT64_C(1795239580484656800));
    ck_assert_int_le(ns, INT64_C(1795239580484657200));
}
END_TEST

/* ------------------------------------------------------------------ */
/* hostile inputs                                                      */

/* Decode everything; returns the first error code and a hash of all
 * records (rank, times, tid, function, depth, argument text). */
static int decode_all(const char *dir, uint64_t *hash, slog_error *err)
{
    uint64_t hv = 1469598103934665603u;
    rec_trace *t = NULL;
    int rc = rec_trace_open(&t, dir, err);
    for (uint32_t r = 0; rc == SLOG_OK && r < (uint32_t)rec_trace_header(t)->total_ranks; r++) {
        rec_rank *rk = NULL;
        rc = rec_rank_open(&rk, t, r, err);
        rec_record rec;
        while (rc == SLOG_OK && rec_rank_next(rk, &rec) == SLOG_OK) {
            const int64_t v[6] = {(int64_t)r,       rec.tstart,    rec.tend, (int64_t)rec.sig->tid,
                                  rec.sig->func_id, rec.sig->depth};
            const unsigned char *p = (const unsigned char *)v;
            for (size_t i = 0; i < sizeof v; i++) {
                hv = (hv ^ p[i]) * 1099511628211u;
            }
            for (uint32_t i = 0; i < rec.sig->args_len; i++) {
                hv = (hv ^ (unsigned char)rec.sig->args[i]) * 1099511628211u;
            }
            const char *starts[256];
            uint32_t lens[256], rest = 0;
            rec_split_args(rec.sig, starts, lens, 256, &rest);
        }
        rec_rank_close(rk);
    }
    rec_trace_close(t);
    *hash = hv;
    return rc;
}

static char *make_tmpdir(void)
{
    char *const d = strdup("/tmp/check_recorder_XXXXXX");
    ck_assert_ptr_nonnull(d);
    ck_assert_ptr_nonnull(mkdtemp(d));
    return d;
}

static void write_file(const char *path, const unsigned char *data, size_t n)
{
    FILE *const f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot create %s", path);
    ck_assert_uint_eq(fwrite(data, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

typedef struct folder {
    char names[32][64];
    unsigned char *data[32];
    size_t len[32];
    int n;
} folder;

static void folder_load(folder *f, const char *dir)
{
    memset(f, 0, sizeof *f);
    DIR *const d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') {
            continue;
        }
        ck_assert_int_lt(f->n, 32);
        ck_assert_uint_lt(strlen(e->d_name), sizeof f->names[0]);
        memcpy(f->names[f->n], e->d_name, strlen(e->d_name) + 1);
        char *p = NULL;
        ck_assert_int_ge(asprintf(&p, "%s/%s", dir, e->d_name), 0);
        char *const text = read_text(p);
        struct stat st;
        ck_assert_int_eq(stat(p, &st), 0);
        f->data[f->n] = (unsigned char *)text;
        f->len[f->n] = (size_t)st.st_size;
        f->n++;
        free(p);
    }
    closedir(d);
}

static void folder_write(const folder *f, const char *dir, int skip)
{
    for (int i = 0; i < f->n; i++) {
        if (i == skip) {
            continue;
        }
        char *p = NULL;
        ck_assert_int_ge(asprintf(&p, "%s/%s", dir, f->names[i]), 0);
        write_file(p, f->data[i], f->len[i]);
        free(p);
    }
}

static void folder_free(folder *f)
{
    for (int i = 0; i < f->n; i++) {
        free(f->data[i]);
    }
}

static void rm_folder(const char *dir, const folder *f)
{
    for (int i = 0; i < f->n; i++) {
        char *p = NULL;
        ck_assert_int_ge(asprintf(&p, "%s/%s", dir, f->names[i]), 0);
        unlink(p);
        free(p);
    }
    rmdir(dir);
}

/* Every truncation of every file either fails, naming a file of the folder
 * (and, when it names the truncated file, an offset inside what is left),
 * or decodes to exactly the original records (possible only for the tail of
 * recorder.mt's name table past the last id in use). */
START_TEST(test_recorder_truncations_fail_cleanly)
{
    char *const src = corpus_path(traces[_i]);
    folder f;
    folder_load(&f, src);
    uint64_t ref = 0;
    slog_error err;
    ck_assert_int_eq(decode_all(src, &ref, &err), SLOG_OK);
    char *const tmp = make_tmpdir();
    folder_write(&f, tmp, -1);
    uint64_t tried = 0, failed = 0;
    for (int i = 0; i < f.n; i++) {
        char *p = NULL;
        ck_assert_int_ge(asprintf(&p, "%s/%s", tmp, f.names[i]), 0);
        const size_t step = f.len[i] > 256 ? f.len[i] / 128 : 1;
        for (size_t cut = 0; cut < f.len[i]; cut += step) {
            write_file(p, f.data[i], cut);
            uint64_t h = 0;
            memset(&err, 0xff, sizeof err);
            const int rc = decode_all(tmp, &h, &err);
            tried++;
            if (rc == SLOG_OK) {
                ck_assert_msg(strcmp(f.names[i], "recorder.mt") == 0 && h == ref,
                              "%s cut to %zu bytes decodes to different records", f.names[i], cut);
                continue;
            }
            failed++;
            ck_assert_int_lt(rc, 0);
            ck_assert_int_eq(err.code, rc);
            ck_assert_msg(strncmp(err.source, tmp, strlen(tmp)) == 0, "source %s", err.source);
            ck_assert_ptr_nonnull(memchr(err.message, '\0', sizeof err.message));
            if (strcmp(err.source, p) == 0) {
                ck_assert_msg(err.offset <= cut, "%s cut to %zu: error at byte %" PRIu64 ": %s",
                              f.names[i], cut, err.offset, err.message);
            }
        }
        write_file(p, f.data[i], f.len[i]);
        free(p);
    }
    ck_assert_uint_gt(failed, tried / 2);
    rm_folder(tmp, &f);
    free(tmp);
    folder_free(&f);
    free(src);
}
END_TEST

/* Every byte of every file inverted: no crash, no read outside a buffer
 * (run under ASan/valgrind to see those), and errors are well formed. */
START_TEST(test_recorder_byte_flips_never_crash)
{
    char *const src = corpus_path(traces[_i]);
    folder f;
    folder_load(&f, src);
    char *const tmp = make_tmpdir();
    folder_write(&f, tmp, -1);
    uint64_t failed = 0, tried = 0;
    for (int i = 0; i < f.n; i++) {
        char *p = NULL;
        ck_assert_int_ge(asprintf(&p, "%s/%s", tmp, f.names[i]), 0);
        const size_t step = f.len[i] > 256 ? f.len[i] / 96 : 1;
        for (size_t at = 0; at < f.len[i]; at += step) {
            f.data[i][at] ^= 0xff;
            write_file(p, f.data[i], f.len[i]);
            f.data[i][at] ^= 0xff;
            uint64_t h = 0;
            slog_error err;
            memset(&err, 0xff, sizeof err);
            const int rc = decode_all(tmp, &h, &err);
            tried++;
            if (rc != SLOG_OK) {
                failed++;
                ck_assert_int_eq(err.code, rc);
                ck_assert_msg(strncmp(err.source, tmp, strlen(tmp)) == 0, "source %s", err.source);
            }
        }
        write_file(p, f.data[i], f.len[i]);
        free(p);
    }
    ck_assert_uint_gt(failed, 0);
    ck_assert_uint_gt(tried, failed);
    rm_folder(tmp, &f);
    free(tmp);
    folder_free(&f);
    free(src);
}
END_TEST

/* tests/data/recorder/n_<case>/ hold a damaged trace and `expect`:
 *   code=SLOG_ECORRUPT  file=<name in the folder>  offset=<byte>  text=<substring> */
static const char *const broken[] = {
    "n_version_3",     "n_ts_truncated",  "n_cst_zlib_corrupt",  "n_cfg_truncated_v24",
    "n_mt_truncated",  "n_grammar_cycle", "n_ts_extra_pair_v24", "n_missing_ts_v24",
    "n_ugmt_bad_ugid", "n_cst_func_id",
};
#define NBROKEN ((int)(sizeof broken / sizeof broken[0]))

static int code_of(const char *name)
{
    static const struct {
        const char *name;
        int code;
    } codes[] = {{"SLOG_ECORRUPT", SLOG_ECORRUPT},
                 {"SLOG_EPARSE", SLOG_EPARSE},
                 {"SLOG_EVERSION", SLOG_EVERSION},
                 {"SLOG_EIO", SLOG_EIO}};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        if (strcmp(codes[i].name, name) == 0) {
            return codes[i].code;
        }
    }
    ck_abort_msg("unknown code %s", name);
    return 0;
}

START_TEST(test_recorder_broken_inputs_name_file_and_offset)
{
    char *dir = NULL, *expect = NULL;
    ck_assert_int_ge(asprintf(&dir, "%s/tests/data/recorder/%s", SLOG_SOURCE_ROOT, broken[_i]), 0);
    ck_assert_int_ge(asprintf(&expect, "%s/expect", dir), 0);
    char *const text = read_text(expect);
    char code[32] = "", file[64] = "", want[200] = "";
    char off[32] = "";
    char *cur = text, *line;
    while ((line = next_line(&cur)) != NULL) {
        sscanf(line, "code=%31s", code);
        sscanf(line, "file=%63s", file);
        sscanf(line, "offset=%31s", off);
        if (strncmp(line, "text=", 5) == 0) {
            snprintf(want, sizeof want, "%s", line + 5);
        }
    }
    slog_error err;
    memset(&err, 0xff, sizeof err);
    uint64_t h = 0;
    const int rc = decode_all(dir, &h, &err);
    ck_assert_msg(rc == code_of(code), "%s: got %d (%s: %s), want %s", broken[_i], rc, err.source,
                  err.message, code);
    ck_assert_int_eq(err.code, rc);
    char *wantsrc = NULL;
    ck_assert_int_ge(asprintf(&wantsrc, "%s/%s", dir, file), 0);
    ck_assert_str_eq(err.source, wantsrc);
    const uint64_t want_off = strcmp(off, "none") == 0 ? UINT64_MAX : strtoull(off, NULL, 10);
    ck_assert_msg(err.offset == want_off, "%s: offset %" PRIu64 ", want %s (%s)", broken[_i],
                  err.offset, off, err.message);
    ck_assert_msg(strstr(err.message, want) != NULL, "%s: message \"%s\" lacks \"%s\"", broken[_i],
                  err.message, want);
    free(wantsrc);
    free(text);
    free(expect);
    free(dir);
}
END_TEST

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct lines {
    char **v;
    size_t n, cap;
} lines;

static void lines_add(lines *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap != 0 ? 2 * l->cap : 512;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        ck_assert_ptr_nonnull(l->v);
    }
    l->v[l->n++] = s;
}

static void lines_free(lines *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i]);
    }
    free(l->v);
}

/* decoded.txt records in the same canonical form */
static void decoded_lines(const char *txtpath, lines *out)
{
    char *const text = read_text(txtpath);
    char *cur = text, *line;
    while ((line = next_line(&cur)) != NULL && strncmp(line, "## records (", 12) != 0) {
    }
    while ((line = next_line(&cur)) != NULL) {
        if (line[0] == '\0') {
            continue;
        }
        unsigned rank = 0, depth = 0;
        char ts0[32], ts1[32], func[128];
        unsigned long long tid = 0;
        int used = 0;
        ck_assert_int_eq(sscanf(line, "%u %31s %31s %127s %u %llu %n", &rank, ts0, ts1, func,
                                &depth, &tid, &used),
                         6);
        char *s = NULL;
        ck_assert_int_ge(asprintf(&s, "%u %lld %lld %s %u %llu %s", rank,
                                  (long long)parse_ticks(ts0), (long long)parse_ticks(ts1), func,
                                  depth, tid, line + used),
                         0);
        lines_add(out, s);
    }
    free(text);
}

/* tests/data/recorder/y_<case>/: layouts without a corpus sample, built by
 * make_cases.py from a corpus trace; `expect` says which decoded.txt they
 * reproduce (same_as=) and which records they add (extra=). */
static const char *const layouts[] = {"y_v24_interprocess", "y_v24_user_function"};
#define NLAYOUTS ((int)(sizeof layouts / sizeof layouts[0]))

START_TEST(test_recorder_layouts_without_sample_decode_as_expected)
{
    char *dir = NULL, *expect = NULL;
    ck_assert_int_ge(asprintf(&dir, "%s/tests/data/recorder/%s", SLOG_SOURCE_ROOT, layouts[_i]), 0);
    ck_assert_int_ge(asprintf(&expect, "%s/expect", dir), 0);
    char *const text = read_text(expect);
    lines want = {0}, got = {0};
    char *cur = text, *line;
    while ((line = next_line(&cur)) != NULL) {
        if (strncmp(line, "same_as=", 8) == 0) {
            char *const src = corpus_path(line + 8);
            char *txt = NULL;
            ck_assert_int_ge(asprintf(&txt, "%s.decoded.txt", src), 0);
            decoded_lines(txt, &want);
            free(txt);
            free(src);
        } else if (strncmp(line, "extra=", 6) == 0) {
            lines_add(&want, strdup(line + 6));
        }
    }
    ck_assert_uint_gt(want.n, 0);
    rec_trace *t = NULL;
    slog_error err;
    ck_assert_msg(rec_trace_open(&t, dir, &err) == SLOG_OK, "%s: %s", err.source, err.message);
    for (uint32_t r = 0; r < (uint32_t)rec_trace_header(t)->total_ranks; r++) {
        rec_rank *rk = NULL;
        ck_assert_msg(rec_rank_open(&rk, t, r, &err) == SLOG_OK, "%s: %s", err.source, err.message);
        rec_record rec;
        while (rec_rank_next(rk, &rec) == SLOG_OK) {
            char *s = NULL;
            ck_assert_int_ge(asprintf(&s, "%u %lld %lld %s %u %llu ( %.*s)", r,
                                      (long long)rec.tstart, (long long)rec.tend,
                                      rec_trace_func_name(t, rec.sig->func_id), rec.sig->depth,
                                      (unsigned long long)rec.sig->tid, (int)rec.sig->args_len,
                                      rec.sig->args),
                             0);
            lines_add(&got, s);
        }
        rec_rank_close(rk);
    }
    ck_assert_uint_eq(got.n, want.n);
    qsort((void *)got.v, got.n, sizeof *got.v, cmp_str);
    qsort((void *)want.v, want.n, sizeof *want.v, cmp_str);
    for (size_t i = 0; i < got.n; i++) {
        ck_assert_msg(strcmp(got.v[i], want.v[i]) == 0, "%s:\n got  %s\n want %s", layouts[_i],
                      got.v[i], want.v[i]);
    }
    lines_free(&got);
    lines_free(&want);
    rec_trace_close(t);
    free(text);
    free(expect);
    free(dir);
}
END_TEST

/* ------------------------------------------------------------------ */
/* through slog-import and the reader                                  */

#ifdef SLOG_RECORDER_IMPORT_TESTS
#    include <sys/wait.h>

#    include <slog/slog_reader.h>

/* Run slog-import -q IN -o OUT with stderr to errpath; returns exit status. */
static int run_import(const char *in, const char *out, const char *errpath)
{
    const char *const exe = getenv("SLOG_IMPORT");
    ck_assert_msg(exe != NULL && exe[0] != '\0', "SLOG_IMPORT is not set");
    fflush(NULL);
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (freopen(errpath, "w", stderr) == NULL || freopen("/dev/null", "w", stdout) == NULL) {
            _exit(126);
        }
        execl(exe, "slog-import", "-q", in, "-o", out, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* One state as a canonical line: rank tstart tend func depth tid ( args ) */
static char *state_line(slog_reader *rd, const slog_state *st, int64_t start_ns)
{
    slog_timeline_info tl, parent;
    slog_category_info cat;
    ck_assert_int_eq(slog_reader_timeline(rd, st->timeline, &tl), SLOG_OK);
    ck_assert_int_eq(slog_reader_category(rd, st->category, &cat), SLOG_OK);
    unsigned rank = 0;
    unsigned long long tid = 0;
    if (tl.kind == SLOG_TIMELINE_THREAD) {
        ck_assert_int_eq(sscanf(tl.name, "thread %llu", &tid), 1);
        ck_assert_int_eq(slog_reader_timeline(rd, tl.parent, &parent), SLOG_OK);
        ck_assert_int_eq(parent.kind, SLOG_TIMELINE_RANK);
        ck_assert_int_eq(sscanf(parent.name, "rank %u", &rank), 1);
    } else {
        ck_assert_int_eq(tl.kind, SLOG_TIMELINE_RANK);
        ck_assert_int_eq(sscanf(tl.name, "rank %u", &rank), 1);
    }
    /* exact ns: every time is start_ts + a whole number of 100 ns ticks */
    ck_assert_int_eq((st->start - start_ns) % 100, 0);
    ck_assert_int_eq((st->end - start_ns) % 100, 0);
    size_t cap = 256, len = 0;
    char *args = malloc(cap);
    ck_assert_ptr_nonnull(args);
    args[0] = '\0';
    for (uint32_t i = 0; i < st->nargs; i++) {
        char num[32];
        const slog_arg *const a = &st->args[i];
        const char *v = num;
        if (a->type == SLOG_ARG_STRING) {
            v = a->v.s;
        } else if (a->type == SLOG_ARG_INT) {
            snprintf(num, sizeof num, "%lld", (long long)a->v.i);
        } else {
            ck_assert_int_eq(a->type, SLOG_ARG_UINT);
            snprintf(num, sizeof num, "%llu", (unsigned long long)a->v.u);
        }
        const size_t vl = strlen(v);
        if (len + vl + 2 > cap) {
            cap = 2 * (len + vl + 2);
            args = realloc(args, cap);
            ck_assert_ptr_nonnull(args);
        }
        memcpy(args + len, v, vl);
        len += vl;
        args[len++] = ' ';
        args[len] = '\0';
    }
    char *line = NULL;
    ck_assert_int_ge(asprintf(&line, "%u %lld %lld %s %u %llu ( %s)", rank,
                              (long long)((st->start - start_ns) / 100),
                              (long long)((st->end - start_ns) / 100), cat.name, st->depth, tid,
                              args),
                     0);
    free(args);
    return line;
}

/* All states of a file as canonical lines, plus per-rank/function counts. */
static void read_states(const char *path, int64_t start_ns, lines *out, counts *c)
{
    slog_reader *rd = NULL;
    slog_error err;
    ck_assert_msg(slog_reader_open(&rd, path, NULL, &err) == SLOG_OK, "%s", err.message);
    const slog_file_info *const info = slog_reader_info(rd);
    ck_assert(info->complete);
    ck_assert_uint_eq(info->ticks_per_second, 1000000000u);
    slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    qo.kinds = 1u << SLOG_KIND_STATE;
    qo.t0 = info->start;
    qo.t1 = info->end + 1;
    slog_query *q = NULL;
    ck_assert_int_eq(slog_query_create(&q, rd, &qo, &err), SLOG_OK);
    const slog_item *it = NULL;
    int rc;
    while ((rc = slog_query_next(q, &it, &err)) == SLOG_OK) {
        ck_assert_int_eq(it->kind, SLOG_KIND_STATE);
        char *const line = state_line(rd, &it->u.state, start_ns);
        unsigned rank = 0;
        char func[128];
        ck_assert_int_eq(sscanf(line, "%u %*d %*d %127s", &rank, func), 2);
        ck_assert_uint_lt(rank, MAXR);
        c->per[counts_slot(c, func)][rank]++;
        c->rank[rank]++;
        ck_assert_uint_lt(it->u.state.depth, MAXD);
        c->depth[it->u.state.depth][rank]++;
        lines_add(out, line);
    }
    ck_assert_int_eq(rc, SLOG_END);
    ck_assert_uint_eq(info->states, out->n);
    slog_query_destroy(q);
    slog_reader_destroy(rd);
}

/* Every record, imported with raw per-rank clocks, comes back from the
 * reader with its rank, thread, function, depth, arguments and exact times. */
START_TEST(test_recorder_import_round_trips_every_record)
{
    char *const dir = corpus_path(traces[_i]);
    char *txt = NULL, *ref = NULL;
    ck_assert_int_ge(asprintf(&txt, "%s.decoded.txt", dir), 0);
    ck_assert_int_ge(asprintf(&ref, "%s.reference.txt", dir), 0);
    char *const tmp = make_tmpdir();
    char *out = NULL, *errp = NULL;
    ck_assert_int_ge(asprintf(&out, "%s/out.slog", tmp), 0);
    ck_assert_int_ge(asprintf(&errp, "%s/stderr", tmp), 0);
    ck_assert_int_eq(setenv("SLOG_RECORDER_ALIGN", "none", 1), 0);
    const int status = run_import(dir, out, errp);
    char *const errtext = read_text(errp);
    ck_assert_msg(status == 0, "slog-import %s: exit %d: %s", traces[_i], status, errtext);

    rec_trace *t = NULL;
    ck_assert_int_eq(rec_trace_open(&t, dir, NULL), SLOG_OK);
    const uint32_t nranks = (uint32_t)rec_trace_header(t)->total_ranks;
    lines got = {0}, want = {0};
    counts *const cg = calloc(1, sizeof *cg), *const cw = calloc(1, sizeof *cw);
    ck_assert_ptr_nonnull(cg);
    ck_assert_ptr_nonnull(cw);
    read_states(out, rec_start_ns(rec_trace_header(t)), &got, cg);
    decoded_lines(txt, &want);
    counts_from_reference(cw, ref, nranks);
    assert_counts_equal(cg, cw, nranks, traces[_i]);

    ck_assert_uint_eq(got.n, want.n);
    qsort((void *)got.v, got.n, sizeof *got.v, cmp_str);
    qsort((void *)want.v, want.n, sizeof *want.v, cmp_str);
    for (size_t i = 0; i < got.n; i++) {
        ck_assert_msg(strcmp(got.v[i], want.v[i]) == 0, "%s:\n got  %s\n want %s", traces[_i],
                      got.v[i], want.v[i]);
    }
    lines_free(&got);
    lines_free(&want);
    free(cg);
    free(cw);
    rec_trace_close(t);
    unlink(out);
    unlink(errp);
    rmdir(tmp);
    free(errtext);
    free(out);
    free(errp);
    free(tmp);
    free(txt);
    free(ref);
    free(dir);
}
END_TEST

typedef struct span {
    int64_t start, end;
    uint64_t category; /* hash of the name: ids follow first use, which alignment reorders */
    bool world_barrier;
} span;

typedef struct rank_spans {
    span *v;
    size_t n, cap;
} rank_spans;

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->start != y->start) {
        return x->start < y->start ? -1 : 1;
    }
    if (x->end != y->end) {
        return x->end < y->end ? -1 : 1;
    }
    return (x->category > y->category) - (x->category < y->category);
}

/* Import `dir` (with SLOG_RECORDER_ALIGN=align, NULL to unset) and return
 * each rank's states sorted by time. */
static uint32_t import_spans(const char *dir, const char *align, rank_spans *per)
{
    char *const tmp = make_tmpdir();
    char *out = NULL, *errp = NULL;
    ck_assert_int_ge(asprintf(&out, "%s/out.slog", tmp), 0);
    ck_assert_int_ge(asprintf(&errp, "%s/stderr", tmp), 0);
    if (align != NULL) {
        ck_assert_int_eq(setenv("SLOG_RECORDER_ALIGN", align, 1), 0);
    } else {
        ck_assert_int_eq(unsetenv("SLOG_RECORDER_ALIGN"), 0);
    }
    ck_assert_int_eq(run_import(dir, out, errp), 0);
    slog_reader *rd = NULL;
    ck_assert_int_eq(slog_reader_open(&rd, out, NULL, NULL), SLOG_OK);
    const slog_file_info *const info = slog_reader_info(rd);
    slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    qo.kinds = 1u << SLOG_KIND_STATE;
    qo.t0 = info->start;
    qo.t1 = info->end + 1;
    slog_query *q = NULL;
    ck_assert_int_eq(slog_query_create(&q, rd, &qo, NULL), SLOG_OK);
    const slog_item *it = NULL;
    uint32_t nranks = 0;
    while (slog_query_next(q, &it, NULL) == SLOG_OK) {
        const slog_state *const st = &it->u.state;
        slog_category_info cat;
        slog_timeline_info tl;
        ck_assert_int_eq(slog_reader_category(rd, st->category, &cat), SLOG_OK);
        ck_assert_int_eq(slog_reader_timeline(rd, st->timeline, &tl), SLOG_OK);
        if (tl.kind == SLOG_TIMELINE_THREAD) {
            ck_assert_int_eq(slog_reader_timeline(rd, tl.parent, &tl), SLOG_OK);
        }
        unsigned rank = 0;
        ck_assert_int_eq(sscanf(tl.name, "rank %u", &rank), 1);
        ck_assert_uint_lt(rank, MAXR);
        nranks = rank + 1 > nranks ? rank + 1 : nranks;
        rank_spans *const rs = &per[rank];
        if (rs->n == rs->cap) {
            rs->cap = rs->cap != 0 ? 2 * rs->cap : 256;
            rs->v = realloc(rs->v, rs->cap * sizeof *rs->v);
            ck_assert_ptr_nonnull(rs->v);
        }
        uint64_t hname = 1469598103934665603u;
        for (const char *c = cat.name; *c != '\0'; c++) {
            hname = (hname ^ (unsigned char)*c) * 1099511628211u;
        }
        rs->v[rs->n++] = (span){st->start, st->end, hname,
                                strcmp(cat.name, "MPI_Barrier") == 0 && st->nargs >= 1 &&
                                    st->args[0].type == SLOG_ARG_STRING &&
                                    strcmp(st->args[0].v.s, "MPI_COMM_WORLD") == 0};
    }
    for (uint32_t r = 0; r < nranks; r++) {
        qsort(per[r].v, per[r].n, sizeof *per[r].v, cmp_span);
    }
    slog_query_destroy(q);
    slog_reader_destroy(rd);
    unlink(out);
    unlink(errp);
    rmdir(tmp);
    free(out);
    free(errp);
    free(tmp);
    return nranks;
}

/* Default import: each rank is moved by one constant (rank 0 not at all),
 * and afterwards no world barrier on any rank ends before rank 0 entered
 * it, nor on rank 0 before that rank entered it. */
START_TEST(test_recorder_import_aligns_ranks_at_world_barriers)
{
    char *const dir = corpus_path(traces[_i]);
    rank_spans raw[MAXR], aligned[MAXR];
    memset(raw, 0, sizeof raw);
    memset(aligned, 0, sizeof aligned);
    const uint32_t nranks = import_spans(dir, "none", raw);
    ck_assert_uint_eq(import_spans(dir, NULL, aligned), nranks);
    ck_assert_uint_eq(nranks, 4);
    uint32_t moved = 0;
    for (uint32_t r = 0; r < nranks; r++) {
        ck_assert_uint_eq(raw[r].n, aligned[r].n);
        ck_assert_uint_gt(raw[r].n, 0);
        const int64_t d = aligned[r].v[0].start - raw[r].v[0].start;
        for (size_t i = 0; i < raw[r].n; i++) {
            ck_assert_int_eq(aligned[r].v[i].start - raw[r].v[i].start, d);
            ck_assert_int_eq(aligned[r].v[i].end - raw[r].v[i].end, d);
            ck_assert_uint_eq(aligned[r].v[i].category, raw[r].v[i].category);
        }
        if (r == 0) {
            ck_assert_int_eq(d, 0);
        }
        moved += d != 0;
    }
    ck_assert_uint_gt(moved, 0); /* every corpus run has world barriers */
    const rank_spans *const r0 = &aligned[0];
    for (uint32_t r = 1; r < nranks; r++) {
        size_t i = 0, j = 0;
        for (;;) {
            while (i < r0->n && !r0->v[i].world_barrier) {
                i++;
            }
            while (j < aligned[r].n && !aligned[r].v[j].world_barrier) {
                j++;
            }
            if (i == r0->n || j == aligned[r].n) {
                break;
            }
            ck_assert_msg(r0->v[i].start <= aligned[r].v[j].end &&
                              aligned[r].v[j].start <= r0->v[i].end,
                          "%s: rank %u leaves a world barrier before rank 0 enters, or the "
                          "reverse",
                          traces[_i], r);
            i++;
            j++;
        }
    }
    for (uint32_t r = 0; r < MAXR; r++) {
        free(raw[r].v);
        free(aligned[r].v);
    }
    free(dir);
}
END_TEST

/* Threads: with stored tids every record sits on a THREAD child of its
 * rank; the corpus run has a helper pthread on rank 0 only. */
START_TEST(test_recorder_import_threads_become_child_timelines)
{
    char *const dir = corpus_path("posix_mpi_tid_nocomp");
    char *const tmp = make_tmpdir();
    char *out = NULL, *errp = NULL;
    ck_assert_int_ge(asprintf(&out, "%s/out.slog", tmp), 0);
    ck_assert_int_ge(asprintf(&errp, "%s/stderr", tmp), 0);
    ck_assert_int_eq(run_import(dir, out, errp), 0);
    slog_reader *rd = NULL;
    ck_assert_int_eq(slog_reader_open(&rd, out, NULL, NULL), SLOG_OK);
    const slog_file_info *const info = slog_reader_info(rd);
    uint32_t threads_of[MAXR] = {0}, ranks = 0;
    for (uint32_t id = 0; id < info->timelines; id++) {
        slog_timeline_info tl, parent;
        ck_assert_int_eq(slog_reader_timeline(rd, id, &tl), SLOG_OK);
        if (tl.kind == SLOG_TIMELINE_RANK) {
            ck_assert_uint_eq(tl.parent, SLOG_NO_PARENT);
            ranks++;
            continue;
        }
        ck_assert_int_eq(tl.kind, SLOG_TIMELINE_THREAD);
        ck_assert_int_eq(slog_reader_timeline(rd, tl.parent, &parent), SLOG_OK);
        unsigned r = 0;
        ck_assert_int_eq(sscanf(parent.name, "rank %u", &r), 1);
        ck_assert_uint_lt(r, MAXR);
        threads_of[r]++;
    }
    ck_assert_uint_eq(ranks, 4);
    ck_assert_uint_eq(threads_of[0], 2);
    ck_assert_uint_eq(threads_of[1], 1);
    ck_assert_uint_eq(threads_of[2], 1);
    ck_assert_uint_eq(threads_of[3], 1);
    /* one category per function, grouped by layer */
    bool seen_posix = false, seen_mpi = false;
    for (uint32_t id = 0; id < info->categories; id++) {
        slog_category_info c;
        ck_assert_int_eq(slog_reader_category(rd, id, &c), SLOG_OK);
        ck_assert_int_eq(c.kind, SLOG_KIND_STATE);
        if (strcmp(c.name, "write") == 0) {
            ck_assert_str_eq(c.group, "POSIX");
            seen_posix = true;
        }
        if (strcmp(c.name, "MPI_Send") == 0) {
            ck_assert_str_eq(c.group, "MPI");
            seen_mpi = true;
        }
    }
    ck_assert(seen_posix && seen_mpi);
    ck_assert_uint_eq(info->categories, 18);
    slog_reader_destroy(rd);
    unlink(out);
    unlink(errp);
    rmdir(tmp);
    free(out);
    free(errp);
    free(tmp);
    free(dir);
}
END_TEST

/* Damaged folders: exit status 1, a message naming the file inside the
 * folder and the byte offset, and no output that passes for complete. */
START_TEST(test_recorder_import_broken_input_fails_with_location)
{
    char *dir = NULL, *expect = NULL;
    ck_assert_int_ge(asprintf(&dir, "%s/tests/data/recorder/%s", SLOG_SOURCE_ROOT, broken[_i]), 0);
    ck_assert_int_ge(asprintf(&expect, "%s/expect", dir), 0);
    char *const text = read_text(expect);
    char file[64] = "", off[32] = "";
    char *cur = text, *line;
    while ((line = next_line(&cur)) != NULL) {
        sscanf(line, "file=%63s", file);
        sscanf(line, "offset=%31s", off);
    }
    char *const tmp = make_tmpdir();
    char *out = NULL, *errp = NULL, *want = NULL;
    ck_assert_int_ge(asprintf(&out, "%s/out.slog", tmp), 0);
    ck_assert_int_ge(asprintf(&errp, "%s/stderr", tmp), 0);
    ck_assert_int_eq(run_import(dir, out, errp), 1);
    char *const errtext = read_text(errp);
    if (strcmp(off, "none") == 0) {
        ck_assert_int_ge(asprintf(&want, "slog-import: %s/%s: ", dir, file), 0);
    } else {
        ck_assert_int_ge(asprintf(&want, "slog-import: %s/%s: byte %s: ", dir, file, off), 0);
    }
    ck_assert_msg(strstr(errtext, want) != NULL, "stderr \"%s\" lacks \"%s\"", errtext, want);
    slog_reader *rd = NULL;
    if (slog_reader_open(&rd, out, NULL, NULL) == SLOG_OK) {
        ck_assert(!slog_reader_info(rd)->complete);
        ck_assert_uint_eq(slog_reader_info(rd)->states, 0);
        slog_reader_destroy(rd);
    }
    unlink(out);
    unlink(errp);
    rmdir(tmp);
    free(errtext);
    free(want);
    free(out);
    free(errp);
    free(tmp);
    free(text);
    free(expect);
    free(dir);
}
END_TEST

/* Common calls get named arguments; decimal text becomes integers, except
 * offsets when pattern recognition may have turned them into patterns. */
static void check_write_at_offset(const char *trace, slog_arg_type want_type)
{
    char *const dir = corpus_path(trace);
    char *const tmp = make_tmpdir();
    char *out = NULL, *errp = NULL;
    ck_assert_int_ge(asprintf(&out, "%s/out.slog", tmp), 0);
    ck_assert_int_ge(asprintf(&errp, "%s/stderr", tmp), 0);
    ck_assert_int_eq(run_import(dir, out, errp), 0);
    slog_reader *rd = NULL;
    ck_assert_int_eq(slog_reader_open(&rd, out, NULL, NULL), SLOG_OK);
    const slog_file_info *const info = slog_reader_info(rd);
    slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    qo.t0 = info->start;
    qo.t1 = info->end + 1;
    slog_query *q = NULL;
    ck_assert_int_eq(slog_query_create(&q, rd, &qo, NULL), SLOG_OK);
    const slog_item *it = NULL;
    uint32_t seen_at = 0, seen_pwrite = 0;
    while (slog_query_next(q, &it, NULL) == SLOG_OK) {
        const slog_state *const st = &it->u.state;
        slog_category_info cat;
        ck_assert_int_eq(slog_reader_category(rd, st->category, &cat), SLOG_OK);
        if (strcmp(cat.name, "MPI_File_write_at") == 0) {
            ck_assert_uint_ge(st->nargs, 5);
            ck_assert_str_eq(st->args[0].key, "fh");
            ck_assert_str_eq(st->args[1].key, "offset");
            ck_assert_int_eq(st->args[1].type, want_type);
            ck_assert_str_eq(st->args[3].key, "count");
            ck_assert_int_eq(st->args[3].type, SLOG_ARG_INT);
            ck_assert_str_eq(st->args[4].key, "datatype");
            ck_assert_int_eq(st->args[4].type, SLOG_ARG_STRING);
            ck_assert_str_eq(cat.group, "MPI-IO");
            seen_at++;
        } else if (strcmp(cat.name, "pwrite") == 0) {
            ck_assert_uint_eq(st->nargs, 4);
            ck_assert_str_eq(st->args[0].key, "path");
            ck_assert_int_eq(st->args[0].type, SLOG_ARG_STRING);
            ck_assert_ptr_nonnull(strstr(st->args[0].v.s, "/scratch/run/"));
            ck_assert_str_eq(st->args[1].key, "buf");
            ck_assert_str_eq(st->args[1].v.s, "%p");
            ck_assert_str_eq(st->args[2].key, "count");
            ck_assert_int_eq(st->args[2].type, SLOG_ARG_INT);
            ck_assert_int_gt(st->args[2].v.i, 0);
            ck_assert_str_eq(st->args[3].key, "offset");
            ck_assert_int_eq(st->args[3].type, want_type);
            ck_assert_str_eq(cat.group, "POSIX");
            seen_pwrite++;
        } else if (strcmp(cat.name, "H5Dwrite") == 0) {
            ck_assert_str_eq(st->args[0].key, "dset");
            ck_assert_int_eq(st->args[0].type, SLOG_ARG_INT); /* hid_t as a number */
            ck_assert_str_eq(cat.group, "HDF5");
        }
    }
    ck_assert_uint_eq(seen_at, 7);      /* reference: MPI_File_write_at 7 */
    ck_assert_uint_eq(seen_pwrite, 10); /* reference: pwrite 10 */
    slog_query_destroy(q);
    slog_reader_destroy(rd);
    unlink(out);
    unlink(errp);
    rmdir(tmp);
    free(out);
    free(errp);
    free(tmp);
    free(dir);
}

START_TEST(test_recorder_import_args_named_and_typed)
{
    check_write_at_offset("mpiio_hdf5", SLOG_ARG_INT);
    check_write_at_offset("mpiio_hdf5_patterns", SLOG_ARG_STRING);
}
END_TEST

/* A user-function record (func_id 255) becomes a state whose category is
 * its symbol, in group "user", with args object and symbol as text. */
START_TEST(test_recorder_import_user_function_named_by_symbol)
{
    char *dir = NULL;
    ck_assert_int_ge(asprintf(&dir, "%s/tests/data/recorder/y_v24_user_function", SLOG_SOURCE_ROOT),
                     0);
    char *const tmp = make_tmpdir();
    char *out = NULL, *errp = NULL;
    ck_assert_int_ge(asprintf(&out, "%s/out.slog", tmp), 0);
    ck_assert_int_ge(asprintf(&errp, "%s/stderr", tmp), 0);
    ck_assert_int_eq(run_import(dir, out, errp), 0);
    slog_reader *rd = NULL;
    ck_assert_int_eq(slog_reader_open(&rd, out, NULL, NULL), SLOG_OK);
    const slog_file_info *const info = slog_reader_info(rd);
    ck_assert_uint_eq(info->states, 226); /* 225 corpus records + 1 */
    slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    qo.t0 = info->start;
    qo.t1 = info->end + 1;
    slog_query *q = NULL;
    ck_assert_int_eq(slog_query_create(&q, rd, &qo, NULL), SLOG_OK);
    const slog_item *it = NULL;
    uint32_t found = 0;
    while (slog_query_next(q, &it, NULL) == SLOG_OK) {
        slog_category_info cat;
        ck_assert_int_eq(slog_reader_category(rd, it->u.state.category, &cat), SLOG_OK);
        if (strcmp(cat.group, "user") != 0) {
            continue;
        }
        ck_assert_str_eq(cat.name, "my_func");
        ck_assert_uint_eq(it->u.state.nargs, 2);
        ck_assert_str_eq(it->u.state.args[0].key, "object");
        ck_assert_int_eq(it->u.state.args[0].type, SLOG_ARG_STRING);
        ck_assert_str_eq(it->u.state.args[0].v.s, "/usr/lib/libfoo.so");
        ck_assert_str_eq(it->u.state.args[1].key, "symbol");
        ck_assert_str_eq(it->u.state.args[1].v.s, "my_func");
        ck_assert_int_eq(it->u.state.end - it->u.state.start, 50 * 100);
        found++;
    }
    ck_assert_uint_eq(found, 1);
    slog_query_destroy(q);
    slog_reader_destroy(rd);
    unlink(out);
    unlink(errp);
    rmdir(tmp);
    free(out);
    free(errp);
    free(tmp);
    free(dir);
}
END_TEST
#endif /* SLOG_RECORDER_IMPORT_TESTS */

/* The import cases are built (SLOG_RECORDER_IMPORT_TESTS) when meson has a
 * slog-import executable to run; the decoder cases need no library. */
static Suite *recorder_suite(void)
{
    Suite *const s = suite_create("recorder");
    TCase *tc = tcase_create("decode");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_recorder_decode_matches_decoded_txt, 0, NTRACES);
    tcase_add_loop_test(tc, test_recorder_counts_match_reference, 0, NTRACES);
    tcase_add_test(tc, test_recorder_layers_follow_table_split);
    tcase_add_test(tc, test_recorder_ticks_convert_exactly);
    tcase_add_loop_test(tc, test_recorder_layouts_without_sample_decode_as_expected, 0, NLAYOUTS);
    suite_add_tcase(s, tc);

    tc = tcase_create("hostile");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_recorder_truncations_fail_cleanly, 0, NTRACES);
    tcase_add_loop_test(tc, test_recorder_byte_flips_never_crash, 0, NTRACES);
    tcase_add_loop_test(tc, test_recorder_broken_inputs_name_file_and_offset, 0, NBROKEN);
    suite_add_tcase(s, tc);
#ifdef SLOG_RECORDER_IMPORT_TESTS
    tc = tcase_create("import");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_recorder_import_round_trips_every_record, 0, NTRACES);
    tcase_add_loop_test(tc, test_recorder_import_aligns_ranks_at_world_barriers, 0, NTRACES);
    tcase_add_test(tc, test_recorder_import_threads_become_child_timelines);
    tcase_add_test(tc, test_recorder_import_args_named_and_typed);
    tcase_add_test(tc, test_recorder_import_user_function_named_by_symbol);
    tcase_add_loop_test(tc, test_recorder_import_broken_input_fails_with_location, 0, NBROKEN);
    suite_add_tcase(s, tc);
#endif
    return s;
}

int main(void)
{
    SRunner *const sr = srunner_create(recorder_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
