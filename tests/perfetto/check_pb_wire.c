/* SPDX-License-Identifier: MIT
 *
 * check_pb_wire.c - Check suite of the Perfetto importer's wire-format reader
 * (libslog/import/perfetto/pb_wire.c): every wire type read back from bytes
 * written by the independent test encoder (pb_encode.c), varint limits,
 * zig-zag, packed and unpacked repeated fields, and every kind of damage
 * (truncated value, overlong varint, bad wire type, field 0, nesting too
 * deep) rejected with its code and the file offset of the broken field.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "pb_encode.h"
#include "pb_wire.h"

/* Read every field of e's bytes (file offset 1000) into fields[]. */
static int read_all(const pbe *e, pb_field *fields, size_t max, size_t *n, pb_reader *r)
{
    pb_reader_init(r, e->data, e->len, 1000);
    *n = 0;
    int rc;
    while (*n < max && (rc = pb_next(r, &fields[*n])) == PB_OK) {
        (*n)++;
    }
    return *n == max ? PB_OK : rc;
}

START_TEST(test_pb_wire_reads_every_wire_type)
{
    pbe e = {0};
    pbe_uint(&e, 1, 150);
    pbe_int(&e, 2, -2);
    pbe_sint(&e, 3, -3);
    pbe_fixed64(&e, 4, 0x0102030405060708u);
    pbe_fixed32(&e, 5, 0xdeadbeefu);
    pbe_double(&e, 6, 2.5);
    pbe_string(&e, 536870911, "hi");
    pb_field f[8];
    size_t n;
    pb_reader r;
    ck_assert_int_eq(read_all(&e, f, 8, &n, &r), PB_END);
    ck_assert_uint_eq(n, 7);
    ck_assert_uint_eq(f[0].num, 1);
    ck_assert_uint_eq(f[0].value, 150);
    ck_assert_uint_eq(f[0].offset, 1000);
    ck_assert_int_eq((int64_t)f[1].value, -2);
    ck_assert_int_eq(pb_zigzag(f[2].value), -3);
    ck_assert_int_eq(f[3].wire, PB_WIRE_I64);
    ck_assert_uint_eq(f[3].value, 0x0102030405060708u);
    ck_assert_uint_eq(f[4].value, 0xdeadbeefu);
    ck_assert(pb_double(f[5].value) == 2.5);
    ck_assert_uint_eq(f[6].num, 536870911u);
    ck_assert_uint_eq(f[6].len, 2);
    ck_assert(memcmp(f[6].data, "hi", 2) == 0);
    pbe_free(&e);
}
END_TEST

START_TEST(test_pb_wire_varint_limits)
{
    static const uint8_t max64[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    static const uint8_t over64[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    static const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    static const uint8_t cut[] = {0x80, 0x80};
    uint64_t v = 0;
    const uint8_t *p = max64;
    ck_assert_int_eq(pb_varint(&p, max64 + sizeof max64, &v), PB_OK);
    ck_assert_uint_eq(v, UINT64_MAX);
    ck_assert_ptr_eq(p, max64 + sizeof max64);
    p = over64;
    ck_assert_int_eq(pb_varint(&p, over64 + sizeof over64, &v), PB_EVARINT);
    p = eleven;
    ck_assert_int_eq(pb_varint(&p, eleven + sizeof eleven, &v), PB_EVARINT);
    p = cut;
    ck_assert_int_eq(pb_varint(&p, cut + sizeof cut, &v), PB_ETRUNC);
    ck_assert_ptr_eq(p, cut);
    ck_assert_int_eq(pb_zigzag(1), -1);
    ck_assert_int_eq(pb_zigzag(UINT64_MAX), INT64_MIN);
    ck_assert_int_eq(pb_zigzag(UINT64_MAX - 1), INT64_MAX);
}
END_TEST

START_TEST(test_pb_wire_nested_messages_and_depth)
{
    pbe e = {0};
    size_t marks[PB_MAX_DEPTH + 2];
    for (unsigned i = 0; i < PB_MAX_DEPTH + 2; i++) {
        marks[i] = pbe_open(&e, 1);
    }
    pbe_uint(&e, 2, 7);
    for (unsigned i = PB_MAX_DEPTH + 2; i-- > 0;) {
        pbe_close(&e, marks[i]);
    }
    pb_reader r[PB_MAX_DEPTH + 2];
    pb_field f;
    pb_reader_init(&r[0], e.data, e.len, 0);
    unsigned depth = 0;
    int rc = PB_OK;
    while (rc == PB_OK && pb_next(&r[depth], &f) == PB_OK && f.num == 1) {
        rc = pb_sub(&r[depth], &f, &r[depth + 1]);
        if (rc == PB_OK) {
            depth++;
        }
    }
    ck_assert_int_eq(rc, PB_EDEPTH);
    ck_assert_uint_eq(depth, PB_MAX_DEPTH);
    ck_assert_int_eq(r[depth].error, PB_EDEPTH);
    ck_assert_uint_eq(r[depth].error_field, 1);
    ck_assert_uint_eq(r[depth].error_offset, f.offset);
    pbe_free(&e);
}
END_TEST

START_TEST(test_pb_wire_packed_and_unpacked)
{
    pbe e = {0};
    const size_t m = pbe_open(&e, 1);
    pbe_varint(&e, 1);
    pbe_varint(&e, 300);
    pbe_varint(&e, UINT64_MAX);
    pbe_close(&e, m);
    pbe_uint(&e, 1, 42);
    const size_t m2 = pbe_open(&e, 2);
    for (uint32_t i = 0; i < 3; i++) {
        const uint8_t le[8] = {(uint8_t)(i + 1), 0, 0, 0, 0, 0, 0, 0};
        pbe_raw(&e, le, 8);
    }
    pbe_close(&e, m2);
    pb_field f[3];
    size_t n;
    pb_reader r;
    ck_assert_int_eq(read_all(&e, f, 3, &n, &r), PB_OK);
    pb_packed it;
    uint64_t v, sum = 0, count = 0;
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(pb_packed_init(&it, &f[i], PB_WIRE_VARINT), PB_OK);
        while (pb_packed_next(&it, &v) == PB_OK) {
            sum += v;
            count++;
        }
    }
    ck_assert_uint_eq(count, 4);
    ck_assert_uint_eq(sum, 1 + 300 + 42 + UINT64_MAX);
    ck_assert_int_eq(pb_packed_init(&it, &f[2], PB_WIRE_I64), PB_OK);
    sum = 0;
    while (pb_packed_next(&it, &v) == PB_OK) {
        sum += v;
    }
    ck_assert_uint_eq(sum, 6);
    ck_assert_int_eq(pb_packed_init(&it, &f[1], PB_WIRE_I64), PB_ETYPE);
    pbe_free(&e);
}
END_TEST

/* Damage cases: bytes, the error expected and the offset of the field. */
typedef struct bad_case {
    const char *name;
    uint8_t bytes[16];
    size_t len;
    int code;
    uint64_t offset;
    uint32_t field;
} bad_case;

static const bad_case bad_cases[] = {
    {"LEN past the end", {0x08, 0x01, 0x12, 0x05, 'a', 'b'}, 6, PB_ETRUNC, 1002, 2},
    {"fixed64 cut", {0x09, 1, 2, 3}, 4, PB_ETRUNC, 1000, 1},
    {"fixed32 cut", {0x08, 0x00, 0x0d, 1, 2, 3}, 6, PB_ETRUNC, 1002, 1},
    {"varint value cut", {0x08, 0x80}, 2, PB_ETRUNC, 1000, 1},
    {"tag cut", {0x08, 0x01, 0x80}, 3, PB_ETRUNC, 1002, 0},
    {"group start", {0x0b, 0x00}, 2, PB_EWIRE, 1000, 1},
    {"wire type 7", {0x08, 0x01, 0x0f}, 3, PB_EWIRE, 1002, 1},
    {"field 0", {0x00, 0x01}, 2, PB_EFIELD, 1000, 0},
    {"field above 2^29-1", {0x80, 0x80, 0x80, 0x80, 0x20, 0x00}, 6, PB_EFIELD, 1000, 0},
    {"overlong length", {0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, 11,
     PB_EVARINT, 1000, 2},
};

START_TEST(test_pb_wire_rejects_damage_with_offset)
{
    const bad_case *c = &bad_cases[_i];
    pb_reader r;
    pb_reader_init(&r, c->bytes, c->len, 1000);
    pb_field f;
    int rc;
    while ((rc = pb_next(&r, &f)) == PB_OK) {
    }
    ck_assert_msg(rc == c->code, "%s: code %d, want %d", c->name, rc, c->code);
    ck_assert_msg(r.error_offset == c->offset, "%s: offset %llu", c->name,
                  (unsigned long long)r.error_offset);
    ck_assert_msg(r.error_field == c->field, "%s: field %u", c->name, r.error_field);
    ck_assert_int_eq(pb_next(&r, &f), c->code); /* the error sticks */
    ck_assert_ptr_nonnull(pb_status_text(rc));
}
END_TEST

START_TEST(test_pb_wire_sub_of_scalar_is_type_error)
{
    pbe e = {0};
    pbe_uint(&e, 3, 1);
    pb_reader r, sub;
    pb_field f;
    pb_reader_init(&r, e.data, e.len, 0);
    ck_assert_int_eq(pb_next(&r, &f), PB_OK);
    ck_assert_int_eq(pb_sub(&r, &f, &sub), PB_ETYPE);
    ck_assert_uint_eq(r.error_field, 3);
    pbe_free(&e);
}
END_TEST

START_TEST(test_pb_wire_empty_message_ends)
{
    pb_reader r;
    pb_field f;
    pb_reader_init(&r, (const uint8_t *)"", 0, 5);
    ck_assert_int_eq(pb_next(&r, &f), PB_END);
}
END_TEST

static Suite *wire_suite(void)
{
    Suite *s = suite_create("pb_wire");
    TCase *tc = tcase_create("wire");
    tcase_add_test(tc, test_pb_wire_reads_every_wire_type);
    tcase_add_test(tc, test_pb_wire_varint_limits);
    tcase_add_test(tc, test_pb_wire_nested_messages_and_depth);
    tcase_add_test(tc, test_pb_wire_packed_and_unpacked);
    tcase_add_loop_test(tc, test_pb_wire_rejects_damage_with_offset, 0,
                        (int)(sizeof bad_cases / sizeof bad_cases[0]));
    tcase_add_test(tc, test_pb_wire_sub_of_scalar_is_type_error);
    tcase_add_test(tc, test_pb_wire_empty_message_ends);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(wire_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
