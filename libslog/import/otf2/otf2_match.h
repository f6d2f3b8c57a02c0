/* SPDX-License-Identifier: MIT
 *
 * otf2_match.h - pair MPI message ends into arrows.  A message is keyed by
 * (communicator, sender process, receiver process, tag); MPI's
 * non-overtaking rule makes the n-th send of a key match the n-th receive,
 * so each key holds one FIFO of the ends seen first.  Memory is bounded by
 * the messages in flight, not by the trace.  Also tracks outstanding
 * non-blocking requests (Isend until IsendComplete, IrecvRequest until
 * Irecv) so that ends that never complete are counted.
 */
#ifndef SLOG_IMPORT_OTF2_MATCH_H
#define SLOG_IMPORT_OTF2_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct otf2_msg_key {
    uint64_t comm;
    uint32_t sender;   /* location-group index of the sending process */
    uint32_t receiver; /* location-group index of the receiving process */
    uint32_t tag;
} otf2_msg_key;

typedef struct otf2_msg_end {
    int64_t time;      /* ns */
    uint32_t timeline; /* timeline of the location that recorded it */
    uint64_t bytes;
} otf2_msg_end;

typedef struct otf2_match otf2_match;

otf2_match *otf2_match_create(void);
void otf2_match_destroy(otf2_match *m);

/* Offer a send (is_send) or a receive.  Returns 1 and fills *other when it
 * pairs with the oldest waiting end of the other side, 0 when queued, -1 when
 * out of memory. */
int otf2_match_offer(otf2_match *m,
                     const otf2_msg_key *key,
                     bool is_send,
                     const otf2_msg_end *end,
                     otf2_msg_end *other);

/* Ends still waiting: sends without receive, receives without send. */
void otf2_match_pending(const otf2_match *m, uint64_t *sends, uint64_t *recvs);

/* Non-blocking requests: open returns -1 on OOM, 1 if the request was already
 * open (reused id), else 0; close returns 1 if it was open, else 0. */
int otf2_request_open(otf2_match *m, uint32_t loc, uint64_t request);
int otf2_request_close(otf2_match *m, uint32_t loc, uint64_t request);
uint64_t otf2_request_outstanding(const otf2_match *m);

#endif /* SLOG_IMPORT_OTF2_MATCH_H */
