/* SPDX-License-Identifier: MIT
 *
 * api_thread_drain.c - the background side of the threaded writer: takes
 * full buffers from the queue in FIFO order, brings the file writer's
 * timeline and category tables up to date (ids are dense in definition
 * order on both sides, so they match), and replays each record into the
 * file writer (slog_writer.h), which builds the tree, previews, LZ4 and
 * HDF5 writes.  Per timeline it keeps the location's open states (begin
 * time, category, args) and writes each as one whole state at its end
 * (slog_writer_append_state, the writer's fastest path), so every end
 * pairs with its own begin whatever the file writer refuses; states begun
 * in a dropped stretch are marked lost and their ends skipped.
 * Layer 5: api.
 */
#include "api_thread.h"
#include "util_alloc.h"
#include "util_error.h"

#include <string.h>
#include <time.h>

void tw_fail(slog_twriter *tw, int rc, const slog_error *cause)
{
    if (tw->failed) {
        return; /* later calls only say the writer failed: keep the cause */
    }
    tw->failed = rc;
    if (cause != NULL && cause->code == rc) {
        tw->fail_err = *cause;
    } else {
        (void)util_err(&tw->fail_err, rc, UINT64_MAX, tw->path,
                       "Failed to write the file from the background thread (%s)",
                       slog_status_name(rc));
    }
    atomic_fetch_or(&tw->finished, TW_FAILED);
}

int tw_sync_definitions(slog_twriter *tw)
{
    if (tw->failed) {
        return tw->failed;
    }
    int rc = SLOG_OK;
    (void)pthread_mutex_lock(&tw->def_mu);
    for (; rc == SLOG_OK && tw->synced_tl < tw->ntl; tw->synced_tl++) {
        const tw_def_timeline *const d = &tw->tls[tw->synced_tl];
        rc = slog_writer_add_timeline(tw->w, d->parent, d->kind, d->name,
                                      (int64_t)tw->synced_tl, NULL, &tw->call_err);
    }
    for (; rc == SLOG_OK && tw->synced_cat < tw->ncat; tw->synced_cat++) {
        const tw_def_category *const d = &tw->cats[tw->synced_cat];
        rc = slog_writer_add_category(tw->w, d->kind, d->name, 0, d->group, NULL, &tw->call_err);
    }
    for (size_t i = 0; rc == SLOG_OK && tw->renames > 0 && i < tw->synced_tl; i++) {
        tw_def_timeline *const d = &tw->tls[i];
        if (d->renamed) {
            rc = slog_writer_set_timeline(tw->w, (uint32_t)i, d->name, (int64_t)i, &tw->call_err);
            d->renamed = false;
            tw->renames--;
        }
    }
    (void)pthread_mutex_unlock(&tw->def_mu);
    if (rc == SLOG_OK && tw->synced_tl > tw->cap_bgtl) {
        void *p = tw->bgtl;
        const size_t old = tw->cap_bgtl;
        if (util_grow(&p, &tw->cap_bgtl, tw->synced_tl, sizeof *tw->bgtl) != 0) {
            rc = SLOG_ENOMEM;
        } else {
            tw->bgtl = p;
            memset(tw->bgtl + old, 0, (tw->cap_bgtl - old) * sizeof *tw->bgtl);
        }
    }
    if (rc != SLOG_OK) {
        tw_fail(tw, rc, &tw->call_err);
    }
    return rc;
}

/* Push an open state; its args (put_args' layout, @p len bytes) are copied. */
static int push_open(tw_bg_timeline *t, const tw_rec *h, const uint8_t *args, size_t len,
                     uint32_t lost)
{
    void *p = t->open;
    if (util_grow(&p, &t->cap, t->depth + 1, sizeof *t->open) != 0) {
        return -1;
    }
    t->open = p;
    p = t->arena;
    if (len > 0 && util_grow(&p, &t->arena_cap, t->arena_len + len, 1) != 0) {
        return -1;
    }
    t->arena = p;
    const tw_open o = {h != NULL ? h->time : 0, h != NULL ? h->cat : 0, lost, t->arena_len, len};
    if (len > 0) {
        memcpy(t->arena + t->arena_len, args, len);
        t->arena_len += len;
    }
    t->open[t->depth++] = o;
    return 0;
}

static int get_args(slog_twriter *tw, const uint8_t *p, uint32_t *nargs_out);
static void count(slog_twriter *tw, int rc);

/* Pop the innermost open state and write it, ended at @p time. */
static void pop_and_write(slog_twriter *tw, uint32_t timeline, int64_t time, int truncated)
{
    tw_bg_timeline *const t = &tw->bgtl[timeline];
    const tw_open o = t->open[--t->depth];
    uint32_t nargs = 0;
    if (o.lost) {
        atomic_fetch_add_explicit(&tw->n_dropped, truncated ? 0u : 1u, memory_order_relaxed);
    } else if (o.args_len > 0 && get_args(tw, t->arena + o.args_off, &nargs) != 0) {
        tw_fail(tw, SLOG_ENOMEM, NULL);
    } else {
        const slog_state s = {timeline, o.cat, o.start, time, (uint32_t)t->depth, nargs,
                              nargs ? tw->scratch : NULL};
        const int rc = slog_writer_append_state(tw->w, &s, &tw->call_err);
        count(tw, rc);
        if (rc == SLOG_OK && truncated) {
            atomic_fetch_add_explicit(&tw->n_truncated, 1, memory_order_relaxed);
        }
    }
    t->arena_len = o.args_off;
}

/* Pop open states down to @p keep, writing them ended at @p time. */
static void end_down_to(slog_twriter *tw, uint32_t timeline, size_t keep, int64_t time)
{
    while (tw->bgtl[timeline].depth > keep) {
        pop_and_write(tw, timeline, time, 1);
    }
}

void tw_end_open_states(slog_twriter *tw, uint32_t timeline)
{
    if (timeline < tw->synced_tl && timeline < tw->cap_bgtl) {
        end_down_to(tw, timeline, 0, tw->bgtl[timeline].last);
    }
}

/* Rebuild the args of a record (tw_rec followed by put_args' layout). */
static int get_args(slog_twriter *tw, const uint8_t *p, uint32_t *nargs_out)
{
    uint32_t head[2];
    memcpy(head, p, sizeof head);
    void *arr = tw->scratch;
    if (util_grow(&arr, &tw->cap_scratch, head[0] ? head[0] : 1, sizeof *tw->scratch) != 0) {
        return -1;
    }
    tw->scratch = arr;
    p += sizeof head;
    for (uint32_t i = 0; i < head[0]; i++) {
        uint32_t hd[2];
        uint64_t v;
        memcpy(hd, p, sizeof hd);
        memcpy(&v, p + 8, sizeof v);
        slog_arg *const a = &tw->scratch[i];
        a->type = (slog_arg_type)hd[0];
        a->key = (const char *)(p + 16);
        size_t slen = 0;
        if (a->type == SLOG_ARG_STRING || a->type == SLOG_ARG_JSON) {
            a->v.s = (const char *)(p + 16 + hd[1]);
            slen = (size_t)v;
        } else {
            memcpy(&a->v, &v, sizeof v < sizeof a->v ? sizeof v : sizeof a->v);
        }
        p += (16 + hd[1] + slen + 7u) & ~(size_t)7u;
    }
    *nargs_out = head[0];
    return 0;
}

static void count(slog_twriter *tw, int rc)
{
    if (rc == SLOG_OK) {
        tw->records++;
    } else if (rc == SLOG_EINVAL) {
        atomic_fetch_add_explicit(&tw->n_rejected, 1, memory_order_relaxed);
    } else {
        tw_fail(tw, rc, &tw->call_err); /* SLOG_EIO, SLOG_ENOMEM: the file writer failed */
    }
}

static void replay_end(slog_twriter *tw, uint32_t timeline, int64_t time)
{
    if (tw->bgtl[timeline].depth == 0) {
        count(tw, SLOG_EINVAL); /* cannot happen: the location counts its depth */
        return;
    }
    pop_and_write(tw, timeline, time, 0);
}

/* Pop open states down to @p keep without writing them: their ends were
 * dropped.  The begin of each is lost too (one begun in an earlier dropped
 * stretch was counted then). */
static void drop_down_to(slog_twriter *tw, uint32_t timeline, size_t keep)
{
    tw_bg_timeline *const t = &tw->bgtl[timeline];
    while (t->depth > keep) {
        const tw_open o = t->open[--t->depth];
        atomic_fetch_add_explicit(&tw->n_dropped, o.lost ? 0u : 1u, memory_order_relaxed);
        t->arena_len = o.args_off;
    }
}

static void replay_gap(slog_twriter *tw, uint32_t timeline, const uint8_t *p)
{
    tw_gap_rec g;
    memcpy(&g, p, sizeof g);
    drop_down_to(tw, timeline, g.h.cat);
    for (uint32_t i = 0; i < g.lost_begins; i++) {
        if (push_open(&tw->bgtl[timeline], NULL, NULL, 0, 1) != 0) {
            tw_fail(tw, SLOG_ENOMEM, NULL);
            return;
        }
    }
}

/* One record; returns its size in bytes (0: malformed, stop). */
size_t tw_replay_one(slog_twriter *tw, uint32_t timeline, const uint8_t *p)
{
    tw_rec h;
    memcpy(&h, p, sizeof h);
    const size_t size = (size_t)(h.word >> TW_SIZE_SHIFT) * 8u;
    const unsigned type = h.word & TW_TYPE_MASK;
    const size_t fixed = type == TW_ARROW     ? sizeof(tw_arrow_rec)
                         : type == TW_COUNTER ? sizeof(tw_counter_rec)
                                              : sizeof(tw_rec);
    tw->bgtl[timeline].last = type == TW_ARROW ? tw->bgtl[timeline].last : h.time;
    if (type == TW_BEGIN) {
        /* args stay encoded until the end: they go with the whole state */
        const size_t alen = (h.word & TW_HAS_ARGS) ? size - fixed : 0;
        if (push_open(&tw->bgtl[timeline], &h, p + fixed, alen, 0) != 0) {
            tw_fail(tw, SLOG_ENOMEM, NULL);
        }
        return size;
    }
    uint32_t nargs = 0;
    if ((h.word & TW_HAS_ARGS) && get_args(tw, p + fixed, &nargs) != 0) {
        tw_fail(tw, SLOG_ENOMEM, NULL);
        return size;
    }
    const slog_arg *const args = nargs ? tw->scratch : NULL;
    if (type == TW_END) {
        replay_end(tw, timeline, h.time);
    } else if (type == TW_EVENT) {
        const slog_event e = {timeline, h.cat, h.time, nargs, args};
        count(tw, slog_writer_append_event(tw->w, &e, &tw->call_err));
    } else if (type == TW_COUNTER) {
        tw_counter_rec c;
        memcpy(&c, p, sizeof c);
        const slog_counter s = {timeline, h.cat, h.time, c.value};
        count(tw, slog_writer_append_counter(tw->w, &s, &tw->call_err));
    } else if (type == TW_ARROW) {
        tw_arrow_rec a;
        memcpy(&a, p, sizeof a);
        const slog_arrow s = {h.cat, a.from, a.to, h.time, a.end, nargs, args};
        count(tw, slog_writer_append_arrow(tw->w, &s, &tw->call_err));
    } else if (type == TW_GAP) {
        replay_gap(tw, timeline, p);
    }
    return size;
}

/* Give a processed buffer back: to the pool when it has the standard size
 * (it stays counted in qbytes), otherwise freed. */
void tw_recycle(slog_twriter *tw, tw_item *it)
{
    (void)pthread_mutex_lock(&tw->qmu);
    if (it->cap == tw->opts.buffer_bytes && !atomic_load(&tw->finished)) {
        it->next = tw->pool;
        tw->pool = it;
    } else {
        tw->qbytes -= it->cap;
        tw_item_free(tw, it);
    }
    (void)pthread_cond_broadcast(&tw->q_space);
    (void)pthread_mutex_unlock(&tw->qmu);
}

/* Wait for items (at most MERGE_WAIT_MS while some are held back, so a
 * quiet writer still reaches the file) and take the whole queue. */
#define MERGE_WAIT_MS 100

static tw_item *take_queue(slog_twriter *tw, int *timed_out, int *stop, uint64_t *flush)
{
    (void)pthread_mutex_lock(&tw->qmu);
    *timed_out = 0;
    while (tw->head == NULL && !tw->stop && !*timed_out && tw->flush_req == tw->flush_done) {
        tw_fork_idle_locked(tw); /* a fork may go on while it waits */
        if (tw->pending_bytes == 0) {
            (void)pthread_cond_wait(&tw->q_nonempty, &tw->qmu);
            continue;
        }
        struct timespec ts;
        (void)clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += MERGE_WAIT_MS * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        *timed_out = pthread_cond_timedwait(&tw->q_nonempty, &tw->qmu, &ts) != 0;
    }
    tw_fork_work_locked(tw); /* not while a fork is in progress */
    tw_item *const list = tw->head;
    tw->head = tw->tail = NULL;
    *stop = tw->stop;
    *flush = tw->flush_req;
    (void)pthread_mutex_unlock(&tw->qmu);
    return list;
}

/* A flush asked for (generation @p gen): everything waiting is replayed
 * and the file writer flushes; the callers waiting for @p gen go on. */
static void answer_flush(slog_twriter *tw, uint64_t gen)
{
    int rc = tw->failed;
    if (rc == SLOG_OK) {
        rc = slog_writer_flush(tw->w, &tw->call_err);
        if (rc != SLOG_OK) {
            tw_fail(tw, rc, &tw->call_err);
        }
    }
    (void)pthread_mutex_lock(&tw->qmu);
    tw->flush_done = gen;
    tw->flush_rc = rc;
    (void)pthread_cond_broadcast(&tw->flushed);
    (void)pthread_mutex_unlock(&tw->qmu);
}

void *tw_background_main(void *arg)
{
    slog_twriter *const tw = arg;
    for (;;) {
        int timed_out, stop;
        uint64_t flush;
        tw_item *it = take_queue(tw, &timed_out, &stop, &flush);
        const int synced = it == NULL || tw_sync_definitions(tw) == SLOG_OK;
        while (it != NULL) {
            tw_item *const next = it->next;
            if (!synced || tw_merge_add(tw, it) != 0) {
                atomic_fetch_add_explicit(
                    &tw->n_dropped, tw_count_records(it->data + it->begin, it->len - it->begin),
                    memory_order_relaxed);
                tw_recycle(tw, it);
            }
            it = next;
        }
        const int pressure = tw->pending_bytes > tw->opts.queue_bytes / 2;
        tw_merge_emit(tw, stop || timed_out || pressure || flush != tw->flush_done);
        atomic_store_explicit(&tw->n_records, tw->records, memory_order_relaxed);
        if (flush != tw->flush_done) {
            answer_flush(tw, flush);
        }
        if (stop) {
            return NULL; /* the queue was empty when stop was seen, and all is replayed */
        }
    }
}
