/* SPDX-License-Identifier: MIT
 *
 * import_mpe.c - MPE drawables -> libslog writer calls, shared by the CLOG2
 * and SLOG-2 importers.  Timelines and categories are created on first use,
 * so only what carries drawables appears (as in SLOG-2, which drops unused
 * categories), and both importers create the same set.
 * Import library, mpe: public libslog API only.
 */
#include "import_mpe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slog/slog.h>

#define PROGRESS_EVERY 65536u

typedef struct cat_out {
    bool made;
    uint32_t id;
    char keys[MPE_FMT_MAX][64];
} cat_out;

struct mpe_out {
    import_ctx *ctx;
    slog_writer *w;
    const void *src;
    mpe_category_fn category;
    mpe_line_fn line;
    uint32_t threads;
    import_stream *stream;
    bool have_root;
    uint32_t root; /* per-input parent, or SLOG_NO_PARENT */
    cat_out *cats;
    size_t ncats;
    mpe_map rank_tl; /* world rank -> timeline */
    mpe_map line_tl; /* line ID -> timeline */
    uint64_t emitted;
    uint64_t short_info;
    uint64_t err_offset;
    char err[512];
    slog_arg args[MPE_FMT_MAX];
    char text[MPE_FMT_MAX][32];        /* hex renderings */
    char strings[65536 + MPE_FMT_MAX]; /* NUL-terminated copies of %s values */
};

long mpe_stream_read(void *stream, void *buf, size_t n)
{
    return import_stream_read(stream, buf, n);
}

const char *mpe_stream_error(void *stream)
{
    return import_stream_error(stream);
}

int mpe_out_create(mpe_out **out, import_ctx *ctx, const mpe_source *src, import_stream *stream)
{
    mpe_out *o = calloc(1, sizeof *o);
    *out = NULL;
    if (o == NULL) {
        return -1;
    }
    o->ctx = ctx;
    o->w = ctx->writer;
    o->src = src->src;
    o->category = src->category;
    o->line = src->line;
    o->threads = src->threads;
    o->stream = stream;
    o->root = SLOG_NO_PARENT;
    *out = o;
    return 0;
}

void mpe_out_destroy(mpe_out *o)
{
    if (o != NULL) {
        free(o->cats);
        mpe_map_free(&o->rank_tl);
        mpe_map_free(&o->line_tl);
        free(o);
    }
}

const char *mpe_out_error(const mpe_out *o, uint64_t *offset)
{
    *offset = o->err_offset;
    return o->err;
}

uint64_t mpe_out_short_info(const mpe_out *o)
{
    return o->short_info;
}

static int write_failed(mpe_out *o, uint64_t offset, const slog_error *e, const char *what)
{
    o->err_offset = offset;
    (void)snprintf(o->err, sizeof o->err, "Failed to write %s: %s (%s)", what, e->message,
                   slog_status_name(e->code));
    return 1;
}

static int oom(mpe_out *o, uint64_t offset)
{
    o->err_offset = offset;
    (void)snprintf(o->err, sizeof o->err, "out of memory");
    return 1;
}

/* ---- timelines ------------------------------------------------------ */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s != NULL ? s + 1 : path;
}

static int input_root(mpe_out *o, uint64_t offset, uint32_t *parent)
{
    if (!o->have_root && o->ctx->input_count > 1) {
        slog_error e;
        const char *name = o->ctx->display_name != NULL ? base_name(o->ctx->display_name) : "";
        if (slog_writer_add_timeline(o->w, SLOG_NO_PARENT, SLOG_TIMELINE_GENERIC, name,
                                     (int64_t)o->ctx->input_index, &o->root, &e) != SLOG_OK) {
            return write_failed(o, offset, &e, "a timeline");
        }
    }
    o->have_root = true;
    *parent = o->root;
    return 0;
}

static int rank_timeline(mpe_out *o, int32_t world_rank, uint64_t offset, uint32_t *id)
{
    if (mpe_map_get(&o->rank_tl, (uint64_t)world_rank, 0, id)) {
        return 0;
    }
    uint32_t parent = 0;
    if (input_root(o, offset, &parent) != 0) {
        return 1;
    }
    char name[32];
    slog_error e;
    (void)snprintf(name, sizeof name, "rank %d", world_rank);
    if (slog_writer_add_timeline(o->w, parent, SLOG_TIMELINE_RANK, name, world_rank, id, &e) !=
        SLOG_OK) {
        return write_failed(o, offset, &e, "a timeline");
    }
    return mpe_map_put(&o->rank_tl, (uint64_t)world_rank, 0, *id) == 0 ? 0 : oom(o, offset);
}

static int line_timeline(mpe_out *o, uint32_t line_id, uint64_t offset, uint32_t *id)
{
    if (mpe_map_get(&o->line_tl, line_id, 0, id)) {
        return 0;
    }
    mpe_line l;
    o->line(o->src, line_id, &l);
    char name[96];
    uint32_t parent = 0;
    slog_timeline_kind kind = SLOG_TIMELINE_GENERIC;
    int rc = 0;
    if (l.world_rank < 0) {
        rc = input_root(o, offset, &parent);
        (void)snprintf(name, sizeof name, "line %u", line_id);
    } else {
        rc = rank_timeline(o, l.world_rank, offset, &parent);
        if (l.comm == 0 && l.thread == 0) {
            *id = parent; /* the rank's own MPI_COMM_WORLD line */
            return rc != 0 ? rc : (mpe_map_put(&o->line_tl, line_id, 0, *id) ? oom(o, offset) : 0);
        }
        if (l.comm == 0) {
            kind = SLOG_TIMELINE_THREAD;
            (void)snprintf(name, sizeof name, "thread %d", l.thread);
        } else if (o->threads > 1) {
            (void)snprintf(name, sizeof name, "comm %d rank %d thread %d", l.comm, l.comm_rank,
                           l.thread);
        } else {
            (void)snprintf(name, sizeof name, "comm %d rank %d", l.comm, l.comm_rank);
        }
    }
    if (rc != 0) {
        return rc;
    }
    slog_error e;
    if (slog_writer_add_timeline(o->w, parent, kind, name, (int64_t)line_id, id, &e) != SLOG_OK) {
        return write_failed(o, offset, &e, "a timeline");
    }
    return mpe_map_put(&o->line_tl, line_id, 0, *id) == 0 ? 0 : oom(o, offset);
}

/* ---- categories ----------------------------------------------------- */

/* Categories made for earlier MPE inputs of the same import (one writer):
 * an input reuses one of the same kind and name, so the legend lists
 * MPI_Send once when several logs go into one file.  Attached to the
 * import (import_attach), freed when it ends. */
typedef struct shared_cat {
    slog_kind kind;
    char *name;
    uint32_t id;
} shared_cat;

typedef struct shared_cats {
    shared_cat *v;
    size_t n, cap;
} shared_cats;

static const char shared_key = 0; /* import_attach key of the MPE categories */

static void shared_destroy(void *p)
{
    shared_cats *const sc = p;
    for (size_t i = 0; i < sc->n; i++) {
        free(sc->v[i].name);
    }
    free(sc->v);
    free(sc);
}

/* The import's shared categories, made on first use (NULL: no memory, then
 * categories are simply not shared). */
static shared_cats *shared_of(import_ctx *ctx)
{
    shared_cats *sc = import_attached(ctx, &shared_key);
    if (sc == NULL && (sc = calloc(1, sizeof *sc)) != NULL &&
        import_attach(ctx, &shared_key, sc, shared_destroy) != 0) {
        free(sc);
        sc = NULL;
    }
    return sc;
}

static bool shared_find(const shared_cats *sc, slog_kind kind, const char *name, uint32_t *id)
{
    for (size_t i = 0; sc != NULL && i < sc->n; i++) {
        const shared_cat *c = &sc->v[i];
        if (c->kind == kind && strcmp(c->name, name) == 0) {
            *id = c->id;
            return true;
        }
    }
    return false;
}

static void shared_add(shared_cats *sc, slog_kind kind, const char *name, uint32_t id)
{
    if (sc == NULL) {
        return;
    }
    if (sc->n == sc->cap) {
        const size_t cap = sc->cap == 0 ? 64 : sc->cap * 2;
        shared_cat *nc = realloc(sc->v, cap * sizeof *nc);
        if (nc == NULL) {
            return; /* only sharing is lost */
        }
        sc->v = nc;
        sc->cap = cap;
    }
    char *copy = malloc(strlen(name) + 1);
    if (copy == NULL) {
        return;
    }
    memcpy(copy, name, strlen(name) + 1);
    sc->v[sc->n++] = (shared_cat){kind, copy, id};
}

static int category_of(mpe_out *o, uint32_t slot, uint64_t offset, cat_out **out)
{
    if (slot >= o->ncats) {
        const size_t n = (size_t)slot + 64;
        cat_out *nc = realloc(o->cats, n * sizeof *nc);
        if (nc == NULL) {
            return oom(o, offset);
        }
        memset(nc + o->ncats, 0, (n - o->ncats) * sizeof *nc);
        o->cats = nc;
        o->ncats = n;
    }
    cat_out *c = &o->cats[slot];
    *out = c;
    if (c->made) {
        return 0;
    }
    const mpe_category *mc = o->category(o->src, slot);
    const slog_kind kind = (slog_kind)mc->kind;
    shared_cats *const shared = shared_of(o->ctx);
    if (!shared_find(shared, kind, mc->name, &c->id)) {
        slog_error e;
        if (slog_writer_add_category(o->w, kind, mc->name, mc->rgba, NULL, &c->id, &e) != SLOG_OK) {
            return write_failed(o, offset, &e, "a category");
        }
        shared_add(shared, kind, mc->name, c->id);
    }
    for (uint32_t i = 0; i < mc->fmt.ntypes; i++) {
        mpe_fmt_arg_key(&mc->fmt, i, c->keys[i], sizeof c->keys[i]);
    }
    c->made = true;
    return 0;
}

/* ---- args ----------------------------------------------------------- */

static uint32_t
make_args(mpe_out *o, const mpe_category *mc, const cat_out *c, const mpe_drawable *d)
{
    if (d->info == NULL || mc->fmt.ntypes == 0) {
        return 0;
    }
    mpe_value v[MPE_FMT_MAX];
    const uint32_t n = mpe_info_decode(&mc->fmt, d->info, d->info_len, v);
    if (n < mc->fmt.ntypes) {
        o->short_info++;
    }
    size_t used = 0;
    for (uint32_t i = 0; i < n; i++) {
        slog_arg *a = &o->args[i];
        a->key = c->keys[i];
        switch (v[i].type) {
        case 'e':
        case 'E':
            a->type = SLOG_ARG_DOUBLE;
            a->v.d = v[i].d;
            break;
        case 'x':
        case 'X':
            (void)snprintf(o->text[i], sizeof o->text[i], "0x%llx",
                           v[i].type == 'x' ? (unsigned long long)(uint32_t)v[i].i
                                            : (unsigned long long)v[i].i);
            a->type = SLOG_ARG_STRING;
            a->v.s = o->text[i];
            break;
        case 's':
            memcpy(o->strings + used, v[i].s, v[i].slen);
            o->strings[used + v[i].slen] = '\0';
            a->type = SLOG_ARG_STRING;
            a->v.s = o->strings + used;
            used += v[i].slen + 1;
            break;
        default: /* h d l */
            a->type = SLOG_ARG_INT;
            a->v.i = v[i].i;
            break;
        }
    }
    return n;
}

/* ---- drawables ------------------------------------------------------ */

static int times(mpe_out *o, const mpe_drawable *d, int64_t *start, int64_t *end)
{
    if (!mpe_seconds_to_ns(d->start, start) || !mpe_seconds_to_ns(d->end, end)) {
        o->err_offset = d->offset;
        (void)snprintf(o->err, sizeof o->err, "time %g s out of range", d->start);
        return 1;
    }
    return 0;
}

static int append(mpe_out *o, const mpe_drawable *d, uint32_t cat, uint32_t nargs)
{
    int64_t start = 0, end = 0;
    uint32_t tl = 0, tl_to = 0;
    if (times(o, d, &start, &end) != 0 || line_timeline(o, d->line, d->offset, &tl) != 0 ||
        line_timeline(o, d->line_to, d->offset, &tl_to) != 0) {
        return 1;
    }
    slog_error e;
    int rc = SLOG_OK;
    if (d->kind == MPE_STATE) {
        const slog_state s = {tl, cat, start, end, d->depth, nargs, o->args};
        rc = slog_writer_append_state(o->w, &s, &e);
    } else if (d->kind == MPE_EVENT) {
        const slog_event ev = {tl, cat, start, nargs, o->args};
        rc = slog_writer_append_event(o->w, &ev, &e);
    } else {
        const slog_arrow a = {cat, tl, tl_to, start, end, nargs, o->args};
        rc = slog_writer_append_arrow(o->w, &a, &e);
    }
    return rc == SLOG_OK ? 0 : write_failed(o, d->offset, &e, "a drawable");
}

int mpe_out_emit(void *out, const mpe_drawable *d)
{
    mpe_out *o = out;
    cat_out *c = NULL;
    if (d->kind == MPE_STATE && d->depth > SLOG_MAX_DEPTH) { /* more than a writer takes */
        import_count(o->ctx, "state nested deeper than 100000 levels", IMPORT_SKIPPED, 1);
        return 0;
    }
    if (category_of(o, d->category, d->offset, &c) != 0) {
        return 1;
    }
    const mpe_category *mc = o->category(o->src, d->category);
    const uint32_t nargs = make_args(o, mc, c, d);
    if (append(o, d, c->id, nargs) != 0) {
        return 1;
    }
    if (++o->emitted % PROGRESS_EVERY == 0 && o->stream != NULL) {
        /* a cancel shows as the stream's next read failing */
        (void)import_progress(o->ctx, import_stream_pos(o->stream),
                              import_stream_size(o->stream));
    }
    return 0;
}
