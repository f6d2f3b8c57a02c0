/* SPDX-License-Identifier: MIT
 *
 * clog2_decode.c - CLOG2 reader (preamble, blocks, records, comm table) and
 * the record -> drawable conversion.  The reader loads one block at a time
 * (block_size bytes, 64 KiB in practice), so memory does not grow with the
 * file; the converter keeps only what is open: per line the states begun
 * and not ended, per (tag, sender, receiver) the unmatched messages.
 * Matching follows clog2TOslog2 (see FORMAT-NOTES.md 1.6): a final event
 * closes the earliest open state of its category on its line (FIFO), sends
 * and receives pair oldest first in either arrival order.
 * Layer: slog-import helper (libc only).
 */
#include "clog2_decode.h"

#include <math.h>
#include <shared_grow.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool clog2_probe(const unsigned char *head, size_t n)
{
    /* "CLOG-02.44" and its NUL: a text dump that starts the same way is not CLOG2 */
    return n >= 11 && memcmp(head, "CLOG-02.", 8) == 0 && head[8] >= '0' && head[8] <= '9' &&
           head[9] >= '0' && head[9] <= '9' && head[10] == '\0';
}

/* ---- preamble ------------------------------------------------------- */

/* Largest ID count per preamble range accepted (MPE uses 300 known states
 * and allocates user IDs as the program asks): bounds the placeholder
 * categories made before the records are read. */
#define MAX_IDS 100000

/* Next NUL-terminated string of the preamble, NULL past its end. */
static const char *pre_next(const unsigned char *buf, size_t n, size_t *at)
{
    if (*at >= n) {
        return NULL;
    }
    const char *s = (const char *)buf + *at;
    const void *nul = memchr(s, '\0', n - *at);
    if (nul == NULL) {
        return NULL;
    }
    *at = (size_t)((const unsigned char *)nul - buf) + 1;
    return s;
}

static bool parse_i64(const char *s, long long *v)
{
    char *end = NULL;
    if (s == NULL || *s == '\0') {
        return false;
    }
    *v = strtoll(s, &end, 10);
    return *end == '\0' || *end == ' ';
}

static int pre_bool(const char *s, bool *v)
{
    if (s != NULL && strncmp(s, "TRUE", 4) == 0) {
        *v = true;
        return 0;
    }
    if (s != NULL && strncmp(s, "FALSE", 5) == 0) {
        *v = false;
        return 0;
    }
    return -1;
}

static const char *const pre_titles[] = {
    "is_big_endian=",
    "is_finalzed=",
    "block_size=",
    "num_buffered_blocks=",
    "max_comm_world_size=",
    "max_thread_count=",
    "known_eventID_start=",
    "user_eventID_start=",
    "known_solo_eventID_start=",
    "user_solo_eventID_start=",
    "known_stateID_count=",
    "user_stateID_count=",
    "known_solo_eventID_count=",
    "user_solo_eventID_count=",
    "commtable_fptr=",
};

static int pre_check(const clog2_preamble *p, mpe_err *e)
{
    if (!p->big_endian) {
        return mpe_fail(e, 0,
                        "CLOG2 file is little-endian (is_big_endian=FALSE): "
                        "a per-process temporary file, not a merged log");
    }
    if (!p->finalized) {
        return mpe_fail(e, 0,
                        "CLOG2 file is not finalized (is_finalzed=FALSE): "
                        "run clog2_repair first");
    }
    if (p->block_size < 64 || p->block_size > (64u << 20)) { /* MPE's default: 64 KiB */
        return mpe_fail(e, 0, "CLOG2 preamble: bad block_size %u", p->block_size);
    }
    if (p->world_size <= 0 || p->thread_count <= 0 || p->known_stateID_count < 0 ||
        p->user_stateID_count < 0 || p->known_solo_eventID_count < 0 ||
        p->user_solo_eventID_count < 0 || p->known_stateID_count > MAX_IDS ||
        p->user_stateID_count > MAX_IDS || p->known_solo_eventID_count > MAX_IDS ||
        p->user_solo_eventID_count > MAX_IDS) {
        return mpe_fail(e, 0, "CLOG2 preamble: bad sizes or ID counts");
    }
    if (p->commtable_fptr < CLOG2_PREAMBLE_SIZE ||
        (p->commtable_fptr - CLOG2_PREAMBLE_SIZE) % p->block_size != 0) {
        return mpe_fail(e, 0,
                        "CLOG2 preamble: commtable_fptr %llu is not 1024 + a whole number of "
                        "%u-byte blocks",
                        (unsigned long long)p->commtable_fptr, p->block_size);
    }
    return 0;
}

int clog2_preamble_parse(clog2_preamble *p, const unsigned char *buf, size_t n, mpe_err *e)
{
    memset(p, 0, sizeof *p);
    size_t at = 0;
    const char *ver = pre_next(buf, n, &at);
    if (ver == NULL || !clog2_probe(buf, n)) {
        return mpe_fail(e, 0, "not a CLOG2 file (no \"CLOG-02.\" version string)");
    }
    if (strcmp(ver, "CLOG-02.44") != 0) {
        return mpe_fail(e, 0, "unsupported CLOG2 version \"%.15s\" (only CLOG-02.44)", ver);
    }
    (void)snprintf(p->version, sizeof p->version, "%s", ver);
    long long v[15] = {0};
    for (size_t i = 0; i < sizeof pre_titles / sizeof pre_titles[0]; i++) {
        const size_t title_at = at;
        const char *title = pre_next(buf, n, &at);
        const char *val = pre_next(buf, n, &at);
        if (title == NULL || strcmp(title, pre_titles[i]) != 0 || val == NULL) {
            return mpe_fail(e, title_at, "CLOG2 preamble: expected \"%s\"", pre_titles[i]);
        }
        bool ok = true;
        if (i < 2) {
            bool b = false;
            ok = pre_bool(val, &b) == 0;
            v[i] = b;
        } else if (i == 14) {
            long long main_part = 0, unit = 0, sub = 0;
            const char *s_unit = pre_next(buf, n, &at);
            const char *s_sub = pre_next(buf, n, &at);
            ok = parse_i64(val, &main_part) && parse_i64(s_unit, &unit) && parse_i64(s_sub, &sub) &&
                 main_part >= 0 && unit >= 0 && sub >= 0 && main_part < 1000000 &&
                 unit <= (1ll << 31);
            v[i] = main_part * unit + sub;
        } else {
            ok = parse_i64(val, &v[i]) && v[i] >= INT32_MIN && v[i] <= INT32_MAX;
        }
        if (!ok) {
            return mpe_fail(e, title_at, "CLOG2 preamble: bad value for \"%s\"", pre_titles[i]);
        }
    }
    p->big_endian = v[0] != 0;
    p->finalized = v[1] != 0;
    p->block_size = v[2] > 0 ? (uint32_t)v[2] : 0;
    p->num_buffered_blocks = (int32_t)v[3];
    p->world_size = (int32_t)v[4];
    p->thread_count = (int32_t)v[5];
    p->known_eventID_start = (int32_t)v[6];
    p->user_eventID_start = (int32_t)v[7];
    p->known_solo_eventID_start = (int32_t)v[8];
    p->user_solo_eventID_start = (int32_t)v[9];
    p->known_stateID_count = (int32_t)v[10];
    p->user_stateID_count = (int32_t)v[11];
    p->known_solo_eventID_count = (int32_t)v[12];
    p->user_solo_eventID_count = (int32_t)v[13];
    p->commtable_fptr = (uint64_t)v[14];
    return pre_check(p, e);
}

/* ---- reader --------------------------------------------------------- */

static const int32_t body_size[CLOG2_RECTYPES] = {0, 0, 112, 104, 40, 8, 40, 24, 16, 48, 48, 8};

struct clog2_reader {
    mpe_in *in;
    clog2_preamble pre;
    unsigned char *block;
    uint64_t block_off; /* file offset of the loaded block */
    size_t at;          /* next record inside it */
    size_t block_len;   /* bytes of it read: block_size, less when the input is cut */
    mpe_err cut;        /* why block_len < block_size, reported once its records are read */
    uint64_t nblocks;
    uint64_t loaded; /* blocks loaded so far */
    bool have_block;
    bool ended;
    clog2_comm *comms;
    size_t ncomms;
    uint64_t counts[CLOG2_RECTYPES];
};

int clog2_reader_open(clog2_reader **out, mpe_in *in, mpe_err *e)
{
    unsigned char buf[CLOG2_PREAMBLE_SIZE];
    *out = NULL;
    if (mpe_in_need(in, buf, sizeof buf, "the CLOG2 preamble", e) != 0) {
        return -1;
    }
    clog2_reader *r = calloc(1, sizeof *r);
    if (r == NULL) {
        return mpe_fail(e, UINT64_MAX, "out of memory");
    }
    r->in = in;
    if (clog2_preamble_parse(&r->pre, buf, sizeof buf, e) != 0) {
        free(r);
        return -1;
    }
    r->block = malloc(r->pre.block_size);
    if (r->block == NULL) {
        free(r);
        return mpe_fail(e, UINT64_MAX, "out of memory");
    }
    r->nblocks = (r->pre.commtable_fptr - CLOG2_PREAMBLE_SIZE) / r->pre.block_size;
    *out = r;
    return 0;
}

const clog2_preamble *clog2_reader_preamble(const clog2_reader *r)
{
    return &r->pre;
}

const clog2_comm *clog2_reader_comms(const clog2_reader *r, size_t *n)
{
    *n = r->ncomms;
    return r->comms;
}

const uint64_t *clog2_reader_counts(const clog2_reader *r)
{
    return r->counts;
}

void clog2_reader_destroy(clog2_reader *r)
{
    if (r != NULL) {
        free(r->block);
        free(r->comms);
        free(r);
    }
}

static int read_commtable(clog2_reader *r, mpe_err *e)
{
    unsigned char cnt[4];
    const uint64_t at = r->in->pos;
    if (mpe_in_need(r->in, cnt, 4, "the communicator table", e) != 0) {
        return -1;
    }
    const int32_t n = mpe_be_i32(cnt);
    if (n < 0 || n > 1000000) {
        return mpe_fail(e, at, "bad communicator count %d", n);
    }
    r->comms = calloc((size_t)n + 1, sizeof *r->comms);
    if (r->comms == NULL) {
        return mpe_fail(e, at, "out of memory");
    }
    for (int32_t i = 0; i < n; i++) {
        unsigned char ent[40];
        if (mpe_in_need(r->in, ent, sizeof ent, "a communicator table entry", e) != 0) {
            return -1;
        }
        r->comms[i].lid = mpe_be_i32(ent + 32);
        r->comms[i].kind = mpe_be_i32(ent + 36);
    }
    r->ncomms = (size_t)n;
    const uint64_t end = r->in->pos;
    const int at_end = mpe_in_at_end(r->in, e);
    if (at_end < 0) {
        return -1;
    }
    if (at_end == 0) {
        return mpe_fail(e, end, "unexpected bytes after the communicator table");
    }
    return 0;
}

/* Load the next block.  An input that ends inside it is not an error
 * yet: the records that fit in what was read come first, then `cut`. */
static int load_block(clog2_reader *r, mpe_err *e)
{
    if (r->loaded == r->nblocks) {
        return mpe_fail(e, r->in->pos,
                        "no ENDLOG record in the %llu data blocks before the communicator "
                        "table",
                        (unsigned long long)r->nblocks);
    }
    r->block_off = r->in->pos;
    size_t got = 0;
    if (mpe_in_read(r->in, r->block, r->pre.block_size, &got, e) != 0) {
        return -1;
    }
    if (got < r->pre.block_size) {
        (void)mpe_fail(&r->cut, r->in->pos,
                       "truncated: data block %llu needs %u bytes from byte %llu, input ends at "
                       "byte %llu",
                       (unsigned long long)r->loaded, r->pre.block_size,
                       (unsigned long long)r->block_off, (unsigned long long)r->in->pos);
    }
    r->block_len = got;
    r->loaded++;
    r->at = 0;
    r->have_block = true;
    return 0;
}

static void copy_str(char *dst, size_t dstlen, const unsigned char *src, size_t n)
{
    const size_t m = n < dstlen - 1 ? n : dstlen - 1;
    memcpy(dst, src, m);
    dst[m] = '\0';
    dst[strnlen(dst, m)] = '\0';
}

static void fill_body(clog2_record *rec, const unsigned char *b)
{
    switch (rec->rectype) {
    case CLOG2_STATEDEF:
        rec->a = mpe_be_i32(b); /* state id */
        rec->etype = mpe_be_i32(b + 4);
        rec->b = mpe_be_i32(b + 8); /* final etype */
        copy_str(rec->color, sizeof rec->color, b + 16, 24);
        copy_str(rec->name, sizeof rec->name, b + 40, 32);
        copy_str(rec->format, sizeof rec->format, b + 72, 40);
        break;
    case CLOG2_EVENTDEF:
        rec->etype = mpe_be_i32(b);
        copy_str(rec->color, sizeof rec->color, b + 8, 24);
        copy_str(rec->name, sizeof rec->name, b + 32, 32);
        copy_str(rec->format, sizeof rec->format, b + 64, 40);
        break;
    case CLOG2_CONSTDEF:
        rec->etype = mpe_be_i32(b);
        rec->a = mpe_be_i32(b + 4);
        copy_str(rec->name, sizeof rec->name, b + 8, 32);
        break;
    case CLOG2_BAREEVT:
        rec->etype = mpe_be_i32(b);
        break;
    case CLOG2_CARGOEVT:
        rec->etype = mpe_be_i32(b);
        rec->cargo = b + 8;
        break;
    case CLOG2_MSGEVT:
    case CLOG2_COMMEVT:
        rec->etype = mpe_be_i32(b);
        rec->a = mpe_be_i32(b + 4);
        rec->b = mpe_be_i32(b + 8);
        rec->c = mpe_be_i32(b + 12);
        rec->d = mpe_be_i32(b + 16);
        break;
    case CLOG2_TIMESHIFT:
        rec->shift = mpe_be_f64(b);
        break;
    default: /* COLLEVT, SRCLOC: not used */
        rec->etype = mpe_be_i32(b);
        break;
    }
}

/* Handle an ENDLOG: it must sit in the last block, the comm table follows. */
static int end_of_log(clog2_reader *r, uint64_t off, mpe_err *e)
{
    if (r->loaded != r->nblocks) {
        return mpe_fail(e, off, "ENDLOG record in data block %llu of %llu",
                        (unsigned long long)(r->loaded - 1), (unsigned long long)r->nblocks);
    }
    if (read_commtable(r, e) != 0) {
        return -1;
    }
    r->ended = true;
    return 1;
}

/* The 24-byte record header at h (file offset off, `left` bytes left in
 * the block): a known type whose body fits the block. */
static int
parse_header(clog2_record *rec, const unsigned char *h, uint64_t off, size_t left, mpe_err *e)
{
    memset(rec, 0, sizeof *rec);
    rec->offset = off;
    rec->time = mpe_be_f64(h);
    rec->icomm = mpe_be_i32(h + 8);
    rec->rank = mpe_be_i32(h + 12);
    rec->thread = mpe_be_i32(h + 16);
    rec->rectype = mpe_be_i32(h + 20);
    if (rec->rectype < 0 || rec->rectype >= CLOG2_RECTYPES) {
        return mpe_fail(e, off + 20, "unknown CLOG2 record type %d", rec->rectype);
    }
    if (!isfinite(rec->time)) {
        return mpe_fail(e, off, "record time is not a finite number");
    }
    if (left - CLOG2_HEADER_SIZE < (size_t)body_size[rec->rectype]) {
        return mpe_fail(e, off, "record of type %d crosses the end of its data block",
                        rec->rectype);
    }
    return 0;
}

/* The record header at r->at, checked; in a cut block the record must lie
 * within what was read, else the error is the cut. */
static int read_header(clog2_reader *r, clog2_record *rec, uint64_t off, size_t left, mpe_err *e)
{
    if (r->block_len - r->at < CLOG2_HEADER_SIZE) {
        *e = r->cut; /* the input ends inside this record's header */
        return -1;
    }
    if (parse_header(rec, r->block + r->at, off, left, e) != 0) {
        return -1;
    }
    if (r->block_len - r->at - CLOG2_HEADER_SIZE < (size_t)body_size[rec->rectype]) {
        *e = r->cut; /* ... or inside its body */
        return -1;
    }
    return 0;
}

int clog2_reader_next(clog2_reader *r, clog2_record *rec, mpe_err *e)
{
    for (;;) {
        if (r->ended) {
            return 1;
        }
        if (!r->have_block && load_block(r, e) != 0) {
            return -1;
        }
        const uint64_t off = r->block_off + r->at;
        const size_t left = r->pre.block_size - r->at;
        if (left < CLOG2_HEADER_SIZE) {
            return mpe_fail(e, off, "data block ends without an ENDBLOCK record");
        }
        const unsigned char *h = r->block + r->at;
        if (read_header(r, rec, off, left, e) != 0) {
            return -1;
        }
        const size_t body = (size_t)body_size[rec->rectype];
        r->counts[rec->rectype]++;
        r->at += CLOG2_HEADER_SIZE + body;
        if (rec->rectype == CLOG2_ENDBLOCK) {
            r->have_block = false;
            continue;
        }
        if (rec->rectype == CLOG2_ENDLOG) {
            r->have_block = false;
            return end_of_log(r, off, e) < 0 ? -1 : 1;
        }
        fill_body(rec, h + CLOG2_HEADER_SIZE);
        return 0;
    }
}

/* ---- conversion ----------------------------------------------------- */

enum {
    ROLE_START = 0,
    ROLE_FINAL = 1,
    ROLE_SOLO = 2
};

typedef struct open_state {
    uint32_t cat;
    uint32_t depth;
    double start;
    uint32_t info_len;
    unsigned char info[CLOG2_CARGO_SIZE];
} open_state;

typedef struct line_rec {
    open_state *open; /* in order of their start */
    size_t n, cap;
} line_rec;

typedef struct pending_msg {
    double time;
    uint32_t line;
    int32_t size;
} pending_msg;

typedef struct msg_queue {
    int side; /* CLOG2_SEND or CLOG2_RECV: what is waiting */
    pending_msg *v;
    size_t head, n, cap;
} msg_queue;

/* Where converted drawables go. */
typedef struct sink {
    mpe_emit_fn emit;
    void *user;
} sink;

struct clog2_conv {
    clog2_preamble pre;
    mpe_category *cats;
    uint32_t ncats, capcats;
    uint32_t first_extra;
    mpe_map extra; /* etype -> slot << 2 | role, for definitions outside the ranges */
    mpe_map wrank; /* (icomm, rank) -> world rank */
    mpe_map lines; /* line ID -> index in line_v */
    line_rec *line_v;
    size_t nlines, caplines;
    mpe_map msgq; /* (tag, sender pline << 32 | receiver pline) -> queue */
    msg_queue *q;
    size_t nq, capq;
    clog2_conv_stats st;
};

static int add_category(clog2_conv *c, mpe_kind kind, const char *name)
{
    size_t cap = c->capcats;
    if (shared_grow(&c->cats, &cap, (size_t)c->ncats + 1, sizeof *c->cats) != 0) {
        return -1;
    }
    c->capcats = (uint32_t)cap;
    mpe_category *cat = &c->cats[c->ncats];
    memset(cat, 0, sizeof *cat);
    cat->index = (int32_t)c->ncats;
    cat->kind = kind;
    cat->name = malloc(strlen(name) + 1);
    if (cat->name == NULL || mpe_fmt_parse(&cat->fmt, "") != 0) {
        free(cat->name);
        return -1;
    }
    memcpy(cat->name, name, strlen(name) + 1);
    c->ncats++;
    return 0;
}

static int
add_placeholders(clog2_conv *c, mpe_kind kind, int32_t count, int32_t id0, const char *prefix)
{
    char name[64];
    for (int32_t i = 0; i < count; i++) {
        (void)snprintf(name, sizeof name, "%s%lld", prefix, (long long)id0 + i);
        if (add_category(c, kind, name) != 0) {
            return -1;
        }
    }
    return 0;
}

int clog2_conv_create(clog2_conv **out, const clog2_preamble *p, mpe_err *e)
{
    clog2_conv *c = calloc(1, sizeof *c);
    *out = NULL;
    if (c == NULL) {
        return mpe_fail(e, UINT64_MAX, "out of memory");
    }
    c->pre = *p;
    /* Slots as clog2TOslog2 numbers its categories: message, known states,
     * user states, known solo events, user solo events, then extras. */
    int rc = add_category(c, MPE_ARROW, "message");
    if (rc == 0) {
        c->cats[0].rgba = 0xffffffffu;
        c->cats[0].defined = true;
        mpe_fmt_free(&c->cats[0].fmt);
        rc = mpe_fmt_parse(&c->cats[0].fmt, "msg_tag=%d, msg_size=%d");
    }
    if (rc == 0) {
        rc = add_placeholders(c, MPE_STATE, p->known_stateID_count, 0, "MPE_state_");
    }
    if (rc == 0) {
        rc = add_placeholders(c, MPE_STATE, p->user_stateID_count, p->known_stateID_count,
                              "MPE_state_");
    }
    if (rc == 0) {
        rc = add_placeholders(c, MPE_EVENT, p->known_solo_eventID_count,
                              p->known_solo_eventID_start, "MPE_event_");
    }
    if (rc == 0) {
        rc = add_placeholders(c, MPE_EVENT, p->user_solo_eventID_count, p->user_solo_eventID_start,
                              "MPE_event_");
    }
    c->first_extra = c->ncats;
    *out = c;
    if (rc != 0) {
        return mpe_fail(e, UINT64_MAX, "out of memory");
    }
    return 0;
}

static bool in_range(int64_t e, int64_t start, int64_t count, int64_t *j)
{
    if (e >= start && e < start + count) {
        *j = e - start;
        return true;
    }
    return false;
}

/* Which category slot and role an event type has. */
static bool classify(const clog2_conv *c, int32_t etype, uint32_t *slot, int *role)
{
    const clog2_preamble *p = &c->pre;
    const int64_t k = p->known_stateID_count, u = p->user_stateID_count;
    const int64_t ks = p->known_solo_eventID_count, us = p->user_solo_eventID_count;
    int64_t j = 0;
    if (in_range(etype, p->known_eventID_start, 2 * k, &j)) {
        *slot = (uint32_t)(1 + j / 2);
        *role = (int)(j % 2);
        return true;
    }
    if (in_range(etype, p->user_eventID_start, 2 * u, &j)) {
        *slot = (uint32_t)(1 + k + j / 2);
        *role = (int)(j % 2);
        return true;
    }
    if (in_range(etype, p->known_solo_eventID_start, ks, &j)) {
        *slot = (uint32_t)(1 + k + u + j);
        *role = ROLE_SOLO;
        return true;
    }
    if (in_range(etype, p->user_solo_eventID_start, us, &j)) {
        *slot = (uint32_t)(1 + k + u + ks + j);
        *role = ROLE_SOLO;
        return true;
    }
    uint32_t v = 0;
    if (mpe_map_get(&c->extra, (uint64_t)(int64_t)etype, 0, &v)) {
        *slot = v >> 2;
        *role = (int)(v & 3u);
        return true;
    }
    return false;
}

static int define(clog2_conv *c, uint32_t slot, const clog2_record *rec)
{
    mpe_category *cat = &c->cats[slot];
    if (cat->defined) {
        return 0; /* the same EVENTDEF can come once per communicator */
    }
    char *name = malloc(strlen(rec->name) + 1);
    if (name == NULL) {
        return -1;
    }
    memcpy(name, rec->name, strlen(rec->name) + 1);
    free(cat->name);
    cat->name = name;
    cat->rgba = mpe_colour_rgba(rec->color);
    mpe_fmt_free(&cat->fmt);
    if (mpe_fmt_parse(&cat->fmt, rec->format) != 0) {
        return -1;
    }
    cat->defined = true;
    return 0;
}

static int define_extra(clog2_conv *c, mpe_kind kind, const clog2_record *rec)
{
    const uint32_t slot = c->ncats;
    if (add_category(c, kind, rec->name) != 0) {
        return -1;
    }
    if (kind == MPE_STATE) {
        if (mpe_map_put(&c->extra, (uint64_t)(int64_t)rec->etype, 0, slot << 2 | ROLE_START) ||
            mpe_map_put(&c->extra, (uint64_t)(int64_t)rec->b, 0, slot << 2 | ROLE_FINAL)) {
            return -1;
        }
    } else if (mpe_map_put(&c->extra, (uint64_t)(int64_t)rec->etype, 0, slot << 2 | ROLE_SOLO) !=
               0) {
        return -1;
    }
    return define(c, slot, rec);
}

int clog2_conv_learn(clog2_conv *c, const clog2_record *rec, mpe_err *e)
{
    uint32_t slot = 0;
    int role = 0;
    int rc = 0;
    switch (rec->rectype) {
    case CLOG2_STATEDEF:
        if (classify(c, rec->etype, &slot, &role)) {
            rc = role == ROLE_START ? define(c, slot, rec) : 0;
        } else {
            rc = define_extra(c, MPE_STATE, rec);
        }
        break;
    case CLOG2_EVENTDEF:
        if (classify(c, rec->etype, &slot, &role)) {
            rc = role == ROLE_SOLO ? define(c, slot, rec) : 0;
        } else {
            rc = define_extra(c, MPE_EVENT, rec);
        }
        break;
    case CLOG2_COMMEVT:
        /* body: a = LID created, b = rank in it, c = world rank; etype 10 = freed */
        if (rec->etype != 10 && rec->a >= 0 && rec->b >= 0 && rec->c >= 0) {
            rc = mpe_map_put(&c->wrank, (uint64_t)rec->a, (uint64_t)rec->b, (uint32_t)rec->c);
        }
        break;
    default:
        break;
    }
    return rc == 0 ? 0 : mpe_fail(e, rec->offset, "out of memory");
}

static int line_of(const clog2_conv *c, const clog2_record *rec, uint32_t *line, mpe_err *e)
{
    const int64_t w = c->pre.world_size, t = c->pre.thread_count;
    if (rec->icomm < 0 || rec->rank < 0 || rec->rank >= w || rec->thread < 0 || rec->thread >= t) {
        return mpe_fail(e, rec->offset + 8,
                        "record line out of range (icomm=%d rank=%d thread=%d, %lld ranks, "
                        "%lld threads)",
                        rec->icomm, rec->rank, rec->thread, (long long)w, (long long)t);
    }
    const int64_t id = (int64_t)rec->icomm * w * t + (int64_t)rec->rank * t + rec->thread;
    if (id > (int64_t)UINT32_MAX - 1) {
        return mpe_fail(e, rec->offset + 8, "record line ID %lld out of range", (long long)id);
    }
    *line = (uint32_t)id;
    return 0;
}

static line_rec *line_get(clog2_conv *c, uint32_t id)
{
    uint32_t ix = 0;
    if (mpe_map_get(&c->lines, id, 0, &ix)) {
        return &c->line_v[ix];
    }
    if (shared_grow(&c->line_v, &c->caplines, c->nlines + 1, sizeof *c->line_v) != 0 ||
        mpe_map_put(&c->lines, id, 0, (uint32_t)c->nlines) != 0) {
        return NULL;
    }
    line_rec *l = &c->line_v[c->nlines++];
    memset(l, 0, sizeof *l);
    return l;
}

static int
state_start(clog2_conv *c, const clog2_record *rec, uint32_t slot, uint32_t line, mpe_err *e)
{
    line_rec *l = line_get(c, line);
    if (l == NULL || shared_grow(&l->open, &l->cap, l->n + 1, sizeof *l->open) != 0) {
        return mpe_fail(e, rec->offset, "out of memory");
    }
    open_state *s = &l->open[l->n];
    s->cat = slot;
    s->depth = (uint32_t)l->n;
    s->start = rec->time;
    s->info_len = 0;
    if (rec->cargo != NULL) {
        memcpy(s->info, rec->cargo, CLOG2_CARGO_SIZE);
        s->info_len = CLOG2_CARGO_SIZE;
    }
    l->n++;
    return 0;
}

static int state_final(clog2_conv *c,
                       const clog2_record *rec,
                       uint32_t slot,
                       uint32_t line,
                       const sink *out,
                       mpe_err *e)
{
    line_rec *l = line_get(c, line);
    if (l == NULL) {
        return mpe_fail(e, rec->offset, "out of memory");
    }
    size_t i = 0;
    while (i < l->n && l->open[i].cat != slot) {
        i++;
    }
    if (i == l->n) {
        c->st.unmatched_finals++;
        return 0;
    }
    open_state s = l->open[i];
    memmove(&l->open[i], &l->open[i + 1], (l->n - i - 1) * sizeof *l->open);
    l->n--;
    if (rec->cargo != NULL) {
        memcpy(s.info, rec->cargo, CLOG2_CARGO_SIZE);
        s.info_len = CLOG2_CARGO_SIZE;
    }
    const mpe_drawable d = {MPE_STATE,  slot,
                            line,       line,
                            s.start,    rec->time < s.start ? s.start : rec->time,
                            s.depth,    s.info_len > 0 ? s.info : NULL,
                            s.info_len, rec->offset};
    c->st.states++;
    c->cats[slot].count++;
    return out->emit(out->user, &d);
}

static int
solo_event(clog2_conv *c, const clog2_record *rec, uint32_t slot, uint32_t line, const sink *out)
{
    const mpe_drawable d = {MPE_EVENT,  slot,       line,
                            line,       rec->time,  rec->time,
                            0,          rec->cargo, rec->cargo != NULL ? CLOG2_CARGO_SIZE : 0u,
                            rec->offset};
    c->st.events++;
    c->cats[slot].count++;
    return out->emit(out->user, &d);
}

static msg_queue *queue_get(clog2_conv *c, int32_t tag, uint64_t pair)
{
    uint32_t ix = 0;
    if (mpe_map_get(&c->msgq, (uint64_t)(uint32_t)tag, pair, &ix)) {
        return &c->q[ix];
    }
    if (shared_grow(&c->q, &c->capq, c->nq + 1, sizeof *c->q) != 0 ||
        mpe_map_put(&c->msgq, (uint64_t)(uint32_t)tag, pair, (uint32_t)c->nq) != 0) {
        return NULL;
    }
    msg_queue *q = &c->q[c->nq++];
    memset(q, 0, sizeof *q);
    return q;
}

static int queue_push(msg_queue *q, int side, const pending_msg *m)
{
    if (q->n == 0) {
        q->head = 0;
        q->side = side;
    } else if (q->head > 0 && q->head + q->n == q->cap) {
        memmove(q->v, q->v + q->head, q->n * sizeof *q->v);
        q->head = 0;
    }
    if (shared_grow(&q->v, &q->cap, q->head + q->n + 1, sizeof *q->v) != 0) {
        return -1;
    }
    q->v[q->head + q->n] = *m;
    q->n++;
    return 0;
}

static int
message(clog2_conv *c, const clog2_record *rec, uint32_t line, const sink *out, mpe_err *e)
{
    if (rec->etype != CLOG2_SEND && rec->etype != CLOG2_RECV) {
        return mpe_fail(e, rec->offset + CLOG2_HEADER_SIZE,
                        "message record with event type %d (expected -101 or -102)", rec->etype);
    }
    if (rec->a < 0 || rec->b < 0 || rec->b >= c->pre.world_size) {
        return mpe_fail(e, rec->offset + CLOG2_HEADER_SIZE + 4,
                        "message partner out of range (icomm=%d rank=%d)", rec->a, rec->b);
    }
    const int64_t w = c->pre.world_size;
    const uint64_t own = (uint64_t)((int64_t)rec->icomm * w + rec->rank);
    const uint64_t other = (uint64_t)((int64_t)rec->a * w + rec->b);
    const bool send = rec->etype == CLOG2_SEND;
    const uint64_t pair = send ? (own << 32 | other) : (other << 32 | own);
    msg_queue *q = queue_get(c, rec->c, pair);
    if (q == NULL) {
        return mpe_fail(e, rec->offset, "out of memory");
    }
    const pending_msg m = {rec->time, line, rec->d};
    if (q->n == 0 || q->side == rec->etype) {
        return queue_push(q, rec->etype, &m) == 0 ? 0 : mpe_fail(e, rec->offset, "out of memory");
    }
    const pending_msg o = q->v[q->head];
    q->head++;
    q->n--;
    const pending_msg *s = send ? &m : &o;
    const pending_msg *r = send ? &o : &m;
    unsigned char info[8];
    const uint32_t tag = (uint32_t)rec->c, size = (uint32_t)s->size;
    for (int i = 0; i < 4; i++) {
        info[i] = (unsigned char)(tag >> (24 - 8 * i));
        info[4 + i] = (unsigned char)(size >> (24 - 8 * i));
    }
    double end = r->time;
    if (end < s->time) {
        c->st.arrows_backwards++;
        end = s->time;
    }
    const mpe_drawable d = {MPE_ARROW, 0, s->line, r->line, s->time, end, 0, info, 8, rec->offset};
    c->st.arrows++;
    c->cats[0].count++;
    return out->emit(out->user, &d);
}

int clog2_conv_feed(
    clog2_conv *c, const clog2_record *rec, mpe_emit_fn emit, void *user, mpe_err *e)
{
    uint32_t line = 0, slot = 0;
    int role = 0;
    const sink out = {emit, user};
    switch (rec->rectype) {
    case CLOG2_BAREEVT:
    case CLOG2_CARGOEVT:
        if (line_of(c, rec, &line, e) != 0) {
            return -1;
        }
        if (!classify(c, rec->etype, &slot, &role)) {
            return mpe_fail(e, rec->offset + CLOG2_HEADER_SIZE,
                            "event type %d is in no ID range of the preamble and has no "
                            "definition",
                            rec->etype);
        }
        if (role == ROLE_START) {
            return state_start(c, rec, slot, line, e);
        }
        if (role == ROLE_FINAL) {
            return state_final(c, rec, slot, line, &out, e);
        }
        return solo_event(c, rec, slot, line, &out);
    case CLOG2_MSGEVT:
        if (line_of(c, rec, &line, e) != 0) {
            return -1;
        }
        return message(c, rec, line, &out, e);
    case CLOG2_STATEDEF:
    case CLOG2_EVENTDEF:
    case CLOG2_COMMEVT:
        return 0; /* learnt in pass 1 */
    default:
        c->st.ignored++;
        return 0;
    }
}

void clog2_conv_stats_get(const clog2_conv *c, clog2_conv_stats *out)
{
    *out = c->st;
    for (size_t i = 0; i < c->nlines; i++) {
        out->unmatched_starts += c->line_v[i].n;
    }
    for (size_t i = 0; i < c->nq; i++) {
        out->unmatched_msgs += c->q[i].n;
    }
}

uint32_t clog2_conv_ncategories(const clog2_conv *c)
{
    return c->ncats;
}

const mpe_category *clog2_conv_category(const clog2_conv *c, uint32_t slot)
{
    return slot < c->ncats ? &c->cats[slot] : NULL;
}

uint32_t clog2_conv_threads(const clog2_conv *c)
{
    return (uint32_t)c->pre.thread_count;
}

void clog2_conv_line(const clog2_conv *c, uint32_t line_id, mpe_line *out)
{
    const uint32_t w = (uint32_t)c->pre.world_size, t = (uint32_t)c->pre.thread_count;
    out->line_id = line_id;
    out->comm = (int32_t)(line_id / (w * t));
    out->comm_rank = (int32_t)((line_id / t) % w);
    out->thread = (int32_t)(line_id % t);
    uint32_t wr = 0;
    if (mpe_map_get(&c->wrank, (uint64_t)out->comm, (uint64_t)out->comm_rank, &wr)) {
        out->world_rank = (int32_t)wr;
    } else {
        out->world_rank = out->comm == 0 ? out->comm_rank : -1;
    }
}

void clog2_conv_destroy(clog2_conv *c)
{
    if (c == NULL) {
        return;
    }
    for (uint32_t i = 0; i < c->ncats; i++) {
        free(c->cats[i].name);
        mpe_fmt_free(&c->cats[i].fmt);
    }
    free(c->cats);
    for (size_t i = 0; i < c->nlines; i++) {
        free(c->line_v[i].open);
    }
    free(c->line_v);
    for (size_t i = 0; i < c->nq; i++) {
        free(c->q[i].v);
    }
    free(c->q);
    mpe_map_free(&c->extra);
    mpe_map_free(&c->wrank);
    mpe_map_free(&c->lines);
    mpe_map_free(&c->msgq);
    free(c);
}
