/* SPDX-License-Identifier: MIT
 *
 * check_thread.c - the threaded writer (slog_thread.h) through the public
 * API: many threads, created and ended at any time, append through their
 * own locations (states with nesting, events and arrows with args whose
 * strings die after the call, counters) into small buffers and a small
 * queue (so buffers are handed over and appends wait); the file read back
 * through slog_reader/slog_query holds exactly what was appended, drawable
 * by drawable.  Also: finish while locations are still open (their
 * records are in the file, their open states ended at their last time,
 * later appends refused and counted), bad calls refused.
 */
#include "ck_quiet.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace_ref.h"

#include <slog/slog_thread.h>

static char path[256];

static void path_setup(void)
{
    snprintf(path, sizeof path, "/tmp/check_thread_%d.slog", (int)getpid());
}

static void path_teardown(void)
{
    remove(path);
}

/* What the threads appended, as canonical keys (trace_ref.h). */
typedef struct expect {
    pthread_mutex_t mu;
    char **keys;
    size_t n, cap;
} expect;

static void expect_add(expect *e, const slog_item *it)
{
    char *const k = tref_key_item(it);
    pthread_mutex_lock(&e->mu);
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 1024;
        e->keys = realloc(e->keys, e->cap * sizeof *e->keys);
        ck_assert_ptr_nonnull(e->keys);
    }
    e->keys[e->n++] = k;
    pthread_mutex_unlock(&e->mu);
}

static void expect_free(expect *e)
{
    for (size_t i = 0; i < e->n; i++) {
        free(e->keys[i]);
    }
    free(e->keys);
}

typedef struct shared {
    slog_twriter *tw;
    uint32_t process;       /* parent timeline of the threads */
    uint32_t st_cat[3], ev_cat, ar_cat, ctr_cat;
    uint32_t target;        /* an arrow goes to this timeline */
    expect *exp;
} shared;

typedef struct worker {
    shared *sh;
    uint64_t seed;
    uint32_t ops;
    int leave_open;         /* do not end or close (finish test) */
    pthread_barrier_t *appended, *finished;
    slog_location *loc;
} worker;

typedef struct frame {
    int64_t start;
    uint32_t cat;
    char label[16];
} frame;

static void end_state(worker *w, frame *stack, uint32_t *depth, int64_t t)
{
    const frame f = stack[--*depth];
    ck_assert_int_eq(slog_location_end(w->loc, t), SLOG_OK);
    const slog_arg a = {"label", SLOG_ARG_STRING, {.s = f.label}};
    slog_item it = {.kind = SLOG_KIND_STATE};
    it.u.state = (slog_state){slog_location_timeline(w->loc), f.cat, f.start, t, *depth,
                              f.label[0] ? 1u : 0u, f.label[0] ? &a : NULL};
    expect_add(w->sh->exp, &it);
}

static void begin_state(worker *w, tref_rng *r, frame *stack, uint32_t *depth, int64_t t)
{
    frame *const f = &stack[(*depth)++];
    f->start = t;
    f->cat = w->sh->st_cat[tref_rng_below(r, 3)];
    f->label[0] = 0;
    if (tref_rng_chance(r, 30)) {
        char tmp[16];
        snprintf(tmp, sizeof tmp, "L%llu", (unsigned long long)tref_rng_below(r, 1000));
        memcpy(f->label, tmp, sizeof tmp);
        const slog_arg a = {"label", SLOG_ARG_STRING, {.s = tmp}};
        ck_assert_int_eq(slog_location_begin(w->loc, f->cat, t, &a, 1), SLOG_OK);
        memset(tmp, 'x', sizeof tmp - 1); /* the writer must have copied it */
    } else {
        ck_assert_int_eq(slog_location_begin(w->loc, f->cat, t, NULL, 0), SLOG_OK);
    }
}

/* Returns 1 when the point moved the location's clock (arrows do not). */
static int point(worker *w, tref_rng *r, int64_t t)
{
    const uint32_t tl = slog_location_timeline(w->loc);
    slog_item it;
    memset(&it, 0, sizeof it);
    const unsigned what = (unsigned)tref_rng_below(r, 3);
    if (what == 0) {
        char tmp[24];
        snprintf(tmp, sizeof tmp, "file%llu", (unsigned long long)tref_rng_below(r, 50));
        const slog_arg a[2] = {{"path", SLOG_ARG_STRING, {.s = tmp}},
                               {"bytes", SLOG_ARG_INT, {.i = (int64_t)tref_rng_below(r, 4096)}}};
        ck_assert_int_eq(slog_location_event(w->loc, w->sh->ev_cat, t, a, 2), SLOG_OK);
        it.kind = SLOG_KIND_EVENT;
        it.u.event = (slog_event){tl, w->sh->ev_cat, t, 2, a};
        expect_add(w->sh->exp, &it);
        memset(tmp, 'y', sizeof tmp - 1);
    } else if (what == 1) {
        const double v = (double)tref_rng_below(r, 1000) / 8.0;
        ck_assert_int_eq(slog_location_counter(w->loc, w->sh->ctr_cat, t, v), SLOG_OK);
        it.kind = SLOG_KIND_COUNTER;
        it.u.counter = (slog_counter){tl, w->sh->ctr_cat, t, v};
        expect_add(w->sh->exp, &it);
    } else {
        const slog_arrow a = {w->sh->ar_cat, tl, w->sh->target, t - 5, t, 0, NULL};
        ck_assert_int_eq(slog_location_arrow(w->loc, &a), SLOG_OK);
        it.kind = SLOG_KIND_ARROW;
        it.u.arrow = a;
        expect_add(w->sh->exp, &it);
        return 0;
    }
    return 1;
}

static void *worker_main(void *arg)
{
    worker *const w = arg;
    char name[32];
    snprintf(name, sizeof name, "thread %llu", (unsigned long long)w->seed);
    ck_assert_int_eq(slog_twriter_open_location(w->sh->tw, w->sh->process, SLOG_TIMELINE_THREAD,
                                                name, &w->loc, NULL),
                     SLOG_OK);
    tref_rng r;
    tref_rng_seed(&r, w->seed);
    frame stack[8];
    uint32_t depth = 0;
    int64_t t = 1000 + (int64_t)tref_rng_below(&r, 100);
    int64_t clock = t; /* the location's last time */
    for (uint32_t i = 0; i < w->ops; i++) {
        t += (int64_t)tref_rng_below(&r, 20); /* equal times too */
        const unsigned op = (unsigned)tref_rng_below(&r, 10);
        if (op < 4 && depth < 8) {
            begin_state(w, &r, stack, &depth, t);
            clock = t;
        } else if (op < 8 && depth > 0) {
            end_state(w, stack, &depth, t);
            clock = t;
        } else if (point(w, &r, t)) {
            clock = t;
        }
    }
    if (w->leave_open) {
        /* the open states will be ended by finish at the last time */
        for (uint32_t d = depth; d-- > 0;) {
            const slog_arg a = {"label", SLOG_ARG_STRING, {.s = stack[d].label}};
            slog_item it = {.kind = SLOG_KIND_STATE};
            it.u.state = (slog_state){slog_location_timeline(w->loc), stack[d].cat,
                                      stack[d].start, clock, d, stack[d].label[0] ? 1u : 0u,
                                      stack[d].label[0] ? &a : NULL};
            expect_add(w->sh->exp, &it);
        }
        pthread_barrier_wait(w->appended);
        pthread_barrier_wait(w->finished);
        ck_assert_int_eq(slog_location_event(w->loc, w->sh->ev_cat, t + 1, NULL, 0), SLOG_ESTATE);
    } else {
        while (depth > 0) {
            end_state(w, stack, &depth, t);
        }
    }
    slog_location_close(w->loc);
    return NULL;
}

static void setup_shared(shared *sh, expect *exp, const slog_twriter_options *o)
{
    memset(sh, 0, sizeof *sh);
    pthread_mutex_init(&exp->mu, NULL);
    sh->exp = exp;
    ck_assert_int_eq(slog_twriter_create(&sh->tw, path, o, NULL), SLOG_OK);
    ck_assert_int_eq(slog_twriter_add_timeline(sh->tw, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS,
                                               "process", &sh->process, NULL),
                     SLOG_OK);
    const char *const names[3] = {"read", "write", "compute"};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(slog_twriter_category(sh->tw, SLOG_KIND_STATE, names[i], &sh->st_cat[i],
                                               NULL),
                         SLOG_OK);
    }
    ck_assert_int_eq(slog_twriter_category(sh->tw, SLOG_KIND_EVENT, "ev", &sh->ev_cat, NULL), 0);
    ck_assert_int_eq(slog_twriter_category(sh->tw, SLOG_KIND_ARROW, "msg", &sh->ar_cat, NULL), 0);
    ck_assert_int_eq(slog_twriter_category(sh->tw, SLOG_KIND_COUNTER, "n", &sh->ctr_cat, NULL), 0);
    uint32_t again;
    ck_assert_int_eq(slog_twriter_category(sh->tw, SLOG_KIND_STATE, "write", &again, NULL), 0);
    ck_assert_uint_eq(again, sh->st_cat[1]);
    sh->target = sh->process;
}

/* Read the whole file back and compare with what was appended. */
static void check_file(expect *exp)
{
    slog_reader *r;
    slog_error err;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    ck_assert(slog_reader_info(r)->complete);
    slog_query_options q = SLOG_QUERY_OPTIONS_INIT;
    q.t0 = INT64_MIN / 2;
    q.t1 = INT64_MAX / 2;
    q.flags = SLOG_QUERY_ARGS;
    tref_result res;
    ck_assert_int_eq(tref_run_query(r, &q, &res), SLOG_END);
    tref_sort_keys(exp->keys, exp->n);
    tref_sort_keys(res.keys, res.nkeys);
    char msg[512];
    ck_assert_msg(tref_same_keys(exp->keys, exp->n, res.keys, res.nkeys, msg, sizeof msg),
                  "file differs from the appended drawables: %s", msg);
    tref_result_free(&res);
    slog_reader_destroy(r);
}

static void run_waves(const slog_twriter_options *o, uint32_t waves, uint32_t per_wave,
                      uint32_t ops)
{
    shared sh;
    expect exp = {0};
    setup_shared(&sh, &exp, o);
    for (uint32_t wv = 0; wv < waves; wv++) {
        pthread_t th[16];
        worker w[16];
        for (uint32_t i = 0; i < per_wave; i++) {
            w[i] = (worker){&sh, wv * 100 + i + 1, ops + i * 37, 0, NULL, NULL, NULL};
            ck_assert_int_eq(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
        }
        for (uint32_t i = 0; i < per_wave; i++) {
            pthread_join(th[i], NULL);
        }
    }
    slog_error err;
    ck_assert_int_eq(slog_twriter_finish(sh.tw, &err), SLOG_OK);
    slog_twriter_stats st;
    slog_twriter_get_stats(sh.tw, &st);
    ck_assert_uint_eq(st.dropped, 0);
    ck_assert_uint_eq(st.rejected, 0);
    ck_assert_uint_eq(st.truncated, 0);
    slog_twriter_destroy(sh.tw);
    check_file(&exp);
    expect_free(&exp);
}

START_TEST(test_thread_waves_match_appended)
{
    /* small buffers and queue: many handovers, appends wait for room */
    slog_twriter_options o = SLOG_TWRITER_OPTIONS_INIT;
    o.buffer_bytes = 4096;
    o.queue_bytes = 8192;
    run_waves(&o, 3, 8, 3000);
}
END_TEST

START_TEST(test_thread_defaults_match_appended)
{
    run_waves(NULL, 2, 4, 20000);
}
END_TEST

START_TEST(test_thread_finish_with_open_locations)
{
    shared sh;
    expect exp = {0};
    slog_twriter_options o = SLOG_TWRITER_OPTIONS_INIT;
    o.buffer_bytes = 4096;
    setup_shared(&sh, &exp, &o);
    enum { N = 6 };
    pthread_barrier_t appended, finished;
    pthread_barrier_init(&appended, NULL, N + 1);
    pthread_barrier_init(&finished, NULL, N + 1);
    pthread_t th[N];
    worker w[N];
    for (uint32_t i = 0; i < N; i++) {
        w[i] = (worker){&sh, 500 + i, 200 + i * 300, 1, &appended, &finished, NULL};
        ck_assert_int_eq(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
    }
    pthread_barrier_wait(&appended);
    slog_error err;
    ck_assert_int_eq(slog_twriter_finish(sh.tw, &err), SLOG_OK);
    ck_assert_int_eq(slog_twriter_finish(sh.tw, &err), SLOG_ESTATE);
    slog_twriter_stats st;
    slog_twriter_get_stats(sh.tw, &st);
    ck_assert_uint_eq(st.dropped, 0);
    pthread_barrier_wait(&finished);
    for (uint32_t i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
    }
    slog_twriter_get_stats(sh.tw, &st);
    ck_assert_uint_eq(st.dropped, N); /* one refused event per thread */
    slog_twriter_destroy(sh.tw);
    check_file(&exp);
    expect_free(&exp);
    pthread_barrier_destroy(&appended);
    pthread_barrier_destroy(&finished);
}
END_TEST

START_TEST(test_thread_bad_options_refused)
{
    slog_twriter *tw;
    slog_twriter_options o = SLOG_TWRITER_OPTIONS_INIT;
    o.buffer_bytes = 100;
    slog_error err;
    ck_assert_int_eq(slog_twriter_create(&tw, path, &o, &err), SLOG_EINVAL);
    ck_assert_ptr_null(tw);
    o.buffer_bytes = 8192;
    o.queue_bytes = 8192;
    ck_assert_int_eq(slog_twriter_create(&tw, path, &o, &err), SLOG_EINVAL);
    o.queue_bytes = 0;
    o.flags = 0x80;
    ck_assert_int_eq(slog_twriter_create(&tw, path, &o, &err), SLOG_EINVAL);
}
END_TEST

START_TEST(test_thread_bad_calls_refused)
{
    slog_twriter *tw;
    slog_error err;
    ck_assert_int_eq(slog_twriter_create(&tw, path, NULL, &err), SLOG_OK);
    slog_location *loc;
    ck_assert_int_eq(slog_twriter_open_location(tw, 7, SLOG_TIMELINE_THREAD, "x", &loc, &err),
                     SLOG_EINVAL);
    ck_assert_int_eq(slog_twriter_open_location(tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t",
                                                &loc, &err),
                     SLOG_OK);
    uint32_t cat, ev;
    ck_assert_int_eq(slog_twriter_category(tw, (slog_kind)9, "x", &cat, &err), SLOG_EINVAL);
    ck_assert_int_eq(slog_twriter_category(tw, SLOG_KIND_STATE, "s", &cat, &err), SLOG_OK);
    ck_assert_int_eq(slog_twriter_category(tw, SLOG_KIND_EVENT, "s", &ev, &err), SLOG_OK);
    ck_assert_uint_ne(cat, ev);
    ck_assert_int_eq(slog_location_end(loc, 10), SLOG_ESTATE);
    ck_assert_int_eq(slog_location_begin(loc, cat, 10, NULL, 0), SLOG_OK);
    ck_assert_int_eq(slog_location_begin(loc, cat, 9, NULL, 0), SLOG_EINVAL);
    const slog_arg bad = {NULL, SLOG_ARG_INT, {.i = 1}};
    ck_assert_int_eq(slog_location_event(loc, ev, 11, &bad, 1), SLOG_EINVAL);
    /* args over a quarter of the buffer: refused however full the buffer is
     * (they were taken while the buffer had room, refused once it had not) */
    char *const big = malloc(20000);
    ck_assert_ptr_nonnull(big);
    memset(big, 'x', 19999);
    big[19999] = '\0';
    const slog_arg huge = {"k", SLOG_ARG_STRING, {.s = big}};
    ck_assert_int_eq(slog_location_event(loc, ev, 11, &huge, 1), SLOG_EINVAL);
    ck_assert_int_eq(slog_location_begin(loc, cat, 11, &huge, 1), SLOG_EINVAL);
    free(big);
    const slog_arrow back = {0, 0, 0, 20, 19, 0, NULL};
    ck_assert_int_eq(slog_location_arrow(loc, &back), SLOG_EINVAL);
    /* a state on an event category: refused by the background at its end,
     * which is not paired with the enclosing state */
    ck_assert_int_eq(slog_location_begin(loc, ev, 12, NULL, 0), SLOG_OK);
    ck_assert_int_eq(slog_location_end(loc, 13), SLOG_OK);
    ck_assert_int_eq(slog_location_end(loc, 14), SLOG_OK);
    ck_assert_uint_eq(slog_location_depth(loc), 0);
    slog_location_close(loc);
    ck_assert_int_eq(slog_twriter_finish(tw, &err), SLOG_OK);
    slog_twriter_stats st;
    slog_twriter_get_stats(tw, &st);
    ck_assert_uint_eq(st.rejected, 1);
    ck_assert_uint_eq(st.records, 1);
    slog_twriter_destroy(tw);
    expect exp = {0};
    pthread_mutex_init(&exp.mu, NULL);
    slog_item it = {.kind = SLOG_KIND_STATE};
    it.u.state = (slog_state){0, cat, 10, 14, 0, 0, NULL};
    expect_add(&exp, &it);
    check_file(&exp);
    expect_free(&exp);
}
END_TEST

/* Threads that keep opening locations, appending and closing them while
 * the writer finishes; the last location of each is closed only after the
 * writer was destroyed (it outlives it). */
typedef struct racer {
    slog_twriter *tw;
    uint32_t cat;
    _Atomic int *go, *parked, *destroyed;
} racer;

static void *racer_main(void *arg)
{
    racer *const r = arg;
    slog_location *loc = NULL;
    while (atomic_load(r->go)) {
        if (slog_twriter_open_location(r->tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "r", &loc,
                                       NULL) != SLOG_OK) {
            loc = NULL;
            continue; /* finished: opening is refused */
        }
        for (int64_t t = 0; t < 3000; t += 2) {
            if (slog_location_begin(loc, r->cat, t, NULL, 0) != SLOG_OK) {
                break;
            }
            (void)slog_location_end(loc, t + 1);
        }
        if (atomic_load(r->go)) {
            slog_location_close(loc);
            loc = NULL;
        }
    }
    atomic_fetch_add(r->parked, 1); /* no more writer calls but the close */
    while (!atomic_load(r->destroyed)) {
        usleep(1000);
    }
    slog_location_close(loc);
    return NULL;
}

START_TEST(test_thread_finish_races_open_close)
{
    slog_twriter *tw;
    slog_twriter_options o = SLOG_TWRITER_OPTIONS_INIT;
    o.buffer_bytes = 4096;
    ck_assert_int_eq(slog_twriter_create(&tw, path, &o, NULL), SLOG_OK);
    uint32_t cat;
    ck_assert_int_eq(slog_twriter_category(tw, SLOG_KIND_STATE, "s", &cat, NULL), SLOG_OK);
    _Atomic int go = 1, parked = 0, destroyed = 0;
    enum { N = 4 };
    racer r[N];
    pthread_t th[N];
    for (int i = 0; i < N; i++) {
        r[i] = (racer){tw, cat, &go, &parked, &destroyed};
        ck_assert_int_eq(pthread_create(&th[i], NULL, racer_main, &r[i]), 0);
    }
    usleep(20000);
    ck_assert_int_eq(slog_twriter_finish(tw, NULL), SLOG_OK);
    usleep(5000);
    atomic_store(&go, 0);
    while (atomic_load(&parked) < N) {
        usleep(1000);
    }
    slog_twriter_stats st;
    slog_twriter_get_stats(tw, &st);
    slog_twriter_destroy(tw); /* the racers' last locations outlive it */
    atomic_store(&destroyed, 1);
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
    }
    slog_reader *rd;
    ck_assert_int_eq(slog_reader_open(&rd, path, NULL, NULL), SLOG_OK);
    ck_assert(slog_reader_info(rd)->complete);
    ck_assert_uint_eq(slog_reader_info(rd)->states, st.records);
    slog_reader_destroy(rd);
}
END_TEST

/* A child forgets the inherited writer, writes a file of its own, then
 * closes HDF5 as its exit would (H5close flushes every file still open:
 * without the forget, the parent's stale one) and leaves with _exit (the
 * parent's structures it forgot are not freed, which LeakSanitizer would
 * report); the parent's file is untouched. */
static int child_after_fork(slog_twriter *inherited, const char *own)
{
    slog_twriter_forget_after_fork(inherited);
#ifdef __SANITIZE_THREAD__
    /* ThreadSanitizer cannot start threads after a multi-threaded fork:
     * the child only forgets (the parent's file is still checked) */
    FILE *const f = fopen(own, "w");
    return f != NULL && fclose(f) == 0 ? 0 : 1;
#endif
    slog_twriter *tw;
    slog_location *loc;
    uint32_t cat;
    if (slog_twriter_create(&tw, own, NULL, NULL) != SLOG_OK ||
        slog_twriter_open_location(tw, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, "child", &loc,
                                   NULL) != SLOG_OK ||
        slog_twriter_category(tw, SLOG_KIND_STATE, "c", &cat, NULL) != SLOG_OK ||
        slog_location_begin(loc, cat, 1, NULL, 0) != SLOG_OK ||
        slog_location_end(loc, 2) != SLOG_OK) {
        return 1;
    }
    slog_location_close(loc);
    const int rc = slog_twriter_finish(tw, NULL);
    slog_twriter_destroy(tw);
    return rc == SLOG_OK ? 0 : 1;
}

START_TEST(test_thread_fork_child_forgets_parent_writer)
{
    shared sh;
    expect exp = {0};
    setup_shared(&sh, &exp, NULL);
    worker w = {&sh, 77, 5000, 0, NULL, NULL, NULL};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, worker_main, &w), 0);
    pthread_join(th, NULL); /* its buffers are with the background now */
    char own[300];
    snprintf(own, sizeof own, "%s.child", path);
    int go[2];
    ck_assert_int_eq(pipe(go), 0);
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        const int rc = child_after_fork(sh.tw, own);
        char c;
        /* close HDF5 only after the parent sealed its file */
        const ssize_t got = read(go[0], &c, 1);
        (void)H5close();
        _exit(got == 1 ? rc : 2);
    }
    w.seed = 78;
    ck_assert_int_eq(pthread_create(&th, NULL, worker_main, &w), 0);
    pthread_join(th, NULL);
    ck_assert_int_eq(slog_twriter_finish(sh.tw, NULL), SLOG_OK);
    slog_twriter_destroy(sh.tw);
    ck_assert_int_eq(write(go[1], "x", 1), 1);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(go[0]);
    close(go[1]);
    check_file(&exp);
    expect_free(&exp);
#ifndef __SANITIZE_THREAD__
    slog_reader *r;
    ck_assert_int_eq(slog_reader_open(&r, own, NULL, NULL), SLOG_OK);
    ck_assert(slog_reader_info(r)->complete);
    ck_assert_uint_eq(slog_reader_info(r)->states, 1);
    slog_reader_destroy(r);
#endif
    remove(own);
}
END_TEST

/* SLOG_SCOPE ends its state on every way out of the block. */
static int scoped(slog_location *loc, uint32_t cat, int early)
{
    SLOG_SCOPE(loc, cat);
    if (early) {
        return (int)slog_location_depth(loc);
    }
    for (int i = 0; i < 3; i++) {
        SLOG_SCOPE(loc, cat);
        if (i == 1) {
            break;
        }
    }
    return (int)slog_location_depth(loc);
}

/* The location argument, counting its evaluations. */
static int loc_evaluations;

static slog_location *counted(slog_location *loc)
{
    loc_evaluations++;
    return loc;
}

START_TEST(test_thread_scope_macro_ends_on_every_exit)
{
    slog_twriter *tw;
    ck_assert_int_eq(slog_twriter_create(&tw, path, NULL, NULL), SLOG_OK);
    slog_location *loc;
    uint32_t cat;
    ck_assert_int_eq(slog_twriter_open_location(tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t",
                                                &loc, NULL),
                     SLOG_OK);
    ck_assert_int_eq(slog_twriter_category(tw, SLOG_KIND_STATE, "s", &cat, NULL), SLOG_OK);
    ck_assert_int_eq(scoped(loc, cat, 1), 1);
    ck_assert_uint_eq(slog_location_depth(loc), 0);
    ck_assert_int_eq(scoped(loc, cat, 0), 1);
    ck_assert_uint_eq(slog_location_depth(loc), 0);
    {
        SLOG_SCOPE(counted(loc), cat); /* evaluated once, as a function call would be */
        ck_assert_uint_eq(slog_location_depth(loc), 1);
    }
    ck_assert_int_eq(loc_evaluations, 1);
    slog_location_close(loc);
    ck_assert_int_eq(slog_twriter_finish(tw, NULL), SLOG_OK);
    slog_twriter_stats st;
    slog_twriter_get_stats(tw, &st);
    ck_assert_uint_eq(st.records, 1 + 1 + 2 + 1); /* states */
    slog_twriter_destroy(tw);
}
END_TEST

/* After a flush a reader sees every state appended before it, while the
 * location goes on appending; finish then adds the rest. */
START_TEST(test_thread_flush_makes_appended_visible)
{
    slog_twriter *tw;
    slog_twriter_options o = SLOG_TWRITER_OPTIONS_INIT;
    o.buffer_bytes = 4096;
    ck_assert_int_eq(slog_twriter_create(&tw, path, &o, NULL), SLOG_OK);
    slog_location *loc;
    uint32_t cat;
    ck_assert_int_eq(slog_twriter_open_location(tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t",
                                                &loc, NULL),
                     SLOG_OK);
    ck_assert_int_eq(slog_twriter_category(tw, SLOG_KIND_STATE, "s", &cat, NULL), SLOG_OK);
    int64_t t = 0;
    for (int round = 1; round <= 3; round++) {
        for (int i = 0; i < 1000; i++, t += 2) { /* about 7 buffers: some still in the location */
            ck_assert_int_eq(slog_location_begin(loc, cat, t, NULL, 0), SLOG_OK);
            ck_assert_int_eq(slog_location_end(loc, t + 1), SLOG_OK);
        }
        ck_assert_int_eq(slog_location_begin(loc, cat, t, NULL, 0), SLOG_OK); /* left open */
        ck_assert_int_eq(slog_twriter_flush(tw, NULL), SLOG_OK);
        slog_reader *r;
        ck_assert_int_eq(slog_reader_open(&r, path, NULL, NULL), SLOG_OK);
        ck_assert(!slog_reader_info(r)->complete);
        ck_assert_uint_eq(slog_reader_info(r)->states, 1000u * (unsigned)round + (unsigned)round - 1);
        slog_reader_destroy(r);
        ck_assert_int_eq(slog_location_end(loc, ++t), SLOG_OK);
        t++;
    }
    slog_location_close(loc);
    ck_assert_int_eq(slog_twriter_finish(tw, NULL), SLOG_OK);
    ck_assert_int_eq(slog_twriter_flush(tw, NULL), SLOG_ESTATE);
    slog_twriter_destroy(tw);
    slog_reader *r;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, NULL), SLOG_OK);
    ck_assert(slog_reader_info(r)->complete);
    ck_assert_uint_eq(slog_reader_info(r)->states, 3003);
    slog_reader_destroy(r);
}
END_TEST

/* States appended from inside HDF5: H5Literate holds HDF5's global lock
 * through its callback, and the background needs it to write the file. */
typedef struct inside_hdf5 {
    slog_location *loc;
    uint32_t cat;
    long n;
} inside_hdf5;

static herr_t append_inside_hdf5(hid_t group, const char *name, const H5L_info_t *info,
                                 void *data)
{
    (void)group;
    (void)name;
    (void)info;
    const inside_hdf5 *const c = data;
    for (long i = 0; i < c->n; i++) {
        (void)slog_location_begin(c->loc, c->cat, 2 * i, NULL, 0); /* SLOG_ENOMEM when dropped */
        (void)slog_location_end(c->loc, 2 * i + 1);
    }
    return 0;
}

/* Appending inside an HDF5 call: with max_wait_ms the appends stop waiting
 * for the blocked background and drop (this deadlocked before: the
 * append waited for room only the background could make); afterwards the
 * rest is written, and the file's states plus the lost ones are all. */
START_TEST(test_thread_bounded_wait_inside_hdf5)
{
    slog_twriter *tw;
    slog_twriter_options o = SLOG_TWRITER_OPTIONS_INIT;
    o.buffer_bytes = 4096;
    o.queue_bytes = 16384;
    o.max_wait_ms = 20;
    ck_assert_int_eq(slog_twriter_create(&tw, path, &o, NULL), SLOG_OK);
    inside_hdf5 c = {NULL, 0, 100000};
    ck_assert_int_eq(slog_twriter_open_location(tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t",
                                                &c.loc, NULL),
                     SLOG_OK);
    ck_assert_int_eq(slog_twriter_category(tw, SLOG_KIND_STATE, "s", &c.cat, NULL), SLOG_OK);
    char h5[300];
    snprintf(h5, sizeof h5, "%s.h5", path);
    const hid_t f = H5Fcreate(h5, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(f, 0);
    ck_assert_int_ge(H5Gclose(H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)), 0);
    hsize_t idx = 0;
    ck_assert_int_ge(H5Literate(f, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, append_inside_hdf5, &c), 0);
    ck_assert_int_ge(H5Fclose(f), 0);
    remove(h5);
    slog_location_close(c.loc);
    ck_assert_int_eq(slog_twriter_finish(tw, NULL), SLOG_OK);
    slog_twriter_stats st;
    slog_twriter_get_stats(tw, &st);
    slog_twriter_destroy(tw);
    ck_assert_uint_gt(st.dropped, 0);
    ck_assert_uint_eq(st.records + st.dropped / 2, (uint64_t)c.n); /* a lost state: begin and end */
    slog_reader *r;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, NULL), SLOG_OK);
    ck_assert_uint_eq(slog_reader_info(r)->states, st.records);
    slog_reader_destroy(r);
}
END_TEST

/* A timeline renamed before and after the background has defined it in
 * the file (a flush between), and categories with and without a group:
 * the file has the last names and the groups. */
START_TEST(test_thread_rename_and_groups_reach_the_file)
{
    slog_twriter *tw;
    ck_assert_int_eq(slog_twriter_create(&tw, path, NULL, NULL), SLOG_OK);
    uint32_t proc, late, cat, plain, again;
    ck_assert_int_eq(slog_twriter_add_timeline(tw, SLOG_NO_PARENT, SLOG_TIMELINE_PROCESS, "prog",
                                               &proc, NULL),
                     SLOG_OK);
    ck_assert_int_eq(slog_twriter_category_in(tw, SLOG_KIND_STATE, "read", "posix", &cat, NULL),
                     SLOG_OK);
    ck_assert_int_eq(slog_twriter_category(tw, SLOG_KIND_STATE, "plain", &plain, NULL), SLOG_OK);
    ck_assert_int_eq(slog_twriter_category_in(tw, SLOG_KIND_STATE, "read", "other", &again, NULL),
                     SLOG_OK);
    ck_assert_uint_eq(again, cat); /* defined before: keeps its group */
    slog_location *loc;
    ck_assert_int_eq(slog_twriter_open_location(tw, proc, SLOG_TIMELINE_THREAD, "t", &loc, NULL),
                     SLOG_OK);
    ck_assert_int_eq(slog_location_begin(loc, cat, 1, NULL, 0), SLOG_OK);
    ck_assert_int_eq(slog_location_end(loc, 2), SLOG_OK);
    ck_assert_int_eq(slog_twriter_flush(tw, NULL), SLOG_OK); /* the file has "prog" now */
    ck_assert_int_eq(slog_twriter_set_timeline(tw, proc, "rank 3: prog", NULL), SLOG_OK);
    ck_assert_int_eq(slog_twriter_add_timeline(tw, proc, SLOG_TIMELINE_THREAD, "x", &late, NULL),
                     SLOG_OK);
    ck_assert_int_eq(slog_twriter_set_timeline(tw, late, "y", NULL), SLOG_OK); /* not synced yet */
    ck_assert_int_eq(slog_twriter_set_timeline(tw, 99, "z", NULL), SLOG_EINVAL);
    slog_location_close(loc);
    ck_assert_int_eq(slog_twriter_finish(tw, NULL), SLOG_OK);
    ck_assert_int_eq(slog_twriter_set_timeline(tw, proc, "after", NULL), SLOG_ESTATE);
    slog_twriter_destroy(tw);
    slog_reader *r;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, NULL), SLOG_OK);
    slog_timeline_info ti;
    ck_assert_int_eq(slog_reader_timeline(r, proc, &ti), SLOG_OK);
    ck_assert_str_eq(ti.name, "rank 3: prog");
    ck_assert_int_eq(slog_reader_timeline(r, late, &ti), SLOG_OK);
    ck_assert_str_eq(ti.name, "y");
    slog_category_info ci;
    ck_assert_int_eq(slog_reader_category(r, cat, &ci), SLOG_OK);
    ck_assert_str_eq(ci.group, "posix");
    ck_assert_int_eq(slog_reader_category(r, plain, &ci), SLOG_OK);
    ck_assert_str_eq(ci.group, "");
    slog_reader_destroy(r);
}
END_TEST

static Suite *thread_suite(void)
{
    Suite *s = suite_create("thread");
    TCase *tc = tcase_create("thread");
    tcase_add_checked_fixture(tc, path_setup, path_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_thread_waves_match_appended);
    tcase_add_test(tc, test_thread_defaults_match_appended);
    tcase_add_test(tc, test_thread_finish_with_open_locations);
    tcase_add_test(tc, test_thread_finish_races_open_close);
    tcase_add_test(tc, test_thread_flush_makes_appended_visible);
    tcase_add_test(tc, test_thread_rename_and_groups_reach_the_file);
    tcase_add_test(tc, test_thread_bounded_wait_inside_hdf5);
    tcase_add_test(tc, test_thread_bad_options_refused);
    tcase_add_test(tc, test_thread_bad_calls_refused);
    tcase_add_test(tc, test_thread_scope_macro_ends_on_every_exit);
    tcase_add_test(tc, test_thread_fork_child_forgets_parent_writer);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(thread_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
