/* SPDX-License-Identifier: MIT
 *
 * slog_counts.c - test tool: count what a libslog file holds, through the
 * public reader API only: a full-detail query over the whole time range,
 * counted per kind, checked against the file summary.  Prints one JSON
 * line {"states":..,"events":..,"arrows":..,"counters":..,"complete":..}.
 * Exit 0, or 1 when the file cannot be read or the two counts disagree.
 */
#include <slog/slog.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        (void)fprintf(stderr, "usage: slog_counts FILE.slog\n");
        return 2;
    }
    slog_reader *r = NULL;
    slog_error err;
    if (slog_reader_open(&r, argv[1], NULL, &err) != SLOG_OK) {
        (void)fprintf(stderr, "slog_counts: %s: %s\n", argv[1], err.message);
        return 1;
    }
    const slog_file_info *info = slog_reader_info(r);
    uint64_t n[4] = {0, 0, 0, 0};
    slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    qo.t0 = info->start > INT64_MIN ? info->start - 1 : INT64_MIN;
    qo.t1 = info->end < INT64_MAX ? info->end + 1 : INT64_MAX;
    slog_query *q = NULL;
    const bool empty = info->states + info->events + info->arrows + info->counters == 0;
    int rc = empty ? SLOG_END : slog_query_create(&q, r, &qo, &err);
    const slog_item *it = NULL;
    while (rc == SLOG_OK && (rc = slog_query_next(q, &it, &err)) == SLOG_OK) {
        if (it->kind <= SLOG_KIND_COUNTER) {
            n[it->kind]++;
        }
    }
    const bool read_ok = rc == SLOG_END;
    if (!read_ok) {
        (void)fprintf(stderr, "slog_counts: %s: query failed: %s\n", argv[1], err.message);
    }
    const bool agree = n[0] == info->states && n[1] == info->events && n[2] == info->arrows &&
                       n[3] == info->counters;
    (void)printf("{\"states\": %llu, \"events\": %llu, \"arrows\": %llu, \"counters\": %llu, "
                 "\"complete\": %s, \"timelines\": %u, \"categories\": %u, \"info_agrees\": %s}\n",
                 (unsigned long long)n[0], (unsigned long long)n[1], (unsigned long long)n[2],
                 (unsigned long long)n[3], info->complete ? "true" : "false", info->timelines,
                 info->categories, agree ? "true" : "false");
    slog_query_destroy(q);
    slog_reader_destroy(r);
    return read_ok && agree ? 0 : 1;
}
