/* SPDX-License-Identifier: MIT
 *
 * trace_merge_msg.c - matching MPI sends to receives across the files of a
 * merge (see trace_merge_msg.h): both sides sorted by (comm, src, dst,
 * tag, time), then walked together key by key.
 * Layer: slog-trace tool; public API only.
 */
#include "trace_merge_msg.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct msg_end {
    uint64_t comm;
    int64_t src, dst, tag;
    int64_t time;
    int64_t bytes;
    uint32_t timeline;
} msg_end;

typedef struct msg_list {
    msg_end *v;
    size_t n, cap;
} msg_list;

struct merge_msgs {
    msg_list sends, recvs;
};

merge_msgs *merge_msgs_create(void)
{
    return calloc(1, sizeof(merge_msgs));
}

void merge_msgs_destroy(merge_msgs *m)
{
    if (m != NULL) {
        free(m->sends.v);
        free(m->recvs.v);
        free(m);
    }
}

static int push(msg_list *l, const msg_end *e)
{
    if (l->n == l->cap) {
        const size_t cap = l->cap == 0 ? 256 : l->cap * 2;
        msg_end *v = realloc(l->v, cap * sizeof *v);
        if (v == NULL) {
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *e;
    return 0;
}

static int take_all(msg_list *into, msg_list *from)
{
    for (size_t i = 0; i < from->n; i++) {
        if (push(into, &from->v[i]) != 0) {
            return -1;
        }
    }
    from->n = 0;
    return 0;
}

int merge_msgs_take(merge_msgs *into, merge_msgs *from)
{
    return take_all(&into->sends, &from->sends) == 0 && take_all(&into->recvs, &from->recvs) == 0
               ? 0
               : -1;
}

static bool arg_int(const slog_arg *a, int64_t *out)
{
    if (a->type == SLOG_ARG_INT) {
        *out = a->v.i;
        return true;
    }
    if (a->type == SLOG_ARG_UINT) {
        *out = (int64_t)a->v.u;
        return true;
    }
    return false;
}

/* The end of a message a "msg" arg names: 1 send, 2 recv, 0 neither. */
static int msg_side(const char *v)
{
    return strcmp(v, "send") == 0 ? 1 : strcmp(v, "recv") == 0 ? 2 : 0;
}

/* Take an integer arg into e when it is a field of the message: returns
 * the field's bit of the key (comm 1, src 2, dst 4, tag 8), 0 for bytes
 * (optional) and for any other arg. */
static unsigned take_field(msg_end *e, const slog_arg *a)
{
    int64_t v = 0;
    if (!arg_int(a, &v)) {
        return 0;
    }
    if (strcmp(a->key, "comm") == 0) {
        e->comm = (uint64_t)v;
        return 1;
    }
    if (strcmp(a->key, "src") == 0) {
        e->src = v;
        return 2;
    }
    if (strcmp(a->key, "dst") == 0) {
        e->dst = v;
        return 4;
    }
    if (strcmp(a->key, "tag") == 0) {
        e->tag = v;
        return 8;
    }
    if (strcmp(a->key, "bytes") == 0) {
        e->bytes = v;
    }
    return 0;
}

int merge_msgs_note(merge_msgs *m, uint32_t timeline, int64_t start, int64_t end,
                    const slog_arg *args, uint32_t nargs)
{
    int side = 0; /* 1 send, 2 recv */
    unsigned have = 0;
    msg_end e = {0, 0, 0, 0, 0, 0, timeline};
    for (uint32_t i = 0; i < nargs; i++) {
        const slog_arg *a = &args[i];
        if (strcmp(a->key, "msg") == 0 && a->type == SLOG_ARG_STRING) {
            side = msg_side(a->v.s);
        } else {
            have |= take_field(&e, a);
        }
    }
    if (side == 0 || have != 15) {
        return 0;
    }
    e.time = side == 1 ? start : end;
    return push(side == 1 ? &m->sends : &m->recvs, &e);
}

static int cmp_key(const msg_end *a, const msg_end *b)
{
    if (a->comm != b->comm) {
        return a->comm < b->comm ? -1 : 1;
    }
    if (a->src != b->src) {
        return a->src < b->src ? -1 : 1;
    }
    if (a->dst != b->dst) {
        return a->dst < b->dst ? -1 : 1;
    }
    return a->tag < b->tag ? -1 : a->tag > b->tag ? 1 : 0;
}

static int cmp_end(const void *pa, const void *pb)
{
    const msg_end *a = pa;
    const msg_end *b = pb;
    const int k = cmp_key(a, b);
    if (k != 0) {
        return k;
    }
    return a->time < b->time ? -1 : a->time > b->time ? 1 : 0;
}

static int append_arrow(slog_writer *w, uint32_t cat, const msg_end *s, const msg_end *r,
                        slog_error *err)
{
    slog_arg args[4] = {
        {.key = "tag", .type = SLOG_ARG_INT, .v.i = s->tag},
        {.key = "bytes", .type = SLOG_ARG_INT, .v.i = s->bytes},
        {.key = "src", .type = SLOG_ARG_INT, .v.i = s->src},
        {.key = "dst", .type = SLOG_ARG_INT, .v.i = s->dst},
    };
    /* a clock step between hosts must not make an arrow end before it starts */
    const int64_t end = r->time < s->time ? s->time : r->time;
    const slog_arrow a = {cat, s->timeline, r->timeline, s->time, end, 4, args};
    return slog_writer_append_arrow(w, &a, err);
}

int merge_msgs_write(merge_msgs *m, slog_writer *w, uint32_t cat, uint64_t *matched,
                     uint64_t *unmatched, slog_error *err)
{
    if (m->sends.n > 0) { /* v is NULL while empty: qsort's pointer must not be */
        qsort(m->sends.v, m->sends.n, sizeof(msg_end), cmp_end);
    }
    if (m->recvs.n > 0) {
        qsort(m->recvs.v, m->recvs.n, sizeof(msg_end), cmp_end);
    }
    size_t i = 0, j = 0;
    *matched = *unmatched = 0;
    while (i < m->sends.n && j < m->recvs.n) {
        const int k = cmp_key(&m->sends.v[i], &m->recvs.v[j]);
        if (k < 0) {
            i++, (*unmatched)++;
        } else if (k > 0) {
            j++, (*unmatched)++;
        } else {
            const int rc = append_arrow(w, cat, &m->sends.v[i++], &m->recvs.v[j++], err);
            if (rc != SLOG_OK) {
                return rc;
            }
            (*matched)++;
        }
    }
    *unmatched += (m->sends.n - i) + (m->recvs.n - j);
    return SLOG_OK;
}
