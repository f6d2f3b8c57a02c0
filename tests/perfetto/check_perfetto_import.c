/* SPDX-License-Identifier: MIT
 *
 * check_perfetto_import.c - Check suite of the Perfetto importer on traces
 * written by the test encoder (pf_craft.c), with exact expected drawables:
 * nested slices on a thread track, interned names across incremental-state
 * clears and lost packets, flows (terminating and reused ids), typed and
 * incremental counters, debug annotations of every value type, compact
 * sched, sequence-scoped incremental clocks, Chrome legacy events, damaged
 * and truncated packets (skipped, counted, warned about with their offsets),
 * and inputs that are not traces at all (a clear error, never a crash).
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <slog/slog_import.h>
#include <unistd.h>

#include "pf_craft.h"
#include "pf_harness.h"

static pfh_result *run(const pbe *e)
{
    ck_assert(!e->failed);
    pfh_result *r = pfh_run(e->data, e->len, 0, 0);
    ck_assert_ptr_nonnull(r);
    return r;
}

static void assert_item(const pfh_item *it, const char *name, int64_t t0, int64_t t1,
                        uint32_t depth, const char *tl)
{
    ck_assert_ptr_nonnull(it);
    ck_assert_str_eq(it->name, name);
    ck_assert_int_eq(it->t0, t0);
    ck_assert_int_eq(it->t1, t1);
    ck_assert_uint_eq(it->depth, depth);
    ck_assert_str_eq(it->tl_name, tl);
}

START_TEST(test_perfetto_nested_slices_on_thread_track)
{
    pbe e = {0};
    pk_track(&e, 100, 0, NULL, 10, 0, 0, 0);      /* process 10 */
    pk_track(&e, 101, 100, "main", 10, 11, 0, 0); /* its thread 11 */
    pk_event(&e, 1, 1000, T_BEGIN, 101, "outer");
    pk_event(&e, 1, 2000, T_BEGIN, 101, "inner");
    pk_event(&e, 1, 3000, T_END, 101, NULL);
    pk_event(&e, 1, 4000, T_END, 101, NULL);
    pk_event(&e, 1, 5000, T_END, 101, NULL); /* no begin left */
    pk_event(&e, 1, 6000, T_BEGIN, 101, "never ended");
    pk_event(&e, 1, 7000, T_INSTANT, 101, "mark");
    pfh_result *r = run(&e);
    ck_assert_int_eq(r->rc, SLOG_OK);
    ck_assert_uint_eq(pfh_count(r, SLOG_KIND_STATE), 3);
    assert_item(pfh_find(r, SLOG_KIND_STATE, "outer"), "outer", 1000, 4000, 0, "main");
    assert_item(pfh_find(r, SLOG_KIND_STATE, "inner"), "inner", 2000, 3000, 1, "main");
    const pfh_item *open = pfh_find(r, SLOG_KIND_STATE, "never ended");
    assert_item(open, "never ended", 6000, 7000, 0, "main");
    ck_assert_str_eq(open->args, "slog.unclosed=b:1;");
    assert_item(pfh_find(r, SLOG_KIND_EVENT, "mark"), "mark", 7000, 7000, 0, "main");
    ck_assert_uint_eq(pfh_row(r, "slice end without begin"), 1);
    ck_assert_uint_eq(pfh_row(r, "slice begin never ended (closed at trace end)"), 1);
    ck_assert_uint_eq(r->timelines, 2);
    ck_assert_uint_eq(r->tl_kinds[0], SLOG_TIMELINE_PROCESS);
    ck_assert_uint_eq(r->tl_kinds[1], SLOG_TIMELINE_THREAD);
    ck_assert_uint_eq(r->tl_parents[1], 0);
    free(r);
    pbe_free(&e);
}
END_TEST

/* A packet on seq with flags, an interned name {iid: name} (name NULL:
 * none) and an INSTANT named by iid on track 7 at ts. */
static void interned_instant(pbe *e, uint32_t seq, uint64_t ts, unsigned flags, bool dropped,
                             uint64_t iid, const char *name)
{
    const size_t m = pk_open(e, seq, ts);
    if (flags != 0) {
        pbe_uint(e, PK_FLAGS, flags);
    }
    if (dropped) {
        pbe_uint(e, PK_DROPPED, 1);
    }
    if (name != NULL) {
        pk_interned(e, 2, iid, name);
    }
    const size_t t = te_open(e, T_INSTANT, 7, NULL);
    pbe_uint(e, TE_NAME_IID, iid);
    pbe_close(e, t);
    pbe_close(e, m);
}

START_TEST(test_perfetto_interning_across_clears_and_loss)
{
    pbe e = {0};
    interned_instant(&e, 1, 10, SEQ_CLEARED | SEQ_NEEDS, false, 1, "alpha");
    interned_instant(&e, 1, 20, SEQ_NEEDS, false, 1, NULL);
    interned_instant(&e, 1, 30, SEQ_CLEARED | SEQ_NEEDS, false, 1, "beta");
    interned_instant(&e, 1, 40, SEQ_NEEDS, true, 1, NULL);  /* loss: dropped */
    interned_instant(&e, 1, 50, SEQ_NEEDS, false, 1, NULL); /* still lost */
    interned_instant(&e, 2, 60, SEQ_NEEDS, false, 1, NULL); /* never cleared */
    interned_instant(&e, 1, 70, SEQ_CLEARED | SEQ_NEEDS, false, 2, "gamma");
    interned_instant(&e, 1, 80, SEQ_NEEDS, false, 1, NULL); /* iid 1 gone */
    pfh_result *r = run(&e);
    ck_assert_int_eq(r->rc, SLOG_OK);
    ck_assert_uint_eq(pfh_count(r, SLOG_KIND_EVENT), 5);
    ck_assert_str_eq(r->items[0].name, "alpha");
    ck_assert_str_eq(r->items[1].name, "alpha");
    ck_assert_int_eq(r->items[1].t0, 20);
    ck_assert_str_eq(r->items[2].name, "beta");
    ck_assert_str_eq(r->items[3].name, "gamma");
    ck_assert_str_eq(r->items[4].name, "name iid 1");
    ck_assert_uint_eq(pfh_row(r, "packet needing lost incremental state"), 3);
    ck_assert_uint_eq(pfh_row(r, "name_iid not interned"), 1);
    ck_assert_uint_eq(pfh_row(r, "timeline for a uuid without descriptor"), 1);
    free(r);
    pbe_free(&e);
}
END_TEST

/* An INSTANT on track uuid at ts carrying flow ids (field fid). */
static void flow_event(pbe *e, uint64_t ts, uint64_t track, uint32_t field, uint64_t id)
{
    const size_t m = pk_open(e, 1, ts);
    const size_t t = te_open(e, T_INSTANT, track, "f");
    if (field == TE_FLOW_OLD) {
        pbe_uint(e, field, id);
    } else {
        pbe_fixed64(e, field, id);
    }
    pbe_close(e, t);
    pbe_close(e, m);
}

START_TEST(test_perfetto_flows_link_terminate_and_reuse)
{
    pbe e = {0};
    for (uint64_t k = 1; k <= 6; k++) {
        char name[8] = {(char)('A' + k - 1), 0};
        pk_track(&e, k, 0, name, 0, 0, 0, 0);
    }
    flow_event(&e, 10, 1, TE_FLOW, 7);
    flow_event(&e, 20, 2, TE_FLOW, 7);
    flow_event(&e, 30, 3, TE_FLOW_OLD, 7);
    flow_event(&e, 40, 4, TE_TERM_FLOW, 7);
    flow_event(&e, 50, 5, TE_FLOW, 7);      /* a new flow with the same id */
    flow_event(&e, 45, 6, TE_TERM_FLOW, 7); /* earlier: drawn from F to E */
    flow_event(&e, 60, 6, TE_TERM_FLOW, 9); /* never opened */
    pfh_result *r = run(&e);
    ck_assert_int_eq(r->rc, SLOG_OK);
    ck_assert_uint_eq(pfh_count(r, SLOG_KIND_ARROW), 4);
    const char *want[4][2] = {{"A", "B"}, {"B", "C"}, {"C", "D"}, {"F", "E"}};
    const int64_t times[4][2] = {{10, 20}, {20, 30}, {30, 40}, {45, 50}};
    size_t a = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->items[i].kind != SLOG_KIND_ARROW) {
            continue;
        }
        ck_assert_str_eq(r->items[i].tl_name, want[a][0]);
        ck_assert_str_eq(r->items[i].to_name, want[a][1]);
        ck_assert_int_eq(r->items[i].t0, times[a][0]);
        ck_assert_int_eq(r->items[i].t1, times[a][1]);
        a++;
    }
    ck_assert_uint_eq(pfh_row(r, "flow step earlier than its source (direction by time)"), 1);
    ck_assert_uint_eq(pfh_row(r, "terminating flow id never opened"), 1);
    ck_assert_uint_eq(pfh_row(r, "flow_ids_old references"), 1);
    free(r);
    pbe_free(&e);
}
END_TEST

START_TEST(test_perfetto_counters_typed_incremental_and_extra)
{
    pbe e = {0};
    pk_track(&e, 5, 0, "mem", 0, 0, 1, 0);
    pk_track(&e, 6, 0, "ticks", 0, 0, 1, 1); /* incremental */
    pk_track(&e, 8, 0, "worker", 0, 0, 0, 0);
    size_t m = pk_open(&e, 1, 10);
    size_t t = te_open(&e, T_COUNTER, 5, NULL);
    pbe_double(&e, TE_DOUBLE_COUNTER, 1.5);
    pbe_close(&e, t);
    pbe_close(&e, m);
    m = pk_open(&e, 1, 20);
    t = te_open(&e, T_COUNTER, 5, NULL);
    pbe_int(&e, TE_COUNTER, -7);
    pbe_close(&e, t);
    pbe_close(&e, m);
    for (int i = 0; i < 2; i++) { /* extra counter values 5 then 3 on "ticks" */
        m = pk_open(&e, 1, (uint64_t)(30 + 10 * i));
        t = te_open(&e, T_INSTANT, 8, "tick");
        pbe_uint(&e, TE_EXTRA_UUIDS, 6);
        pbe_int(&e, TE_EXTRA_VALUES, i == 0 ? 5 : 3);
        pbe_close(&e, t);
        pbe_close(&e, m);
    }
    pfh_result *r = run(&e);
    ck_assert_int_eq(r->rc, SLOG_OK);
    ck_assert_uint_eq(pfh_count(r, SLOG_KIND_COUNTER), 4);
    const double want[4] = {1.5, -7, 5, 8};
    const char *names[4] = {"mem", "mem", "ticks", "ticks"};
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->items[i].kind == SLOG_KIND_COUNTER) {
            ck_assert(r->items[i].value == want[k]);
            ck_assert_str_eq(r->items[i].tl_name, names[k]);
            ck_assert_str_eq(r->items[i].name, names[k]);
            k++;
        }
    }
    ck_assert_uint_eq(pfh_row(r, "extra_counter_values -> counter sample"), 2);
    ck_assert_uint_eq(pfh_row(r, "counter value -> counter sample"), 2);
    free(r);
    pbe_free(&e);
}
END_TEST

/* One DebugAnnotation named `name` whose value the caller writes. */
static size_t ann_open(pbe *e, const char *name)
{
    const size_t a = pbe_open(e, TE_ANNOTATIONS);
    pbe_string(e, 10, name);
    return a;
}

static void annotations(pbe *e)
{
    size_t a = ann_open(e, "b");
    pbe_uint(e, 2, 1);
    pbe_close(e, a);
    a = ann_open(e, "u");
    pbe_uint(e, 3, UINT64_MAX);
    pbe_close(e, a);
    a = ann_open(e, "i");
    pbe_int(e, 4, -42);
    pbe_close(e, a);
    a = ann_open(e, "d");
    pbe_double(e, 5, 0.25);
    pbe_close(e, a);
    a = ann_open(e, "s");
    pbe_string(e, 6, "say \"hi\"");
    pbe_close(e, a);
    a = pbe_open(e, TE_ANNOTATIONS); /* interned name and string value */
    pbe_uint(e, 1, 3);
    pbe_uint(e, 17, 4);
    pbe_close(e, a);
    a = ann_open(e, "p");
    pbe_uint(e, 7, 0xdead);
    pbe_close(e, a);
    a = ann_open(e, "legacy");
    pbe_string(e, 9, "{\"x\":1}");
    pbe_close(e, a);
    a = ann_open(e, "dict");
    size_t d = pbe_open(e, 11);
    pbe_string(e, 10, "k");
    pbe_int(e, 4, 1);
    pbe_close(e, d);
    d = pbe_open(e, 11);
    pbe_string(e, 10, "arr");
    size_t v = pbe_open(e, 12);
    pbe_uint(e, 2, 0);
    pbe_close(e, v);
    v = pbe_open(e, 12);
    pbe_string(e, 6, "z");
    pbe_close(e, v);
    pbe_close(e, d);
    pbe_close(e, a);
    a = ann_open(e, "nested"); /* the older NestedValue: {"n": [2.5]} */
    size_t nv = pbe_open(e, 8);
    pbe_uint(e, 1, 1);
    pbe_string(e, 2, "n");
    size_t dv = pbe_open(e, 3);
    pbe_uint(e, 1, 2);
    size_t av = pbe_open(e, 4);
    pbe_double(e, 6, 2.5);
    pbe_close(e, av);
    pbe_close(e, dv);
    pbe_close(e, nv);
    pbe_close(e, a);
}

START_TEST(test_perfetto_debug_annotations_of_each_type)
{
    pbe e = {0};
    const size_t m = pk_open(&e, 1, 100);
    pbe_uint(&e, PK_FLAGS, SEQ_CLEARED);
    const size_t i = pbe_open(&e, PK_INTERNED);
    size_t t = pbe_open(&e, 3);
    pbe_uint(&e, 1, 3);
    pbe_string(&e, 2, "iname");
    pbe_close(&e, t);
    t = pbe_open(&e, 29);
    pbe_uint(&e, 1, 4);
    pbe_string(&e, 2, "ivalue");
    pbe_close(&e, t);
    pbe_close(&e, i);
    t = te_open(&e, T_INSTANT, 1, "annotated");
    pbe_string(&e, TE_CATEGORIES, "cat1");
    pbe_string(&e, TE_CATEGORIES, "cat2");
    annotations(&e);
    pbe_close(&e, t);
    pbe_close(&e, m);
    pfh_result *r = run(&e);
    ck_assert_int_eq(r->rc, SLOG_OK);
    const pfh_item *it = pfh_find(r, SLOG_KIND_EVENT, "annotated");
    ck_assert_ptr_nonnull(it);
    ck_assert_str_eq(it->group, "cat1,cat2");
    ck_assert_str_eq(it->args, "b=b:1;u=u:18446744073709551615;i=i:-42;d=d:0.25;"
                               "s=s:say \"hi\";iname=s:ivalue;p=s:0xdead;legacy=j:{\"x\":1};"
                               "dict=j:{\"k\":1,\"arr\":[false,\"z\"]};nested=j:{\"n\":[2.5]};");
    ck_assert_uint_eq(pfh_row(r, "debug annotation -> arg"), 10);
    free(r);
    pbe_free(&e);
}
END_TEST

static void compact_bundle(pbe *e)
{
    const size_t m = pk_open(e, 0, UINT64_MAX);
    const size_t b = pbe_open(e, PK_FTRACE);
    pbe_uint(e, 1, 2);
    const size_t c = pbe_open(e, 4);
    pbe_string(e, 5, "a");
    pbe_string(e, 5, "swapper/2");
    pbe_string(e, 5, "b");
    const uint64_t cols[5][3] = {{100, 50, 25}, {0, 1, 0}, {11, 0, 12}, {120, 120, 100},
                                 {0, 1, 2}};
    const uint32_t fields[5] = {1, 2, 3, 4, 6};
    for (int k = 0; k < 5; k++) {
        const size_t p = pbe_open(e, fields[k]);
        for (int j = 0; j < 3; j++) {
            pbe_varint(e, cols[k][j]);
        }
        pbe_close(e, p);
    }
    const size_t w = pbe_open(e, 7); /* two waking events, counted */
    pbe_varint(e, 90);
    pbe_varint(e, 1);
    pbe_close(e, w);
    pbe_close(e, c);
    pbe_close(e, b);
    pbe_close(e, m);
}

START_TEST(test_perfetto_compact_sched_per_cpu_states)
{
    pbe e = {0};
    compact_bundle(&e);
    pk_switch(&e, 2, 300, "b", 12, "c", 13);
    pk_event(&e, 1, 400, T_INSTANT, 1, "end");
    pfh_result *r = run(&e);
    ck_assert_int_eq(r->rc, SLOG_OK);
    ck_assert_uint_eq(pfh_count(r, SLOG_KIND_STATE), 3);
    assert_item(&r->items[0], "a", 100, 150, 0, "CPU 2");
    ck_assert_str_eq(r->items[0].group, "sched");
    ck_assert_str_eq(r->items[0].args, "pid=i:11;prio=i:120;end_state=i:1;");
    assert_item(&r->items[1], "b", 175, 300, 0, "CPU 2");
    assert_item(&r->items[2], "c", 300, 400, 0, "CPU 2");
    ck_assert_str_eq(r->items[2].args, "pid=i:13;prio=i:120;slog.unclosed=b:1;");
    ck_assert_uint_eq(pfh_row(r, "compact_sched switch"), 3);
    ck_assert_uint_eq(pfh_row(r, "compact_sched waking (not drawn)"), 2);
    ck_assert_uint_eq(pfh_row(r, "sched_switch"), 4);
    ck_assert_uint_eq(pfh_row(r, "CPU idle (pid 0) periods (not drawn)"), 1);
    ck_assert_uint_eq(pfh_row(r, "ftrace 4 sched_switch"), 1);
    free(r);
    pbe_free(&e);
}
END_TEST

/* A clock snapshot on seq: BOOTTIME boot, clock 65 = v65 (µs, incremental),
 * then TracePacketDefaults selecting clock 65. */
static void clock_setup(pbe *e, uint32_t seq, uint64_t boot, uint64_t v65)
{
    size_t m = pk_open(e, seq, UINT64_MAX);
    pbe_uint(e, PK_FLAGS, SEQ_CLEARED);
    const size_t cs = pbe_open(e, PK_CLOCK_SNAPSHOT);
    size_t c = pbe_open(e, 1);
    pbe_uint(e, 1, 6);
    pbe_uint(e, 2, boot);
    pbe_close(e, c);
    c = pbe_open(e, 1);
    pbe_uint(e, 1, 65);
    pbe_uint(e, 2, v65);
    pbe_uint(e, 3, 1);
    pbe_uint(e, 4, 1000);
    pbe_close(e, c);
    pbe_close(e, cs);
    pbe_close(e, m);
    m = pk_open(e, seq, UINT64_MAX);
    const size_t d = pbe_open(e, PK_DEFAULTS);
    pbe_uint(e, PK_CLOCK_ID, 65);
    const size_t ted = pbe_open(e, 11);
    pbe_uint(e, 11, 3);
    pbe_close(e, ted);
    pbe_close(e, d);
    pbe_close(e, m);
}

START_TEST(test_perfetto_sequence_scoped_incremental_clock)
{
    pbe e = {0};
    clock_setup(&e, 4, 1000000000, 500);
    pk_track(&e, 3, 0, "t", 0, 0, 0, 0);
    const size_t m = pk_open(&e, 4, 2); /* 500 + 2 us */
    pbe_close(&e, te_open(&e, T_BEGIN, 3, "s"));
    pbe_close(&e, m);
    const size_t m2 = pk_open(&e, 4, 3); /* + 3 us */
    const size_t t = pbe_open(&e, PK_TRACK_EVENT); /* default track */
    pbe_uint(&e, TE_TYPE, T_END);
    pbe_close(&e, t);
    pbe_close(&e, m2);
    const size_t m3 = pk_open(&e, 4, 7); /* BOOTTIME explicitly */
    pbe_uint(&e, PK_CLOCK_ID, 6);
    pbe_close(&e, te_open(&e, T_INSTANT, 3, "raw"));
    pbe_close(&e, m3);
    pfh_result *r = run(&e);
    ck_assert_int_eq(r->rc, SLOG_OK);
    assert_item(pfh_find(r, SLOG_KIND_STATE, "s"), "s", 1000002000, 1000005000, 0, "t");
    assert_item(pfh_find(r, SLOG_KIND_EVENT, "raw"), "raw", 7, 7, 0, "t");
    ck_assert_uint_eq(pfh_row(r, "timestamp on a clock without snapshot (as BOOTTIME)"), 0);
    free(r);
    pbe_free(&e);
}
END_TEST

/* A legacy event (no type) with phase ph, optional id and bind. */
static void legacy_event(pbe *e, uint32_t seq, uint64_t ts, uint64_t track, const char *name,
                         int ph, uint64_t id, uint64_t dur_us)
{
    const size_t m = pk_open(e, seq, ts);
    const size_t t = te_open(e, 0, track, name);
    const size_t l = pbe_open(e, TE_LEGACY);
    pbe_uint(e, 2, (uint64_t)ph);
    if (id != 0) {
        pbe_uint(e, 6, id);
    }
    if (dur_us != 0) {
        pbe_uint(e, 3, dur_us);
    }
    pbe_close(e, l);
    pbe_close(e, t);
    pbe_close(e, m);
}

START_TEST(test_perfetto_legacy_phases_and_async_matching)
{
    pbe e = {0};
    pk_track(&e, 20, 0, NULL, 30, 31, 0, 0);
    legacy_event(&e, 2, 5000, 20, NULL, 'e', 9, 0); /* later in time, earlier in file */
    legacy_event(&e, 1, 1000, 20, "load", 'b', 9, 0);
    legacy_event(&e, 1, 2000, 20, "step", 'n', 9, 0);
    legacy_event(&e, 1, 3000, 20, "work", 'X', 0, 2);
    legacy_event(&e, 1, 3500, 20, "ctx", '(', 0, 0);
    legacy_event(&e, 1, 3600, 20, "meta", 'M', 0, 0);
    legacy_event(&e, 1, 3700, 20, NULL, 'e', 10, 0); /* no begin */
    pfh_result *r = run(&e);
    ck_assert_int_eq(r->rc, SLOG_OK);
    const pfh_item *load = pfh_find(r, SLOG_KIND_STATE, "load");
    assert_item(load, "load", 1000, 5000, 0, "load");
    ck_assert_int_eq(r->tl_kinds[load->timeline], SLOG_TIMELINE_ASYNC);
    assert_item(pfh_find(r, SLOG_KIND_EVENT, "step"), "step", 2000, 2000, 0, "load");
    assert_item(pfh_find(r, SLOG_KIND_STATE, "work"), "work", 3000, 5000, 0, "tid 31");
    ck_assert_uint_eq(pfh_row(r, "legacy async b/e S/F -> state"), 1);
    ck_assert_uint_eq(pfh_row(r, "legacy async end without begin"), 1);
    ck_assert_uint_eq(pfh_row(r, "legacy ( ) context (not mapped)"), 1);
    ck_assert_uint_eq(pfh_row(r, "legacy M metadata (not mapped)"), 1);
    ck_assert_uint_eq(pfh_row(r, "legacy phase b"), 1);
    ck_assert_uint_eq(pfh_row(r, "track_event without type (legacy)"), 7);
    free(r);
    pbe_free(&e);
}
END_TEST

/* Open a TrackDescriptor packet {uuid, parent_uuid}; *packet is the
 * packet's mark, the descriptor's is returned. */
static size_t descriptor_open(pbe *e, uint64_t uuid, uint64_t parent, size_t *packet)
{
    *packet = pk_open(e, 1, UINT64_MAX);
    const size_t d = pbe_open(e, PK_TRACK_DESCRIPTOR);
    pbe_uint(e, 1, uuid);
    pbe_uint(e, 5, parent);
    return d;
}

/* A thread TrackDescriptor whose ThreadDescriptor carries thread_name (may be ""). */
static void thread_track(pbe *e, uint64_t uuid, uint64_t parent, int32_t pid, int32_t tid,
                         const char *thread_name)
{
    size_t m;
    const size_t d = descriptor_open(e, uuid, parent, &m);
    const size_t t = pbe_open(e, 4);
    pbe_int(e, 1, pid);
    pbe_int(e, 2, tid);
    pbe_string(e, 5, thread_name);
    pbe_close(e, t);
    pbe_close(e, d);
    pbe_close(e, m);
}

/* A counter TrackDescriptor without a name, of BuiltinCounterType type. */
static void builtin_counter_track(pbe *e, uint64_t uuid, uint64_t parent, uint64_t type)
{
    size_t m;
    const size_t d = descriptor_open(e, uuid, parent, &m);
    const size_t c = pbe_open(e, 8);
    pbe_uint(e, 1, type);
    pbe_close(e, c);
    pbe_close(e, d);
    pbe_close(e, m);
}

/* A slice on track from begin to end: its name, else only categories. */
static void slice(pbe *e, uint64_t track, uint64_t begin, uint64_t end, const char *name,
                  const char *categories)
{
    const size_t m = pk_open(e, 1, begin);
    const size_t t = te_open(e, T_BEGIN, track, name);
    if (categories != NULL) {
        pbe_string(e, TE_CATEGORIES, categories);
    }
    pbe_close(e, t);
    pbe_close(e, m);
    pk_event(e, 1, end, T_END, track, NULL);
}

static uint32_t timeline_named(const pfh_result *r, const char *name)
{
    for (uint32_t i = 0; i < r->timelines && i < 64; i++) {
        if (strcmp(r->tl_names[i], name) == 0) {
            return i;
        }
    }
    ck_abort_msg("no timeline named \"%s\"", name);
    return 0;
}

/* Chrome's shapes: unnamed async tracks under a process or at the root, a
 * legacy event naming only its pid, an empty thread name, a thread-time
 * counter without a name.  None keeps a "track HEX" name, and the root
 * rows that are not processes sort after every process. */
START_TEST(test_perfetto_unnamed_tracks_named_grouped_and_sorted)
{
    pbe e = {0};
    pk_track(&e, 100, 0, "app", 70000, 0, 0, 0);
    thread_track(&e, 101, 100, 70000, 70001, "");
    thread_track(&e, 102, 100, 70000, 70002, "worker");
    thread_track(&e, 102, 100, 70000, 70002, ""); /* re-emitted: keeps "worker" */
    pk_track(&e, 200, 100, NULL, 0, 0, 0, 0);     /* async under "app" */
    pk_track(&e, 201, 100, "Net", 0, 0, 0, 0);
    pk_track(&e, 300, 0, NULL, 0, 0, 0, 0);       /* global, unnamed */
    pk_track(&e, 301, 0, NULL, 0, 0, 0, 0);
    builtin_counter_track(&e, 400, 101, 1);       /* COUNTER_THREAD_TIME_NS */
    slice(&e, 200, 1000, 2000, "Load", NULL);
    slice(&e, 200, 3000, 4000, "Other", NULL);
    slice(&e, 201, 1000, 2000, "fetch", NULL);
    slice(&e, 300, 1500, 2500, "InputLatency::MouseMove", NULL);
    slice(&e, 301, 1500, 2500, "", "input,latency");
    slice(&e, 500, 5000, 6000, "undescribed", NULL);
    size_t m = pk_open(&e, 1, 7000); /* legacy X on uuid 600, naming only pid 70000 */
    size_t t = te_open(&e, 0, 600, "paint");
    const size_t l = pbe_open(&e, TE_LEGACY);
    pbe_uint(&e, 2, 'X');
    pbe_uint(&e, 3, 1);
    pbe_int(&e, 18, 70000);
    pbe_close(&e, l);
    pbe_close(&e, t);
    pbe_close(&e, m);
    m = pk_open(&e, 1, 8000);
    t = te_open(&e, T_COUNTER, 400, NULL);
    pbe_int(&e, TE_COUNTER, 42);
    pbe_close(&e, t);
    pbe_close(&e, m);
    pfh_result *r = run(&e);
    ck_assert_int_eq(r->rc, SLOG_OK);
    const uint32_t app = timeline_named(r, "app");
    ck_assert_uint_eq(r->tl_parents[timeline_named(r, "Load")], app);
    ck_assert_int_eq(r->tl_kinds[timeline_named(r, "Load")], SLOG_TIMELINE_ASYNC);
    ck_assert_uint_eq(r->tl_parents[timeline_named(r, "Net")], app);
    ck_assert_uint_eq(r->tl_parents[timeline_named(r, "tid 70001")], app);
    ck_assert_uint_eq(r->tl_parents[timeline_named(r, "worker")], app);
    ck_assert_uint_eq(r->tl_parents[timeline_named(r, "paint")], app);
    ck_assert_int_eq(r->tl_kinds[timeline_named(r, "thread_time")], SLOG_TIMELINE_COUNTER);
    ck_assert_str_eq(pfh_find(r, SLOG_KIND_COUNTER, "thread_time")->tl_name, "thread_time");
    const char *const roots[] = {"InputLatency::MouseMove", "input,latency", "undescribed"};
    for (size_t i = 0; i < 3; i++) {
        const uint32_t tl = timeline_named(r, roots[i]);
        ck_assert_uint_eq(r->tl_parents[tl], SLOG_NO_PARENT);
        ck_assert_int_gt(r->tl_sort_keys[tl], r->tl_sort_keys[app]);
    }
    for (uint32_t i = 0; i < r->timelines; i++) {
        ck_assert_msg(strncmp(r->tl_names[i], "track ", 6) != 0, "%s", r->tl_names[i]);
    }
    free(r);
    pbe_free(&e);
}
END_TEST

/* valid | damaged packet | valid | 2 bytes of garbage | valid | cut packet */
START_TEST(test_perfetto_damaged_packets_are_skipped_and_counted)
{
    pbe e = {0};
    pk_event(&e, 1, 10, T_INSTANT, 1, "one");
    const size_t bad_at = e.len;
    const size_t m = pk_open(&e, 1, 20);
    const uint8_t broken[] = {0x5a, 0x7f, 0x01}; /* field 11 LEN 127: past the end */
    pbe_raw(&e, broken, sizeof broken);
    pbe_close(&e, m);
    pk_event(&e, 1, 30, T_INSTANT, 1, "two");
    const size_t garbage_at = e.len;
    const uint8_t garbage[] = {0xff, 0x07};
    pbe_raw(&e, garbage, sizeof garbage);
    pk_event(&e, 1, 40, T_INSTANT, 1, "three");
    const size_t cut_at = e.len;
    pk_event(&e, 1, 50, T_INSTANT, 1, "four");
    e.len -= 3;
    for (size_t chunk = 0; chunk <= 7; chunk += 7) {
        pfh_result *r = pfh_run(e.data, e.len, chunk, 0);
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(r->rc, SLOG_OK);
        ck_assert_uint_eq(pfh_count(r, SLOG_KIND_EVENT), 3);
        ck_assert_str_eq(r->items[2].name, "three");
        ck_assert_uint_eq(pfh_row(r, "packet damaged (skipped whole)"), 1);
        ck_assert_uint_eq(pfh_row(r, "bytes skipped to resynchronise"), 2);
        ck_assert_uint_eq(pfh_row(r, "packet truncated at end of input"), 1);
        ck_assert_uint_eq(r->nwarn, 3);
        ck_assert_uint_eq(r->warn_offset[0], bad_at);
        ck_assert_uint_eq(r->warn_offset[1], garbage_at);
        ck_assert_uint_eq(r->warn_offset[2], cut_at);
        ck_assert_ptr_nonnull(strstr(r->warn[0], "damaged TracePacket"));
        ck_assert_ptr_nonnull(strstr(r->warn[2], "cut short"));
        free(r);
    }
    pbe_free(&e);
}
END_TEST

typedef struct bad_input {
    const char *name;
    const char *bytes;
    size_t len;
    int code;
    const char *message;
} bad_input;

static const bad_input bad_inputs[] = {
    {"empty", "", 0, SLOG_EPARSE, "No TracePacket in the input (empty file)"},
    {"text", "{\"traceEvents\": []}", 19, SLOG_EPARSE, "from offset 0 on do not follow"},
    {"cut varint", "\xff\xff\xff\xff", 4, SLOG_EPARSE, "from offset 0 on do not follow"},
    {"cut packet", "\x0a\x10\x08\x01", 4, SLOG_EPARSE, "expected tag 0x0a"},
};

START_TEST(test_perfetto_not_a_trace_is_a_clear_error)
{
    const bad_input *b = &bad_inputs[_i];
    pfh_result *r = pfh_run((const uint8_t *)b->bytes, b->len, 0, 0);
    ck_assert_ptr_nonnull(r);
    ck_assert_msg(r->rc == b->code, "%s: rc %d", b->name, r->rc);
    ck_assert_int_eq(r->err.code, b->code);
    ck_assert_msg(strstr(r->err.message, b->message) != NULL, "%s: %s", b->name,
                  r->err.message);
    free(r);
}
END_TEST

START_TEST(test_perfetto_read_error_names_offset)
{
    pbe e = {0};
    for (int i = 0; i < 50; i++) {
        pk_event(&e, 1, (uint64_t)(10 * i), T_INSTANT, 1, "x");
    }
    pfh_result *r = pfh_run(e.data, e.len, 16, 64);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->rc, SLOG_EIO);
    ck_assert_uint_eq(r->err.offset, 64);
    ck_assert_ptr_nonnull(strstr(r->err.message, "test read failure"));
    free(r);
    pbe_free(&e);
}
END_TEST

/* Through the public import API: detected as "perfetto" (also gzipped),
 * imported from memory with its summary rows. */
START_TEST(test_perfetto_public_api_detects_and_imports)
{
    pbe e = {0};
    pk_track(&e, 101, 0, "main", 10, 11, 0, 0);
    pk_event(&e, 1, 1000, T_BEGIN, 101, "work");
    pk_event(&e, 1, 2000, T_END, 101, NULL);
    bool listed = false;
    for (const char *const *f = slog_import_formats(); *f != NULL; f++) {
        listed |= strcmp(*f, "perfetto") == 0;
    }
    ck_assert(listed);
    const char *format = NULL;
    ck_assert_int_eq(slog_import_detect(&format, "t.pftrace", e.data, e.len), SLOG_OK);
    ck_assert_ptr_nonnull(format);
    ck_assert_str_eq(format, "perfetto");
    char path[] = "/tmp/pf_api_XXXXXX";
    const int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    (void)close(fd);
    const slog_import_input in = {"t.pftrace", NULL, NULL, e.data, e.len};
    slog_import_summary *sum = NULL;
    ck_assert_int_eq(slog_import_file(&sum, path, &in, 1, NULL, NULL), SLOG_OK);
    ck_assert_ptr_nonnull(sum);
    ck_assert(sum->complete);
    ck_assert_str_eq(sum->formats[0], "perfetto");
    uint64_t slices = 0;
    for (size_t i = 0; i < sum->ncounts; i++) {
        if (strcmp(sum->counts[i].what, "slice begin/end -> state") == 0) {
            slices = sum->counts[i].imported;
        }
    }
    ck_assert_uint_eq(slices, 1);
    slog_import_summary_destroy(sum);
    slog_reader *r = NULL;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, NULL), SLOG_OK);
    ck_assert_uint_eq(slog_reader_info(r)->states, 1);
    slog_reader_destroy(r);
    (void)unlink(path);
    pbe_free(&e);
}
END_TEST

static Suite *import_suite(void)
{
    Suite *s = suite_create("perfetto_import");
    TCase *tc = tcase_create("import");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_perfetto_nested_slices_on_thread_track);
    tcase_add_test(tc, test_perfetto_interning_across_clears_and_loss);
    tcase_add_test(tc, test_perfetto_flows_link_terminate_and_reuse);
    tcase_add_test(tc, test_perfetto_counters_typed_incremental_and_extra);
    tcase_add_test(tc, test_perfetto_debug_annotations_of_each_type);
    tcase_add_test(tc, test_perfetto_compact_sched_per_cpu_states);
    tcase_add_test(tc, test_perfetto_sequence_scoped_incremental_clock);
    tcase_add_test(tc, test_perfetto_legacy_phases_and_async_matching);
    tcase_add_test(tc, test_perfetto_unnamed_tracks_named_grouped_and_sorted);
    tcase_add_test(tc, test_perfetto_damaged_packets_are_skipped_and_counted);
    tcase_add_loop_test(tc, test_perfetto_not_a_trace_is_a_clear_error, 0,
                        (int)(sizeof bad_inputs / sizeof bad_inputs[0]));
    tcase_add_test(tc, test_perfetto_read_error_names_offset);
    tcase_add_test(tc, test_perfetto_public_api_detects_and_imports);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(import_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
