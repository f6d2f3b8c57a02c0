/* SPDX-License-Identifier: MIT
 *
 * api_thread_finish.c - how the threaded writer ends: finish takes the
 * records of the locations still open (a copy of what each published with
 * its release store), stops the background after it drained the queue,
 * ends the states still open and seals the file; flush takes the same
 * records without ending anything and waits until the background wrote
 * them and flushed the file writer; destroy does finish's work without
 * sealing; forget_after_fork lets a child drop an inherited writer
 * without touching the parent's file.  Also the stats counters.
 * Layer 5: api.
 */
#include "api_thread.h"
#include "util_alloc.h"
#include "util_error.h"

#include <string.h>

/* Copy what @p loc published since the last capture into a new item. */
static void capture_location(slog_twriter *tw, slog_location *loc, uint32_t flags)
{
    (void)pthread_mutex_lock(&loc->mu);
    const size_t pos = atomic_load_explicit(&loc->pos, memory_order_acquire);
    const size_t len = pos - loc->taken;
    tw_item *const it = tw_item_new(tw, len > 0 ? len : 8);
    if (it != NULL) {
        memcpy(it->data, loc->buf + loc->taken, len);
        it->len = len;
        it->timeline = loc->timeline;
        it->flags = flags;
        it->last_time = INT64_MIN; /* the owner may be appending: flush and finish replay all */
        (void)pthread_mutex_lock(&tw->qmu);
        tw_enqueue_locked(tw, it);
        (void)pthread_mutex_unlock(&tw->qmu);
    } else {
        atomic_fetch_add_explicit(&tw->n_dropped, tw_count_records(loc->buf + loc->taken, len),
                                  memory_order_relaxed);
    }
    loc->taken = pos;
    (void)pthread_mutex_unlock(&loc->mu);
}

/* Stop taking records, hand every open location's records to the
 * background, let it drain the queue and join it. */
static void stop_background(slog_twriter *tw)
{
    atomic_fetch_or(&tw->finished, TW_FINISHED);
    (void)pthread_mutex_lock(&tw->qmu);
    (void)pthread_cond_broadcast(&tw->q_space);
    (void)pthread_mutex_unlock(&tw->qmu);
    tw_capture_locations(tw, TW_ITEM_CLOSE); /* their open states end */
    (void)pthread_mutex_lock(&tw->qmu);
    tw->stop = 1;
    (void)pthread_cond_broadcast(&tw->q_nonempty);
    (void)pthread_cond_broadcast(&tw->flushed);
    (void)pthread_mutex_unlock(&tw->qmu);
    if (tw->bg_running) {
        (void)pthread_join(tw->bg, NULL);
        tw->bg_running = 0;
        tw_fork_joined(tw);
    }
    /* definitions made after the last buffer still belong in the file */
    if (!tw->failed) {
        (void)tw_sync_definitions(tw);
    }
}

void tw_capture_locations(slog_twriter *tw, uint32_t flags)
{
    (void)pthread_mutex_lock(&tw->reg_mu);
    for (slog_location *loc = tw->locs; loc != NULL; loc = loc->next) {
        capture_location(tw, loc, flags);
    }
    (void)pthread_mutex_unlock(&tw->reg_mu);
}

int slog_twriter_flush(slog_twriter *tw, slog_error *err)
{
    if (atomic_load(&tw->finished) & TW_FINISHED) {
        return util_err(err, SLOG_ESTATE, UINT64_MAX, tw->path, "The writer is already finished");
    }
    tw_capture_locations(tw, 0);
    (void)pthread_mutex_lock(&tw->qmu);
    const uint64_t gen = ++tw->flush_req;
    (void)pthread_cond_signal(&tw->q_nonempty);
    while (tw->flush_done < gen && !tw->stop) {
        (void)pthread_cond_wait(&tw->flushed, &tw->qmu);
    }
    const int rc = tw->flush_done >= gen ? tw->flush_rc : SLOG_ESTATE;
    (void)pthread_mutex_unlock(&tw->qmu);
    if (rc == SLOG_ESTATE) {
        return util_err(err, rc, UINT64_MAX, tw->path, "The writer finished during the flush");
    }
    if (rc != SLOG_OK && err != NULL) {
        *err = tw->fail_err; /* the first failure: written once, before flush_done */
    }
    return rc;
}

int slog_twriter_finish(slog_twriter *tw, slog_error *err)
{
    if (atomic_load(&tw->finished) & TW_FINISHED) {
        return util_err(err, SLOG_ESTATE, UINT64_MAX, tw->path, "The writer is already finished");
    }
    stop_background(tw);
    if (tw->failed) {
        if (err != NULL) {
            *err = tw->fail_err;
        }
        return tw->failed;
    }
    const int rc = slog_writer_finish(tw->w, err);
    if (rc != SLOG_OK) {
        tw->failed = rc;
        atomic_fetch_or(&tw->finished, TW_FAILED); /* stats.records: what reached the disk */
    }
    return rc;
}

void slog_twriter_destroy(slog_twriter *tw)
{
    if (tw == NULL) {
        return;
    }
    if (!(atomic_load(&tw->finished) & TW_FINISHED)) {
        stop_background(tw);
    }
    slog_writer_destroy(tw->w);
    tw->w = NULL;
    tw_unref(tw);
}

void slog_twriter_forget_after_fork(slog_twriter *tw)
{
    if (tw == NULL) {
        return;
    }
    /* The parent's threads (background, locations' owners) do not exist
     * here and may have held any of the writer's mutexes: touch none, free
     * nothing that they share.  Only the file is made harmless: its
     * descriptor now points at /dev/null and its HDF5 objects are closed,
     * so nothing of the child (nor HDF5 at the child's exit) writes into
     * the parent's file. */
    atomic_store(&tw->finished, TW_FINISHED);
    api_writer_forget_after_fork(tw->w);
    tw->w = NULL;
}

void slog_twriter_get_stats(slog_twriter *tw, slog_twriter_stats *out)
{
    memset(out, 0, sizeof *out);
    /* After a failure the file writer's memory (open nodes, unflushed
     * writes) never reaches the disk: count what the file holds. */
    out->records = (atomic_load(&tw->finished) & TW_FAILED) ? atomic_load(&tw->n_durable)
                                                            : atomic_load(&tw->n_records);
    out->dropped = atomic_load(&tw->n_dropped);
    out->rejected = atomic_load(&tw->n_rejected);
    out->truncated = atomic_load(&tw->n_truncated);
    out->waits = atomic_load(&tw->n_waits);
    out->buffers = atomic_load(&tw->n_buffers);
    (void)pthread_mutex_lock(&tw->qmu);
    out->peak_queue_bytes = tw->peak_qbytes;
    (void)pthread_mutex_unlock(&tw->qmu);
}
