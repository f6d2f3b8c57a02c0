/* SPDX-License-Identifier: MIT
 *
 * import_guard.c - a bounded wait on a job that may hang.  libotf2 3.0.2
 * never returns from reading some damaged archives; a library may not end
 * the process (the tool used to, from SIGALRM), and a thread stuck in a
 * loop cannot be stopped safely (asynchronous cancellation inside malloc
 * could deadlock the whole process later).  So the job runs on its own
 * thread while the caller waits on a condition variable in 50 ms steps,
 * checking the cancel flag; when the time is up the caller goes on with an
 * error and the job's thread keeps what it owns.  The cost of a hang is one
 * spinning thread, never a dead process or a use after free.
 * Import library, core: pthreads.
 */
#include "import_guard.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#define STEP_MS 50u

typedef struct guard {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    bool done;
    bool abandoned;
    void (*job)(void *);
    void (*release)(void *);
    void *arg;
} guard;

static void guard_free(guard *g)
{
    (void)pthread_cond_destroy(&g->cv);
    (void)pthread_mutex_destroy(&g->lock);
    free(g);
}

static void *guard_main(void *p)
{
    guard *const g = p;
    g->job(g->arg);
    pthread_mutex_lock(&g->lock);
    g->done = true;
    const bool abandoned = g->abandoned;
    (void)pthread_cond_signal(&g->cv);
    pthread_mutex_unlock(&g->lock);
    if (abandoned) { /* the caller left: everything is ours to free */
        g->release(g->arg);
        guard_free(g);
    }
    return NULL;
}

static guard *guard_new(void (*job)(void *), void (*release)(void *), void *arg)
{
    guard *const g = calloc(1, sizeof *g);
    if (g == NULL) {
        return NULL;
    }
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0) {
        free(g);
        return NULL;
    }
    (void)pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    const int rc = pthread_cond_init(&g->cv, &ca);
    (void)pthread_condattr_destroy(&ca);
    if (rc != 0 || pthread_mutex_init(&g->lock, NULL) != 0) {
        if (rc == 0) {
            (void)pthread_cond_destroy(&g->cv);
        }
        free(g);
        return NULL;
    }
    g->job = job;
    g->release = release;
    g->arg = arg;
    return g;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Wait one step (or less); under g->lock. */
static void wait_step(guard *g, uint64_t until_ms)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    const uint64_t now = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
    const uint64_t step = until_ms > now && until_ms - now < STEP_MS ? until_ms - now : STEP_MS;
    uint64_t ns = (uint64_t)ts.tv_nsec + step * 1000000u;
    ts.tv_sec += (time_t)(ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    (void)pthread_cond_timedwait(&g->cv, &g->lock, &ts);
}

import_guard_outcome import_guard_run(void (*job)(void *arg), void (*release)(void *arg),
                                      void *arg, uint32_t timeout_ms,
                                      const slog_atomic_int *cancel)
{
    guard *const g = guard_new(job, release, arg);
    pthread_t th;
    if (g == NULL || pthread_create(&th, NULL, guard_main, g) != 0) {
        if (g != NULL) {
            guard_free(g);
        }
        return IMPORT_GUARD_NO_THREAD;
    }
    const uint64_t until = now_ms() + timeout_ms;
    import_guard_outcome out = IMPORT_GUARD_DONE;
    pthread_mutex_lock(&g->lock);
    while (!g->done && out == IMPORT_GUARD_DONE) {
        if (cancel != NULL && atomic_load(cancel) != 0) {
            out = IMPORT_GUARD_CANCELLED;
        } else if (now_ms() >= until) {
            out = IMPORT_GUARD_TIMEOUT;
        } else {
            wait_step(g, until);
        }
    }
    g->abandoned = !g->done;
    const bool finished = g->done;
    pthread_mutex_unlock(&g->lock);
    if (finished) {
        (void)pthread_join(th, NULL);
        guard_free(g);
        return IMPORT_GUARD_DONE;
    }
    (void)pthread_detach(th); /* g belongs to the thread now */
    return out;
}
