/* SPDX-License-Identifier: MIT
 *
 * live_writer.c - a trace writer driven from stdin, for slog-serve's live
 * file test: "N" appends N states (alternating two timelines, contiguous in
 * time, three categories) and flushes, then prints "flushed TOTAL";
 * "finish" seals the file and prints "finished"; end of input leaves the
 * file incomplete.  Public API only.
 * Usage: live_writer FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slog/slog.h>

static int fail(const char *what, const slog_error *err)
{
    (void)fprintf(stderr, "live_writer: %s: %s\n", what, err->message);
    return EXIT_FAILURE;
}

static int setup(slog_writer **w, const char *path, slog_error *err)
{
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 4096;
    o.creator = "live_writer";
    uint32_t id = 0;
    if (slog_writer_create(w, path, &o, err) != SLOG_OK) {
        return -1;
    }
    const char *const names[] = {"alpha", "beta", "gamma"};
    for (int i = 0; i < 3; i++) {
        if (slog_writer_add_category(*w, SLOG_KIND_STATE, names[i], 0, "", &id, err) != SLOG_OK) {
            return -1;
        }
    }
    for (int i = 0; i < 2; i++) {
        if (slog_writer_add_timeline(*w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, i == 0 ? "t0" : "t1",
                                     i, &id, err) != SLOG_OK) {
            return -1;
        }
    }
    return 0;
}

/* Append n states after the *total already written, then flush. */
static int append(slog_writer *w, long n, uint64_t *total, slog_error *err)
{
    for (long i = 0; i < n; i++, (*total)++) {
        const int64_t t = 1000 + (int64_t)(*total / 2) * 100;
        const slog_state s = {
            (uint32_t)(*total % 2), (uint32_t)(*total % 3), t, t + 90, 0, 0, NULL};
        if (slog_writer_append_state(w, &s, err) != SLOG_OK) {
            return -1;
        }
    }
    return slog_writer_flush(w, err) == SLOG_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
    slog_error err;
    memset(&err, 0, sizeof err);
    slog_writer *w = NULL;
    if (argc != 2 || setup(&w, argv[1], &err) != 0) {
        slog_writer_destroy(w);
        return argc != 2 ? EXIT_FAILURE : fail("Cannot create the file", &err);
    }
    char line[64];
    uint64_t total = 0;
    int status = EXIT_SUCCESS;
    while (status == EXIT_SUCCESS && fgets(line, sizeof line, stdin) != NULL) {
        if (strcmp(line, "finish\n") == 0) {
            status =
                slog_writer_finish(w, &err) == SLOG_OK ? EXIT_SUCCESS : fail("Cannot finish", &err);
            (void)printf("finished\n");
            break;
        }
        if (append(w, strtol(line, NULL, 10), &total, &err) != 0) {
            status = fail("Cannot append", &err);
        }
        (void)printf("flushed %llu\n", (unsigned long long)total);
        (void)fflush(stdout);
    }
    (void)fflush(stdout);
    slog_writer_destroy(w);
    return status;
}
