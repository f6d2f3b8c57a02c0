/* SPDX-License-Identifier: MIT
 *
 * api_thread_append.c - the calling thread's side of the threaded writer:
 * records are copied into the location's own buffer (no lock; the end is
 * published with a release store so finish can take a running location's
 * records), args are serialised after the fixed part so the caller's
 * strings may die after the call, and a full buffer is handed to the
 * queue (tw_handover: the only place an append locks, waits or drops).
 * Layer 5: api.
 */
#include "api_thread.h"
#include "util_alloc.h"

#include <errno.h>
#include <string.h>
#include <time.h>

int64_t slog_clock_ns(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

tw_item *tw_item_new(slog_twriter *tw, size_t cap)
{
    tw_item *const it = util_calloc(1, sizeof *it);
    if (it == NULL) {
        return NULL;
    }
    (void)pthread_mutex_lock(&tw->slab_mu);
    it->data = util_slab_alloc(&tw->slab, cap, &it->block);
    (void)pthread_mutex_unlock(&tw->slab_mu);
    if (it->data == NULL) {
        util_free(it);
        return NULL;
    }
    it->cap = cap;
    return it;
}

void tw_item_free(slog_twriter *tw, tw_item *it)
{
    if (it != NULL) {
        (void)pthread_mutex_lock(&tw->slab_mu);
        util_slab_free(&tw->slab, it->data, it->block);
        (void)pthread_mutex_unlock(&tw->slab_mu);
        util_free(it);
    }
}

uint64_t tw_count_records(const uint8_t *p, size_t len)
{
    uint64_t n = 0;
    size_t off = 0;
    while (off + sizeof(tw_rec) <= len) {
        tw_rec h;
        memcpy(&h, p + off, sizeof h);
        const size_t sz = (size_t)(h.word >> TW_SIZE_SHIFT) * 8u;
        if (sz == 0) {
            break;
        }
        n += (h.word & TW_TYPE_MASK) != TW_GAP;
        off += sz;
    }
    return n;
}

/* ---- the queue ---- */

void tw_enqueue_locked(slog_twriter *tw, tw_item *it)
{
    it->next = NULL;
    if (tw->tail != NULL) {
        tw->tail->next = it;
    } else {
        tw->head = it;
    }
    tw->tail = it;
    tw->qbytes += it->cap;
    if (tw->qbytes > tw->peak_qbytes) {
        tw->peak_qbytes = tw->qbytes;
    }
    atomic_fetch_add_explicit(&tw->n_buffers, 1, memory_order_relaxed);
    (void)pthread_cond_signal(&tw->q_nonempty);
}

/* Under qmu: wait for room on q_space, at most max_wait_ms when set; 0 when
 * it came, 1 when the wait gave up (the writer is then stalled: later
 * appends drop at once until there is room again). */
static int wait_on_space(slog_twriter *tw, struct timespec *deadline)
{
    if (tw->opts.max_wait_ms == 0) {
        (void)pthread_cond_wait(&tw->q_space, &tw->qmu);
        return 0;
    }
    if (tw->stalled) {
        return 1;
    }
    if (deadline->tv_sec == 0 && deadline->tv_nsec == 0) {
        (void)clock_gettime(CLOCK_MONOTONIC, deadline);
        deadline->tv_sec += (time_t)(tw->opts.max_wait_ms / 1000u);
        deadline->tv_nsec += (long)(tw->opts.max_wait_ms % 1000u) * 1000000L;
        if (deadline->tv_nsec >= 1000000000L) {
            deadline->tv_sec++;
            deadline->tv_nsec -= 1000000000L;
        }
    }
    if (pthread_cond_timedwait(&tw->q_space, &tw->qmu, deadline) == ETIMEDOUT) {
        tw->stalled = 1;
        return 1;
    }
    return 0;
}

/* Under qmu: wait (or, in drop mode or past max_wait_ms, give up) until the
 * queue has room for @p bytes; pooled buffers are released first.  Returns
 * 0 when there is room, 1 when the caller must drop, -1 when the writer
 * finished. */
static int wait_for_room(slog_twriter *tw, size_t bytes)
{
    int waited = 0;
    struct timespec deadline = {0, 0};
    while (tw->qbytes + bytes > tw->opts.queue_bytes) {
        if (atomic_load(&tw->finished)) {
            return -1;
        }
        if (tw->pool != NULL) {
            tw_item *const it = tw->pool;
            tw->pool = it->next;
            tw->qbytes -= it->cap;
            tw_item_free(tw, it);
            continue;
        }
        if (tw->opts.flags & SLOG_TWRITER_DROP) {
            return 1;
        }
        if (!waited && !tw->stalled) {
            atomic_fetch_add_explicit(&tw->n_waits, 1, memory_order_relaxed);
            waited = 1;
        }
        if (wait_on_space(tw, &deadline) != 0) {
            return 1;
        }
    }
    tw->stalled = 0;
    return atomic_load(&tw->finished) ? -1 : 0;
}

/* Records of the current buffer are lost (drop mode): replace them by a gap
 * record that keeps begin/end pairing for the background. */
static void drop_buffer(slog_location *loc, size_t pos)
{
    slog_twriter *const tw = loc->tw;
    atomic_fetch_add_explicit(&tw->n_dropped,
                              tw_count_records(loc->buf + loc->taken, pos - loc->taken),
                              memory_order_relaxed);
    loc->taken = 0;
    tw_gap_rec g;
    memset(&g, 0, sizeof g);
    g.h.word = TW_GAP | (uint32_t)((sizeof g / 8u) << TW_SIZE_SHIFT);
    g.h.cat = loc->drop_min_depth; /* lowest over every stretch dropped since the last handover */
    g.h.time = loc->last;
    g.lost_begins = loc->depth - loc->drop_min_depth;
    memcpy(loc->buf, &g, sizeof g);
    atomic_store_explicit(&loc->pos, sizeof g, memory_order_release);
}

/* Swap the full buffer for an empty one (pooled or new). */
static int swap_buffer(slog_location *loc, size_t pos)
{
    slog_twriter *const tw = loc->tw;
    (void)pthread_mutex_lock(&tw->qmu);
    const int room = wait_for_room(tw, loc->item->cap);
    tw_item *fresh = NULL;
    if (room == 0) {
        fresh = tw->pool;
        if (fresh != NULL) {
            tw->pool = fresh->next;
            tw->qbytes -= fresh->cap;
        }
    }
    (void)pthread_mutex_unlock(&tw->qmu);
    if (room != 0) {
        return room;
    }
    if (fresh == NULL && (fresh = tw_item_new(tw, tw->opts.buffer_bytes)) == NULL) {
        return 1; /* no memory for a new buffer: as a full queue in drop mode */
    }
    tw_item *const full = loc->item;
    full->len = pos;
    full->begin = loc->taken;
    full->timeline = loc->timeline;
    full->flags = 0;
    full->last_time = loc->last;
    loc->taken = 0;
    (void)pthread_mutex_lock(&tw->qmu);
    tw_enqueue_locked(tw, full);
    (void)pthread_mutex_unlock(&tw->qmu);
    fresh->len = 0;
    loc->item = fresh;
    loc->buf = fresh->data;
    loc->cap = fresh->cap;
    atomic_store_explicit(&loc->pos, 0, memory_order_release);
    return 0;
}

/* The buffer cannot take @p need more bytes: hand it to the queue.  Returns
 * SLOG_OK (room now), SLOG_ENOMEM (dropped: drop mode or no memory; the
 * buffer was emptied) or SLOG_ESTATE (finished). */
int tw_handover(slog_location *loc, size_t need)
{
    slog_twriter *const tw = loc->tw;
    if (need > loc->cap / 4) {
        return SLOG_EINVAL;
    }
    (void)pthread_mutex_lock(&loc->mu);
    int rc = SLOG_OK;
    const size_t pos = atomic_load_explicit(&loc->pos, memory_order_relaxed);
    if (atomic_load(&tw->finished)) {
        rc = SLOG_ESTATE;
    } else {
        const int r = swap_buffer(loc, pos);
        if (r > 0) {
            drop_buffer(loc, pos);
            rc = SLOG_ENOMEM;
        } else if (r < 0) {
            rc = SLOG_ESTATE;
        }
    }
    if (rc == SLOG_OK) {
        /* after a drop the gap record stays first: its lowest depth goes on */
        loc->drop_min_depth = loc->depth;
    }
    (void)pthread_mutex_unlock(&loc->mu);
    if (rc == SLOG_ESTATE) {
        atomic_fetch_add_explicit(&tw->n_dropped, 1, memory_order_relaxed);
    }
    return rc;
}

/* ---- records ---- */

static int after_finish(slog_location *loc)
{
    atomic_fetch_add_explicit(&loc->tw->n_dropped, 1, memory_order_relaxed);
    return SLOG_ESTATE;
}

/* Room for @p size bytes at the end of the buffer, or why not. */
static inline int reserve(slog_location *loc, size_t size, uint8_t **out)
{
    if (atomic_load_explicit(&loc->tw->finished, memory_order_relaxed)) {
        return after_finish(loc);
    }
    size_t pos = atomic_load_explicit(&loc->pos, memory_order_relaxed);
    if (pos + size > loc->cap) {
        const int rc = tw_handover(loc, size);
        if (rc != SLOG_OK && rc != SLOG_ENOMEM) {
            return rc;
        }
        pos = atomic_load_explicit(&loc->pos, memory_order_relaxed);
        if (rc == SLOG_ENOMEM && pos + size > loc->cap) {
            return SLOG_ENOMEM;
        }
    }
    *out = loc->buf + pos;
    return SLOG_OK;
}

static inline void commit(slog_location *loc, const uint8_t *end)
{
    atomic_store_explicit(&loc->pos, (size_t)(end - loc->buf), memory_order_release);
}

static size_t args_size(const slog_arg *args, uint32_t nargs, int *bad)
{
    size_t n = 8;
    for (uint32_t i = 0; i < nargs; i++) {
        const slog_arg *const a = &args[i];
        if (a->key == NULL || (unsigned)a->type > SLOG_ARG_JSON ||
            ((a->type == SLOG_ARG_STRING || a->type == SLOG_ARG_JSON) && a->v.s == NULL)) {
            *bad = 1;
            return 0;
        }
        size_t one = 16 + strlen(a->key) + 1;
        if (a->type == SLOG_ARG_STRING || a->type == SLOG_ARG_JSON) {
            one += strlen(a->v.s) + 1;
        }
        n += (one + 7u) & ~(size_t)7u;
    }
    return n;
}

/* Args after the fixed part: u32 nargs, u32 0, then per arg u32 type,
 * u32 key bytes (with NUL), u64 value (string: bytes with NUL), the key,
 * the string, padding to 8. */
static uint8_t *put_args(uint8_t *p, const slog_arg *args, uint32_t nargs)
{
    const uint32_t head[2] = {nargs, 0};
    memcpy(p, head, sizeof head);
    p += sizeof head;
    for (uint32_t i = 0; i < nargs; i++) {
        const slog_arg *const a = &args[i];
        const int is_str = a->type == SLOG_ARG_STRING || a->type == SLOG_ARG_JSON;
        const size_t klen = strlen(a->key) + 1;
        const size_t slen = is_str ? strlen(a->v.s) + 1 : 0;
        const uint32_t hd[2] = {(uint32_t)a->type, (uint32_t)klen};
        uint64_t v = slen;
        if (!is_str) {
            memcpy(&v, &a->v, sizeof v < sizeof a->v ? sizeof v : sizeof a->v);
        }
        memcpy(p, hd, sizeof hd);
        memcpy(p + 8, &v, sizeof v);
        memcpy(p + 16, a->key, klen);
        if (is_str) {
            memcpy(p + 16 + klen, a->v.s, slen);
        }
        const size_t one = (16 + klen + slen + 7u) & ~(size_t)7u;
        memset(p + 16 + klen + slen, 0, one - (16 + klen + slen));
        p += one;
    }
    return p;
}

/* A record of @p fixed bytes (already filled in @p rec) plus args. */
static int append_record(slog_location *loc, const void *rec, size_t fixed, const slog_arg *args,
                         uint32_t nargs)
{
    int bad = 0;
    if (nargs > 0 && args == NULL) {
        return SLOG_EINVAL;
    }
    const size_t extra = nargs > 0 ? args_size(args, nargs, &bad) : 0;
    if (bad) {
        return SLOG_EINVAL;
    }
    const size_t size = fixed + extra;
    if (size > loc->cap / 4) {
        return SLOG_EINVAL; /* as tw_handover would, had the buffer been fuller */
    }
    uint8_t *p;
    const int rc = reserve(loc, size, &p);
    if (rc != SLOG_OK) {
        return rc;
    }
    memcpy(p, rec, fixed);
    tw_rec h;
    memcpy(&h, p, sizeof h);
    h.word |= (uint32_t)((size / 8u) << TW_SIZE_SHIFT) | (nargs > 0 ? TW_HAS_ARGS : 0u);
    memcpy(p, &h, sizeof h);
    uint8_t *const end = nargs > 0 ? put_args(p + fixed, args, nargs) : p + fixed;
    commit(loc, end);
    return SLOG_OK;
}

int slog_location_begin(slog_location *loc, uint32_t category, int64_t time,
                        const slog_arg *args, uint32_t nargs)
{
    /* the file refuses a deeper state, and the background would keep every
     * begin never ended: a tracer missing its ends grew without bound */
    if (time < loc->last || loc->depth > SLOG_MAX_DEPTH) {
        return SLOG_EINVAL;
    }
    int rc;
    if (nargs == 0) {
        uint8_t *p;
        rc = reserve(loc, sizeof(tw_rec), &p);
        if (rc == SLOG_OK) {
            const tw_rec r = {TW_BEGIN | (2u << TW_SIZE_SHIFT), category, time};
            memcpy(p, &r, sizeof r);
            commit(loc, p + sizeof r);
        }
    } else {
        const tw_rec r = {TW_BEGIN, category, time};
        rc = append_record(loc, &r, sizeof r, args, nargs);
    }
    if (rc == SLOG_OK) {
        loc->last = time;
        loc->depth++;
    }
    return rc;
}

int slog_location_end(slog_location *loc, int64_t time)
{
    if (loc->depth == 0) {
        return SLOG_ESTATE;
    }
    if (time < loc->last) {
        return SLOG_EINVAL;
    }
    uint8_t *p;
    const int rc = reserve(loc, sizeof(tw_rec), &p);
    if (rc == SLOG_OK) {
        const tw_rec r = {TW_END | (2u << TW_SIZE_SHIFT), 0, time};
        memcpy(p, &r, sizeof r);
        commit(loc, p + sizeof r);
        loc->last = time;
    }
    if (rc == SLOG_OK || rc == SLOG_ENOMEM) {
        /* a dropped end still closes the state for the caller: the gap
         * record tells the background to skip it */
        loc->depth--;
        if (loc->depth < loc->drop_min_depth) {
            loc->drop_min_depth = loc->depth;
        }
    }
    return rc;
}

int slog_location_event(slog_location *loc, uint32_t category, int64_t time,
                        const slog_arg *args, uint32_t nargs)
{
    if (time < loc->last) {
        return SLOG_EINVAL;
    }
    const tw_rec r = {TW_EVENT, category, time};
    const int rc = append_record(loc, &r, sizeof r, args, nargs);
    if (rc == SLOG_OK) {
        loc->last = time;
    }
    return rc;
}

int slog_location_counter(slog_location *loc, uint32_t category, int64_t time, double value)
{
    if (time < loc->last) {
        return SLOG_EINVAL;
    }
    tw_counter_rec r;
    r.h.word = TW_COUNTER;
    r.h.cat = category;
    r.h.time = time;
    r.value = value;
    const int rc = append_record(loc, &r, sizeof r, NULL, 0);
    if (rc == SLOG_OK) {
        loc->last = time;
    }
    return rc;
}

int slog_location_arrow(slog_location *loc, const slog_arrow *a)
{
    if (a->end < a->start) {
        return SLOG_EINVAL;
    }
    tw_arrow_rec r;
    r.h.word = TW_ARROW;
    r.h.cat = a->category;
    r.h.time = a->start;
    r.end = a->end;
    r.from = a->from;
    r.to = a->to;
    return append_record(loc, &r, sizeof r, a->args, a->nargs);
}

uint32_t slog_location_depth(const slog_location *loc)
{
    return loc->depth;
}

uint32_t slog_location_timeline(const slog_location *loc)
{
    return loc->timeline;
}
