/* SPDX-License-Identifier: MIT
 *
 * check_writer.c - the writer's contract through the public API: begin/end
 * nesting and depth, any arrival order gives the same file content (issue 2
 * item 6), invalid arguments and states (EINVAL, ESTATE), a writer destroyed
 * without finish or killed with SIGKILL after a flush leaves an incomplete
 * file that yields what was flushed, and with 10^4 timelines no node's
 * preview exceeds the preview budget (item 7).  Contents are checked
 * against the in-memory reference of trace_ref.c.
 */
#include "ck_quiet.h"
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace_ref.h"

static char tmpdir[256];
static char path[512];

static void tmpdir_setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/check_writer.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        abort();
    }
}

static void tmpdir_teardown(void)
{
    /* Files a failed test left behind, then the directory. */
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

static void path_setup(void)
{
    snprintf(path, sizeof path, "%s/w_%d.slog", tmpdir, (int)getpid());
}

static void path_teardown(void)
{
    remove(path);
}

static void err_fill(slog_error *err)
{
    memset(err, 0xff, sizeof *err);
}

static void assert_err(int rc, int want, const slog_error *err)
{
    ck_assert_msg(rc == want, "got %s, expected %s", slog_status_name(rc),
                  slog_status_name(want));
    ck_assert_int_eq(err->code, want);
    ck_assert_msg(memchr(err->message, '\0', sizeof err->message) != NULL,
                  "message not terminated");
    ck_assert_msg(err->message[0] != '\0', "empty message for %s", slog_status_name(want));
}

/* A writer with two timelines and one category of each kind. */
static slog_writer *small_writer(void)
{
    slog_writer *w = NULL;
    slog_error err;
    err_fill(&err);
    ck_assert_int_eq(slog_writer_create(&w, path, NULL, &err), SLOG_OK);
    uint32_t id = 99;
    ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, "proc", 0,
                                              &id, &err),
                     SLOG_OK);
    ck_assert_uint_eq(id, 0);
    ck_assert_int_eq(
        slog_writer_add_timeline(w, 0, SLOG_TIMELINE_THREAD, "thread", 1, &id, &err), SLOG_OK);
    ck_assert_uint_eq(id, 1);
    static const slog_kind kinds[] = {SLOG_KIND_STATE, SLOG_KIND_EVENT, SLOG_KIND_ARROW,
                                      SLOG_KIND_COUNTER};
    for (uint32_t k = 0; k < 4; k++) {
        char name[16];
        snprintf(name, sizeof name, "c%u", k);
        ck_assert_int_eq(slog_writer_add_category(w, kinds[k], name, 0, NULL, &id, &err), SLOG_OK);
        ck_assert_uint_eq(id, k);
    }
    return w;
}

/* All drawables of a file, full detail, sorted keys. */
static slog_reader *read_all(tref_result *res, bool complete)
{
    slog_reader *r = NULL;
    slog_error err;
    err_fill(&err);
    const int rc = slog_reader_open(&r, path, NULL, &err);
    ck_assert_msg(rc == SLOG_OK, "open: %s: %s", slog_status_name(rc), err.message);
    ck_assert(slog_reader_info(r)->complete == complete);
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.flags = SLOG_QUERY_ARGS;
    q.t0 = INT64_MIN;
    q.t1 = INT64_MAX;
    tref_run_query(r, &q, res);
    ck_assert_msg(res->status == SLOG_END, "query: %s: %s", slog_status_name(res->status),
                  res->err.message);
    tref_sort_keys(res->keys, res->nkeys);
    return r;
}

static char **trace_keys(const tref_trace *t, size_t *n)
{
    char **keys = malloc((t->nitems + 1) * sizeof *keys);
    ck_assert_ptr_nonnull(keys);
    for (size_t i = 0; i < t->nitems; i++) {
        keys[i] = t->items[i].key;
    }
    tref_sort_keys(keys, t->nitems);
    *n = t->nitems;
    return keys;
}

/* ---- nesting ------------------------------------------------------------------------- */

START_TEST(test_writer_begin_end_nests_and_sets_depth)
{
    slog_writer *w = small_writer();
    slog_error err;
    err_fill(&err);
    const slog_arg args[2] = {{.key = "bytes", .type = SLOG_ARG_INT, .v.i = 4096},
                              {.key = "file", .type = SLOG_ARG_STRING, .v.s = "a.dat"}};
    ck_assert_uint_eq(slog_writer_open_depth(w, 1), 0);
    ck_assert_int_eq(slog_writer_begin(w, 1, 0, 100, NULL, 0, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_begin(w, 1, 0, 110, args, 2, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_begin(w, 0, 0, 115, NULL, 0, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_begin(w, 1, 0, 120, NULL, 0, &err), SLOG_OK);
    ck_assert_uint_eq(slog_writer_open_depth(w, 1), 3);
    ck_assert_uint_eq(slog_writer_open_depth(w, 0), 1);
    ck_assert_int_eq(slog_writer_end(w, 1, 120, &err), SLOG_OK); /* zero length */
    ck_assert_int_eq(slog_writer_end(w, 1, 150, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_end(w, 0, 160, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_begin(w, 1, 0, 150, NULL, 0, &err), SLOG_OK); /* touches */
    ck_assert_int_eq(slog_writer_end(w, 1, 170, &err), SLOG_OK);
    ck_assert_uint_eq(slog_writer_open_depth(w, 1), 1);
    ck_assert_int_eq(slog_writer_end(w, 1, 200, &err), SLOG_OK);
    ck_assert_uint_eq(slog_writer_open_depth(w, 1), 0);
    ck_assert_int_eq(slog_writer_begin(w, 1, 0, 300, NULL, 0, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_end(w, 1, 400, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);

    tref_result res;
    slog_reader *r = read_all(&res, true);
    char *want[] = {
        "state tl=0 cat=0 [115,160] depth=0",
        "state tl=1 cat=0 [100,200] depth=0",
        "state tl=1 cat=0 [110,150] depth=1 bytes=i4096 file=s5:a.dat",
        "state tl=1 cat=0 [120,120] depth=2",
        "state tl=1 cat=0 [150,170] depth=1",
        "state tl=1 cat=0 [300,400] depth=0",
    };
    const size_t nwant = sizeof want / sizeof want[0];
    tref_sort_keys(want, nwant);
    char msg[512];
    ck_assert_msg(tref_same_keys(res.keys, res.nkeys, want, nwant, msg, sizeof msg), "%s", msg);
    tref_result_free(&res);
    slog_reader_destroy(r);
}
END_TEST

START_TEST(test_writer_end_without_begin_is_state_error)
{
    slog_writer *w = small_writer();
    slog_error err;
    err_fill(&err);
    assert_err(slog_writer_end(w, 1, 10, &err), SLOG_ESTATE, &err);
    slog_writer_destroy(w);
}
END_TEST

START_TEST(test_writer_end_before_begin_is_state_error)
{
    slog_writer *w = small_writer();
    slog_error err;
    err_fill(&err);
    ck_assert_int_eq(slog_writer_begin(w, 1, 0, 100, NULL, 0, &err), SLOG_OK);
    err_fill(&err);
    assert_err(slog_writer_end(w, 1, 99, &err), SLOG_ESTATE, &err);
    slog_writer_destroy(w);
}
END_TEST

/* An end the file's time span refuses (past INT64_MAX ticks from its
 * start) changes nothing: the state stays open and ends later.  It was
 * popped, then refused: lost, and the next end found nothing open. */
START_TEST(test_writer_end_past_the_span_keeps_the_state_open)
{
    slog_writer *w = small_writer();
    slog_error err;
    ck_assert_int_eq(slog_writer_begin(w, 1, 0, -10, NULL, 0, &err), SLOG_OK);
    err_fill(&err);
    assert_err(slog_writer_end(w, 1, INT64_MAX, &err), SLOG_EINVAL, &err);
    ck_assert_uint_eq(slog_writer_open_depth(w, 1), 1);
    ck_assert_int_eq(slog_writer_end(w, 1, 10, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);
}
END_TEST

START_TEST(test_writer_finish_with_open_state_fails)
{
    slog_writer *w = small_writer();
    slog_error err;
    err_fill(&err);
    ck_assert_int_eq(slog_writer_begin(w, 0, 0, 100, NULL, 0, &err), SLOG_OK);
    err_fill(&err);
    assert_err(slog_writer_finish(w, &err), SLOG_ESTATE, &err);
    slog_writer_destroy(w);
}
END_TEST

/* ---- arrival order ------------------------------------------------------------------- */

START_TEST(test_writer_any_arrival_order_gives_same_content)
{
    static const tref_order orders[] = {TR_ORDER_END, TR_ORDER_SHUFFLED, TR_ORDER_REVERSED,
                                      TR_ORDER_BEGIN_END};
    const tref_params p = {.seed = 2024u + (uint64_t)_i,
                         .timelines = 20,
                         .states = 4000,
                         .events = 400,
                         .arrows = 200,
                         .counters = 400,
                         .state_categories = 5,
                         .max_depth = 6,
                         .base = -1000000,
                         .span = 20000000,
                         .args_percent = 25};
    tref_trace t;
    ck_assert_int_eq(tref_generate(&t, &p), 0);
    size_t nwant = 0;
    char **want = trace_keys(&t, &nwant);
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 1024;
    o.fanout = 2 + (uint32_t)_i * 3;
    slog_error err;
    err_fill(&err);
    const int rc = tref_write(&t, path, &o, orders[_i], 17, true, &err);
    ck_assert_msg(rc == SLOG_OK, "%s: %s", slog_status_name(rc), err.message);
    tref_result res;
    slog_reader *r = read_all(&res, true);
    char msg[1024];
    ck_assert_msg(tref_same_keys(res.keys, res.nkeys, want, nwant, msg, sizeof msg), "order %d: %s",
                  _i, msg);
    const slog_file_info *in = slog_reader_info(r);
    ck_assert_uint_eq(in->states, t.count[SLOG_KIND_STATE]);
    ck_assert_int_eq(in->start, t.start);
    ck_assert_int_eq(in->end, t.end);
    tref_result_free(&res);
    slog_reader_destroy(r);
    free(want);
    tref_free(&t);
}
END_TEST

/* Children of node @p idx in the post-order node table (each child's
 * subtree ends right before the next one's), and how many of them are one
 * level down: the others are spill pseudo-leaves (level 0) holding the
 * node's own late or long drawables (doc/DESIGN.md). */
static uint64_t child_count(slog_reader *r, uint64_t idx, uint64_t *next_level)
{
    slog_node_info n;
    ck_assert_int_eq(slog_reader_node(r, idx, &n), SLOG_OK);
    const uint64_t first = idx + 1 - n.subtree_nodes;
    uint64_t children = 0;
    uint64_t c = idx;
    *next_level = 0;
    while (c > first) {
        slog_node_info ci;
        ck_assert_int_eq(slog_reader_node(r, c - 1, &ci), SLOG_OK);
        ck_assert_uint_ge(c, first + ci.subtree_nodes); /* child subtree inside parent */
        ck_assert_uint_lt(ci.level, n.level);
        ck_assert_msg(ci.start >= n.start && ci.end <= n.end,
                      "child box [%lld,%lld] outside parent box [%lld,%lld]", (long long)ci.start,
                      (long long)ci.end, (long long)n.start, (long long)n.end);
        /* Spills are level 0, so only above level 1 are real children told apart. */
        *next_level += ci.level + 1 == n.level && ci.level > 0;
        c -= ci.subtree_nodes;
        children++;
    }
    return children;
}

/* The tree is k-ary whatever the arrival order: no inner node has more
 * than `fanout` inner children one level down (leaves and spill pseudo-leaves
 * cannot be told apart through the public API, so those are not counted), child
 * boxes nest in their parents', and subtrees tile the post-order table. */
START_TEST(test_writer_inner_nodes_respect_fanout)
{
    static const tref_order orders[] = {TR_ORDER_END, TR_ORDER_SHUFFLED, TR_ORDER_REVERSED,
                                        TR_ORDER_BEGIN_END};
    const tref_params p = {.seed = 99u + (uint64_t)_i,
                           .timelines = 20,
                           .states = 4000,
                           .events = 400,
                           .arrows = 200,
                           .counters = 400,
                           .state_categories = 5,
                           .max_depth = 6,
                           .base = 0,
                           .span = 20000000,
                           .args_percent = 10};
    tref_trace t;
    ck_assert_int_eq(tref_generate(&t, &p), 0);
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 1024;
    o.fanout = 2 + (uint32_t)(_i % 3);
    slog_error err;
    err_fill(&err);
    ck_assert_int_eq(tref_write(&t, path, &o, orders[_i % 4], 5, true, &err), SLOG_OK);
    slog_reader *r = NULL;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    const slog_file_info *in = slog_reader_info(r);
    for (uint64_t i = 0; i < in->nodes; i++) {
        slog_node_info ni;
        ck_assert_int_eq(slog_reader_node(r, i, &ni), SLOG_OK);
        if (ni.level == 0) {
            ck_assert_uint_eq(ni.subtree_nodes, 1);
            continue;
        }
        uint64_t real = 0;
        const uint64_t children = child_count(r, i, &real);
        ck_assert_msg(children >= 1 && real <= o.fanout,
                      "order %d, fanout %u: node %llu (level %u of %u) has %llu children one "
                      "level down (%llu in all)",
                      (int)orders[_i % 4], o.fanout, (unsigned long long)i, ni.level, in->depth,
                      (unsigned long long)real, (unsigned long long)children);
    }
    slog_reader_destroy(r);
    tref_free(&t);
}
END_TEST

/* Bytes that 50 small windows (0.1 % of the trace) read from @p path; the
 * node rows they looked at are added to *visited. */
static uint64_t small_window_bytes(int64_t base, int64_t span, uint64_t *visited)
{
    slog_reader *r = NULL;
    slog_error err;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    tref_rng rng;
    tref_rng_seed(&rng, 5);
    uint64_t bytes = 0;
    for (int w = 0; w < 50; w++) {
        slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
        q.t0 = tref_rng_range(&rng, base, base + span);
        q.t1 = q.t0 + span / 1000;
        tref_result res;
        tref_run_query(r, &q, &res);
        ck_assert_int_eq(res.status, SLOG_END);
        bytes += res.stats.bytes_read;
        *visited += res.stats.nodes_visited;
        tref_result_free(&res);
    }
    slog_reader_destroy(r);
    return bytes;
}

/* Nondecreasing end time is the optimal arrival order (item 6): small
 * windows read fewer bytes than when the same drawables came shuffled, and
 * look at fewer node rows than when they came in decreasing end order.
 * That order makes every drawable late, so the tree degenerates into one
 * flat list of spill leaves under the root: a window then looks at every
 * row of the list (O(n)); since format 2 keeps args out of these reads,
 * its few, tightly packed leaves read ~10 % fewer bytes on this small
 * trace, which is why bytes alone no longer rank it. */
START_TEST(test_writer_end_order_reads_least)
{
    static const uint32_t timelines[] = {1, 5, 64, 200};
    const tref_params p = {.seed = 1u + (uint64_t)_i,
                           .timelines = timelines[_i],
                           .states = 8000,
                           .events = 400,
                           .arrows = 200,
                           .counters = 400,
                           .state_categories = 5,
                           .max_depth = 6,
                           .base = 0,
                           .span = 20000000,
                           .args_percent = 10};
    tref_trace t;
    ck_assert_int_eq(tref_generate(&t, &p), 0);
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 2048;
    slog_error err;
    uint64_t bytes[3], visited[3] = {0, 0, 0};
    static const tref_order orders[3] = {TR_ORDER_END, TR_ORDER_SHUFFLED, TR_ORDER_REVERSED};
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(tref_write(&t, path, &o, orders[k], 17, true, &err), SLOG_OK);
        bytes[k] = small_window_bytes(p.base, p.span, &visited[k]);
    }
    ck_assert_msg(bytes[0] < bytes[1] && visited[0] < visited[2],
                  "50 small windows: end order %llu bytes %llu rows, shuffled %llu bytes, "
                  "reversed %llu rows",
                  (unsigned long long)bytes[0], (unsigned long long)visited[0],
                  (unsigned long long)bytes[1], (unsigned long long)visited[2]);
    tref_free(&t);
}
END_TEST

/* ---- invalid arguments -------------------------------------------------------------------- */

typedef int (*bad_call)(slog_writer *w, slog_error *err);

static int bad_state_end_before_start(slog_writer *w, slog_error *err)
{
    const slog_state s = {0, 0, 100, 99, 0, 0, NULL};
    return slog_writer_append_state(w, &s, err);
}

static int bad_arrow_end_before_start(slog_writer *w, slog_error *err)
{
    const slog_arrow a = {2, 0, 1, 100, 50, 0, NULL};
    return slog_writer_append_arrow(w, &a, err);
}

static int bad_state_timeline(slog_writer *w, slog_error *err)
{
    const slog_state s = {2, 0, 100, 200, 0, 0, NULL};
    return slog_writer_append_state(w, &s, err);
}

static int bad_state_category(slog_writer *w, slog_error *err)
{
    const slog_state s = {0, 4, 100, 200, 0, 0, NULL};
    return slog_writer_append_state(w, &s, err);
}

static int bad_event_timeline(slog_writer *w, slog_error *err)
{
    const slog_event e = {7, 1, 100, 0, NULL};
    return slog_writer_append_event(w, &e, err);
}

static int bad_event_category(slog_writer *w, slog_error *err)
{
    const slog_event e = {0, 400, 100, 0, NULL};
    return slog_writer_append_event(w, &e, err);
}

static int bad_arrow_to(slog_writer *w, slog_error *err)
{
    const slog_arrow a = {2, 0, 2, 100, 150, 0, NULL};
    return slog_writer_append_arrow(w, &a, err);
}

static int bad_arrow_from(slog_writer *w, slog_error *err)
{
    const slog_arrow a = {2, UINT32_MAX, 0, 100, 150, 0, NULL};
    return slog_writer_append_arrow(w, &a, err);
}

static int bad_counter_timeline(slog_writer *w, slog_error *err)
{
    const slog_counter c = {3, 3, 100, 1.0};
    return slog_writer_append_counter(w, &c, err);
}

static int bad_counter_category(slog_writer *w, slog_error *err)
{
    const slog_counter c = {0, 5, 100, 1.0};
    return slog_writer_append_counter(w, &c, err);
}

static int bad_begin_timeline(slog_writer *w, slog_error *err)
{
    return slog_writer_begin(w, 2, 0, 100, NULL, 0, err);
}

static int bad_begin_category(slog_writer *w, slog_error *err)
{
    return slog_writer_begin(w, 0, 9, 100, NULL, 0, err);
}

static int bad_timeline_parent(slog_writer *w, slog_error *err)
{
    return slog_writer_add_timeline(w, 2, SLOG_TIMELINE_THREAD, "orphan", 0, NULL, err);
}

static int bad_set_timeline(slog_writer *w, slog_error *err)
{
    return slog_writer_set_timeline(w, 2, "nobody", 0, err);
}

static const bad_call bad_calls[] = {
    bad_state_end_before_start, bad_arrow_end_before_start, bad_state_timeline,
    bad_state_category,         bad_event_timeline,         bad_event_category,
    bad_arrow_to,               bad_arrow_from,             bad_counter_timeline,
    bad_counter_category,       bad_begin_timeline,         bad_begin_category,
    bad_timeline_parent,        bad_set_timeline,
};
#define NBAD ((int)(sizeof bad_calls / sizeof bad_calls[0]))

START_TEST(test_writer_invalid_argument_is_rejected)
{
    slog_writer *w = small_writer();
    slog_error err;
    err_fill(&err);
    assert_err(bad_calls[_i](w, &err), SLOG_EINVAL, &err);
    /* Nothing was stored: the file ends up empty. */
    slog_writer_destroy(w);
}
END_TEST

START_TEST(test_writer_bad_options_are_rejected)
{
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    if (_i == 0) {
        o.fanout = 1;
    } else if (_i == 1) {
        o.fanout = 65;
    } else {
        o.lz4_level = 13;
    }
    slog_writer *w = NULL;
    slog_error err;
    err_fill(&err);
    assert_err(slog_writer_create(&w, path, &o, &err), SLOG_EINVAL, &err);
    ck_assert_ptr_null(w);
}
END_TEST

START_TEST(test_writer_set_timeline_renames)
{
    slog_writer *w = small_writer();
    slog_error err;
    err_fill(&err);
    ck_assert_int_eq(slog_writer_set_timeline(w, 1, "renamed", 42, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_set_timeline(w, 0, NULL, 7, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);
    slog_reader *r = NULL;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    slog_timeline_info ti;
    ck_assert_int_eq(slog_reader_timeline(r, 1, &ti), SLOG_OK);
    ck_assert_str_eq(ti.name, "renamed");
    ck_assert_int_eq(ti.sort_key, 42);
    ck_assert_uint_eq(ti.parent, 0);
    ck_assert_int_eq(ti.kind, SLOG_TIMELINE_THREAD);
    ck_assert_int_eq(slog_reader_timeline(r, 0, &ti), SLOG_OK);
    ck_assert_str_eq(ti.name, "proc");
    ck_assert_int_eq(ti.sort_key, 7);
    slog_reader_destroy(r);
}
END_TEST

/* ---- states ------------------------------------------------------------------------------ */

/* The bytes of path (the whole file, small). */
static char *file_bytes(size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    char *buf = malloc(1u << 20);
    ck_assert_ptr_nonnull(buf);
    *n = fread(buf, 1, 1u << 20, f);
    fclose(f);
    return buf;
}

START_TEST(test_writer_no_replace_keeps_existing_file)
{
    slog_writer *w = small_writer();
    slog_error err;
    err_fill(&err);
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);
    size_t n0 = 0, n1 = 0;
    char *before = file_bytes(&n0);
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.flags = SLOG_WRITER_NO_REPLACE;
    ck_assert_int_eq(slog_writer_create(&w, path, &o, &err), SLOG_EIO);
    ck_assert_ptr_null(w);
    ck_assert_msg(strstr(err.message, "exists") != NULL, "%s", err.message);
    char *after = file_bytes(&n1);
    ck_assert_msg(n0 == n1 && memcmp(before, after, n0) == 0, "the existing file changed");
    char creating[600];
    snprintf(creating, sizeof creating, "%s.creating", path);
    ck_assert_int_ne(access(creating, F_OK), 0);
    free(before);
    free(after);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(slog_writer_create(&w, path, &o, &err), SLOG_OK); /* nothing there: made */
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);
    ck_assert_int_eq(access(path, F_OK), 0);
}
END_TEST

START_TEST(test_writer_finish_twice_is_state_error)
{
    slog_writer *w = small_writer();
    slog_error err;
    err_fill(&err);
    const slog_state s = {0, 0, 10, 20, 0, 0, NULL};
    ck_assert_int_eq(slog_writer_append_state(w, &s, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    err_fill(&err);
    assert_err(slog_writer_finish(w, &err), SLOG_ESTATE, &err);
    err_fill(&err);
    assert_err(slog_writer_append_state(w, &s, &err), SLOG_ESTATE, &err);
    slog_writer_destroy(w);
    tref_result res;
    slog_reader *r = read_all(&res, true);
    ck_assert_uint_eq(res.nkeys, 1);
    tref_result_free(&res);
    slog_reader_destroy(r);
}
END_TEST

START_TEST(test_writer_empty_file_is_complete_and_empty)
{
    slog_writer *w = small_writer();
    slog_error err;
    err_fill(&err);
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);
    tref_result res;
    slog_reader *r = read_all(&res, true);
    const slog_file_info *in = slog_reader_info(r);
    ck_assert_uint_eq(res.nkeys + res.npreviews, 0);
    ck_assert_uint_eq(in->states + in->events + in->arrows + in->counters, 0);
    ck_assert_uint_eq(in->timelines, 2);
    ck_assert_uint_eq(in->categories, 4);
    tref_result_free(&res);
    slog_reader_destroy(r);
}
END_TEST

static tref_params crash_params(uint64_t seed)
{
    const tref_params p = {.seed = seed,
                         .timelines = 8,
                         .states = 5000,
                         .events = 300,
                         .arrows = 100,
                         .counters = 300,
                         .state_categories = 4,
                         .max_depth = 5,
                         .base = 0,
                         .span = 10000000,
                         .args_percent = 20};
    return p;
}

/* Append the states of @p extra after the flush (may or may not survive). */
static void append_extra(slog_writer *w, const tref_trace *extra)
{
    slog_error err;
    for (size_t i = 0; i < extra->nitems; i++) {
        const tref_item *it = &extra->items[i];
        if (it->kind == SLOG_KIND_STATE) {
            const slog_state s = {it->timeline, it->category, it->start, it->end,
                                  it->depth,    it->nargs,    it->args};
            ck_assert_int_eq(slog_writer_append_state(w, &s, &err), SLOG_OK);
        }
    }
}

/* The flushed drawables all come back, and nothing else but extras. */
static void assert_flushed_present(const tref_trace *flushed, const tref_trace *extra)
{
    tref_result res;
    slog_reader *r = read_all(&res, false);
    size_t nf = 0, ne = 0;
    char **f = trace_keys(flushed, &nf);
    char **e = trace_keys(extra, &ne);
    size_t i = 0, j = 0, k = 0;
    while (j < nf) {
        ck_assert_msg(i < res.nkeys, "flushed %s missing", f[j]);
        const int c = strcmp(res.keys[i], f[j]);
        if (c == 0) {
            i++;
            j++;
            continue;
        }
        ck_assert_msg(c < 0, "flushed %s missing", f[j]);
        while (k < ne && strcmp(e[k], res.keys[i]) < 0) {
            k++;
        }
        ck_assert_msg(k < ne && strcmp(e[k], res.keys[i]) == 0, "unexpected %s", res.keys[i]);
        i++;
    }
    tref_result_free(&res);
    slog_reader_destroy(r);
    free(f);
    free(e);
}

START_TEST(test_writer_destroy_without_finish_yields_flushed)
{
    tref_trace flushed;
    const tref_params p = crash_params(31);
    ck_assert_int_eq(tref_generate(&flushed, &p), 0);
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 2048;
    slog_error err;
    err_fill(&err);
    /* Append everything, flush, destroy without finish. */
    ck_assert_int_eq(tref_write(&flushed, path, &o, TR_ORDER_SHUFFLED, 9, false, &err), SLOG_OK);
    tref_result res;
    slog_reader *r = read_all(&res, false);
    size_t nf = 0;
    char **f = trace_keys(&flushed, &nf);
    char msg[1024];
    ck_assert_msg(tref_same_keys(res.keys, res.nkeys, f, nf, msg, sizeof msg), "%s", msg);
    free(f);
    tref_result_free(&res);
    slog_reader_destroy(r);
    tref_free(&flushed);
}
END_TEST

START_TEST(test_writer_destroy_without_flush_keeps_appended)
{
    slog_writer *w = small_writer();
    slog_error err;
    err_fill(&err);
    for (int64_t i = 0; i < 100; i++) {
        const slog_state s = {(uint32_t)(i % 2), 0, i * 10, i * 10 + 5, 0, 0, NULL};
        ck_assert_int_eq(slog_writer_append_state(w, &s, &err), SLOG_OK);
    }
    slog_writer_destroy(w); /* closes the open nodes: all 100 are in the file */
    tref_result res;
    slog_reader *r = read_all(&res, false);
    ck_assert_uint_eq(res.nkeys, 100);
    ck_assert_uint_eq(res.npreviews, 0);
    tref_result_free(&res);
    slog_reader_destroy(r);
}
END_TEST

/* tref_write with finish=false then extra states: done in one writer. */
static void write_flush_extra(const tref_trace *flushed, const tref_trace *extra, bool kill_self)
{
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 2048;
    slog_error err;
    err_fill(&err);
    slog_writer *w = NULL;
    ck_assert_int_eq(slog_writer_create(&w, path, &o, &err), SLOG_OK);
    for (uint32_t i = 0; i < flushed->ntimelines; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%u", i);
        ck_assert_int_eq(slog_writer_add_timeline(w, flushed->parent[i], flushed->tkind[i], name,
                                                  i, NULL, &err),
                         SLOG_OK);
    }
    for (uint32_t c = 0; c < flushed->ncategories; c++) {
        char name[32];
        snprintf(name, sizeof name, "c%u", c);
        ck_assert_int_eq(
            slog_writer_add_category(w, flushed->ckind[c], name, 0, NULL, NULL, &err), SLOG_OK);
    }
    for (size_t i = 0; i < flushed->nitems; i++) {
        const tref_item *it = &flushed->items[i];
        int rc = SLOG_OK;
        switch (it->kind) {
        case SLOG_KIND_STATE: {
            const slog_state s = {it->timeline, it->category, it->start, it->end,
                                  it->depth,    it->nargs,    it->args};
            rc = slog_writer_append_state(w, &s, &err);
            break;
        }
        case SLOG_KIND_EVENT: {
            const slog_event e = {it->timeline, it->category, it->start, it->nargs, it->args};
            rc = slog_writer_append_event(w, &e, &err);
            break;
        }
        case SLOG_KIND_ARROW: {
            const slog_arrow a = {it->category, it->timeline, it->to, it->start,
                                  it->end,      it->nargs,    it->args};
            rc = slog_writer_append_arrow(w, &a, &err);
            break;
        }
        default: {
            const slog_counter c = {it->timeline, it->category, it->start, it->value};
            rc = slog_writer_append_counter(w, &c, &err);
            break;
        }
        }
        ck_assert_int_eq(rc, SLOG_OK);
    }
    ck_assert_int_eq(slog_writer_flush(w, &err), SLOG_OK);
    append_extra(w, extra);
    if (kill_self) {
        kill(getpid(), SIGKILL);
        _exit(99); /* not reached */
    }
    slog_writer_destroy(w);
}

START_TEST(test_writer_destroy_after_more_appends_keeps_flushed)
{
    tref_trace flushed, extra;
    tref_params p = crash_params(41);
    ck_assert_int_eq(tref_generate(&flushed, &p), 0);
    p.seed = 42;
    p.base = 20000000;
    p.states = 800;
    p.events = p.arrows = p.counters = 0;
    ck_assert_int_eq(tref_generate(&extra, &p), 0);
    write_flush_extra(&flushed, &extra, false);
    assert_flushed_present(&flushed, &extra);
    tref_free(&flushed);
    tref_free(&extra);
}
END_TEST

START_TEST(test_writer_killed_after_flush_yields_flushed)
{
    tref_trace flushed, extra;
    tref_params p = crash_params(51 + (uint64_t)_i);
    ck_assert_int_eq(tref_generate(&flushed, &p), 0);
    p.seed = 52 + (uint64_t)_i;
    p.base = 20000000;
    p.states = 3000;
    p.events = p.arrows = p.counters = 0;
    ck_assert_int_eq(tref_generate(&extra, &p), 0);
    fflush(NULL);
    const pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        write_flush_extra(&flushed, &extra, true);
        _exit(98);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
                  "writer child did not die by SIGKILL (status %#x)", (unsigned)status);
    assert_flushed_present(&flushed, &extra);
    tref_free(&flushed);
    tref_free(&extra);
}
END_TEST

START_TEST(test_writer_flush_then_finish_is_complete)
{
    tref_trace t;
    tref_params p = crash_params(61);
    ck_assert_int_eq(tref_generate(&t, &p), 0);
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 1024;
    o.flush_nodes = 1;
    slog_error err;
    err_fill(&err);
    /* HDF5 flush after every written node, then finish. */
    ck_assert_int_eq(tref_write(&t, path, &o, TR_ORDER_SHUFFLED, 3, true, &err), SLOG_OK);
    tref_result res;
    slog_reader *r = read_all(&res, true);
    size_t n = 0;
    char **want = trace_keys(&t, &n);
    char msg[1024];
    ck_assert_msg(tref_same_keys(res.keys, res.nkeys, want, n, msg, sizeof msg), "%s", msg);
    free(want);
    tref_result_free(&res);
    slog_reader_destroy(r);
    tref_free(&t);
}
END_TEST

/* ---- preview budget with many timelines ---------------------------------------------------- */

/* Every node's preview within @p limit bytes; inner nodes have one. */
static void assert_previews_within(slog_reader *r, const slog_file_info *in, uint64_t limit)
{
    uint64_t inner = 0;
    for (uint64_t i = 0; i < in->nodes; i++) {
        slog_node_info ni;
        ck_assert_int_eq(slog_reader_node(r, i, &ni), SLOG_OK);
        ck_assert_msg(ni.preview_bytes <= limit, "node %llu (level %u): preview %llu bytes > %llu",
                      (unsigned long long)i, ni.level, (unsigned long long)ni.preview_bytes,
                      (unsigned long long)limit);
        if (ni.level > 0) {
            inner++;
            ck_assert_uint_gt(ni.preview_bytes, 0);
        }
    }
    ck_assert_uint_gt(inner, 0);
}

/* The folded root previews of the whole file count @p t's items and its
 * states' durations exactly. */
static void assert_root_previews_count_all(slog_reader *r, const slog_file_info *in,
                                           const tref_trace *t)
{
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.flags = SLOG_QUERY_ARGS;
    q.t0 = in->start;
    q.t1 = in->end + 1;
    q.resolution = 2 * (in->end - in->start + 1);
    tref_result res;
    tref_run_query(r, &q, &res);
    ck_assert_int_eq(res.status, SLOG_END);
    uint64_t count[4] = {0};
    int64_t inclusive = 0, want_inclusive = 0;
    for (size_t i = 0; i < res.npreviews; i++) {
        count[res.previews[i].of] += res.previews[i].count;
        if (res.previews[i].of == SLOG_KIND_STATE) {
            inclusive += res.previews[i].inclusive;
        }
    }
    for (size_t i = 0; i < t->nitems; i++) {
        if (t->items[i].kind == SLOG_KIND_STATE) {
            want_inclusive += t->items[i].end - t->items[i].start;
        }
    }
    ck_assert_uint_eq(res.nkeys, 0);
    for (int k = 0; k < 4; k++) {
        ck_assert_uint_eq(count[k], t->count[k]);
    }
    ck_assert_int_eq(inclusive, want_inclusive);
    tref_result_free(&res);
}

START_TEST(test_writer_many_timelines_previews_within_budget)
{
    static const uint32_t budgets[] = {0, 16384, 4096};
    const uint32_t budget = budgets[_i];
    const tref_params p = {.seed = 7 + (uint64_t)_i,
                         .timelines = 10000,
                         .states = 60000,
                         .events = 5000,
                         .arrows = 3000,
                         .counters = 5000,
                         .state_categories = 6,
                         .max_depth = 3,
                         .base = 0,
                         .span = 100000000,
                         .args_percent = 0};
    tref_trace t;
    ck_assert_int_eq(tref_generate(&t, &p), 0);
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.preview_bytes = budget;
    o.leaf_bytes = 16384;
    slog_error err;
    err_fill(&err);
    const int rc = tref_write(&t, path, &o, TR_ORDER_END, 1, true, &err);
    ck_assert_msg(rc == SLOG_OK, "%s: %s", slog_status_name(rc), err.message);
    slog_reader *r = NULL;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    const slog_file_info *in = slog_reader_info(r);
    assert_previews_within(r, in, budget ? budget : 65536);
    assert_root_previews_count_all(r, in, &t);
    slog_reader_destroy(r);
    tref_free(&t);
}
END_TEST

static Suite *writer_suite(void)
{
    Suite *s = suite_create("writer");
    TCase *tc = tcase_create("writer");
    tcase_add_unchecked_fixture(tc, tmpdir_setup, tmpdir_teardown);
    tcase_add_checked_fixture(tc, path_setup, path_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_writer_begin_end_nests_and_sets_depth);
    tcase_add_test(tc, test_writer_end_without_begin_is_state_error);
    tcase_add_test(tc, test_writer_end_before_begin_is_state_error);
    tcase_add_test(tc, test_writer_end_past_the_span_keeps_the_state_open);
    tcase_add_test(tc, test_writer_finish_with_open_state_fails);
    tcase_add_loop_test(tc, test_writer_any_arrival_order_gives_same_content, 0, 4);
    tcase_add_loop_test(tc, test_writer_inner_nodes_respect_fanout, 0, 8);
    tcase_add_loop_test(tc, test_writer_end_order_reads_least, 0, 4);
    tcase_add_loop_test(tc, test_writer_invalid_argument_is_rejected, 0, NBAD);
    tcase_add_loop_test(tc, test_writer_bad_options_are_rejected, 0, 3);
    tcase_add_test(tc, test_writer_set_timeline_renames);
    tcase_add_test(tc, test_writer_finish_twice_is_state_error);
    tcase_add_test(tc, test_writer_no_replace_keeps_existing_file);
    tcase_add_test(tc, test_writer_empty_file_is_complete_and_empty);
    tcase_add_test(tc, test_writer_destroy_without_finish_yields_flushed);
    tcase_add_test(tc, test_writer_destroy_without_flush_keeps_appended);
    tcase_add_test(tc, test_writer_destroy_after_more_appends_keeps_flushed);
    tcase_add_loop_test(tc, test_writer_killed_after_flush_yields_flushed, 0, 3);
    tcase_add_test(tc, test_writer_flush_then_finish_is_complete);
    tcase_add_loop_test(tc, test_writer_many_timelines_previews_within_budget, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(writer_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
