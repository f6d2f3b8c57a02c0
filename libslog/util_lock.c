/* SPDX-License-Identifier: MIT
 *
 * util_lock.c - the global HDF5 lock (recursive, so nested store calls work).
 * fork() takes it first (pthread_atfork), so no HDF5 call is half done in
 * the child and the child never inherits the lock held by a thread it lacks.
 * Layer 0: pthread only.
 */
#include "util_lock.h"

#include <pthread.h>

static pthread_once_t lock_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t hdf5_lock;

static void before_fork(void)
{
    (void)pthread_mutex_lock(&hdf5_lock);
}

static void parent_after_fork(void)
{
    (void)pthread_mutex_unlock(&hdf5_lock);
}

static void make_lock(void)
{
    pthread_mutexattr_t attr;
    (void)pthread_mutexattr_init(&attr);
    (void)pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    (void)pthread_mutex_init(&hdf5_lock, &attr);
    (void)pthread_mutexattr_destroy(&attr);
}

/* The child's thread has a new kernel id, so it does not own the recursive
 * lock it inherited held: a fresh lock replaces it. */
static void child_after_fork(void)
{
    make_lock();
}

static void lock_init(void)
{
    make_lock();
    (void)pthread_atfork(before_fork, parent_after_fork, child_after_fork);
}

void util_lock_init(void)
{
    (void)pthread_once(&lock_once, lock_init);
}

void util_lock_hdf5(void)
{
    util_lock_init();
    (void)pthread_mutex_lock(&hdf5_lock);
}

void util_unlock_hdf5(void)
{
    (void)pthread_mutex_unlock(&hdf5_lock);
}

int util_trylock_hdf5(void)
{
    util_lock_init();
    return pthread_mutex_trylock(&hdf5_lock);
}
