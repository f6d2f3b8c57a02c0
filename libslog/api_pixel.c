/* SPDX-License-Identifier: MIT
 *
 * api_pixel.c - the pixel-run accumulator of api_pixel.h: cells keyed by
 * (kind, row, pixel) in an open-addressing table, each with exact
 * per-category totals and a deep copy of its first drawable (args
 * included, since the node it came from may be evicted before the cell is
 * flushed); released cells are recycled through a free list.
 * Layer 5: api.
 */
#include "api_pixel.h"

#include "util_alloc.h"
#include "util_sat.h"

#include <math.h>
#include <string.h>

struct pix_cell {
    uint32_t kind, a, b;      /* row key: see api_pixel.h */
    uint64_t pixel;
    slog_item first;          /* the first drawable, args deep-copied */
    void *args_copy;
    slog_run run;             /* totals over every drawable of the cell */
    slog_run_share *shares;   /* ascending categories */
    uint32_t nshares, cap_shares;
    int64_t last_time;        /* counters: time of vlast */
};

#define NO_CELL SIZE_MAX
#define TOMB    (SIZE_MAX - 1)

/* Heap record of a live cell: its key, then its index. */
struct pix_order {
    uint64_t pixel;
    uint32_t kind, a, b;
    size_t cell;
};

void pix_init(pix_acc *a, int64_t w0, int64_t w1, int64_t res)
{
    memset(a, 0, sizeof *a);
    a->w0 = w0;
    a->w1 = w1;
    a->res = res;
    a->held = NO_CELL;
}

/* Empty a released cell; its shares' memory stays for the cell's next use
 * (a dense answer recycles thousands of cells: a malloc, reallocs and a
 * free each were ~14 % of the server's time on them). */
static void cell_clear(pix_cell *c)
{
    util_free(c->args_copy);
    c->args_copy = NULL;
    c->nshares = 0;
}

void pix_free(pix_acc *a)
{
    for (size_t i = 0; i < a->ncells; i++) {
        cell_clear(&a->cells[i]);
        util_free(a->cells[i].shares);
    }
    util_free(a->cells);
    util_free(a->free_list);
    util_free(a->slots);
    util_free(a->ready);
    util_free(a->heap);
    memset(a, 0, sizeof *a);
    a->held = NO_CELL;
}

/* ---- geometry ---- */

static uint64_t pixel_of(const pix_acc *a, int64_t t)
{
    const int64_t c = t < a->w0 ? a->w0 : (t >= a->w1 ? a->w1 - 1 : t);
    return ((uint64_t)c - (uint64_t)a->w0) / (uint64_t)a->res;
}

/* Row key, extent and category of a real drawable. */
static void item_key(const slog_item *it, uint32_t *ka, uint32_t *kb, int64_t *s, int64_t *e,
                     uint32_t *cat)
{
    switch (it->kind) {
    case SLOG_KIND_STATE:
        *ka = it->u.state.timeline, *kb = it->u.state.depth, *cat = it->u.state.category;
        *s = it->u.state.start, *e = it->u.state.end;
        break;
    case SLOG_KIND_EVENT:
        *ka = it->u.event.timeline, *kb = 0, *cat = it->u.event.category;
        *s = *e = it->u.event.time;
        break;
    case SLOG_KIND_ARROW:
        *ka = it->u.arrow.from, *kb = it->u.arrow.to, *cat = it->u.arrow.category;
        *s = it->u.arrow.start, *e = it->u.arrow.end;
        break;
    default:
        *ka = it->u.counter.timeline, *kb = it->u.counter.category, *cat = it->u.counter.category;
        *s = *e = it->u.counter.time;
        break;
    }
}

/* ---- the cell table ---- */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static size_t hash_key(uint32_t kind, uint32_t ka, uint32_t kb, uint64_t pixel)
{
    return (size_t)mix64(mix64(pixel ^ (uint64_t)kind << 61) ^ ((uint64_t)ka << 32 | kb));
}

static int same_key(const pix_cell *c, uint32_t kind, uint32_t ka, uint32_t kb, uint64_t pixel)
{
    return c->kind == kind && c->a == ka && c->b == kb && c->pixel == pixel;
}

static size_t *find_slot(const pix_acc *a, uint32_t kind, uint32_t ka, uint32_t kb,
                         uint64_t pixel)
{
    size_t i = hash_key(kind, ka, kb, pixel) & (a->nslots - 1);
    while (a->slots[i] != NO_CELL &&
           (a->slots[i] == TOMB || !same_key(&a->cells[a->slots[i]], kind, ka, kb, pixel))) {
        i = (i + 1) & (a->nslots - 1);
    }
    return &a->slots[i];
}

/* Rebuild the table for the live cells, with room; tombstones go. */
static int rehash(pix_acc *a, size_t want)
{
    size_t n = 64;
    while (n < 2 * want + 2) {
        n *= 2;
    }
    size_t *const slots = util_malloc(n * sizeof *slots);
    if (slots == NULL) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        slots[i] = NO_CELL;
    }
    size_t *const old = a->slots;
    const size_t nold = a->nslots;
    a->slots = slots;
    a->nslots = n;
    for (size_t i = 0; i < nold; i++) {
        if (old[i] != NO_CELL && old[i] != TOMB) {
            const pix_cell *const c = &a->cells[old[i]];
            *find_slot(a, c->kind, c->a, c->b, c->pixel) = old[i];
        }
    }
    util_free(old);
    a->tombs = 0;
    return 0;
}

static int copy_args(pix_cell *c, const slog_arg *args, uint32_t nargs, const slog_arg **out)
{
    size_t bytes = (size_t)nargs * sizeof *args;
    for (uint32_t i = 0; i < nargs; i++) {
        bytes += strlen(args[i].key) + 1;
        if (args[i].type == SLOG_ARG_STRING || args[i].type == SLOG_ARG_JSON) {
            bytes += strlen(args[i].v.s) + 1;
        }
    }
    slog_arg *const copy = util_malloc(bytes ? bytes : 1);
    if (copy == NULL) {
        return -1;
    }
    char *text = (char *)(copy + nargs);
    for (uint32_t i = 0; i < nargs; i++) {
        copy[i] = args[i];
        const size_t kl = strlen(args[i].key) + 1;
        copy[i].key = memcpy(text, args[i].key, kl);
        text += kl;
        if (args[i].type == SLOG_ARG_STRING || args[i].type == SLOG_ARG_JSON) {
            const size_t vl = strlen(args[i].v.s) + 1;
            copy[i].v.s = memcpy(text, args[i].v.s, vl);
            text += vl;
        }
    }
    c->args_copy = copy;
    *out = copy;
    return 0;
}

/* Keep the first drawable of a cell, with its own copy of the args. */
static int keep_first(pix_cell *c, const slog_item *it)
{
    c->first = *it;
    switch (it->kind) {
    case SLOG_KIND_STATE:
        return it->u.state.nargs == 0
                   ? 0
                   : copy_args(c, it->u.state.args, it->u.state.nargs, &c->first.u.state.args);
    case SLOG_KIND_EVENT:
        return it->u.event.nargs == 0
                   ? 0
                   : copy_args(c, it->u.event.args, it->u.event.nargs, &c->first.u.event.args);
    case SLOG_KIND_ARROW:
        return it->u.arrow.nargs == 0
                   ? 0
                   : copy_args(c, it->u.arrow.args, it->u.arrow.nargs, &c->first.u.arrow.args);
    default:
        return 0;
    }
}

static size_t new_cell(pix_acc *a)
{
    if (a->nfree > 0) {
        return a->free_list[--a->nfree];
    }
    void *p = a->cells;
    if (util_grow(&p, &a->cap, a->ncells + 1, sizeof *a->cells) != 0) {
        return NO_CELL;
    }
    a->cells = p;
    memset(&a->cells[a->ncells], 0, sizeof *a->cells);
    return a->ncells++;
}

/* ---- totals ---- */

static slog_run_share *share_of(pix_cell *c, uint32_t cat)
{
    uint32_t i = 0;
    while (i < c->nshares && c->shares[i].category < cat) {
        i++;
    }
    if (i < c->nshares && c->shares[i].category == cat) {
        return &c->shares[i];
    }
    if (c->nshares == c->cap_shares) {
        const uint32_t cap = c->cap_shares ? 2 * c->cap_shares : 4;
        slog_run_share *const s = util_realloc(c->shares, (size_t)cap * sizeof *s);
        if (s == NULL) {
            return NULL;
        }
        c->shares = s;
        c->cap_shares = cap;
    }
    memmove(&c->shares[i + 1], &c->shares[i], (size_t)(c->nshares - i) * sizeof *c->shares);
    c->nshares++;
    c->shares[i] = (slog_run_share){cat, 0, 0, INT64_MAX, INT64_MIN};
    return &c->shares[i];
}

static void add_counter_value(pix_cell *c, const slog_counter *k)
{
    slog_run *const r = &c->run;
    r->vmin = r->count == 1 ? k->value : fmin(r->vmin, k->value); /* NaN never wins */
    r->vmax = r->count == 1 ? k->value : fmax(r->vmax, k->value);
    r->vsum += k->value;
    if (r->count == 1 || k->time >= c->last_time) {
        r->vlast = k->value;
        c->last_time = k->time;
    }
}

static int add_to_cell(pix_cell *c, const slog_item *it, uint32_t cat, int64_t s, int64_t e)
{
    slog_run_share *const sh = share_of(c, cat);
    if (sh == NULL) {
        return -1;
    }
    const int64_t d = e - s;
    sh->count++;
    sh->inclusive = util_sat_add_i64(sh->inclusive, d);
    sh->min = d < sh->min ? d : sh->min;
    sh->max = d > sh->max ? d : sh->max;
    slog_run *const r = &c->run;
    r->count++;
    r->inclusive = util_sat_add_i64(r->inclusive, d);
    r->start = r->count == 1 || s < r->start ? s : r->start;
    r->end = r->count == 1 || e > r->end ? e : r->end;
    if (it->kind == SLOG_KIND_COUNTER) {
        add_counter_value(c, &it->u.counter);
    }
    return 0;
}

/* ---- the heap of live cells, by (pixel, kind, row) ---- */

static int order_less(const pix_order *x, const pix_order *y)
{
    if (x->pixel != y->pixel) {
        return x->pixel < y->pixel;
    }
    if (x->kind != y->kind) {
        return x->kind < y->kind;
    }
    return x->a != y->a ? x->a < y->a : x->b < y->b;
}

static int heap_reserve(pix_acc *a)
{
    void *p = a->heap;
    if (util_grow(&p, &a->cap_heap, a->nheap + 1, sizeof *a->heap) != 0) {
        return -1;
    }
    a->heap = p;
    return 0;
}

/* Room was reserved by heap_reserve. */
static void heap_push(pix_acc *a, pix_order o)
{
    size_t i = a->nheap++;
    while (i > 0 && order_less(&o, &a->heap[(i - 1) / 2])) {
        a->heap[i] = a->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    a->heap[i] = o;
}

/* Remove the smallest; its cell index. */
static size_t heap_pop(pix_acc *a)
{
    const size_t top = a->heap[0].cell;
    const pix_order last = a->heap[--a->nheap];
    size_t i = 0;
    for (;;) {
        size_t m = 2 * i + 1;
        if (m >= a->nheap) {
            break;
        }
        if (m + 1 < a->nheap && order_less(&a->heap[m + 1], &a->heap[m])) {
            m++;
        }
        if (!order_less(&a->heap[m], &last)) {
            break;
        }
        a->heap[i] = a->heap[m];
        i = m;
    }
    a->heap[i] = last;
    return top;
}

static int open_cell(pix_acc *a, const slog_item *it, uint32_t ka, uint32_t kb, uint64_t pixel,
                     size_t *out)
{
    if ((a->live + a->tombs + 1) * 2 > a->nslots && rehash(a, a->live + 1) != 0) {
        return -1;
    }
    if (heap_reserve(a) != 0) {
        return -1;
    }
    const size_t i = new_cell(a);
    if (i == NO_CELL) {
        return -1;
    }
    pix_cell *const c = &a->cells[i];
    c->kind = (uint32_t)it->kind;
    c->a = ka;
    c->b = kb;
    c->pixel = pixel;
    memset(&c->run, 0, sizeof c->run);
    c->run.of = it->kind;
    c->run.timeline = ka;
    c->run.timeline_to = it->kind == SLOG_KIND_ARROW ? kb : ka;
    c->run.depth = it->kind == SLOG_KIND_STATE ? kb : 0;
    if (keep_first(c, it) != 0) {
        a->free_list[a->nfree++] = i; /* room: new_cell grew cells, see below */
        return -1;
    }
    *find_slot(a, c->kind, ka, kb, pixel) = i;
    a->live++;
    heap_push(a, (pix_order){pixel, c->kind, ka, kb, i});
    *out = i;
    return 0;
}

/* Make sure a released cell always has a free-list place. */
static int reserve_free(pix_acc *a)
{
    void *p = a->free_list;
    if (util_grow(&p, &a->cap_free, a->ncells + 1, sizeof *a->free_list) != 0) {
        return -1;
    }
    a->free_list = p;
    return 0;
}

int pix_offer(pix_acc *a, const slog_item *it)
{
    uint32_t ka = 0, kb = 0, cat = 0;
    int64_t s = 0, e = 0;
    item_key(it, &ka, &kb, &s, &e, &cat);
    const int64_t cs = s < a->w0 ? a->w0 : s;
    const int64_t ce = e > a->w1 ? a->w1 : e;
    const uint64_t pixel = pixel_of(a, cs);
    if (ce > cs && pixel_of(a, ce - 1) != pixel) {
        return 0; /* spans two or more pixels: drawn as itself */
    }
    if (reserve_free(a) != 0) {
        return -1;
    }
    size_t i = NO_CELL;
    if (a->nslots > 0) {
        i = *find_slot(a, (uint32_t)it->kind, ka, kb, pixel);
    }
    if (i == NO_CELL && open_cell(a, it, ka, kb, pixel, &i) != 0) {
        return -1;
    }
    return add_to_cell(&a->cells[i], it, cat, s, e) == 0 ? 1 : -1;
}

/* ---- flushing in order ---- */

/* First pixel that a drawable starting at or after `low` can fall in. */
static uint64_t pixel_limit(const pix_acc *a, int64_t low)
{
    if (low == INT64_MAX) {
        return UINT64_MAX;
    }
    if (low <= a->w0) {
        return 0;
    }
    return pixel_of(a, low) + (low >= a->w1 ? 1u : 0u);
}

int pix_flush(pix_acc *a, int64_t low)
{
    const uint64_t limit = pixel_limit(a, low);
    if (a->nheap == 0 || a->heap[0].pixel >= limit) {
        return 0;
    }
    if (a->next_ready == a->nready) {
        a->next_ready = a->nready = 0;
    }
    while (a->nheap > 0 && a->heap[0].pixel < limit) {
        void *p = a->ready;
        if (util_grow(&p, &a->cap_ready, a->nready + 1, sizeof *a->ready) != 0) {
            return -1;
        }
        a->ready = p;
        const pix_cell *const c = &a->cells[a->heap[0].cell];
        *find_slot(a, c->kind, c->a, c->b, c->pixel) = TOMB;
        a->tombs++;
        a->live--;
        a->ready[a->nready++] = heap_pop(a);
    }
    return 0;
}

static void release_held(pix_acc *a)
{
    if (a->held != NO_CELL) {
        cell_clear(&a->cells[a->held]);
        a->free_list[a->nfree++] = a->held;
        a->held = NO_CELL;
    }
}

/* The dominant category: most inclusive time (states, arrows) or most
 * items (events, counters); ties to the lower id (shares ascend). */
static void set_dominant(pix_cell *c)
{
    const int by_time = c->kind == SLOG_KIND_STATE || c->kind == SLOG_KIND_ARROW;
    const slog_run_share *best = &c->shares[0];
    for (uint32_t i = 1; i < c->nshares; i++) {
        const slog_run_share *const s = &c->shares[i];
        if (by_time ? s->inclusive > best->inclusive : s->count > best->count) {
            best = s;
        }
    }
    c->run.category = best->category;
    c->run.dominant_count = best->count;
    c->run.dominant_inclusive = best->inclusive;
    c->run.ncategories = c->nshares;
    c->run.categories = c->shares;
}

int pix_next(pix_acc *a, slog_item *out)
{
    release_held(a);
    if (a->next_ready >= a->nready) {
        return 0;
    }
    const size_t ci = a->ready[a->next_ready++];
    pix_cell *const c = &a->cells[ci];
    a->held = ci;
    if (c->run.count <= 1) {
        *out = c->first;
        return 1;
    }
    set_dominant(c);
    out->kind = SLOG_KIND_RUN;
    out->u.run = c->run;
    return 1;
}
