/* SPDX-License-Identifier: MIT
 *
 * pb_wire.c - the protocol buffers wire-format reader of pb_wire.h.  Every
 * read checks the end of the enclosing message before touching a byte, so a
 * damaged length can never lead outside the buffer; a damaged tag or varint
 * stops the message with an error that carries the file offset.  Unknown
 * fields are the caller's business: pb_next hands every well-formed field
 * over, whatever its number.
 * Import library, perfetto folder: libc only.
 */
#include "pb_wire.h"

#include <string.h>

void pb_reader_init(pb_reader *r, const uint8_t *data, size_t len, uint64_t offset)
{
    memset(r, 0, sizeof *r);
    r->base = data;
    r->p = data;
    r->end = data + len;
    r->base_offset = offset;
}

uint64_t pb_offset_of(const pb_reader *r, const uint8_t *at)
{
    return r->base_offset + (uint64_t)(at - r->base);
}

int pb_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (p >= end) {
            return PB_ETRUNC;
        }
        const uint8_t b = *p++;
        if (i == 9 && b > 1) {
            return PB_EVARINT; /* bits beyond 64 */
        }
        v |= (uint64_t)(b & 0x7fu) << (7u * i);
        if (b < 0x80u) {
            *pp = p;
            *out = v;
            return PB_OK;
        }
    }
    return PB_EVARINT;
}

static uint64_t load_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        v |= (uint64_t)p[i] << (8u * i);
    }
    return v;
}

static int fail(pb_reader *r, int code, const uint8_t *at, uint32_t field)
{
    r->error = code;
    r->error_offset = pb_offset_of(r, at);
    r->error_field = field;
    r->p = r->end; /* the rest of the message is not trusted */
    return code;
}

/* The value of field f (tag already read) at *pp. */
static int read_value(pb_reader *r, pb_field *f, const uint8_t **pp)
{
    uint64_t len = 0;
    int rc = PB_OK;
    switch (f->wire) {
    case PB_WIRE_VARINT:
        rc = pb_varint(pp, r->end, &f->value);
        break;
    case PB_WIRE_I64:
    case PB_WIRE_I32: {
        const unsigned n = f->wire == PB_WIRE_I64 ? 8u : 4u;
        if ((size_t)(r->end - *pp) < n) {
            return PB_ETRUNC;
        }
        f->value = load_le(*pp, n);
        *pp += n;
        break;
    }
    case PB_WIRE_LEN:
        rc = pb_varint(pp, r->end, &len);
        if (rc == PB_OK && len > (uint64_t)(r->end - *pp)) {
            rc = PB_ETRUNC;
        }
        if (rc == PB_OK) {
            f->data = *pp;
            f->len = (size_t)len;
            *pp += len;
        }
        break;
    default:
        rc = PB_EWIRE;
    }
    return rc;
}

int pb_next(pb_reader *r, pb_field *f)
{
    if (r->p >= r->end) {
        return r->error != PB_OK ? r->error : PB_END;
    }
    const uint8_t *at = r->p;
    const uint8_t *p = at;
    uint64_t tag = 0;
    int rc = pb_varint(&p, r->end, &tag);
    if (rc != PB_OK) {
        return fail(r, rc, at, 0);
    }
    const uint64_t num = tag >> 3;
    const unsigned wire = (unsigned)(tag & 7u);
    if (num == 0 || num > PB_MAX_FIELD) {
        return fail(r, PB_EFIELD, at, 0);
    }
    memset(f, 0, sizeof *f);
    f->num = (uint32_t)num;
    f->offset = pb_offset_of(r, at);
    if (wire != PB_WIRE_VARINT && wire != PB_WIRE_I64 && wire != PB_WIRE_LEN &&
        wire != PB_WIRE_I32) {
        return fail(r, PB_EWIRE, at, f->num);
    }
    f->wire = (pb_wire_type)wire;
    rc = read_value(r, f, &p);
    if (rc != PB_OK) {
        return fail(r, rc, at, f->num);
    }
    r->p = p;
    return PB_OK;
}

int pb_sub(pb_reader *r, const pb_field *f, pb_reader *sub)
{
    if (f->wire != PB_WIRE_LEN) {
        r->error = PB_ETYPE;
        r->error_offset = f->offset;
        r->error_field = f->num;
        return PB_ETYPE;
    }
    if (r->depth + 1 > PB_MAX_DEPTH) {
        r->error = PB_EDEPTH;
        r->error_offset = f->offset;
        r->error_field = f->num;
        return PB_EDEPTH;
    }
    memset(sub, 0, sizeof *sub);
    sub->base = r->base;
    sub->base_offset = r->base_offset;
    sub->p = f->data;
    sub->end = f->data + f->len;
    sub->depth = r->depth + 1;
    return PB_OK;
}

int pb_packed_init(pb_packed *it, const pb_field *f, pb_wire_type elem)
{
    memset(it, 0, sizeof *it);
    it->elem = elem;
    if (f->wire == PB_WIRE_LEN && elem != PB_WIRE_LEN) {
        it->p = f->data;
        it->end = f->data + f->len;
        return PB_OK;
    }
    if (f->wire != elem) {
        return PB_ETYPE;
    }
    it->single = true;
    it->value = f->value;
    return PB_OK;
}

int pb_packed_next(pb_packed *it, uint64_t *out)
{
    if (it->single) {
        it->single = false;
        *out = it->value;
        return PB_OK;
    }
    if (it->p == NULL || it->p >= it->end) {
        return PB_END;
    }
    if (it->elem == PB_WIRE_VARINT) {
        const int rc = pb_varint(&it->p, it->end, out);
        if (rc != PB_OK) {
            it->p = it->end; /* a damaged run ends here */
        }
        return rc;
    }
    const unsigned n = it->elem == PB_WIRE_I64 ? 8u : 4u;
    if ((size_t)(it->end - it->p) < n) {
        it->p = it->end;
        return PB_ETRUNC;
    }
    *out = load_le(it->p, n);
    it->p += n;
    return PB_OK;
}

const char *pb_status_text(int code)
{
    switch (code) {
    case PB_OK:
        return "ok";
    case PB_END:
        return "end of message";
    case PB_ETRUNC:
        return "field runs past the end of its message";
    case PB_EVARINT:
        return "varint longer than 10 bytes";
    case PB_EWIRE:
        return "unsupported wire type (expected 0, 1, 2 or 5)";
    case PB_EFIELD:
        return "field number 0 or above 2^29-1";
    case PB_EDEPTH:
        return "messages nested too deep";
    case PB_ETYPE:
        return "field of an unexpected wire type";
    default:
        return "unknown error";
    }
}

double pb_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

float pb_float(uint64_t bits)
{
    const uint32_t b32 = (uint32_t)bits;
    float f;
    memcpy(&f, &b32, sizeof f);
    return f;
}
