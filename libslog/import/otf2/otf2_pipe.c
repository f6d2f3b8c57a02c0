/* SPDX-License-Identifier: MIT
 *
 * otf2_pipe.c - the reader-to-mapper batches of the OTF2 importer
 * (otf2_pipe.h): a ring of OTF2_PIPE_BATCHES reused buffers, counters of
 * batches handed over and replayed under one mutex, a condition for each
 * side.  The producer only takes the mutex to hand a batch over.
 * Import library, OTF2: libc, pthreads.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include "otf2_pipe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#if defined(__x86_64__) && defined(__SSE2__)
#    include <immintrin.h>
#    define FENCE_STREAMING_STORES() _mm_sfence() /* otf2_defer's records */
#else
#    define FENCE_STREAMING_STORES() ((void)0)
#endif

typedef struct pipe_batch {
    uint8_t *data;
    size_t len;
} pipe_batch;

struct otf2_pipe {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work; /* the consumer waits here for a batch or stop */
    pthread_cond_t done; /* the producer waits here for a free batch or idle */
    uint64_t handed, replayed;
    bool stop;
    atomic_bool failed;
    otf2_pipe_replay_fn replay;
    void *ctx;
    pipe_batch batch[OTF2_PIPE_BATCHES];
};

/* Has a replay failed?  One relaxed load: the flag only ever goes up. */
static bool replay_failed(otf2_pipe *p)
{
    return atomic_load_explicit(&p->failed, memory_order_relaxed);
}

/* Replay batch `replayed` when there is one, until stop. */
static void *pipe_main(void *arg)
{
    otf2_pipe *const p = arg;
    (void)pthread_setname_np(pthread_self(), "slog-otf2-map");
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->replayed == p->handed) {
            pthread_cond_wait(&p->work, &p->mu);
        }
        if (p->replayed == p->handed) {
            break; /* stopped, nothing left */
        }
        pipe_batch *const b = &p->batch[p->replayed % OTF2_PIPE_BATCHES];
        const bool skip = p->stop || replay_failed(p);
        pthread_mutex_unlock(&p->mu);
        if (!skip && p->replay(p->ctx, b->data, b->len) != 0) {
            atomic_store_explicit(&p->failed, true, memory_order_relaxed);
        }
        pthread_mutex_lock(&p->mu);
        b->len = 0;
        p->replayed++;
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void pipe_free(otf2_pipe *p)
{
    for (unsigned i = 0; i < OTF2_PIPE_BATCHES; i++) {
        free(p->batch[i].data);
    }
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

otf2_pipe *otf2_pipe_start(otf2_pipe_replay_fn replay, void *ctx)
{
    otf2_pipe *const p = calloc(1, sizeof *p);
    if (p == NULL) {
        return NULL;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    atomic_init(&p->failed, false);
    p->replay = replay;
    p->ctx = ctx;
    bool ok = true;
    for (unsigned i = 0; i < OTF2_PIPE_BATCHES; i++) {
        ok = ok && (p->batch[i].data = malloc(OTF2_PIPE_BATCH_BYTES)) != NULL;
    }
    if (!ok || pthread_create(&p->thread, NULL, pipe_main, p) != 0) {
        pipe_free(p);
        return NULL;
    }
    return p;
}

/* Hand the batch being filled over (when it holds bytes) and wait until the
 * one after it is free.  0, or -1 when the replay failed. */
static int hand_over(otf2_pipe *p)
{
    pipe_batch *const cur = &p->batch[p->handed % OTF2_PIPE_BATCHES];
    FENCE_STREAMING_STORES();
    pthread_mutex_lock(&p->mu);
    if (cur->len > 0) {
        p->handed++;
        pthread_cond_signal(&p->work);
    }
    while (p->handed - p->replayed >= OTF2_PIPE_BATCHES) {
        pthread_cond_wait(&p->done, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return replay_failed(p) ? -1 : 0;
}

uint8_t *otf2_pipe_put(otf2_pipe *p, size_t n)
{
    pipe_batch *cur = &p->batch[p->handed % OTF2_PIPE_BATCHES];
    if (replay_failed(p)) {
        return NULL; /* stop reading: what follows would be dropped */
    }
    if (OTF2_PIPE_BATCH_BYTES - cur->len < n) {
        if (hand_over(p) != 0) {
            return NULL;
        }
        cur = &p->batch[p->handed % OTF2_PIPE_BATCHES];
    }
    uint8_t *const at = cur->data + cur->len;
    cur->len += n;
    return at;
}

int otf2_pipe_drain(otf2_pipe *p)
{
    (void)hand_over(p);
    pthread_mutex_lock(&p->mu);
    while (p->replayed != p->handed) {
        pthread_cond_wait(&p->done, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return replay_failed(p) ? -1 : 0;
}


void otf2_pipe_stop(otf2_pipe *p)
{
    if (p == NULL) {
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    pipe_free(p);
}
