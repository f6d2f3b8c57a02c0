/* SPDX-License-Identifier: MIT
 *
 * export_otf2.c - a window of a libslog file as an OTF2 archive.
 *
 * The query returns drawables in tree-node order, not time order, while an
 * OTF2 location must be written in time order with Enter/Leave properly
 * nested.  So the export first collects the window per timeline (states,
 * and point records: events, counter samples, message ends), then writes
 * each timeline as one location: states sorted by (start, depth, end) are
 * replayed through a stack and merged with the point records by
 * time.  Memory is proportional to the window, not to the file.
 *
 * Mapping (doc/IMPORT-OTF2.md): HOST timelines -> system tree nodes under
 * one root; every timeline -> a location, grouped under its nearest
 * PROCESS/RANK ancestor-or-self (else its top-most non-host ancestor);
 * state categories -> regions (description "slog:state:<group>"); events
 * -> Enter+Leave of a region described "slog:event:<group>" at the same
 * time; counters -> one metric member and class per category (described
 * "slog:counter:<group>"); arrows -> MPI_Send at the start and MPI_Recv at
 * the end on one communicator over all locations, tagged so that each
 * (sender, receiver) pair matches in FIFO order; args -> attributes.
 * Ticks are written as they are, with the file's ticks per second as the
 * timer resolution (and a global offset that lifts negative times to 0),
 * so a re-import gives back the same times.
 */
#include "export_otf2.h"

#include <dirent.h>
#include <errno.h>
#include <otf2/otf2.h>
#include <shared_grow.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- small tables ---------------------------------------------------------- */

/* Interned strings: id = position; a hash table finds existing ones. */
typedef struct strtab {
    char **v;
    uint32_t n, cap;
    uint32_t *slots; /* id + 1, 0 = empty */
    size_t nslots;
} strtab;

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    }
    return h;
}

static int strtab_rehash(strtab *t)
{
    const size_t n = t->nslots ? t->nslots * 2 : 256;
    uint32_t *const s = calloc(n, sizeof *s);
    if (!s) {
        return -1;
    }
    for (uint32_t id = 0; id < t->n; id++) {
        size_t i = (size_t)str_hash(t->v[id]) & (n - 1);
        while (s[i]) {
            i = (i + 1) & (n - 1);
        }
        s[i] = id + 1;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = n;
    return 0;
}

/* Id of `s`, adding it if new; UINT32_MAX when out of memory. */
static uint32_t strtab_id(strtab *t, const char *s)
{
    if ((size_t)(t->n + 1) * 2 > t->nslots && strtab_rehash(t) != 0) {
        return UINT32_MAX;
    }
    size_t i = (size_t)str_hash(s) & (t->nslots - 1);
    while (t->slots[i]) {
        if (strcmp(t->v[t->slots[i] - 1], s) == 0) {
            return t->slots[i] - 1;
        }
        i = (i + 1) & (t->nslots - 1);
    }
    if (t->n == t->cap) {
        const uint32_t cap = t->cap ? t->cap * 2 : 256;
        char **const v = realloc(t->v, cap * sizeof *v);
        if (!v) {
            return UINT32_MAX;
        }
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n] = strdup(s);
    if (!t->v[t->n]) {
        return UINT32_MAX;
    }
    t->slots[i] = t->n + 1;
    return t->n++;
}

static void strtab_free(strtab *t)
{
    for (uint32_t i = 0; i < t->n; i++) {
        free(t->v[i]);
    }
    free(t->v);
    free(t->slots);
}

/* ---- collected window ------------------------------------------------------ */

typedef struct xattr {
    uint32_t attr;
    OTF2_Type type;
    OTF2_AttributeValue v;
} xattr;

typedef struct xstate {
    int64_t start, end;
    uint32_t depth, region;
    uint32_t aoff, an;
} xstate;

enum {
    P_EVENT,
    P_COUNTER,
    P_SEND,
    P_RECV
};

typedef struct xpoint {
    int64_t t;
    uint32_t seq; /* arrival order, to sort stably */
    uint8_t kind;
    uint32_t ref; /* region (event), metric (counter), peer location (send/recv) */
    uint32_t tag;
    uint64_t bytes;
    double value;
    uint32_t aoff, an;
} xpoint;

typedef struct xloc {
    xstate *states;
    uint32_t nstates, capstates;
    xpoint *points;
    uint32_t npoints, cappoints;
} xloc;

typedef struct pair_tag {
    uint32_t from, to, next;
} pair_tag;

typedef struct exporter {
    slog_reader *r;
    const slog_file_info *fi;
    uint32_t ntl, ncat;
    slog_timeline_info *tls;
    slog_category_info *cats;
    uint32_t *cat_ref;  /* region or metric id of a category, UINT32_MAX if none yet */
    uint32_t *node_id;  /* per timeline: system tree node of a host, else UINT32_MAX */
    uint32_t *group_id; /* per timeline: location group it owns, else UINT32_MAX */
    uint32_t nregions, nmetrics;
    uint32_t *region_name, *region_descr; /* string ids per region */
    uint32_t *metric_name, *metric_descr; /* string ids per metric member */
    strtab strings;
    strtab attrs; /* "<type>:<key>" -> attribute id */
    xattr *args;
    uint32_t nargs, capargs;
    xloc *locs;
    pair_tag *tags; /* next tag per (from, to) pair, linear probing */
    size_t ntags_slots, ntags;
    uint32_t seq;
    int64_t tmin, tmax;
    bool have_arrows;
    uint64_t clamped;
    char *err;
    size_t errlen;
} exporter;

static int fail(exporter *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(exporter *x, const char *fmt, ...)
{
    if (x->err && x->errlen && !x->err[0]) {
        va_list ap;
        va_start(ap, fmt);
        // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): false positive
        (void)vsnprintf(x->err, x->errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static uint32_t intern(exporter *x, const char *s)
{
    return strtab_id(&x->strings, s ? s : "");
}

/* Region for a STATE or EVENT category, metric for a COUNTER category. */
static uint32_t category_ref(exporter *x, uint32_t cat)
{
    if (cat >= x->ncat) {
        return UINT32_MAX;
    }
    if (x->cat_ref[cat] != UINT32_MAX) {
        return x->cat_ref[cat];
    }
    const slog_category_info *const c = &x->cats[cat];
    char descr[600];
    const char *const what = c->kind == SLOG_KIND_EVENT     ? "event"
                             : c->kind == SLOG_KIND_COUNTER ? "counter"
                                                            : "state";
    (void)snprintf(descr, sizeof descr, "slog:%s:%s", what, c->group ? c->group : "");
    const uint32_t name = intern(x, c->name), d = intern(x, descr);
    if (name == UINT32_MAX || d == UINT32_MAX) {
        return UINT32_MAX;
    }
    if (c->kind == SLOG_KIND_COUNTER) {
        x->metric_name[x->nmetrics] = name;
        x->metric_descr[x->nmetrics] = d;
        x->cat_ref[cat] = x->nmetrics++;
    } else {
        x->region_name[x->nregions] = name;
        x->region_descr[x->nregions] = d;
        x->cat_ref[cat] = x->nregions++;
    }
    return x->cat_ref[cat];
}

/* Convert args to attributes in x->args; *off and *n say where. */
static int add_args(exporter *x, const slog_arg *a, uint32_t na, uint32_t *off, uint32_t *n)
{
    *off = x->nargs;
    *n = 0;
    if (na == 0) {
        return 0;
    }
    if (shared_grow32(&x->args, &x->capargs, x->nargs + na, sizeof *x->args) != 0) {
        return fail(x, "out of memory");
    }
    for (uint32_t i = 0; i < na; i++) {
        xattr *const xa = &x->args[x->nargs];
        switch (a[i].type) {
        case SLOG_ARG_INT:
            xa->type = OTF2_TYPE_INT64;
            xa->v.int64 = a[i].v.i;
            break;
        case SLOG_ARG_UINT:
            xa->type = OTF2_TYPE_UINT64;
            xa->v.uint64 = a[i].v.u;
            break;
        case SLOG_ARG_DOUBLE:
            xa->type = OTF2_TYPE_DOUBLE;
            xa->v.float64 = a[i].v.d;
            break;
        case SLOG_ARG_BOOL:
            xa->type = OTF2_TYPE_UINT8;
            xa->v.uint8 = a[i].v.b ? 1 : 0;
            break;
        default: /* STRING and JSON text */
            xa->type = OTF2_TYPE_STRING;
            xa->v.stringRef = intern(x, a[i].v.s);
            if (xa->v.stringRef == UINT32_MAX) {
                return fail(x, "out of memory");
            }
            break;
        }
        char key[600];
        (void)snprintf(key, sizeof key, "%u:%s", (unsigned)xa->type, a[i].key ? a[i].key : "");
        xa->attr = strtab_id(&x->attrs, key);
        if (xa->attr == UINT32_MAX || intern(x, a[i].key) == UINT32_MAX) {
            return fail(x, "out of memory");
        }
        x->nargs++;
        (*n)++;
    }
    return 0;
}

static xpoint *add_point(exporter *x, uint32_t tl, int64_t t, uint8_t kind)
{
    xloc *const l = &x->locs[tl];
    if (shared_grow32(&l->points, &l->cappoints, l->npoints + 1, sizeof *l->points) != 0) {
        fail(x, "out of memory");
        return NULL;
    }
    xpoint *const p = &l->points[l->npoints++];
    memset(p, 0, sizeof *p);
    p->t = t;
    p->kind = kind;
    p->seq = x->seq++;
    if (t < x->tmin) {
        x->tmin = t;
    }
    if (t > x->tmax) {
        x->tmax = t;
    }
    return p;
}

/* Tag of the next message from group `from` to group `to`: per-pair
 * sequence numbers make every message its own FIFO key, so arrows in any
 * order (crossing, or several between two processes) re-import exactly. */
static size_t tag_slot(uint32_t from, uint32_t to, size_t nslots)
{
    return ((size_t)from * 31u + to) & (nslots - 1);
}

static int tags_grow(exporter *x)
{
    const size_t n = x->ntags_slots ? x->ntags_slots * 2 : 256;
    pair_tag *const s = calloc(n, sizeof *s);
    if (!s) {
        return fail(x, "out of memory");
    }
    for (size_t i = 0; i < x->ntags_slots; i++) {
        if (!x->tags[i].next) {
            continue;
        }
        size_t j = tag_slot(x->tags[i].from, x->tags[i].to, n);
        while (s[j].next) {
            j = (j + 1) & (n - 1);
        }
        s[j] = x->tags[i];
    }
    free(x->tags);
    x->tags = s;
    x->ntags_slots = n;
    return 0;
}

static int next_tag(exporter *x, uint32_t from, uint32_t to, uint32_t *tag)
{
    if ((x->ntags + 1) * 2 > x->ntags_slots && tags_grow(x) != 0) {
        return -1;
    }
    size_t i = tag_slot(from, to, x->ntags_slots);
    while (x->tags[i].next && (x->tags[i].from != from || x->tags[i].to != to)) {
        i = (i + 1) & (x->ntags_slots - 1);
    }
    if (!x->tags[i].next) {
        x->tags[i] = (pair_tag){from, to, 1};
        x->ntags++;
    }
    *tag = x->tags[i].next++ - 1;
    return 0;
}

static uint32_t group_owner(const exporter *x, uint32_t t);

static uint64_t arg_bytes(const slog_arrow *a)
{
    for (uint32_t i = 0; i < a->nargs; i++) {
        if (a->args[i].key && strcmp(a->args[i].key, "bytes") == 0) {
            if (a->args[i].type == SLOG_ARG_UINT) {
                return a->args[i].v.u;
            }
            if (a->args[i].type == SLOG_ARG_INT && a->args[i].v.i >= 0) {
                return (uint64_t)a->args[i].v.i;
            }
        }
    }
    return 0;
}

static int collect_state(exporter *x, const slog_state *s)
{
    if (s->timeline >= x->ntl) {
        return fail(x, "state on unknown timeline %u", s->timeline);
    }
    const uint32_t region = category_ref(x, s->category);
    xloc *const l = &x->locs[s->timeline];
    if (region == UINT32_MAX ||
        shared_grow32(&l->states, &l->capstates, l->nstates + 1, sizeof *l->states) != 0) {
        return fail(x, "out of memory or unknown category %u", s->category);
    }
    xstate *const xs = &l->states[l->nstates++];
    xs->start = s->start;
    xs->end = s->end;
    xs->depth = s->depth;
    xs->region = region;
    if (s->start < x->tmin) {
        x->tmin = s->start;
    }
    if (s->end > x->tmax) {
        x->tmax = s->end;
    }
    return add_args(x, s->args, s->nargs, &xs->aoff, &xs->an);
}

static int collect(exporter *x, const slog_item *it)
{
    switch (it->kind) {
    case SLOG_KIND_STATE:
        return collect_state(x, &it->u.state);
    case SLOG_KIND_EVENT: {
        const slog_event *const e = &it->u.event;
        const uint32_t region = category_ref(x, e->category);
        xpoint *const p = e->timeline < x->ntl && region != UINT32_MAX
                              ? add_point(x, e->timeline, e->time, P_EVENT)
                              : NULL;
        if (!p) {
            return fail(x, "event on unknown timeline %u or category %u", e->timeline, e->category);
        }
        p->ref = region;
        return add_args(x, e->args, e->nargs, &p->aoff, &p->an);
    }
    case SLOG_KIND_COUNTER: {
        const slog_counter *const c = &it->u.counter;
        const uint32_t metric = category_ref(x, c->category);
        xpoint *const p = c->timeline < x->ntl && metric != UINT32_MAX
                              ? add_point(x, c->timeline, c->time, P_COUNTER)
                              : NULL;
        if (!p) {
            return fail(x, "counter on unknown timeline %u or category %u", c->timeline,
                        c->category);
        }
        p->ref = metric;
        p->value = c->value;
        return 0;
    }
    case SLOG_KIND_ARROW: {
        const slog_arrow *const a = &it->u.arrow;
        uint32_t tag = 0;
        if (a->from >= x->ntl || a->to >= x->ntl) {
            return fail(x, "arrow between unknown timelines %u and %u", a->from, a->to);
        }
        /* the importer pairs ends by (process, process, tag): number the
         * messages per pair of location groups */
        if (next_tag(x, group_owner(x, a->from), group_owner(x, a->to), &tag) != 0) {
            return -1;
        }
        if (!add_point(x, a->from, a->start, P_SEND)) {
            return -1;
        }
        const uint32_t si = x->locs[a->from].npoints - 1;
        xpoint *const r = add_point(x, a->to, a->end, P_RECV);
        if (!r) {
            return -1;
        }
        xpoint *const s = &x->locs[a->from].points[si]; /* after r: the array may have moved */
        s->ref = a->to;
        r->ref = a->from;
        s->tag = r->tag = tag;
        s->bytes = r->bytes = arg_bytes(a);
        x->have_arrows = true;
        return 0;
    }
    default:
        return 0; /* previews: never requested */
    }
}

/* ---- writing ------------------------------------------------------------------ */

static OTF2_FlushType
pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *caller, bool final)
{
    (void)ud, (void)ft, (void)loc, (void)caller, (void) final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)ud, (void)ft, (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

static int cmp_state(const void *pa, const void *pb)
{
    const xstate *const a = pa, *const b = pb;
    if (a->start != b->start) {
        return a->start < b->start ? -1 : 1;
    }
    if (a->depth != b->depth) {
        return a->depth < b->depth ? -1 : 1;
    }
    if (a->end != b->end) { /* siblings starting together: the shorter one first */
        return a->end < b->end ? -1 : 1;
    }
    return 0;
}

static int cmp_point(const void *pa, const void *pb)
{
    const xpoint *const a = pa, *const b = pb;
    if (a->t != b->t) {
        return a->t < b->t ? -1 : 1;
    }
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

typedef struct writer_ctx {
    exporter *x;
    OTF2_EvtWriter *w;
    OTF2_AttributeList *al;
    int64_t bias; /* added to every tick: makes negative times non-negative */
} writer_ctx;

static OTF2_TimeStamp ts(const writer_ctx *c, int64_t t)
{
    return (OTF2_TimeStamp)(t + c->bias);
}

static OTF2_AttributeList *attrs(writer_ctx *c, uint32_t off, uint32_t n)
{
    if (n == 0) {
        return NULL;
    }
    OTF2_AttributeList_RemoveAllAttributes(c->al);
    for (uint32_t i = 0; i < n; i++) {
        const xattr *const a = &c->x->args[off + i];
        OTF2_AttributeList_AddAttribute(c->al, a->attr, a->type, a->v);
    }
    return c->al;
}

static OTF2_ErrorCode write_point(writer_ctx *c, const xpoint *p)
{
    const OTF2_TimeStamp t = ts(c, p->t);
    switch (p->kind) {
    case P_EVENT: {
        const OTF2_ErrorCode e = OTF2_EvtWriter_Enter(c->w, attrs(c, p->aoff, p->an), t, p->ref);
        return e != OTF2_SUCCESS ? e : OTF2_EvtWriter_Leave(c->w, NULL, t, p->ref);
    }
    case P_COUNTER: {
        const OTF2_Type type = OTF2_TYPE_DOUBLE;
        OTF2_MetricValue v;
        v.floating_point = p->value;
        return OTF2_EvtWriter_Metric(c->w, NULL, t, p->ref, 1, &type, &v);
    }
    case P_SEND:
        return OTF2_EvtWriter_MpiSend(c->w, NULL, t, p->ref, 0, p->tag, p->bytes);
    default:
        return OTF2_EvtWriter_MpiRecv(c->w, NULL, t, p->ref, 0, p->tag, p->bytes);
    }
}

/* Replay of one location: states through a stack, merged with points. */
typedef struct replay {
    xloc *l;
    uint32_t *stack;
    uint32_t depth, i, j;
    const char *what; /* the record being written, for messages */
    int64_t at;
} replay;

enum {
    STEP_LEAVE,
    STEP_ENTER,
    STEP_POINT,
    STEP_DONE
};

/* The next record of a location.  At one instant: a state ending where the
 * next one starts ends first, unless the next one is recorded deeper and
 * fits inside it (a zero-length child at its parent's end); points stay
 * inside the states around them. */
static int next_step(const replay *r)
{
    const xloc *const l = r->l;
    const bool more_states = r->i < l->nstates, more_points = r->j < l->npoints;
    if (!more_states && !more_points && r->depth == 0) {
        return STEP_DONE;
    }
    const xstate *const top = r->depth ? &l->states[r->stack[r->depth - 1]] : NULL;
    const int64_t enter_t = more_states ? l->states[r->i].start : INT64_MAX;
    const int64_t leave_t = top ? top->end : INT64_MAX;
    const int64_t point_t = more_points ? l->points[r->j].t : INT64_MAX;
    const int64_t low = enter_t < point_t ? enter_t : point_t;
    const int64_t first = leave_t < low ? leave_t : low;
    const bool nests =
        more_states && top && l->states[r->i].depth > top->depth && l->states[r->i].end <= leave_t;
    const bool leave = top && leave_t == first && (point_t > first || enter_t == first);
    if (leave && !(enter_t == first && nests)) {
        return STEP_LEAVE;
    }
    return more_states && enter_t == first ? STEP_ENTER : STEP_POINT;
}

static OTF2_ErrorCode replay_leave(writer_ctx *c, replay *r)
{
    const xstate *const s = &r->l->states[r->stack[--r->depth]];
    r->what = "the end of a state";
    r->at = s->end;
    return OTF2_EvtWriter_Leave(c->w, NULL, ts(c, s->end), s->region);
}

/* A state that would end after its enclosing state is cut at that end
 * (OTF2 regions nest); such cuts are counted. */
static OTF2_ErrorCode replay_enter(writer_ctx *c, replay *r)
{
    xstate *const s = &r->l->states[r->i];
    if (r->depth && s->end > r->l->states[r->stack[r->depth - 1]].end) {
        s->end = r->l->states[r->stack[r->depth - 1]].end;
        c->x->clamped++;
    }
    r->what = "the start of a state";
    r->at = s->start;
    r->stack[r->depth++] = r->i++;
    return OTF2_EvtWriter_Enter(c->w, attrs(c, s->aoff, s->an), ts(c, s->start), s->region);
}

static OTF2_ErrorCode replay_point(writer_ctx *c, replay *r)
{
    static const char *const kinds[] = {"an event", "a counter sample", "a message send",
                                        "a message receive"};
    const xpoint *const p = &r->l->points[r->j++];
    r->what = kinds[p->kind];
    r->at = p->t;
    return write_point(c, p);
}

/* Write one location in time order. */
static int write_location(writer_ctx *c, xloc *l)
{
    if (l->nstates > 1) {
        qsort(l->states, l->nstates, sizeof *l->states, cmp_state);
    }
    if (l->npoints > 1) {
        qsort(l->points, l->npoints, sizeof *l->points, cmp_point);
    }
    replay r = {.l = l, .what = ""};
    r.stack = malloc(((size_t)l->nstates + 1) * sizeof *r.stack);
    if (!r.stack) {
        return fail(c->x, "out of memory");
    }
    OTF2_ErrorCode e = OTF2_SUCCESS;
    for (int step = next_step(&r); step != STEP_DONE && e == OTF2_SUCCESS; step = next_step(&r)) {
        e = step == STEP_LEAVE   ? replay_leave(c, &r)
            : step == STEP_ENTER ? replay_enter(c, &r)
                                 : replay_point(c, &r);
    }
    free(r.stack);
    if (e != OTF2_SUCCESS) {
        return fail(c->x, "cannot write %s at tick %lld: %s", r.what, (long long)r.at,
                    OTF2_Error_GetDescription(e));
    }
    return 0;
}

/* Group owner of timeline t: nearest PROCESS/RANK ancestor-or-self, else the
 * top-most non-host ancestor-or-self, else t. */
static uint32_t group_owner(const exporter *x, uint32_t t)
{
    uint32_t top = SLOG_NO_PARENT;
    for (uint32_t a = t; a != SLOG_NO_PARENT; a = x->tls[a].parent) {
        if (x->tls[a].kind == SLOG_TIMELINE_PROCESS || x->tls[a].kind == SLOG_TIMELINE_RANK) {
            return a;
        }
        if (x->tls[a].kind != SLOG_TIMELINE_HOST) {
            top = a;
        }
    }
    return top != SLOG_NO_PARENT ? top : t;
}

/* System tree node of the host enclosing timeline t (itself if a host); 0 = root. */
static uint32_t host_node(const exporter *x, uint32_t t)
{
    for (uint32_t a = t; a != SLOG_NO_PARENT; a = x->tls[a].parent) {
        if (x->tls[a].kind == SLOG_TIMELINE_HOST) {
            return x->node_id[a];
        }
    }
    return 0;
}

/* Dense ids (OTF2 readers expect definitions numbered 0, 1, 2, ...):
 * system tree nodes for hosts (0 is the root), location groups for owners. */
static int number_topology(exporter *x)
{
    const size_t nt = x->ntl ? x->ntl : 1;
    x->node_id = malloc(nt * sizeof *x->node_id);
    x->group_id = malloc(nt * sizeof *x->group_id);
    if (!x->node_id || !x->group_id) {
        return fail(x, "out of memory");
    }
    memset(x->group_id, 0xff, nt * sizeof *x->group_id);
    uint32_t nodes = 1;
    for (uint32_t t = 0; t < x->ntl; t++) {
        x->node_id[t] = x->tls[t].kind == SLOG_TIMELINE_HOST ? nodes++ : UINT32_MAX;
    }
    for (uint32_t t = 0; t < x->ntl; t++) {
        x->group_id[group_owner(x, t)] = 0; /* mark owners */
    }
    uint32_t groups = 0;
    for (uint32_t t = 0; t < x->ntl; t++) {
        if (x->group_id[t] == 0) {
            x->group_id[t] = groups++;
        }
    }
    return 0;
}

static OTF2_LocationType location_type(slog_timeline_kind k)
{
    switch (k) {
    case SLOG_TIMELINE_GPU:
        return OTF2_LOCATION_TYPE_ACCELERATOR_STREAM;
    case SLOG_TIMELINE_COUNTER:
        return OTF2_LOCATION_TYPE_METRIC;
    default:
        return OTF2_LOCATION_TYPE_CPU_THREAD;
    }
}

static int write_topology(exporter *x, OTF2_GlobalDefWriter *g, const uint64_t *nevents)
{
    OTF2_ErrorCode e = OTF2_GlobalDefWriter_WriteSystemTreeNode(
        g, 0, intern(x, "slog"), intern(x, "machine"), OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (uint32_t t = 0; t < x->ntl && e == OTF2_SUCCESS; t++) {
        if (x->tls[t].kind == SLOG_TIMELINE_HOST) {
            const uint32_t parent =
                x->tls[t].parent == SLOG_NO_PARENT ? 0 : host_node(x, x->tls[t].parent);
            e = OTF2_GlobalDefWriter_WriteSystemTreeNode(
                g, x->node_id[t], intern(x, x->tls[t].name), intern(x, "node"), parent);
        }
    }
    for (uint32_t t = 0; t < x->ntl && e == OTF2_SUCCESS; t++) {
        if (x->group_id[t] != UINT32_MAX) {
            const OTF2_LocationGroupType type = x->tls[t].kind == SLOG_TIMELINE_GPU
                                                    ? OTF2_LOCATION_GROUP_TYPE_ACCELERATOR
                                                    : OTF2_LOCATION_GROUP_TYPE_PROCESS;
            e = OTF2_GlobalDefWriter_WriteLocationGroup(
                g, x->group_id[t], intern(x, x->tls[t].name), type, host_node(x, t),
                OTF2_UNDEFINED_LOCATION_GROUP);
        }
    }
    for (uint32_t t = 0; t < x->ntl && e == OTF2_SUCCESS; t++) {
        e = OTF2_GlobalDefWriter_WriteLocation(g, t, intern(x, x->tls[t].name),
                                               location_type(x->tls[t].kind), nevents[t],
                                               x->group_id[group_owner(x, t)]);
    }
    if (e != OTF2_SUCCESS) {
        return fail(x, "cannot write definitions: %s", OTF2_Error_GetDescription(e));
    }
    return 0;
}

static int write_comm(exporter *x, OTF2_GlobalDefWriter *g)
{
    if (!x->have_arrows) {
        return 0;
    }
    uint64_t *const members = malloc((size_t)x->ntl * sizeof *members);
    if (!members) {
        return fail(x, "out of memory");
    }
    for (uint32_t t = 0; t < x->ntl; t++) {
        members[t] = t;
    }
    /* rank r of the communicator is location r, i.e. timeline r */
    OTF2_ErrorCode e = OTF2_GlobalDefWriter_WriteGroup(
        g, 0, intern(x, "slog locations"), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
        OTF2_GROUP_FLAG_NONE, x->ntl, members);
    if (e == OTF2_SUCCESS) {
        e = OTF2_GlobalDefWriter_WriteGroup(g, 1, intern(x, "slog ranks"),
                                            OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, x->ntl, members);
    }
    if (e == OTF2_SUCCESS) {
        e = OTF2_GlobalDefWriter_WriteComm(g, 0, intern(x, "slog arrows"), 1, OTF2_UNDEFINED_COMM,
                                           OTF2_COMM_FLAG_NONE);
    }
    free(members);
    if (e != OTF2_SUCCESS) {
        return fail(x, "cannot write the communicator: %s", OTF2_Error_GetDescription(e));
    }
    return 0;
}

/* Intern every name the definitions use, so that the strings can be written
 * first (readers such as otf2-print resolve names as they go). */
static int intern_names(exporter *x)
{
    static const char *const fixed[] = {
        "", "slog", "machine", "node", "slog locations", "slog ranks", "slog arrows"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        if (intern(x, fixed[i]) == UINT32_MAX) {
            return fail(x, "out of memory");
        }
    }
    for (uint32_t t = 0; t < x->ntl; t++) {
        if (intern(x, x->tls[t].name) == UINT32_MAX) {
            return fail(x, "out of memory");
        }
    }
    return 0;
}

static int write_defs(exporter *x, OTF2_GlobalDefWriter *g, const uint64_t *nevents, int64_t bias)
{
    if (intern_names(x) != 0 || number_topology(x) != 0) {
        return -1;
    }
    for (uint32_t s = 0; s < x->strings.n; s++) {
        if (OTF2_GlobalDefWriter_WriteString(g, s, x->strings.v[s]) != OTF2_SUCCESS) {
            return fail(x, "cannot write strings");
        }
    }
    const uint64_t length = x->tmax >= x->tmin ? (uint64_t)(x->tmax - x->tmin) : 0;
    OTF2_ErrorCode e = OTF2_GlobalDefWriter_WriteClockProperties(
        g, x->fi->ticks_per_second ? x->fi->ticks_per_second : 1000000000u, (uint64_t)bias, length,
        OTF2_UNDEFINED_TIMESTAMP);
    const uint32_t empty = intern(x, "");
    for (uint32_t r = 0; r < x->nregions && e == OTF2_SUCCESS; r++) {
        e = OTF2_GlobalDefWriter_WriteRegion(
            g, r, x->region_name[r], x->region_name[r], x->region_descr[r],
            OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, empty, 0, 0);
    }
    for (uint32_t m = 0; m < x->nmetrics && e == OTF2_SUCCESS; m++) {
        e = OTF2_GlobalDefWriter_WriteMetricMember(
            g, m, x->metric_name[m], x->metric_descr[m], OTF2_METRIC_TYPE_OTHER,
            OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0, empty);
        if (e == OTF2_SUCCESS) {
            const OTF2_MetricMemberRef member = m;
            e = OTF2_GlobalDefWriter_WriteMetricClass(g, m, 1, &member, OTF2_METRIC_ASYNCHRONOUS,
                                                      OTF2_RECORDER_KIND_ABSTRACT);
        }
    }
    for (uint32_t a = 0; a < x->attrs.n && e == OTF2_SUCCESS; a++) {
        unsigned type = 0;
        int skip = 0;
        (void)sscanf(x->attrs.v[a], "%u:%n", &type, &skip);
        e = OTF2_GlobalDefWriter_WriteAttribute(g, a, intern(x, x->attrs.v[a] + skip), empty,
                                                (OTF2_Type)type);
    }
    if (e != OTF2_SUCCESS) {
        return fail(x, "cannot write definitions: %s", OTF2_Error_GetDescription(e));
    }
    return write_topology(x, g, nevents) != 0 || write_comm(x, g) != 0 ? -1 : 0;
}

static int write_events(exporter *x, OTF2_Archive *ar, writer_ctx *c, uint64_t *nevents)
{
    if (OTF2_Archive_OpenEvtFiles(ar) != OTF2_SUCCESS) {
        return fail(x, "cannot open the event files");
    }
    for (uint32_t t = 0; t < x->ntl; t++) {
        c->w = OTF2_Archive_GetEvtWriter(ar, t);
        if (!c->w) {
            return fail(x, "cannot open the event writer of location %u", t);
        }
        if (write_location(c, &x->locs[t]) != 0) {
            return -1;
        }
        if (OTF2_EvtWriter_GetNumberOfEvents(c->w, &nevents[t]) != OTF2_SUCCESS ||
            OTF2_Archive_CloseEvtWriter(ar, c->w) != OTF2_SUCCESS) {
            return fail(x, "cannot close the events of location %u", t);
        }
    }
    if (OTF2_Archive_CloseEvtFiles(ar) != OTF2_SUCCESS) {
        return fail(x, "cannot finish the event files");
    }
    return 0;
}

/* Empty local definition files: readers expect one per location. */
static int write_local_defs(exporter *x, OTF2_Archive *ar)
{
    if (OTF2_Archive_OpenDefFiles(ar) != OTF2_SUCCESS) {
        return fail(x, "cannot open the local definition files");
    }
    for (uint32_t t = 0; t < x->ntl; t++) {
        OTF2_DefWriter *const dw = OTF2_Archive_GetDefWriter(ar, t);
        if (!dw || OTF2_Archive_CloseDefWriter(ar, dw) != OTF2_SUCCESS) {
            return fail(x, "cannot write the local definitions of location %u", t);
        }
    }
    if (OTF2_Archive_CloseDefFiles(ar) != OTF2_SUCCESS) {
        return fail(x, "cannot finish the local definition files");
    }
    return 0;
}

/* Refuse to write over an archive: libotf2 would rewrite its anchor file
 * before noticing that the rest exists, and leave it damaged. */
static int check_target(exporter *x, const char *dir)
{
    static const char *const names[] = {"traces.otf2", "traces.def", "traces"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[4200];
        struct stat st;
        (void)snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (stat(path, &st) == 0) {
            return fail(x, "%s exists already: not overwriting an archive", path);
        }
    }
    return 0;
}

static int write_archive(exporter *x, const char *dir)
{
    OTF2_Archive *const ar =
        OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, (uint64_t)1 << 20, (uint64_t)4 << 20,
                          OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar) {
        return fail(x, "cannot create the archive %s/traces.otf2", dir);
    }
    uint64_t *const nevents = calloc(x->ntl ? x->ntl : 1, sizeof *nevents);
    writer_ctx c = {.x = x, .al = OTF2_AttributeList_New()};
    c.bias = x->tmin < 0 && x->tmin != INT64_MAX ? -x->tmin : 0;
    int rc = -1;
    if (!nevents || !c.al ||
        OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL) != OTF2_SUCCESS ||
        OTF2_Archive_SetSerialCollectiveCallbacks(ar) != OTF2_SUCCESS ||
        OTF2_Archive_SetCreator(ar, "slog-query " SLOG_VERSION_STRING) != OTF2_SUCCESS) {
        fail(x, "cannot set up the archive %s/traces.otf2", dir);
    } else if (write_events(x, ar, &c, nevents) == 0 && write_local_defs(x, ar) == 0) {
        OTF2_GlobalDefWriter *const g = OTF2_Archive_GetGlobalDefWriter(ar);
        rc = g ? write_defs(x, g, nevents, c.bias) : fail(x, "cannot open the global definitions");
    }
    if (OTF2_Archive_Close(ar) != OTF2_SUCCESS && rc == 0) {
        rc = fail(x, "cannot close the archive %s/traces.otf2", dir);
    }
    OTF2_AttributeList_Delete(c.al);
    free(nevents);
    return rc;
}

/* ---- driver ------------------------------------------------------------------ */

static int load_tables(exporter *x)
{
    x->fi = slog_reader_info(x->r);
    x->ntl = x->fi->timelines;
    x->ncat = x->fi->categories;
    const size_t nt = x->ntl ? x->ntl : 1, nc = x->ncat ? x->ncat : 1;
    x->tls = calloc(nt, sizeof *x->tls);
    x->locs = calloc(nt, sizeof *x->locs);
    x->cats = calloc(nc, sizeof *x->cats);
    x->cat_ref = malloc(nc * sizeof *x->cat_ref);
    x->region_name = calloc(nc, sizeof *x->region_name);
    x->region_descr = calloc(nc, sizeof *x->region_descr);
    x->metric_name = calloc(nc, sizeof *x->metric_name);
    x->metric_descr = calloc(nc, sizeof *x->metric_descr);
    if (!x->tls || !x->locs || !x->cats || !x->cat_ref || !x->region_name || !x->region_descr ||
        !x->metric_name || !x->metric_descr) {
        return fail(x, "out of memory");
    }
    memset(x->cat_ref, 0xff, nc * sizeof *x->cat_ref);
    for (uint32_t t = 0; t < x->ntl; t++) {
        if (slog_reader_timeline(x->r, t, &x->tls[t]) != SLOG_OK) {
            return fail(x, "cannot read timeline %u", t);
        }
    }
    for (uint32_t k = 0; k < x->ncat; k++) {
        if (slog_reader_category(x->r, k, &x->cats[k]) != SLOG_OK) {
            return fail(x, "cannot read category %u", k);
        }
    }
    return 0;
}

static int run_query(exporter *x, const slog_query_options *q)
{
    slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    if (q) {
        qo = *q;
    } else {
        qo.t0 = INT64_MIN;
        qo.t1 = INT64_MAX;
        qo.flags = SLOG_QUERY_ARGS; /* args become OTF2 attributes */
    }
    qo.resolution = 0; /* full detail: previews cannot be written as OTF2 */
    qo.kinds &= ~(1u << SLOG_KIND_PREVIEW);
    slog_query *qy;
    slog_error e;
    if (slog_query_create(&qy, x->r, &qo, &e) != SLOG_OK) {
        return fail(x, "cannot query the window: %s%s%s%s", e.message, e.source[0] ? " (in " : "",
                    e.source, e.source[0] ? ")" : "");
    }
    const slog_item *it;
    int rc;
    while ((rc = slog_query_next(qy, &it, &e)) == SLOG_OK) {
        if (collect(x, it) != 0) {
            slog_query_destroy(qy);
            return -1;
        }
    }
    slog_query_destroy(qy);
    if (rc != SLOG_END) {
        return fail(x, "cannot read the window: %s%s%s%s", e.message, e.source[0] ? " (in " : "",
                    e.source, e.source[0] ? ")" : "");
    }
    return 0;
}

static void exporter_free(exporter *x)
{
    for (uint32_t t = 0; x->locs && t < x->ntl; t++) {
        free(x->locs[t].states);
        free(x->locs[t].points);
    }
    free(x->locs);
    free(x->tls);
    free(x->cats);
    free(x->cat_ref);
    free(x->node_id);
    free(x->group_id);
    free(x->region_name);
    free(x->region_descr);
    free(x->metric_name);
    free(x->metric_descr);
    free(x->args);
    free(x->tags);
    strtab_free(&x->strings);
    strtab_free(&x->attrs);
}

/* libotf2 prints its errors unless given a handler: keep the last one for
 * our own message instead. */
static char otf2_last_error[256];

/* libotf2 hands over a printf format and its arguments (the attribute lets
 * clang check the vsnprintf below without a literal format). */
static OTF2_ErrorCode otf2_error_keep(void *ud, const char *file, uint64_t line, const char *function,
                         OTF2_ErrorCode code, const char *fmt, va_list va)
    __attribute__((format(printf, 6, 0)));
// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_ErrorCode otf2_error_keep(void *ud,
                                      const char *file,
                                      uint64_t line,
                                      const char *function,
                                      OTF2_ErrorCode code,
                                      const char *fmt,
                                      va_list va)
{
    (void)ud, (void)file, (void)line, (void)function;
    char msg[200];
    (void)vsnprintf(msg, sizeof msg, fmt, va);
    (void)snprintf(otf2_last_error, sizeof otf2_last_error, "%s (%s)", msg,
                   OTF2_Error_GetDescription(code));
    return code;
}

/* The archive is written into DIR/.otf2-part-XXXXXX and moved into DIR
 * when complete, its anchor traces.otf2 last: a reader (or a later export)
 * never finds a half-written archive under DIR's names. */
static const char *const archive_parts[] = {"traces.def", "traces", "traces.otf2"};

static int make_part_dir(exporter *x, const char *dir, char *tmp, size_t cap)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        return fail(x, "cannot create the directory %s: %s", dir, strerror(errno));
    }
    if ((size_t)snprintf(tmp, cap, "%s/.otf2-part-XXXXXX", dir) >= cap || mkdtemp(tmp) == NULL) {
        return fail(x, "cannot create a temporary directory in %s: %s", dir, strerror(errno));
    }
    return 0;
}

/* Removes what a failed export left in tmp (the files libotf2 writes). */
static void remove_part_dir(const char *tmp)
{
    char path[4400];
    (void)snprintf(path, sizeof path, "%s/traces", tmp);
    DIR *const d = opendir(path);
    for (const struct dirent *e = d ? readdir(d) : NULL; e != NULL; e = readdir(d)) {
        char file[4800];
        (void)snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        (void)unlink(file);
    }
    if (d != NULL) {
        (void)closedir(d);
    }
    for (size_t i = 0; i < sizeof archive_parts / sizeof archive_parts[0]; i++) {
        (void)snprintf(path, sizeof path, "%s/%s", tmp, archive_parts[i]);
        (void)remove(path);
    }
    (void)rmdir(tmp);
}

static int move_archive(exporter *x, const char *tmp, const char *dir)
{
    for (size_t i = 0; i < sizeof archive_parts / sizeof archive_parts[0]; i++) {
        char from[4400], to[4400];
        (void)snprintf(from, sizeof from, "%s/%s", tmp, archive_parts[i]);
        (void)snprintf(to, sizeof to, "%s/%s", dir, archive_parts[i]);
        if (rename(from, to) != 0) {
            return fail(x, "cannot move %s to %s: %s", from, to, strerror(errno));
        }
    }
    return 0;
}

/* Write the archive with libotf2's messages captured into errbuf. */
static int write_archive_quietly(exporter *x, const char *dir)
{
    char tmp[4200];
    if (check_target(x, dir) != 0 || make_part_dir(x, dir, tmp, sizeof tmp) != 0) {
        return -1;
    }
    otf2_last_error[0] = '\0';
    const OTF2_ErrorCallback old = OTF2_Error_RegisterCallback(otf2_error_keep, NULL);
    int rc = write_archive(x, tmp);
    OTF2_Error_RegisterCallback(old, NULL);
    if (rc != 0 && otf2_last_error[0] && x->err && x->errlen) {
        const size_t used = strlen(x->err);
        (void)snprintf(x->err + used, x->errlen - used, ": %s", otf2_last_error);
    }
    if (rc == 0) {
        rc = move_archive(x, tmp, dir);
    }
    remove_part_dir(tmp);
    return rc;
}

int export_otf2_write(
    slog_reader *r, const slog_query_options *q, const char *dir, char *errbuf, size_t errlen)
{
    exporter x = {.r = r, .err = errbuf, .errlen = errlen, .tmin = INT64_MAX, .tmax = INT64_MIN};
    if (errbuf && errlen) {
        errbuf[0] = '\0';
    }
    int rc = load_tables(&x);
    if (rc == 0) {
        rc = run_query(&x, q);
    }
    if (rc == 0) {
        rc = write_archive_quietly(&x, dir);
    }
    if (rc == 0 && x.clamped) {
        (void)fprintf(
            stderr,
            "slog-query: warning: %llu states ended after their enclosing state and were cut "
            "at its end (OTF2 regions nest)\n",
            (unsigned long long)x.clamped);
    }
    exporter_free(&x);
    return rc;
}
