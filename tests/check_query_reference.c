/* SPDX-License-Identifier: MIT
 *
 * check_query_reference.c - guarantees 1-4 of ARCHITECTURE.md ("Reading")
 * proven against a brute-force reference over random traces (trace_ref.c):
 * random call trees on 1 to 1000 timelines, events, arrows and counters
 * with args, written in end-sorted, shuffled, reversed and begin/end order
 * with small leaves (many levels) and fanout 2..8.
 *   1. resolution 0 returns exactly the drawables overlapping the window
 *      (multiset of canonical keys), with and without filters;
 *   2. every node whose blob a query needed has a subtree box meeting the
 *      closed window, also for windows on an empty part of the trace;
 *   3. bytes read by a 1000-pixel query do not grow with the file;
 *   4. previews plus real drawables account for every overlapping drawable,
 *      each preview's counts equal its subtree's in the node table, and the
 *      root's previews equal the reference totals exactly.
 * Public API only.
 */
#include "ck_quiet.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_ref.h"

__extension__ typedef __int128 wide;

static char tmpdir[256];

static void tmpdir_setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/check_query_reference.XXXXXX");
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

/* ---- configurations ----------------------------------------------------------- */

typedef struct ref_config {
    uint32_t timelines, states, events, arrows, counters, cats, depth;
    int64_t base, span;
    uint32_t leaf_bytes, fanout;
    tref_order order;
    unsigned args_percent;
} ref_config;

static const ref_config configs[] = {
    {1, 3000, 200, 50, 200, 3, 6, 0, 1000000, 1024, 2, TR_ORDER_END, 30},
    {3, 4000, 300, 100, 300, 5, 5, 1000000000000, 1000000000, 2048, 3, TR_ORDER_SHUFFLED, 30},
    {17, 5000, 500, 200, 300, 8, 4, -500000000000, 50000, 1024, 4, TR_ORDER_BEGIN_END, 30},
    {100, 6000, 400, 300, 400, 6, 5, 0, 100000000, 4096, 8, TR_ORDER_REVERSED, 20},
    {1000, 5000, 500, 300, 300, 4, 3, 12345, 10000000, 2048, 2, TR_ORDER_END, 20},
    {250, 4000, 300, 200, 300, 10, 4, -77, 5000000, 1024, 5, TR_ORDER_SHUFFLED, 20},
    {5, 8000, 300, 100, 500, 4, 7, 0, 10000000, 4096, 2, TR_ORDER_BEGIN_END, 10},
    {64, 6000, 400, 400, 200, 12, 5, 999, 300000000, 1024, 7, TR_ORDER_SHUFFLED, 60},
    {1000, 3000, 200, 200, 200, 3, 4, 0, 2000000, 1024, 3, TR_ORDER_BEGIN_END, 20},
    {2, 2000, 100, 50, 100, 2, 8, 1 << 20, 1 << 22, 4096, 6, TR_ORDER_REVERSED, 40},
};
#define NCONFIGS ((int)(sizeof configs / sizeof configs[0]))

typedef struct ref_file {
    tref_trace trace;
    char path[512];
    slog_reader *reader;
    const slog_file_info *info;
    tref_rng rng;
} ref_file;

/* Generate configuration @p i, write it and open it. */
static void ref_open(ref_file *f, int i, const char *tag)
{
    const ref_config *c = &configs[i];
    const tref_params p = {.seed = 0x5109u + (uint64_t)i * 7919u,
                         .timelines = c->timelines,
                         .states = c->states,
                         .events = c->events,
                         .arrows = c->arrows,
                         .counters = c->counters,
                         .state_categories = c->cats,
                         .max_depth = c->depth,
                         .base = c->base,
                         .span = c->span,
                         .args_percent = c->args_percent};
    memset(f, 0, sizeof *f);
    ck_assert_int_eq(tref_generate(&f->trace, &p), 0);
    snprintf(f->path, sizeof f->path, "%s/%s_%d_%d.slog", tmpdir, tag, i, (int)getpid());
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = c->leaf_bytes;
    o.fanout = c->fanout;
    o.creator = "check_query_reference";
    slog_error err;
    memset(&err, 0xff, sizeof err);
    const int rc = tref_write(&f->trace, f->path, &o, c->order, p.seed ^ 0xabcdu, true, &err);
    ck_assert_msg(rc == SLOG_OK, "config %d: writing failed: %s: %s", i, slog_status_name(rc),
                  err.message);
    memset(&err, 0xff, sizeof err);
    const int ro = slog_reader_open(&f->reader, f->path, NULL, &err);
    ck_assert_msg(ro == SLOG_OK, "config %d: open failed: %s: %s", i, slog_status_name(ro),
                  err.message);
    f->info = slog_reader_info(f->reader);
    ck_assert_ptr_nonnull(f->info);
    tref_rng_seed(&f->rng, p.seed * 31u + 7u);
}

static void ref_close(ref_file *f)
{
    slog_reader_destroy(f->reader);
    remove(f->path);
    tref_free(&f->trace);
}

/* A random window: uniform, aligned on drawable edges, one tick wide, whole
 * range or outside the trace.  t1 > t0 always. */
static void random_window(ref_file *f, int64_t *t0, int64_t *t1)
{
    const tref_trace *t = &f->trace;
    const int64_t span = t->end - t->start + 1;
    const tref_item *a = &t->items[tref_rng_below(&f->rng, t->nitems)];
    const tref_item *b = &t->items[tref_rng_below(&f->rng, t->nitems)];
    const int64_t w = 1 + (int64_t)(tref_rng_next(&f->rng) >> (1 + tref_rng_below(&f->rng, 63))) %
                              (span + span / 5);
    switch (tref_rng_below(&f->rng, 8)) {
    case 0:
    case 1:
    case 2:
        *t0 = tref_rng_range(&f->rng, t->start - span / 10, t->end + span / 10);
        *t1 = *t0 + w;
        break;
    case 3: /* both edges on drawable edges */
        *t0 = tref_rng_chance(&f->rng, 50) ? a->start : a->end;
        *t1 = tref_rng_chance(&f->rng, 50) ? b->start : b->end;
        if (*t1 < *t0) {
            const int64_t x = *t0;
            *t0 = *t1;
            *t1 = x;
        }
        if (*t1 == *t0) {
            *t1 = *t0 + 1;
        }
        break;
    case 4: /* window ends where a drawable starts, or starts where it ends */
        if (tref_rng_chance(&f->rng, 50)) {
            *t1 = a->start;
            *t0 = *t1 - w;
        } else {
            *t0 = a->end;
            *t1 = *t0 + w;
        }
        break;
    case 5: /* one tick */
        *t0 = tref_rng_chance(&f->rng, 50) ? a->start : a->end;
        *t1 = *t0 + 1;
        break;
    case 6:
        *t0 = t->start;
        *t1 = t->end + 1;
        break;
    default: /* outside the trace */
        if (tref_rng_chance(&f->rng, 50)) {
            *t0 = t->end + 1;
            *t1 = *t0 + w;
        } else {
            *t1 = t->start;
            *t0 = *t1 - w;
        }
        break;
    }
}

/* Expected items (pointers into the trace) for @p q at full detail, sorted by key. */
static const tref_item **expected_items(const tref_trace *t, const slog_query_options *q, size_t *n)
{
    const tref_item **out = malloc((t->nitems + 1) * sizeof *out);
    ck_assert_ptr_nonnull(out);
    size_t k = 0;
    for (size_t i = 0; i < t->nitems; i++) {
        const tref_item *it = &t->items[i];
        if (tref_overlaps(it->start, it->end, q->t0, q->t1) && tref_item_matches(it, q)) {
            out[k++] = it;
        }
    }
    *n = k;
    return out;
}

static int cmp_item_key(const void *a, const void *b)
{
    return strcmp((*(const tref_item *const *)a)->key, (*(const tref_item *const *)b)->key);
}

static char **keys_of(const tref_item **items, size_t n)
{
    char **keys = malloc((n + 1) * sizeof *keys);
    ck_assert_ptr_nonnull(keys);
    for (size_t i = 0; i < n; i++) {
        keys[i] = items[i]->key;
    }
    return keys;
}

/* Guarantee 1: the query's drawables are exactly the reference's. */
static void assert_exact(ref_file *f, const slog_query_options *q, tref_result *res)
{
    tref_run_query(f->reader, q, res);
    ck_assert_msg(res->status == SLOG_END, "query [%lld,%lld) failed: %s: %s", (long long)q->t0,
                  (long long)q->t1, slog_status_name(res->status), res->err.message);
    ck_assert_msg(res->npreviews == 0, "resolution 0 returned %zu previews", res->npreviews);
    size_t n = 0;
    const tref_item **exp = expected_items(&f->trace, q, &n);
    qsort(exp, n, sizeof *exp, cmp_item_key);
    char **ek = keys_of(exp, n);
    tref_sort_keys(res->keys, res->nkeys);
    char msg[1024];
    const bool same = tref_same_keys(res->keys, res->nkeys, ek, n, msg, sizeof msg);
    ck_assert_msg(same, "window [%lld,%lld) kinds %#x ntl %u ncat %u: %s", (long long)q->t0,
                  (long long)q->t1, q->kinds, q->ntimelines, q->ncategories, msg);
    ck_assert_uint_eq(res->stats.items, res->nkeys);
    free(ek);
    free(exp);
}

/* Guarantee 2: every node the query needed has a box meeting [t0, t1]. */
static void assert_nodes_in_window(ref_file *f, const slog_query_options *q, const tref_result *res)
{
    for (size_t i = 0; i < res->nread; i++) {
        slog_node_info ni;
        ck_assert_int_eq(slog_reader_node(f->reader, res->read_nodes[i], &ni), SLOG_OK);
        ck_assert_msg(ni.start <= q->t1 && ni.end >= q->t0,
                      "window [%lld,%lld): read node %llu (level %u) with box [%lld,%lld]",
                      (long long)q->t0, (long long)q->t1, (unsigned long long)ni.index, ni.level,
                      (long long)ni.start, (long long)ni.end);
    }
    ck_assert_uint_le(res->stats.cache_hits, res->stats.nodes_read);
    ck_assert_uint_le(res->nread, res->stats.nodes_read);
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The distinct nodes among the blobs a query read. */
static size_t distinct_reads(const tref_result *res)
{
    uint64_t *v = malloc((res->nread + 1) * sizeof *v);
    ck_assert_ptr_nonnull(v);
    if (res->nread > 0) { /* read_nodes is NULL when nothing was read */
        memcpy(v, res->read_nodes, res->nread * sizeof *v);
        qsort(v, res->nread, sizeof *v, cmp_u64);
    }
    size_t n = 0;
    for (size_t i = 0; i < res->nread; i++) {
        n += i == 0 || v[i] != v[i - 1];
    }
    free(v);
    return n;
}

/* ---- tests: file info and metadata ------------------------------------------------ */

/* The file info's counts, range, options and tree shape. */
static void assert_info_header(const ref_file *f, int config)
{
    const tref_trace *t = &f->trace;
    const slog_file_info *in = f->info;
    ck_assert(in->complete);
    ck_assert_uint_eq(in->states, t->count[SLOG_KIND_STATE]);
    ck_assert_uint_eq(in->events, t->count[SLOG_KIND_EVENT]);
    ck_assert_uint_eq(in->arrows, t->count[SLOG_KIND_ARROW]);
    ck_assert_uint_eq(in->counters, t->count[SLOG_KIND_COUNTER]);
    ck_assert_uint_eq(in->timelines, t->ntimelines);
    ck_assert_uint_eq(in->categories, t->ncategories);
    ck_assert_int_eq(in->start, t->start);
    ck_assert_int_eq(in->end, t->end);
    ck_assert_uint_eq(in->fanout, configs[config].fanout);
    ck_assert_uint_eq(in->leaf_bytes, configs[config].leaf_bytes);
    ck_assert_uint_eq(in->ticks_per_second, 1000000000u);
    ck_assert_str_eq(in->creator, "check_query_reference");
    ck_assert_uint_ge(in->depth, 2); /* small leaves: the tree has levels */
    ck_assert_uint_ge(in->nodes, in->depth);
    ck_assert_uint_gt(in->payload_bytes, 0);
    ck_assert_uint_eq(in->payload_bytes % in->leaf_bytes, 0); /* decoded /payload in use: whole chunks */
}

/* Every timeline and category as written; one past the last is EINVAL. */
static void assert_tables(const ref_file *f)
{
    const tref_trace *t = &f->trace;
    for (uint32_t i = 0; i < t->ntimelines; i++) {
        slog_timeline_info ti;
        ck_assert_int_eq(slog_reader_timeline(f->reader, i, &ti), SLOG_OK);
        ck_assert_uint_eq(ti.id, i);
        ck_assert_uint_eq(ti.parent, t->parent[i]);
        ck_assert_int_eq(ti.kind, t->tkind[i]);
        ck_assert_int_eq(ti.sort_key, i);
        ck_assert_ptr_nonnull(ti.name);
    }
    slog_timeline_info ti;
    ck_assert_int_eq(slog_reader_timeline(f->reader, t->ntimelines, &ti), SLOG_EINVAL);
    for (uint32_t c = 0; c < t->ncategories; c++) {
        slog_category_info ci;
        char name[32];
        snprintf(name, sizeof name, "cat %u", c);
        ck_assert_int_eq(slog_reader_category(f->reader, c, &ci), SLOG_OK);
        ck_assert_uint_eq(ci.id, c);
        ck_assert_int_eq(ci.kind, t->ckind[c]);
        ck_assert_uint_eq(ci.rgba, 0x10203000u + c);
        ck_assert_str_eq(ci.name, name);
        ck_assert_str_eq(ci.group, c % 3 == 0 ? "grp" : "");
    }
    slog_category_info ci;
    ck_assert_int_eq(slog_reader_category(f->reader, t->ncategories, &ci), SLOG_EINVAL);
}

/* Node table: post-order, subtrees nest, the root spans the trace, the
 * nodes' counts add up to the trace's. */
static void assert_node_table(const ref_file *f)
{
    const tref_trace *t = &f->trace;
    const slog_file_info *in = f->info;
    uint64_t total[4] = {0};
    for (uint64_t i = 0; i < in->nodes; i++) {
        slog_node_info ni;
        ck_assert_int_eq(slog_reader_node(f->reader, i, &ni), SLOG_OK);
        ck_assert_uint_eq(ni.index, i);
        ck_assert_uint_ge(ni.subtree_nodes, 1);
        ck_assert_uint_le(ni.subtree_nodes, i + 1);
        ck_assert_int_le(ni.start, ni.end);
        for (int k = 0; k < 4; k++) {
            total[k] += ni.counts[k];
        }
    }
    slog_node_info root;
    ck_assert_int_eq(slog_reader_node(f->reader, in->nodes - 1, &root), SLOG_OK);
    ck_assert_uint_eq(root.subtree_nodes, in->nodes);
    ck_assert_uint_eq(root.level + 1, in->depth);
    ck_assert_int_eq(root.start, t->start);
    ck_assert_int_eq(root.end, t->end);
    ck_assert_int_eq(slog_reader_node(f->reader, in->nodes, &root), SLOG_EINVAL);
    for (int k = 0; k < 4; k++) {
        ck_assert_uint_eq(total[k], t->count[k]);
    }
}

START_TEST(test_query_reference_info_matches_trace)
{
    ref_file f;
    ref_open(&f, _i, "info");
    assert_info_header(&f, _i);
    assert_tables(&f);
    assert_node_table(&f);
    ref_close(&f);
}
END_TEST

START_TEST(test_query_reference_fold_row_follows_hierarchy)
{
    ref_file f;
    ref_open(&f, _i, "fold");
    for (uint32_t tl = 0; tl < f.trace.ntimelines; tl++) {
        for (uint32_t fold = 0; fold < 6; fold++) {
            ck_assert_msg(slog_reader_fold_row(f.reader, tl, fold) ==
                              tref_fold_row(&f.trace, tl, fold),
                          "timeline %u fold %u: got row %u, expected %u", tl, fold,
                          slog_reader_fold_row(f.reader, tl, fold), tref_fold_row(&f.trace, tl, fold));
        }
    }
    ref_close(&f);
}
END_TEST

/* ---- guarantee 1 --------------------------------------------------------------------- */

START_TEST(test_query_reference_full_range_returns_everything)
{
    ref_file f;
    ref_open(&f, _i, "full");
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.flags = SLOG_QUERY_ARGS;
    q.t0 = INT64_MIN;
    q.t1 = INT64_MAX;
    tref_result res;
    assert_exact(&f, &q, &res);
    ck_assert_uint_eq(res.nkeys, f.trace.nitems);
    tref_result_free(&res);
    ref_close(&f);
}
END_TEST

START_TEST(test_query_reference_window_returns_exactly_overlapping)
{
    ref_file f;
    ref_open(&f, _i, "win");
    for (int w = 0; w < 60; w++) {
        slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
        q.flags = SLOG_QUERY_ARGS;
        random_window(&f, &q.t0, &q.t1);
        tref_result res;
        assert_exact(&f, &q, &res);
        tref_result_free(&res);
    }
    ref_close(&f);
}
END_TEST

static uint32_t *random_subset(tref_rng *r, uint32_t n, uint32_t *count)
{
    const uint32_t k = 1 + (uint32_t)tref_rng_below(r, n < 6 ? n : 6);
    uint32_t *set = malloc(k * sizeof *set);
    ck_assert_ptr_nonnull(set);
    for (uint32_t i = 0; i < k; i++) {
        set[i] = (uint32_t)tref_rng_below(r, n); /* duplicates allowed */
    }
    *count = k;
    return set;
}

START_TEST(test_query_reference_filters_select_exactly)
{
    ref_file f;
    ref_open(&f, _i, "filt");
    for (int w = 0; w < 40; w++) {
        slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
        q.flags = SLOG_QUERY_ARGS;
        random_window(&f, &q.t0, &q.t1);
        uint32_t *tls = NULL, *cats = NULL;
        const uint64_t what = tref_rng_below(&f.rng, 8);
        if (what & 1) {
            tls = random_subset(&f.rng, f.trace.ntimelines, &q.ntimelines);
            q.timelines = tls;
        }
        if (what & 2) {
            cats = random_subset(&f.rng, f.trace.ncategories, &q.ncategories);
            q.categories = cats;
        }
        if ((what & 4) || what == 0) {
            q.kinds = (uint32_t)tref_rng_below(&f.rng, 16) | 1u << SLOG_KIND_PREVIEW;
        }
        tref_result res;
        assert_exact(&f, &q, &res);
        for (size_t i = 0; i < res.nkeys; i++) {
            ck_assert(q.kinds == 0 || (q.kinds & 1u << res.items[i].kind));
        }
        tref_result_free(&res);
        free(tls);
        free(cats);
    }
    ref_close(&f);
}
END_TEST

/* ---- guarantee 2 ---------------------------------------------------------------------- */

START_TEST(test_query_reference_reads_only_nodes_meeting_window)
{
    ref_file f;
    ref_open(&f, _i, "nodes");
    for (int w = 0; w < 60; w++) {
        slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
        q.flags = SLOG_QUERY_ARGS;
        random_window(&f, &q.t0, &q.t1);
        if (w % 2) {
            q.resolution = 1 + (q.t1 - q.t0) / (int64_t)(1 + tref_rng_below(&f.rng, 1000));
        }
        tref_result res;
        tref_run_query(f.reader, &q, &res);
        ck_assert_int_eq(res.status, SLOG_END);
        assert_nodes_in_window(&f, &q, &res);
        if (q.t0 > f.trace.end || q.t1 <= f.trace.start) {
            ck_assert_uint_eq(res.nkeys + res.npreviews, 0);
            ck_assert_uint_eq(res.nread, 0);
            ck_assert_uint_eq(res.stats.bytes_read, 0);
        }
        tref_result_free(&res);
    }
    ref_close(&f);
}
END_TEST

/* A trace with a hole [gap_lo, gap_hi) that only a few nested states on one
 * extra timeline span: a query inside the hole reads only nodes whose box
 * touches it, and returns exactly the spanning states. */
START_TEST(test_query_reference_gap_reads_only_touching_nodes)
{
    const uint32_t spanning = (uint32_t)(_i % 3) * 2; /* 0, 2, 4 */
    const tref_params p = {.seed = 77u + (uint64_t)_i,
                         .timelines = 1 + (uint32_t)_i * 20,
                         .states = 6000,
                         .events = 300,
                         .arrows = 200,
                         .counters = 300,
                         .state_categories = 4,
                         .max_depth = 5,
                         .base = 0,
                         .span = 10000000,
                         .args_percent = 10,
                         .gap_lo = 4000000,
                         .gap_hi = 6000000,
                         .gap_spanning = spanning};
    ref_file f;
    memset(&f, 0, sizeof f);
    ck_assert_int_eq(tref_generate(&f.trace, &p), 0);
    snprintf(f.path, sizeof f.path, "%s/gap_%d_%d.slog", tmpdir, _i, (int)getpid());
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 1024;
    o.fanout = 2 + (uint32_t)_i;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    ck_assert_int_eq(tref_write(&f.trace, f.path, &o, (tref_order)(_i % 4), 5, true, &err), SLOG_OK);
    ck_assert_int_eq(slog_reader_open(&f.reader, f.path, NULL, &err), SLOG_OK);
    f.info = slog_reader_info(f.reader);
    tref_rng_seed(&f.rng, 99);
    /* Nodes whose box touches the hole, and all nodes. */
    for (int w = 0; w < 20; w++) {
        slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
        q.flags = SLOG_QUERY_ARGS;
        q.t0 = tref_rng_range(&f.rng, p.gap_lo, p.gap_hi - 2);
        q.t1 = tref_rng_range(&f.rng, q.t0 + 1, p.gap_hi);
        q.resolution = w % 2 ? 0 : (q.t1 - q.t0) / 1000 + 1;
        uint64_t touching = 0;
        for (uint64_t i = 0; i < f.info->nodes; i++) {
            slog_node_info ni;
            ck_assert_int_eq(slog_reader_node(f.reader, i, &ni), SLOG_OK);
            touching += ni.start <= q.t1 && ni.end >= q.t0;
        }
        tref_result res;
        if (q.resolution == 0) {
            assert_exact(&f, &q, &res);
            ck_assert_uint_eq(res.nkeys, spanning);
        } else {
            tref_run_query(f.reader, &q, &res);
            ck_assert_int_eq(res.status, SLOG_END);
        }
        assert_nodes_in_window(&f, &q, &res);
        ck_assert_uint_le(res.nread, touching);
        if (_i % 4 == TR_ORDER_END || _i % 4 == TR_ORDER_BEGIN_END) {
            /* Children-first input: boxes stay tight, few nodes meet the hole. */
            ck_assert_uint_lt(touching, f.info->nodes / 2);
        }
        tref_result_free(&res);
    }
    ref_close(&f);
}
END_TEST

/* ---- guarantee 4 ------------------------------------------------------------------------ */

static bool preview_covers(const tref_trace *t, const slog_preview *p, const tref_item *it)
{
    if (p->of != it->kind || p->start > it->start || p->end < it->end) {
        return false;
    }
    if (p->category != SLOG_CATEGORY_OTHER && p->category != it->category) {
        return false;
    }
    if (tref_fold_row(t, it->timeline, p->fold) != p->row) {
        return false;
    }
    return it->kind != SLOG_KIND_ARROW || tref_fold_row(t, it->to, p->fold) == p->row_to;
}

static bool valid_row(const tref_trace *t, uint32_t row, uint32_t fold)
{
    for (uint32_t tl = 0; tl < t->ntimelines; tl++) {
        if (tref_fold_row(t, tl, fold) == row) {
            return true;
        }
    }
    return false;
}

static void assert_preview_sane(const tref_trace *t, const slog_query_options *q,
                                const slog_preview *p)
{
    ck_assert_msg(p->of <= SLOG_KIND_COUNTER, "preview of kind %d", (int)p->of);
    ck_assert_msg(p->start <= q->t1 && p->end >= q->t0,
                  "preview box [%lld,%lld] outside window [%lld,%lld]", (long long)p->start,
                  (long long)p->end, (long long)q->t0, (long long)q->t1);
    ck_assert_uint_ge(p->count, 1);
    ck_assert_msg(valid_row(t, p->row, p->fold), "preview row %u fold %u names no timeline group",
                  p->row, p->fold);
    if (p->of == SLOG_KIND_ARROW) {
        ck_assert(valid_row(t, p->row_to, p->fold));
    } else {
        ck_assert_uint_eq(p->row_to, p->row);
    }
    if (p->category != SLOG_CATEGORY_OTHER) {
        ck_assert_uint_lt(p->category, t->ncategories);
        ck_assert_int_eq(t->ckind[p->category], p->of);
    }
    if (p->of == SLOG_KIND_STATE) {
        ck_assert_int_ge(p->min, 0);
        ck_assert_int_le(p->min, p->max);
        ck_assert_int_le(p->max, p->end - p->start);
        ck_assert((wide)p->min * (wide)p->count <= (wide)p->inclusive);
        ck_assert((wide)p->inclusive <= (wide)p->max * (wide)p->count);
        ck_assert_int_ge(p->exclusive, 0);
        ck_assert_int_le(p->exclusive, p->inclusive);
    } else if (p->of == SLOG_KIND_ARROW) {
        ck_assert_int_ge(p->min, 0);
        ck_assert_int_le(p->min, p->max);
    } else if (p->of == SLOG_KIND_COUNTER) {
        ck_assert(p->vmin <= p->vmax);
        ck_assert(p->vmin <= p->vlast && p->vlast <= p->vmax);
    }
}

/* Does a pixel run hold the reference drawable @p it (same kind and row,
 * its span, a share of its category)? */
static bool run_covers(const slog_run *r, const tref_item *it)
{
    if (r->of != it->kind || r->timeline != it->timeline || it->start < r->start ||
        it->end > r->end) {
        return false;
    }
    if ((it->kind == SLOG_KIND_STATE && r->depth != it->depth) ||
        (it->kind == SLOG_KIND_ARROW && r->timeline_to != it->to)) {
        return false;
    }
    for (uint32_t c = 0; c < r->ncategories; c++) {
        if (r->categories[c].category == it->category) {
            return true;
        }
    }
    return false;
}

/* Previews and real drawables account exactly for the window: real ones are
 * overlapping reference drawables (each at most once), every other
 * overlapping drawable sits inside a preview of its row and category, and
 * counts add up between the overlap and the whole trace. */
static void assert_accounts(ref_file *f, const slog_query_options *q, tref_result *res)
{
    const tref_trace *t = &f->trace;
    const bool filtered = q->timelines || q->categories;
    size_t n = 0;
    const tref_item **exp = expected_items(t, q, &n);
    qsort(exp, n, sizeof *exp, cmp_item_key);
    tref_sort_keys(res->keys, res->nkeys);
    uint64_t got[4] = {0}, want[4] = {0}, summed[4] = {0}, all[4] = {0};
    size_t i = 0, j = 0;
    while (i < res->nkeys || j < n) {
        const int c = i == res->nkeys ? 1 : j == n ? -1 : strcmp(res->keys[i], exp[j]->key);
        ck_assert_msg(c >= 0, "window [%lld,%lld) res %lld: returned %s, which does not overlap "
                              "or match (or is returned twice)",
                      (long long)q->t0, (long long)q->t1, (long long)q->resolution, res->keys[i]);
        if (c == 0) {
            got[exp[j]->kind]++;
            i++;
        } else {
            bool covered = false;
            for (size_t k = 0; k < res->npreviews && !covered; k++) {
                covered = preview_covers(t, &res->previews[k], exp[j]);
            }
            for (size_t k = 0; k < res->nruns && !covered; k++) {
                covered = run_covers(&res->runs[k], exp[j]);
            }
            ck_assert_msg(covered, "window [%lld,%lld) res %lld: %s neither returned nor inside a "
                                   "preview or a pixel run",
                          (long long)q->t0, (long long)q->t1, (long long)q->resolution,
                          exp[j]->key);
        }
        want[exp[j]->kind]++;
        j++;
    }
    for (size_t k = 0; k < res->npreviews; k++) {
        assert_preview_sane(t, q, &res->previews[k]);
        summed[res->previews[k].of] += res->previews[k].count;
    }
    for (size_t k = 0; k < res->nruns; k++) {
        summed[res->runs[k].of] += res->runs[k].count;
    }
    for (size_t k = 0; k < t->nitems; k++) {
        all[t->items[k].kind] += tref_item_matches(&t->items[k], q);
    }
    for (int k = 0; k < 4; k++) {
        if (q->kinds != 0 && !(q->kinds & 1u << k)) {
            continue;
        }
        ck_assert_msg(got[k] + summed[k] >= want[k], "kind %d: %llu real + %llu previewed < %llu "
                                                     "overlapping",
                      k, (unsigned long long)got[k], (unsigned long long)summed[k],
                      (unsigned long long)want[k]);
        if (!filtered) {
            ck_assert_msg(got[k] + summed[k] <= all[k], "kind %d: %llu real + %llu previewed > "
                                                        "%llu in the trace",
                          k, (unsigned long long)got[k], (unsigned long long)summed[k],
                          (unsigned long long)all[k]);
        }
    }
    free(exp);
}

/* The read node a preview comes from: the narrowest read node whose box
 * holds the preview's box (a node's preview has its box, or lies inside it
 * when it is summed from the node's time bins, per pixel); UINT64_MAX when
 * two read nodes are equally narrow. */
static uint64_t preview_owner(ref_file *f, const tref_result *res, const slog_preview *p)
{
    uint64_t owner = UINT64_MAX, width = UINT64_MAX;
    int found = 0;
    bool tie = false;
    for (size_t i = 0; i < res->nread; i++) {
        slog_node_info ni;
        ck_assert_int_eq(slog_reader_node(f->reader, res->read_nodes[i], &ni), SLOG_OK);
        if (ni.start > p->start || ni.end < p->end) {
            continue;
        }
        const uint64_t w = (uint64_t)ni.end - (uint64_t)ni.start;
        found++;
        if (w < width) {
            width = w;
            owner = ni.index;
            tie = false;
        } else if (w == width && ni.index != owner) {
            tie = true;
        }
    }
    ck_assert_msg(found > 0, "preview box [%lld,%lld] is no node the query read",
                  (long long)p->start, (long long)p->end);
    return tie ? UINT64_MAX : owner;
}

/* Without filters, the previews of one node add up to the drawables its
 * subtree holds according to the node table. */
static void assert_previews_match_subtrees(ref_file *f, const tref_result *res)
{
    uint64_t *const owner = calloc(res->npreviews + 1, sizeof *owner);
    ck_assert_ptr_nonnull(owner);
    for (size_t k = 0; k < res->npreviews; k++) {
        owner[k] = preview_owner(f, res, &res->previews[k]);
    }
    for (size_t k = 0; k < res->npreviews; k++) {
        const uint64_t match = owner[k];
        if (match == UINT64_MAX) {
            continue; /* two nodes with one box: cannot tell which */
        }
        slog_node_info root;
        ck_assert_int_eq(slog_reader_node(f->reader, match, &root), SLOG_OK);
        uint64_t nodes[4] = {0}, previewed[4] = {0};
        for (uint64_t x = match + 1 - root.subtree_nodes; x <= match; x++) {
            slog_node_info ni;
            ck_assert_int_eq(slog_reader_node(f->reader, x, &ni), SLOG_OK);
            for (int kind = 0; kind < 4; kind++) {
                nodes[kind] += ni.counts[kind];
            }
        }
        for (size_t m = 0; m < res->npreviews; m++) {
            if (owner[m] == match) {
                previewed[res->previews[m].of] += res->previews[m].count;
            }
        }
        for (int kind = 0; kind < 4; kind++) {
            if (kind == SLOG_KIND_COUNTER && previewed[kind] == 0 && root.subtree_nodes == 1) {
                continue; /* a leaf whose previews mix counters: its samples came instead */
            }
            ck_assert_msg(previewed[kind] == nodes[kind],
                          "node %llu [%lld,%lld]: previews count %llu of kind %d, subtree holds "
                          "%llu",
                          (unsigned long long)match, (long long)root.start, (long long)root.end,
                          (unsigned long long)previewed[kind], kind,
                          (unsigned long long)nodes[kind]);
        }
    }
    free(owner);
}

START_TEST(test_query_reference_previews_account_for_window)
{
    ref_file f;
    ref_open(&f, _i, "acct");
    size_t previews = 0;
    for (int w = 0; w < 60; w++) {
        slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
        q.flags = SLOG_QUERY_ARGS;
        random_window(&f, &q.t0, &q.t1);
        static const int64_t pixels[] = {1, 3, 10, 100, 1000};
        q.resolution = 1 + (q.t1 - q.t0) / pixels[tref_rng_below(&f.rng, 5)];
        tref_result res;
        tref_run_query(f.reader, &q, &res);
        ck_assert_msg(res.status == SLOG_END, "query failed: %s: %s",
                      slog_status_name(res.status), res.err.message);
        assert_accounts(&f, &q, &res);
        assert_nodes_in_window(&f, &q, &res);
        assert_previews_match_subtrees(&f, &res);
        previews += res.npreviews;
        tref_result_free(&res);
    }
    ck_assert_uint_gt(previews, 0); /* the check above was exercised */
    ref_close(&f);
}
END_TEST

START_TEST(test_query_reference_previews_respect_filters)
{
    ref_file f;
    ref_open(&f, _i, "pfilt");
    for (int w = 0; w < 40; w++) {
        slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
        q.flags = SLOG_QUERY_ARGS;
        random_window(&f, &q.t0, &q.t1);
        q.resolution = 1 + (q.t1 - q.t0) / 100;
        uint32_t *tls = NULL, *cats = NULL;
        if (w % 2) {
            tls = random_subset(&f.rng, f.trace.ntimelines, &q.ntimelines);
            q.timelines = tls;
        } else {
            cats = random_subset(&f.rng, f.trace.ncategories, &q.ncategories);
            q.categories = cats;
        }
        tref_result res;
        tref_run_query(f.reader, &q, &res);
        ck_assert_int_eq(res.status, SLOG_END);
        assert_accounts(&f, &q, &res);
        for (size_t k = 0; cats && k < res.npreviews; k++) {
            const uint32_t c = res.previews[k].category;
            bool listed = c == SLOG_CATEGORY_OTHER;
            for (uint32_t m = 0; m < q.ncategories; m++) {
                listed = listed || cats[m] == c;
            }
            ck_assert_msg(listed, "preview of category %u, not in the filter", c);
        }
        tref_result_free(&res);
        free(tls);
        free(cats);
    }
    ref_close(&f);
}
END_TEST

/* Over the whole trace, previews (whole subtrees), pixel runs and real
 * drawables partition every drawable, at any resolution: per (kind,
 * category) the previews' and runs' counts plus the real drawables equal
 * the trace's count, and
 * for states the inclusive time, min and max agree exactly too. */
/* Per-category totals that previews, runs and real drawables must add up to. */
typedef struct cat_total {
    uint64_t n;
    int64_t incl, min, max;
} cat_total;

static void cat_totals_reset(cat_total *t, uint32_t nc)
{
    for (uint32_t c = 0; c < nc; c++) {
        t[c] = (cat_total){0, 0, INT64_MAX, INT64_MIN};
    }
}

static void cat_total_add(cat_total *t, uint64_t n, int64_t incl, int64_t min, int64_t max)
{
    t->n += n;
    t->incl += incl;
    t->min = min < t->min ? min : t->min;
    t->max = max > t->max ? max : t->max;
}

/* Category and duration of a real drawable (0 for points). */
static uint32_t item_category(const slog_item *it, int64_t *dur)
{
    *dur = 0;
    switch (it->kind) {
    case SLOG_KIND_STATE:
        *dur = it->u.state.end - it->u.state.start;
        return it->u.state.category;
    case SLOG_KIND_EVENT:
        return it->u.event.category;
    case SLOG_KIND_ARROW:
        *dur = it->u.arrow.end - it->u.arrow.start;
        return it->u.arrow.category;
    default:
        return it->u.counter.category;
    }
}

/* Add what one query returned: previews (noting kinds folded into "other"),
 * pixel runs by their category shares, and real drawables. */
static void add_query_result(const tref_result *res, uint32_t nc, cat_total *got,
                             uint64_t kind_n[4], bool other[4])
{
    for (size_t i = 0; i < res->npreviews; i++) {
        const slog_preview *p = &res->previews[i];
        kind_n[p->of] += p->count;
        if (p->category == SLOG_CATEGORY_OTHER) {
            other[p->of] = true;
            continue;
        }
        cat_total_add(&got[p->category], p->count, p->inclusive, p->min, p->max);
    }
    for (size_t i = 0; i < res->nruns; i++) {
        const slog_run *r = &res->runs[i];
        kind_n[r->of] += r->count;
        for (uint32_t m = 0; m < r->ncategories; m++) {
            const slog_run_share *sh = &r->categories[m];
            ck_assert_uint_lt(sh->category, nc);
            cat_total_add(&got[sh->category], sh->count, sh->inclusive, sh->min, sh->max);
        }
    }
    for (size_t i = 0; i < res->nkeys; i++) {
        int64_t d;
        const uint32_t c = item_category(&res->items[i], &d);
        ck_assert_uint_lt(c, nc);
        kind_n[res->items[i].kind]++;
        cat_total_add(&got[c], 1, d, d, d);
    }
}

static void check_totals(const tref_trace *t, int64_t pixels, const cat_total *want,
                         const cat_total *got, const uint64_t kind_n[4], const bool other[4])
{
    for (int kind = 0; kind < 4; kind++) {
        ck_assert_msg(kind_n[kind] == t->count[kind],
                      "%lld pixels: kind %d: %llu previewed + real, %llu in the trace",
                      (long long)pixels, kind, (unsigned long long)kind_n[kind],
                      (unsigned long long)t->count[kind]);
    }
    for (uint32_t c = 0; c < t->ncategories; c++) {
        if (other[t->ckind[c]]) {
            continue; /* some of this kind folded into "other" */
        }
        ck_assert_msg(got[c].n == want[c].n,
                      "%lld pixels: category %u: %llu previewed + real, %llu in the trace",
                      (long long)pixels, c, (unsigned long long)got[c].n,
                      (unsigned long long)want[c].n);
        if (t->ckind[c] == SLOG_KIND_STATE && want[c].n > 0) {
            ck_assert_msg(got[c].incl == want[c].incl,
                          "%lld pixels: category %u: inclusive %lld, reference %lld",
                          (long long)pixels, c, (long long)got[c].incl, (long long)want[c].incl);
            ck_assert_int_eq(got[c].min, want[c].min);
            ck_assert_int_eq(got[c].max, want[c].max);
        }
    }
}

START_TEST(test_query_reference_previews_partition_whole_trace)
{
    ref_file f;
    ref_open(&f, _i, "part");
    const tref_trace *t = &f.trace;
    const uint32_t nc = t->ncategories;
    cat_total *want = malloc((nc + 1) * sizeof *want), *got = malloc((nc + 1) * sizeof *got);
    ck_assert(want != NULL && got != NULL);
    cat_totals_reset(want, nc);
    for (size_t i = 0; i < t->nitems; i++) {
        const tref_item *it = &t->items[i];
        const int64_t d = it->end - it->start;
        cat_total_add(&want[it->category], 1, d, d, d);
    }
    const int64_t span = t->end - t->start + 1;
    static const int64_t pixels[] = {1, 2, 3, 10, 30, 100, 1000, 10000, 100000};
    size_t previews = 0;
    for (size_t k = 0; k < sizeof pixels / sizeof pixels[0]; k++) {
        slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
        q.flags = SLOG_QUERY_ARGS;
        q.t0 = t->start;
        q.t1 = t->end + 1;
        q.resolution = span / pixels[k] > 0 ? span / pixels[k] : 1;
        tref_result res;
        tref_run_query(f.reader, &q, &res);
        ck_assert_int_eq(res.status, SLOG_END);
        previews += res.npreviews;
        bool other[4] = {false, false, false, false};
        uint64_t kind_n[4] = {0};
        cat_totals_reset(got, nc);
        add_query_result(&res, nc, got, kind_n, other);
        check_totals(t, pixels[k], want, got, kind_n, other);
        tref_result_free(&res);
    }
    ck_assert_uint_gt(previews, 0);
    free(want);
    free(got);
    ref_close(&f);
}
END_TEST

/* kinds at resolution > 0: real drawables by their bits; previews only with
 * the preview bit, of the drawable kinds asked for (all four when none). */
START_TEST(test_query_reference_kinds_select_previews)
{
    ref_file f;
    ref_open(&f, _i, "kinds");
    size_t previews = 0;
    for (int w = 0; w < 30; w++) {
        slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
        q.flags = SLOG_QUERY_ARGS;
        random_window(&f, &q.t0, &q.t1);
        static const int64_t pixels[] = {1, 2, 5, 50};
        q.resolution = 1 + (q.t1 - q.t0) / pixels[tref_rng_below(&f.rng, 4)];
        const uint32_t drawables = (uint32_t)tref_rng_below(&f.rng, 16);
        const bool with_previews = w % 3 != 0;
        q.kinds = drawables | (with_previews ? 1u << SLOG_KIND_PREVIEW : 0u);
        if (q.kinds == 0) {
            q.kinds = 1u << SLOG_KIND_STATE;
        }
        tref_result res;
        tref_run_query(f.reader, &q, &res);
        ck_assert_int_eq(res.status, SLOG_END);
        const uint32_t summarised = drawables ? drawables : 0xfu;
        for (size_t i = 0; i < res.nkeys; i++) {
            ck_assert_msg(q.kinds & 1u << res.items[i].kind, "kinds %#x: a drawable of kind %d",
                          q.kinds, (int)res.items[i].kind);
        }
        for (size_t i = 0; i < res.npreviews; i++) {
            ck_assert_msg(with_previews, "kinds %#x without the preview bit: a preview", q.kinds);
            ck_assert_msg(summarised & 1u << res.previews[i].of,
                          "kinds %#x: a preview of kind %d", q.kinds, (int)res.previews[i].of);
        }
        previews += res.npreviews;
        if (with_previews && drawables != 0) {
            /* With the preview bit, the drawable kinds asked for are fully
             * accounted (preview bit alone: previews only, no drawables). */
            slog_query_options qa = q;
            qa.kinds = summarised;
            assert_accounts(&f, &qa, &res);
        }
        tref_result_free(&res);
    }
    ck_assert_uint_gt(previews, 0);
    ref_close(&f);
}
END_TEST

/* Reference totals of one preview key. */
typedef struct key_total {
    slog_preview key;  /* of, fold, row, row_to, category */
    uint64_t count;
    int64_t inclusive, exclusive, min, max;
    double vmin, vmax, vsum;
    int64_t tlast;
    double vlast_lo, vlast_hi; /* samples at the last time may tie */
    uint64_t previewed;
    int64_t pinclusive, pexclusive, pmin, pmax;
    double pvmin, pvmax, pvsum, pvlast;
} key_total;

static bool same_key(const slog_preview *a, const slog_preview *b)
{
    return a->of == b->of && a->fold == b->fold && a->row == b->row && a->row_to == b->row_to &&
           a->category == b->category;
}

/* A new key for preview @p p, its extremes at their neutral values. */
static void key_init(key_total *kt, const slog_preview *p)
{
    kt->key = *p;
    kt->min = kt->pmin = INT64_MAX;
    kt->max = kt->pmax = INT64_MIN;
    kt->tlast = INT64_MIN;
    kt->pvmin = kt->vmin = 1e308;
    kt->pvmax = kt->vmax = -1e308;
}

/* The previews summed per key into tot (room for one key per preview);
 * returns the number of keys. */
static size_t sum_previews(const tref_trace *t, const slog_query_options *q, const tref_result *res,
                           key_total *tot)
{
    size_t nt = 0;
    for (size_t k = 0; k < res->npreviews; k++) {
        const slog_preview *p = &res->previews[k];
        assert_preview_sane(t, q, p);
        size_t x = 0;
        while (x < nt && !same_key(&tot[x].key, p)) {
            x++;
        }
        if (x == nt) {
            key_init(&tot[nt++], p);
        }
        key_total *kt = &tot[x];
        kt->previewed += p->count;
        kt->pinclusive += p->inclusive;
        kt->pexclusive += p->exclusive;
        kt->pmin = p->min < kt->pmin ? p->min : kt->pmin;
        kt->pmax = p->max > kt->pmax ? p->max : kt->pmax;
        kt->pvmin = p->vmin < kt->pvmin ? p->vmin : kt->pvmin;
        kt->pvmax = p->vmax > kt->pvmax ? p->vmax : kt->pvmax;
        kt->pvsum += p->vsum;
        kt->pvlast = p->vlast;
    }
    return nt;
}

/* The key drawable @p it belongs to: its own category if some preview of
 * its row names it, else the row's "other"; exactly one must claim it. */
static key_total *key_of_item(const tref_trace *t, const tref_item *it, key_total *tot, size_t nt)
{
    key_total *own = NULL, *other = NULL;
    int owners = 0, others = 0;
    for (size_t x = 0; x < nt; x++) {
        const slog_preview *k = &tot[x].key;
        if (k->of != it->kind || tref_fold_row(t, it->timeline, k->fold) != k->row ||
            (it->kind == SLOG_KIND_ARROW && tref_fold_row(t, it->to, k->fold) != k->row_to)) {
            continue;
        }
        if (k->category == it->category) {
            own = &tot[x];
            owners++;
        } else if (k->category == SLOG_CATEGORY_OTHER) {
            other = &tot[x];
            others++;
        }
    }
    ck_assert_msg(owners <= 1 && (owners == 1 || others == 1),
                  "%s: %d previews of its category and %d 'other' previews claim it", it->key,
                  owners, others);
    return own ? own : other;
}

/* Drawable @p it added to its key's reference totals. */
static void sum_item(key_total *kt, const tref_item *it)
{
    const int64_t d = it->end - it->start;
    kt->count++;
    kt->inclusive += d;
    kt->exclusive += it->exclusive;
    kt->min = d < kt->min ? d : kt->min;
    kt->max = d > kt->max ? d : kt->max;
    if (it->kind != SLOG_KIND_COUNTER) {
        return;
    }
    kt->vmin = it->value < kt->vmin ? it->value : kt->vmin;
    kt->vmax = it->value > kt->vmax ? it->value : kt->vmax;
    kt->vsum += it->value;
    if (it->start > kt->tlast) {
        kt->tlast = it->start;
        kt->vlast_lo = kt->vlast_hi = it->value;
    } else if (it->start == kt->tlast) {
        kt->vlast_lo = it->value < kt->vlast_lo ? it->value : kt->vlast_lo;
        kt->vlast_hi = it->value > kt->vlast_hi ? it->value : kt->vlast_hi;
    }
}

/* One key's previewed totals against the reference's (vlast only when the
 * key has one preview, which then is the node's). */
static void assert_key_total(const key_total *kt, bool children_first, bool one_preview)
{
    const slog_preview *k = &kt->key;
    ck_assert_msg(kt->previewed == kt->count,
                  "kind %d fold %u row %u->%u category %u: preview count %llu, reference %llu",
                  (int)k->of, k->fold, k->row, k->row_to, k->category,
                  (unsigned long long)kt->previewed, (unsigned long long)kt->count);
    if (k->of == SLOG_KIND_STATE || k->of == SLOG_KIND_ARROW) {
        ck_assert_int_eq(kt->pmin, kt->min);
        ck_assert_int_eq(kt->pmax, kt->max);
    }
    if (k->of == SLOG_KIND_STATE) {
        ck_assert_msg(kt->pinclusive == kt->inclusive,
                      "row %u category %u: inclusive %lld, reference %lld", k->row, k->category,
                      (long long)kt->pinclusive, (long long)kt->inclusive);
        if (children_first) {
            ck_assert_msg(kt->pexclusive == kt->exclusive,
                          "row %u category %u: exclusive %lld, reference %lld", k->row,
                          k->category, (long long)kt->pexclusive, (long long)kt->exclusive);
        }
    }
    if (k->of == SLOG_KIND_COUNTER) {
        ck_assert(kt->pvmin == kt->vmin);
        ck_assert(kt->pvmax == kt->vmax);
        const double tol = 1e-9 * (1.0 + (double)kt->count * (kt->vmax - kt->vmin + 1.0));
        ck_assert_msg(kt->pvsum - kt->vsum <= tol && kt->vsum - kt->pvsum <= tol,
                      "counter sum %.17g, reference %.17g", kt->pvsum, kt->vsum);
        if (one_preview) {
            ck_assert_msg(kt->pvlast >= kt->vlast_lo && kt->pvlast <= kt->vlast_hi,
                          "counter last %.17g, reference %.17g..%.17g", kt->pvlast,
                          kt->vlast_lo, kt->vlast_hi);
        }
    }
}

/* The root's previews (whole range, one pixel) equal the reference totals
 * per (row, category): count, inclusive, min, max exactly; exclusive when
 * states arrived children first; counters min/max/count exactly, sum to
 * rounding, last among the samples at the last time. */
START_TEST(test_query_reference_root_previews_equal_totals)
{
    ref_file f;
    ref_open(&f, _i, "root");
    const tref_trace *t = &f.trace;
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.flags = SLOG_QUERY_ARGS;
    q.t0 = t->start;
    q.t1 = t->end + 1;
    q.resolution = 4 * (t->end - t->start + 1);
    tref_result res;
    tref_run_query(f.reader, &q, &res);
    ck_assert_int_eq(res.status, SLOG_END);
    ck_assert_msg(res.nkeys == 0, "one-pixel query of the whole trace returned %zu drawables",
                  res.nkeys);
    ck_assert_uint_gt(res.npreviews, 0);
    key_total *tot = calloc(res.npreviews, sizeof *tot);
    ck_assert_ptr_nonnull(tot);
    const size_t nt = sum_previews(t, &q, &res, tot);
    for (size_t i = 0; i < t->nitems; i++) {
        sum_item(key_of_item(t, &t->items[i], tot, nt), &t->items[i]);
    }
    const bool children_first =
        configs[_i].order == TR_ORDER_END || configs[_i].order == TR_ORDER_BEGIN_END;
    for (size_t x = 0; x < nt; x++) {
        assert_key_total(&tot[x], children_first, res.npreviews == nt);
    }
    free(tot);
    tref_result_free(&res);
    ref_close(&f);
}
END_TEST

/* ---- node cache and statistics (issue 2 item 11) ------------------------------------------- */

/* A repeated query on the same reader is answered from the node cache:
 * same items, every needed blob a hit, nothing read from the file. */
START_TEST(test_query_reference_repeated_query_hits_cache)
{
    ref_file f;
    ref_open(&f, _i, "cache");
    for (int w = 0; w < 20; w++) {
        slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
        q.flags = SLOG_QUERY_ARGS;
        random_window(&f, &q.t0, &q.t1);
        q.resolution = w % 2 ? 0 : 1 + (q.t1 - q.t0) / 500;
        tref_result first, second;
        tref_run_query(f.reader, &q, &first);
        tref_run_query(f.reader, &q, &second);
        ck_assert_int_eq(first.status, SLOG_END);
        ck_assert_int_eq(second.status, SLOG_END);
        tref_sort_keys(first.keys, first.nkeys);
        tref_sort_keys(second.keys, second.nkeys);
        char msg[1024];
        ck_assert_msg(tref_same_keys(second.keys, second.nkeys, first.keys, first.nkeys, msg,
                                     sizeof msg),
                      "repeated query differs: %s", msg);
        ck_assert_uint_eq(second.npreviews, first.npreviews);
        ck_assert_uint_eq(second.stats.nodes_read, first.stats.nodes_read);
        ck_assert_uint_eq(second.stats.cache_hits, second.stats.nodes_read);
        ck_assert_uint_eq(second.stats.bytes_read, 0);
        if (first.stats.nodes_read > first.stats.cache_hits) {
            ck_assert_uint_gt(first.stats.bytes_read, 0);
            ck_assert_uint_gt(first.stats.bytes_decoded, 0);
        }
        /* a node may need two blobs (a leaf's preview, then its counters) */
        ck_assert_uint_ge(first.stats.nodes_visited, distinct_reads(&first));
        tref_result_free(&first);
        tref_result_free(&second);
    }
    ref_close(&f);
}
END_TEST

/* A reader whose cache holds (almost) nothing still answers exactly. */
START_TEST(test_query_reference_tiny_cache_still_exact)
{
    ref_file f;
    ref_open(&f, _i, "tiny");
    slog_reader *tiny = NULL;
    slog_reader_options ro = SLOG_READER_OPTIONS_INIT;
    ro.cache_bytes = 1;
    slog_error err;
    ck_assert_int_eq(slog_reader_open(&tiny, f.path, &ro, &err), SLOG_OK);
    slog_reader *const big = f.reader;
    f.reader = tiny;
    for (int w = 0; w < 15; w++) {
        slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
        q.flags = SLOG_QUERY_ARGS;
        random_window(&f, &q.t0, &q.t1);
        for (int rep = 0; rep < 2; rep++) {
            tref_result res;
            assert_exact(&f, &q, &res);
            tref_result_free(&res);
        }
    }
    f.reader = big;
    slog_reader_destroy(tiny);
    ref_close(&f);
}
END_TEST

/* ---- guarantee 3 ------------------------------------------------------------------------- */

/* Nested states of equal density on 16 timelines: blocks of 7 states (a
 * call with two calls with two calls each) of 7000 ticks, children first. */
static void write_dense(const char *path, uint32_t states)
{
    slog_writer *w = NULL;
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 4096;
    slog_error err;
    memset(&err, 0xff, sizeof err);
    ck_assert_int_eq(slog_writer_create(&w, path, &o, &err), SLOG_OK);
    for (uint32_t i = 0; i < 16; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%u", i);
        ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, name, i,
                                                  NULL, &err),
                         SLOG_OK);
    }
    for (uint32_t c = 0; c < 4; c++) {
        char name[16];
        snprintf(name, sizeof name, "c%u", c);
        ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_STATE, name, 0, NULL, NULL, &err),
                         SLOG_OK);
    }
    tref_rng r;
    tref_rng_seed(&r, 1234);
    const uint32_t blocks = states / (7 * 16);
    for (uint32_t b = 0; b < blocks; b++) {
        const int64_t t0 = (int64_t)b * 7000;
        for (uint32_t tl = 0; tl < 16; tl++) {
            const int64_t jitter = (int64_t)tref_rng_below(&r, 100);
            const slog_state st[7] = {
                {tl, 3, t0 + 200 + jitter, t0 + 1500, 2, 0, NULL},
                {tl, 3, t0 + 1600, t0 + 3000 - jitter, 2, 0, NULL},
                {tl, 2, t0 + 100, t0 + 3100, 1, 0, NULL},
                {tl, 3, t0 + 3400, t0 + 4800 + jitter, 2, 0, NULL},
                {tl, 3, t0 + 5000, t0 + 6400, 2, 0, NULL},
                {tl, 1, t0 + 3300, t0 + 6500 + jitter, 1, 0, NULL},
                {tl, 0, t0 + jitter, t0 + 6900, 0, 0, NULL},
            };
            for (int k = 0; k < 7; k++) {
                ck_assert_int_eq(slog_writer_append_state(w, &st[k], &err), SLOG_OK);
            }
        }
    }
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);
}

static uint64_t window_bytes(const char *path, int64_t t0, int64_t t1, uint64_t *file_bytes)
{
    slog_reader *r = NULL;
    slog_error err;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.flags = SLOG_QUERY_ARGS;
    q.t0 = t0;
    q.t1 = t1;
    q.resolution = (t1 - t0) / 1000;
    tref_result res;
    tref_run_query(r, &q, &res);
    ck_assert_int_eq(res.status, SLOG_END);
    ck_assert_uint_gt(res.nkeys + res.npreviews, 0);
    *file_bytes = slog_reader_info(r)->file_bytes;
    const uint64_t bytes = res.stats.bytes_read;
    tref_result_free(&res);
    slog_reader_destroy(r);
    return bytes;
}

START_TEST(test_query_reference_bytes_read_independent_of_file_size)
{
    char small[512], big[512];
    snprintf(small, sizeof small, "%s/dense_small_%d.slog", tmpdir, (int)getpid());
    snprintf(big, sizeof big, "%s/dense_big_%d.slog", tmpdir, (int)getpid());
    write_dense(small, 10000);     /* 89 blocks */
    write_dense(big, 1000000);     /* 8928 blocks */
    /* The same 40-block window, in the middle of each file, at 1000 pixels. */
    uint64_t psmall = 0, pbig = 0;
    const int64_t w = 40 * 7000;
    const uint64_t bsmall = window_bytes(small, 25 * 7000, 25 * 7000 + w, &psmall);
    const uint64_t bbig = window_bytes(big, 4400 * 7000, 4400 * 7000 + w, &pbig);
    ck_assert_uint_gt(pbig, 25 * psmall); /* the big file really is bigger */
    ck_assert_msg(bbig <= 4 * bsmall + 16384,
                  "1000-pixel window: %llu bytes read in the 10^6-state file, %llu in the "
                  "10^4-state file",
                  (unsigned long long)bbig, (unsigned long long)bsmall);
    ck_assert_msg(bbig * 20 < pbig, "1000-pixel window read %llu bytes of a %llu-byte file",
                  (unsigned long long)bbig, (unsigned long long)pbig);
    remove(small);
    remove(big);
}
END_TEST

static Suite *query_reference_suite(void)
{
    Suite *s = suite_create("query_reference");
    TCase *tc = tcase_create("reference");
    tcase_add_unchecked_fixture(tc, tmpdir_setup, tmpdir_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_query_reference_info_matches_trace, 0, NCONFIGS);
    tcase_add_loop_test(tc, test_query_reference_fold_row_follows_hierarchy, 0, NCONFIGS);
    tcase_add_loop_test(tc, test_query_reference_full_range_returns_everything, 0, NCONFIGS);
    tcase_add_loop_test(tc, test_query_reference_window_returns_exactly_overlapping, 0, NCONFIGS);
    tcase_add_loop_test(tc, test_query_reference_filters_select_exactly, 0, NCONFIGS);
    tcase_add_loop_test(tc, test_query_reference_reads_only_nodes_meeting_window, 0, NCONFIGS);
    tcase_add_loop_test(tc, test_query_reference_gap_reads_only_touching_nodes, 0, 6);
    tcase_add_loop_test(tc, test_query_reference_previews_account_for_window, 0, NCONFIGS);
    tcase_add_loop_test(tc, test_query_reference_previews_respect_filters, 0, NCONFIGS);
    tcase_add_loop_test(tc, test_query_reference_kinds_select_previews, 0, NCONFIGS);
    tcase_add_loop_test(tc, test_query_reference_root_previews_equal_totals, 0, NCONFIGS);
    tcase_add_loop_test(tc, test_query_reference_previews_partition_whole_trace, 0, NCONFIGS);
    tcase_add_loop_test(tc, test_query_reference_repeated_query_hits_cache, 0, NCONFIGS);
    tcase_add_loop_test(tc, test_query_reference_tiny_cache_still_exact, 0, NCONFIGS);
    tcase_add_test(tc, test_query_reference_bytes_read_independent_of_file_size);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(query_reference_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
