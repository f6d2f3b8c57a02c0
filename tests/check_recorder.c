/* SPDX-License-Identifier: MIT
 *
 * check_recorder.c - the Recorder decoder against the corpus: every record
 * of every trace folder (rank, function, depth, tid, argument text, start
 * and end tick) must equal the independent decoder's *.decoded.txt, and the
 * per-rank, per-function and per-depth counts must equal *.reference.txt
 * (which come from Recorder's own recorder2text).  Then hostile inputs:
 * the crafted folders in tests/data/recorder/ (n_* must fail with the code,
 * file and byte offset their `expect` file names; y_* are layouts without a
 * corpus sample that must decode to known records), many truncations and
 * byte flips of every file, none of which may crash or pass off a damaged
 * trace as the original.  With the slog-import executable (meson defines
 * SLOG_RECORDER_IMPORT_TESTS and SLOG_IMPORT), each folder is also imported
 * and read back through the reader API, and timestamp files cut at several
 * points must leave the other ranks whole and the cut rank's records up to
 * the cut in an output marked incomplete.
 */
#define _GNU_SOURCE /* asprintf */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define ZLIB_CONST /* next_in is const */
#include <zlib.h>

#include "recorder_decode.h"

#ifndef SLOG_SOURCE_ROOT
#    define SLOG_SOURCE_ROOT "."
#endif

/* ------------------------------------------------------------------ */
/* assertions as function calls                                        */

/* Check's ck_assert_* macros expand to conditionals, which clang-tidy
 * counts against each function's cognitive complexity (the gate is 20);
 * these helpers keep the test bodies within it. */
typedef enum cmp_op {
    OP_EQ,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE
} cmp_op;

static void check_true(bool ok, int line, const char *what)
{
    if (!ok) {
        ck_abort_msg("line %d: %s", line, what);
    }
}

static bool cmp_holds(int c, cmp_op op)
{
    switch (op) {
    case OP_EQ:
        return c == 0;
    case OP_NE:
        return c != 0;
    case OP_LT:
        return c < 0;
    case OP_LE:
        return c <= 0;
    case OP_GT:
        return c > 0;
    case OP_GE:
        return c >= 0;
    }
    return false;
}

static void check_i(intmax_t a, cmp_op op, intmax_t b, int line, const char *ea, const char *eb)
{
    if (!cmp_holds((a > b) - (a < b), op)) {
        ck_abort_msg("line %d: %s (%jd) vs %s (%jd)", line, ea, a, eb, b);
    }
}

static void check_u(uintmax_t a, cmp_op op, uintmax_t b, int line, const char *ea, const char *eb)
{
    if (!cmp_holds((a > b) - (a < b), op)) {
        ck_abort_msg("line %d: %s (%ju) vs %s (%ju)", line, ea, a, eb, b);
    }
}

static void check_s(const char *a, const char *b, int line, const char *ea, const char *eb)
{
    if (a == NULL || b == NULL || strcmp(a, b) != 0) {
        ck_abort_msg("line %d: %s (\"%s\") != %s (\"%s\")", line, ea, a != NULL ? a : "(null)", eb,
                     b != NULL ? b : "(null)");
    }
}

#define CHECK(c) check_true((c), __LINE__, #c)
#define CHECKF(c, ...)                                                                             \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            ck_abort_msg(__VA_ARGS__);                                                             \
        }                                                                                          \
    } while (0)
#define NONNULL(p)      check_true((p) != NULL, __LINE__, #p " is NULL")
#define EQ_S(a, b)      check_s((a), (b), __LINE__, #a, #b)
#define CMP_I(a, op, b) check_i((intmax_t)(a), (op), (intmax_t)(b), __LINE__, #a, #b)
#define CMP_U(a, op, b) check_u((uintmax_t)(a), (op), (uintmax_t)(b), __LINE__, #a, #b)
#define EQ_I(a, b)      CMP_I(a, OP_EQ, b)
#define NE_I(a, b)      CMP_I(a, OP_NE, b)
#define LT_I(a, b)      CMP_I(a, OP_LT, b)
#define GE_I(a, b)      CMP_I(a, OP_GE, b)
#define EQ_U(a, b)      CMP_U(a, OP_EQ, b)
#define LT_U(a, b)      CMP_U(a, OP_LT, b)
#define LE_U(a, b)      CMP_U(a, OP_LE, b)
#define GT_U(a, b)      CMP_U(a, OP_GT, b)
#define GE_U(a, b)      CMP_U(a, OP_GE, b)

/* ------------------------------------------------------------------ */
/* files and text                                                      */

static const char *const traces[] = {
    "posix_mpi",           "posix_mpi_tid_nocomp", "mpiio_hdf5",
    "mpiio_hdf5_patterns", "posix_mpi-v2.4.0",     "mpiio_hdf5-v2.4.0",
};
#define NTRACES ((int)(sizeof traces / sizeof traces[0]))

/* asprintf that never returns NULL (aborts the test instead). */
static char *xstr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xstr(const char *fmt, ...)
{
    char *p = NULL;
    va_list ap;
    va_start(ap, fmt);
    const int n =
        vasprintf(&p, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized): va_start above
    va_end(ap);
    if (n < 0 || p == NULL) {
        ck_abort_msg("out of memory");
    }
    return p;
}

static char *corpus_path(const char *name)
{
    const char *const root = getenv("SLOG_CORPUS");
    if (root == NULL || root[0] == '\0') {
        return xstr("%s/../shared/corpus/recorder/%s", SLOG_SOURCE_ROOT, name);
    }
    return xstr("%s/recorder/%s", root, name);
}

static char *data_path(const char *name)
{
    return xstr("%s/tests/data/recorder/%s", SLOG_SOURCE_ROOT, name);
}

/* Whole file, NUL-terminated; *len (if not NULL) gets its size. */
static char *read_file(const char *path, size_t *len)
{
    FILE *const f = fopen(path, "rb");
    CHECKF(f != NULL, "cannot open %s: %s", path, strerror(errno));
    EQ_I(fseek(f, 0, SEEK_END), 0);
    const long n = ftell(f);
    GE_I(n, 0);
    rewind(f);
    char *const buf = malloc((size_t)n + 1);
    NONNULL(buf);
    EQ_U(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    EQ_I(fclose(f), 0);
    if (len != NULL) {
        *len = (size_t)n;
    }
    return buf;
}

static void write_file(const char *path, const unsigned char *data, size_t n)
{
    FILE *const f = fopen(path, "wb");
    CHECKF(f != NULL, "cannot create %s", path);
    EQ_U(fwrite(data, 1, n, f), n);
    EQ_I(fclose(f), 0);
}

static char *make_tmpdir(void)
{
    char *const d = xstr("/tmp/check_recorder_XXXXXX");
    NONNULL(mkdtemp(d));
    return d;
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

/* Advance the cursor past the line starting with `prefix`. */
static void skip_to(char **cursor, const char *prefix)
{
    const char *line;
    while ((line = next_line(cursor)) != NULL) {
        if (strncmp(line, prefix, strlen(prefix)) == 0) {
            return;
        }
    }
    ck_abort_msg("no line starting with \"%s\"", prefix);
}

/* "0.0003318" -> 3318 ticks of 1e-7 s (the dumps print 7 decimals). */
static int64_t parse_ticks(const char *s)
{
    int64_t whole = 0, frac = 0;
    int digits = 0;
    while (*s >= '0' && *s <= '9') {
        whole = whole * 10 + (*s++ - '0');
    }
    EQ_I(*s, '.');
    s++;
    while (*s >= '0' && *s <= '9') {
        frac = frac * 10 + (*s++ - '0');
        digits++;
    }
    EQ_I(digits, 7);
    return whole * 10000000 + frac;
}

/* ------------------------------------------------------------------ */
/* records as canonical lines: "rank tstart tend func depth tid ( args)"  */

typedef struct lines {
    char **v;
    size_t n, cap;
} lines;

static void lines_add(lines *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap != 0 ? 2 * l->cap : 512;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        NONNULL(l->v);
    }
    l->v[l->n++] = s;
}

static void lines_free(lines *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i]);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Equal as sequences, or (sorted) as multisets. */
static void lines_expect_equal(lines *got, lines *want, bool sorted, const char *label)
{
    EQ_U(got->n, want->n);
    if (sorted && got->n > 0) {
        qsort((void *)got->v, got->n, sizeof *got->v, cmp_str);
        qsort((void *)want->v, want->n, sizeof *want->v, cmp_str);
    }
    for (size_t i = 0; i < got->n; i++) {
        CHECKF(strcmp(got->v[i], want->v[i]) == 0, "%s line %zu:\n got  %s\n want %s", label, i,
               got->v[i], want->v[i]);
    }
}

/* One decoded.txt record line in canonical form. */
static char *canonical_decoded(const char *line)
{
    unsigned rank = 0, depth = 0;
    char ts0[32], ts1[32], func[128];
    unsigned long long tid = 0;
    int used = 0;
    EQ_I(sscanf(line, "%u %31s %31s %127s %u %llu %n", &rank, ts0, ts1, func, &depth, &tid, &used),
         6);
    CHECKF(strncmp(line + used, "( ", 2) == 0, "no argument list: %s", line);
    return xstr("%u %lld %lld %s %u %llu %s", rank, (long long)parse_ticks(ts0),
                (long long)parse_ticks(ts1), func, depth, tid, line + used);
}

/* The records of a decoded.txt file. */
static void decoded_lines(const char *txtpath, lines *out)
{
    char *const text = read_file(txtpath, NULL);
    char *cur = text;
    skip_to(&cur, "## records (");
    const char *line;
    while ((line = next_line(&cur)) != NULL) {
        if (line[0] != '\0') {
            lines_add(out, canonical_decoded(line));
        }
    }
    free(text);
}

/* Checks one record's own consistency; returns its canonical line. */
static char *
canonical_record(const rec_trace *t, uint32_t rank, const rec_record *rec, uint64_t expect_index)
{
    const rec_sig *const s = rec->sig;
    EQ_U(rec->index, expect_index);
    /* the argument text splits into exactly arg_count arguments */
    static const char *starts[256];
    static uint32_t lens[256];
    uint32_t rest = 1;
    EQ_U(rec_split_args(s, starts, lens, 256, &rest), s->arg_count);
    EQ_U(rest, 0);
    const char *const func = rec_trace_func_name(t, s->func_id);
    NONNULL(func);
    return xstr("%u %lld %lld %s %u %llu ( %.*s)", rank, (long long)rec->tstart,
                (long long)rec->tend, func, s->depth, (unsigned long long)s->tid, (int)s->args_len,
                s->args);
}

/* Every record of a folder through the decoder, rank after rank. */
static void decode_lines(const char *dir, lines *out)
{
    rec_trace *t = NULL;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    CHECKF(rec_trace_open(&t, dir, &err) == SLOG_OK, "%s: %s: %s", dir, err.source, err.message);
    for (uint32_t r = 0; r < (uint32_t)rec_trace_header(t)->total_ranks; r++) {
        rec_rank *rk = NULL;
        CHECKF(rec_rank_open(&rk, t, r, &err) == SLOG_OK, "rank %u: %s: %s", r, err.source,
               err.message);
        rec_record rec;
        uint64_t n = 0;
        while (rec_rank_next(rk, &rec) == SLOG_OK) {
            lines_add(out, canonical_record(t, r, &rec, n++));
        }
        EQ_U(n, rec_rank_record_count(rk));
        rec_rank_close(rk);
    }
    rec_trace_close(t);
}

/* decoded.txt's header lines agree with what the decoder read. */
static void check_header(const char *txtpath, const char *dir)
{
    rec_trace *t = NULL;
    EQ_I(rec_trace_open(&t, dir, NULL), SLOG_OK);
    const rec_header *const h = rec_trace_header(t);
    CHECK(h->time_resolution == 1e-7); /* the dumps print 7 decimals */
    char *const text = read_file(txtpath, NULL);
    char *cur = text;
    const char *line;
    unsigned seen = 0;
    while ((line = next_line(&cur)) != NULL && strncmp(line, "## ", 3) != 0) {
        int n = 0;
        unsigned nf = 0;
        if (strncmp(line, "# VERSION ", 10) == 0) {
            EQ_S(line + 10, h->version);
            seen++;
        } else if (sscanf(line, "# total_ranks = %d", &n) == 1) {
            EQ_I(n, h->total_ranks);
            seen++;
        } else if (sscanf(line, "# functions in recorder.mt list: %u", &nf) == 1) {
            EQ_U(nf, rec_trace_func_count(t));
            seen++;
        }
    }
    EQ_U(seen, 3);
    free(text);
    rec_trace_close(t);
}

/* Every record, in order, equals decoded.txt: rank, ticks, function,
 * depth, tid and the argument text byte for byte. */
START_TEST(test_recorder_decode_matches_decoded_txt)
{
    char *const dir = corpus_path(traces[_i]);
    char *const txt = xstr("%s.decoded.txt", dir);
    check_header(txt, dir);
    lines got = {0}, want = {0};
    decode_lines(dir, &got);
    decoded_lines(txt, &want);
    GT_U(want.n, 0);
    lines_expect_equal(&got, &want, false, traces[_i]);
    lines_free(&got);
    lines_free(&want);
    free(txt);
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

static counts *counts_new(void)
{
    counts *const c = calloc(1, sizeof *c);
    NONNULL(c);
    return c;
}

static uint32_t counts_slot(counts *c, const char *name)
{
    for (uint32_t i = 0; i < c->nnames; i++) {
        if (strcmp(c->names[i], name) == 0) {
            return i;
        }
    }
    LT_U(c->nnames, MAXF);
    LT_U(strlen(name), sizeof c->names[0]);
    memcpy(c->names[c->nnames], name, strlen(name) + 1);
    return c->nnames++;
}

static void counts_add(counts *c, const char *func, uint32_t rank, uint32_t depth)
{
    LT_U(rank, MAXR);
    LT_U(depth, MAXD);
    c->per[counts_slot(c, func)][rank]++;
    c->rank[rank]++;
    c->depth[depth][rank]++;
}

/* "  c0 c1 c2 c3 | total" -> out[0..nranks) */
static void parse_row(const char *p, uint32_t nranks, uint64_t *out)
{
    for (uint32_t k = 0; k < nranks; k++) {
        unsigned long long v = 0;
        int u = 0;
        EQ_I(sscanf(p, "%llu%n", &v, &u), 1);
        out[k] = v;
        p += u;
    }
}

static void parse_reference_line(counts *c, int section, const char *line, uint32_t nranks)
{
    unsigned r = 0, d = 0;
    unsigned long long v = 0;
    int used = 0;
    char name[64];
    if (section == 1 && sscanf(line, "rank %u: %llu", &r, &v) == 2) {
        LT_U(r, nranks);
        c->rank[r] = v;
    } else if (section == 2 && sscanf(line, "%63s%n", name, &used) == 1) {
        parse_row(line + used, nranks, c->per[counts_slot(c, name)]);
    } else if (section == 3 && sscanf(line, "depth %u:%n", &d, &used) == 1 && used > 0) {
        LT_U(d, MAXD);
        parse_row(line + used, nranks, c->depth[d]);
    }
}

static int reference_section(const char *line)
{
    if (strncmp(line, "## records per rank", 19) == 0) {
        return 1;
    }
    if (strncmp(line, "## records per function", 23) == 0) {
        return 2;
    }
    return strncmp(line, "## records per call depth", 25) == 0 ? 3 : 0;
}

static void counts_from_reference(counts *c, const char *path, uint32_t nranks)
{
    char *const text = read_file(path, NULL);
    char *cur = text;
    const char *line;
    int section = 0;
    while ((line = next_line(&cur)) != NULL) {
        if (strncmp(line, "## ", 3) == 0) {
            section = reference_section(line);
        } else if (line[0] != '\0') {
            parse_reference_line(c, section, line, nranks);
        }
    }
    free(text);
}

static uint32_t counts_find(const counts *c, const char *name)
{
    uint32_t j = 0;
    while (j < c->nnames && strcmp(c->names[j], name) != 0) {
        j++;
    }
    CHECKF(j < c->nnames, "%s missing", name);
    return j;
}

static void
expect_function_counts(const counts *got, const counts *want, uint32_t nranks, const char *what)
{
    EQ_U(got->nnames, want->nnames);
    for (uint32_t i = 0; i < want->nnames; i++) {
        const uint64_t *const g = got->per[counts_find(got, want->names[i])];
        const uint64_t *const w = want->per[i];
        CHECKF(memcmp(g, w, nranks * sizeof *g) == 0, "%s: %s: per-rank counts differ", what,
               want->names[i]);
    }
}

static void expect_counts(const counts *got, const counts *want, uint32_t nranks, const char *what)
{
    GT_U(want->nnames, 0);
    expect_function_counts(got, want, nranks, what);
    for (uint32_t r = 0; r < nranks; r++) {
        EQ_U(got->rank[r], want->rank[r]);
        GT_U(want->rank[r], 0);
        for (uint32_t d = 0; d < MAXD; d++) {
            EQ_U(got->depth[d][r], want->depth[d][r]);
        }
    }
}

START_TEST(test_recorder_counts_match_reference)
{
    char *const dir = corpus_path(traces[_i]);
    char *const ref = xstr("%s.reference.txt", dir);
    rec_trace *t = NULL;
    EQ_I(rec_trace_open(&t, dir, NULL), SLOG_OK);
    const uint32_t nranks = (uint32_t)rec_trace_header(t)->total_ranks;
    LE_U(nranks, MAXR);
    counts *const want = counts_new(), *const got = counts_new();
    counts_from_reference(want, ref, nranks);
    for (uint32_t r = 0; r < nranks; r++) {
        rec_rank *rk = NULL;
        EQ_I(rec_rank_open(&rk, t, r, NULL), SLOG_OK);
        rec_record rec;
        while (rec_rank_next(rk, &rec) == SLOG_OK) {
            counts_add(got, rec_trace_func_name(t, rec.sig->func_id), r, rec.sig->depth);
        }
        rec_rank_close(rk);
    }
    expect_counts(got, want, nranks, traces[_i]);
    free(want);
    free(got);
    rec_trace_close(t);
    free(ref);
    free(dir);
}
END_TEST

/* Layers follow Recorder's split of the function table. */
START_TEST(test_recorder_layers_follow_table_split)
{
    static const struct {
        const char *name;
        rec_layer layer;
    } want[] = {{"open", REC_LAYER_POSIX},          {"fflush", REC_LAYER_POSIX},
                {"MPI_File_open", REC_LAYER_MPIIO}, {"MPI_File_get_size", REC_LAYER_MPIIO},
                {"MPI_Barrier", REC_LAYER_MPI},     {"MPI_Comm_split_type", REC_LAYER_MPI},
                {"H5Fcreate", REC_LAYER_HDF5},      {"H5Dwrite", REC_LAYER_HDF5}};
    char *const dir = corpus_path("mpiio_hdf5");
    rec_trace *t = NULL;
    EQ_I(rec_trace_open(&t, dir, NULL), SLOG_OK);
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        uint32_t id = 0;
        while (id < rec_trace_func_count(t) &&
               strcmp(rec_trace_func_name(t, id), want[k].name) != 0) {
            id++;
        }
        LT_U(id, rec_trace_func_count(t));
        EQ_I(rec_trace_func_layer(t, id), want[k].layer);
    }
    EQ_I(rec_trace_func_layer(t, REC_USER_FUNC_ID), REC_LAYER_USER);
    EQ_S(rec_layer_name(REC_LAYER_MPIIO), "MPI-IO");
    rec_trace_close(t);
    free(dir);
}
END_TEST

START_TEST(test_recorder_ticks_convert_exactly)
{
    rec_header h;
    memset(&h, 0, sizeof h);
    h.time_resolution = 1e-7;
    EQ_I(rec_ticks_to_ns(&h, 3318), 331800);
    EQ_I(rec_ticks_to_ns(&h, INT64_C(4294967295) * 3), INT64_C(1288490188500));
    h.time_resolution = 1e-6;
    EQ_I(rec_ticks_to_ns(&h, 7), 7000);
    h.time_resolution = 2.5e-10; /* 0.25 ns: rounded */
    EQ_I(rec_ticks_to_ns(&h, 10), 3);
    h.start_ts = 1795239580.484657;
    const int64_t ns = rec_start_ns(&h);
    /* within the double's own precision (2^-22 s at this magnitude) */
    GE_I(ns, INT64_C(1795239580484656800));
    CMP_I(ns, OP_LE, INT64_C(1795239580484657200));
}
END_TEST

/* tests/data/recorder/y_<case>/: layouts without a corpus sample, built by
 * make_cases.py from a corpus trace; `expect` says which decoded.txt they
 * reproduce (same_as=) and which records they add (extra=). */
static const char *const layouts[] = {"y_v24_interprocess", "y_v24_user_function"};
#define NLAYOUTS ((int)(sizeof layouts / sizeof layouts[0]))

static void expected_layout_lines(const char *expect_path, lines *want)
{
    char *const text = read_file(expect_path, NULL);
    char *cur = text;
    const char *line;
    while ((line = next_line(&cur)) != NULL) {
        if (strncmp(line, "same_as=", 8) == 0) {
            char *const src = corpus_path(line + 8);
            char *const txt = xstr("%s.decoded.txt", src);
            decoded_lines(txt, want);
            free(txt);
            free(src);
        } else if (strncmp(line, "extra=", 6) == 0) {
            lines_add(want, xstr("%s", line + 6));
        }
    }
    free(text);
}

START_TEST(test_recorder_layouts_without_sample_decode_as_expected)
{
    char *const dir = data_path(layouts[_i]);
    char *const expect = xstr("%s/expect", dir);
    lines want = {0}, got = {0};
    expected_layout_lines(expect, &want);
    GT_U(want.n, 0);
    decode_lines(dir, &got);
    lines_expect_equal(&got, &want, true, layouts[_i]);
    lines_free(&got);
    lines_free(&want);
    free(expect);
    free(dir);
}
END_TEST

/* ------------------------------------------------------------------ */
/* hostile inputs                                                      */

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *const b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 1099511628211u;
    }
    return h;
}

static uint64_t hash_i64(uint64_t h, int64_t v)
{
    for (int k = 0; k < 8; k++) {
        h = (h ^ (((uint64_t)v >> (8 * k)) & 0xffu)) * 1099511628211u;
    }
    return h;
}

static uint64_t hash_record(uint64_t h, uint32_t rank, const rec_record *rec)
{
    h = hash_i64(h, rank);
    h = hash_i64(h, rec->tstart);
    h = hash_i64(h, rec->tend);
    h = hash_i64(h, (int64_t)rec->sig->tid);
    h = hash_i64(h, rec->sig->func_id);
    h = hash_i64(h, rec->sig->depth);
    return hash_bytes(h, rec->sig->args, rec->sig->args_len);
}

/* Decode one rank into the hash; returns its status. */
static int decode_rank(rec_trace *t, uint32_t r, uint64_t *h, slog_error *err)
{
    rec_rank *rk = NULL;
    const int rc = rec_rank_open(&rk, t, r, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    rec_record rec;
    static const char *starts[256];
    static uint32_t lens[256];
    while (rec_rank_next(rk, &rec) == SLOG_OK) {
        *h = hash_record(*h, r, &rec);
        uint32_t rest = 0;
        (void)rec_split_args(rec.sig, starts, lens, 256, &rest);
    }
    rec_rank_close(rk);
    return SLOG_OK;
}

/* Decode everything; returns the first error and a hash of all records. */
static int decode_all(const char *dir, uint64_t *hash, slog_error *err)
{
    *hash = 1469598103934665603u;
    rec_trace *t = NULL;
    int rc = rec_trace_open(&t, dir, err);
    for (uint32_t r = 0; rc == SLOG_OK && r < (uint32_t)rec_trace_header(t)->total_ranks; r++) {
        rc = decode_rank(t, r, hash, err);
    }
    rec_trace_close(t);
    return rc;
}

/* A folder's files in memory. */
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
    NONNULL(d);
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') {
            continue;
        }
        LT_I(f->n, 32);
        LT_U(strlen(e->d_name), sizeof f->names[0]);
        memcpy(f->names[f->n], e->d_name, strlen(e->d_name) + 1);
        char *const p = xstr("%s/%s", dir, e->d_name);
        f->data[f->n] = (unsigned char *)read_file(p, &f->len[f->n]);
        f->n++;
        free(p);
    }
    EQ_I(closedir(d), 0);
}

static void folder_write(const folder *f, const char *dir)
{
    for (int i = 0; i < f->n; i++) {
        char *const p = xstr("%s/%s", dir, f->names[i]);
        write_file(p, f->data[i], f->len[i]);
        free(p);
    }
}

/* Remove the copy in dir and free the folder. */
static void folder_drop(folder *f, const char *dir)
{
    for (int i = 0; i < f->n; i++) {
        char *const p = xstr("%s/%s", dir, f->names[i]);
        EQ_I(unlink(p), 0);
        free(p);
        free(f->data[i]);
    }
    EQ_I(rmdir(dir), 0);
}

/* An error must name a file of the folder and be a well-formed record. */
static void expect_clean_error(int rc, const slog_error *err, const char *tmp)
{
    LT_I(rc, 0);
    EQ_I(err->code, rc);
    CHECKF(strncmp(err->source, tmp, strlen(tmp)) == 0, "source %s", err->source);
    NONNULL(memchr(err->message, '\0', sizeof err->message));
    NONNULL(memchr(err->source, '\0', sizeof err->source));
}

/* Cut file i of the copy in tmp to `cut` bytes and decode: it must fail
 * cleanly (at an offset inside what is left, if the error names that file)
 * or, for recorder.mt's name table only, decode to the same records.
 * Returns 1 if it failed. */
static int try_truncation(const folder *f, int i, size_t cut, const char *tmp, uint64_t ref)
{
    char *const p = xstr("%s/%s", tmp, f->names[i]);
    write_file(p, f->data[i], cut);
    uint64_t h = 0;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    const int rc = decode_all(tmp, &h, &err);
    if (rc == SLOG_OK) {
        CHECKF(strcmp(f->names[i], "recorder.mt") == 0 && h == ref,
               "%s cut to %zu bytes decodes to different records", f->names[i], cut);
    } else {
        expect_clean_error(rc, &err, tmp);
        CHECKF(strcmp(err.source, p) != 0 || err.offset <= cut,
               "%s cut to %zu: error at byte %" PRIu64 ": %s", f->names[i], cut, err.offset,
               err.message);
    }
    free(p);
    return rc != SLOG_OK;
}

START_TEST(test_recorder_truncations_fail_cleanly)
{
    char *const src = corpus_path(traces[_i]);
    folder f;
    folder_load(&f, src);
    uint64_t ref = 0;
    EQ_I(decode_all(src, &ref, NULL), SLOG_OK);
    char *const tmp = make_tmpdir();
    folder_write(&f, tmp);
    uint64_t tried = 0, failed = 0;
    for (int i = 0; i < f.n; i++) {
        const size_t step = f.len[i] > 256 ? f.len[i] / 128 : 1;
        for (size_t cut = 0; cut < f.len[i]; cut += step) {
            failed += (uint64_t)try_truncation(&f, i, cut, tmp, ref);
            tried++;
        }
        char *const p = xstr("%s/%s", tmp, f.names[i]);
        write_file(p, f.data[i], f.len[i]);
        free(p);
    }
    GT_U(failed, tried / 2);
    folder_drop(&f, tmp);
    free(tmp);
    free(src);
}
END_TEST

/* Invert byte `at` of file i in the copy and decode: no crash (ASan or
 * valgrind show bad reads), and errors are well formed.  1 if it failed. */
static int try_flip(folder *f, int i, size_t at, const char *tmp)
{
    char *const p = xstr("%s/%s", tmp, f->names[i]);
    f->data[i][at] ^= 0xff;
    write_file(p, f->data[i], f->len[i]);
    f->data[i][at] ^= 0xff;
    uint64_t h = 0;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    const int rc = decode_all(tmp, &h, &err);
    if (rc != SLOG_OK) {
        expect_clean_error(rc, &err, tmp);
    }
    write_file(p, f->data[i], f->len[i]);
    free(p);
    return rc != SLOG_OK;
}

START_TEST(test_recorder_byte_flips_never_crash)
{
    char *const src = corpus_path(traces[_i]);
    folder f;
    folder_load(&f, src);
    char *const tmp = make_tmpdir();
    folder_write(&f, tmp);
    uint64_t failed = 0;
    for (int i = 0; i < f.n; i++) {
        const size_t step = f.len[i] > 256 ? f.len[i] / 96 : 1;
        for (size_t at = 0; at < f.len[i]; at += step) {
            failed += (uint64_t)try_flip(&f, i, at, tmp);
        }
    }
    GT_U(failed, 0);
    folder_drop(&f, tmp);
    free(tmp);
    free(src);
}
END_TEST

/* Fault loop: the Nth allocation of the decoder fails, for N = 1, 2, ...
 * until a run succeeds.  Every failing run must report SLOG_ENOMEM with a
 * message (and, under ASan, leak nothing); then the records are intact. */
long rec_fault_countdown;

static int decode_with_fault(const char *dir, long n, uint64_t *hash)
{
    slog_error err;
    memset(&err, 0xff, sizeof err);
    rec_fault_countdown = n;
    const int rc = decode_all(dir, hash, &err);
    const bool fired = rec_fault_countdown == 0;
    rec_fault_countdown = 0;
    if (rc != SLOG_OK) {
        CHECKF(rc == SLOG_ENOMEM && fired, "allocation %ld: %d %s: %s", n, rc, err.source,
               err.message);
        EQ_I(err.code, rc);
        NE_I(err.message[0], '\0');
    }
    return rc;
}

START_TEST(test_recorder_allocation_failures_report_enomem)
{
    char *const dir = corpus_path(traces[_i]);
    uint64_t ref = 0, h = 0;
    EQ_I(decode_all(dir, &ref, NULL), SLOG_OK);
    long n = 1;
    while (decode_with_fault(dir, n, &h) != SLOG_OK) {
        n++;
        LT_I(n, 100000);
    }
    GT_U(n, 10); /* the loop really went through the allocations */
    EQ_U(h, ref);
    free(dir);
}
END_TEST

/* tests/data/recorder/n_<case>/ hold a damaged trace and `expect`:
 *   code=SLOG_ECORRUPT  file=<name in the folder>  offset=<byte|none>  text=<substring> */
static const char *const broken[] = {
    "n_version_3",     "n_ts_truncated",  "n_cst_zlib_corrupt",  "n_cfg_truncated_v24",
    "n_mt_truncated",  "n_grammar_cycle", "n_ts_extra_pair_v24", "n_missing_ts_v24",
    "n_ugmt_bad_ugid", "n_cst_func_id",
};
#define NBROKEN ((int)(sizeof broken / sizeof broken[0]))

typedef struct expectation {
    char code[32], file[64], offset[32], text[200];
} expectation;

static void read_expectation(const char *dir, expectation *e)
{
    memset(e, 0, sizeof *e);
    char *const path = xstr("%s/expect", dir);
    char *const text = read_file(path, NULL);
    char *cur = text;
    const char *line;
    while ((line = next_line(&cur)) != NULL) {
        if (strncmp(line, "code=", 5) == 0) {
            (void)snprintf(e->code, sizeof e->code, "%s", line + 5);
        } else if (strncmp(line, "file=", 5) == 0) {
            (void)snprintf(e->file, sizeof e->file, "%s", line + 5);
        } else if (strncmp(line, "offset=", 7) == 0) {
            (void)snprintf(e->offset, sizeof e->offset, "%s", line + 7);
        } else if (strncmp(line, "text=", 5) == 0) {
            (void)snprintf(e->text, sizeof e->text, "%s", line + 5);
        }
    }
    NE_I(e->code[0], '\0');
    NE_I(e->file[0], '\0');
    NE_I(e->offset[0], '\0');
    free(text);
    free(path);
}

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

static uint64_t offset_of(const char *text)
{
    return strcmp(text, "none") == 0 ? UINT64_MAX : strtoull(text, NULL, 10);
}

START_TEST(test_recorder_broken_inputs_name_file_and_offset)
{
    char *const dir = data_path(broken[_i]);
    expectation e;
    read_expectation(dir, &e);
    slog_error err;
    memset(&err, 0xff, sizeof err);
    uint64_t h = 0;
    const int rc = decode_all(dir, &h, &err);
    CHECKF(rc == code_of(e.code), "%s: got %d (%s: %s), want %s", broken[_i], rc, err.source,
           err.message, e.code);
    EQ_I(err.code, rc);
    char *const wantsrc = xstr("%s/%s", dir, e.file);
    EQ_S(err.source, wantsrc);
    CHECKF(err.offset == offset_of(e.offset), "%s: offset %" PRIu64 ", want %s (%s)", broken[_i],
           err.offset, e.offset, err.message);
    CHECKF(strstr(err.message, e.text) != NULL, "%s: message \"%s\" lacks \"%s\"", broken[_i],
           err.message, e.text);
    free(wantsrc);
    free(dir);
}
END_TEST

/* ------------------------------------------------------------------ */
/* through slog-import and the reader                                  */

#ifdef SLOG_RECORDER_IMPORT_TESTS
#    include <sys/wait.h>

#    include <slog/slog_reader.h>

/* An import into a fresh temporary folder. */
typedef struct imported {
    char *tmp, *out, *errp;
    int status;
    slog_reader *rd;
} imported;

/* Run slog-import -q IN [IN2] -o OUT (stderr to a file); returns the exit status.
 * `align` sets SLOG_RECORDER_ALIGN for the child (NULL: unset). */
static int
run_import(const char *const in[2], const char *out, const char *errpath, const char *align)
{
    const char *const exe = getenv("SLOG_IMPORT");
    CHECKF(exe != NULL && exe[0] != '\0', "SLOG_IMPORT is not set");
    EQ_I(align != NULL ? setenv("SLOG_RECORDER_ALIGN", align, 1) : unsetenv("SLOG_RECORDER_ALIGN"),
         0);
    (void)fflush(NULL);
    const pid_t pid = fork();
    GE_I(pid, 0);
    if (pid == 0) {
        if (freopen(errpath, "w", stderr) == NULL || freopen("/dev/null", "w", stdout) == NULL) {
            _exit(126);
        }
        if (in[1] != NULL) {
            execl(exe, "slog-import", "-q", in[0], in[1], "-o", out, (char *)NULL);
        } else {
            execl(exe, "slog-import", "-q", in[0], "-o", out, (char *)NULL);
        }
        _exit(127);
    }
    int status = 0;
    EQ_I(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* Import `in`; with `open_reader`, the import must succeed and the output
 * is opened. */
static void import_into(imported *im, const char *in, const char *align, bool open_reader)
{
    memset(im, 0, sizeof *im);
    im->tmp = make_tmpdir();
    im->out = xstr("%s/out.slog", im->tmp);
    im->errp = xstr("%s/stderr", im->tmp);
    const char *const inputs[2] = {in, NULL};
    im->status = run_import(inputs, im->out, im->errp, align);
    if (open_reader) {
        char *const errtext = read_file(im->errp, NULL);
        CHECKF(im->status == 0, "slog-import %s: exit %d: %s", in, im->status, errtext);
        free(errtext);
        slog_error err;
        CHECKF(slog_reader_open(&im->rd, im->out, NULL, &err) == SLOG_OK, "%s", err.message);
        CHECK(slog_reader_info(im->rd)->complete);
    }
}

static void imported_drop(imported *im)
{
    slog_reader_destroy(im->rd);
    (void)unlink(im->out);
    (void)unlink(im->errp);
    EQ_I(rmdir(im->tmp), 0);
    free(im->out);
    free(im->errp);
    free(im->tmp);
}

/* A query over every state of the file. */
static slog_query *all_states(slog_reader *rd)
{
    const slog_file_info *const info = slog_reader_info(rd);
    slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    qo.flags = SLOG_QUERY_ARGS;
    qo.kinds = 1u << SLOG_KIND_STATE;
    qo.t0 = info->start;
    qo.t1 = info->end + 1;
    slog_query *q = NULL;
    EQ_I(slog_query_create(&q, rd, &qo, NULL), SLOG_OK);
    return q;
}

/* Rank and thread id of a state's timeline ("rank N" or "thread T" under it). */
static void
rank_and_tid(slog_reader *rd, uint32_t timeline, unsigned *rank, unsigned long long *tid)
{
    slog_timeline_info tl;
    EQ_I(slog_reader_timeline(rd, timeline, &tl), SLOG_OK);
    *tid = 0;
    if (tl.kind == SLOG_TIMELINE_THREAD) {
        EQ_I(sscanf(tl.name, "thread %llu", tid), 1);
        EQ_I(slog_reader_timeline(rd, tl.parent, &tl), SLOG_OK);
    }
    EQ_I(tl.kind, SLOG_TIMELINE_RANK);
    EQ_I(sscanf(tl.name, "rank %u", rank), 1);
    LT_U(*rank, MAXR);
}

/* The args back as Recorder's text: each value followed by one space. */
static char *args_text(const slog_state *st)
{
    char *text = xstr("%s", "");
    for (uint32_t i = 0; i < st->nargs; i++) {
        const slog_arg *const a = &st->args[i];
        char *next = NULL;
        if (a->type == SLOG_ARG_STRING) {
            next = xstr("%s%s ", text, a->v.s);
        } else if (a->type == SLOG_ARG_INT) {
            next = xstr("%s%lld ", text, (long long)a->v.i);
        } else {
            EQ_I(a->type, SLOG_ARG_UINT);
            next = xstr("%s%llu ", text, (unsigned long long)a->v.u);
        }
        free(text);
        text = next;
    }
    return text;
}

/* One state as a canonical line; times must be start_ts + whole ticks. */
static char *state_line(slog_reader *rd, const slog_state *st, int64_t start_ns)
{
    slog_category_info cat;
    EQ_I(slog_reader_category(rd, st->category, &cat), SLOG_OK);
    unsigned rank = 0;
    unsigned long long tid = 0;
    rank_and_tid(rd, st->timeline, &rank, &tid);
    EQ_I((st->start - start_ns) % 100, 0);
    EQ_I((st->end - start_ns) % 100, 0);
    char *const args = args_text(st);
    char *const line =
        xstr("%u %lld %lld %s %u %llu ( %s)", rank, (long long)((st->start - start_ns) / 100),
             (long long)((st->end - start_ns) / 100), cat.name, st->depth, tid, args);
    free(args);
    return line;
}

/* All states as canonical lines, and their per-rank/function/depth counts. */
static void read_states(slog_reader *rd, int64_t start_ns, lines *out, counts *c)
{
    slog_query *const q = all_states(rd);
    const slog_item *it = NULL;
    int rc;
    while ((rc = slog_query_next(q, &it, NULL)) == SLOG_OK) {
        EQ_I(it->kind, SLOG_KIND_STATE);
        char *const line = state_line(rd, &it->u.state, start_ns);
        unsigned rank = 0;
        char func[128];
        EQ_I(sscanf(line, "%u %*d %*d %127s", &rank, func), 2);
        counts_add(c, func, rank, it->u.state.depth);
        lines_add(out, line);
    }
    EQ_I(rc, SLOG_END);
    EQ_U(slog_reader_info(rd)->states, out->n);
    slog_query_destroy(q);
}

/* Every record, imported with raw per-rank clocks, comes back from the
 * reader with its rank, thread, function, depth, arguments and exact times;
 * the per-rank and per-function counts equal the reference. */
/* Import with raw per-rank clocks and read every state back as a line. */
static void import_lines(const char *dir, int64_t start_ns, lines *got, counts *c)
{
    imported im;
    import_into(&im, dir, "none", true);
    read_states(im.rd, start_ns, got, c);
    imported_drop(&im);
}

/* Every record, imported with raw per-rank clocks, comes back from the
 * reader with its rank, thread, function, depth, arguments and exact times;
 * the per-rank and per-function counts equal the reference.  The same
 * again with ranks streamed one after another (SLOG_RECORDER_MERGE_BYTES=0,
 * the path for traces too big to merge). */
START_TEST(test_recorder_import_round_trips_every_record)
{
    char *const dir = corpus_path(traces[_i]);
    char *const txt = xstr("%s.decoded.txt", dir);
    char *const ref = xstr("%s.reference.txt", dir);
    rec_trace *t = NULL;
    EQ_I(rec_trace_open(&t, dir, NULL), SLOG_OK);
    const uint32_t nranks = (uint32_t)rec_trace_header(t)->total_ranks;
    const int64_t start_ns = rec_start_ns(rec_trace_header(t));
    lines want = {0};
    decoded_lines(txt, &want);
    counts *const cw = counts_new();
    counts_from_reference(cw, ref, nranks);
    for (int pass = 0; pass < 2; pass++) {
        EQ_I(pass == 0 ? unsetenv("SLOG_RECORDER_MERGE_BYTES")
                       : setenv("SLOG_RECORDER_MERGE_BYTES", "0", 1),
             0);
        lines got = {0};
        counts *const cg = counts_new();
        import_lines(dir, start_ns, &got, cg);
        expect_counts(cg, cw, nranks, traces[_i]);
        lines_expect_equal(&got, &want, true, traces[_i]);
        lines_free(&got);
        free(cg);
    }
    EQ_I(unsetenv("SLOG_RECORDER_MERGE_BYTES"), 0);
    lines_free(&want);
    free(cw);
    rec_trace_close(t);
    free(ref);
    free(txt);
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

static span span_of(slog_reader *rd, const slog_state *st)
{
    slog_category_info cat;
    EQ_I(slog_reader_category(rd, st->category, &cat), SLOG_OK);
    const bool world = strcmp(cat.name, "MPI_Barrier") == 0 && st->nargs >= 1 &&
                       st->args[0].type == SLOG_ARG_STRING &&
                       strcmp(st->args[0].v.s, "MPI_COMM_WORLD") == 0;
    return (span){st->start, st->end, hash_bytes(1469598103934665603u, cat.name, strlen(cat.name)),
                  world};
}

static void spans_add(rank_spans *rs, span s)
{
    if (rs->n == rs->cap) {
        rs->cap = rs->cap != 0 ? 2 * rs->cap : 256;
        rs->v = realloc(rs->v, rs->cap * sizeof *rs->v);
        NONNULL(rs->v);
    }
    rs->v[rs->n++] = s;
}

/* Import `dir` with SLOG_RECORDER_ALIGN=align (NULL: unset); each rank's
 * states sorted by time.  Returns the number of ranks. */
static uint32_t import_spans(const char *dir, const char *align, rank_spans *per)
{
    imported im;
    import_into(&im, dir, align, true);
    slog_query *const q = all_states(im.rd);
    const slog_item *it = NULL;
    uint32_t nranks = 0;
    while (slog_query_next(q, &it, NULL) == SLOG_OK) {
        unsigned rank = 0;
        unsigned long long tid = 0;
        rank_and_tid(im.rd, it->u.state.timeline, &rank, &tid);
        nranks = rank + 1 > nranks ? rank + 1 : nranks;
        spans_add(&per[rank], span_of(im.rd, &it->u.state));
    }
    for (uint32_t r = 0; r < nranks; r++) {
        GT_U(per[r].n, 0);
        qsort(per[r].v, per[r].n, sizeof *per[r].v, cmp_span);
    }
    slog_query_destroy(q);
    imported_drop(&im);
    return nranks;
}

/* Aligned = raw + one constant per rank (0 for rank 0); returns how many
 * ranks moved. */
static uint32_t
check_constant_shift(const rank_spans *raw, const rank_spans *aligned, uint32_t nranks)
{
    uint32_t moved = 0;
    for (uint32_t r = 0; r < nranks; r++) {
        EQ_U(raw[r].n, aligned[r].n);
        const int64_t d = aligned[r].v[0].start - raw[r].v[0].start;
        for (size_t i = 0; i < raw[r].n; i++) {
            EQ_I(aligned[r].v[i].start - raw[r].v[i].start, d);
            EQ_I(aligned[r].v[i].end - raw[r].v[i].end, d);
            EQ_U(aligned[r].v[i].category, raw[r].v[i].category);
        }
        EQ_I(r == 0 ? d : 0, 0);
        moved += d != 0;
    }
    return moved;
}

static size_t next_world_barrier(const rank_spans *rs, size_t i)
{
    while (i < rs->n && !rs->v[i].world_barrier) {
        i++;
    }
    return i;
}

/* The k-th world barrier of rank r and of rank 0 overlap in time: no exit
 * before the other's entry. */
static void
check_barriers_overlap_rank0(const rank_spans *r0, const rank_spans *rr, const char *label)
{
    size_t i = next_world_barrier(r0, 0), j = next_world_barrier(rr, 0);
    while (i < r0->n && j < rr->n) {
        CHECKF(r0->v[i].start <= rr->v[j].end && rr->v[j].start <= r0->v[i].end,
               "%s: a world barrier is left before the other rank entered it", label);
        i = next_world_barrier(r0, i + 1);
        j = next_world_barrier(rr, j + 1);
    }
}

/* Default import: each rank moves by one constant (rank 0 not at all), and
 * afterwards no world barrier on any rank ends before rank 0 entered it,
 * nor on rank 0 before that rank entered it. */
START_TEST(test_recorder_import_aligns_ranks_at_world_barriers)
{
    char *const dir = corpus_path(traces[_i]);
    rank_spans raw[MAXR], aligned[MAXR];
    memset(raw, 0, sizeof raw);
    memset(aligned, 0, sizeof aligned);
    const uint32_t nranks = import_spans(dir, "none", raw);
    EQ_U(import_spans(dir, NULL, aligned), nranks);
    EQ_U(nranks, 4);
    GT_U(check_constant_shift(raw, aligned, nranks), 0); /* every corpus run has world barriers */
    for (uint32_t r = 1; r < nranks; r++) {
        check_barriers_overlap_rank0(&aligned[0], &aligned[r], traces[_i]);
    }
    for (uint32_t r = 0; r < MAXR; r++) {
        free(raw[r].v);
        free(aligned[r].v);
    }
    free(dir);
}
END_TEST

/* Threads: with stored tids every record sits on a THREAD child of its
 * rank; the corpus run has a helper pthread on rank 0 only.  One category
 * per function, grouped by layer. */
START_TEST(test_recorder_import_threads_become_child_timelines)
{
    char *const dir = corpus_path("posix_mpi_tid_nocomp");
    imported im;
    import_into(&im, dir, NULL, true);
    const slog_file_info *const info = slog_reader_info(im.rd);
    uint32_t threads_of[MAXR] = {0}, ranks = 0;
    for (uint32_t id = 0; id < info->timelines; id++) {
        slog_timeline_info tl;
        EQ_I(slog_reader_timeline(im.rd, id, &tl), SLOG_OK);
        unsigned r = 0;
        unsigned long long tid = 0;
        rank_and_tid(im.rd, id, &r, &tid);
        ranks += tl.kind == SLOG_TIMELINE_RANK;
        threads_of[r] += tl.kind == SLOG_TIMELINE_THREAD;
        EQ_I(tl.kind == SLOG_TIMELINE_RANK ? tl.parent : SLOG_NO_PARENT, SLOG_NO_PARENT);
    }
    EQ_U(ranks, 4);
    EQ_U(threads_of[0], 2);
    EQ_U(threads_of[1], 1);
    EQ_U(threads_of[2], 1);
    EQ_U(threads_of[3], 1);
    EQ_U(info->categories, 18);
    for (uint32_t id = 0; id < info->categories; id++) {
        slog_category_info c;
        EQ_I(slog_reader_category(im.rd, id, &c), SLOG_OK);
        EQ_I(c.kind, SLOG_KIND_STATE);
        EQ_S(c.group, strncmp(c.name, "MPI_", 4) == 0 ? "MPI" : "POSIX");
    }
    imported_drop(&im);
    free(dir);
}
END_TEST

static void check_write_at_args(const slog_state *st, slog_arg_type offset_type)
{
    GE_U(st->nargs, 5);
    EQ_S(st->args[0].key, "fh");
    EQ_S(st->args[1].key, "offset");
    EQ_I(st->args[1].type, offset_type);
    EQ_S(st->args[3].key, "count");
    EQ_I(st->args[3].type, SLOG_ARG_INT);
    EQ_S(st->args[4].key, "datatype");
    EQ_I(st->args[4].type, SLOG_ARG_STRING);
}

static void check_pwrite_args(const slog_state *st, slog_arg_type offset_type)
{
    EQ_U(st->nargs, 4);
    EQ_S(st->args[0].key, "path");
    EQ_I(st->args[0].type, SLOG_ARG_STRING);
    NONNULL(strstr(st->args[0].v.s, "/scratch/run/"));
    EQ_S(st->args[1].key, "buf");
    EQ_S(st->args[1].v.s, "%p");
    EQ_S(st->args[2].key, "count");
    EQ_I(st->args[2].type, SLOG_ARG_INT);
    GT_U(st->args[2].v.i, 0);
    EQ_S(st->args[3].key, "offset");
    EQ_I(st->args[3].type, offset_type);
}

/* Named and typed args; returns 1 for MPI_File_write_at, 2 for pwrite. */
static int check_named_args(slog_reader *rd, const slog_state *st, slog_arg_type offset_type)
{
    slog_category_info cat;
    EQ_I(slog_reader_category(rd, st->category, &cat), SLOG_OK);
    if (strcmp(cat.name, "MPI_File_write_at") == 0) {
        EQ_S(cat.group, "MPI-IO");
        check_write_at_args(st, offset_type);
        return 1;
    }
    if (strcmp(cat.name, "pwrite") == 0) {
        EQ_S(cat.group, "POSIX");
        check_pwrite_args(st, offset_type);
        return 2;
    }
    if (strcmp(cat.name, "H5Dwrite") == 0) {
        EQ_S(cat.group, "HDF5");
        EQ_S(st->args[0].key, "dset");
        EQ_I(st->args[0].type, SLOG_ARG_INT); /* hid_t as a number */
    }
    return 0;
}

static void check_args_of(const char *trace, slog_arg_type offset_type)
{
    char *const dir = corpus_path(trace);
    imported im;
    import_into(&im, dir, NULL, true);
    slog_query *const q = all_states(im.rd);
    const slog_item *it = NULL;
    uint32_t seen[3] = {0, 0, 0};
    while (slog_query_next(q, &it, NULL) == SLOG_OK) {
        seen[check_named_args(im.rd, &it->u.state, offset_type)]++;
    }
    EQ_U(seen[1], 7);  /* reference: MPI_File_write_at 7 */
    EQ_U(seen[2], 10); /* reference: pwrite 10 */
    slog_query_destroy(q);
    imported_drop(&im);
    free(dir);
}

/* Common calls get named arguments; decimal text becomes integers, except
 * offsets when pattern recognition may have turned them into patterns. */
START_TEST(test_recorder_import_args_named_and_typed)
{
    check_args_of("mpiio_hdf5", SLOG_ARG_INT);
    check_args_of("mpiio_hdf5_patterns", SLOG_ARG_STRING);
}
END_TEST

/* A user-function record (func_id 255) becomes a state whose category is
 * its symbol, in group "user", with args object and symbol as text. */
START_TEST(test_recorder_import_user_function_named_by_symbol)
{
    char *const dir = data_path("y_v24_user_function");
    imported im;
    import_into(&im, dir, NULL, true);
    EQ_U(slog_reader_info(im.rd)->states, 226); /* 225 corpus records + 1 */
    slog_query *const q = all_states(im.rd);
    const slog_item *it = NULL;
    uint32_t found = 0;
    while (slog_query_next(q, &it, NULL) == SLOG_OK) {
        const slog_state *const st = &it->u.state;
        slog_category_info cat;
        EQ_I(slog_reader_category(im.rd, st->category, &cat), SLOG_OK);
        if (strcmp(cat.group, "user") != 0) {
            continue;
        }
        EQ_S(cat.name, "my_func");
        EQ_U(st->nargs, 2);
        EQ_S(st->args[0].key, "object");
        EQ_S(st->args[0].v.s, "/usr/lib/libfoo.so");
        EQ_S(st->args[1].key, "symbol");
        EQ_S(st->args[1].v.s, "my_func");
        EQ_I(st->end - st->start, 50 * 100);
        found++;
    }
    EQ_U(found, 1);
    slog_query_destroy(q);
    imported_drop(&im);
    free(dir);
}
END_TEST

/* Damaged folders: exit status 1, a message naming the file inside the
 * folder and the byte offset, and no output that passes for complete (a
 * damaged rank leaves the others in it: see the cut tests below). */
START_TEST(test_recorder_import_broken_input_fails_with_location)
{
    char *const dir = data_path(broken[_i]);
    expectation e;
    read_expectation(dir, &e);
    imported im;
    import_into(&im, dir, NULL, false);
    EQ_I(im.status, 1);
    char *const errtext = read_file(im.errp, NULL);
    char *const want = strcmp(e.offset, "none") == 0
                           ? xstr("slog-import: %s/%s: ", dir, e.file)
                           : xstr("slog-import: %s/%s: byte %s: ", dir, e.file, e.offset);
    CHECKF(strstr(errtext, want) != NULL, "stderr \"%s\" lacks \"%s\"", errtext, want);
    if (slog_reader_open(&im.rd, im.out, NULL, NULL) == SLOG_OK) {
        CHECK(!slog_reader_info(im.rd)->complete);
    }
    imported_drop(&im);
    free(want);
    free(errtext);
    free(dir);
}
END_TEST

/* A timestamp file cut short: the other ranks whole, the cut rank's
 * records up to the cut.  2.4 keeps raw <rank>.ts files, posix_mpi_tid_nocomp
 * raw chunks in recorder.ts, posix_mpi zlib chunks in recorder.ts.  A cut
 * ug.cfg (the 2.5 unique grammars, one zlib blob each): the ranks whose
 * grammar is whole. */
typedef struct cut_case {
    const char *trace, *file;
    int percent;
} cut_case;

static const cut_case cuts[] = {
    {"posix_mpi-v2.4.0", "2.ts", 0},
    {"posix_mpi-v2.4.0", "2.ts", 30},
    {"posix_mpi-v2.4.0", "2.ts", 95},
    {"mpiio_hdf5-v2.4.0", "0.ts", 60},
    {"posix_mpi_tid_nocomp", "recorder.ts", 40},
    {"posix_mpi_tid_nocomp", "recorder.ts", 75},
    {"posix_mpi_tid_nocomp", "recorder.ts", 95},
    {"posix_mpi", "recorder.ts", 60},
    {"posix_mpi", "recorder.ts", 90},
    {"mpiio_hdf5", "recorder.ts", 80},
    {"mpiio_hdf5", "ug.cfg", 40},
    {"mpiio_hdf5", "ug.cfg", 95},
    {"posix_mpi", "ug.cfg", 60},
};
#    define NCUTS ((int)(sizeof cuts / sizeof cuts[0]))

/* Records per rank of the intact folder (into full[]); returns the ranks. */
static uint32_t full_counts(const char *dir, uint64_t *full, bool *compressed)
{
    rec_trace *t = NULL;
    EQ_I(rec_trace_open(&t, dir, NULL), SLOG_OK);
    const uint32_t n = (uint32_t)rec_trace_header(t)->total_ranks;
    *compressed = rec_trace_header(t)->ts_compression;
    LE_U(n, MAXR);
    for (uint32_t r = 0; r < n; r++) {
        rec_rank *rk = NULL;
        EQ_I(rec_rank_open(&rk, t, r, NULL), SLOG_OK);
        rec_record rec;
        full[r] = 0;
        while (rec_rank_next(rk, &rec) == SLOG_OK) {
            full[r]++;
        }
        rec_rank_close(rk);
    }
    rec_trace_close(t);
    return n;
}

/* Bytes zlib inflates from the first `have` bytes of a blob (16-byte
 * header: compressed size, raw size; then the stream). */
static uint64_t inflated_from(const unsigned char *blob, uint64_t have)
{
    if (have < 16) {
        return 0;
    }
    static unsigned char out[1 << 20];
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    EQ_I(inflateInit(&zs), Z_OK);
    zs.next_in = blob + 16;
    zs.avail_in = (uInt)(have - 16);
    zs.next_out = out;
    zs.avail_out = sizeof out;
    (void)inflate(&zs, Z_NO_FLUSH);
    const uint64_t n = zs.total_out;
    (void)inflateEnd(&zs);
    return n;
}

static uint64_t get_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    return v;
}

/* Records of a recorder.ts chunk [off, off + size) that a file cut at
 * `cut` still holds both timestamps of (at most `full`). */
static uint64_t chunk_records(const unsigned char *ts,
                              uint64_t off,
                              uint64_t size,
                              size_t cut,
                              bool compressed,
                              uint64_t full)
{
    const uint64_t have = cut > off ? cut - off : 0;
    if (have >= size) {
        return full;
    }
    const uint64_t bytes = compressed ? inflated_from(ts + off, have) : have;
    return bytes / 8 < full ? bytes / 8 : full;
}

/* Records of the ranks whose unique grammar's blob (16-byte header with its
 * compressed size, then the stream) lies within ug.cfg cut at `cut`; ug.mt
 * in `dir` names each rank's grammar (i32 each). */
static uint64_t grammar_records(
    const unsigned char *ug, size_t cut, const uint64_t *full, uint32_t n, const char *dir)
{
    char *const mt = xstr("%s/ug.mt", dir);
    size_t len = 0;
    unsigned char *const ids = (unsigned char *)read_file(mt, &len);
    EQ_U(len, 4 * ((size_t)n + 1));
    uint64_t sum = 0;
    for (uint32_t r = 0; r < n; r++) {
        const uint32_t id = (uint32_t)ids[4 * (size_t)r] | (uint32_t)ids[4 * (size_t)r + 1] << 8;
        uint64_t end = 0; /* of grammar g's blob; past the cut once a header is */
        for (uint32_t g = 0; g <= id; g++) {
            end = end <= cut && cut - end >= 16 ? end + 16 + get_le64(ug + end) : UINT64_MAX;
        }
        sum += end <= cut ? full[r] : 0;
    }
    free(ids);
    free(mt);
    return sum;
}

/* States a cut import must hold: each rank's records whose timestamp pair
 * lies within the cut file (8 bytes a pair), read from the format's own
 * layout (FORMAT-NOTES.md), not from the decoder. */
static uint64_t expected_states(const cut_case *c,
                                const unsigned char *ts,
                                size_t cut,
                                const uint64_t *full,
                                uint32_t n,
                                bool compressed)
{
    if (strcmp(c->file, "ug.cfg") == 0) {
        char *const dir = corpus_path(c->trace);
        const uint64_t sum = grammar_records(ts, cut, full, n, dir);
        free(dir);
        return sum;
    }
    uint64_t sum = 0;
    const bool per_rank = strcmp(c->file, "recorder.ts") != 0;
    const uint32_t cut_rank = per_rank ? (uint32_t)atoi(c->file) : UINT32_MAX;
    uint64_t off = 8 * (uint64_t)n;
    for (uint32_t r = 0; r < n; r++) {
        if (per_rank) {
            sum += r == cut_rank && cut / 8 < full[r] ? cut / 8 : full[r];
            continue;
        }
        const uint64_t size = get_le64(ts + 8 * (size_t)r);
        sum += chunk_records(ts, off, size, cut, compressed, full[r]);
        off += size;
    }
    return sum;
}

/* Import the folder in `dir` whose `file` was cut: exit 1, the file named
 * with a byte offset, an incomplete output holding `want` states. */
static void check_cut_import(const char *dir, const char *file, uint64_t want)
{
    imported im;
    import_into(&im, dir, NULL, false);
    char *const errtext = read_file(im.errp, NULL);
    char *const named = xstr("slog-import: %s/%s: byte ", dir, file);
    CHECKF(im.status == 1 && strstr(errtext, named) != NULL, "exit %d, stderr: %s", im.status,
           errtext);
    slog_error err;
    CHECKF(slog_reader_open(&im.rd, im.out, NULL, &err) == SLOG_OK, "%s", err.message);
    CHECK(!slog_reader_info(im.rd)->complete);
    CHECKF(slog_reader_info(im.rd)->states == want,
           "%s cut: %" PRIu64 " states, %" PRIu64 " records before the cut", file,
           slog_reader_info(im.rd)->states, want);
    imported_drop(&im);
    free(named);
    free(errtext);
}

START_TEST(test_recorder_import_cut_timestamps_keep_the_rest)
{
    const cut_case *const c = &cuts[_i];
    char *const src = corpus_path(c->trace);
    uint64_t full[MAXR];
    bool compressed = false;
    const uint32_t n = full_counts(src, full, &compressed);
    folder f;
    folder_load(&f, src);
    char *const tmp = make_tmpdir();
    folder_write(&f, tmp);
    char *const path = xstr("%s/%s", tmp, c->file);
    size_t len = 0;
    unsigned char *const ts = (unsigned char *)read_file(path, &len);
    const size_t cut = len * (size_t)c->percent / 100;
    write_file(path, ts, cut);
    const uint64_t want = expected_states(c, ts, cut, full, n, compressed);
    uint64_t total = 0;
    for (uint32_t r = 0; r < n; r++) {
        total += full[r];
    }
    CHECKF(want > 0 && want < total, "%s cut at %zu: %" PRIu64 " of %" PRIu64, c->file, cut, want,
           total);
    check_cut_import(tmp, c->file, want);
    free(ts);
    free(path);
    folder_drop(&f, tmp);
    free(tmp);
    free(src);
}
END_TEST

/* Two folders in one run: each gets a GENERIC timeline with its ranks, and
 * a function keeps one category across both (posix_mpi has 18 functions,
 * mpiio_hdf5-v2.4.0 41, 10 of them shared). */
START_TEST(test_recorder_import_two_folders_share_categories)
{
    char *const a = corpus_path("posix_mpi"), *const b = corpus_path("mpiio_hdf5-v2.4.0");
    char *const tmp = make_tmpdir();
    char *const out = xstr("%s/out.slog", tmp), *const errp = xstr("%s/stderr", tmp);
    const char *const inputs[2] = {a, b};
    EQ_I(run_import(inputs, out, errp, NULL), 0);
    slog_reader *rd = NULL;
    EQ_I(slog_reader_open(&rd, out, NULL, NULL), SLOG_OK);
    const slog_file_info *const info = slog_reader_info(rd);
    EQ_U(info->states, 229 + 354);
    EQ_U(info->timelines, 2 + 8);
    uint32_t generic = 0;
    for (uint32_t id = 0; id < info->timelines; id++) {
        slog_timeline_info tl;
        EQ_I(slog_reader_timeline(rd, id, &tl), SLOG_OK);
        generic += tl.kind == SLOG_TIMELINE_GENERIC;
        EQ_I(tl.kind == SLOG_TIMELINE_GENERIC ? tl.parent : 0,
             tl.kind == SLOG_TIMELINE_GENERIC ? SLOG_NO_PARENT : 0);
    }
    EQ_U(generic, 2);
    counts *const names = counts_new();
    for (uint32_t id = 0; id < info->categories; id++) {
        slog_category_info c;
        EQ_I(slog_reader_category(rd, id, &c), SLOG_OK);
        EQ_U(counts_slot(names, c.name), id); /* no name twice */
    }
    EQ_U(info->categories, 18 + 41 - 10);
    free(names);
    slog_reader_destroy(rd);
    EQ_I(unlink(out), 0);
    EQ_I(unlink(errp), 0);
    EQ_I(rmdir(tmp), 0);
    free(out);
    free(errp);
    free(tmp);
    free(b);
    free(a);
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
    tcase_add_loop_test(tc, test_recorder_allocation_failures_report_enomem, 0, NTRACES);
    suite_add_tcase(s, tc);
#ifdef SLOG_RECORDER_IMPORT_TESTS
    tc = tcase_create("import");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_recorder_import_round_trips_every_record, 0, NTRACES);
    tcase_add_loop_test(tc, test_recorder_import_aligns_ranks_at_world_barriers, 0, NTRACES);
    tcase_add_test(tc, test_recorder_import_threads_become_child_timelines);
    tcase_add_test(tc, test_recorder_import_args_named_and_typed);
    tcase_add_test(tc, test_recorder_import_user_function_named_by_symbol);
    tcase_add_test(tc, test_recorder_import_two_folders_share_categories);
    tcase_add_loop_test(tc, test_recorder_import_broken_input_fails_with_location, 0, NBROKEN);
    tcase_add_loop_test(tc, test_recorder_import_cut_timestamps_keep_the_rest, 0, NCUTS);
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
