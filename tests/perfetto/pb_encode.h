/* SPDX-License-Identifier: MIT
 *
 * pb_encode.h - a small protocol buffers wire-format encoder for the tests
 * of the Perfetto importer: crafted traces (nested slices, interning,
 * flows, counters, debug annotations, compact_sched, damaged packets) and
 * the benchmark's large trace are written with it.  Test-only: it is the
 * mirror of libslog/import/perfetto/pb_wire.h, written independently of it.
 * Nested messages: pbe_open() returns a mark, pbe_close(mark) writes the
 * length in front of what was appended since.  Out of memory sets `failed`.
 */
#ifndef PB_ENCODE_H
#define PB_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pbe {
    uint8_t *data;
    size_t len, cap;
    bool failed;
} pbe;

void pbe_raw(pbe *e, const void *bytes, size_t n);
void pbe_varint(pbe *e, uint64_t v);
void pbe_tag(pbe *e, uint32_t field, unsigned wire);
void pbe_uint(pbe *e, uint32_t field, uint64_t v);   /* varint */
void pbe_int(pbe *e, uint32_t field, int64_t v);     /* int64: two's complement varint */
void pbe_sint(pbe *e, uint32_t field, int64_t v);    /* sint64: zig-zag varint */
void pbe_fixed64(pbe *e, uint32_t field, uint64_t v);
void pbe_fixed32(pbe *e, uint32_t field, uint32_t v);
void pbe_double(pbe *e, uint32_t field, double v);
void pbe_bytes(pbe *e, uint32_t field, const void *p, size_t n);
void pbe_string(pbe *e, uint32_t field, const char *s);
/* Start a LEN field (sub-message or packed run); returns its mark. */
size_t pbe_open(pbe *e, uint32_t field);
void pbe_close(pbe *e, size_t mark);
void pbe_free(pbe *e);
/* Write the bytes to path; 0 ok, -1 failed. */
int pbe_save(const pbe *e, const char *path);

#endif /* PB_ENCODE_H */
