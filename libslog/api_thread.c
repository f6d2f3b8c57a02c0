/* SPDX-License-Identifier: MIT
 *
 * api_thread.c - the threaded writer's lifecycle (slog_thread.h): create
 * (file writer + background thread), the timeline and category
 * definitions any thread may make (ids assigned here, densely, and replayed
 * in the same order into the file writer by the background), locations
 * (open, close), finish with locations still open, destroy, and the
 * after-fork release.  The writer is reference counted (itself + each open
 * location), so a location closed after destroy still finds its writer.
 * Layer 5: api.
 */
#include "api_options.h"
#include "api_thread.h"
#include "util_alloc.h"
#include "util_error.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define DEFAULT_BUFFER_BYTES 65536u
#define DEFAULT_QUEUE_BYTES  (64ull << 20)
/* Slab bytes beyond the queue's bound: every location's current buffer
 * (past it, buffers come from util_calloc). */
#define TW_SLAB_SLACK ((size_t)16 << 20)

static int validate(slog_twriter_options *o, const char *path, slog_error *err)
{
    if (o->buffer_bytes == 0) {
        o->buffer_bytes = DEFAULT_BUFFER_BYTES;
    }
    if (o->queue_bytes == 0) {
        o->queue_bytes = DEFAULT_QUEUE_BYTES;
    }
    if (o->buffer_bytes < 4096 || o->buffer_bytes > (64u << 20)) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, path, "buffer_bytes %u outside 4096..64Mi",
                        o->buffer_bytes);
    }
    if (o->queue_bytes < 2ull * o->buffer_bytes) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, path,
                        "queue_bytes %llu below 2 x buffer_bytes (%u)",
                        (unsigned long long)o->queue_bytes, o->buffer_bytes);
    }
    return SLOG_OK;
}

static void free_definitions(slog_twriter *tw)
{
    for (size_t i = 0; i < tw->ntl; i++) {
        util_free(tw->tls[i].name);
    }
    for (size_t i = 0; i < tw->ncat; i++) {
        util_free(tw->cats[i].name);
        util_free(tw->cats[i].group);
    }
    util_free(tw->tls);
    util_free(tw->cats);
}

static void tw_free(slog_twriter *tw)
{
    free_definitions(tw);
    while (tw->pool != NULL) {
        tw_item *const it = tw->pool;
        tw->pool = it->next;
        tw_item_free(tw, it);
    }
    for (size_t i = 0; i < tw->cap_bgtl; i++) {
        util_free(tw->bgtl[i].open);
        util_free(tw->bgtl[i].arena);
    }
    util_free(tw->bgtl);
    util_free(tw->scratch);
    util_free(tw->active);
    util_slab_release(&tw->slab); /* every item was freed above or before */
    (void)pthread_mutex_destroy(&tw->slab_mu);
    (void)pthread_mutex_destroy(&tw->reg_mu);
    (void)pthread_mutex_destroy(&tw->def_mu);
    (void)pthread_mutex_destroy(&tw->qmu);
    (void)pthread_cond_destroy(&tw->q_nonempty);
    (void)pthread_cond_destroy(&tw->q_space);
    (void)pthread_cond_destroy(&tw->flushed);
    (void)pthread_cond_destroy(&tw->fork_cv);
    util_free(tw);
}

void tw_unref(slog_twriter *tw)
{
    if (atomic_fetch_sub(&tw->refs, 1) == 1) {
        tw_free(tw);
    }
}

static slog_twriter *tw_alloc(const slog_twriter_options *o, const char *path)
{
    slog_twriter *const tw = util_calloc(1, sizeof *tw);
    if (tw == NULL) {
        return NULL;
    }
    tw->opts = *o;
    (void)snprintf(tw->path, sizeof tw->path, "%s", path);
    atomic_init(&tw->refs, 1);
    atomic_init(&tw->finished, 0);
    atomic_init(&tw->n_durable, 0);
    (void)pthread_mutex_init(&tw->reg_mu, NULL);
    (void)pthread_mutex_init(&tw->def_mu, NULL);
    (void)pthread_mutex_init(&tw->qmu, NULL);
    (void)pthread_mutex_init(&tw->slab_mu, NULL);
    /* the queue's bound, and the current buffers of many locations */
    util_slab_init(&tw->slab, (size_t)o->queue_bytes + TW_SLAB_SLACK);
    (void)pthread_cond_init(&tw->q_nonempty, NULL);
    pthread_condattr_t monotonic; /* q_space's timed waits (max_wait_ms) */
    (void)pthread_condattr_init(&monotonic);
    (void)pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    (void)pthread_cond_init(&tw->q_space, &monotonic);
    (void)pthread_condattr_destroy(&monotonic);
    (void)pthread_cond_init(&tw->flushed, NULL);
    (void)pthread_cond_init(&tw->fork_cv, NULL);
    atomic_init(&tw->fork_waiting, 0);
    return tw;
}

/* The file writer's flush callback: keeps what reached the disk, then
 * calls the caller's. */
static void on_file_flush(void *ctx, const slog_flush_info *info)
{
    slog_twriter *const tw = ctx;
    if (info->durable) {
        const uint64_t n = info->counts[0] + info->counts[1] + info->counts[2] + info->counts[3];
        atomic_store_explicit(&tw->n_durable, n, memory_order_relaxed);
    }
    if (tw->user_on_flush != NULL) {
        tw->user_on_flush(tw->user_on_flush_ctx, info);
    }
}

int slog_twriter_create(slog_twriter **out, const char *path, const slog_twriter_options *opts,
                        slog_error *err)
{
    *out = NULL;
    slog_twriter_options o;
    slog_writer_options wo;
    int rc = api_twriter_options_load(&o, opts, path, err);
    if (rc == SLOG_OK) {
        rc = validate(&o, path, err);
    }
    if (rc == SLOG_OK) {
        rc = api_writer_options_load(&wo, o.writer, path, err);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    o.writer = NULL; /* copied into tw->wopts; the caller's may go */
    slog_twriter *const tw = tw_alloc(&o, path);
    if (tw == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, path, "Cannot allocate the writer");
    }
    tw->wopts = wo;
    tw->user_on_flush = wo.on_flush;
    tw->user_on_flush_ctx = wo.on_flush_ctx;
    tw->wopts.on_flush = on_file_flush;
    tw->wopts.on_flush_ctx = tw;
    rc = slog_writer_create(&tw->w, path, &tw->wopts, err);
    if (rc == SLOG_OK) {
        tw_fork_track(tw); /* a fork waits until the background started and is idle */
        if (pthread_create(&tw->bg, NULL, tw_background_main, tw) != 0) {
            tw_fork_untrack(tw);
            slog_writer_destroy(tw->w);
            rc = util_err(err, SLOG_EIO, UINT64_MAX, path, "Cannot start the background thread");
        }
    }
    if (rc != SLOG_OK) {
        tw_free(tw);
        return rc;
    }
    tw->bg_running = 1;
    *out = tw;
    return SLOG_OK;
}

/* ---- definitions ---- */

static const char *finished_or_failed(slog_twriter *tw)
{
    return (atomic_load(&tw->finished) & TW_FINISHED) ? "finished" : "failed";
}

static int define_timeline(slog_twriter *tw, uint32_t parent, slog_timeline_kind kind,
                           const char *name, uint32_t *id_out, slog_error *err)
{
    if ((unsigned)kind > SLOG_TIMELINE_RANK) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, tw->path, "Bad timeline kind %d",
                        (int)kind);
    }
    char *const copy = util_strdup(name != NULL ? name : "");
    int rc = SLOG_OK;
    (void)pthread_mutex_lock(&tw->def_mu);
    void *p = tw->tls;
    if (atomic_load(&tw->finished)) {
        rc = util_err(err, SLOG_ESTATE, UINT64_MAX, tw->path, "Cannot change a %s writer",
                      finished_or_failed(tw));
    } else if (parent != SLOG_NO_PARENT && parent >= tw->ntl) {
        rc = util_err(err, SLOG_EINVAL, UINT64_MAX, tw->path, "Unknown parent timeline %u",
                      parent);
    } else if (copy == NULL || tw->ntl >= UINT32_MAX - 1 ||
               util_grow(&p, &tw->cap_tl, tw->ntl + 1, sizeof *tw->tls) != 0) {
        rc = util_err(err, SLOG_ENOMEM, UINT64_MAX, tw->path, "Cannot add a timeline");
    } else {
        tw->tls = p;
        const tw_def_timeline d = {parent, kind, copy, false};
        tw->tls[tw->ntl] = d;
        *id_out = (uint32_t)tw->ntl++;
    }
    (void)pthread_mutex_unlock(&tw->def_mu);
    if (rc != SLOG_OK) {
        util_free(copy);
    }
    return rc;
}

int slog_twriter_add_timeline(slog_twriter *tw, uint32_t parent, slog_timeline_kind kind,
                              const char *name, uint32_t *id_out, slog_error *err)
{
    uint32_t id = 0;
    const int rc = define_timeline(tw, parent, kind, name, &id, err);
    if (rc == SLOG_OK && id_out != NULL) {
        *id_out = id;
    }
    return rc;
}

static int find_category(const slog_twriter *tw, slog_kind kind, const char *name, uint32_t *id)
{
    for (size_t i = 0; i < tw->ncat; i++) {
        if (tw->cats[i].kind == kind && strcmp(tw->cats[i].name, name) == 0) {
            *id = (uint32_t)i;
            return 1;
        }
    }
    return 0;
}

/* Append the category (kind, name, group); under def_mu. */
static int add_category(slog_twriter *tw, slog_kind kind, const char *name, const char *group,
                        uint32_t *id_out, slog_error *err)
{
    void *p = tw->cats;
    char *const copy = util_strdup(name);
    char *const gcopy = group != NULL ? util_strdup(group) : NULL;
    if (copy == NULL || (group != NULL && gcopy == NULL) || tw->ncat >= UINT32_MAX - 1 ||
        util_grow(&p, &tw->cap_cat, tw->ncat + 1, sizeof *tw->cats) != 0) {
        util_free(copy);
        util_free(gcopy);
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, tw->path, "Cannot add a category");
    }
    tw->cats = p;
    const tw_def_category d = {kind, copy, gcopy};
    tw->cats[tw->ncat] = d;
    *id_out = (uint32_t)tw->ncat++;
    return SLOG_OK;
}

int slog_twriter_category_in(slog_twriter *tw, slog_kind kind, const char *name,
                             const char *group, uint32_t *id_out, slog_error *err)
{
    if ((unsigned)kind > SLOG_KIND_COUNTER || name == NULL) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, tw->path, "Bad category kind %d or no name",
                        (int)kind);
    }
    int rc = SLOG_OK;
    (void)pthread_mutex_lock(&tw->def_mu);
    if (atomic_load(&tw->finished)) {
        rc = util_err(err, SLOG_ESTATE, UINT64_MAX, tw->path, "Cannot change a %s writer",
                      finished_or_failed(tw));
    } else if (!find_category(tw, kind, name, id_out)) {
        rc = add_category(tw, kind, name, group, id_out, err);
    }
    (void)pthread_mutex_unlock(&tw->def_mu);
    return rc;
}

int slog_twriter_category(slog_twriter *tw, slog_kind kind, const char *name, uint32_t *id_out,
                          slog_error *err)
{
    return slog_twriter_category_in(tw, kind, name, NULL, id_out, err);
}

int slog_twriter_set_timeline(slog_twriter *tw, uint32_t id, const char *name, slog_error *err)
{
    char *const copy = util_strdup(name != NULL ? name : "");
    int rc = SLOG_OK;
    (void)pthread_mutex_lock(&tw->def_mu);
    if (atomic_load(&tw->finished)) {
        rc = util_err(err, SLOG_ESTATE, UINT64_MAX, tw->path, "Cannot change a %s writer",
                      finished_or_failed(tw));
    } else if (id >= tw->ntl) {
        rc = util_err(err, SLOG_EINVAL, UINT64_MAX, tw->path, "Unknown timeline %u", id);
    } else if (copy == NULL) {
        rc = util_err(err, SLOG_ENOMEM, UINT64_MAX, tw->path, "Cannot rename a timeline");
    } else {
        tw_def_timeline *const d = &tw->tls[id];
        util_free(d->name);
        d->name = copy;
        if (id < tw->synced_tl && !d->renamed) { /* the writer has the old name */
            d->renamed = true;
            tw->renames++;
        }
    }
    (void)pthread_mutex_unlock(&tw->def_mu);
    if (rc != SLOG_OK) {
        util_free(copy);
    }
    return rc;
}

/* ---- locations ---- */

int slog_twriter_open_location(slog_twriter *tw, uint32_t parent, slog_timeline_kind kind,
                               const char *name, slog_location **out, slog_error *err)
{
    *out = NULL;
    slog_location *const loc = util_calloc(1, sizeof *loc);
    tw_item *const it = loc != NULL ? tw_item_new(tw, tw->opts.buffer_bytes) : NULL;
    if (it == NULL) {
        util_free(loc);
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, tw->path, "Cannot open a location");
    }
    uint32_t id = 0;
    const int rc = define_timeline(tw, parent, kind, name, &id, err);
    if (rc != SLOG_OK) {
        tw_item_free(tw, it);
        util_free(loc);
        return rc;
    }
    loc->tw = tw;
    loc->item = it;
    loc->buf = it->data;
    loc->cap = it->cap;
    atomic_init(&loc->pos, 0);
    loc->last = INT64_MIN;
    loc->timeline = id;
    (void)pthread_mutex_init(&loc->mu, NULL);
    atomic_fetch_add(&tw->refs, 1);
    (void)pthread_mutex_lock(&tw->reg_mu);
    loc->next = tw->locs;
    if (tw->locs != NULL) {
        tw->locs->prev = loc;
    }
    tw->locs = loc;
    (void)pthread_mutex_unlock(&tw->reg_mu);
    *out = loc;
    return SLOG_OK;
}

static void unlink_location(slog_twriter *tw, slog_location *loc)
{
    (void)pthread_mutex_lock(&tw->reg_mu);
    if (loc->prev != NULL) {
        loc->prev->next = loc->next;
    } else if (tw->locs == loc) {
        tw->locs = loc->next;
    }
    if (loc->next != NULL) {
        loc->next->prev = loc->prev;
    }
    loc->prev = loc->next = NULL;
    (void)pthread_mutex_unlock(&tw->reg_mu);
}

/* Queue an item unless the background has stopped (then its records are
 * counted as dropped and it is freed).  Never waits for room: used by
 * close and finish, which must not block on a slow disk's queue. */
static void enqueue_or_drop(slog_twriter *tw, tw_item *it)
{
    (void)pthread_mutex_lock(&tw->qmu);
    const int stopped = tw->stop;
    if (!stopped) {
        tw_enqueue_locked(tw, it);
    }
    (void)pthread_mutex_unlock(&tw->qmu);
    if (stopped) {
        atomic_fetch_add_explicit(&tw->n_dropped,
                                  tw_count_records(it->data + it->begin, it->len - it->begin),
                                  memory_order_relaxed);
        tw_item_free(tw, it);
    }
}

void slog_location_close(slog_location *loc)
{
    if (loc == NULL) {
        return;
    }
    slog_twriter *const tw = loc->tw;
    unlink_location(tw, loc);
    (void)pthread_mutex_lock(&loc->mu);
    const size_t pos = atomic_load_explicit(&loc->pos, memory_order_relaxed);
    tw_item *const it = loc->item;
    loc->item = NULL;
    if (!atomic_load(&tw->finished)) {
        it->len = pos;
        it->begin = loc->taken;
        it->timeline = loc->timeline;
        it->flags = TW_ITEM_CLOSE;
        it->last_time = loc->last;
        enqueue_or_drop(tw, it);
    } else {
        atomic_fetch_add_explicit(&tw->n_dropped, tw_count_records(it->data + loc->taken,
                                                                   pos - loc->taken),
                                  memory_order_relaxed);
        tw_item_free(tw, it);
    }
    (void)pthread_mutex_unlock(&loc->mu);
    (void)pthread_mutex_destroy(&loc->mu);
    util_free(loc);
    tw_unref(tw);
}
