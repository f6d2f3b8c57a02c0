/* SPDX-License-Identifier: MIT
 *
 * perfetto_stream.c - a Trace read as a stream: the outer message is a run
 * of fields, each TracePacket a length-delimited field 1, so packets are
 * cut from a sliding buffer one at a time and memory stays at the largest
 * packet (at most PF_MAX_PACKET), whatever the file's size.  Other outer
 * fields are skipped by wire type and counted.  A packet cut short by the
 * end of the input is counted and reported; broken framing (a bad tag, an
 * impossible length) is reported with its offset and the reader looks for
 * the next byte from which a whole packet parses and is followed by another
 * packet tag or the end, within PF_RESYNC_LIMIT bytes; beyond that the
 * import ends with the error.
 * Import library, perfetto folder: public libslog headers, libc.
 */
#include <stdlib.h>
#include <string.h>

#include "perfetto.h"

#define PF_MAX_PACKET (256u << 20)
#define PF_RESYNC_LIMIT (64u << 20)
#define PF_RESYNC_PACKET (1u << 20)
#define READ_CHUNK (1u << 20)
#define PACKET_TAG 0x0a

typedef struct stream {
    pf_read_fn read;
    void *user;
    uint8_t *buf;
    size_t start, fill, cap;
    uint64_t base;  /* file offset of buf[0] */
    bool eof;
} stream;

/* Room for at least n bytes from start and one read chunk after fill. */
static int make_room(pf_importer *pf, stream *s, size_t n)
{
    if (s->start > 0 && (s->start >= s->cap / 2 || s->fill == s->cap)) {
        memmove(s->buf, s->buf + s->start, s->fill - s->start);
        s->base += s->start;
        s->fill -= s->start;
        s->start = 0;
    }
    if (s->cap - s->fill >= READ_CHUNK && s->cap >= n) {
        return PF_OK;
    }
    size_t cap = s->cap ? s->cap : (size_t)READ_CHUNK * 2;
    while (cap < s->fill + READ_CHUNK || cap < n) {
        cap *= 2;
    }
    uint8_t *b = realloc(s->buf, cap);
    if (b == NULL) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (packet buffer)");
    }
    s->buf = b;
    s->cap = cap;
    return PF_OK;
}

static int read_more(pf_importer *pf, stream *s)
{
    const long got = s->read(s->user, s->buf + s->fill, s->cap - s->fill);
    if (got < 0) {
        const char *why = pf->hooks.read_error ? pf->hooks.read_error(pf->hooks.user) : NULL;
        return pf_fail(pf, SLOG_EIO, s->base + s->fill, "Cannot read: %s",
                       why ? why : "read error");
    }
    s->eof = got == 0;
    s->fill += (size_t)got;
    if (pf->hooks.progress != NULL) {
        pf->hooks.progress(pf->hooks.user, s->base + s->fill);
    }
    return PF_OK;
}

/* Make at least n bytes available from start; *have false at the end. */
static int need(pf_importer *pf, stream *s, size_t n, bool *have)
{
    *have = false;
    while (s->fill - s->start < n && !s->eof) {
        if (make_room(pf, s, n) != PF_OK || read_more(pf, s) != PF_OK) {
            return PF_FATAL;
        }
    }
    *have = s->fill - s->start >= n;
    return PF_OK;
}

/* A varint at buf[start + at]: PB_OK, PB_ETRUNC (input ended) or PB_EVARINT. */
static int peek_varint(pf_importer *pf, stream *s, size_t at, uint64_t *v, size_t *len, int *fatal)
{
    bool have = false;
    *fatal = need(pf, s, at + 10, &have);
    *len = 0;
    if (*fatal != PF_OK || s->fill - s->start <= at) {
        return PB_ETRUNC;
    }
    const uint8_t *p = s->buf + s->start + at;
    const uint8_t *end = s->buf + s->fill;
    const int rc = pb_varint(&p, end, v);
    *len = (size_t)(p - (s->buf + s->start + at));
    return rc;
}

static int truncated(pf_importer *pf, stream *s, bool *done)
{
    pf_count(pf, K_PACKET_TRUNCATED, 1);
    if (pf->first_damage == UINT64_MAX) {
        pf->first_damage = s->base + s->start;
    }
    pf_warn(pf, s->base + s->start,
            "packet cut short by the end of the input (%llu bytes left); skipped",
            (unsigned long long)(s->fill - s->start));
    s->start = s->fill;
    *done = true;
    return PF_OK;
}

/* Is there a whole, parsable packet at buf[start] followed by a packet tag
 * or the end?  (resynchronisation) */
static int candidate(pf_importer *pf, stream *s, bool *found)
{
    *found = false;
    uint64_t len = 0;
    size_t ll = 0;
    int fatal = PF_OK;
    if (s->buf[s->start] != PACKET_TAG) {
        return PF_OK;
    }
    const int rc = peek_varint(pf, s, 1, &len, &ll, &fatal);
    if (fatal != PF_OK || rc != PB_OK || len == 0 || len > PF_RESYNC_PACKET) {
        return fatal;
    }
    bool have = false;
    const size_t total = 1 + ll + (size_t)len;
    if (need(pf, s, total + 1, &have) != PF_OK) {
        return PF_FATAL;
    }
    if (s->fill - s->start < total) {
        return PF_OK;
    }
    const bool next_ok = s->fill - s->start == total || s->buf[s->start + total] == PACKET_TAG;
    *found = next_ok && pf_packet_plausible(s->buf + s->start + 1 + ll, (size_t)len);
    return PF_OK;
}

static int resync(pf_importer *pf, stream *s, const char *what, bool *done)
{
    const uint64_t bad = s->base + s->start;
    pf_warn(pf, bad, "%s; looking for the next packet", what);
    if (pf->first_damage == UINT64_MAX) {
        pf->first_damage = bad;
    }
    uint64_t skipped = 0;
    while (skipped < PF_RESYNC_LIMIT) {
        bool have = false, found = false;
        s->start++;
        skipped++;
        if (need(pf, s, 1, &have) != PF_OK) {
            return PF_FATAL;
        }
        found = false;
        if (have && candidate(pf, s, &found) != PF_OK) {
            return PF_FATAL;
        }
        if (!have || found) {
            pf_count(pf, K_RESYNC_BYTES, skipped);
            *done = !have;
            return PF_OK;
        }
    }
    return pf_fail(pf, SLOG_EPARSE, bad,
                   "%s, and no packet follows within %u MiB (expected tag 0x0a of a TracePacket)",
                   what, PF_RESYNC_LIMIT >> 20);
}

/* Skip an outer field that is not a packet (wire type known good). */
static int other_field(pf_importer *pf, stream *s, unsigned wire, size_t tl, bool *done)
{
    static const size_t fixed[8] = {0, 8, 0, 0, 0, 4, 0, 0};
    uint64_t v = 0;
    size_t vl = fixed[wire];
    int fatal = PF_OK;
    if (wire == PB_WIRE_VARINT && peek_varint(pf, s, tl, &v, &vl, &fatal) != PB_OK) {
        return fatal != PF_OK ? fatal : truncated(pf, s, done);
    }
    bool have = false;
    if (need(pf, s, tl + vl, &have) != PF_OK) {
        return PF_FATAL;
    }
    if (!have) {
        return truncated(pf, s, done);
    }
    pf_count(pf, K_TRACE_FIELD, 1);
    s->start += tl + vl;
    return PF_OK;
}

static int packet_at(pf_importer *pf, stream *s, uint32_t num, size_t tl, bool *done)
{
    uint64_t len = 0;
    size_t ll = 0;
    int fatal = PF_OK;
    const int rc = peek_varint(pf, s, tl, &len, &ll, &fatal);
    if (fatal != PF_OK || rc == PB_ETRUNC) {
        return fatal != PF_OK ? fatal : truncated(pf, s, done);
    }
    if (rc != PB_OK || len > PF_MAX_PACKET) {
        return resync(pf, s, "impossible packet length", done);
    }
    bool have = false;
    if (need(pf, s, tl + ll + (size_t)len, &have) != PF_OK) {
        return PF_FATAL;
    }
    if (!have) {
        return truncated(pf, s, done);
    }
    const uint64_t at = s->base + s->start;
    const uint8_t *data = s->buf + s->start + tl + ll;
    s->start += tl + ll + (size_t)len;
    if (num != 1) {
        pf_count(pf, K_TRACE_FIELD, 1);
        return PF_OK;
    }
    const int st = pf_packet(pf, data, (size_t)len, at + tl + ll);
    if (st == PF_DAMAGED) {
        pf_count(pf, K_PACKET_DAMAGED, 1);
        pf_warn(pf, at, "damaged TracePacket of %llu bytes skipped", (unsigned long long)len);
    }
    return st == PF_FATAL ? PF_FATAL : PF_OK;
}

static int one_field(pf_importer *pf, stream *s, bool *done)
{
    uint64_t tag = 0;
    size_t tl = 0;
    int fatal = PF_OK;
    const int rc = peek_varint(pf, s, 0, &tag, &tl, &fatal);
    if (fatal != PF_OK) {
        return fatal;
    }
    if (s->fill == s->start) {
        *done = true;
        return PF_OK;
    }
    if (rc == PB_ETRUNC) {
        return truncated(pf, s, done);
    }
    const uint64_t num = tag >> 3;
    const unsigned wire = (unsigned)(tag & 7u);
    if (rc != PB_OK || num == 0 || num > PB_MAX_FIELD ||
        (wire != PB_WIRE_VARINT && wire != PB_WIRE_I64 && wire != PB_WIRE_LEN &&
         wire != PB_WIRE_I32)) {
        return resync(pf, s, "broken field tag in the Trace", done);
    }
    return wire == PB_WIRE_LEN ? packet_at(pf, s, (uint32_t)num, tl, done)
                               : other_field(pf, s, wire, tl, done);
}

int pf_stream_run(pf_importer *pf, pf_read_fn read, void *user)
{
    stream s;
    memset(&s, 0, sizeof s);
    s.read = read;
    s.user = user;
    bool done = false;
    int rc = PF_OK;
    while (rc == PF_OK && !done) {
        rc = one_field(pf, &s, &done);
    }
    free(s.buf);
    return rc;
}
