/* SPDX-License-Identifier: MIT
 *
 * otf2_pipe.h - batches of bytes from the thread that reads an OTF2
 * archive to the thread that maps its records (otf2_defer.h packs and
 * replays them).  One consumer thread takes the batches in order and hands
 * each to a replay function; memory is bounded and reused (OTF2_PIPE_BATCHES
 * batches of OTF2_PIPE_BATCH_BYTES) and a producer that gets ahead waits.
 * Once the replay function fails, the batches after it are dropped and the
 * producer's next put or drain says so.  The producer's calls are one thread's; bytes it wrote with
 * streaming (non-temporal) stores are fenced before each hand-over.
 * Import library, OTF2: libc, pthreads.
 */
#ifndef SLOG_OTF2_PIPE_H
#define SLOG_OTF2_PIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OTF2_PIPE_BATCHES     4u
#define OTF2_PIPE_BATCH_BYTES ((size_t)1 << 20)

typedef struct otf2_pipe otf2_pipe;

/* Replay one batch on the consumer thread; 0 ok, -1 stop (the error is the
 * replay's own to keep). */
typedef int (*otf2_pipe_replay_fn)(void *ctx, const uint8_t *batch, size_t len);

/* Start the consumer thread; NULL when memory or the thread is missing. */
otf2_pipe *otf2_pipe_start(otf2_pipe_replay_fn replay, void *ctx);

/* @p n bytes (n <= OTF2_PIPE_BATCH_BYTES) at the end of the batch being
 * filled, for the caller to write before its next call (the batch is handed
 * over first when they do not fit); NULL once the replay failed. */
uint8_t *otf2_pipe_put(otf2_pipe *p, size_t n);

/* Hand over what is filled and wait until every batch was replayed: the
 * consumer is then idle and what it shares with the producer is the
 * producer's until the next put.  0, or -1 when the replay failed. */
int otf2_pipe_drain(otf2_pipe *p);

/* Stop and join the consumer (batches not replayed are dropped); NULL ok. */
void otf2_pipe_stop(otf2_pipe *p);

#endif /* SLOG_OTF2_PIPE_H */
