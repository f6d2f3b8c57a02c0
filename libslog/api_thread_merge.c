/* SPDX-License-Identifier: MIT
 *
 * api_thread_merge.c - the background replays records in time order across
 * locations, not buffer by buffer: a buffer holds one location's records
 * over a long stretch of time (a 64 KiB buffer of one of 64 threads spans
 * what 64 buffers of the whole trace span), and the tree builder places a
 * drawable by its time (a late one goes up the tree), so replaying whole
 * buffers one after the other made leaves span ten times the time they
 * span in end order.  Items wait per timeline; the watermark is the
 * smallest clock that a location which has handed items and is still open
 * reached in the last item it handed over (its later records cannot be
 * earlier: a location's clock never goes back).  Records up to the
 * watermark are replayed in slices of about MERGE_SLICE_RECORDS records:
 * within a slice timeline after timeline, so the order is exact to a
 * slice's width (a small part of a leaf) and costs no per-record heap.
 * Forced replay (finish, a quiet writer, half the queue held back: an idle
 * location must not hold memory forever) replays everything waiting, in
 * the same slices.
 * Layer 5: api.
 */
#include "api_thread.h"
#include "util_alloc.h"

#include <string.h>

#define MERGE_SLICE_RECORDS 2048u

int tw_merge_add(slog_twriter *tw, tw_item *it)
{
    tw_bg_timeline *const t = &tw->bgtl[it->timeline];
    if (!t->listed) {
        void *p = tw->active;
        if (util_grow(&p, &tw->cap_active, tw->nactive + 1, sizeof *tw->active) != 0) {
            return -1;
        }
        tw->active = p;
        tw->active[tw->nactive++] = it->timeline;
        t->listed = 1;
    }
    it->next = NULL;
    if (t->tail != NULL) {
        t->tail->next = it;
    } else {
        t->head = it;
        t->off = it->begin;
    }
    t->tail = it;
    if (it->last_time != INT64_MIN) {
        /* a handover: the location's clock never goes back */
        t->handed = it->last_time;
        t->tracked = (it->flags & TW_ITEM_CLOSE) == 0;
    } else if (it->flags & TW_ITEM_CLOSE) {
        t->tracked = 0; /* (a flush's copy leaves it as it was) */
    }
    tw->pending_bytes += it->cap;
    return 0;
}

/* The clock at the record at off in head: arrows do not move it; an
 * item with no record left (an empty closing one) stands at the clock. */
static int64_t next_key(const tw_bg_timeline *t)
{
    if (t->off + sizeof(tw_rec) > t->head->len) {
        return t->last;
    }
    tw_rec h;
    memcpy(&h, t->head->data + t->off, sizeof h);
    return (h.word & TW_TYPE_MASK) == TW_ARROW ? t->last : h.time;
}

/* Head replayed: recycle it, end the location's states if it closed. */
static void pop_head(slog_twriter *tw, uint32_t timeline)
{
    tw_bg_timeline *const t = &tw->bgtl[timeline];
    tw_item *const it = t->head;
    t->head = it->next;
    t->off = t->head != NULL ? t->head->begin : 0;
    if (t->head == NULL) {
        t->tail = NULL;
    }
    tw->pending_bytes -= it->cap;
    if (it->flags & TW_ITEM_CLOSE) {
        tw_end_open_states(tw, timeline);
    }
    tw_recycle(tw, it);
}

/* Replay @p timeline's waiting records whose clock is at most @p upto. */
static void replay_upto(slog_twriter *tw, uint32_t timeline, int64_t upto)
{
    tw_bg_timeline *const t = &tw->bgtl[timeline];
    while (t->head != NULL) {
        tw_item *const it = t->head;
        while (t->off + sizeof(tw_rec) <= it->len) {
            if (tw->failed) {
                atomic_fetch_add_explicit(&tw->n_dropped,
                                          tw_count_records(it->data + t->off, it->len - t->off),
                                          memory_order_relaxed);
                t->off = it->len;
                break;
            }
            if (next_key(t) > upto) {
                return;
            }
            const size_t size = tw_replay_one(tw, timeline, it->data + t->off);
            t->off = size > 0 ? t->off + size : it->len;
        }
        pop_head(tw, timeline);
    }
}

/* Smallest handed-over clock of the open locations that handed items. */
static int64_t watermark(const slog_twriter *tw)
{
    int64_t w = INT64_MAX;
    for (size_t i = 0; i < tw->synced_tl && i < tw->cap_bgtl; i++) {
        const tw_bg_timeline *const t = &tw->bgtl[i];
        if (t->tracked && t->handed < w) {
            w = t->handed;
        }
    }
    return w;
}

/* Smallest next clock and largest handed clock among the waiting timelines. */
static int bounds(const slog_twriter *tw, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (size_t i = 0; i < tw->nactive; i++) {
        const tw_bg_timeline *const t = &tw->bgtl[tw->active[i]];
        if (t->head != NULL) {
            const int64_t k = next_key(t);
            *lo = k < *lo ? k : *lo;
            *hi = t->handed > *hi ? t->handed : *hi;
        }
    }
    return *lo != INT64_MAX;
}

/* Drop timelines with nothing waiting from the active list. */
static void compact_active(slog_twriter *tw)
{
    size_t k = 0;
    for (size_t i = 0; i < tw->nactive; i++) {
        tw_bg_timeline *const t = &tw->bgtl[tw->active[i]];
        if (t->head != NULL) {
            tw->active[k++] = tw->active[i];
        } else {
            t->listed = 0;
        }
    }
    tw->nactive = k;
}

void tw_merge_emit(slog_twriter *tw, int force)
{
    const int64_t w = force ? INT64_MAX : watermark(tw);
    int64_t lo, hi;
    if (!bounds(tw, &lo, &hi) || lo > w) {
        return;
    }
    const int64_t top = hi > lo && hi < w ? hi : (w > lo ? w : lo);
    /* slice width: about MERGE_SLICE_RECORDS of the waiting records (16 B
     * each at least) per slice over [lo, top] */
    const uint64_t recs = tw->pending_bytes / 16u + 1u;
    const double width = ((double)top - (double)lo) * MERGE_SLICE_RECORDS / (double)recs;
    const int64_t step = width < 1.0 ? 1 : width > 9e18 ? INT64_MAX / 2 : (int64_t)width;
    for (int64_t upto = lo;;) {
        upto = upto > w - step ? w : upto + step;
        for (size_t i = 0; i < tw->nactive; i++) {
            replay_upto(tw, tw->active[i], upto);
        }
        compact_active(tw);
        if (upto >= w || tw->nactive == 0 || (!force && upto >= top)) {
            break;
        }
        tw_fork_point(tw); /* a long forced replay: a fork need not wait for all of it */
    }
}
