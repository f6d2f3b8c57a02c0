/* SPDX-License-Identifier: MIT
 *
 * check_spill.c - late drawables: written in reverse time order, states
 * pile up in the open inner nodes, which spill them as pseudo-leaves
 * (SLOG_NODE_SPILL in slog_node_info.flags).  Spills are leaves of one node,
 * and a query still returns every state exactly once.
 */
#include <slog/slog.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NSTATES 20000

START_TEST(test_spill_reverse_order_spills_and_stays_exact)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/check_spill_%d.slog", (int)getpid());
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 1024;
    slog_writer *w;
    slog_error err;
    uint32_t tl, cat;
    ck_assert_int_eq(slog_writer_create(&w, path, &o, &err), SLOG_OK);
    ck_assert_int_eq(slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t", 0, &tl,
                                              &err),
                     SLOG_OK);
    ck_assert_int_eq(slog_writer_add_category(w, SLOG_KIND_STATE, "s", 0, NULL, &cat, &err),
                     SLOG_OK);
    for (int i = NSTATES - 1; i >= 0; i--) {
        const slog_state s = {tl, cat, (int64_t)i * 10, (int64_t)i * 10 + 5, 0, 0, NULL};
        ck_assert_int_eq(slog_writer_append_state(w, &s, &err), SLOG_OK);
    }
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);

    slog_reader *r;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    const slog_file_info *const fi = slog_reader_info(r);
    uint64_t spills = 0, in_spills = 0;
    for (uint64_t i = 0; i < fi->nodes; i++) {
        slog_node_info n;
        ck_assert_int_eq(slog_reader_node(r, i, &n), SLOG_OK);
        if (n.flags & SLOG_NODE_SPILL) {
            spills++;
            in_spills += n.counts[SLOG_KIND_STATE];
            ck_assert_uint_eq(n.level, 0);
            ck_assert_uint_eq(n.subtree_nodes, 1);
        }
    }
    ck_assert_uint_gt(spills, 0);
    ck_assert_uint_gt(in_spills, NSTATES / 2); /* reverse order: most states arrive late */
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.t0 = 0;
    q.t1 = (int64_t)NSTATES * 10;
    slog_query *it;
    ck_assert_int_eq(slog_query_create(&it, r, &q, &err), SLOG_OK);
    const slog_item *item;
    uint64_t n = 0, sum = 0;
    while (slog_query_next(it, &item, &err) == SLOG_OK) {
        n++;
        sum += (uint64_t)item->u.state.start / 10;
    }
    ck_assert_uint_eq(n, NSTATES);
    ck_assert_uint_eq(sum, (uint64_t)NSTATES * (NSTATES - 1) / 2); /* each start once */
    slog_query_destroy(it);
    slog_reader_destroy(r);
    unlink(path);
}
END_TEST

int main(void)
{
    Suite *const s = suite_create("spill");
    TCase *const tc = tcase_create("spill");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_spill_reverse_order_spills_and_stays_exact);
    suite_add_tcase(s, tc);
    SRunner *const sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
