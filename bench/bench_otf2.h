/* SPDX-License-Identifier: MIT
 *
 * bench_otf2.h - the OTF2 side of the benchmarks (Debian's libotf2): write
 * the bench_gen states as Enter/Leave pairs, one location per timeline and
 * one region per category; and scan an archive for the states overlapping
 * a window with the global event reader (OTF2 has no index).
 */
#ifndef BENCH_OTF2_H
#define BENCH_OTF2_H

#include <stdint.h>

#include "bench_gen.h"

/** Write @p states nested states (bench_gen with @p seed) into archive
 *  @p dir/trace.otf2; the time of the writer calls only (generation
 *  excluded) goes to @p timer.  Returns 0 or -1. */
int bench_otf2_write(const char *dir, uint64_t states, uint32_t timelines, uint32_t categories,
                     uint64_t seed, bench_timer *timer, uint64_t *written);

/** Count states overlapping [t0, t1) by reading the archive's events in
 *  time order; with @p stop_at_t1, stop at the first event at or after t1
 *  (the least an index-less reader must read).  Returns 0 or -1. */
int bench_otf2_window(const char *dir, int64_t t0, int64_t t1, int stop_at_t1,
                      uint64_t *states, uint64_t *events_read);

/** One location's Enter+Leave pairs (@p pairs of them, 8 regions) into
 *  @p dir: *secs and *cpu receive the wall and thread CPU time of the
 *  Enter/Leave calls alone (bench_thread's calling-thread cost).
 *  Returns 0 or -1. */
int bench_otf2_pairs(const char *dir, uint64_t pairs, double *secs, double *cpu);

#endif /* BENCH_OTF2_H */
