/* SPDX-License-Identifier: MIT
 *
 * live_util.c - the forked live writer of tests/live (see live_util.h).
 * Public API only.
 */
#include "live_util.h"

#include <slog/slog.h>

#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void live_state_at(uint64_t i, uint32_t *timeline, uint32_t *category, int64_t *start,
                   int64_t *end)
{
    *timeline = (uint32_t)(i % 2);
    *category = (uint32_t)(i % 3);
    *start = 1000 + (int64_t)(i / 2) * 100;
    *end = *start + 90;
}

static int setup(slog_writer **w, const char *path)
{
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.leaf_bytes = 4096;
    o.creator = "live_util";
    uint32_t id = 0;
    if (slog_writer_create(w, path, &o, NULL) != SLOG_OK) {
        return -1;
    }
    const char *const names[] = {"alpha", "beta", "gamma"};
    for (int i = 0; i < 3; i++) {
        if (slog_writer_add_category(*w, SLOG_KIND_STATE, names[i], 0, "", &id, NULL) != SLOG_OK) {
            return -1;
        }
    }
    for (int i = 0; i < 2; i++) {
        if (slog_writer_add_timeline(*w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, i == 0 ? "t0" : "t1",
                                     i, &id, NULL) != SLOG_OK) {
            return -1;
        }
    }
    return slog_writer_flush(*w, NULL) == SLOG_OK ? 0 : -1;
}

static int write_steps(slog_writer *w, unsigned flushes, unsigned per_flush, unsigned pause_us)
{
    uint64_t total = 0;
    for (unsigned f = 0; f < flushes; f++) {
        for (unsigned k = 0; k < per_flush; k++, total++) {
            slog_state s = {0, 0, 0, 0, 0, 0, NULL};
            live_state_at(total, &s.timeline, &s.category, &s.start, &s.end);
            if (slog_writer_append_state(w, &s, NULL) != SLOG_OK) {
                return -1;
            }
        }
        if (slog_writer_flush(w, NULL) != SLOG_OK) {
            return -1;
        }
        const struct timespec ts = {0, (long)pause_us * 1000};
        (void)nanosleep(&ts, NULL);
    }
    return slog_writer_finish(w, NULL) == SLOG_OK ? 0 : -1;
}

pid_t live_writer_start(const char *path, unsigned flushes, unsigned per_flush, unsigned pause_us)
{
    int fd[2];
    if (pipe(fd) != 0) {
        return -1;
    }
    const pid_t pid = fork();
    if (pid == 0) {
        (void)close(fd[0]);
        slog_writer *w = NULL;
        int ok = setup(&w, path) == 0;
        const char c = ok ? 'y' : 'n';
        ok = write(fd[1], &c, 1) == 1 && ok;
        (void)close(fd[1]);
        ok = ok && write_steps(w, flushes, per_flush, pause_us) == 0;
        slog_writer_destroy(w);
        _exit(ok ? 0 : 1);
    }
    (void)close(fd[1]);
    char c = 'n';
    const ssize_t got = pid > 0 ? read(fd[0], &c, 1) : -1;
    (void)close(fd[0]);
    if (pid > 0 && (got != 1 || c != 'y')) {
        (void)live_writer_wait(pid);
        return -1;
    }
    return pid;
}

int live_writer_wait(pid_t pid)
{
    int st = 0;
    return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}
