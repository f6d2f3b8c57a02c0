/* SPDX-License-Identifier: MIT
 *
 * pb_wire.h - a bounds-checked reader of the protocol buffers wire format,
 * written here for Perfetto traces (no generated code, no protobuf library).
 * A pb_reader walks the fields of one message in a byte range; a
 * length-delimited field opens a sub-reader over its bytes (pb_sub), one
 * nesting level deeper, up to PB_MAX_DEPTH.  Nothing is copied: strings and
 * sub-messages point into the caller's buffer.  Every failure names the file
 * offset of the field that broke (the buffer's own offset in the file is
 * given once, at pb_reader_init).
 *
 * Wire format (per field):  tag = varint (field_number << 3 | wire_type)
 *   wire 0 VARINT  value = varint (at most 10 bytes)
 *   wire 1 I64     value = 8 bytes little-endian
 *   wire 2 LEN     length = varint, then `length` bytes
 *   wire 5 I32     value = 4 bytes little-endian
 *   wire 3/4 (groups, deprecated) and 6/7 are rejected (PB_EWIRE).
 * Import library, perfetto folder: libc only.
 */
#ifndef PB_WIRE_H
#define PB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deepest nesting accepted (the Trace message is depth 0). */
#define PB_MAX_DEPTH 32u
/* Largest field number the format allows (2^29 - 1). */
#define PB_MAX_FIELD 536870911u

typedef enum pb_wire_type {
    PB_WIRE_VARINT = 0,
    PB_WIRE_I64 = 1,
    PB_WIRE_LEN = 2,
    PB_WIRE_I32 = 5
} pb_wire_type;

/* Results of the reader: 0 ok, 1 end of message, < 0 damaged input. */
#define PB_OK 0
#define PB_END 1
#define PB_ETRUNC (-1)  /* a field runs past the end of its message */
#define PB_EVARINT (-2) /* a varint longer than 10 bytes or over 64 bits */
#define PB_EWIRE (-3)   /* wire type 3, 4, 6 or 7 */
#define PB_EFIELD (-4)  /* field number 0 or above PB_MAX_FIELD */
#define PB_EDEPTH (-5)  /* sub-messages nested deeper than PB_MAX_DEPTH */
#define PB_ETYPE (-6)   /* a field of another wire type than its schema says */

typedef struct pb_reader {
    const uint8_t *base;   /* start of the outermost buffer */
    const uint8_t *p;      /* next tag */
    const uint8_t *end;    /* end of this message */
    uint64_t base_offset;  /* file offset of base */
    unsigned depth;        /* 0 for the outermost message */
    int error;             /* last error, PB_OK if none */
    uint64_t error_offset; /* file offset of the field that failed */
    uint32_t error_field;  /* its field number, 0 if the tag itself failed */
} pb_reader;

typedef struct pb_field {
    uint32_t num;
    pb_wire_type wire;
    uint64_t value;      /* VARINT, I64 and I32 (raw bits) */
    const uint8_t *data; /* LEN: the bytes */
    size_t len;          /* LEN: their count */
    uint64_t offset;     /* file offset of the tag */
} pb_field;

/* Iterator over the elements of a repeated scalar field, packed or not. */
typedef struct pb_packed {
    const uint8_t *p, *end;
    pb_wire_type elem;
    bool single;         /* one unpacked value left in `value` */
    uint64_t value;
} pb_packed;

/* Start reading the message in data[0, len); offset = its file offset. */
void pb_reader_init(pb_reader *r, const uint8_t *data, size_t len, uint64_t offset);

/* Next field: PB_OK (filled *f), PB_END, or an error (also kept in r). */
int pb_next(pb_reader *r, pb_field *f);

/* Reader over the LEN field f of r, one level deeper: PB_OK, PB_ETYPE
 * (f is not LEN) or PB_EDEPTH (also recorded in r). */
int pb_sub(pb_reader *r, const pb_field *f, pb_reader *sub);

/* File offset of a pointer into r's buffer. */
uint64_t pb_offset_of(const pb_reader *r, const uint8_t *at);

/* Read one varint from [*pp, end): PB_OK (advances *pp), PB_ETRUNC or PB_EVARINT. */
int pb_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out);

/* Start iterating the repeated scalar field f whose elements have wire type
 * elem (VARINT, I64 or I32): a LEN field is a packed run, any other the one
 * value.  PB_OK or PB_ETYPE. */
int pb_packed_init(pb_packed *it, const pb_field *f, pb_wire_type elem);

/* Next element: PB_OK, PB_END, PB_ETRUNC or PB_EVARINT. */
int pb_packed_next(pb_packed *it, uint64_t *out);

/* One line of text for a PB_* code. */
const char *pb_status_text(int code);

static inline int64_t pb_zigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

double pb_double(uint64_t bits);
float pb_float(uint64_t bits);

#endif /* PB_WIRE_H */
