/* SPDX-License-Identifier: MIT
 *
 * slog2_decode.c - SLOG-2 2.0.6 reader.  Nodes lie back to back from byte
 * 108 up to the first metadata block (true of every file clog2TOslog2
 * writes; the tree directory is checked against the walk), so both passes
 * read the input strictly forward and hold one node at a time.
 *
 * Nesting depth: SLOG-2 stores no depth.  As for CLOG2, a state's depth is
 * the number of states on its line still open at its start.  A state that
 * encloses another lies in the same node or in an ancestor (a drawable sits
 * in the lowest node containing it, and overlapping node boxes are nested),
 * so pass 1 keeps the few states of inner nodes and pass 2 counts, per
 * state, the open states of its own node (lists are sorted by start, ties
 * by decreasing end) plus those of its ancestors.
 * Emission order: a node lists its states by start, parents before their
 * children, but a writer gets exclusive time exact only when children come
 * first (slog_writer_append_state), so pass 2 holds a node's states and
 * emits them by end time, deeper first at equal ends (MPI_Waitall lost the
 * MPE_Irecv_waited time nested in it; user_states.slog2's ranks were
 * 225-285% busy).  A parent in an inner node still comes after children
 * of other parents in its subtree: there exclusive time stays approximate.
 * Layer: slog-import helper (libc only).
 */
#include "slog2_decode.h"

#include <math.h>
#include <shared_grow.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE_HEADER 34
#define MAX_NODE    (1u << 30)

bool slog2_probe(const unsigned char *head, size_t n)
{
    return n >= 9 && head[0] == 0 && head[1] >= 7 && head[1] <= 15 &&
           memcmp(head + 2, "SLOG 2.", 7) == 0;
}

static slog2_fbp get_fbp(mpe_cur *c)
{
    slog2_fbp f;
    f.fptr = mpe_cur_i64(c);
    f.size = mpe_cur_i32(c);
    return f;
}

static bool fbp_present(slog2_fbp f)
{
    return f.fptr != 0 && f.size > 0;
}

int slog2_header_parse(slog2_header *h, const unsigned char *buf, size_t n, mpe_err *e)
{
    memset(h, 0, sizeof *h);
    if (!slog2_probe(buf, n)) {
        return mpe_fail(e, 0, "not a SLOG-2 file (no \"SLOG 2.\" version string)");
    }
    mpe_cur c;
    mpe_cur_init(&c, buf, n, 0);
    const int16_t vlen = mpe_cur_i16(&c);
    const unsigned char *v = mpe_cur_bytes(&c, (size_t)vlen);
    if (v == NULL || vlen != 10 || memcmp(v, "SLOG 2.0.6", 10) != 0) {
        return mpe_fail(e, 2, "unsupported SLOG-2 version \"%.*s\" (only SLOG 2.0.6)",
                        v != NULL ? (int)vlen : 0, v != NULL ? (const char *)v : "");
    }
    memcpy(h->version, v, 10);
    h->children = mpe_cur_i16(&c);
    h->leaf_bytes = mpe_cur_i32(&c);
    h->max_depth = mpe_cur_i16(&c);
    h->max_buffer = mpe_cur_i32(&c);
    slog2_fbp *const blocks[] = {&h->categories, &h->methods,     &h->lines,    &h->root,
                                 &h->dir,        &h->annotations, &h->postamble};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        const uint64_t at = mpe_cur_off(&c);
        *blocks[i] = get_fbp(&c);
        if (blocks[i]->fptr < 0 ||
            (fbp_present(*blocks[i]) && blocks[i]->fptr < SLOG2_HEADER_SIZE)) {
            return mpe_fail(e, at, "SLOG-2 header: block pointer %lld out of range",
                            (long long)blocks[i]->fptr);
        }
    }
    if (c.bad) {
        return mpe_fail(e, n, "truncated SLOG-2 header");
    }
    if (h->children < 2 || h->max_depth < 0) {
        return mpe_fail(e, 12, "SLOG-2 header: bad tree shape (%d children per node, depth %d)",
                        h->children, h->max_depth);
    }
    if (!fbp_present(h->categories) || !fbp_present(h->lines) || !fbp_present(h->root) ||
        !fbp_present(h->dir)) {
        return mpe_fail(e, 24,
                        "SLOG-2 header: categories, line-ID maps, tree root or tree "
                        "directory missing (file not closed by its writer?)");
    }
    return 0;
}

/* ---- file state ----------------------------------------------------- */

typedef struct node_ref {
    int64_t fptr;
    int32_t size;
    int16_t depth;
    int32_t xpos;
} node_ref;

typedef struct inner_state {
    uint32_t line;
    int16_t depth; /* node */
    int32_t xpos;
    double start, end;
} inner_state;

typedef struct open_ref {
    double end;
    uint32_t line;
} open_ref;

struct slog2_file {
    slog2_header h;
    uint64_t nodes_end; /* first metadata byte */
    node_ref *nodes;
    size_t nnodes, capnodes;
    inner_state *inner;
    size_t ninner, capinner;
    mpe_map found; /* category index -> drawables found in the nodes */
    mpe_category *cats;
    uint32_t ncats;
    mpe_map cat_slot; /* index -> slot */
    mpe_line *lines;
    uint32_t nlines;
    mpe_map line_slot;
    uint32_t threads;
    slog2_stats st;
    /* pass 2 scratch: states of the current node not yet ended */
    open_ref *open;
    size_t nopen, capopen;
    /* pass 2 scratch: the current node's states, emitted by end time */
    mpe_drawable *held;
    size_t nheld, capheld;
};

/* ---- objects -------------------------------------------------------- */

typedef struct prim {
    uint64_t offset;
    int32_t cat;
    const unsigned char *info;
    uint32_t info_len;
    int nv;
    double t[2];
    uint32_t line[2];
} prim;

static int get_prim(mpe_cur *c, prim *p, mpe_err *e)
{
    memset(p, 0, sizeof *p);
    p->offset = mpe_cur_off(c);
    p->cat = mpe_cur_i32(c);
    const int16_t len = mpe_cur_i16(c);
    if (len < 0) {
        return mpe_fail(e, p->offset + 4, "drawable info length %d is negative", len);
    }
    p->info = mpe_cur_bytes(c, (size_t)len);
    p->info_len = (uint32_t)len;
    const uint64_t nv_at = mpe_cur_off(c);
    const int16_t nv = mpe_cur_i16(c);
    if (!c->bad && (nv < 1 || nv > 2)) {
        return mpe_fail(e, nv_at, "drawable with %d vertices (1 or 2 expected)", nv);
    }
    p->nv = nv;
    for (int i = 0; i < nv && !c->bad; i++) {
        p->t[i] = mpe_cur_f64(c);
        const int32_t line = mpe_cur_i32(c);
        if (!isfinite(p->t[i]) || line < 0) {
            return mpe_fail(e, mpe_cur_off(c) - 12, "drawable vertex with bad time or line ID");
        }
        p->line[i] = (uint32_t)line;
    }
    if (nv == 1) {
        p->t[1] = p->t[0];
        p->line[1] = p->line[0];
    }
    return c->bad ? mpe_fail(e, mpe_cur_off(c), "drawable runs past the end of its node") : 0;
}

static int skip_shadow(mpe_cur *c, mpe_err *e)
{
    prim p;
    if (get_prim(c, &p, e) != 0) {
        return -1;
    }
    if (p.cat >= 0) {
        return mpe_fail(e, p.offset, "shadow with category %d (Preview_* -1..-3 expected)", p.cat);
    }
    (void)mpe_cur_f64(c);
    (void)mpe_cur_f64(c);
    (void)mpe_cur_i64(c);
    const uint64_t m_at = mpe_cur_off(c);
    const int32_t m = mpe_cur_i32(c);
    if (m < 0 || (size_t)m > (c->len - c->at) / 20) {
        return mpe_fail(e, m_at, "shadow with bad category weight count %d", m);
    }
    (void)mpe_cur_bytes(c, (size_t)m * 20); /* i32 category, f32, f32, i64 count */
    return c->bad ? mpe_fail(e, mpe_cur_off(c), "shadow runs past the end of its node") : 0;
}

/* What a node walk does with its objects. */
typedef struct walk {
    slog2_file *f;
    bool emit_pass;
    mpe_emit_fn emit;
    void *user;
    int16_t depth;
    int32_t xpos;
    int stop; /* emit's nonzero return */
} walk;

static int count_found(slog2_file *f, int32_t cat, uint64_t off, mpe_err *e)
{
    uint32_t n = 0;
    (void)mpe_map_get(&f->found, (uint64_t)(int64_t)cat, 0, &n);
    if (mpe_map_put(&f->found, (uint64_t)(int64_t)cat, 0, n + 1) != 0) {
        return mpe_fail(e, off, "out of memory");
    }
    return 0;
}

static int keep_inner(walk *w, const prim *p, mpe_err *e)
{
    slog2_file *f = w->f;
    if (shared_grow(&f->inner, &f->capinner, f->ninner + 1, sizeof *f->inner) != 0) {
        return mpe_fail(e, p->offset, "out of memory");
    }
    const inner_state s = {p->line[0], w->depth, w->xpos, p->t[0], p->t[1]};
    f->inner[f->ninner++] = s;
    return 0;
}

static bool is_ancestor(const slog2_file *f, int16_t d, int32_t x, int16_t d0, int32_t x0)
{
    if (d <= d0) {
        return false;
    }
    int64_t v = x0;
    for (int16_t i = d0; i < d; i++) {
        v /= f->h.children;
    }
    return v == x;
}

static int cmp_inner(const void *a, const void *b)
{
    const inner_state *x = a, *y = b;
    if (x->line != y->line) {
        return x->line < y->line ? -1 : 1;
    }
    return (x->start > y->start) - (x->start < y->start);
}

/* States of ancestor nodes open at the start of a state of node (d0, x0). */
static uint32_t ancestor_depth(const slog2_file *f, const walk *w, uint32_t line, double start)
{
    size_t lo = 0, hi = f->ninner;
    while (lo < hi) { /* first entry of the line */
        const size_t mid = lo + (hi - lo) / 2;
        if (f->inner[mid].line < line) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    uint32_t n = 0;
    for (size_t i = lo; i < f->ninner && f->inner[i].line == line && f->inner[i].start <= start;
         i++) {
        const inner_state *s = &f->inner[i];
        if (s->end > start && is_ancestor(f, s->depth, s->xpos, w->depth, w->xpos)) {
            n++;
        }
    }
    return n;
}

/* Open states of this node on `line` at `start` (pass 2). */
static int node_depth(slog2_file *f, uint32_t line, double start, double end, uint32_t *depth)
{
    uint32_t n = 0;
    size_t keep = 0;
    for (size_t i = 0; i < f->nopen; i++) {
        const open_ref o = f->open[i];
        if (o.line == line && o.end <= start) {
            continue; /* ended before this one starts */
        }
        n += o.line == line;
        f->open[keep++] = o;
    }
    f->nopen = keep;
    if (shared_grow(&f->open, &f->capopen, f->nopen + 1, sizeof *f->open) != 0) {
        return -1;
    }
    const open_ref o = {end, line};
    f->open[f->nopen++] = o;
    *depth = n;
    return 0;
}

static int hold_state(slog2_file *f, const mpe_drawable *d, mpe_err *e)
{
    if (shared_grow(&f->held, &f->capheld, f->nheld + 1, sizeof *f->held) != 0) {
        return mpe_fail(e, d->offset, "out of memory");
    }
    f->held[f->nheld++] = *d;
    return 0;
}

/* Children first: by end time, deeper first at equal ends, then as read. */
static int cmp_held(const void *a, const void *b)
{
    const mpe_drawable *x = a, *y = b;
    if (x->end != y->end) {
        return x->end < y->end ? -1 : 1;
    }
    if (x->depth != y->depth) {
        return x->depth > y->depth ? -1 : 1;
    }
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Emit the node's held states (their info still points into the node). */
static int emit_held(walk *w)
{
    slog2_file *f = w->f;
    if (f->nheld == 0) {
        return 0;
    }
    qsort(f->held, f->nheld, sizeof *f->held, cmp_held);
    for (size_t i = 0; i < f->nheld; i++) {
        w->stop = w->emit(w->user, &f->held[i]);
        if (w->stop != 0) {
            return -1;
        }
    }
    f->nheld = 0;
    return 0;
}

static int emit_prim(walk *w, const prim *p, bool nestable, mpe_err *e)
{
    slog2_file *f = w->f;
    uint32_t slot = 0;
    if (!mpe_map_get(&f->cat_slot, (uint64_t)(int64_t)p->cat, 0, &slot) ||
        f->cats[slot].index < 0) {
        return mpe_fail(e, p->offset, "drawable of category %d, which the category map lacks",
                        p->cat);
    }
    const mpe_category *cat = &f->cats[slot];
    const bool want_nestable = cat->kind == MPE_STATE;
    const int want_nv = cat->kind == MPE_EVENT ? 1 : 2;
    if (nestable != want_nestable || p->nv != want_nv ||
        (cat->kind == MPE_STATE && p->line[0] != p->line[1])) {
        return mpe_fail(e, p->offset, "drawable of category %d (%s) has the wrong shape", p->cat,
                        cat->name);
    }
    mpe_drawable d = {cat->kind,   slot,     p->line[0], p->line[1],
                      p->t[0],     p->t[1],  0,          p->info_len > 0 ? p->info : NULL,
                      p->info_len, p->offset};
    if (d.kind == MPE_STATE) {
        if (d.end < d.start) {
            return mpe_fail(e, p->offset, "state ends before it starts");
        }
        uint32_t own = 0;
        if (node_depth(f, d.line, d.start, d.end, &own) != 0) {
            return mpe_fail(e, p->offset, "out of memory");
        }
        d.depth = own + ancestor_depth(f, w, d.line, d.start);
        f->st.states++;
    } else if (d.kind == MPE_ARROW) {
        if (d.end < d.start) {
            f->st.arrows_backwards++;
            d.end = d.start;
        }
        f->st.arrows++;
    } else {
        f->st.events++;
    }
    f->cats[slot].count++;
    if (d.kind == MPE_STATE) {
        return hold_state(f, &d, e);
    }
    w->stop = w->emit(w->user, &d);
    return w->stop != 0 ? -1 : 0;
}

static int on_prim(walk *w, const prim *p, bool nestable, mpe_err *e)
{
    if (p->cat < 0) {
        return mpe_fail(e, p->offset, "real drawable with shadow category %d", p->cat);
    }
    if (w->emit_pass) {
        return emit_prim(w, p, nestable, e);
    }
    if (count_found(w->f, p->cat, p->offset, e) != 0) {
        return -1;
    }
    return (nestable && w->depth > 0) ? keep_inner(w, p, e) : 0;
}

static int get_object(walk *w, mpe_cur *c, bool nestable, mpe_err *e)
{
    const uint64_t at = mpe_cur_off(c);
    const uint8_t kind = mpe_cur_u8(c);
    prim p;
    if (kind == 0) {
        return get_prim(c, &p, e) != 0 ? -1 : on_prim(w, &p, nestable, e);
    }
    if (kind != 1) {
        return mpe_fail(e, at, "object kind %u (0 primitive or 1 composite expected)", kind);
    }
    /* A composite: its parts are imported as drawables of their own. */
    (void)mpe_cur_i32(c);
    const int16_t len = mpe_cur_i16(c);
    (void)mpe_cur_bytes(c, len > 0 ? (size_t)len : 0);
    const int16_t n = mpe_cur_i16(c);
    if (c->bad || len < 0 || n < 0) {
        return mpe_fail(e, at, "bad composite drawable");
    }
    if (!w->emit_pass) {
        w->f->st.composites++;
    }
    for (int16_t i = 0; i < n; i++) {
        if (get_prim(c, &p, e) != 0 || on_prim(w, &p, nestable, e) != 0) {
            return -1;
        }
    }
    return 0;
}

static int get_list(walk *w, mpe_cur *c, bool nestable, mpe_err *e)
{
    const uint64_t at = mpe_cur_off(c);
    const int32_t n = mpe_cur_i32(c);
    if (c->bad || n < 0 || (size_t)n > c->len - c->at) {
        return mpe_fail(e, at, "bad drawable count %d", n);
    }
    for (int32_t i = 0; i < n; i++) {
        if (get_object(w, c, nestable, e) != 0) {
            return -1;
        }
    }
    return 0;
}

static int skip_shadow_list(walk *w, mpe_cur *c, mpe_err *e)
{
    const uint64_t at = mpe_cur_off(c);
    const int32_t m = mpe_cur_i32(c);
    if (c->bad || m < 0 || (size_t)m > c->len - c->at) {
        return mpe_fail(e, at, "bad shadow count %d", m);
    }
    for (int32_t i = 0; i < m; i++) {
        if (skip_shadow(c, e) != 0) {
            return -1;
        }
    }
    if (!w->emit_pass) {
        w->f->st.shadows += (uint64_t)m;
    }
    return 0;
}

static int get_shadow_bufs(walk *w, mpe_cur *c, mpe_err *e)
{
    const uint64_t at = mpe_cur_off(c);
    const int32_t n = mpe_cur_i32(c);
    if (c->bad || n < 0 || n > w->f->h.children || (w->depth == 0 && n != 0)) {
        return mpe_fail(e, at, "bad shadow buffer count %d", n);
    }
    for (int32_t b = 0; b < n; b++) {
        (void)mpe_cur_bytes(c, NODE_HEADER);
        for (int list = 0; list < 2; list++) { /* events/arrows, then states */
            if (skip_shadow_list(w, c, e) != 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* Parse one whole node held in buf (file offset `at`). */
static int walk_node(walk *w, const unsigned char *buf, size_t len, uint64_t at, mpe_err *e)
{
    mpe_cur c;
    mpe_cur_init(&c, buf, len, at);
    (void)mpe_cur_f64(&c);
    (void)mpe_cur_f64(&c);
    w->depth = mpe_cur_i16(&c);
    w->xpos = mpe_cur_i32(&c);
    (void)get_fbp(&c);
    w->f->nopen = 0;
    w->f->nheld = 0;
    if (get_list(w, &c, false, e) != 0 || get_list(w, &c, true, e) != 0 || emit_held(w) != 0 ||
        get_shadow_bufs(w, &c, e) != 0) {
        return -1;
    }
    if (c.at != c.len) {
        return mpe_fail(e, mpe_cur_off(&c), "%zu unexplained bytes at the end of a tree node",
                        c.len - c.at);
    }
    return 0;
}

/* Read the node at the input's position; check its header. */
static int read_node(slog2_file *f, mpe_in *in, mpe_buf *buf, node_ref *ref, mpe_err *e)
{
    unsigned char hb[NODE_HEADER];
    const uint64_t at = in->pos;
    if (mpe_in_need(in, hb, sizeof hb, "a tree node header", e) != 0) {
        return -1;
    }
    mpe_cur c;
    mpe_cur_init(&c, hb, sizeof hb, at);
    const double t0 = mpe_cur_f64(&c), t1 = mpe_cur_f64(&c);
    ref->depth = mpe_cur_i16(&c);
    ref->xpos = mpe_cur_i32(&c);
    const slog2_fbp self = get_fbp(&c);
    ref->fptr = self.fptr;
    ref->size = self.size;
    if (self.fptr < 0 || (uint64_t)self.fptr != at || self.size < NODE_HEADER ||
        (uint32_t)self.size > MAX_NODE || at + (uint64_t)self.size > f->nodes_end) {
        return mpe_fail(e, at + 20, "tree node header says it is at byte %lld (%d bytes)",
                        (long long)self.fptr, self.size);
    }
    if (!(t0 <= t1) || ref->depth < 0 || ref->depth > f->h.max_depth || ref->xpos < 0) {
        return mpe_fail(e, at, "tree node with bad time box or position");
    }
    if (shared_grow(&buf->p, &buf->cap, NODE_HEADER, 1) != 0) {
        return mpe_fail(e, at, "out of memory");
    }
    memcpy(buf->p, hb, sizeof hb);
    return mpe_in_need_grow(in, buf, NODE_HEADER, (size_t)self.size - NODE_HEADER, "a tree node",
                            e);
}

static int walk_nodes(slog2_file *f, mpe_in *in, walk *w, mpe_err *e)
{
    mpe_buf buf = {NULL, 0};
    int rc = 0;
    size_t i = 0;
    while (rc == 0 && in->pos < f->nodes_end) {
        node_ref ref;
        const uint64_t at = in->pos;
        rc = read_node(f, in, &buf, &ref, e);
        if (rc == 0 && !w->emit_pass) {
            rc = shared_grow(&f->nodes, &f->capnodes, f->nnodes + 1, sizeof *f->nodes);
            if (rc == 0) {
                f->nodes[f->nnodes++] = ref;
            } else {
                rc = mpe_fail(e, at, "out of memory");
            }
        }
        if (rc == 0 && w->emit_pass && (i >= f->nnodes || f->nodes[i].fptr != ref.fptr)) {
            rc = mpe_fail(e, at, "input changed between the two passes");
        }
        if (rc == 0) {
            rc = walk_node(w, buf.p, (size_t)ref.size, at, e);
        }
        i++;
    }
    free(buf.p);
    return rc;
}

/* ---- metadata blocks ------------------------------------------------ */

/* A Java string (i16 length + bytes) as a new C string. */
static char *get_string(mpe_cur *c)
{
    const int16_t n = mpe_cur_i16(c);
    const unsigned char *p = mpe_cur_bytes(c, n > 0 ? (size_t)n : 0);
    if (c->bad || n < 0) {
        c->bad = true;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (s != NULL) {
        memcpy(s, p, (size_t)n);
        s[n] = '\0';
    }
    return s;
}

static int get_category(mpe_cur *c, mpe_category *cat, int64_t *declared, mpe_err *e)
{
    const uint64_t at = mpe_cur_off(c);
    memset(cat, 0, sizeof *cat);
    cat->index = mpe_cur_i32(c);
    cat->name = get_string(c);
    const int32_t topo = mpe_cur_i32(c);
    const uint32_t argb = (uint32_t)mpe_cur_i32(c);
    (void)mpe_cur_u8(c);
    (void)mpe_cur_u8(c);
    if (c->bad || cat->name == NULL || topo < 0 || topo > 2) {
        return mpe_fail(e, at, "bad category entry");
    }
    cat->kind = topo == 0 ? MPE_EVENT : (topo == 1 ? MPE_STATE : MPE_ARROW);
    cat->rgba = (argb << 8) | (argb >> 24);
    cat->defined = true;
    const int16_t nkeys = mpe_cur_i16(c);
    if (nkeys < 0 || nkeys > MPE_FMT_MAX + 1) {
        return mpe_fail(e, at, "category %d: bad info key count %d", cat->index, nkeys);
    }
    if (mpe_fmt_init(&cat->fmt, (uint32_t)nkeys) != 0) {
        return mpe_fail(e, at, "out of memory");
    }
    for (int16_t i = 0; i < nkeys; i++) {
        cat->fmt.keys[i] = get_string(c);
    }
    const int16_t ntypes = mpe_cur_i16(c);
    const unsigned char *types = mpe_cur_bytes(c, ntypes > 0 ? (size_t)ntypes : 0);
    if (c->bad || ntypes < 0 || ntypes > MPE_FMT_MAX || (ntypes > 0 && nkeys < ntypes)) {
        return mpe_fail(e, at, "category %d: bad info types", cat->index);
    }
    for (int16_t i = 0; i < ntypes; i++) {
        if (types[i] == 0 || strchr("shdxlXeE", types[i]) == NULL) {
            return mpe_fail(e, at, "category %d: unknown info type '%c'", cat->index,
                            (char)types[i]);
        }
        cat->fmt.types[i] = (char)types[i];
    }
    cat->fmt.ntypes = (uint32_t)ntypes;
    const int16_t nmeth = mpe_cur_i16(c);
    (void)mpe_cur_bytes(c, nmeth > 0 ? (size_t)nmeth * 4 : 0);
    (void)mpe_cur_f32(c);
    (void)mpe_cur_f32(c);
    *declared = mpe_cur_i64(c);
    if (c->bad || nmeth < 0 || *declared < 0) {
        return mpe_fail(e, at, "bad category entry");
    }
    return 0;
}

static int
check_counts(slog2_file *f, const mpe_category *cat, int64_t declared, uint64_t at, mpe_err *e)
{
    uint32_t found = 0;
    (void)mpe_map_get(&f->found, (uint64_t)(int64_t)cat->index, 0, &found);
    if (cat->index >= 0 && (uint64_t)declared != found) {
        return mpe_fail(e, at,
                        "category %d (%s): the category map counts %lld drawables, the tree "
                        "nodes hold %u",
                        cat->index, cat->name, (long long)declared, found);
    }
    return 0;
}

static int
parse_categories(slog2_file *f, const unsigned char *buf, size_t len, uint64_t at, mpe_err *e)
{
    mpe_cur c;
    mpe_cur_init(&c, buf, len, at);
    const int32_t n = mpe_cur_i32(&c);
    if (c.bad || n < 0 || (size_t)n > len / 8) {
        return mpe_fail(e, at, "bad category count %d", n);
    }
    f->cats = calloc((size_t)n + 1, sizeof *f->cats);
    if (f->cats == NULL) {
        return mpe_fail(e, at, "out of memory");
    }
    for (int32_t i = 0; i < n; i++) {
        const uint64_t cat_at = mpe_cur_off(&c);
        int64_t declared = 0;
        mpe_category *cat = &f->cats[f->ncats];
        const int rc = get_category(&c, cat, &declared, e);
        f->ncats++; /* owned strings are freed by destroy either way */
        if (rc != 0 || check_counts(f, cat, declared, cat_at, e) != 0) {
            return -1;
        }
        uint32_t dup = 0;
        if (mpe_map_get(&f->cat_slot, (uint64_t)(int64_t)cat->index, 0, &dup)) {
            return mpe_fail(e, cat_at, "category %d listed twice", cat->index);
        }
        if (mpe_map_put(&f->cat_slot, (uint64_t)(int64_t)cat->index, 0, f->ncats - 1) != 0) {
            return mpe_fail(e, cat_at, "out of memory");
        }
    }
    if (f->found.n > 0) { /* a drawable whose category is not in the map */
        for (size_t s = 0; s < f->found.cap; s++) {
            uint32_t slot = 0;
            if (f->found.used[s] != 0 &&
                !mpe_map_get(&f->cat_slot, f->found.keys[2 * s], 0, &slot)) {
                return mpe_fail(e, at,
                                "drawables of category %lld, which the category map "
                                "lacks",
                                (long long)(int64_t)f->found.keys[2 * s]);
            }
        }
    }
    return c.at == c.len ? 0 : mpe_fail(e, mpe_cur_off(&c), "bytes left in the category block");
}

static mpe_line *line_add(slog2_file *f, uint32_t id, uint64_t at, mpe_err *e)
{
    uint32_t slot = 0;
    if (mpe_map_get(&f->line_slot, id, 0, &slot)) {
        return &f->lines[slot];
    }
    size_t cap = f->nlines; /* grown one by one: line maps are small */
    mpe_line *nl = realloc(f->lines, (cap + 1) * sizeof *nl);
    if (nl == NULL || mpe_map_put(&f->line_slot, id, 0, f->nlines) != 0) {
        if (nl != NULL) {
            f->lines = nl;
        }
        (void)mpe_fail(e, at, "out of memory");
        return NULL;
    }
    f->lines = nl;
    mpe_line *l = &f->lines[f->nlines++];
    l->line_id = id;
    l->world_rank = -1;
    l->comm = -1;
    l->comm_rank = -1;
    l->thread = 0;
    return l;
}

/* Column meaning by label. */
enum {
    COL_OTHER,
    COL_WORLD,
    COL_COMM,
    COL_COMM_RANK,
    COL_THREAD
};

static int col_kind(const char *label)
{
    if (strcmp(label, "world_rank") == 0) {
        return COL_WORLD;
    }
    if (strcmp(label, "commID") == 0) {
        return COL_COMM;
    }
    if (strcmp(label, "comm_rank") == 0) {
        return COL_COMM_RANK;
    }
    return strcmp(label, "thread") == 0 ? COL_THREAD : COL_OTHER;
}

static void set_column(slog2_file *f, mpe_line *l, int kind, int32_t v)
{
    switch (kind) {
    case COL_WORLD:
        l->world_rank = v;
        break;
    case COL_COMM:
        l->comm = v;
        break;
    case COL_COMM_RANK:
        l->comm_rank = v;
        break;
    case COL_THREAD:
        l->thread = v;
        f->threads = 2; /* a thread column: threads are real */
        break;
    default:
        break;
    }
}

static int parse_map_rows(slog2_file *f, mpe_cur *c, const int *kinds, int32_t ncol, mpe_err *e)
{
    const uint64_t at = mpe_cur_off(c);
    const int32_t rows = mpe_cur_i32(c);
    if (c->bad || rows < 0 || (size_t)rows > (c->len - c->at) / 4) {
        return mpe_fail(e, at, "bad line-ID map");
    }
    for (int32_t r = 0; r < rows; r++) {
        const uint64_t row_at = mpe_cur_off(c);
        const int32_t id = mpe_cur_i32(c);
        if (c->bad || id < 0) {
            return mpe_fail(e, row_at, "bad line-ID map row");
        }
        mpe_line *l = line_add(f, (uint32_t)id, row_at, e);
        if (l == NULL) {
            return -1;
        }
        for (int32_t i = 0; i < ncol; i++) {
            set_column(f, l, kinds[i], mpe_cur_i32(c));
        }
    }
    return 0;
}

static int parse_one_map(slog2_file *f, mpe_cur *c, mpe_err *e)
{
    const uint64_t at = mpe_cur_off(c);
    free(get_string(c)); /* title */
    const int32_t ncol = mpe_cur_i32(c);
    if (c->bad || ncol < 0 || ncol > 16) {
        return mpe_fail(e, at, "line-ID map with %d columns", ncol);
    }
    int kinds[16];
    for (int32_t i = 0; i < ncol; i++) {
        char *label = get_string(c);
        kinds[i] = label != NULL ? col_kind(label) : COL_OTHER;
        free(label);
    }
    if (parse_map_rows(f, c, kinds, ncol, e) != 0) {
        return -1;
    }
    const int16_t nmeth = mpe_cur_i16(c);
    (void)mpe_cur_bytes(c, nmeth > 0 ? (size_t)nmeth * 4 : 0);
    return (c->bad || nmeth < 0) ? mpe_fail(e, at, "truncated line-ID map") : 0;
}

static int parse_lines(slog2_file *f, const unsigned char *buf, size_t len, uint64_t at, mpe_err *e)
{
    mpe_cur c;
    mpe_cur_init(&c, buf, len, at);
    const int32_t n = mpe_cur_i32(&c);
    if (c.bad || n < 0 || n > 64) {
        return mpe_fail(e, at, "bad line-ID map count %d", n);
    }
    for (int32_t i = 0; i < n; i++) {
        if (parse_one_map(f, &c, e) != 0) {
            return -1;
        }
    }
    return c.at == c.len ? 0 : mpe_fail(e, mpe_cur_off(&c), "bytes left in the line-ID maps");
}

static int parse_dir(slog2_file *f, const unsigned char *buf, size_t len, uint64_t at, mpe_err *e)
{
    mpe_cur c;
    mpe_cur_init(&c, buf, len, at);
    const int32_t n = mpe_cur_i32(&c);
    if (c.bad || n < 0 || (size_t)n != (len - 4) / 34 || (len - 4) % 34 != 0) {
        return mpe_fail(e, at, "tree directory of %d entries in %zu bytes", n, len);
    }
    if ((size_t)n != f->nnodes) {
        return mpe_fail(e, at, "tree directory lists %d nodes, the file holds %zu", n, f->nnodes);
    }
    for (int32_t i = 0; i < n; i++) {
        const uint64_t ent = mpe_cur_off(&c);
        const int16_t depth = mpe_cur_i16(&c);
        const int32_t xpos = mpe_cur_i32(&c);
        (void)mpe_cur_f64(&c);
        (void)mpe_cur_f64(&c);
        const slog2_fbp fb = get_fbp(&c);
        size_t lo = 0, hi = f->nnodes; /* nodes are in file order */
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (f->nodes[mid].fptr < fb.fptr) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (lo == f->nnodes || f->nodes[lo].fptr != fb.fptr || f->nodes[lo].size != fb.size ||
            f->nodes[lo].depth != depth || f->nodes[lo].xpos != xpos) {
            return mpe_fail(e, ent, "tree directory entry (%d, %d) matches no node", depth, xpos);
        }
        if (i == 0 && (fb.fptr != f->h.root.fptr || fb.size != f->h.root.size)) {
            return mpe_fail(e, ent, "tree directory root differs from the header's");
        }
    }
    return 0;
}

typedef int (*block_fn)(slog2_file *, const unsigned char *, size_t, uint64_t, mpe_err *);

typedef struct tail_block {
    slog2_fbp fbp;
    const char *what;
    block_fn parse; /* NULL: skipped */
} tail_block;

static int cmp_tail(const void *a, const void *b)
{
    const tail_block *x = a, *y = b;
    return (x->fbp.fptr > y->fbp.fptr) - (x->fbp.fptr < y->fbp.fptr);
}

static int read_tail(slog2_file *f, mpe_in *in, tail_block *t, size_t n, mpe_err *e)
{
    qsort(t, n, sizeof *t, cmp_tail);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const uint64_t at = (uint64_t)t[i].fbp.fptr;
        if (at < in->pos) {
            return mpe_fail(e, at, "the %s overlaps what precedes it", t[i].what);
        }
        if (mpe_in_skip(in, at - in->pos, t[i].what, e) != 0) {
            return -1;
        }
        mpe_buf buf = {NULL, 0};
        rc = mpe_in_need_grow(in, &buf, 0, (size_t)t[i].fbp.size, t[i].what, e);
        if (rc == 0 && t[i].parse != NULL) {
            rc = t[i].parse(f, buf.p, (size_t)t[i].fbp.size, at, e);
        }
        free(buf.p);
    }
    return rc;
}

static int scan(slog2_file *f, mpe_in *in, mpe_err *e)
{
    unsigned char hb[SLOG2_HEADER_SIZE];
    if (mpe_in_need(in, hb, sizeof hb, "the SLOG-2 header", e) != 0 ||
        slog2_header_parse(&f->h, hb, sizeof hb, e) != 0) {
        return -1;
    }
    tail_block t[6];
    size_t nt = 0;
    const tail_block all[] = {{f->h.categories, "category map", parse_categories},
                              {f->h.lines, "line-ID maps", parse_lines},
                              {f->h.dir, "tree directory", parse_dir},
                              {f->h.methods, "method definitions", NULL},
                              {f->h.annotations, "annotations", NULL},
                              {f->h.postamble, "postamble", NULL}};
    f->nodes_end = UINT64_MAX;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (fbp_present(all[i].fbp)) {
            t[nt++] = all[i];
            if ((uint64_t)all[i].fbp.fptr < f->nodes_end) {
                f->nodes_end = (uint64_t)all[i].fbp.fptr;
            }
        }
    }
    walk w = {f, false, NULL, NULL, 0, 0, 0};
    if (walk_nodes(f, in, &w, e) != 0 || read_tail(f, in, t, nt, e) != 0) {
        return -1;
    }
    return 0;
}

int slog2_file_scan(slog2_file **out, mpe_in *in, mpe_err *e)
{
    slog2_file *f = calloc(1, sizeof *f);
    *out = NULL;
    if (f == NULL) {
        return mpe_fail(e, UINT64_MAX, "out of memory");
    }
    f->threads = 1;
    if (scan(f, in, e) != 0) {
        slog2_file_destroy(f);
        return -1;
    }
    if (f->ninner > 0) {
        qsort(f->inner, f->ninner, sizeof *f->inner, cmp_inner);
    }
    f->st.nodes = f->nnodes;
    *out = f;
    return 0;
}

int slog2_file_emit(slog2_file *f, mpe_in *in, mpe_emit_fn emit, void *user, mpe_err *e)
{
    unsigned char hb[SLOG2_HEADER_SIZE];
    slog2_header h2;
    if (mpe_in_need(in, hb, sizeof hb, "the SLOG-2 header", e) != 0 ||
        slog2_header_parse(&h2, hb, sizeof hb, e) != 0) {
        return -1;
    }
    walk w = {f, true, emit, user, 0, 0, 0};
    for (uint32_t i = 0; i < f->ncats; i++) {
        f->cats[i].count = 0;
    }
    f->st.states = f->st.events = f->st.arrows = f->st.arrows_backwards = 0;
    if (walk_nodes(f, in, &w, e) != 0) {
        return w.stop != 0 ? w.stop : -1;
    }
    return 0;
}

const slog2_header *slog2_file_header(const slog2_file *f)
{
    return &f->h;
}

void slog2_file_stats(const slog2_file *f, slog2_stats *out)
{
    *out = f->st;
}

uint32_t slog2_file_ncategories(const slog2_file *f)
{
    return f->ncats;
}

const mpe_category *slog2_file_category(const slog2_file *f, uint32_t slot)
{
    return slot < f->ncats ? &f->cats[slot] : NULL;
}

void slog2_file_line(const slog2_file *f, uint32_t line_id, mpe_line *out)
{
    uint32_t slot = 0;
    if (mpe_map_get(&f->line_slot, line_id, 0, &slot)) {
        *out = f->lines[slot];
        return;
    }
    memset(out, 0, sizeof *out);
    out->line_id = line_id;
    out->world_rank = -1;
    out->comm = -1;
    out->comm_rank = -1;
}

uint32_t slog2_file_threads(const slog2_file *f)
{
    return f->threads;
}

void slog2_file_destroy(slog2_file *f)
{
    if (f == NULL) {
        return;
    }
    for (uint32_t i = 0; i < f->ncats; i++) {
        free(f->cats[i].name);
        mpe_fmt_free(&f->cats[i].fmt);
    }
    free(f->cats);
    free(f->nodes);
    free(f->inner);
    free(f->lines);
    free(f->open);
    free(f->held);
    mpe_map_free(&f->found);
    mpe_map_free(&f->cat_slot);
    mpe_map_free(&f->line_slot);
    free(f);
}
