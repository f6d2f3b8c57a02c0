/* SPDX-License-Identifier: MIT
 *
 * chrome_drive.c - drives stream -> parser -> stage-1 window -> mapper ->
 * output for one input, or for several inputs at once merged by time
 * (run_many: DFTracer writes one file per process).  In run_many each input
 * keeps its own parser; the input whose last timestamp is smallest is fed
 * next, so the shared reorder window sees a nearly merged stream.
 * Metadata (ph M) and stack frames bypass the window: they name timelines,
 * and names do not depend on time.
 *
 * Threads: with `threaded`, a feeder thread reads, decompresses and parses
 * (yajl and the record building, then the chrome_keys ids while the record
 * is in its cache) while the calling thread reorders, maps and writes; records cross in batches through a bounded queue (QSLOTS batches of
 * QBATCH records), so memory stays bounded and the two halves of the work run
 * on two cores.  Each side reports through its own import_ctx copy (the
 * import run's lock serialises the hooks).  A failure on either side stops the
 * other: the consumer sets `stop`, the feeder sees it at its next batch.
 * Import library, chrome: public libslog headers, yajl (through chrome_parse), pthreads.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "import_main.h"

#define CHUNK_BYTES ((size_t)256 * 1024)
#define STAGE1_BYTES (64ull << 20) /* memory the stage-1 window may hold */
#define STAGE2_BYTES (16ull << 20)
#define STAGE1_PREFETCH 512         /* a record's header and first args, fetched ahead */
#define MERGE_MAX_OPEN 64           /* run_many: inputs open at once */
#define QBATCH 1024                 /* records per batch between threads */
#define QSLOTS 8                    /* batches in flight */
#define QRESUME (QSLOTS / 2)        /* a blocked feeder resumes at this many */
#define CEV_FRAME (1u << 30)        /* a stackFrames entry travelling as a record */

/* ------------------------------------------------------------ consumer */

typedef struct chrome_run {
    import_ctx *ctx;
    chrome_map *map;
    chrome_window in_win;
    uint64_t window;
    uint64_t held;
} chrome_run;

static int stage1_pop(chrome_run *r)
{
    chrome_event *ev = chrome_window_pop(&r->in_win);
    /* The window holds far more than the caches: it fetches the first
     * STAGE1_PREFETCH bytes of records some pops ahead; the rest of the
     * next record (args and strings, which the writer reads) is fetched
     * while this one is mapped. */
    const chrome_wentry *next = chrome_window_top(&r->in_win);
    if (next != NULL) {
        const char *const nx = next->item;
        const size_t bytes = ((const chrome_event *)next->item)->bytes;
        for (size_t off = STAGE1_PREFETCH; off < bytes && off < 1024; off += 64) {
            __builtin_prefetch(nx + off);
        }
    }
    r->held -= chrome_event_weight(ev);
    return chrome_map_event(r->map, ev);
}

/* A record as it crosses to the consumer, with what the stage-1 window
 * needs read by the feeder (which has the record in its cache), and the
 * record's key ids set: the consumer then touches the record first when the
 * window releases it, and finds its thread and category by id. */
typedef struct qrec {
    chrome_event *ev;
    int64_t ts;
    uint64_t seq;
    size_t weight;
    int route;           /* ROUTE_* */
} qrec;

enum { ROUTE_WINDOW, ROUTE_FRAME, ROUTE_META };

/* 0 ok, -1 no memory (the record is not taken). */
static int qrec_make(qrec *q, chrome_event *ev, chrome_keys *keys)
{
    if (!(ev->flags & CEV_FRAME) && chrome_keys_assign(keys, ev) != 0) {
        return -1;
    }
    q->ev = ev;
    q->ts = ev->ts;
    q->seq = ev->seq;
    q->weight = chrome_event_weight(ev);
    q->route = (ev->flags & CEV_FRAME) ? ROUTE_FRAME
               : (ev->ph[0] == 'M' && ev->ph[1] == '\0') ? ROUTE_META
                                                          : ROUTE_WINDOW;
    return 0;
}

/* One record from the feeder: frames and metadata at once, the rest through
 * the stage-1 window.  Takes ownership. */
static int consume(chrome_run *r, const qrec *q)
{
    chrome_event *const ev = q->ev;
    if (q->route == ROUTE_FRAME) {
        const int rc = chrome_map_frame(r->map, ev->input, ev->id, ev->name, ev->cat);
        chrome_event_free(ev);
        return rc;
    }
    if (q->route == ROUTE_META) {
        const int rc = chrome_map_metadata(r->map, ev);
        chrome_event_free(ev);
        return rc;
    }
    if (r->window == 0) {
        return chrome_map_event(r->map, ev);
    }
    if (chrome_window_push(&r->in_win, q->ts, 0, q->seq, ev) != 0) {
        chrome_event_free(ev);
        return import_fail(r->ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    r->held += q->weight;
    while (chrome_window_size(&r->in_win) > r->window || r->held > STAGE1_BYTES) {
        if (stage1_pop(r) != 0) {
            return 1;
        }
    }
    return 0;
}

static int run_setup(chrome_run *r, import_ctx *ctx, const chrome_out *out,
                     const char *const *names, uint32_t n)
{
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->window = import_sort_window(ctx);
    chrome_window_init(&r->in_win);
    chrome_window_set_prefetch(&r->in_win, STAGE1_PREFETCH);
    chrome_map_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.window = r->window;
    cfg.window_bytes = STAGE2_BYTES;
    cfg.input_names = names;
    cfg.ninputs = n;
    if (chrome_map_create(&r->map, out, ctx, &cfg) != 0) {
        return import_fail(ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    return 0;
}

/* Drain the window and close everything; 0 ok. */
static int run_finish(chrome_run *r)
{
    while (chrome_window_size(&r->in_win) > 0) {
        if (stage1_pop(r) != 0) {
            return 1;
        }
    }
    return chrome_map_finish(r->map) != 0 ? 1 : 0;
}

/* An input that failed or was cancelled leaves the records read before
 * it: they are mapped and written as at the end of the inputs (spans
 * still open closed at the last time seen), unless the output failed. */
static void run_keep(chrome_run *r)
{
    if (r->map != NULL && !chrome_map_failed(r->map)) {
        (void)run_finish(r);
    }
}

static void run_teardown(chrome_run *r)
{
    chrome_event *ev;
    while ((ev = chrome_window_pop(&r->in_win)) != NULL) {
        chrome_event_free(ev);
    }
    chrome_window_free(&r->in_win);
    if (r->map != NULL) {
        chrome_map_report(r->map);
    }
    chrome_map_destroy(r->map);
    r->map = NULL;
}

/* --------------------------------------------------------------- feeder */

/* The reading side: inputs, parsers, and where their records go. */
typedef struct feeder {
    import_ctx ctx;      /* own copy: display_name follows the input */
    const char *const *paths;
    size_t n;
    chrome_mode mode;
    uint64_t seq;
    int (*emit)(void *user, chrome_event *ev); /* takes ownership */
    void *emit_user;
    atomic_bool *stop;   /* set by the consumer on failure, or NULL */
    chrome_pool *pool;   /* the records' memory */
    chrome_keys *keys;   /* the records' key ids */
    chrome_run *run;     /* unthreaded: the consumer, called directly */
} feeder;

typedef struct input {
    const char *path;
    import_stream *s;
    chrome_parser *p;
    feeder *f;
    bool done;
    int64_t last_ts;    /* largest ts seen in this input (merge order) */
    bool any_ts;
} input;

static int input_sink_event(void *u, chrome_event *ev)
{
    input *in = u;
    if ((ev->flags & CEV_HAS_TS) && (!in->any_ts || ev->ts > in->last_ts)) {
        in->last_ts = ev->ts;
        in->any_ts = true;
    }
    return in->f->emit(in->f->emit_user, ev);
}

/* A stack frame as a record: id in `id`, name in `name`, parent in `cat`. */
static int input_sink_frame(void *u, uint32_t input_no, const char *id, const char *name,
                            const char *parent)
{
    const input *in = u;
    const size_t li = strlen(id) + 1, ln = strlen(name) + 1;
    const size_t lp = parent != NULL ? strlen(parent) + 1 : 0;
    chrome_event *ev = calloc(1, sizeof *ev + li + ln + lp);
    if (ev == NULL) {
        return import_fail(&in->f->ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    char *s = (char *)(ev + 1);
    ev->bytes = sizeof *ev + li + ln + lp;
    ev->flags = CEV_FRAME;
    ev->input = input_no;
    ev->id = memcpy(s, id, li);
    ev->name = memcpy(s + li, name, ln);
    ev->cat = parent != NULL ? memcpy(s + li + ln, parent, lp) : NULL;
    return in->f->emit(in->f->emit_user, ev);
}

static int input_open(input *in, feeder *f, uint32_t no)
{
    char err[256];
    in->f = f;
    f->ctx.display_name = in->path;
    if (import_stream_open(&in->s, &f->ctx, in->path, err, sizeof err) != 0) {
        return import_fail(&f->ctx, 0, 0, UINT64_MAX, "%s", err);
    }
    const chrome_sink sink = {in, input_sink_event, input_sink_frame};
    const chrome_parser_input pin = {f->mode, no, &f->seq, f->pool};
    if (chrome_parser_create(&in->p, &f->ctx, &pin, &sink) != 0) {
        return import_fail(&f->ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    return 0;
}

/* Feed one chunk; sets done at the end.  0 ok, 1 failed. */
static int input_step(input *in, unsigned char *buf)
{
    import_ctx *ctx = &in->f->ctx;
    ctx->display_name = in->path;
    const long got = import_stream_read(in->s, buf, CHUNK_BYTES);
    if (got < 0) {
        return import_fail(ctx, 0, 0, import_stream_pos(in->s), "%s",
                           import_stream_error(in->s));
    }
    if (got == 0) {
        in->done = true;
        const char *const note = import_stream_note(in->s);
        if (note != NULL) {
            import_warn(ctx, 0, 0, import_stream_pos(in->s), "%s", note);
        }
        const int rc = chrome_parser_finish(in->p);
        chrome_parser_report(in->p);
        return rc;
    }
    (void)import_progress(ctx, import_stream_pos(in->s), import_stream_size(in->s));
    return chrome_parser_feed(in->p, buf, (size_t)got);
}

static void input_close(input *in)
{
    chrome_parser_destroy(in->p);
    import_stream_close(in->s);
    in->p = NULL;
    in->s = NULL;
}

/* The open input to read from next among ins[first..last): the one with
 * the earliest last time (inputs with no time yet first), NULL when all are
 * done. */
static input *next_input(input *ins, size_t first, size_t last)
{
    input *next = NULL;
    for (size_t i = first; i < last; i++) {
        input *in = &ins[i];
        if (in->done) {
            continue;
        }
        if (next == NULL || (next->any_ts && !in->any_ts) ||
            (in->any_ts && next->any_ts && in->last_ts < next->last_ts)) {
            next = in;
        }
    }
    return next;
}

/* Inputs ins[first..last): open them, read them merged by time, close
 * them.  An input that cannot be opened or read further is reported and
 * dropped (what it gave so far stays); the others go on, unless the
 * consumer failed or the import was cancelled.  0 ok, 1 failed (reported). */
static int feed_batch(feeder *f, input *ins, size_t first, size_t last, unsigned char *buf)
{
    int failed = 0;
    for (size_t i = first; i < last; i++) {
        ins[i].path = f->paths[i];
        if (input_open(&ins[i], f, (uint32_t)i) != 0) {
            ins[i].done = true;
            failed = 1;
        }
    }
    for (;;) {
        if ((f->stop != NULL && atomic_load(f->stop)) || (failed && import_cancelled(&f->ctx))) {
            failed = 1; /* the consumer failed and said so, or cancelled */
            break;
        }
        input *next = next_input(ins, first, last);
        if (next == NULL) {
            break;
        }
        if (input_step(next, buf) != 0) {
            next->done = true;
            failed = 1;
        }
    }
    for (size_t i = first; i < last; i++) {
        input_close(&ins[i]);
    }
    return failed;
}

/* Read every input, merged by time, in batches of MERGE_MAX_OPEN open at
 * once.  0 ok, 1 failed (reported). */
static int feed_all(feeder *f)
{
    input *ins = calloc(f->n, sizeof *ins);
    unsigned char *buf = malloc(CHUNK_BYTES);
    if (ins == NULL || buf == NULL) {
        free(ins);
        free(buf);
        return import_fail(&f->ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    int rc = 0;
    for (size_t first = 0; first < f->n; first += MERGE_MAX_OPEN) {
        const size_t last = f->n - first > MERGE_MAX_OPEN ? first + MERGE_MAX_OPEN : f->n;
        rc |= feed_batch(f, ins, first, last, buf);
        if (import_cancelled(&f->ctx) || (f->stop != NULL && atomic_load(f->stop))) {
            break;
        }
    }
    free(ins);
    free(buf);
    return rc;
}

/* ---------------------------------------------------------------- queue */

typedef struct queue {
    pthread_mutex_t mu;
    pthread_cond_t nonempty, nonfull;
    qrec *slot[QSLOTS];
    size_t slot_n[QSLOTS];
    size_t head, count;
    bool done;           /* feeder finished (rc below) */
    bool feeder_waits, consumer_waits; /* who sleeps on a condition */
    int feeder_rc;
    atomic_bool stop;    /* consumer failed: feeder stops */
    qrec *cur;           /* feeder's batch being filled */
    size_t curn;
    feeder *f;
} queue;

static void free_batch(qrec *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        chrome_event_drop(b[i].ev);
    }
    free(b);
}

/* Hand the feeder's current batch to the consumer.  0 ok, 1 stopped. */
static int queue_flush(queue *q)
{
    if (q->curn == 0) {
        return 0;
    }
    pthread_mutex_lock(&q->mu);
    /* Once full, wait until the consumer has drained half: each side
     * sleeps and wakes once per QRESUME batches, not once per batch. */
    if (q->count == QSLOTS) {
        q->feeder_waits = true;
        while (q->count > QRESUME && !atomic_load(&q->stop)) {
            pthread_cond_wait(&q->nonfull, &q->mu);
        }
        q->feeder_waits = false;
    }
    if (atomic_load(&q->stop)) {
        pthread_mutex_unlock(&q->mu);
        free_batch(q->cur, q->curn);
        q->cur = NULL;
        q->curn = 0;
        return 1;
    }
    const size_t at = (q->head + q->count) % QSLOTS;
    q->slot[at] = q->cur;
    q->slot_n[at] = q->curn;
    q->count++;
    if (q->consumer_waits) {
        pthread_cond_signal(&q->nonempty);
    }
    pthread_mutex_unlock(&q->mu);
    q->cur = NULL;
    q->curn = 0;
    return 0;
}

static int queue_emit(void *u, chrome_event *ev)
{
    queue *q = u;
    if (q->cur == NULL) {
        q->cur = malloc(QBATCH * sizeof *q->cur);
        if (q->cur == NULL) {
            chrome_event_drop(ev);
            return import_fail(&q->f->ctx, 0, 0, UINT64_MAX, "Out of memory");
        }
    }
    if (qrec_make(&q->cur[q->curn], ev, q->f->keys) != 0) {
        chrome_event_drop(ev);
        return import_fail(&q->f->ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    return ++q->curn == QBATCH ? queue_flush(q) : 0;
}

static void *feeder_main(void *arg)
{
    queue *q = arg;
    int rc = feed_all(q->f);
    /* after a failed or cancelled input too: the records it gave before
     * are good ones, kept (run_keep) */
    const int flushed = queue_flush(q);
    rc = rc != 0 ? rc : flushed;
    pthread_mutex_lock(&q->mu);
    q->done = true;
    q->feeder_rc = rc;
    pthread_cond_signal(&q->nonempty);
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

/* Wait for the next batch (faulting in pool slabs for the feeder while
 * there is nothing to do); false when the feeder is done and the queue
 * empty, *rc then the feeder's result. */
static bool queue_take(queue *q, qrec **b, size_t *n, int *rc)
{
    pthread_mutex_lock(&q->mu);
    while (q->count == 0 && !q->done) {
        pthread_mutex_unlock(&q->mu);
        const bool reserved = chrome_pool_reserve(q->f->pool);
        pthread_mutex_lock(&q->mu);
        if (reserved || q->count > 0 || q->done) {
            continue; /* look again before sleeping: while the lock was free the feeder may
                         have queued its last batch and signalled, with nobody waiting */
        }
        q->consumer_waits = true;
        pthread_cond_wait(&q->nonempty, &q->mu);
        q->consumer_waits = false;
    }
    const bool got = q->count > 0;
    if (got) {
        *b = q->slot[q->head];
        *n = q->slot_n[q->head];
        q->head = (q->head + 1) % QSLOTS;
        q->count--;
        if (q->feeder_waits && q->count <= QRESUME) {
            pthread_cond_signal(&q->nonfull);
        }
    } else {
        *rc = q->feeder_rc;
    }
    pthread_mutex_unlock(&q->mu);
    return got;
}

/* The consumer failed: the feeder stops at its next batch. */
static void queue_stop(queue *q)
{
    if (!atomic_load(&q->stop)) {
        pthread_mutex_lock(&q->mu);
        atomic_store(&q->stop, true);
        pthread_cond_broadcast(&q->nonfull);
        pthread_mutex_unlock(&q->mu);
    }
}

/* Consumer loop: records in feeder order until the feeder is done. */
static int consume_queue(queue *q, chrome_run *r)
{
    int rc = 0;
    qrec *b = NULL;
    size_t n = 0;
    int feeder_rc = 0;
    while (queue_take(q, &b, &n, &feeder_rc)) {
        size_t i = 0;
        for (; rc == 0 && i < n; i++) {
            rc = consume(r, &b[i]);
        }
        for (; i < n; i++) {
            chrome_event_free(b[i].ev); /* after a failure: drop the rest */
        }
        free(b);
        if (rc != 0) {
            queue_stop(q);
        }
    }
    return rc != 0 ? rc : feeder_rc;
}

/* ------------------------------------------------------------------ API */

static int direct_emit(void *u, chrome_event *ev)
{
    feeder *f = u;
    qrec q;
    if (qrec_make(&q, ev, f->keys) != 0) {
        chrome_event_free(ev);
        return import_fail(&f->ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    return consume(f->run, &q);
}

/* The feeder's state common to both entry points; 0 ok, 1 no memory. */
static int feeder_setup(feeder *f, const import_ctx *ctx, chrome_mode mode, chrome_run *r)
{
    memset(f, 0, sizeof *f);
    f->ctx = *ctx;
    f->mode = mode;
    f->emit = direct_emit;
    f->emit_user = f;
    f->run = r;
    f->pool = chrome_pool_create();
    f->keys = chrome_keys_create();
    return f->pool == NULL || f->keys == NULL ? 1 : 0;
}

static void feeder_teardown(feeder *f)
{
    chrome_keys_destroy(f->keys);
    chrome_pool_destroy(f->pool);
}

/* The feeder on a thread of its own, the calling thread consuming. */
static int feed_threaded(feeder *f, chrome_run *r, import_ctx *ctx)
{
    queue q;
    memset(&q, 0, sizeof q);
    q.f = f;
    atomic_init(&q.stop, false);
    f->emit = queue_emit;
    f->emit_user = &q;
    f->stop = &q.stop;
    int rc;
    pthread_t th;
    if (pthread_mutex_init(&q.mu, NULL) != 0 || pthread_cond_init(&q.nonempty, NULL) != 0 ||
        pthread_cond_init(&q.nonfull, NULL) != 0 ||
        pthread_create(&th, NULL, feeder_main, &q) != 0) {
        rc = import_fail(ctx, 0, 0, UINT64_MAX, "Failed to start the reader thread");
    } else {
        rc = consume_queue(&q, r);
        (void)pthread_join(th, NULL);
        while (q.count > 0) { /* left behind after a failure */
            free_batch(q.slot[q.head], q.slot_n[q.head]);
            q.head = (q.head + 1) % QSLOTS;
            q.count--;
        }
    }
    pthread_cond_destroy(&q.nonfull);
    pthread_cond_destroy(&q.nonempty);
    pthread_mutex_destroy(&q.mu);
    f->stop = NULL; /* q is gone */
    f->emit_user = NULL;
    return rc;
}

int chrome_import(import_ctx *ctx, const char *const *paths, size_t n, chrome_mode mode,
                  const chrome_out *out, bool threaded)
{
    chrome_run r;
    int rc = run_setup(&r, ctx, out, paths, (uint32_t)n);
    feeder f;
    if (feeder_setup(&f, ctx, mode, &r) != 0 && rc == 0) {
        rc = import_fail(ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    f.paths = paths;
    f.n = n;
    if (rc == 0 && !threaded) {
        rc = feed_all(&f);
    } else if (rc == 0) {
        rc = feed_threaded(&f, &r, ctx);
    }
    if (rc == 0) {
        rc = run_finish(&r);
    } else {
        run_keep(&r);
    }
    run_teardown(&r);
    feeder_teardown(&f);
    return rc != 0 ? 1 : 0;
}

int chrome_import_buffer(import_ctx *ctx, const unsigned char *data, size_t len, size_t chunk,
                         chrome_mode mode, const chrome_out *out)
{
    static const char *const names[] = {"(buffer)"};
    chrome_run r;
    int rc = run_setup(&r, ctx, out, names, 1);
    feeder f;
    if (feeder_setup(&f, ctx, mode, &r) != 0 && rc == 0) {
        rc = import_fail(ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    input in;
    memset(&in, 0, sizeof in);
    in.f = &f;
    const chrome_sink sink = {&in, input_sink_event, input_sink_frame};
    const chrome_parser_input pin = {mode, 0, &f.seq, f.pool};
    if (rc == 0 && chrome_parser_create(&in.p, &f.ctx, &pin, &sink) != 0) {
        rc = import_fail(ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    if (chunk == 0) {
        chunk = len > 0 ? len : 1;
    }
    for (size_t at = 0; rc == 0 && at < len; at += chunk) {
        rc = chrome_parser_feed(in.p, data + at, len - at < chunk ? len - at : chunk);
    }
    if (rc == 0) {
        rc = chrome_parser_finish(in.p);
    }
    if (in.p != NULL) {
        chrome_parser_report(in.p);
    }
    chrome_parser_destroy(in.p);
    if (rc == 0) {
        rc = run_finish(&r);
    } else {
        run_keep(&r);
    }
    run_teardown(&r);
    feeder_teardown(&f);
    return rc != 0 ? 1 : 0;
}
