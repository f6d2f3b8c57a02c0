/* SPDX-License-Identifier: MIT
 *
 * check_live_open.c - opening a file while a writer (another process)
 * flushes into it must never fail (issue 16, item 8: a plain open that
 * catches the writer mid-flush used to report a false "truncated file",
 * 21 of 2 878 opens, and was never retried in SWMR read mode).  Bounded:
 * the writer makes a fixed number of flushes, about 2 s.
 */
#include "live_util.h"

#include <slog/slog.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define FLUSHES 600u
#define PER_FLUSH 200u
#define PAUSE_US 2000u

START_TEST(open_while_writing)
{
    char path[64];
    (void)snprintf(path, sizeof path, "/tmp/check_live_open_%ld.slog", (long)getpid());
    const pid_t pid = live_writer_start(path, FLUSHES, PER_FLUSH, PAUSE_US);
    ck_assert_int_gt(pid, 0);
    unsigned opens = 0, failures = 0;
    slog_error first = {0, 0, "", ""};
    int st = 0;
    while (waitpid(pid, &st, WNOHANG) == 0) {
        slog_reader *r = NULL;
        slog_error err;
        const int rc = slog_reader_open(&r, path, NULL, &err);
        opens++;
        if (rc != SLOG_OK) {
            if (failures++ == 0) {
                first = err;
            }
            continue;
        }
        const slog_file_info *const f = slog_reader_info(r);
        ck_assert_uint_le(f->states, (uint64_t)FLUSHES * PER_FLUSH);
        slog_reader_destroy(r);
    }
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    (void)fprintf(stderr, "# %u opens while writing, %u failed%s%s\n", opens, failures,
                 failures ? ": " : "", first.message);
    ck_assert_uint_eq(failures, 0);
    ck_assert_uint_gt(opens, 10);
    (void)unlink(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("live_open");
    TCase *tc = tcase_create("open");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, open_while_writing);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
