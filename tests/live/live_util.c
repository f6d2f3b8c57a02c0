/* SPDX-License-Identifier: MIT
 *
 * live_util.c - the forked live writer of tests/live (see live_util.h).
 * Public API only.
 */
#include "live_util.h"

#include <slog/slog.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

uint32_t live_timelines_after(unsigned steps)
{
    return 2u + (steps > 0 ? (steps - 1) / LIVE_GROW_STEPS : 0);
}

uint32_t live_categories_after(unsigned steps)
{
    return 3u + (steps > 0 ? (steps - 1) / LIVE_GROW_STEPS : 0);
}

void live_state_at(uint64_t i, unsigned per_flush, uint32_t *timeline, uint32_t *category,
                   int64_t *start, int64_t *end)
{
    const unsigned step = (unsigned)(i / per_flush);
    *timeline = (uint32_t)(i % live_timelines_after(step + 1));
    *category = (uint32_t)(i % live_categories_after(step + 1));
    *start = LIVE_STATE_START(i);
    *end = *start + 40;
}

/* Before step f: one more timeline and category every LIVE_GROW_STEPS steps. */
static int grow(slog_writer *w, unsigned f)
{
    if (f == 0 || f % LIVE_GROW_STEPS != 0) {
        return 0;
    }
    char name[32];
    uint32_t id = 0;
    (void)snprintf(name, sizeof name, "late%u", f / LIVE_GROW_STEPS);
    if (slog_writer_add_category(w, SLOG_KIND_STATE, name, 0, "", &id, NULL) != SLOG_OK ||
        slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, name, (int64_t)f, &id,
                                 NULL) != SLOG_OK) {
        return -1;
    }
    return 0;
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
        if (grow(w, f) != 0) {
            return -1;
        }
        for (unsigned k = 0; k < per_flush; k++, total++) {
            slog_state s = {0, 0, 0, 0, 0, 0, NULL};
            live_state_at(total, per_flush, &s.timeline, &s.category, &s.start, &s.end);
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
