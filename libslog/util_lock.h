/* SPDX-License-Identifier: MIT
 *
 * util_lock.h - the one process-wide lock around every HDF5 call: the stock
 * HDF5 build is not safe across threads, even on separate files.  LZ4
 * decoding runs outside it.
 * Layer 0: pthread only.
 */
#ifndef UTIL_LOCK_H
#define UTIL_LOCK_H

void util_lock_hdf5(void);
void util_unlock_hdf5(void);
/* 0 when the lock was free and is now held; nonzero when another thread
 * holds it (exit handlers must not wait for a thread that exit stops). */
int util_trylock_hdf5(void);
/* Create the lock and register its fork handlers now (once).  A module
 * whose own fork prepare handler must run before the lock's (POSIX runs
 * prepare handlers in reverse order of registration) registers after this. */
void util_lock_init(void);

#endif /* UTIL_LOCK_H */
