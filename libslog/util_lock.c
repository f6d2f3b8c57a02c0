/* SPDX-License-Identifier: MIT
 *
 * util_lock.c - the global HDF5 lock (recursive, so nested store calls work).
 * Layer 0: pthread only.
 */
#include "util_lock.h"

#include <pthread.h>

static pthread_once_t lock_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t hdf5_lock;

static void lock_init(void)
{
    pthread_mutexattr_t attr;
    (void)pthread_mutexattr_init(&attr);
    (void)pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    (void)pthread_mutex_init(&hdf5_lock, &attr);
    (void)pthread_mutexattr_destroy(&attr);
}

void util_lock_hdf5(void)
{
    (void)pthread_once(&lock_once, lock_init);
    (void)pthread_mutex_lock(&hdf5_lock);
}

void util_unlock_hdf5(void)
{
    (void)pthread_mutex_unlock(&hdf5_lock);
}
