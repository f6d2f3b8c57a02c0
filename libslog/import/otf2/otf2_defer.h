/* SPDX-License-Identifier: MIT
 *
 * otf2_defer.h - OTF2 event records packed on the thread that reads the
 * archive and replayed, in the same order, on the thread that maps them
 * (doc/IMPORT-OTF2.md, "Two threads").  A packed record names the function
 * that replays it, its location and time, its fields as 64-bit words and a
 * copy of its attribute list; the replay rebuilds the attribute list and
 * calls that function as libotf2 would have called the mapping callback.
 *
 * Layout of a record in a batch (native byte order, 8-byte aligned):
 *   otf2_deferred header (replay, loc, t, nargs, nattrs)
 *   nargs words of fields
 *   nattrs attributes of 16 bytes: ref u32, type u8, 3 zero bytes, value u64
 * Import library, OTF2: libotf2, libc.
 */
#ifndef SLOG_OTF2_DEFER_H
#define SLOG_OTF2_DEFER_H

#include <stdint.h>

#include <otf2/otf2.h>

#include "otf2_pipe.h"

typedef struct otf2_deferred otf2_deferred;

/* Calls the mapping callback with the record's fields; al holds its
 * attributes (empty when it had none). */
typedef OTF2_CallbackCode (*otf2_replay_fn)(void *ud, const otf2_deferred *r,
                                            OTF2_AttributeList *al);

struct otf2_deferred {
    otf2_replay_fn replay;
    uint64_t loc, t;
    uint32_t nargs, nattrs;
    uint64_t a[]; /* nargs fields, then the attributes */
};

/* Most fields a record may have (a METRIC of 255 members: 2 + 32 + 255). */
#define OTF2_DEFER_MAX_ARGS 289u

/* Pack a record into the pipe: @p head's replay, loc, t and nargs, the
 * head->nargs words of @p args and the attributes of @p al (NULL: none).
 * 0, 1 when it is too large for a batch (the caller drains the pipe and maps
 * the record itself), -1 when the replay failed (stop reading). */
int otf2_defer_put(otf2_pipe *p, const otf2_deferred *head, const OTF2_AttributeList *al,
                   const uint64_t *args);

/* What replays a pipe's batches: the mapping callbacks' user data and an
 * attribute list reused for every record. */
typedef struct otf2_replayer {
    void *ud;
    OTF2_AttributeList *al;
} otf2_replayer;

/* An otf2_pipe_replay_fn over an otf2_replayer: every record of the batch
 * in order; -1 as soon as one returns OTF2_CALLBACK_INTERRUPT. */
int otf2_defer_replay(void *replayer, const uint8_t *batch, size_t len);

#endif /* SLOG_OTF2_DEFER_H */
