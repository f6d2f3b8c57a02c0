/* SPDX-License-Identifier: MIT
 *
 * otf2_match.c - FIFO matching of MPI message ends and the set of open
 * non-blocking requests.  Queues live in one pool of nodes linked by index
 * with a free list, so a long trace reuses the same few nodes; keys map to
 * queues through an open-addressing table that only grows (a key's queue
 * stays once seen, empty or not).
 */
#include "otf2_match.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

typedef struct node {
    otf2_msg_end end;
    uint32_t next;
} node;

typedef struct queue {
    otf2_msg_key key;
    uint32_t head, tail;
    bool sends; /* what the queue holds when non-empty */
} queue;

typedef struct req_slot {
    uint64_t request;
    uint32_t loc;
    uint8_t state; /* 0 empty, 1 used, 2 deleted */
} req_slot;

struct otf2_match {
    node *pool;
    uint32_t npool, cappool, free_head;
    queue *queues;
    uint32_t nqueues, capqueues;
    uint32_t *slots; /* queue index or NIL */
    size_t capslots;
    uint64_t pending_sends, pending_recvs;
    req_slot *reqs;
    size_t capreqs, usedreqs, livereqs;
};

otf2_match *otf2_match_create(void)
{
    otf2_match *const m = calloc(1, sizeof *m);
    if (m) {
        m->free_head = NIL;
    }
    return m;
}

void otf2_match_destroy(otf2_match *m)
{
    if (!m) {
        return;
    }
    free(m->pool);
    free(m->queues);
    free(m->slots);
    free(m->reqs);
    free(m);
}

static size_t key_hash(const otf2_msg_key *k)
{
    uint64_t h = k->comm * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)k->sender << 32 | k->receiver) * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)k->tag * 0x165667B19E3779F9ull;
    h ^= h >> 31;
    return (size_t)h;
}

static bool key_eq(const otf2_msg_key *a, const otf2_msg_key *b)
{
    return a->comm == b->comm && a->sender == b->sender && a->receiver == b->receiver &&
           a->tag == b->tag;
}

static int slots_grow(otf2_match *m)
{
    const size_t cap = m->capslots ? m->capslots * 2 : 256;
    uint32_t *const s = malloc(cap * sizeof *s);
    if (!s) {
        return -1;
    }
    memset(s, 0xff, cap * sizeof *s);
    for (uint32_t q = 0; q < m->nqueues; q++) {
        size_t i = key_hash(&m->queues[q].key) & (cap - 1);
        while (s[i] != NIL) {
            i = (i + 1) & (cap - 1);
        }
        s[i] = q;
    }
    free(m->slots);
    m->slots = s;
    m->capslots = cap;
    return 0;
}

static queue *find_queue(otf2_match *m, const otf2_msg_key *key)
{
    if (((size_t)m->nqueues + 1) * 2 > m->capslots && slots_grow(m) != 0) {
        return NULL;
    }
    size_t i = key_hash(key) & (m->capslots - 1);
    while (m->slots[i] != NIL) {
        queue *const q = &m->queues[m->slots[i]];
        if (key_eq(&q->key, key)) {
            return q;
        }
        i = (i + 1) & (m->capslots - 1);
    }
    if (m->nqueues == m->capqueues) {
        const uint32_t cap = m->capqueues ? m->capqueues * 2 : 64;
        queue *const nq = realloc(m->queues, cap * sizeof *nq);
        if (!nq) {
            return NULL;
        }
        m->queues = nq;
        m->capqueues = cap;
    }
    queue *const q = &m->queues[m->nqueues];
    q->key = *key;
    q->head = q->tail = NIL;
    q->sends = false;
    m->slots[i] = m->nqueues++;
    return q;
}

static uint32_t node_alloc(otf2_match *m)
{
    if (m->free_head != NIL) {
        const uint32_t n = m->free_head;
        m->free_head = m->pool[n].next;
        return n;
    }
    if (m->npool == m->cappool) {
        const uint32_t cap = m->cappool ? m->cappool * 2 : 256;
        node *const p = realloc(m->pool, cap * sizeof *p);
        if (!p) {
            return NIL;
        }
        m->pool = p;
        m->cappool = cap;
    }
    return m->npool++;
}

int otf2_match_offer(otf2_match *m,
                     const otf2_msg_key *key,
                     bool is_send,
                     const otf2_msg_end *end,
                     otf2_msg_end *other)
{
    queue *const q = find_queue(m, key);
    if (!q) {
        return -1;
    }
    if (q->head != NIL && q->sends != is_send) {
        const uint32_t n = q->head;
        *other = m->pool[n].end;
        q->head = m->pool[n].next;
        if (q->head == NIL) {
            q->tail = NIL;
        }
        m->pool[n].next = m->free_head;
        m->free_head = n;
        if (is_send) {
            m->pending_recvs--;
        } else {
            m->pending_sends--;
        }
        return 1;
    }
    const uint32_t n = node_alloc(m);
    if (n == NIL) {
        return -1;
    }
    m->pool[n].end = *end;
    m->pool[n].next = NIL;
    if (q->tail == NIL) {
        q->head = n;
        q->sends = is_send;
    } else {
        m->pool[q->tail].next = n;
    }
    q->tail = n;
    if (is_send) {
        m->pending_sends++;
    } else {
        m->pending_recvs++;
    }
    return 0;
}

void otf2_match_pending(const otf2_match *m, uint64_t *sends, uint64_t *recvs)
{
    *sends = m->pending_sends;
    *recvs = m->pending_recvs;
}

/* ---- requests ------------------------------------------------------------ */

static size_t req_hash(uint32_t loc, uint64_t request)
{
    uint64_t h = (request ^ ((uint64_t)loc << 40 | (uint64_t)loc)) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 29));
}

static int reqs_rehash(otf2_match *m)
{
    size_t cap = m->capreqs ? m->capreqs : 256;
    while (m->livereqs * 4 >= cap) {
        cap *= 2;
    }
    req_slot *const r = calloc(cap, sizeof *r);
    if (!r) {
        return -1;
    }
    for (size_t i = 0; i < m->capreqs; i++) {
        if (m->reqs[i].state == 1) {
            size_t j = req_hash(m->reqs[i].loc, m->reqs[i].request) & (cap - 1);
            while (r[j].state) {
                j = (j + 1) & (cap - 1);
            }
            r[j] = m->reqs[i];
        }
    }
    free(m->reqs);
    m->reqs = r;
    m->capreqs = cap;
    m->usedreqs = m->livereqs;
    return 0;
}

/* Slot holding (loc, request), or NULL. */
static req_slot *req_find(const otf2_match *m, uint32_t loc, uint64_t request)
{
    if (!m->capreqs) {
        return NULL;
    }
    for (size_t i = req_hash(loc, request) & (m->capreqs - 1);; i = (i + 1) & (m->capreqs - 1)) {
        req_slot *const s = &m->reqs[i];
        if (s->state == 0) {
            return NULL;
        }
        if (s->state == 1 && s->loc == loc && s->request == request) {
            return s;
        }
    }
}

int otf2_request_open(otf2_match *m, uint32_t loc, uint64_t request)
{
    if (req_find(m, loc, request)) {
        return 1;
    }
    if ((m->usedreqs + 1) * 2 > m->capreqs && reqs_rehash(m) != 0) {
        return -1;
    }
    size_t i = req_hash(loc, request) & (m->capreqs - 1);
    while (m->reqs[i].state == 1) {
        i = (i + 1) & (m->capreqs - 1);
    }
    if (m->reqs[i].state == 0) {
        m->usedreqs++;
    }
    m->reqs[i].state = 1;
    m->reqs[i].loc = loc;
    m->reqs[i].request = request;
    m->livereqs++;
    return 0;
}

int otf2_request_close(otf2_match *m, uint32_t loc, uint64_t request)
{
    req_slot *const s = req_find(m, loc, request);
    if (!s) {
        return 0;
    }
    s->state = 2;
    m->livereqs--;
    return 1;
}

uint64_t otf2_request_outstanding(const otf2_match *m)
{
    return m->livereqs;
}
