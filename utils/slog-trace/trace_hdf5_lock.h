/* SPDX-License-Identifier: MIT
 *
 * trace_hdf5_lock.h - run a function while the calling thread holds HDF5's
 * global lock (trace_hdf5_lock.c).
 * Layer: slog-trace preload library.
 */
#ifndef TRACE_HDF5_LOCK_H
#define TRACE_HDF5_LOCK_H

/* Call fn(arg) inside an HDF5 call, HDF5's global lock held: 0 when it
 * did, -1 when it could not (fn not called; the caller runs it itself). */
int trace_with_hdf5_lock(void (*fn)(void *), void *arg);

/* Fork: no child may inherit HDF5's lock taken here (its own file's HDF5
 * calls would wait for ever), so fork's prepare handler takes this first,
 * and both sides release it after. */
void trace_hdf5_lock_fork_prepare(void);
void trace_hdf5_lock_fork_release(void);

#endif /* TRACE_HDF5_LOCK_H */
