/* SPDX-License-Identifier: MIT
 *
 * chrome_record.c - the record layout of the Chrome importer
 * (chrome_record.h): the builder that collects one event's fields while the
 * parser reads it, packing it into one block (header, args, strings), and the
 * copies the mapper makes of a record.  A record's pointers point into its
 * own block, so a copy moves them by the distance between the blocks.
 * Import library, chrome: public libslog headers, libc.
 */
#include <stdlib.h>
#include <string.h>

#include "chrome_pool.h"
#include "chrome_record.h"

/* ------------------------------------------------------------- builder */

int chrome_builder_reserve(chrome_builder *b, size_t n)
{
    if (b->alen + n <= b->acap) {
        return 0;
    }
    size_t cap = b->acap ? b->acap : 1024;
    while (cap < b->alen + n) {
        cap *= 2;
    }
    char *a = realloc(b->arena, cap);
    if (a == NULL) {
        return -1;
    }
    b->arena = a;
    b->acap = cap;
    return 0;
}

int chrome_builder_put(chrome_builder *b, const void *s, size_t n)
{
    if (chrome_builder_reserve(b, n) != 0) {
        return -1;
    }
    memcpy(b->arena + b->alen, s, n);
    b->alen += n;
    return 0;
}

size_t chrome_builder_str(chrome_builder *b, const void *s, size_t n)
{
    const size_t off = b->alen;
    if (chrome_builder_reserve(b, n + 1) != 0) {
        return CHROME_NO_OFF;
    }
    memcpy(b->arena + off, s, n);
    b->arena[off + n] = '\0';
    b->alen += n + 1;
    return off;
}

void chrome_builder_reset(chrome_builder *b)
{
    b->alen = 0;
    b->nargs = 0;
    b->name = b->cat = b->ph = b->pid = b->tid = b->id = CHROME_NO_OFF;
    b->len1_name = b->len1_cat = b->len1_pid = b->len1_tid = 0;
    b->scope = b->bp = b->s = b->sf = b->bind_id = CHROME_NO_OFF;
    b->id_kind = 0;
    b->ts = b->dur = b->tdur = b->tts = 0;
    b->flags = 0;
    b->nkeys = 0;
    b->key = CHROME_NO_OFF;
}

void chrome_builder_free(chrome_builder *b)
{
    free(b->arena);
    free(b->args);
    b->arena = NULL;
    b->args = NULL;
    b->acap = b->capargs = 0;
    chrome_builder_reset(b);
}

chrome_barg *chrome_builder_arg(chrome_builder *b)
{
    if (b->nargs == b->capargs) {
        const size_t cap = b->capargs ? b->capargs * 2 : 16;
        chrome_barg *a = realloc(b->args, cap * sizeof *a);
        if (a == NULL) {
            return NULL;
        }
        b->args = a;
        b->capargs = cap;
    }
    chrome_barg *a = &b->args[b->nargs++];
    a->key = b->key;
    return a;
}

/* ---------------------------------------------------------------- pack */

static const char *str_at(const char *strs, size_t off)
{
    return off == CHROME_NO_OFF ? NULL : strs + off;
}

/* A later arg with the same key replaces arg i. */
static bool arg_overridden(const chrome_builder *b, size_t i)
{
    const char *const key = b->arena + b->args[i].key;
    for (size_t j = i + 1; j < b->nargs; j++) {
        if (strcmp(key, b->arena + b->args[j].key) == 0) {
            return true;
        }
    }
    return false;
}

static void arg_from(slog_arg *o, const chrome_barg *a, const char *strs)
{
    o->key = str_at(strs, a->key);
    o->type = a->type;
    switch (a->type) {
    case SLOG_ARG_STRING:
    case SLOG_ARG_JSON:
        o->v.s = str_at(strs, a->v.s);
        break;
    case SLOG_ARG_INT:
        o->v.i = a->v.i;
        break;
    case SLOG_ARG_UINT:
        o->v.u = a->v.u;
        break;
    case SLOG_ARG_DOUBLE:
        o->v.d = a->v.d;
        break;
    case SLOG_ARG_BOOL:
    default:
        o->v.b = a->v.b;
        break;
    }
}

static uint32_t pack_args(chrome_event *ev, const chrome_builder *b, const char *strs)
{
    uint32_t n = 0;
    for (size_t i = 0; i < b->nargs; i++) {
        if (!arg_overridden(b, i)) {
            arg_from(&ev->args[n++], &b->args[i], strs);
        }
    }
    return n;
}

static void pack_strings(chrome_event *ev, const chrome_builder *b, const char *strs)
{
    ev->name = str_at(strs, b->name);
    ev->cat = str_at(strs, b->cat);
    ev->pid = str_at(strs, b->pid);
    ev->tid = str_at(strs, b->tid);
    ev->len1_name = b->len1_name;
    ev->len1_cat = b->len1_cat;
    ev->len1_pid = b->len1_pid;
    ev->len1_tid = b->len1_tid;
    ev->id = str_at(strs, b->id);
    ev->scope = str_at(strs, b->scope);
    ev->bp = str_at(strs, b->bp);
    ev->s = str_at(strs, b->s);
    ev->sf = str_at(strs, b->sf);
    ev->bind_id = str_at(strs, b->bind_id);
    if (b->ph != CHROME_NO_OFF) {
        const char *ph = strs + b->ph;
        size_t i = 0;
        for (; i + 1 < sizeof ev->ph && ph[i] != '\0'; i++) {
            ev->ph[i] = ph[i];
        }
        ev->ph[i] = '\0';
    }
}

chrome_event *chrome_builder_pack(const chrome_builder *b, chrome_pool *pool)
{
    const size_t keep = b->nargs; /* upper bound: duplicates are dropped */
    const size_t bytes = sizeof(chrome_event) + keep * sizeof(slog_arg) + b->alen;
    chrome_event *ev = chrome_event_alloc(pool, bytes);
    if (ev == NULL) {
        return NULL;
    }
    chrome_pool *const owner = ev->pool; /* NULL for big records (malloc) */
    const unsigned char pool_class = ev->pool_class;
    memset(ev, 0, sizeof *ev);
    ev->pool = owner;
    ev->pool_class = pool_class;
    ev->bytes = bytes;
    ev->args = (slog_arg *)(void *)(ev + 1);
    char *strs = (char *)(ev->args + keep);
    if (b->alen > 0) {
        memcpy(strs, b->arena, b->alen);
    }
    ev->nargs = pack_args(ev, b, strs);
    pack_strings(ev, b, strs);
    ev->id_kind = b->id_kind;
    ev->ts = b->ts;
    ev->dur = b->dur;
    ev->tdur = b->tdur;
    ev->tts = b->tts;
    ev->flags = b->flags | (b->nkeys == 0 ? CEV_EMPTY : 0u);
    ev->line = b->line;
    ev->col = b->col;
    ev->offset = b->offset;
    return ev;
}

/* -------------------------------------------------------------- copies */

/* A pointer into @p from's block, moved to the same place in @p to's. */
static const char *moved(const char *p, const chrome_event *from, const chrome_event *to)
{
    return p != NULL ? (const char *)to + (p - (const char *)from) : NULL;
}

chrome_event *chrome_record_clone(const chrome_event *ev)
{
    chrome_event *copy = malloc(ev->bytes);
    if (copy == NULL) {
        return NULL;
    }
    memcpy(copy, ev, ev->bytes);
    copy->pool = NULL; /* malloc'ed */
    copy->holds = 0;
    copy->name = moved(ev->name, ev, copy);
    copy->cat = moved(ev->cat, ev, copy);
    copy->pid = moved(ev->pid, ev, copy);
    copy->tid = moved(ev->tid, ev, copy);
    copy->id = moved(ev->id, ev, copy);
    copy->scope = moved(ev->scope, ev, copy);
    copy->bp = moved(ev->bp, ev, copy);
    copy->s = moved(ev->s, ev, copy);
    copy->sf = moved(ev->sf, ev, copy);
    copy->bind_id = moved(ev->bind_id, ev, copy);
    copy->args = (slog_arg *)(void *)((char *)copy + ((const char *)ev->args - (const char *)ev));
    for (uint32_t i = 0; i < copy->nargs; i++) {
        copy->args[i].key = moved(ev->args[i].key, ev, copy);
        if (copy->args[i].type == SLOG_ARG_STRING || copy->args[i].type == SLOG_ARG_JSON) {
            copy->args[i].v.s = moved(ev->args[i].v.s, ev, copy);
        }
    }
    return copy;
}

chrome_event *chrome_record_header(const chrome_event *ev, bool with_names)
{
    const size_t ln = with_names && ev->name != NULL ? strlen(ev->name) + 1 : 0;
    const size_t lc = with_names && ev->cat != NULL ? strlen(ev->cat) + 1 : 0;
    chrome_event *h = malloc(sizeof *h + ln + lc);
    if (h == NULL) {
        return NULL;
    }
    memcpy(h, ev, sizeof *h);
    h->pool = NULL;
    h->holds = 0;
    h->nargs = 0;
    h->args = NULL;
    char *s = (char *)(h + 1);
    h->name = ln > 0 ? memcpy(s, ev->name, ln) : NULL;
    h->cat = lc > 0 ? memcpy(s + ln, ev->cat, lc) : NULL;
    h->pid = h->tid = h->id = h->scope = h->bp = h->s = h->sf = NULL;
    h->bind_id = NULL;
    if (!with_names) {
        h->bytes = sizeof *h; /* what it weighs in the output window */
    }
    return h;
}
