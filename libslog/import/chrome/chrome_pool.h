/* SPDX-License-Identifier: MIT
 *
 * chrome_pool.h - where the Chrome importer's records live (chrome_pool.c).
 * Import library, chrome: libc, pthreads.
 */
#ifndef SLOG_IMPORT_CHROME_POOL_H
#define SLOG_IMPORT_CHROME_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "chrome_record.h"

/*
 * Record memory: the parser's records come from size classes of blocks cut
 * from big slabs and recycled, instead of one malloc/free each (with the
 * reader thread, every free was a cross-thread free into the feeder's malloc
 * arena).  One thread allocates (the feeder), one frees (the consumer);
 * freed blocks go to a consumer-side list handed over in bulk under a mutex.
 * Slabs are released by chrome_pool_destroy only, so a block dropped without
 * chrome_event_free (failure paths of the feeder) is not a leak.
 */
chrome_pool *chrome_pool_create(void);
/* A block of @p bytes (>= sizeof(chrome_event)) with pool and pool_class
 * set and nothing else initialised; NULL on no memory. */
chrome_event *chrome_event_alloc(chrome_pool *pool, size_t bytes);
/* Free a record from either source; NULL-safe.  Consumer side only. */
void chrome_event_free(chrome_event *ev);
/* Free on the feeder side: pool blocks are left to chrome_pool_destroy. */
void chrome_event_drop(chrome_event *ev);
void chrome_pool_destroy(chrome_pool *pool);
/* Consumer side, when it would wait for records: fault in a slab for the
 * feeder ahead of its need (a new process's first touch of memory is what
 * costs, and the pool fills up while the consumer has little to do); at most
 * a few wait.  Returns true when it added one. */
bool chrome_pool_reserve(chrome_pool *pool);

#endif /* SLOG_IMPORT_CHROME_POOL_H */
