/* SPDX-License-Identifier: MIT
 *
 * check_import_api.c - the public import API (include/slog/slog_import.h)
 * as an outside program sees it: format names and detection from bytes;
 * memory and callback inputs give the same file as a path; options follow
 * the struct_size rule; diagnostics and errors carry their source and
 * place; a set cancel flag ends the import with SLOG_EINTR and an
 * incomplete file; and two imports of different files in parallel threads
 * give exactly what they give one after the other (also run under TSan by
 * .ci/run).  Files are compared drawable by drawable through the reader
 * (a digest of every field of a full-detail query).
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <slog/slog.h>
#include <slog/slog_import.h>

#include "ck_files.h"

#define DATA(f) TEST_DATA "/" f
#define CHROME_FILE DATA("chrome/y_nesting.json")
#define FLOWS_FILE DATA("chrome/y_flows.json")
#define PFW_FILE DATA("chrome/y_lines.pfw")
#define CLOG2_FILE DATA("mpe/y_tiny.clog2")

static char g_dir[64];

static void setup(void)
{
    (void)snprintf(g_dir, sizeof g_dir, "/tmp/check_import_api_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g_dir));
}

static void teardown(void)
{
    char cmd[128];
    (void)snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    ck_assert_int_eq(system(cmd), 0);
}

static char *out_path(const char *name)
{
    static _Thread_local char path[128];
    (void)snprintf(path, sizeof path, "%s/%s", g_dir, name);
    return path;
}


/* ---- file digest: counts and a hash of every drawable's fields -------- */

typedef struct digest {
    uint64_t n[4];
    uint64_t hash;
    bool complete;
} digest;

static void mix(uint64_t *h, uint64_t v)
{
    *h = (*h ^ v) * 1099511628211u;
}

static void mix_item(uint64_t *h, const slog_item *it)
{
    mix(h, (uint64_t)it->kind);
    if (it->kind == SLOG_KIND_STATE) {
        const slog_state *s = &it->u.state;
        mix(h, s->timeline), mix(h, s->category), mix(h, (uint64_t)s->start);
        mix(h, (uint64_t)s->end), mix(h, s->depth), mix(h, s->nargs);
    } else if (it->kind == SLOG_KIND_EVENT) {
        const slog_event *e = &it->u.event;
        mix(h, e->timeline), mix(h, e->category), mix(h, (uint64_t)e->time), mix(h, e->nargs);
    } else if (it->kind == SLOG_KIND_ARROW) {
        const slog_arrow *a = &it->u.arrow;
        mix(h, a->from), mix(h, a->to), mix(h, a->category), mix(h, (uint64_t)a->start);
        mix(h, (uint64_t)a->end);
    } else if (it->kind == SLOG_KIND_COUNTER) {
        const slog_counter *c = &it->u.counter;
        mix(h, c->timeline), mix(h, c->category), mix(h, (uint64_t)c->time);
        mix(h, (uint64_t)(int64_t)(c->value * 1e6));
    }
}

static digest file_digest(const char *path)
{
    digest d = {{0, 0, 0, 0}, 1469598103934665603u, false};
    slog_reader *r = NULL;
    slog_error err;
    ck_assert_msg(slog_reader_open(&r, path, NULL, &err) == SLOG_OK, "%s", err.message);
    const slog_file_info *info = slog_reader_info(r);
    d.complete = info->complete;
    slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    qo.t0 = INT64_MIN;
    qo.t1 = INT64_MAX;
    slog_query *q = NULL;
    int rc = slog_query_create(&q, r, &qo, &err);
    const slog_item *it = NULL;
    while (rc == SLOG_OK && (rc = slog_query_next(q, &it, &err)) == SLOG_OK) {
        d.n[it->kind <= SLOG_KIND_COUNTER ? it->kind : 0]++;
        mix_item(&d.hash, it);
    }
    ck_assert_int_eq(rc, SLOG_END);
    slog_query_destroy(q);
    slog_reader_destroy(r);
    return d;
}

static void assert_same(digest a, digest b)
{
    for (int k = 0; k < 4; k++) {
        ck_assert_uint_eq(a.n[k], b.n[k]);
    }
    ck_assert_uint_eq(a.hash, b.hash);
    ck_assert_int_eq(a.complete, b.complete);
}

/* Import one input into out (default options); returns the status. */
static int import_one(const slog_import_input *in, const char *out,
                      const slog_import_options *opts, slog_import_summary **s)
{
    slog_error err;
    memset(&err, 0xff, sizeof err);
    const int rc = slog_import_file(s, out, in, 1, opts, &err);
    if (rc != SLOG_OK) {
        ck_assert_int_eq(err.code, rc);
        ck_assert(err.message[0] != '\0' && strlen(err.message) < sizeof err.message);
    }
    return rc;
}

/* ---- formats and detection -------------------------------------------- */

START_TEST(test_import_api_formats_are_all_accepted)
{
    const char *const *f = slog_import_formats();
    size_t n = 0;
    for (; f[n] != NULL; n++) {
        slog_import_options o = SLOG_IMPORT_OPTIONS_INIT;
        o.format = f[n];
        const slog_import_input in = {.name = "/nonexistent/input"};
        slog_error err;
        const int rc = slog_import_file(NULL, out_path("x.slog"), &in, 1, &o, &err);
        ck_assert_int_ne(rc, SLOG_OK);
        ck_assert_msg(strstr(err.message, "Unknown format") == NULL, "%s: %s", f[n], err.message);
    }
    ck_assert_uint_ge(n, 6);
    slog_import_options o = SLOG_IMPORT_OPTIONS_INIT;
    o.format = "nosuch";
    const slog_import_input in = {.name = CHROME_FILE};
    slog_error err;
    ck_assert_int_eq(slog_import_file(NULL, out_path("y.slog"), &in, 1, &o, &err), SLOG_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "Unknown format 'nosuch'"));
    ck_assert_int_ne(access(out_path("y.slog"), F_OK), 0); /* no output made */
}
END_TEST

START_TEST(test_import_api_detect_from_bytes)
{
    const char *fmt = "x";
    static const char json[] = "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 2}]}";
    ck_assert_int_eq(slog_import_detect(&fmt, "t.json", json, sizeof json - 1), SLOG_OK);
    ck_assert_str_eq(fmt, "chrome");
    unsigned char gz[256];
    uLongf gzn = sizeof gz;
    z_stream z = {0};
    ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
                     Z_OK);
    z.next_in = (unsigned char *)(uintptr_t)json;
    z.avail_in = sizeof json - 1;
    z.next_out = gz;
    z.avail_out = (uInt)gzn;
    ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    gzn = sizeof gz - z.avail_out;
    (void)deflateEnd(&z);
    ck_assert_int_eq(slog_import_detect(&fmt, NULL, gz, gzn), SLOG_OK);
    ck_assert_str_eq(fmt, "chrome");
    size_t n = 0;
    void *clog = ck_read_file(CLOG2_FILE, &n);
    ck_assert_int_eq(slog_import_detect(&fmt, "x", clog, n), SLOG_OK);
    ck_assert_str_eq(fmt, "clog2");
    free(clog);
    ck_assert_int_eq(slog_import_detect(&fmt, "x", "hello, world", 12), SLOG_OK);
    ck_assert_ptr_null(fmt);
    const slog_import_input in = {.name = PFW_FILE};
    ck_assert_int_eq(slog_import_detect_input(&fmt, &in, NULL), SLOG_OK);
    ck_assert_str_eq(fmt, "pfw");
}
END_TEST

/* ---- sources ------------------------------------------------------------ */

typedef struct chunks {
    const unsigned char *data;
    size_t n, at, step;
} chunks;

static int read_chunks(void *buf, size_t cap, size_t *got, void *user)
{
    chunks *c = user;
    size_t k = c->n - c->at < c->step ? c->n - c->at : c->step;
    k = k < cap ? k : cap;
    memcpy(buf, c->data + c->at, k);
    c->at += k;
    *got = k;
    return SLOG_OK;
}

START_TEST(test_import_api_memory_and_callback_equal_path)
{
    const slog_import_input path_in = {.name = CHROME_FILE};
    ck_assert_int_eq(import_one(&path_in, out_path("path.slog"), NULL, NULL), SLOG_OK);
    size_t n = 0;
    void *data = ck_read_file(CHROME_FILE, &n);
    const slog_import_input mem_in = {.name = "in memory", .data = data, .size = n};
    slog_import_summary *s = NULL;
    ck_assert_int_eq(import_one(&mem_in, out_path("mem.slog"), NULL, &s), SLOG_OK);
    ck_assert(s->complete && s->ninputs == 1 && s->input_bytes == n);
    ck_assert_str_eq(s->formats[0], "chrome");
    slog_import_summary_destroy(s);
    chunks c = {data, n, 0, 7};
    const slog_import_input cb_in = {.name = "callback", .read = read_chunks, .read_user = &c};
    ck_assert_int_eq(import_one(&cb_in, out_path("cb.slog"), NULL, &s), SLOG_OK);
    ck_assert_uint_eq(s->input_bytes, n); /* bytes read, though no file size is known */
    slog_import_summary_destroy(s);
    const digest want = file_digest(out_path("path.slog"));
    ck_assert(want.n[SLOG_KIND_STATE] > 0 && want.complete);
    assert_same(file_digest(out_path("mem.slog")), want);
    assert_same(file_digest(out_path("cb.slog")), want);
    free(data);
}
END_TEST

START_TEST(test_import_api_path_formats_refuse_memory)
{
    slog_import_options o = SLOG_IMPORT_OPTIONS_INIT;
    o.format = "recorder";
    const slog_import_input in = {.name = "mem", .data = "x", .size = 1};
    slog_error err;
    ck_assert_int_eq(slog_import_file(NULL, out_path("r.slog"), &in, 1, &o, &err), SLOG_EINVAL);
    ck_assert_str_eq(err.source, "mem");
    ck_assert_ptr_nonnull(strstr(err.message, "needs a path"));
}
END_TEST

/* Bytes of no known format: the error tells a library caller how to name
 * the format (it said only "use --format", an option of slog-import). */
START_TEST(test_import_api_unknown_format_names_the_option)
{
    static const char junk[] = "\x01\x02 not a trace of any format";
    const slog_import_input in = {.name = "junk", .data = junk, .size = sizeof junk - 1};
    slog_error err;
    ck_assert_int_eq(slog_import_file(NULL, out_path("j.slog"), &in, 1, NULL, &err), SLOG_EPARSE);
    ck_assert_str_eq(err.source, "junk");
    ck_assert_msg(strstr(err.message, "slog_import_options.format") != NULL, "%s", err.message);
    const char *fmt = "x";
    ck_assert_int_eq(slog_import_detect_input(&fmt, &in, &err), SLOG_EPARSE);
    ck_assert_msg(strstr(err.message, "slog_import_options.format") != NULL, "%s", err.message);
}
END_TEST

/* Inputs read that cannot be read as the format needs say what the input
 * is: a zip in memory or behind a callback, a two-pass format behind a
 * callback.  Both said "a pipe or standard input" (save it to a file). */
START_TEST(test_import_api_unreadable_source_is_named_as_given)
{
    static const char zip[] = "PK\x03\x04 not really a zip archive";
    slog_import_options o = SLOG_IMPORT_OPTIONS_INIT;
    o.format = "chrome";
    const slog_import_input mem = {.name = "zip in memory", .data = zip, .size = sizeof zip - 1};
    slog_error err;
    ck_assert_int_lt(slog_import_file(NULL, out_path("z.slog"), &mem, 1, &o, &err), 0);
    ck_assert_str_eq(err.source, "zip in memory");
    ck_assert_msg(strstr(err.message, "zip archive from memory") != NULL, "%s", err.message);
    chunks c = {(const unsigned char *)zip, sizeof zip - 1, 0, 7};
    const slog_import_input cb = {.name = "zip cb", .read = read_chunks, .read_user = &c};
    ck_assert_int_lt(slog_import_file(NULL, out_path("z.slog"), &cb, 1, &o, &err), 0);
    ck_assert_msg(strstr(err.message, "zip archive from a read callback") != NULL, "%s",
                  err.message);
    size_t n = 0;
    void *data = ck_read_file(CLOG2_FILE, &n); /* CLOG2 is read in two passes */
    chunks c2 = {data, n, 0, 4093};
    const slog_import_input cb2 = {.name = "clog2 cb", .read = read_chunks, .read_user = &c2};
    ck_assert_int_lt(slog_import_file(NULL, out_path("c.slog"), &cb2, 1, NULL, &err), 0);
    ck_assert_str_eq(err.source, "clog2 cb");
    ck_assert_msg(strstr(err.message, "Cannot read a read callback twice") != NULL &&
                      strstr(err.message, "as a path or in memory") != NULL,
                  "%s", err.message);
    free(data);
}
END_TEST

/* Two inputs of one name: refused before anything is written.  The second
 * input's source was never read: its name found the first's bytes again
 * (two memory inputs "rank.json" gave the first's drawables twice). */
START_TEST(test_import_api_repeated_name_is_einval)
{
    static const char a[] = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}]";
    static const char b[] = "[{\"ph\":\"X\",\"name\":\"b\",\"pid\":2,\"tid\":2,\"ts\":5,\"dur\":2}]";
    const slog_import_input in[3] = {{.name = "a.json", .data = a, .size = sizeof a - 1},
                                     {.name = "rank.json", .data = a, .size = sizeof a - 1},
                                     {.name = "rank.json", .data = b, .size = sizeof b - 1}};
    slog_error err;
    slog_import_summary *s = NULL;
    ck_assert_int_eq(slog_import_file(&s, out_path("dup.slog"), in, 3, NULL, &err), SLOG_EINVAL);
    ck_assert_str_eq(err.source, "rank.json");
    ck_assert_msg(strstr(err.message, "Inputs 1 and 2 are both named 'rank.json'") != NULL, "%s",
                  err.message);
    ck_assert(s != NULL && !s->output_created);
    slog_import_summary_destroy(s);
    ck_assert_int_ne(access(out_path("dup.slog"), F_OK), 0);
}
END_TEST

/* A directory of one DFTracer run imports like its .pfw files given one by
 * one; a directory with none fails without suggesting --format. */
START_TEST(test_import_api_pfw_directory_is_its_files)
{
    char cmd[512];
    (void)snprintf(cmd, sizeof cmd,
                   "mkdir %s/run %s/none && cp %s %s/run/a.pfw && cp %s %s/run/b.pfw && "
                   "touch %s/run/notes.txt",
                   g_dir, g_dir, PFW_FILE, g_dir, DATA("chrome/y_lines_escapes.pfw"), g_dir,
                   g_dir);
    ck_assert_int_eq(system(cmd), 0);
    char dir[128], a[128], b[128];
    (void)snprintf(dir, sizeof dir, "%s/run", g_dir);
    (void)snprintf(a, sizeof a, "%s/run/a.pfw", g_dir);
    (void)snprintf(b, sizeof b, "%s/run/b.pfw", g_dir);
    const slog_import_input files[2] = {{.name = a}, {.name = b}};
    ck_assert_int_eq(slog_import_file(NULL, out_path("files.slog"), files, 2, NULL, NULL),
                     SLOG_OK);
    const slog_import_input din = {.name = dir};
    slog_import_summary *s = NULL;
    ck_assert_int_eq(import_one(&din, out_path("dir.slog"), NULL, &s), SLOG_OK);
    ck_assert_str_eq(s->formats[0], "pfw");
    slog_import_summary_destroy(s);
    assert_same(file_digest(out_path("dir.slog")), file_digest(out_path("files.slog")));
    (void)snprintf(dir, sizeof dir, "%s/none", g_dir);
    slog_error err;
    const slog_import_input none = {.name = dir};
    ck_assert_int_eq(slog_import_file(NULL, out_path("none.slog"), &none, 1, NULL, &err),
                     SLOG_EPARSE);
    ck_assert_ptr_nonnull(strstr(err.message, "Cannot recognise the directory"));
    ck_assert_ptr_null(strstr(err.message, "--format"));
}
END_TEST

/* ---- options -------------------------------------------------------------- */

START_TEST(test_import_api_options_struct_size_rule)
{
    const slog_import_input in = {.name = FLOWS_FILE};
    slog_import_options o;
    slog_import_options_init(&o);
    ck_assert_uint_eq(o.struct_size, sizeof o);
    o.struct_size = 2;
    ck_assert_int_eq(import_one(&in, out_path("a.slog"), &o, NULL), SLOG_EINVAL);
    slog_import_options_init(&o);
    o.flags = 0x80000000u;
    ck_assert_int_eq(import_one(&in, out_path("a.slog"), &o, NULL), SLOG_EINVAL);
    struct {
        slog_import_options o;
        uint64_t newer;
    } big = {SLOG_IMPORT_OPTIONS_INIT, 1};
    big.o.struct_size = sizeof big;
    ck_assert_int_eq(import_one(&in, out_path("a.slog"), &big.o, NULL), SLOG_EINVAL);
    big.newer = 0;
    ck_assert_int_eq(import_one(&in, out_path("a.slog"), &big.o, NULL), SLOG_OK);
    /* an older caller's struct: members past struct_size take their defaults */
    slog_import_options_init(&o);
    o.struct_size = 16; /* struct_size, flags, format */
    o.format = "chrome";
    o.sort_window = 1; /* beyond 16 bytes: not read */
    slog_import_summary *s = NULL;
    ck_assert_int_eq(import_one(&in, out_path("b.slog"), &o, &s), SLOG_OK);
    ck_assert_str_eq(s->formats[0], "chrome");
    slog_import_summary_destroy(s);
    assert_same(file_digest(out_path("a.slog")), file_digest(out_path("b.slog")));
}
END_TEST

/* ---- diagnostics and cancellation ----------------------------------------- */

typedef struct seen {
    int warnings, errors;
    uint64_t line, column;
    char source[256], message[256];
} seen;

static void on_diag(const slog_import_diagnostic *d, void *user)
{
    seen *s = user;
    if (d->severity == SLOG_IMPORT_WARNING) {
        s->warnings++;
        return;
    }
    s->errors++;
    s->line = d->line;
    s->column = d->column;
    (void)snprintf(s->source, sizeof s->source, "%s", d->source);
    (void)snprintf(s->message, sizeof s->message, "%s", d->message);
}

START_TEST(test_import_api_error_says_where)
{
    seen sn = {0};
    slog_import_options o = SLOG_IMPORT_OPTIONS_INIT;
    o.diagnostic = on_diag;
    o.user = &sn;
    const slog_import_input bad = {.name = DATA("chrome/n_trailing_garbage.json")};
    slog_error err;
    slog_import_summary *s = NULL;
    const int rc = slog_import_file(&s, out_path("bad.slog"), &bad, 1, &o, &err);
    ck_assert_int_eq(rc, SLOG_EPARSE);
    ck_assert_int_eq(sn.errors, 1);
    ck_assert_str_eq(sn.source, bad.name);
    ck_assert_str_eq(err.source, bad.name);
    ck_assert_str_eq(err.message, sn.message);
    ck_assert_uint_gt(sn.line, 0);
    ck_assert(s != NULL && !s->complete && s->output_created);
    slog_import_summary_destroy(s);
    ck_assert(!file_digest(out_path("bad.slog")).complete);
}
END_TEST

static void cancel_on_progress(const char *input, uint64_t done, uint64_t total, void *user)
{
    (void)input, (void)done, (void)total;
    atomic_store((slog_atomic_int *)user, 1);
}

START_TEST(test_import_api_cancel_flag_stops_with_eintr)
{
    slog_atomic_int cancel;
    atomic_init(&cancel, 1);
    slog_import_options o = SLOG_IMPORT_OPTIONS_INIT;
    o.cancel = &cancel;
    const slog_import_input in[2] = {{.name = CHROME_FILE}, {.name = CLOG2_FILE}};
    slog_error err;
    slog_import_summary *s = NULL;
    /* set before: nothing is made */
    ck_assert_int_eq(slog_import_file(&s, out_path("c.slog"), in, 2, &o, &err), SLOG_EINTR);
    ck_assert(s != NULL && !s->complete && !s->output_created);
    slog_import_summary_destroy(s);
    /* set while importing (by the first progress report): the file stays incomplete */
    atomic_store(&cancel, 0);
    o.progress = cancel_on_progress;
    o.user = &cancel;
    ck_assert_int_eq(slog_import_file(&s, out_path("c.slog"), in, 2, &o, &err), SLOG_EINTR);
    ck_assert_str_eq(err.message, "Import cancelled");
    ck_assert(s != NULL && !s->complete && s->output_created);
    slog_import_summary_destroy(s);
    ck_assert(!file_digest(out_path("c.slog")).complete);
}
END_TEST

/* ---- two imports at once --------------------------------------------------- */

typedef struct job {
    const char *input;
    char out[128];
    int rc;
    uint64_t imported;
} job;

static void *run_job(void *p)
{
    job *j = p;
    const slog_import_input in = {.name = j->input};
    slog_import_summary *s = NULL;
    j->rc = slog_import_file(&s, j->out, &in, 1, NULL, NULL);
    j->imported = s != NULL ? s->imported : 0;
    slog_import_summary_destroy(s);
    return NULL;
}

START_TEST(test_import_api_parallel_equals_sequential)
{
    static const char *const inputs[] = {CHROME_FILE, CLOG2_FILE, PFW_FILE, FLOWS_FILE};
    enum { N = sizeof inputs / sizeof inputs[0] };
    job seq[N], par[N];
    for (int i = 0; i < N; i++) {
        seq[i] = (job){inputs[i], "", -1, 0};
        (void)snprintf(seq[i].out, sizeof seq[i].out, "%s/seq%d.slog", g_dir, i);
        run_job(&seq[i]);
        ck_assert_int_eq(seq[i].rc, SLOG_OK);
    }
    for (int round = 0; round < 3; round++) {
        pthread_t th[N];
        for (int i = 0; i < N; i++) {
            par[i] = (job){inputs[i], "", -1, 0};
            (void)snprintf(par[i].out, sizeof par[i].out, "%s/par%d.slog", g_dir, i);
            ck_assert_int_eq(pthread_create(&th[i], NULL, run_job, &par[i]), 0);
        }
        for (int i = 0; i < N; i++) {
            ck_assert_int_eq(pthread_join(th[i], NULL), 0);
            ck_assert_int_eq(par[i].rc, SLOG_OK);
            ck_assert_uint_eq(par[i].imported, seq[i].imported);
            assert_same(file_digest(par[i].out), file_digest(seq[i].out));
        }
    }
}
END_TEST

static Suite *import_api_suite(void)
{
    Suite *s = suite_create("import_api");
    TCase *tc = tcase_create("api");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_import_api_formats_are_all_accepted);
    tcase_add_test(tc, test_import_api_detect_from_bytes);
    tcase_add_test(tc, test_import_api_memory_and_callback_equal_path);
    tcase_add_test(tc, test_import_api_path_formats_refuse_memory);
    tcase_add_test(tc, test_import_api_unknown_format_names_the_option);
    tcase_add_test(tc, test_import_api_unreadable_source_is_named_as_given);
    tcase_add_test(tc, test_import_api_repeated_name_is_einval);
    tcase_add_test(tc, test_import_api_pfw_directory_is_its_files);
    tcase_add_test(tc, test_import_api_options_struct_size_rule);
    tcase_add_test(tc, test_import_api_error_says_where);
    tcase_add_test(tc, test_import_api_cancel_flag_stops_with_eintr);
    tcase_add_test(tc, test_import_api_parallel_equals_sequential);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(import_api_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
