/* SPDX-License-Identifier: MIT
 *
 * api_writer.c - the public writer: validates calls, owns the timeline,
 * category and string tables, computes nesting depth (begin/end) and
 * exclusive time, and feeds the tree builder.  Tables are appended to the
 * file at every flush, together with the summary, so a killed writer leaves
 * a consistent file up to its last flush.
 *
 * State machine: OPEN --(append/define)--> OPEN --slog_writer_finish--> FINISHED
 *                any failing append/flush/finish --> ERROR (sticky).
 * Exclusive time of a state = its duration minus the durations of its direct
 * children; exact when each timeline's states arrive children first
 * (begin/end, or end-time order), which is the writer's optimal order.
 * Layer 5: api.
 */
#include "api_options.h"
#include "api_thread.h"
#include "node_format.h"
#include "store.h"
#include "tree_build.h"
#include "util_alloc.h"
#include "util_error.h"
#include "util_intern.h"
#include "util_sat.h"

#include <slog/slog_writer.h>
#include <stdio.h>
#include <string.h>

#define ARGS_LZ4_LEVEL 4
#define INTERN_VALUE_MAX   256u              /* longer string args stay inline */
#define INTERN_OPTIONAL_CAP (16u << 20)      /* heap bytes for interned values */
#define DEFAULT_FLUSH_NODES 64u

typedef enum writer_state { W_OPEN, W_FINISHED, W_ERROR } writer_state;

typedef struct open_state {
    int64_t start;
    uint32_t category;
    uint32_t args_off, args_len; /* in the timeline's args buffer */
} open_state;

typedef struct child_acc {
    int64_t sum;    /* durations of closed children waiting for their parent */
    int64_t lo, hi; /* their box */
} child_acc;

typedef struct timeline_rt {
    open_state *stack;
    size_t depth, cap;
    util_buf args;
    child_acc *acc;
    size_t acc_cap;
} timeline_rt;

struct slog_writer {
    writer_state state;
    store *st;
    tree_builder *tb;
    char path[256];
    store_timeline_row *tls;
    timeline_rt *rt;
    uint32_t *parent, *root;
    size_t ntl, cap_tl, tl_written;
    uint8_t *tl_dirty;
    store_category_row *cats;
    size_t ncat, cap_cat, cat_written;
    util_intern strings;
    size_t strings_written;
    pv_fold_ctx ctx;
    util_buf argbuf;
    int64_t t_min, t_max;
    uint32_t flush_nodes;
    uint64_t nodes_at_flush;
    slog_flush_fn on_flush;
    void *on_flush_ctx;
};

static int check_open(const slog_writer *w, slog_error *err)
{
    if (w->state == W_OPEN) {
        return SLOG_OK;
    }
    return util_err(err, SLOG_ESTATE, UINT64_MAX, w->path,
                    w->state == W_FINISHED ? "Cannot change a finished writer"
                                           : "Cannot use a writer after an earlier error");
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
    w->t_min = INT64_MAX;
    w->t_max = INT64_MIN;
    w->flush_nodes = wo.flush_nodes ? wo.flush_nodes : DEFAULT_FLUSH_NODES;
    w->on_flush = wo.on_flush;
    w->on_flush_ctx = wo.on_flush_ctx;
    store_header hdr;
    header_from_options(&hdr, &wo);
    rc = store_create(&w->st, path, &hdr, err);
    if (rc == SLOG_OK) {
        /* args blobs at LZ4 HC level 4 or the caller's, if higher: they are
         * most of a real trace's payload and read only on demand */
        const tree_options to = {hdr.fanout, hdr.chunk_bytes, hdr.preview_bytes, hdr.lz4_level,
                                 hdr.lz4_level > ARGS_LZ4_LEVEL ? hdr.lz4_level : ARGS_LZ4_LEVEL,
                                 (wo.flags & SLOG_WRITER_TIME_BINS) != 0};
        rc = tree_build_create(&w->tb, w->st, &to, &w->ctx, err);
    }
    if (rc != SLOG_OK) {
        (void)store_close(w->st, NULL);
        util_intern_free(&w->strings);
        util_free(w);
        return util_err_source(err, rc, path);
    }
    *out = w;
    return SLOG_OK;
}

static uint64_t intern_cb(void *user, const char *text, size_t len, int is_key)
{
    slog_writer *const w = user;
    if (!is_key && len > INTERN_VALUE_MAX) {
        return UINT64_MAX;
    }
    return util_intern_add(&w->strings, text, len, !is_key);
}

static uint64_t intern_name(slog_writer *w, const char *s)
{
    return util_intern_add(&w->strings, s != NULL ? s : "", s != NULL ? strlen(s) : 0, 0);
}

/* Grow the per-timeline arrays together; a partial failure only leaves some
 * arrays larger than cap_tl, which is harmless. */
static int grow_timelines(slog_writer *w)
{
    if (w->ntl < w->cap_tl) {
        return 0;
    }
    const size_t ncap = w->cap_tl ? w->cap_tl * 2 : 64;
    void *p;
    if ((p = util_realloc(w->tls, ncap * sizeof *w->tls)) == NULL) {
        return -1;
    }
    w->tls = p;
    if ((p = util_realloc(w->rt, ncap * sizeof *w->rt)) == NULL) {
        return -1;
    }
    w->rt = p;
    if ((p = util_realloc(w->parent, ncap * sizeof *w->parent)) == NULL) {
        return -1;
    }
    w->parent = p;
    if ((p = util_realloc(w->root, ncap * sizeof *w->root)) == NULL) {
        return -1;
    }
    w->root = p;
    if ((p = util_realloc(w->tl_dirty, ncap)) == NULL) {
        return -1;
    }
    w->tl_dirty = p;
    w->cap_tl = ncap;
    w->ctx.parent = w->parent;
    w->ctx.root = w->root;
    return 0;
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
    w->parent[id] = parent;
    w->root[id] = parent == SLOG_NO_PARENT ? id : w->root[parent];
    w->tl_dirty[id] = 0;
    w->ntl++;
    w->ctx.ntimelines = (uint32_t)w->ntl;
    if (id_out != NULL) {
        *id_out = id;
    }
    return SLOG_OK;
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
        w->tls[id].name = off;
    }
    w->tls[id].sort_key = sort_key;
    w->tl_dirty[id] = id < w->tl_written;
    return SLOG_OK;
}

/* Colour from a name when none is given: a stable, saturated hue. */
static uint32_t colour_from_name(const char *name)
{
    uint32_t h = 2166136261u;
    for (const char *p = name; *p; p++) {
        h = (h ^ (uint8_t)*p) * 16777619u;
    }
    static const uint32_t palette[12] = {
        0x1f77b4ff, 0xff7f0eff, 0x2ca02cff, 0xd62728ff, 0x9467bdff, 0x8c564bff,
        0xe377c2ff, 0x7f7f7fff, 0xbcbd22ff, 0x17becfff, 0xaec7e8ff, 0xffbb78ff,
    };
    return palette[h % 12];
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
    void *p = w->cats;
    if (name_off == UINT64_MAX || (group != NULL && group_off == UINT64_MAX) ||
        util_grow(&p, &w->cap_cat, w->ncat + 1, sizeof *w->cats) != 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, w->path, "Cannot add a category");
    }
    w->cats = p;
    store_category_row *const row = &w->cats[w->ncat];
    memset(row, 0, sizeof *row);
    row->id = (uint32_t)w->ncat;
    row->kind = (uint32_t)kind;
    row->rgba = rgba != 0 ? rgba : colour_from_name(nm);
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
static int note_times(slog_writer *w, int64_t t0, int64_t t1, slog_error *err)
{
    const int64_t lo = t0 < w->t_min ? t0 : w->t_min;
    const int64_t hi = t1 > w->t_max ? t1 : w->t_max;
    int64_t span;
    if (__builtin_sub_overflow(hi, lo, &span)) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, w->path,
                        "Drawable at %lld..%lld ticks makes the trace span more than 2^63-1 ticks",
                        (long long)t0, (long long)t1);
    }
    w->t_min = lo;
    w->t_max = hi;
    return SLOG_OK;
}

static int flush_tables(slog_writer *w, uint32_t complete, slog_error *err);

/* After every append: a tree error is sticky; flush every flush_nodes nodes. */
static int after_append(slog_writer *w, int rc, slog_error *err)
{
    if (rc != SLOG_OK) {
        w->state = W_ERROR;
        return util_err_source(err, rc, w->path);
    }
    if (tree_build_nodes_written(w->tb) - w->nodes_at_flush >= w->flush_nodes) {
        rc = flush_tables(w, 0, err);
        if (rc != SLOG_OK) {
            w->state = W_ERROR;
        }
    }
    return util_err_source(err, rc, w->path);
}

/* Exclusive time from the per-timeline child accumulators (see header). */
static int64_t exclusive_time(slog_writer *w, uint32_t tl, uint32_t depth, int64_t s, int64_t e)
{
    timeline_rt *const rt = &w->rt[tl];
    const size_t need = (size_t)depth + 2;
    if (need > rt->acc_cap) {
        /* grow by small steps: 10^5 timelines each keep one of these */
        const size_t cap = need + 2;
        void *const p = util_realloc(rt->acc, cap * sizeof *rt->acc);
        if (p == NULL) {
            return e - s; /* degrade gracefully: no children subtracted */
        }
        memset((child_acc *)p + rt->acc_cap, 0, (cap - rt->acc_cap) * sizeof *rt->acc);
        rt->acc = p;
        rt->acc_cap = cap;
    }
    child_acc *const kids = &rt->acc[depth + 1];
    int64_t excl = e - s;
    if (kids->sum > 0 && kids->lo >= s && kids->hi <= e) {
        excl -= kids->sum;
    }
    kids->sum = 0;
    child_acc *const self = &rt->acc[depth];
    if (self->sum == 0) {
        self->lo = s;
        self->hi = e;
    }
    self->sum = util_sat_add_i64(self->sum, e - s);
    self->lo = s < self->lo ? s : self->lo;
    self->hi = e > self->hi ? e : self->hi;
    return excl;
}

static int append_state_encoded(slog_writer *w, const slog_state *s, const uint8_t *args,
                                size_t args_len, slog_error *err)
{
    fmt_state_rec r;
    r.start = s->start;
    r.end = s->end;
    r.timeline = s->timeline;
    r.category = s->category;
    r.depth = s->depth;
    r.args_len = 0;
    r.args_off = 0;
    const int rc = note_times(w, s->start, s->end, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    r.excl = exclusive_time(w, s->timeline, s->depth, s->start, s->end);
    return after_append(w, tree_build_add_state(w->tb, &r, args, args_len, err), err);
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

int slog_writer_append_state(slog_writer *w, const slog_state *s, slog_error *err)
{
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
    return append_state_encoded(w, s, w->argbuf.data, w->argbuf.len, err);
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
    const fmt_event_rec r = {e->time, e->timeline, e->category, 0, 0};
    rc = note_times(w, e->time, e->time, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    return after_append(w, tree_build_add_event(w->tb, &r, w->argbuf.data, w->argbuf.len, err),
                        err);
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
    const fmt_arrow_rec r = {a->start, a->end, a->category, a->from, a->to, 0, 0};
    rc = note_times(w, a->start, a->end, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    return after_append(w, tree_build_add_arrow(w->tb, &r, w->argbuf.data, w->argbuf.len, err),
                        err);
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
    const fmt_counter_rec r = {c->time, c->value, c->timeline, c->category};
    rc = note_times(w, c->time, c->time, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    return after_append(w, tree_build_add_counter(w->tb, &r, err), err);
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
    rt->depth--;
    const slog_state s = {timeline, o.category, o.start, time, (uint32_t)rt->depth, 0, NULL};
    rc = append_state_encoded(w, &s, rt->args.data + o.args_off, o.args_len, err);
    rt->args.len = o.args_off;
    return rc;
}

uint32_t slog_writer_open_depth(const slog_writer *w, uint32_t timeline)
{
    return timeline < w->ntl ? (uint32_t)w->rt[timeline].depth : 0;
}

/* ---- flush, finish, destroy ---- */

static void tell_flush(const slog_writer *w, const store_summary *sum, bool durable)
{
    if (w->on_flush != NULL) {
        slog_flush_info fi = {sum->nodes, {0, 0, 0, 0}, sum->complete != 0, durable};
        memcpy(fi.counts, sum->counts, sizeof fi.counts);
        w->on_flush(w->on_flush_ctx, &fi);
    }
}

static int flush_tables(slog_writer *w, uint32_t complete, slog_error *err)
{
    int rc = SLOG_OK;
    const util_buf *const heap = &w->strings.heap;
    if (heap->len > w->strings_written) {
        rc = store_append_strings(w->st, heap->data + w->strings_written,
                                  heap->len - w->strings_written, err);
        w->strings_written = rc == SLOG_OK ? heap->len : w->strings_written;
    }
    for (size_t i = 0; i < w->tl_written && rc == SLOG_OK; i++) {
        if (w->tl_dirty[i]) {
            rc = store_update_timeline(w->st, &w->tls[i], err);
            w->tl_dirty[i] = 0;
        }
    }
    if (rc == SLOG_OK && w->ntl > w->tl_written) {
        rc = store_append_timelines(w->st, w->tls + w->tl_written, w->ntl - w->tl_written, err);
        w->tl_written = rc == SLOG_OK ? w->ntl : w->tl_written;
    }
    if (rc == SLOG_OK && w->ncat > w->cat_written) {
        rc = store_append_categories(w->st, w->cats + w->cat_written, w->ncat - w->cat_written,
                                     err);
        w->cat_written = rc == SLOG_OK ? w->ncat : w->cat_written;
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    store_summary sum;
    memset(&sum, 0, sizeof sum);
    sum.complete = complete;
    sum.depth = tree_build_depth(w->tb);
    sum.start = w->t_min;
    sum.end = w->t_max;
    tree_build_written_counts(w->tb, sum.counts);
    sum.nodes = tree_build_nodes_written(w->tb);
    sum.timelines = w->ntl;
    sum.categories = w->ncat;
    sum.strings_bytes = heap->len;
    sum.payload_bytes = tree_build_payload_bytes(w->tb);
    /* Everything the summary covers reaches the file before the summary:
     * a live reader (or a crash) that sees it finds all it counts. */
    rc = store_flush(w->st, err);
    if (rc == SLOG_OK) {
        tell_flush(w, &sum, false);
        rc = store_write_summary(w->st, &sum, err);
    }
    if (rc == SLOG_OK) {
        rc = store_flush(w->st, err);
    }
    if (rc == SLOG_OK) {
        tell_flush(w, &sum, true);
    }
    w->nodes_at_flush = sum.nodes;
    return rc;
}

int slog_writer_flush(slog_writer *w, slog_error *err)
{
    int rc = check_open(w, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    rc = tree_build_flush(w->tb, err);
    if (rc == SLOG_OK) {
        rc = flush_tables(w, 0, err);
    }
    if (rc != SLOG_OK) {
        w->state = W_ERROR;
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
    rc = tree_build_finish(w->tb, err);
    /* Everything reaches the file, flushed, before the summary says
     * complete: a write failing on the way leaves a file that says
     * incomplete (the complete flag is the last write). */
    if (rc == SLOG_OK) {
        rc = flush_tables(w, 0, err);
    }
    if (rc == SLOG_OK) {
        rc = flush_tables(w, 1, err);
    }
    if (rc == SLOG_OK) {
        rc = store_close(w->st, err);
        w->st = NULL;
    }
    if (rc != SLOG_OK) {
        w->state = W_ERROR;
        return util_err_source(err, rc, w->path);
    }
    w->state = W_FINISHED;
    return SLOG_OK;
}

void slog_writer_destroy(slog_writer *w)
{
    if (w == NULL) {
        return;
    }
    if (w->st != NULL) {
        /* Not finished: record what was written so far; the file stays
         * marked incomplete. */
        if (w->state == W_OPEN) {
            (void)flush_tables(w, 0, NULL);
        }
        (void)store_close(w->st, NULL);
    }
    tree_build_destroy(w->tb);
    for (size_t i = 0; i < w->ntl; i++) {
        util_free(w->rt[i].stack);
        util_free(w->rt[i].acc);
        util_buf_free(&w->rt[i].args);
    }
    util_free(w->rt);
    util_free(w->tls);
    util_free(w->parent);
    util_free(w->root);
    util_free(w->tl_dirty);
    util_free(w->cats);
    util_intern_free(&w->strings);
    util_buf_free(&w->argbuf);
    util_free(w);
}

/* In a child after fork (api_thread.h): the file is released without a
 * write (store_forget_after_fork); the rest is the parent's copy, left as
 * it is. */
void api_writer_forget_after_fork(slog_writer *w)
{
    if (w != NULL) {
        store_forget_after_fork(w->st);
        w->st = NULL;
    }
}
