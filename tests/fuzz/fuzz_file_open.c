/* SPDX-License-Identifier: MIT
 *
 * fuzz_file_open.c - libFuzzer target for opening and querying a file: the
 * input bytes are written to a temporary file that is opened with
 * slog_reader_open and, when that succeeds, queried whole at full detail and
 * at a coarse resolution, verified node by node (slog_reader_verify) and
 * read node by node (slog_query_create_node, what slog-check --salvage
 * does).  Any outcome but a crash, a hang or a leak is fine.
 */
#include <slog/slog.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void drain(slog_reader *r, int64_t resolution)
{
    const slog_file_info *const fi = slog_reader_info(r);
    slog_query_options o = SLOG_QUERY_OPTIONS_INIT;
    o.t0 = fi->start < fi->end ? fi->start : 0;
    o.t1 = fi->start < fi->end ? fi->end : 1;
    o.resolution = resolution;
    slog_query *q;
    if (slog_query_create(&q, r, &o, NULL) != SLOG_OK) {
        return;
    }
    const slog_item *it;
    while (slog_query_next(q, &it, NULL) == SLOG_OK) {
    }
    slog_query_destroy(q);
}

static void verify_and_read_nodes(slog_reader *r)
{
    slog_verify_totals t;
    (void)slog_reader_verify(r, NULL, NULL, &t, NULL);
    const uint64_t n = slog_reader_info(r)->nodes;
    for (uint64_t i = 0; i < n && i < 64; i++) {
        slog_query_options o = SLOG_QUERY_OPTIONS_INIT;
        o.flags = SLOG_QUERY_ARGS;
        slog_query *q;
        if (slog_query_create_node(&q, r, i, &o, NULL) != SLOG_OK) {
            continue;
        }
        const slog_item *it;
        while (slog_query_next(q, &it, NULL) == SLOG_OK) {
        }
        slog_query_destroy(q);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/fuzz_file_open_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) {
        return 0;
    }
    const ssize_t w = write(fd, data, size);
    (void)close(fd);
    if (w == (ssize_t)size) {
        slog_reader *r;
        if (slog_reader_open(&r, path, NULL, NULL) == SLOG_OK) {
            drain(r, 0);
            drain(r, 1000);
            verify_and_read_nodes(r);
            slog_reader_destroy(r);
        }
    }
    (void)unlink(path);
    return 0;
}
