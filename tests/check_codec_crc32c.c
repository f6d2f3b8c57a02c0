/* SPDX-License-Identifier: MIT
 *
 * check_codec_crc32c.c - CRC32C against published check values (RFC 3720
 * B.4 and the "123456789" check), the hardware and table versions agreeing
 * on every length and alignment, and incremental use giving the one-shot
 * value.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "codec_crc32c.h"

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static uint8_t rng_byte(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint8_t)(rng_state >> 32);
}

START_TEST(test_codec_crc32c_check_values)
{
    ck_assert_uint_eq(codec_crc32c(0, "123456789", 9), 0xE3069283u);
    ck_assert_uint_eq(codec_crc32c_sw(0, "123456789", 9), 0xE3069283u);
    ck_assert_uint_eq(codec_crc32c(0, NULL, 0), 0);
    uint8_t buf[32];
    memset(buf, 0, sizeof buf);
    ck_assert_uint_eq(codec_crc32c(0, buf, 32), 0x8A9136AAu); /* RFC 3720 B.4: 32 zeros */
    memset(buf, 0xff, sizeof buf);
    ck_assert_uint_eq(codec_crc32c(0, buf, 32), 0x62A8AB43u); /* 32 bytes of 0xFF */
    for (int i = 0; i < 32; i++) {
        buf[i] = (uint8_t)i;
    }
    ck_assert_uint_eq(codec_crc32c(0, buf, 32), 0x46DD794Eu); /* 0, 1, ..., 31 */
}
END_TEST

START_TEST(test_codec_crc32c_hw_and_table_agree)
{
    enum { N = 4096 };
    uint8_t *const buf = malloc(N + 8);
    ck_assert_ptr_nonnull(buf);
    for (size_t i = 0; i < N + 8; i++) {
        buf[i] = rng_byte();
    }
    for (size_t align = 0; align < 8; align++) {
        for (size_t n = 0; n < 300; n++) {
            ck_assert_uint_eq(codec_crc32c(7, buf + align, n), codec_crc32c_sw(7, buf + align, n));
        }
        ck_assert_uint_eq(codec_crc32c(0, buf + align, N), codec_crc32c_sw(0, buf + align, N));
    }
    free(buf);
}
END_TEST

START_TEST(test_codec_crc32c_incremental_equals_one_shot)
{
    uint8_t buf[1000];
    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = rng_byte();
    }
    const uint32_t whole = codec_crc32c(0, buf, sizeof buf);
    for (size_t cut = 0; cut <= sizeof buf; cut += 37) {
        const uint32_t a = codec_crc32c(0, buf, cut);
        ck_assert_uint_eq(codec_crc32c(a, buf + cut, sizeof buf - cut), whole);
    }
    buf[500] ^= 1;
    ck_assert_uint_ne(codec_crc32c(0, buf, sizeof buf), whole);
}
END_TEST

int main(void)
{
    Suite *const s = suite_create("codec_crc32c");
    TCase *const tc = tcase_create("core");
    tcase_add_test(tc, test_codec_crc32c_check_values);
    tcase_add_test(tc, test_codec_crc32c_hw_and_table_agree);
    tcase_add_test(tc, test_codec_crc32c_incremental_equals_one_shot);
    suite_add_tcase(s, tc);
    SRunner *const sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
