/* SPDX-License-Identifier: MIT
 *
 * api_writer_bg.h - the pipe between a file writer's caller and its
 * background thread (SLOG_WRITER_BACKGROUND).  The caller fills batches of
 * checked records; one thread hands each full batch, in order, to an apply
 * function (the writer's tree, previews, LZ4 and HDF5 writes).  Memory is
 * bounded and reused: WBG_BATCHES batches of WBG_BATCH_BYTES (a batch grows
 * only to hold one larger record), and a caller that gets ahead waits.
 *
 * The first error the apply function returns is kept: the background
 * skips the batches after it and the caller gets it from wbg_room or
 * wbg_sync.
 *
 * Threads: wbg_room, wbg_commit, wbg_sync and wbg_stop are the caller's
 * (one thread at a time).  Fork: a child must not use an inherited pipe.
 * Layer 5: api.
 */
#ifndef API_WRITER_BG_H
#define API_WRITER_BG_H

#include <stddef.h>
#include <stdint.h>

#include <slog/slog_common.h>

#define WBG_BATCHES     4u
#define WBG_BATCH_BYTES (1u << 20)

typedef struct wbg wbg;

/* Apply one batch; SLOG_OK or an error in err. */
typedef int (*wbg_apply_fn)(void *ctx, const uint8_t *batch, size_t len, slog_error *err);

/* Start the thread.  SLOG_OK, or SLOG_ENOMEM / SLOG_EIO with err set (no
 * source: the writer adds its path). */
int wbg_start(wbg **out, wbg_apply_fn apply, void *ctx, slog_error *err);

/* Room for @p n bytes at the end of the batch being filled, in *out
 * (handing the batch over first when it is full).  SLOG_OK, or the
 * background's error, or SLOG_ENOMEM, with err set. */
int wbg_room(wbg *b, size_t n, uint8_t **out, slog_error *err);

/* The @p n bytes written at wbg_room's pointer belong to the batch. */
void wbg_commit(wbg *b, size_t n);

/* Hand over the batch being filled and wait until the background applied
 * every batch; SLOG_OK or the background's error.  The background is then
 * idle until the next batch: the caller may use what it shares with it. */
int wbg_sync(wbg *b, slog_error *err);

/* Stop and join the thread (batches not applied are dropped), free all. */
void wbg_stop(wbg *b);

#endif /* API_WRITER_BG_H */
