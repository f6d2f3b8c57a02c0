/* SPDX-License-Identifier: MIT
 *
 * crash_tracer.c - a per-thread tracer for the crash matrix: 4 threads,
 * each with its own location of a slog_twriter (background writer
 * thread), append nested states and events as fast as they can; every
 * writer flush is logged like slog-synth --flush-log (utils/common
 * flush_log), so a kill -9 at any moment can be checked against it.
 * Usage: crash_tracer FILE FLUSH_LOG [STATES_PER_THREAD]
 * Public API only.
 */
#include <slog/slog.h>
#include <slog/slog_thread.h>

#include "flush_log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4

typedef struct worker {
    slog_twriter *tw;
    uint32_t state_cat, event_cat;
    unsigned long n;
    int idx, ok;
} worker;

static void *trace(void *arg)
{
    worker *const w = arg;
    char name[16];
    (void)snprintf(name, sizeof name, "thread %d", w->idx);
    slog_location *loc = NULL;
    if (slog_twriter_open_location(w->tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, name, &loc, NULL) !=
        SLOG_OK) {
        return NULL;
    }
    int64_t t = 0;
    int bad = 0;
    for (unsigned long i = 0; i < w->n && !bad; i++, t += 10) {
        bad |= slog_location_begin(loc, w->state_cat, t, NULL, 0) != SLOG_OK;
        bad |= slog_location_begin(loc, w->state_cat, t + 1, NULL, 0) != SLOG_OK;
        bad |= slog_location_end(loc, t + 4) != SLOG_OK;
        bad |= i % 8 == 0 && slog_location_event(loc, w->event_cat, t + 5, NULL, 0) != SLOG_OK;
        bad |= slog_location_end(loc, t + 8) != SLOG_OK;
    }
    slog_location_close(loc);
    w->ok = !bad;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        (void)fprintf(stderr, "usage: crash_tracer FILE FLUSH_LOG [STATES_PER_THREAD]\n");
        return 2;
    }
    flush_log log;
    if (flush_log_open(&log, argv[2]) != 0) {
        perror(argv[2]);
        return 1;
    }
    slog_writer_options wo = SLOG_WRITER_OPTIONS_INIT;
    wo.leaf_bytes = 8192;
    flush_log_attach(&log, &wo);
    slog_twriter_options to = SLOG_TWRITER_OPTIONS_INIT;
    to.buffer_bytes = 16384;
    to.writer = &wo;
    slog_twriter *tw = NULL;
    slog_error err = {0, 0, "", "unknown error"};
    worker w[NTHREADS];
    pthread_t th[NTHREADS];
    int ok = slog_twriter_create(&tw, argv[1], &to, &err) == SLOG_OK;
    uint32_t sc = 0, ec = 0;
    ok = ok && slog_twriter_category(tw, SLOG_KIND_STATE, "work", &sc, &err) == SLOG_OK &&
         slog_twriter_category(tw, SLOG_KIND_EVENT, "tick", &ec, &err) == SLOG_OK;
    const unsigned long n = argc > 3 ? strtoul(argv[3], NULL, 10) : 200000ul;
    for (int i = 0; ok && i < NTHREADS; i++) {
        w[i] = (worker){tw, sc, ec, n, i, 0};
        ok = pthread_create(&th[i], NULL, trace, &w[i]) == 0;
    }
    for (int i = 0; ok && i < NTHREADS; i++) {
        ok = pthread_join(th[i], NULL) == 0 && w[i].ok;
    }
    ok = ok && slog_twriter_finish(tw, &err) == SLOG_OK;
    slog_twriter_destroy(tw);
    flush_log_close(&log);
    if (!ok) {
        (void)fprintf(stderr, "crash_tracer: failed: %s\n", err.message);
    }
    return ok ? 0 : 1;
}
