/* SPDX-License-Identifier: MIT
 *
 * api_writer_bg.c - the pipe between a file writer's caller and its
 * background thread (api_writer_bg.h).  A ring of WBG_BATCHES batches:
 * the caller fills batch `pushed % N`, the background applies batches
 * `applied` .. `pushed - 1` in order; the caller may start filling a slot
 * only when the background is done with it.  The buffers are allocated
 * once and reused, so a long import faults in no fresh memory here.
 * Layer 5: api.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include "api_writer_bg.h"

#include <pthread.h>
#include <string.h>

#include "util_alloc.h"
#include "util_error.h"

typedef struct wbg_batch {
    uint8_t *data;
    size_t len, cap;
} wbg_batch;

struct wbg {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work; /* the background waits here for a batch or stop */
    pthread_cond_t done; /* the caller waits here for a free slot or idle */
    uint64_t pushed, applied;
    int stop;
    int rc;         /* the first error, SLOG_OK until then */
    slog_error err; /* its message */
    wbg_apply_fn apply;
    void *ctx;
    wbg_batch batch[WBG_BATCHES];
};

/* Wait for batch `applied` (or stop); apply it unless an error came first. */
static void *wbg_main(void *arg)
{
    wbg *const b = arg;
    slog_error e;
    (void)pthread_setname_np(pthread_self(), "slog-writer"); /* as top -H shows it */
    pthread_mutex_lock(&b->mu);
    for (;;) {
        while (!b->stop && b->applied == b->pushed) {
            pthread_cond_wait(&b->work, &b->mu);
        }
        if (b->applied == b->pushed) {
            break; /* stop, nothing left */
        }
        wbg_batch *const cur = &b->batch[b->applied % WBG_BATCHES];
        const int skip = b->rc != SLOG_OK || b->stop;
        pthread_mutex_unlock(&b->mu);
        const int rc = skip ? SLOG_OK : b->apply(b->ctx, cur->data, cur->len, &e);
        pthread_mutex_lock(&b->mu);
        if (rc != SLOG_OK && b->rc == SLOG_OK) {
            b->rc = rc;
            b->err = e;
        }
        cur->len = 0;
        b->applied++;
        pthread_cond_broadcast(&b->done);
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

static void wbg_free(wbg *b)
{
    for (unsigned i = 0; i < WBG_BATCHES; i++) {
        util_free(b->batch[i].data);
    }
    pthread_cond_destroy(&b->work);
    pthread_cond_destroy(&b->done);
    pthread_mutex_destroy(&b->mu);
    util_free(b);
}

int wbg_start(wbg **out, wbg_apply_fn apply, void *ctx, slog_error *err)
{
    *out = NULL;
    wbg *const b = util_calloc(1, sizeof *b);
    if (b == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, "", "Cannot allocate the writer's pipe");
    }
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->work, NULL);
    pthread_cond_init(&b->done, NULL);
    b->apply = apply;
    b->ctx = ctx;
    for (unsigned i = 0; i < WBG_BATCHES; i++) {
        b->batch[i].data = util_malloc(WBG_BATCH_BYTES);
        b->batch[i].cap = WBG_BATCH_BYTES;
        b->batch[i].len = 0;
        if (b->batch[i].data == NULL) {
            wbg_free(b);
            return util_err(err, SLOG_ENOMEM, UINT64_MAX, "",
                            "Cannot allocate the writer's batches");
        }
    }
    if (pthread_create(&b->thread, NULL, wbg_main, b) != 0) {
        wbg_free(b);
        return util_err(err, SLOG_EIO, UINT64_MAX, "", "Cannot start the writer's thread");
    }
    *out = b;
    return SLOG_OK;
}

/* The background's error into err (caller holds mu). */
static int wbg_failed(wbg *b, slog_error *err)
{
    if (err != NULL) {
        *err = b->err;
    }
    return b->rc;
}

/* Hand the batch being filled over (when it holds records) and wait until
 * the slot after it is free.  SLOG_OK or the background's error. */
static int wbg_push(wbg *b, slog_error *err)
{
    wbg_batch *const cur = &b->batch[b->pushed % WBG_BATCHES];
    pthread_mutex_lock(&b->mu);
    if (cur->len > 0 && b->rc == SLOG_OK) {
        b->pushed++;
        pthread_cond_signal(&b->work);
    }
    while (b->rc == SLOG_OK && b->pushed - b->applied >= WBG_BATCHES) {
        pthread_cond_wait(&b->done, &b->mu);
    }
    const int rc = b->rc == SLOG_OK ? SLOG_OK : wbg_failed(b, err);
    pthread_mutex_unlock(&b->mu);
    return rc;
}

int wbg_room(wbg *b, size_t n, uint8_t **out, slog_error *err)
{
    wbg_batch *cur = &b->batch[b->pushed % WBG_BATCHES];
    if (cur->cap - cur->len < n) {
        const int rc = wbg_push(b, err);
        if (rc != SLOG_OK) {
            return rc;
        }
        cur = &b->batch[b->pushed % WBG_BATCHES];
    }
    if (cur->cap - cur->len < n) { /* one record larger than a batch */
        void *p = cur->data;
        size_t cap = cur->cap;
        if (util_grow(&p, &cap, cur->len + n, 1) != 0) {
            return util_err(err, SLOG_ENOMEM, UINT64_MAX, "", "Cannot hold a %zu-byte record", n);
        }
        cur->data = p;
        cur->cap = cap;
    }
    *out = cur->data + cur->len;
    return SLOG_OK;
}

void wbg_commit(wbg *b, size_t n)
{
    b->batch[b->pushed % WBG_BATCHES].len += n;
}

int wbg_sync(wbg *b, slog_error *err)
{
    int rc = wbg_push(b, err);
    pthread_mutex_lock(&b->mu);
    while (b->applied != b->pushed) {
        pthread_cond_wait(&b->done, &b->mu);
    }
    if (rc == SLOG_OK && b->rc != SLOG_OK) {
        rc = wbg_failed(b, err);
    }
    pthread_mutex_unlock(&b->mu);
    return rc;
}

void wbg_stop(wbg *b)
{
    if (b == NULL) {
        return;
    }
    pthread_mutex_lock(&b->mu);
    b->stop = 1;
    pthread_cond_signal(&b->work);
    pthread_mutex_unlock(&b->mu);
    pthread_join(b->thread, NULL);
    wbg_free(b);
}
