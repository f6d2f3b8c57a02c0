/* SPDX-License-Identifier: MIT
 *
 * api_writer.c - the public writer, caller side (api_writer_int.h):
 * validates calls, owns the timeline, category and string tables, computes
 * nesting depth (begin/end), and hands each checked drawable to the apply
 * side (api_writer_apply.c): at once, or through the background thread of
 * a SLOG_WRITER_BACKGROUND writer (api_writer_bg.h).
 *
 * State machine: OPEN --(append/define)--> OPEN --slog_writer_finish--> FINISHED
 *                any failing append/flush/finish --> ERROR (sticky).
 * Layer 5: api.
 */
#include "api_options.h"
#include "api_thread.h"
#include "api_writer_colour.h"
#include "api_writer_int.h"
#include "util_alloc.h"
#include "util_error.h"

#include <slog/slog_writer.h>
#include <stdio.h>
#include <string.h>

#define ARGS_LZ4_LEVEL 4
#define INTERN_VALUE_MAX   256u              /* longer string args stay inline */
#define INTERN_OPTIONAL_CAP (16u << 20)      /* heap bytes for interned values */
#define DEFAULT_FLUSH_NODES 64u

static int check_open(const slog_writer *w, slog_error *err)
{
    if (w->state == W_OPEN) {
        return SLOG_OK;
    }
    if (w->state == W_FINISHED) {
        return util_err(err, SLOG_ESTATE, UINT64_MAX, w->path, "Cannot change a finished writer");
    }
    return util_err(err, SLOG_ESTATE, UINT64_MAX, w->path,
                    "Cannot use a writer after an earlier error (%.180s)", w->fail_err.message);
}

/* The writer fails with @p rc: later calls name this first failure, taken
 * from @p err when the caller kept it, else from the code. */
static int writer_fail(slog_writer *w, int rc, slog_error *err)
{
    w->state = W_ERROR;
    if (err != NULL && err->code == rc) {
        w->fail_err = *err;
    } else {
        (void)util_err(&w->fail_err, rc, UINT64_MAX, w->path, "%s", slog_status_name(rc));
    }
    return util_err_source(err, rc, w->path);
}

static void header_from_options(store_header *h, const slog_writer_options *o)
{
    memset(h, 0, sizeof *h);
    h->format_read_version = STORE_FORMAT_WRITTEN_READ_VERSION;
    h->format_write_version = STORE_FORMAT_WRITE_VERSION;
    h->ticks_per_second = o && o->ticks_per_second ? o->ticks_per_second : 1000000000u;
    h->fanout = o && o->fanout ? o->fanout : 2;
    h->chunk_bytes = o && o->leaf_bytes ? o->leaf_bytes : 65536;
    h->lz4_level = o ? o->lz4_level : 0;
    h->preview_bytes = o && o->preview_bytes ? o->preview_bytes : 65536;
    const char *const creator = o && o->creator ? o->creator : "libslog " SLOG_VERSION_STRING;
    (void)snprintf(h->creator, sizeof h->creator, "%s", creator);
}

static int validate_options(const slog_writer_options *o, slog_error *err, const char *path)
{
    if (o == NULL) {
        return SLOG_OK;
    }
    if (o->fanout != 0 && (o->fanout < 2 || o->fanout > 64)) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, path, "fanout %u outside 2..64", o->fanout);
    }
    if (o->leaf_bytes != 0 && (o->leaf_bytes < 512 || o->leaf_bytes > (64u << 20))) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, path, "leaf_bytes %u outside 512..64Mi",
                        o->leaf_bytes);
    }
    if (o->lz4_level < 0 || o->lz4_level > 12) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, path, "lz4_level %d outside 0..12",
                        o->lz4_level);
    }
    if (o->preview_bytes != 0 && o->preview_bytes < 256) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, path, "preview_bytes %u below 256",
                        o->preview_bytes);
    }
    return SLOG_OK;
}

/* The store, the tree builder and (SLOG_WRITER_BACKGROUND) the thread. */
static int writer_open(slog_writer *w, const slog_writer_options *wo, slog_error *err)
{
    store_header hdr;
    header_from_options(&hdr, wo);
    const unsigned flags = (wo->flags & SLOG_WRITER_NO_REPLACE) != 0 ? STORE_NO_REPLACE : 0;
    int rc = store_create(&w->st, w->path, &hdr, flags, err);
    if (rc == SLOG_OK) {
        /* args blobs at LZ4 HC level 4 or the caller's, if higher: they are
         * most of a real trace's payload and read only on demand */
        const tree_options to = {hdr.fanout, hdr.chunk_bytes, hdr.preview_bytes, hdr.lz4_level,
                                 hdr.lz4_level > ARGS_LZ4_LEVEL ? hdr.lz4_level : ARGS_LZ4_LEVEL,
                                 (wo->flags & SLOG_WRITER_TIME_BINS) != 0};
        rc = tree_build_create(&w->tb, w->st, &to, &w->ctx, err);
    }
    if (rc == SLOG_OK && (wo->flags & SLOG_WRITER_BACKGROUND) != 0) {
        rc = wbg_start(&w->bg, api_writer_apply_batch, w, err);
    }
    return rc;
}

int slog_writer_create(slog_writer **out, const char *path, const slog_writer_options *opts,
                       slog_error *err)
{
    *out = NULL;
    slog_writer_options wo;
    int rc = api_writer_options_load(&wo, opts, path, err);
    if (rc == SLOG_OK) {
        rc = validate_options(&wo, err, path);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    slog_writer *const w = util_calloc(1, sizeof *w);
    if (w == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, path, "Cannot allocate the writer");
    }
    (void)snprintf(w->path, sizeof w->path, "%s", path);
    util_intern_init(&w->strings, INTERN_OPTIONAL_CAP);
    pthread_mutex_init(&w->grow_mu, NULL);
    w->t_min = w->c_tmin = INT64_MAX;
    w->t_max = w->c_tmax = INT64_MIN;
    w->flush_nodes = wo.flush_nodes ? wo.flush_nodes : DEFAULT_FLUSH_NODES;
    w->on_flush = wo.on_flush;
    w->on_flush_ctx = wo.on_flush_ctx;
    rc = writer_open(w, &wo, err);
    if (rc != SLOG_OK) {
        tree_build_destroy(w->tb);
        (void)store_close(w->st, NULL);
        util_intern_free(&w->strings);
        pthread_mutex_destroy(&w->grow_mu);
        util_free(w);
        return util_err_source(err, rc, path);
    }
    *out = w;
    return SLOG_OK;
}

/* Around a change the apply side may be reading (a table that moves, a
 * renamed row): only a background writer has another thread to exclude. */
static void tables_lock(slog_writer *w)
{
    if (w->bg != NULL) {
        pthread_mutex_lock(&w->grow_mu);
    }
}

static void tables_unlock(slog_writer *w)
{
    if (w->bg != NULL) {
        pthread_mutex_unlock(&w->grow_mu);
    }
}

/* Intern a string; the heap moves only under the lock. */
static uint64_t intern_locked(slog_writer *w, const char *s, size_t len, int optional)
{
    const util_buf *const heap = &w->strings.heap;
    if (w->bg == NULL || heap->cap - heap->len > len) {
        return util_intern_add(&w->strings, s, len, optional);
    }
    pthread_mutex_lock(&w->grow_mu);
    const uint64_t off = util_intern_add(&w->strings, s, len, optional);
    pthread_mutex_unlock(&w->grow_mu);
    return off;
}

static uint64_t intern_cb(void *user, const char *text, size_t len, int is_key)
{
    slog_writer *const w = user;
    if (!is_key && len > INTERN_VALUE_MAX) {
        return UINT64_MAX;
    }
    return intern_locked(w, text, len, !is_key);
}

static uint64_t intern_name(slog_writer *w, const char *s)
{
    return intern_locked(w, s != NULL ? s : "", s != NULL ? strlen(s) : 0, 0);
}

/* Grow the per-timeline arrays together; a partial failure only leaves some
 * arrays larger than cap_tl, which is harmless.  The rows and their dirty
 * flags are the apply side's to read, so they move under the lock. */
static int grow_timelines(slog_writer *w)
{
    if (w->ntl < w->cap_tl) {
        return 0;
    }
    const size_t ncap = w->cap_tl ? w->cap_tl * 2 : 64;
    void *p;
    if ((p = util_realloc(w->rt, ncap * sizeof *w->rt)) == NULL) {
        return -1;
    }
    w->rt = p;
    if ((p = util_realloc(w->root, ncap * sizeof *w->root)) == NULL) {
        return -1;
    }
    w->root = p;
    tables_lock(w);
    int rc = -1;
    if ((p = util_realloc(w->tls, ncap * sizeof *w->tls)) != NULL) {
        w->tls = p;
        if ((p = util_realloc(w->tl_dirty, ncap)) != NULL) {
            w->tl_dirty = p;
            w->cap_tl = ncap;
            rc = 0;
        }
    }
    tables_unlock(w);
    return rc;
}

/* A failed hand-over marks the writer: later calls return SLOG_ESTATE. */
static int put_failed(slog_writer *w, int rc, slog_error *err)
{
    return writer_fail(w, rc, err);
}

/* Copy a record (and its encoded args) into the background's batch. */
static int batch_put(slog_writer *w, const wrec *r, const uint8_t *args, slog_error *err)
{
    const size_t padded = ((size_t)r->args_len + 7u) & ~(size_t)7u;
    uint8_t *dst = NULL;
    const int rc = wbg_room(w->bg, sizeof *r + padded, &dst, err);
    if (rc == SLOG_OK) {
        memcpy(dst, r, sizeof *r);
        if (r->args_len > 0) {
            memcpy(dst + sizeof *r, args, r->args_len);
        }
        wbg_commit(w->bg, sizeof *r + padded);
    }
    return rc;
}

/* A background writer's tables as far as they reach now, when they grew
 * since the last record said: a flush on the background then appends what
 * a synchronous writer's flush at the same record would (the same file,
 * byte for byte: /strings is compressed, so how its bytes are split
 * between flushes shows in the file). */
static int batch_put_tables(slog_writer *w, slog_error *err)
{
    if (w->strings.heap.len == w->c_strings && w->ncat == w->c_ncat) {
        return SLOG_OK;
    }
    wrec t;
    memset(&t, 0, sizeof t);
    t.op = WOP_TABLES;
    t.u.tables.strings = w->strings.heap.len;
    t.u.tables.ncat = w->ncat;
    const int rc = batch_put(w, &t, NULL, err);
    if (rc == SLOG_OK) {
        w->c_strings = w->strings.heap.len;
        w->c_ncat = w->ncat;
    }
    return rc;
}

/* Hand a checked record (and its encoded args) to the apply side: now, or
 * through the background's batch.  An error marks the writer. */
static int writer_put(slog_writer *w, const wrec *r, const uint8_t *args, slog_error *err)
{
    int rc;
    if (w->bg == NULL) {
        rc = api_writer_apply(w, r, args, err);
    } else {
        rc = batch_put_tables(w, err);
        rc = rc == SLOG_OK ? batch_put(w, r, args, err) : rc;
    }
    return rc == SLOG_OK ? SLOG_OK : put_failed(w, rc, err);
}

/* The public signature mirrors the data model (7 parameters). */
// NOLINTNEXTLINE(readability-function-size)
int slog_writer_add_timeline(slog_writer *w, uint32_t parent, slog_timeline_kind kind,
                             const char *name, int64_t sort_key, uint32_t *id_out, slog_error *err)
{
    int rc = check_open(w, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (parent != SLOG_NO_PARENT && parent >= w->ntl) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, w->path, "Unknown parent timeline %u",
                        parent);
    }
    if ((unsigned)kind > SLOG_TIMELINE_RANK || w->ntl >= UINT32_MAX - 1) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, w->path, "Bad timeline kind %d", (int)kind);
    }
    const uint64_t name_off = intern_name(w, name);
    if (name_off == UINT64_MAX || grow_timelines(w) != 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, w->path, "Cannot add a timeline");
    }
    const uint32_t id = (uint32_t)w->ntl;
    store_timeline_row *const row = &w->tls[id];
    memset(row, 0, sizeof *row);
    row->id = id;
    row->parent = parent;
    row->kind = (uint32_t)kind;
    row->sort_key = sort_key;
    row->name = name_off;
    memset(&w->rt[id], 0, sizeof w->rt[id]);
    w->root[id] = parent == SLOG_NO_PARENT ? id : w->root[parent];
    w->tl_dirty[id] = 0;
    w->ntl++;
    wrec r = {WOP_TIMELINE, 0, {.tl = {id, parent, w->root[id]}}};
    rc = writer_put(w, &r, NULL, err);
    if (rc == SLOG_OK && id_out != NULL) {
        *id_out = id;
    }
    return rc;
}

int slog_writer_set_timeline(slog_writer *w, uint32_t id, const char *name, int64_t sort_key,
                             slog_error *err)
{
    const int rc = check_open(w, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (id >= w->ntl) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, w->path, "Unknown timeline %u", id);
    }
    if (name != NULL) {
        const uint64_t off = intern_name(w, name);
        if (off == UINT64_MAX) {
            return util_err(err, SLOG_ENOMEM, UINT64_MAX, w->path, "Cannot rename a timeline");
        }
        tables_lock(w);
        w->tls[id].name = off;
        tables_unlock(w);
    }
    tables_lock(w);
    w->tls[id].sort_key = sort_key;
    w->tl_dirty[id] = id < w->tl_written;
    tables_unlock(w);
    return SLOG_OK;
}

/* The public signature mirrors the data model (7 parameters). */
// NOLINTNEXTLINE(readability-function-size)
int slog_writer_add_category(slog_writer *w, slog_kind kind, const char *name, uint32_t rgba,
                             const char *group, uint32_t *id_out, slog_error *err)
{
    const int rc = check_open(w, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if ((unsigned)kind > SLOG_KIND_COUNTER || w->ncat >= UINT32_MAX - 1) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, w->path, "Bad category kind %d", (int)kind);
    }
    const char *const nm = name != NULL ? name : "";
    const uint64_t name_off = intern_name(w, nm);
    const uint64_t group_off = group != NULL ? intern_name(w, group) : UINT64_MAX;
    tables_lock(w);
    void *p = w->cats;
    const int grown = util_grow(&p, &w->cap_cat, w->ncat + 1, sizeof *w->cats);
    w->cats = p;
    tables_unlock(w);
    if (name_off == UINT64_MAX || (group != NULL && group_off == UINT64_MAX) || grown != 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, w->path, "Cannot add a category");
    }
    store_category_row *const row = &w->cats[w->ncat];
    memset(row, 0, sizeof *row);
    row->id = (uint32_t)w->ncat;
    row->kind = (uint32_t)kind;
    row->rgba = api_writer_colour_pick(&w->colours, (uint32_t)kind, nm, rgba);
    row->name = name_off;
    row->group = group_off;
    if (id_out != NULL) {
        *id_out = row->id;
    }
    w->ncat++;
    return SLOG_OK;
}

/* ---- appends ---- */

static int check_timeline(slog_writer *w, uint32_t tl, slog_error *err)
{
    if (tl >= w->ntl) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, w->path, "Unknown timeline %u", tl);
    }
    return SLOG_OK;
}

static int check_category(slog_writer *w, uint32_t cat, slog_kind kind, slog_error *err)
{
    if (cat >= w->ncat) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, w->path, "Unknown category %u", cat);
    }
    if (w->cats[cat].kind != (uint32_t)kind) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, w->path,
                        "Category %u is of kind %u, not %d", cat, w->cats[cat].kind, (int)kind);
    }
    return SLOG_OK;
}

static int encode_args(slog_writer *w, const slog_arg *args, uint32_t nargs, slog_error *err)
{
    w->argbuf.len = 0;
    if (nargs == 0) {
        return SLOG_OK;
    }
    if (args == NULL) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, w->path, "nargs %u with NULL args", nargs);
    }
    for (uint32_t i = 0; i < nargs; i++) {
        if ((unsigned)args[i].type > SLOG_ARG_JSON) {
            return util_err(err, SLOG_EINVAL, UINT64_MAX, w->path, "Bad arg type %d",
                            (int)args[i].type);
        }
    }
    if (fmt_args_encode(args, nargs, intern_cb, w, &w->argbuf) != 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, w->path, "Cannot encode args");
    }
    return SLOG_OK;
}

/* Widens the file's time range to hold [t0, t1], or refuses the drawable
 * when the range would span more than INT64_MAX ticks: every duration and
 * time relative to the start must fit an int64 (readers print them). */
static int check_times(slog_writer *w, int64_t t0, int64_t t1, slog_error *err)
{
    const int64_t lo = t0 < w->c_tmin ? t0 : w->c_tmin;
    const int64_t hi = t1 > w->c_tmax ? t1 : w->c_tmax;
    int64_t span;
    if (__builtin_sub_overflow(hi, lo, &span)) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, w->path,
                        "Drawable at %lld..%lld ticks makes the trace span more than 2^63-1 ticks",
                        (long long)t0, (long long)t1);
    }
    w->c_tmin = lo;
    w->c_tmax = hi;
    return SLOG_OK;
}

static int put_state(slog_writer *w, const slog_state *s, const uint8_t *args, size_t args_len,
                     slog_error *err)
{
    const int rc = check_times(w, s->start, s->end, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    wrec r;
    r.op = WOP_STATE;
    r.args_len = (uint32_t)args_len;
    r.u.s.start = s->start;
    r.u.s.end = s->end;
    r.u.s.timeline = s->timeline;
    r.u.s.category = s->category;
    r.u.s.depth = s->depth;
    r.u.s.excl = 0;
    r.u.s.args_len = 0;
    r.u.s.args_off = 0;
    r.u.s.resid = 0;
    if (w->bg == NULL) { /* no record to pack: straight to the apply side */
        const int arc = api_writer_apply_state(w, &r.u.s, args, args_len, err);
        return arc == SLOG_OK ? SLOG_OK : put_failed(w, arc, err);
    }
    return writer_put(w, &r, args, err);
}

static int check_state(slog_writer *w, const slog_state *s, slog_error *err)
{
    int rc = check_timeline(w, s->timeline, err);
    if (rc == SLOG_OK) {
        rc = check_category(w, s->category, SLOG_KIND_STATE, err);
    }
    if (rc == SLOG_OK && s->end < s->start) {
        rc = util_err(err, SLOG_EINVAL, UINT64_MAX, w->path, "State ends before it starts");
    }
    if (rc == SLOG_OK && s->depth > SLOG_MAX_DEPTH) {
        rc = util_err(err, SLOG_EINVAL, UINT64_MAX, w->path, "State depth %u too large", s->depth);
    }
    return rc;
}

/* The common state, checked in one expression: an open synchronous writer,
 * no args, known timeline and state category, end >= start, a depth in
 * range, and a trace span that stays below 2^63 ticks.  Anything else takes
 * the checked path below, which says what is wrong. */
static int plain_state(const slog_writer *w, const slog_state *s)
{
    int64_t span;
    return w->state == W_OPEN && w->bg == NULL && s->nargs == 0 && s->timeline < w->ntl &&
           s->category < w->ncat && w->cats[s->category].kind == (uint32_t)SLOG_KIND_STATE &&
           s->end >= s->start && s->depth <= SLOG_MAX_DEPTH &&
           !__builtin_sub_overflow(s->end > w->c_tmax ? s->end : w->c_tmax,
                                   s->start < w->c_tmin ? s->start : w->c_tmin, &span);
}

int slog_writer_append_state(slog_writer *w, const slog_state *s, slog_error *err)
{
    if (plain_state(w, s)) {
        w->c_tmin = s->start < w->c_tmin ? s->start : w->c_tmin;
        w->c_tmax = s->end > w->c_tmax ? s->end : w->c_tmax;
        fmt_state_rec r = {.start = s->start, .end = s->end, .timeline = s->timeline,
                           .category = s->category, .depth = s->depth};
        const int arc = api_writer_apply_state(w, &r, NULL, 0, err);
        return arc == SLOG_OK ? SLOG_OK : put_failed(w, arc, err);
    }
    int rc = check_open(w, err);
    if (rc == SLOG_OK) {
        rc = check_state(w, s, err);
    }
    if (rc == SLOG_OK) {
        rc = encode_args(w, s->args, s->nargs, err);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    return put_state(w, s, w->argbuf.data, w->argbuf.len, err);
}

int slog_writer_append_event(slog_writer *w, const slog_event *e, slog_error *err)
{
    int rc = check_open(w, err);
    if (rc == SLOG_OK) {
        rc = check_timeline(w, e->timeline, err);
    }
    if (rc == SLOG_OK) {
        rc = check_category(w, e->category, SLOG_KIND_EVENT, err);
    }
    if (rc == SLOG_OK) {
        rc = encode_args(w, e->args, e->nargs, err);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    rc = check_times(w, e->time, e->time, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    const wrec r = {
        WOP_EVENT, (uint32_t)w->argbuf.len, {.e = {e->time, e->timeline, e->category, 0, 0}}};
    return writer_put(w, &r, w->argbuf.data, err);
}

int slog_writer_append_arrow(slog_writer *w, const slog_arrow *a, slog_error *err)
{
    int rc = check_open(w, err);
    if (rc == SLOG_OK) {
        rc = check_timeline(w, a->from, err);
    }
    if (rc == SLOG_OK) {
        rc = check_timeline(w, a->to, err);
    }
    if (rc == SLOG_OK) {
        rc = check_category(w, a->category, SLOG_KIND_ARROW, err);
    }
    if (rc == SLOG_OK && a->end < a->start) {
        rc = util_err(err, SLOG_EINVAL, UINT64_MAX, w->path, "Arrow ends before it starts");
    }
    if (rc == SLOG_OK) {
        rc = encode_args(w, a->args, a->nargs, err);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    rc = check_times(w, a->start, a->end, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    const wrec r = {WOP_ARROW,
                    (uint32_t)w->argbuf.len,
                    {.a = {a->start, a->end, a->category, a->from, a->to, 0, 0}}};
    return writer_put(w, &r, w->argbuf.data, err);
}

int slog_writer_append_counter(slog_writer *w, const slog_counter *c, slog_error *err)
{
    int rc = check_open(w, err);
    if (rc == SLOG_OK) {
        rc = check_timeline(w, c->timeline, err);
    }
    if (rc == SLOG_OK) {
        rc = check_category(w, c->category, SLOG_KIND_COUNTER, err);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    rc = check_times(w, c->time, c->time, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    const wrec r = {WOP_COUNTER, 0, {.c = {c->time, c->value, c->timeline, c->category}}};
    return writer_put(w, &r, NULL, err);
}

/* ---- begin / end ---- */

/* The public signature mirrors the data model (7 parameters). */
// NOLINTNEXTLINE(readability-function-size)
int slog_writer_begin(slog_writer *w, uint32_t timeline, uint32_t category, int64_t time,
                      const slog_arg *args, uint32_t nargs, slog_error *err)
{
    int rc = check_open(w, err);
    if (rc == SLOG_OK) {
        rc = check_timeline(w, timeline, err);
    }
    if (rc == SLOG_OK) {
        rc = check_category(w, category, SLOG_KIND_STATE, err);
    }
    if (rc == SLOG_OK) {
        rc = encode_args(w, args, nargs, err);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    timeline_rt *const rt = &w->rt[timeline];
    if (rt->depth > 0 && time < rt->stack[rt->depth - 1].start) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, w->path,
                        "Begin at %lld is before the enclosing state's begin",
                        (long long)time);
    }
    void *p = rt->stack;
    if (util_grow(&p, &rt->cap, rt->depth + 1, sizeof *rt->stack) != 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, w->path, "Cannot begin a state");
    }
    rt->stack = p;
    open_state *const o = &rt->stack[rt->depth];
    o->start = time;
    o->category = category;
    o->args_off = (uint32_t)rt->args.len;
    o->args_len = (uint32_t)w->argbuf.len;
    if (util_buf_append(&rt->args, w->argbuf.data, w->argbuf.len) != 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, w->path, "Cannot begin a state");
    }
    rt->depth++;
    return SLOG_OK;
}

int slog_writer_end(slog_writer *w, uint32_t timeline, int64_t time, slog_error *err)
{
    int rc = check_open(w, err);
    if (rc == SLOG_OK) {
        rc = check_timeline(w, timeline, err);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    timeline_rt *const rt = &w->rt[timeline];
    if (rt->depth == 0) {
        return util_err(err, SLOG_ESTATE, UINT64_MAX, w->path,
                        "End on timeline %u with no open state", timeline);
    }
    const open_state o = rt->stack[rt->depth - 1];
    if (time < o.start) {
        return util_err(err, SLOG_ESTATE, UINT64_MAX, w->path,
                        "End at %lld before its begin at %lld", (long long)time,
                        (long long)o.start);
    }
    rc = check_times(w, o.start, time, err); /* refused: the state stays open */
    if (rc != SLOG_OK) {
        return rc;
    }
    rt->depth--;
    const slog_state s = {timeline, o.category, o.start, time, (uint32_t)rt->depth, 0, NULL};
    rc = put_state(w, &s, rt->args.data + o.args_off, o.args_len, err);
    rt->args.len = o.args_off;
    return rc;
}

uint32_t slog_writer_open_depth(const slog_writer *w, uint32_t timeline)
{
    return timeline < w->ntl ? (uint32_t)w->rt[timeline].depth : 0;
}

/* ---- flush, finish, destroy ---- */

/* Wait until the background applied everything handed to it: the apply
 * side is then the caller's until the next record. */
static int writer_sync(slog_writer *w, slog_error *err)
{
    int rc = w->bg != NULL ? batch_put_tables(w, err) : SLOG_OK;
    rc = rc == SLOG_OK && w->bg != NULL ? wbg_sync(w->bg, err) : rc;
    return rc == SLOG_OK ? SLOG_OK : put_failed(w, rc, err);
}

int slog_writer_flush(slog_writer *w, slog_error *err)
{
    int rc = check_open(w, err);
    if (rc == SLOG_OK) {
        rc = writer_sync(w, err);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    rc = tree_build_flush(w->tb, err);
    if (rc == SLOG_OK) {
        rc = api_writer_flush_tables(w, 0, err);
    }
    if (rc != SLOG_OK) {
        return writer_fail(w, rc, err);
    }
    return util_err_source(err, rc, w->path);
}

int slog_writer_finish(slog_writer *w, slog_error *err)
{
    int rc = check_open(w, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    for (size_t i = 0; i < w->ntl; i++) {
        if (w->rt[i].depth > 0) {
            return util_err(err, SLOG_ESTATE, UINT64_MAX, w->path,
                            "Timeline %zu still has %zu open state(s): end them before finish",
                            i, w->rt[i].depth);
        }
    }
    rc = writer_sync(w, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    wbg_stop(w->bg);
    w->bg = NULL; /* the apply side is the caller's from now on */
    rc = tree_build_finish(w->tb, err);
    /* Everything reaches the file, flushed, before the summary says
     * complete: a write failing on the way leaves a file that says
     * incomplete (the complete flag is the last write). */
    if (rc == SLOG_OK) {
        rc = api_writer_flush_tables(w, 0, err);
    }
    if (rc == SLOG_OK) {
        rc = api_writer_flush_tables(w, 1, err);
    }
    if (rc == SLOG_OK) {
        rc = store_close(w->st, err);
        w->st = NULL;
    }
    if (rc != SLOG_OK) {
        return writer_fail(w, rc, err);
    }
    w->state = W_FINISHED;
    return SLOG_OK;
}

void slog_writer_destroy(slog_writer *w)
{
    if (w == NULL) {
        return;
    }
    if (w->bg != NULL) {
        /* what was handed over reaches the file before the flush below */
        (void)wbg_sync(w->bg, NULL);
        wbg_stop(w->bg);
        w->bg = NULL;
    }
    if (w->st != NULL) {
        /* Not finished (a failed or cancelled import, an exception): the
         * open nodes are closed as a flush closes them, so that everything
         * appended is in the file; it stays marked incomplete. */
        if (w->state == W_OPEN && tree_build_flush(w->tb, NULL) == SLOG_OK) {
            (void)api_writer_flush_tables(w, 0, NULL);
        }
        (void)store_close(w->st, NULL);
    }
    tree_build_destroy(w->tb);
    for (size_t i = 0; i < w->ntl; i++) {
        util_free(w->rt[i].stack);
        util_buf_free(&w->rt[i].args);
    }
    api_writer_apply_free(w);
    util_free(w->rt);
    util_free(w->tls);
    util_free(w->root);
    util_free(w->tl_dirty);
    util_free(w->cats);
    util_intern_free(&w->strings);
    util_buf_free(&w->argbuf);
    pthread_mutex_destroy(&w->grow_mu);
    util_free(w);
}

/* In a child after fork (api_thread.h): the file is released without a
 * write (store_forget_after_fork); the rest is the parent's copy, left as
 * it is.  (A background writer's thread is not in the child: such a writer
 * is never a threaded writer's.) */
void api_writer_forget_after_fork(slog_writer *w)
{
    if (w != NULL) {
        store_forget_after_fork(w->st);
        w->st = NULL;
    }
}
