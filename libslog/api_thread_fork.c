/* SPDX-License-Identifier: MIT
 *
 * api_thread_fork.c - the threaded writers across fork(): a background
 * thread does not exist in the child, so a lock it held at the fork stays
 * held there for good.  libslog's own locks are covered (the HDF5 lock is
 * taken across fork; the child only forgets an inherited writer), but the
 * allocator's are not ours: glibc's malloc takes its arenas across fork,
 * AddressSanitizer's allocator (GCC 12's libasan: no fork interceptor, no
 * atfork handler) does not.  A fork that caught a background inside malloc
 * (a size class's lock held while it maps memory, and the mapping waits
 * for fork itself) left the child hanging at its first malloc of that size
 * class.  So fork waits until every background is idle: bg_busy (under
 * qmu) is set from before the thread starts until its first wait for
 * work, while it works, and from its last work until it was joined (the
 * thread's own start and exit allocate too); a waiting fork lets no
 * background start work, and one working stops for it between two slices
 * (tw_fork_point).  Nothing is held across the fork but the list lock.
 * The handlers are registered after the HDF5 lock's so that prepare runs
 * before the lock's own (POSIX runs prepare handlers in reverse order of
 * registration): a background in the middle of a slice may need the HDF5
 * lock to end it.
 * Layer 5: api.
 */
#include "api_thread.h"
#include "util_lock.h"

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t tracked_mu = PTHREAD_MUTEX_INITIALIZER; /* held across fork */
static slog_twriter *tracked; /* writers whose background is in this process */

/* Wait until every tracked background is idle; none starts work until
 * tw_atfork_parent (the child has none). */
void tw_atfork_prepare(void)
{
    (void)pthread_mutex_lock(&tracked_mu);
    for (slog_twriter *tw = tracked; tw != NULL; tw = tw->fork_next) {
        (void)pthread_mutex_lock(&tw->qmu);
        atomic_store(&tw->fork_waiting, 1);
        while (tw->bg_busy) {
            (void)pthread_cond_wait(&tw->fork_cv, &tw->qmu);
        }
        (void)pthread_mutex_unlock(&tw->qmu);
    }
}

void tw_atfork_parent(void)
{
    for (slog_twriter *tw = tracked; tw != NULL; tw = tw->fork_next) {
        (void)pthread_mutex_lock(&tw->qmu);
        atomic_store(&tw->fork_waiting, 0);
        (void)pthread_cond_broadcast(&tw->fork_cv);
        (void)pthread_mutex_unlock(&tw->qmu);
    }
    (void)pthread_mutex_unlock(&tracked_mu);
}

/* The child's only thread: the backgrounds stayed in the parent, and the
 * child forgets their writers (slog_twriter_forget_after_fork). */
static void atfork_child(void)
{
    tracked = NULL;
    (void)pthread_mutex_unlock(&tracked_mu);
}

static void register_handlers(void)
{
    util_lock_init(); /* the HDF5 lock's handlers first (see above) */
    (void)pthread_atfork(tw_atfork_prepare, tw_atfork_parent, atfork_child);
}

void tw_fork_track(slog_twriter *tw)
{
    (void)pthread_once(&fork_once, register_handlers);
    tw->bg_busy = 1; /* its start: not yet shared */
    (void)pthread_mutex_lock(&tracked_mu);
    tw->fork_prev = NULL;
    tw->fork_next = tracked;
    if (tracked != NULL) {
        tracked->fork_prev = tw;
    }
    tracked = tw;
    (void)pthread_mutex_unlock(&tracked_mu);
}

void tw_fork_untrack(slog_twriter *tw)
{
    (void)pthread_mutex_lock(&tracked_mu);
    if (tw->fork_prev != NULL) {
        tw->fork_prev->fork_next = tw->fork_next;
    } else if (tracked == tw) {
        tracked = tw->fork_next;
    }
    if (tw->fork_next != NULL) {
        tw->fork_next->fork_prev = tw->fork_prev;
    }
    tw->fork_prev = tw->fork_next = NULL;
    (void)pthread_mutex_unlock(&tracked_mu);
}

/* The background was joined: a fork waiting for it goes on (first, as it
 * holds the list lock), then the writer leaves the list. */
void tw_fork_joined(slog_twriter *tw)
{
    (void)pthread_mutex_lock(&tw->qmu);
    tw_fork_idle_locked(tw);
    (void)pthread_mutex_unlock(&tw->qmu);
    tw_fork_untrack(tw);
}

void tw_fork_idle_locked(slog_twriter *tw)
{
    if (tw->bg_busy) {
        tw->bg_busy = 0;
        (void)pthread_cond_broadcast(&tw->fork_cv);
    }
}

void tw_fork_work_locked(slog_twriter *tw)
{
    while (atomic_load(&tw->fork_waiting)) {
        tw_fork_idle_locked(tw);
        (void)pthread_cond_wait(&tw->fork_cv, &tw->qmu);
    }
    tw->bg_busy = 1;
}

/* Between two slices (nothing half done, no lock held): a waiting fork
 * goes first. */
void tw_fork_point(slog_twriter *tw)
{
    if (atomic_load_explicit(&tw->fork_waiting, memory_order_relaxed)) {
        (void)pthread_mutex_lock(&tw->qmu);
        tw_fork_work_locked(tw);
        (void)pthread_mutex_unlock(&tw->qmu);
    }
}
