/* SPDX-License-Identifier: MIT
 *
 * check_chrome_import.c - Check suite of the Chrome / DFTracer importer
 * pipeline (parse -> reorder -> map) run without libslog through
 * tests/chrome_harness.c, on the crafted files of tests/data/chrome
 * (y_ must import, n_ must fail with file:line:col, i_ may do either) and on
 * generated traces: exact times, typed args, nesting depths, async lanes,
 * flows, samples named by their frames, repairs with their warnings, and
 * shuffled input giving the same drawables as sorted input.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "chrome_harness.h"

#ifndef CHROME_DATA
#define CHROME_DATA "tests/data/chrome"
#endif

static int import_file(harness *h, const char *name, uint64_t window)
{
    char path[512];
    (void)snprintf(path, sizeof path, "%s/%s", CHROME_DATA, name);
    harness_init(h, window, true);
    const char *p = path;
    return harness_import(h, &p, 1, CHROME_MODE_AUTO);
}

/* "kind timeline category start end depth args" of item i. */
static void render(const harness *h, size_t i, char *buf, size_t len)
{
    static const char *const kn[] = {"state", "event", "arrow", "counter"};
    const h_item *it = &h->items[i];
    /* async lanes are assigned in arrival order: compare them as "a lane" */
    const bool lane = h->tl[it->timeline].kind == SLOG_TIMELINE_ASYNC;
    (void)snprintf(buf, len, "%s %s %s %lld %lld d%u to=%s v=%g {%s}", kn[it->kind],
                   lane ? "(async lane)" : h->tl[it->timeline].name, h->cat[it->category].name, (long long)it->start,
                   (long long)it->end, it->depth,
                   it->kind == SLOG_KIND_ARROW ? h->tl[it->to].name : "-", it->value,
                   it->args ? it->args : "");
}

static const h_item *find_item(const harness *h, slog_kind kind, const char *cat)
{
    for (size_t i = 0; i < h->nitems; i++) {
        if (h->items[i].kind == kind && strcmp(h->cat[h->items[i].category].name, cat) == 0) {
            return &h->items[i];
        }
    }
    return NULL;
}

/* ------------------------------------------------------ every data file */

static char *data_files[128];
static int ndata;

static void list_data(void)
{
    DIR *d = opendir(CHROME_DATA);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL && ndata < 128) {
        if ((e->d_name[0] == 'y' || e->d_name[0] == 'n' || e->d_name[0] == 'i') &&
            e->d_name[1] == '_') {
            data_files[ndata++] = strdup(e->d_name);
        }
    }
    if (d != NULL) {
        closedir(d);
    }
}

START_TEST(test_chrome_import_data_file_prefix_is_honoured)
{
    const char *name = data_files[_i];
    harness h;
    const int rc = import_file(&h, name, 1000000);
    if (name[0] == 'y') {
        ck_assert_msg(rc == 0, "%s: %s", name, h.fail_message);
    } else if (name[0] == 'n') {
        ck_assert_msg(rc == 1, "%s imported", name);
        ck_assert_msg(h.fail_message[0] != '\0', "%s: no message", name);
    }
    harness_free(&h);
}
END_TEST

/* ---------------------------------------------------- expected results */

typedef struct expect {
    const char *file;
    uint64_t states, events, arrows, counters;
    uint64_t warnings;
    const char *counted; /* an import_count row that must be non-zero, or NULL */
    import_outcome outcome;
} expect;

static const expect expects[] = {
    {"y_array_basic.json", 2, 1, 0, 0, 0, "time sub-ns digits rounded", IMPORT_REPAIRED},
    {"y_object_form.json", 2, 0, 0, 0, 0, "systemTraceEvents (text)", IMPORT_SKIPPED},
    {"y_system_object.json", 1, 0, 0, 0, 0, "systemTraceEvents records", IMPORT_SKIPPED},
    {"y_trailing_comma.json", 2, 0, 0, 0, 1, "trailing ',' before ']'", IMPORT_REPAIRED},
    {"y_missing_comma.json", 4, 0, 0, 0, 2, "missing ',' between events", IMPORT_REPAIRED},
    {"y_missing_bracket.json", 2, 0, 0, 0, 1, "missing closing bracket", IMPORT_REPAIRED},
    {"y_missing_bracket_comma.json", 2, 0, 0, 0, 1, "missing closing bracket", IMPORT_REPAIRED},
    {"y_truncated_event.json", 1, 0, 0, 0, 2, "event cut by end of input", IMPORT_SKIPPED},
    {"y_empty_events.json", 1, 0, 0, 0, 4, "{} empty event", IMPORT_SKIPPED},
    {"y_invalid_utf8.json", 0, 1, 0, 0, 3, "invalid UTF-8 string", IMPORT_REPAIRED},
    {"y_nul_escape.json", 1, 0, 0, 0, 3, "\\u0000 in a string", IMPORT_REPAIRED},
    {"y_lines.pfw", 2, 0, 0, 0, 0, "M other (not mapped)", IMPORT_SKIPPED},
    {"y_lines_newline.pfw", 2, 0, 0, 0, 1, "raw newline in string", IMPORT_REPAIRED},
    {"y_lines_nobracket.pfw", 2, 0, 0, 0, 0, "X -> state", IMPORT_IMPORTED},
    /* issue 12 item 5: one bad line loses no other; DFTracer's "args":{"step":1,} */
    {"y_lines_bad_line.pfw", 2, 0, 0, 0, 1, "line not an event (skipped)", IMPORT_SKIPPED},
    {"y_lines_trailing_comma.pfw", 3, 0, 0, 0, 3, "trailing ',' inside an event", IMPORT_REPAIRED},
    {"y_ids.json", 4, 0, 0, 0, 0, "e without b", IMPORT_SKIPPED},
    {"y_args_types.json", 0, 1, 0, 0, 0, "i/I/R -> event", IMPORT_IMPORTED},
    {"y_samples.json", 0, 3, 0, 0, 0, "samples[] -> sample event", IMPORT_IMPORTED},
    {"y_flows.json", 2, 0, 3, 0, 0, "f without s", IMPORT_SKIPPED},
    {"y_async.json", 5, 2, 0, 0, 0, "b left open (closed at trace end)", IMPORT_REPAIRED},
    {"y_objects.json", 2, 1, 0, 0, 0, "D without N", IMPORT_SKIPPED},
    {"y_counters.json", 0, 0, 0, 4, 0, "C series value not a number", IMPORT_SKIPPED},
    {"y_phases_misc.json", 3, 5, 0, 0, 2, "(/) context", IMPORT_SKIPPED},
    {"y_nesting.json", 4, 0, 0, 0, 0, "B/E -> state", IMPORT_IMPORTED},
    {"y_gzip_multi.json.gz", 2, 0, 0, 0, 0, NULL, IMPORT_IMPORTED},
    {"y_zip.zip", 2, 0, 0, 0, 0, NULL, IMPORT_IMPORTED},
    {"y_zip_stored.zip", 2, 0, 0, 0, 0, NULL, IMPORT_IMPORTED},
};

START_TEST(test_chrome_import_crafted_file_counts)
{
    const expect *x = &expects[_i];
    harness h;
    ck_assert_msg(import_file(&h, x->file, 1000000) == 0, "%s: %s", x->file, h.fail_message);
    ck_assert_msg(h.count[0] == x->states && h.count[1] == x->events && h.count[2] == x->arrows &&
                      h.count[3] == x->counters,
                  "%s: got %llu/%llu/%llu/%llu", x->file, (unsigned long long)h.count[0],
                  (unsigned long long)h.count[1], (unsigned long long)h.count[2],
                  (unsigned long long)h.count[3]);
    ck_assert_msg(h.warnings == x->warnings, "%s: %llu warnings (last: %s)", x->file,
                  (unsigned long long)h.warnings, h.last_warning);
    if (x->counted != NULL) {
        ck_assert_msg(harness_counted(&h, x->counted, x->outcome) > 0, "%s: no '%s'", x->file,
                      x->counted);
    }
    harness_free(&h);
}
END_TEST

typedef struct error_case {
    const char *file;
    uint64_t line, col;
    const char *says;
} error_case;

static const error_case errors[] = {
    {"n_error_in_event.json", 3, 23, "expected ',' or '}' inside an event"},
    {"n_number_between_events.json", 2, 55, "expected ',' or ']' after an event"},
    {"n_trailing_garbage.json", 1, 56, "expected end of input after the trace"},
    {"n_lines_no_event.pfw", 2, 14, "no line is one (2 skipped)"},
    {"n_not_json.json", 1, 1, "expected '[' or '{'"},
    {"n_empty.json", 1, 1, "the input is empty"},
    {"n_zip_multi.zip", 0, 0, "only single-member archives"},
};

START_TEST(test_chrome_import_error_says_where_and_what)
{
    const error_case *e = &errors[_i];
    harness h;
    ck_assert_int_eq(import_file(&h, e->file, 1000000), 1);
    ck_assert_msg(h.fail_line == e->line && h.fail_col == e->col, "%s: at %llu:%llu", e->file,
                  (unsigned long long)h.fail_line, (unsigned long long)h.fail_col);
    ck_assert_msg(strstr(h.fail_message, e->says) != NULL, "%s: '%s'", e->file, h.fail_message);
    harness_free(&h);
}
END_TEST

/* The corpus file (SLOG_CORPUS, else ../shared/corpus), or NULL. */
static const char *corpus_json(char *path, size_t n)
{
    const char *corpus = getenv("SLOG_CORPUS");
    (void)snprintf(path, n, "%s/tracecompass/object_alloc.json",
                   corpus != NULL ? corpus : "../shared/corpus");
    return access(path, R_OK) == 0 ? path : NULL;
}

START_TEST(test_chrome_import_corpus_invalid_json_is_a_clean_error)
{
    char path[1024];
    const char *p = corpus_json(path, sizeof path);
    ck_assert_msg(p != NULL, "corpus file %s missing (main skips without it)", path);
    harness h;
    harness_init(&h, 1000000, false);
    ck_assert_int_eq(harness_import(&h, &p, 1, CHROME_MODE_AUTO), 1);
    ck_assert_uint_eq(h.fail_line, 3);
    ck_assert_uint_eq(h.fail_col, 18);
    harness_free(&h);
}
END_TEST

/* ------------------------------------------------------------ mapping */

START_TEST(test_chrome_import_keeps_every_ns_digit)
{
    harness h;
    ck_assert_int_eq(import_file(&h, "y_array_basic.json", 1000000), 0);
    const h_item *outer = find_item(&h, SLOG_KIND_STATE, "outer");
    ck_assert_ptr_nonnull(outer);
    ck_assert_int_eq(outer->start, 1712195495519689047);
    ck_assert_int_eq(outer->end, 1712195495519700000);
    const h_item *inner = find_item(&h, SLOG_KIND_STATE, "inner");
    ck_assert_int_eq(inner->end - inner->start, 1500);
    ck_assert_uint_eq(inner->depth, 1);
    const h_item *mark = find_item(&h, SLOG_KIND_EVENT, "mark");
    ck_assert_str_eq(h.tl[mark->timeline].name, "global");
    harness_free(&h);
}
END_TEST

START_TEST(test_chrome_import_args_keep_their_types)
{
    harness h;
    ck_assert_int_eq(import_file(&h, "y_args_types.json", 1000000), 0);
    ck_assert_uint_eq(h.nitems, 1);
    ck_assert_str_eq(h.items[0].args,
                     "i=i:-5;u=u:18446744073709551615;big=j:123456789012345678901234567890;"
                     "d=d:1.25;t=b:true;n=j:null;s=s:x\"y;o=j:{\"k\":[1,2,{\"z\":\"\xc3\xa9\"}]};"
                     "dup=i:2");
    harness_free(&h);
}
END_TEST

START_TEST(test_chrome_import_nesting_parent_after_child)
{
    harness h;
    ck_assert_int_eq(import_file(&h, "y_nesting.json", 1000000), 0);
    ck_assert_uint_eq(find_item(&h, SLOG_KIND_STATE, "grandparent")->depth, 0);
    ck_assert_uint_eq(find_item(&h, SLOG_KIND_STATE, "parent")->depth, 1);
    ck_assert_uint_eq(find_item(&h, SLOG_KIND_STATE, "child")->depth, 2);
    ck_assert_uint_eq(find_item(&h, SLOG_KIND_STATE, "sibling")->depth, 2);
    /* end-time order, child before parent */
    for (size_t i = 1; i < h.nitems; i++) {
        ck_assert_int_le(h.items[i - 1].end, h.items[i].end);
    }
    harness_free(&h);
}
END_TEST

/* Spans of one interval nest (the later one inside, by the stack); the
 * writer subtracts a child's time from its parent only when the child comes
 * first, so at equal start and end the deeper one must be handed over first
 * (the parent came first and kept the child's time as its own). */
START_TEST(test_chrome_import_same_interval_child_first)
{
    static const char text[] =
        "[{\"name\":\"outer\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5},\n"
        "{\"name\":\"inner\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5},\n"
        "{\"name\":\"b1\",\"ph\":\"B\",\"pid\":1,\"tid\":2,\"ts\":3},\n"
        "{\"name\":\"b2\",\"ph\":\"B\",\"pid\":1,\"tid\":2,\"ts\":3},\n"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":4},\n"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":4}]";
    harness h;
    harness_init(&h, 1000000, true);
    ck_assert_int_eq(harness_import_text(&h, text, strlen(text), CHROME_MODE_AUTO), 0);
    ck_assert_uint_eq(h.nitems, 4);
    for (size_t i = 1; i < h.nitems; i++) {
        const h_item *a = &h.items[i - 1], *b = &h.items[i];
        if (a->start == b->start && a->end == b->end && a->timeline == b->timeline) {
            ck_assert_uint_gt(a->depth, b->depth);
        }
    }
    ck_assert_uint_eq(find_item(&h, SLOG_KIND_STATE, "inner")->depth, 1);
    ck_assert_uint_eq(find_item(&h, SLOG_KIND_STATE, "b2")->depth, 1);
    harness_free(&h);
}
END_TEST

START_TEST(test_chrome_import_unclosed_spans_end_at_trace_end_flagged)
{
    harness h;
    ck_assert_int_eq(import_file(&h, "y_phases_misc.json", 1000000), 0);
    const h_item *open = find_item(&h, SLOG_KIND_STATE, "open");
    ck_assert_ptr_nonnull(open);
    ck_assert_int_eq(open->end, 7000);
    ck_assert_ptr_nonnull(strstr(open->args, "slog.unclosed=b:true"));
    const h_item *y = find_item(&h, SLOG_KIND_STATE, "y");
    ck_assert_int_eq(y->end - y->start, 2000);
    ck_assert_ptr_nonnull(strstr(y->args, "slog.dur_from_tdur=b:true"));
    ck_assert_uint_eq(harness_counted(&h, "E without B", IMPORT_SKIPPED), 1);
    ck_assert_uint_eq(harness_counted(&h, "unknown phase", IMPORT_SKIPPED), 1);
    harness_free(&h);
}
END_TEST

START_TEST(test_chrome_import_async_nests_in_lanes)
{
    harness h;
    ck_assert_int_eq(import_file(&h, "y_async.json", 1000000), 0);
    const h_item *load = find_item(&h, SLOG_KIND_STATE, "load");
    const h_item *parse = find_item(&h, SLOG_KIND_STATE, "parse");
    const h_item *other = find_item(&h, SLOG_KIND_STATE, "other");
    ck_assert_uint_eq(load->timeline, parse->timeline);
    ck_assert_uint_eq(parse->depth, 1);
    ck_assert_uint_ne(other->timeline, load->timeline); /* overlapping: another lane */
    ck_assert_int_eq(h.tl[load->timeline].kind, SLOG_TIMELINE_ASYNC);
    ck_assert_int_eq(h.tl[h.tl[load->timeline].parent].kind, SLOG_TIMELINE_PROCESS);
    const h_item *mark = find_item(&h, SLOG_KIND_EVENT, "mark");
    ck_assert_uint_eq(mark->timeline, load->timeline);
    harness_free(&h);
}
END_TEST

START_TEST(test_chrome_import_flows_become_arrows)
{
    harness h;
    ck_assert_int_eq(import_file(&h, "y_flows.json", 1000000), 0);
    const h_item *bound = find_item(&h, SLOG_KIND_ARROW, "out");
    ck_assert_ptr_nonnull(bound);
    ck_assert_int_eq(bound->start, 10000);
    ck_assert_int_eq(bound->end, 20000);
    ck_assert_str_eq(h.tl[bound->timeline].name, "tid 1");
    ck_assert_uint_eq(harness_counted(&h, "s/t/f -> arrow", IMPORT_IMPORTED), 2);
    ck_assert_uint_eq(harness_counted(&h, "s/t/f never finished", IMPORT_SKIPPED), 0);
    ck_assert_uint_eq(harness_counted(&h, "s/t never finished", IMPORT_SKIPPED), 1);
    harness_free(&h);
}
END_TEST

START_TEST(test_chrome_import_samples_named_by_frames)
{
    harness h;
    ck_assert_int_eq(import_file(&h, "y_samples.json", 1000000), 0);
    const h_item *leaf = find_item(&h, SLOG_KIND_EVENT, "leaf");
    ck_assert_ptr_nonnull(leaf);
    ck_assert_ptr_nonnull(strstr(leaf->args, "stack=s:leaf <- work <- main"));
    ck_assert_ptr_nonnull(find_item(&h, SLOG_KIND_EVENT, "work"));
    ck_assert_ptr_nonnull(find_item(&h, SLOG_KIND_EVENT, "P2"));
    ck_assert_str_eq(h.tl[leaf->timeline].name, "main"); /* thread_name applied */
    harness_free(&h);
}
END_TEST

START_TEST(test_chrome_import_metadata_names_timelines)
{
    harness h;
    ck_assert_int_eq(import_file(&h, "y_object_form.json", 1000000), 0);
    const h_item *a = find_item(&h, SLOG_KIND_STATE, "a");
    ck_assert_str_eq(h.tl[a->timeline].name, "Main");
    ck_assert_int_eq(h.tl[a->timeline].kind, SLOG_TIMELINE_THREAD);
    ck_assert_str_eq(h.tl[h.tl[a->timeline].parent].name, "Renderer");
    harness_free(&h);
}
END_TEST

START_TEST(test_chrome_import_invalid_utf8_replaced)
{
    harness h;
    ck_assert_int_eq(import_file(&h, "y_invalid_utf8.json", 1000000), 0);
    ck_assert_str_eq(h.cat[h.items[0].category].name, "bad \xef\xbf\xbd\xef\xbf\xbd name");
    ck_assert_ptr_nonnull(strstr(h.last_warning, "1:74:"));
    harness_free(&h);
}
END_TEST

/* \u0000 cannot live in a NUL-terminated string: replaced, not a cut
 * ("a\u0000b" used to be stored as "a"); inside args captured as JSON text
 * it stays an escape. */
START_TEST(test_chrome_import_nul_escape_replaced_not_cut)
{
    harness h;
    ck_assert_int_eq(import_file(&h, "y_nul_escape.json", 1000000), 0);
    ck_assert_str_eq(h.cat[h.items[0].category].name, "a\xef\xbf\xbd" "b");
    ck_assert_ptr_nonnull(h.items[0].args);
    ck_assert_ptr_nonnull(strstr(h.items[0].args, "k\xef\xbf\xbd" "ey"));
    ck_assert_ptr_nonnull(strstr(h.items[0].args, "v\xef\xbf\xbd" "al"));
    ck_assert_ptr_nonnull(strstr(h.items[0].args, "in\\u0000json"));
    ck_assert_uint_eq(h.warnings, 3);
    harness_free(&h);
}
END_TEST

START_TEST(test_chrome_import_raw_newline_joined_and_kept)
{
    harness h;
    ck_assert_int_eq(import_file(&h, "y_lines_newline.pfw", 1000000), 0);
    const h_item *open = find_item(&h, SLOG_KIND_STATE, "open");
    ck_assert_str_eq(open->args, "fname=s:/tmp/a\nb");
    ck_assert_ptr_nonnull(strstr(h.last_warning, "2:104:"));
    harness_free(&h);
}
END_TEST

/* -------------------------------------------------------- disorder */

/* A random trace: per thread nested X and B/E, counters, async, flows. */
static size_t gen_trace(char ***lines_out, unsigned seed)
{
    size_t n = 0, cap = 4096;
    char **lines = malloc(cap * sizeof *lines);
    srand(seed);
    for (int tid = 1; tid <= 4; tid++) {
        long t = 1000;
        for (int k = 0; k < 200; k++) {
            char buf[256];
            const long d = 10 + rand() % 50;
            if (n + 8 > cap) {
                cap *= 2;
                lines = realloc(lines, cap * sizeof *lines);
            }
            (void)snprintf(buf, sizeof buf,
                           "{\"name\":\"p%d\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%ld.%03d,"
                           "\"dur\":%ld,\"args\":{\"k\":%d}}",
                           k % 7, tid, t, rand() % 1000, d, k);
            lines[n++] = strdup(buf);
            (void)snprintf(buf, sizeof buf,
                           "{\"name\":\"c%d\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%ld,"
                           "\"dur\":%ld}",
                           k % 3, tid, t + 2, d / 2);
            lines[n++] = strdup(buf);
            (void)snprintf(buf, sizeof buf,
                           "{\"name\":\"b\",\"ph\":\"B\",\"pid\":1,\"tid\":%d,\"ts\":%ld}", tid,
                           t + d + 1);
            lines[n++] = strdup(buf);
            (void)snprintf(buf, sizeof buf,
                           "{\"name\":\"b\",\"ph\":\"E\",\"pid\":1,\"tid\":%d,\"ts\":%ld}", tid,
                           t + d + 3);
            lines[n++] = strdup(buf);
            (void)snprintf(buf, sizeof buf,
                           "{\"name\":\"ctr\",\"ph\":\"C\",\"pid\":1,\"ts\":%ld,\"args\":{\"v%d\":%d}}",
                           t, tid, k);
            lines[n++] = strdup(buf);
            (void)snprintf(buf, sizeof buf,
                           "{\"name\":\"fl\",\"cat\":\"f\",\"ph\":\"%c\",\"id\":%d,\"pid\":1,"
                           "\"tid\":%d,\"ts\":%ld}",
                           k % 2 ? 'f' : 's', tid * 1000 + k / 2, tid, t + 1);
            lines[n++] = strdup(buf);
            (void)snprintf(buf, sizeof buf,
                           "{\"name\":\"as\",\"cat\":\"a\",\"ph\":\"%c\",\"id\":%d,\"pid\":1,"
                           "\"tid\":%d,\"ts\":%ld}",
                           k % 2 ? 'e' : 'b', tid * 1000 + k / 2, tid, t + 1);
            lines[n++] = strdup(buf);
            t += d + 5;
        }
    }
    *lines_out = lines;
    return n;
}

static char *join(char **lines, size_t n)
{
    size_t len = 3;
    for (size_t i = 0; i < n; i++) {
        len += strlen(lines[i]) + 2;
    }
    char *s = malloc(len);
    size_t o = 0;
    s[o++] = '[';
    for (size_t i = 0; i < n; i++) {
        o += (size_t)sprintf(s + o, "%s%s\n", lines[i], i + 1 < n ? "," : "");
    }
    s[o++] = ']';
    s[o] = '\0';
    return s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **rendered(const harness *h)
{
    char **v = malloc(h->nitems * sizeof *v);
    for (size_t i = 0; i < h->nitems; i++) {
        char buf[1024];
        render(h, i, buf, sizeof buf);
        v[i] = strdup(buf);
    }
    qsort((void *)v, h->nitems, sizeof *v, cmp_str);
    return v;
}

START_TEST(test_chrome_import_shuffled_equals_sorted)
{
    char **lines;
    const size_t n = gen_trace(&lines, 7);
    char *sorted_text = join(lines, n);
    for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
        const size_t j = (size_t)rand() % (i + 1);
        char *t = lines[i];
        lines[i] = lines[j];
        lines[j] = t;
    }
    char *shuffled_text = join(lines, n);
    harness a, b;
    harness_init(&a, 1000000, true);
    harness_init(&b, 1000000, true);
    ck_assert_int_eq(harness_import_text(&a, sorted_text, strlen(sorted_text), CHROME_MODE_AUTO), 0);
    ck_assert_int_eq(harness_import_text(&b, shuffled_text, strlen(shuffled_text), CHROME_MODE_AUTO),
                     0);
    ck_assert_uint_eq(a.nitems, b.nitems);
    ck_assert_uint_gt(a.count[0], 0);
    ck_assert_uint_gt(a.count[2], 0);
    ck_assert_uint_gt(a.count[3], 0);
    char **ra = rendered(&a);
    char **rb = rendered(&b);
    for (size_t i = 0; i < a.nitems; i++) {
        ck_assert_str_eq(ra[i], rb[i]);
        free(ra[i]);
        free(rb[i]);
    }
    free((void *)ra);
    free((void *)rb);
    /* the writer gets nondecreasing end times */
    for (size_t i = 1; i < b.nitems; i++) {
        ck_assert_int_le(b.items[i - 1].end, b.items[i].end);
    }
    harness_free(&a);
    harness_free(&b);
    for (size_t i = 0; i < n; i++) {
        free(lines[i]);
    }
    free((void *)lines);
    free(sorted_text);
    free(shuffled_text);
}
END_TEST

/* The same drawables in the same order. */
static void assert_same_items(const harness *a, const harness *b)
{
    ck_assert_uint_eq(a->nitems, b->nitems);
    for (size_t i = 0; i < a->nitems; i++) {
        char x[1024], y[1024];
        render(a, i, x, sizeof x);
        render(b, i, y, sizeof y);
        ck_assert_str_eq(x, y);
    }
}

START_TEST(test_chrome_import_threaded_equals_single_thread)
{
    char **lines;
    const size_t n = gen_trace(&lines, 23);
    char *text = join(lines, n);
    harness a, b;
    harness_init(&a, 1000000, true);
    harness_init(&b, 1000000, true);
    b.threaded = true;
    ck_assert_int_eq(harness_import_text(&a, text, strlen(text), CHROME_MODE_AUTO), 0);
    ck_assert_int_eq(harness_import_text(&b, text, strlen(text), CHROME_MODE_AUTO), 0);
    assert_same_items(&a, &b);
    harness_free(&a);
    harness_free(&b);
    /* a parse error on the reader thread fails the import with its place */
    harness e;
    harness_init(&e, 1000000, false);
    e.threaded = true;
    char path[512];
    (void)snprintf(path, sizeof path, "%s/n_error_in_event.json", CHROME_DATA);
    const char *p = path;
    ck_assert_int_eq(harness_import(&e, &p, 1, CHROME_MODE_AUTO), 1);
    ck_assert_uint_eq(e.fail_line, 3);
    harness_free(&e);
    for (size_t i = 0; i < n; i++) {
        free(lines[i]);
    }
    free((void *)lines);
    free(text);
}
END_TEST

START_TEST(test_chrome_import_small_window_keeps_every_record)
{
    char **lines;
    const size_t n = gen_trace(&lines, 11);
    for (size_t i = n - 1; i > 0; i--) {
        const size_t j = (size_t)rand() % (i + 1);
        char *t = lines[i];
        lines[i] = lines[j];
        lines[j] = t;
    }
    char *text = join(lines, n);
    harness h;
    harness_init(&h, 16, false); /* far smaller than the disorder */
    ck_assert_msg(harness_import_text(&h, text, strlen(text), CHROME_MODE_AUTO) == 0, "%s",
                  h.fail_message);
    /* X, counters and flows do not depend on order; late ones are counted */
    ck_assert_uint_eq(harness_counted(&h, "X -> state", IMPORT_IMPORTED), 1600);
    ck_assert_uint_eq(h.count[3], 800);
    ck_assert_uint_gt(harness_counted(&h, "out of order beyond --sort-window", IMPORT_REPAIRED),
                      0);
    harness_free(&h);
    for (size_t i = 0; i < n; i++) {
        free(lines[i]);
    }
    free((void *)lines);
    free(text);
}
END_TEST

/* A gzip input of many 256 KiB chunks: the same drawables as the text read
 * directly; a cut copy fails cleanly, saying the data ends inside the
 * compressed stream. */
START_TEST(test_chrome_import_big_gzip_same_as_text)
{
    const size_t nev = 100000;
    const size_t cap = nev * 160 + 64;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    size_t len = 0;
    for (size_t i = 0; text != NULL && i <= nev + 1; i++) {
        const size_t left = cap - len;
        int w;
        if (i == 0) {
            w = snprintf(text + len, left, "[\n");
        } else if (i == nev + 1) {
            w = snprintf(text + len, left, "]\n");
        } else {
            const size_t e = i - 1;
            w = snprintf(text + len, left,
                         "{\"ph\":\"X\",\"name\":\"op%zu\",\"pid\":1,\"tid\":%zu,"
                         "\"ts\":%zu.125,\"dur\":0.5,\"args\":{\"n\":%zu}}%s\n",
                         e % 97, e % 7, e, e, e + 1 < nev ? "," : "");
        }
        ck_assert(w > 0 && (size_t)w < left);
        len += (size_t)w;
    }
    char path[] = "/tmp/check_chrome_gz_XXXXXX";
    const int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    gzFile gz = gzdopen(fd, "wb1");
    ck_assert_ptr_nonnull(gz);
    ck_assert_int_eq(gzwrite(gz, text, (unsigned)len), (int)len);
    ck_assert_int_eq(gzclose(gz), Z_OK);
    harness a, b;
    harness_init(&a, 1000000, true);
    harness_init(&b, 1000000, true);
    ck_assert_int_eq(harness_import_text(&a, text, len, CHROME_MODE_AUTO), 0);
    const char *p = path;
    ck_assert_msg(harness_import(&b, &p, 1, CHROME_MODE_AUTO) == 0, "%s", b.fail_message);
    ck_assert_uint_eq(a.nitems, nev);
    assert_same_items(&a, &b);
    harness_free(&a);
    harness_free(&b);
    /* cut the compressed file short (a killed job's .pfw.gz): the events it
     * held are kept, with a warning that says so, as for a plain file cut
     * short */
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    const long size = ftell(f);
    (void)fclose(f);
    ck_assert_int_eq(truncate(path, size * 3 / 5), 0);
    harness c;
    harness_init(&c, 1000000, false);
    ck_assert_msg(harness_import(&c, &p, 1, CHROME_MODE_AUTO) == 0, "%s", c.fail_message);
    ck_assert_uint_gt(c.count[SLOG_KIND_STATE], nev / 4); /* 3/5 of the compressed bytes */
    ck_assert_uint_lt(c.count[SLOG_KIND_STATE], nev);
    ck_assert_uint_ge(c.warnings, 2); /* the gzip data's end, the event it cut */
    harness_free(&c);
    (void)unlink(path);
    free(text);
}
END_TEST

/* Positions far into a file read in many chunks: a missing comma after the
 * event on line nev/2 + 1 is repaired with a warning at the next event, and
 * a bad token on the last event's line is an error at its column; the same
 * through gzip. */
static void write_late_faults(const char *path, size_t nev, bool gz)
{
    FILE *f = gz ? NULL : fopen(path, "wb");
    gzFile z = gz ? gzopen(path, "wb1") : NULL;
    ck_assert(f != NULL || z != NULL);
    char line[256];
    for (size_t i = 0; i <= nev; i++) {
        int w;
        if (i == 0) {
            w = snprintf(line, sizeof line, "[\n");
        } else if (i < nev) {
            w = snprintf(line, sizeof line,
                         "{\"ph\":\"X\",\"name\":\"op%zu\",\"pid\":1,\"tid\":%zu,"
                         "\"ts\":%zu,\"dur\":1}%s\n",
                         i % 13, i % 3, i * 10, i == nev / 2 ? "" : ",");
        } else {
            w = snprintf(line, sizeof line, "{\"ph\":\"X\",\"ts\":@}\n]\n");
        }
        ck_assert(w > 0 && (size_t)w < sizeof line);
        if (gz) {
            ck_assert_int_eq(gzwrite(z, line, (unsigned)w), w);
        } else {
            ck_assert_uint_eq(fwrite(line, 1, (size_t)w, f), (size_t)w);
        }
    }
    ck_assert_int_eq(gz ? gzclose(z) : fclose(f), 0);
}

START_TEST(test_chrome_import_late_faults_say_their_line)
{
    const size_t nev = 150000; /* ~11 MB: 40+ chunks of 256 KiB */
    char path[] = "/tmp/check_chrome_late_XXXXXX";
    const int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    (void)close(fd);
    write_late_faults(path, nev, _i == 1);
    harness h;
    harness_init(&h, 1000000, false);
    const char *p = path;
    ck_assert_int_eq(harness_import(&h, &p, 1, CHROME_MODE_JSON), 1);
    /* the event after the missing comma starts line nev/2 + 2 */
    char want[64];
    (void)snprintf(want, sizeof want, "%zu:1: ", nev / 2 + 2);
    ck_assert_uint_eq(h.warnings, 1);
    ck_assert_msg(strncmp(h.last_warning, want, strlen(want)) == 0, "%s, want %s",
                  h.last_warning, want);
    ck_assert_uint_eq(h.fail_line, nev + 1);
    ck_assert_uint_eq(h.fail_col, 16); /* the @ */
    harness_free(&h);
    (void)unlink(path);
}
END_TEST

START_TEST(test_chrome_import_inputs_keep_their_timelines_apart)
{
    char a[512], b[512];
    (void)snprintf(a, sizeof a, "%s/y_lines.pfw", CHROME_DATA);
    (void)snprintf(b, sizeof b, "%s/y_lines_nobracket.pfw", CHROME_DATA);
    const char *paths[] = {a, b, a};
    harness h;
    harness_init(&h, 1000000, true);
    ck_assert_int_eq(harness_import(&h, paths, 3, CHROME_MODE_LINES), 0);
    ck_assert_uint_eq(h.count[0], 6);
    /* three inputs: pid 10 twice (apart) and pid 1 with two threads */
    size_t procs = 0;
    for (size_t i = 0; i < h.ntl; i++) {
        procs += h.tl[i].kind == SLOG_TIMELINE_PROCESS;
    }
    ck_assert_uint_eq(procs, 3);
    /* merged by time: end times never go back */
    for (size_t i = 1; i < h.nitems; i++) {
        ck_assert_int_le(h.items[i - 1].end, h.items[i].end);
    }
    harness_free(&h);
}
END_TEST

static Suite *chrome_import_suite(void)
{
    Suite *s = suite_create("chrome_import");
    TCase *tc = tcase_create("files");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_chrome_import_data_file_prefix_is_honoured, 0, ndata);
    tcase_add_loop_test(tc, test_chrome_import_crafted_file_counts, 0,
                        (int)(sizeof expects / sizeof expects[0]));
    tcase_add_loop_test(tc, test_chrome_import_error_says_where_and_what, 0,
                        (int)(sizeof errors / sizeof errors[0]));
    suite_add_tcase(s, tc);
    TCase *tm = tcase_create("mapping");
    tcase_add_test(tm, test_chrome_import_keeps_every_ns_digit);
    tcase_add_test(tm, test_chrome_import_args_keep_their_types);
    tcase_add_test(tm, test_chrome_import_nesting_parent_after_child);
    tcase_add_test(tm, test_chrome_import_same_interval_child_first);
    tcase_add_test(tm, test_chrome_import_unclosed_spans_end_at_trace_end_flagged);
    tcase_add_test(tm, test_chrome_import_async_nests_in_lanes);
    tcase_add_test(tm, test_chrome_import_flows_become_arrows);
    tcase_add_test(tm, test_chrome_import_samples_named_by_frames);
    tcase_add_test(tm, test_chrome_import_metadata_names_timelines);
    tcase_add_test(tm, test_chrome_import_invalid_utf8_replaced);
    tcase_add_test(tm, test_chrome_import_nul_escape_replaced_not_cut);
    tcase_add_test(tm, test_chrome_import_raw_newline_joined_and_kept);
    suite_add_tcase(s, tm);
    TCase *to = tcase_create("order");
    tcase_set_timeout(to, 60);
    tcase_add_test(to, test_chrome_import_shuffled_equals_sorted);
    tcase_add_test(to, test_chrome_import_small_window_keeps_every_record);
    tcase_add_test(to, test_chrome_import_threaded_equals_single_thread);
    tcase_add_test(to, test_chrome_import_inputs_keep_their_timelines_apart);
    tcase_add_test(to, test_chrome_import_big_gzip_same_as_text);
    tcase_add_loop_test(to, test_chrome_import_late_faults_say_their_line, 0, 2);
    suite_add_tcase(s, to);
    return s;
}

/* The tests that need the shared corpus: run alone (--corpus). */
static Suite *chrome_corpus_suite(void)
{
    Suite *s = suite_create("chrome_import_corpus");
    TCase *tc = tcase_create("corpus");
    tcase_add_test(tc, test_chrome_import_corpus_invalid_json_is_a_clean_error);
    suite_add_tcase(s, tc);
    return s;
}

/* Usage: check_chrome_import [--corpus].  With --corpus, only the corpus
 * tests, and exit 77 (skipped) when the corpus is absent. */
int main(int argc, char **argv)
{
    const bool corpus = argc > 1 && strcmp(argv[1], "--corpus") == 0;
    char path[1024];
    if (corpus && corpus_json(path, sizeof path) == NULL) {
        (void)printf("1..0 # SKIP corpus not found (%s)\n", path);
        return 77;
    }
    list_data();
    SRunner *sr = srunner_create(corpus ? chrome_corpus_suite() : chrome_import_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    for (int i = 0; i < ndata; i++) {
        free(data_files[i]);
    }
    return failed == 0 ? 0 : 1;
}
