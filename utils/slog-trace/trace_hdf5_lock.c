/* SPDX-License-Identifier: MIT
 *
 * trace_hdf5_lock.c - run a function while this thread holds HDF5's global
 * lock.  A thread-safe HDF5 (Debian's) holds one lock through every API
 * call, its callbacks included.  The tracer's writer writes its file
 * through the same HDF5 as the program, and a program thread inside HDF5
 * that makes a recorded call (HDF5's own pwrite, a callback's I/O) then
 * waits for the tracer's lock: so a tracer thread that takes the tracer's
 * lock and then calls HDF5 (the timer's flush) must hold HDF5's lock first,
 * in the order the program's threads take them, or the two wait for each
 * other for ever.  The lock is taken by iterating, with fn as the callback,
 * over the one group of a file kept in memory (the core driver, no backing
 * store), made on first use.  With an HDF5 that is not thread-safe there
 * is no lock, and fn runs as it would anyway.  A fork waits until no
 * thread is in that call or in making the file (libslog makes its own HDF5
 * calls under a lock that fork takes; these are not under it).
 * Layer: slog-trace preload library.
 */
#include "trace_hdf5_lock.h"

#include <hdf5.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_once_t made = PTHREAD_ONCE_INIT;
static pthread_mutex_t section = PTHREAD_MUTEX_INITIALIZER; /* held around the HDF5 call */
static hid_t anchor = H5I_INVALID_HID; /* the file in memory, open for the process's life */

static void make_anchor(void)
{
    char name[64];
    (void)snprintf(name, sizeof name, "slog-trace-hdf5-lock-%ld", (long)getpid());
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0) {
        return;
    }
    H5E_auto2_t fn;
    void *data;
    (void)H5Eget_auto2(H5E_DEFAULT, &fn, &data);
    (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* a failure is ours to handle, quietly */
    hid_t f = H5Pset_fapl_core(fapl, 4096, 0) < 0
                  ? H5I_INVALID_HID
                  : H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    const hid_t g = f < 0 ? H5I_INVALID_HID
                          : H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0 || H5Gclose(g) < 0) {
        (void)(f >= 0 ? H5Fclose(f) : 0);
        f = H5I_INVALID_HID;
    }
    (void)H5Eset_auto2(H5E_DEFAULT, fn, data);
    (void)H5Pclose(fapl);
    anchor = f;
}

typedef struct call {
    void (*fn)(void *);
    void *arg;
} call;

static herr_t run_call(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
    (void)group;
    (void)name;
    (void)info;
    const call *const c = data;
    c->fn(c->arg);
    return 1; /* stop: one link, one call */
}

int trace_with_hdf5_lock(void (*fn)(void *), void *arg)
{
    /* The anchor is made under the section too: its HDF5 calls hold HDF5's
     * lock, and a fork in the meantime left the child waiting for it for
     * ever (its first call opens its file through HDF5). */
    (void)pthread_mutex_lock(&section);
    (void)pthread_once(&made, make_anchor);
    herr_t rc = -1;
    if (anchor >= 0) {
        call c = {fn, arg};
        hsize_t idx = 0;
        rc = H5Literate(anchor, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, run_call, &c);
    }
    (void)pthread_mutex_unlock(&section);
    return rc == 1 ? 0 : -1;
}

void trace_hdf5_lock_fork_prepare(void)
{
    (void)pthread_mutex_lock(&section);
}

void trace_hdf5_lock_fork_release(void)
{
    (void)pthread_mutex_unlock(&section);
}
