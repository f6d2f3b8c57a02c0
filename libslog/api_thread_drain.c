/* SPDX-License-Identifier: MIT
 *
 * api_thread_drain.c - the background side of the threaded writer: takes
 * full buffers from the queue in FIFO order, brings the file writer's
 * timeline and category tables up to date (ids are dense in definition
 * order on both sides, so they match), and replays each record into the
 * file writer (slog_writer.h), which builds the tree, previews, LZ4 and
 * HDF5 writes.  Per timeline it mirrors the location's open states
 * (written, rejected by the file writer, or lost in a dropped stretch) so
 * that every end pairs with its own begin whatever was refused or dropped.
 * Layer 5: api.
 */
#include "api_thread.h"
#include "util_alloc.h"

#include <string.h>

int tw_sync_definitions(slog_twriter *tw)
{
    int rc = SLOG_OK;
    (void)pthread_mutex_lock(&tw->def_mu);
    for (; rc == SLOG_OK && tw->synced_tl < tw->ntl; tw->synced_tl++) {
        const tw_def_timeline *const d = &tw->tls[tw->synced_tl];
        rc = slog_writer_add_timeline(tw->w, d->parent, d->kind, d->name,
                                      (int64_t)tw->synced_tl, NULL, &tw->fail_err);
    }
    for (; rc == SLOG_OK && tw->synced_cat < tw->ncat; tw->synced_cat++) {
        const tw_def_category *const d = &tw->cats[tw->synced_cat];
        rc = slog_writer_add_category(tw->w, d->kind, d->name, 0, NULL, NULL, &tw->fail_err);
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
        tw->failed = rc;
    }
    return rc;
}

static int push_open(tw_bg_timeline *t, uint8_t what)
{
    void *p = t->open;
    if (util_grow(&p, &t->cap, t->depth + 1, 1) != 0) {
        return -1;
    }
    t->open = p;
    t->open[t->depth++] = what;
    return 0;
}

/* Pop open states down to @p keep, ending the written ones at @p time. */
static void end_down_to(slog_twriter *tw, uint32_t timeline, size_t keep, int64_t time)
{
    tw_bg_timeline *const t = &tw->bgtl[timeline];
    while (t->depth > keep) {
        if (t->open[--t->depth] == TW_OPEN_WRITTEN) {
            (void)slog_writer_end(tw->w, timeline, time, NULL);
            atomic_fetch_add_explicit(&tw->n_truncated, 1, memory_order_relaxed);
        }
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
        atomic_fetch_add_explicit(&tw->n_records, 1, memory_order_relaxed);
    } else if (rc == SLOG_EINVAL) {
        atomic_fetch_add_explicit(&tw->n_rejected, 1, memory_order_relaxed);
    } else if (!tw->failed) {
        tw->failed = rc; /* SLOG_EIO, SLOG_ENOMEM: the file writer failed */
    }
}

static void replay_end(slog_twriter *tw, uint32_t timeline, int64_t time)
{
    tw_bg_timeline *const t = &tw->bgtl[timeline];
    if (t->depth == 0) {
        count(tw, SLOG_EINVAL);
        return;
    }
    const uint8_t what = t->open[--t->depth];
    if (what == TW_OPEN_WRITTEN) {
        count(tw, slog_writer_end(tw->w, timeline, time, &tw->fail_err));
    } else if (what == TW_OPEN_REJECTED) {
        count(tw, SLOG_EINVAL);
    } else {
        atomic_fetch_add_explicit(&tw->n_dropped, 1, memory_order_relaxed);
    }
}

static void replay_gap(slog_twriter *tw, uint32_t timeline, const uint8_t *p)
{
    tw_gap_rec g;
    memcpy(&g, p, sizeof g);
    end_down_to(tw, timeline, g.h.cat, g.h.time);
    tw_bg_timeline *const t = &tw->bgtl[timeline];
    for (uint32_t i = 0; i < g.lost_begins; i++) {
        if (push_open(t, TW_OPEN_LOST) != 0) {
            tw->failed = SLOG_ENOMEM;
            return;
        }
    }
}

static void replay_begin(slog_twriter *tw, uint32_t timeline, const tw_rec *h,
                         const slog_arg *args, uint32_t nargs)
{
    const int rc = slog_writer_begin(tw->w, timeline, h->cat, h->time, args, nargs, &tw->fail_err);
    count(tw, rc);
    if (push_open(&tw->bgtl[timeline], rc == SLOG_OK ? TW_OPEN_WRITTEN : TW_OPEN_REJECTED) != 0) {
        tw->failed = SLOG_ENOMEM;
    }
}

/* One record; returns its size in bytes (0: malformed, stop). */
static size_t replay_one(slog_twriter *tw, uint32_t timeline, const uint8_t *p)
{
    tw_rec h;
    memcpy(&h, p, sizeof h);
    const size_t size = (size_t)(h.word >> TW_SIZE_SHIFT) * 8u;
    const unsigned type = h.word & TW_TYPE_MASK;
    const size_t fixed = type == TW_ARROW     ? sizeof(tw_arrow_rec)
                         : type == TW_COUNTER ? sizeof(tw_counter_rec)
                                              : sizeof(tw_rec);
    uint32_t nargs = 0;
    if ((h.word & TW_HAS_ARGS) && get_args(tw, p + fixed, &nargs) != 0) {
        tw->failed = SLOG_ENOMEM;
        return size;
    }
    const slog_arg *const args = nargs ? tw->scratch : NULL;
    tw->bgtl[timeline].last = type == TW_ARROW ? tw->bgtl[timeline].last : h.time;
    if (type == TW_BEGIN) {
        replay_begin(tw, timeline, &h, args, nargs);
    } else if (type == TW_END) {
        replay_end(tw, timeline, h.time);
    } else if (type == TW_EVENT) {
        const slog_event e = {timeline, h.cat, h.time, nargs, args};
        count(tw, slog_writer_append_event(tw->w, &e, &tw->fail_err));
    } else if (type == TW_COUNTER) {
        tw_counter_rec c;
        memcpy(&c, p, sizeof c);
        const slog_counter s = {timeline, h.cat, h.time, c.value};
        count(tw, slog_writer_append_counter(tw->w, &s, &tw->fail_err));
    } else if (type == TW_ARROW) {
        tw_arrow_rec a;
        memcpy(&a, p, sizeof a);
        const slog_arrow s = {h.cat, a.from, a.to, h.time, a.end, nargs, args};
        count(tw, slog_writer_append_arrow(tw->w, &s, &tw->fail_err));
    } else if (type == TW_GAP) {
        replay_gap(tw, timeline, p);
    }
    return size;
}

void tw_process_item(slog_twriter *tw, tw_item *it)
{
    if (tw->failed || tw_sync_definitions(tw) != SLOG_OK) {
        atomic_fetch_add_explicit(&tw->n_dropped, tw_count_records(it->data, it->len),
                                  memory_order_relaxed);
        return;
    }
    size_t off = 0;
    while (off + sizeof(tw_rec) <= it->len && !tw->failed) {
        const size_t size = replay_one(tw, it->timeline, it->data + off);
        if (size == 0) {
            break;
        }
        off += size;
    }
    if (tw->failed && off < it->len) {
        atomic_fetch_add_explicit(&tw->n_dropped, tw_count_records(it->data + off, it->len - off),
                                  memory_order_relaxed);
    }
    if (it->flags & TW_ITEM_CLOSE) {
        tw_end_open_states(tw, it->timeline);
    }
}

/* Give a processed buffer back: to the pool when it has the standard size
 * (it stays counted in qbytes), otherwise freed. */
static void recycle(slog_twriter *tw, tw_item *it)
{
    (void)pthread_mutex_lock(&tw->qmu);
    if (it->cap == tw->opts.buffer_bytes && !atomic_load(&tw->finished)) {
        it->next = tw->pool;
        tw->pool = it;
    } else {
        tw->qbytes -= it->cap;
        tw_item_free(it);
    }
    (void)pthread_cond_broadcast(&tw->q_space);
    (void)pthread_mutex_unlock(&tw->qmu);
}

void *tw_background_main(void *arg)
{
    slog_twriter *const tw = arg;
    for (;;) {
        (void)pthread_mutex_lock(&tw->qmu);
        while (tw->head == NULL && !tw->stop) {
            (void)pthread_cond_wait(&tw->q_nonempty, &tw->qmu);
        }
        tw_item *const it = tw->head;
        if (it != NULL) {
            tw->head = it->next;
            if (tw->head == NULL) {
                tw->tail = NULL;
            }
        }
        (void)pthread_mutex_unlock(&tw->qmu);
        if (it == NULL) {
            return NULL; /* stop, queue empty */
        }
        tw_process_item(tw, it);
        recycle(tw, it);
    }
}
