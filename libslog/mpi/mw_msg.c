/* SPDX-License-Identifier: MIT
 *
 * mw_msg.c - the two halves of point-to-point messages: each is a state
 * in the recording rank's file (args as slog-trace writes them: msg,
 * comm, src, dst, tag, bytes) and a fixed-size record kept in memory, up
 * to max_messages per rank.  Past that (or when memory runs out) a rank
 * keeps no more, so what every rank keeps is a prefix of what it
 * recorded, and pairing the i-th send of a (src, dst, tag) with its i-th
 * receive stays right for every pair both prefixes hold.  At finish the
 * records are gathered to rank 0 (MPI_Gatherv) and matched in the order
 * the halves were posted: MPI does not let two messages of one (source,
 * destination, tag) overtake each other.
 * libslog/mpi: the public API of libslog only, plus MPI.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mw_internal.h"

#define MSG_ARGS 6

static int define_categories(slog_mpi_writer *m, slog_error *e)
{
    if (m->cat_send != MW_NO_CATEGORY) {
        return SLOG_OK;
    }
    uint32_t send = 0, recv = 0;
    int rc = slog_writer_add_category(m->w, SLOG_KIND_STATE, "MPI send", 0, "mpi", &send, e);
    if (rc == SLOG_OK) {
        rc = slog_writer_add_category(m->w, SLOG_KIND_STATE, "MPI recv", 0, "mpi", &recv, e);
    }
    if (rc == SLOG_OK) {
        m->cat_send = send;
        m->cat_recv = recv;
    }
    return rc;
}

/* Keep the record for matching, unless this rank has stopped keeping. */
static void keep(slog_mpi_writer *m, const mw_msg_rec *r)
{
    if (m->self.messages_dropped > 0 || m->nmsgs >= m->opts.max_messages) {
        m->self.messages_dropped++;
        return;
    }
    if (m->nmsgs == m->cap) {
        size_t cap = m->cap == 0 ? 1024 : m->cap * 2;
        cap = cap > m->opts.max_messages ? m->opts.max_messages : cap;
        mw_msg_rec *const v = realloc(m->msgs, cap * sizeof *v);
        if (v == NULL) {
            m->self.messages_dropped++;
            return;
        }
        m->msgs = v;
        m->cap = cap;
    }
    m->msgs[m->nmsgs] = *r;
    m->msgs[m->nmsgs].seq = (uint32_t)m->nmsgs;
    m->nmsgs++;
}

static int check_message(const slog_mpi_writer *m, const mw_msg_rec *r, int peer, slog_error *e)
{
    if (m->finished || m->w == NULL) {
        return mw_fail(e, SLOG_ESTATE, m->path, "Cannot record a message: the writer is finished");
    }
    if (peer < 0 || peer >= m->size || r->tag < 0 || r->bytes < 0 || r->t1 < r->t0) {
        return mw_fail(e, SLOG_EINVAL, m->path,
                       "Invalid message: peer %d (0..%d), tag %d, bytes %lld, times %lld..%lld",
                       peer, m->size - 1, r->tag, (long long)r->bytes, (long long)r->t0,
                       (long long)r->t1);
    }
    return SLOG_OK;
}

int mw_msg_record(slog_mpi_writer *m, const mw_msg_rec *r, slog_error *e)
{
    const int send = r->side == MW_SIDE_SEND;
    const int peer = send ? r->dst : r->src;
    int rc = check_message(m, r, peer, e);
    if (rc == SLOG_OK) {
        rc = define_categories(m, e);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    const slog_arg args[MSG_ARGS] = {
        {.key = "msg", .type = SLOG_ARG_STRING, .v.s = send ? "send" : "recv"},
        {.key = "comm", .type = SLOG_ARG_INT, .v.i = 0},
        {.key = "src", .type = SLOG_ARG_INT, .v.i = r->src},
        {.key = "dst", .type = SLOG_ARG_INT, .v.i = r->dst},
        {.key = "tag", .type = SLOG_ARG_INT, .v.i = r->tag},
        {.key = "bytes", .type = SLOG_ARG_INT, .v.i = r->bytes},
    };
    const slog_state s = {r->timeline, send ? m->cat_send : m->cat_recv,          r->t0,
                          r->t1,       slog_writer_open_depth(m->w, r->timeline), MSG_ARGS,
                          args};
    rc = slog_writer_append_state(m->w, &s, e);
    if (rc == SLOG_OK) {
        keep(m, r);
    }
    return rc;
}

/* Rank 0 makes room for everything the ranks keep; every rank sends only
 * when it did.  *counts holds the counts, then the displacements. */
static int
gather_counts(const slog_mpi_writer *m, int **counts, mw_msg_rec **all, size_t *n, slog_error *e)
{
    const int mine = (int)m->nmsgs;
    void *mem = NULL; /* through a void *: no int * written as void * */
    int rc = mw_root_alloc(m, 2 * (size_t)m->size * sizeof **counts, &mem, e);
    *counts = mem;
    if (rc == SLOG_OK) {
        const int r = MPI_Gather(&mine, 1, MPI_INT, *counts, 1, MPI_INT, 0, m->comm);
        rc = r == MPI_SUCCESS ? SLOG_OK : mw_fail_mpi(e, r, "gather the message counts");
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    size_t total = 0;
    if (m->rank == 0) {
        int *const c = *counts;
        for (int i = 0; i < m->size && total <= INT_MAX; i++) {
            c[m->size + i] = (int)total;
            total += (size_t)c[i];
        }
        /* more than INT_MAX records: MPI_Gatherv cannot place them */
        total = total <= INT_MAX ? total : SIZE_MAX / sizeof **all;
    }
    mem = NULL;
    rc = mw_root_alloc(m, total * sizeof **all, &mem, e);
    *all = mem;
    *n = rc == SLOG_OK ? total : 0;
    return rc;
}

int mw_msg_gather(const slog_mpi_writer *m, mw_msg_rec **all, size_t *n, slog_error *e)
{
    *all = NULL;
    *n = 0;
    int *counts = NULL;
    int rc = gather_counts(m, &counts, all, n, e);
    MPI_Datatype rec = MPI_DATATYPE_NULL;
    if (rc == SLOG_OK) {
        int r = MPI_Type_contiguous((int)sizeof(mw_msg_rec), MPI_BYTE, &rec);
        if (r == MPI_SUCCESS) {
            r = MPI_Type_commit(&rec);
        }
        if (r == MPI_SUCCESS) {
            const int *displs = counts != NULL ? counts + m->size : NULL;
            r = MPI_Gatherv(m->msgs, (int)m->nmsgs, rec, *all, counts, displs, rec, 0, m->comm);
        }
        if (rec != MPI_DATATYPE_NULL) {
            (void)MPI_Type_free(&rec);
        }
        rc = r == MPI_SUCCESS ? SLOG_OK : mw_fail_mpi(e, r, "gather the messages");
    }
    free(counts);
    if (rc != SLOG_OK) {
        free(*all);
        *all = NULL;
        *n = 0;
    }
    return rc;
}

static int cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

/* sends before receives; then (src, dst, tag); then posting order */
static int cmp_half(const void *pa, const void *pb)
{
    const mw_msg_rec *a = pa;
    const mw_msg_rec *b = pb;
    int c = cmp_i64(a->side, b->side);
    c = c != 0 ? c : cmp_i64(a->src, b->src);
    c = c != 0 ? c : cmp_i64(a->dst, b->dst);
    c = c != 0 ? c : cmp_i64(a->tag, b->tag);
    c = c != 0 ? c : cmp_i64(a->t0, b->t0);
    return c != 0 ? c : cmp_i64(a->seq, b->seq);
}

static int cmp_key(const mw_msg_rec *a, const mw_msg_rec *b)
{
    int c = cmp_i64(a->src, b->src);
    c = c != 0 ? c : cmp_i64(a->dst, b->dst);
    return c != 0 ? c : cmp_i64(a->tag, b->tag);
}

int mw_msg_match(mw_msg_rec *v, size_t n, mw_arrow **out, size_t *narrows, uint64_t *unmatched)
{
    *out = NULL;
    *narrows = 0;
    *unmatched = 0;
    qsort(v, n, sizeof *v, cmp_half);
    size_t nsend = 0;
    while (nsend < n && v[nsend].side == MW_SIDE_SEND) {
        nsend++;
    }
    const size_t most = nsend < n - nsend ? nsend : n - nsend;
    mw_arrow *const a = malloc(most * sizeof *a + 1);
    if (a == NULL) {
        return SLOG_ENOMEM;
    }
    size_t i = 0, j = nsend, k = 0;
    while (i < nsend && j < n) {
        const int c = cmp_key(&v[i], &v[j]);
        if (c != 0) {
            *unmatched += 1;
            i += c < 0;
            j += c > 0;
            continue;
        }
        const mw_msg_rec *s = &v[i++];
        const mw_msg_rec *r = &v[j++];
        a[k++] =
            (mw_arrow){s->src, s->dst, s->tag, s->timeline, r->timeline, s->t0, r->t1, s->bytes};
    }
    *unmatched += (nsend - i) + (n - j);
    *out = a;
    *narrows = k;
    return SLOG_OK;
}
