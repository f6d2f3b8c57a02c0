/* SPDX-License-Identifier: MIT
 *
 * check_codec_lz4.c - round trips and hostile inputs for the 32004 chunk
 * codec.  Corrupt inputs live at the very end of exactly-sized heap buffers,
 * so an out-of-bounds read shows up under ASan.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "codec_lz4.h"

/* Deterministic pseudo-random bytes. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void fill_random(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (unsigned char)rng_next();
    }
}

/* Trace-like data: 16-byte records of small ids and small deltas. */
static void fill_compressible(unsigned char *p, size_t n)
{
    memset(p, 0, n);
    for (size_t i = 0; i + 16 <= n; i += 16) {
        const uint32_t rec[4] = {(uint32_t)(rng_next() % 4), (uint32_t)(rng_next() % 8),
                                 (uint32_t)(rng_next() % 256), 0};
        memcpy(p + i, rec, 16);
    }
}

static unsigned char *
encode_alloc(const void *src, size_t n, uint32_t block, int level, size_t *out_n)
{
    const size_t cap = codec_lz4_bound(n, block);
    ck_assert_uint_gt(cap, 0);
    unsigned char *const enc = malloc(cap);
    ck_assert_ptr_nonnull(enc);
    *out_n = codec_lz4_encode(src, n, enc, cap, block, level);
    ck_assert_uint_gt(*out_n, 0);
    ck_assert_uint_le(*out_n, cap);
    return enc;
}

static void round_trip(const unsigned char *src, size_t n, uint32_t block, int level, size_t *enc_n)
{
    size_t en = 0;
    unsigned char *const enc = encode_alloc(src, n, block, level, &en);
    ck_assert_uint_eq(codec_lz4_decoded_size(enc, en), n);
    unsigned char *const dec = malloc(n + 1);
    ck_assert_ptr_nonnull(dec);
    ck_assert_uint_eq(codec_lz4_decode(enc, en, dec, n), n);
    ck_assert_int_eq(memcmp(src, dec, n), 0);
    if (enc_n != NULL) {
        *enc_n = en;
    }
    free(dec);
    free(enc);
}

START_TEST(test_codec_lz4_round_trip_compressible)
{
    const size_t n = 65536;
    unsigned char *const src = malloc(n);
    fill_compressible(src, n);
    size_t en = 0;
    round_trip(src, n, 65536, 1, &en);
    ck_assert_uint_lt(en, n / 2);
    free(src);
}
END_TEST

START_TEST(test_codec_lz4_round_trip_hc_levels)
{
    const size_t n = 40000;
    unsigned char *const src = malloc(n);
    fill_compressible(src, n);
    static const int levels[] = {-5, 0, 1, 2, 9, 12, 99};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        round_trip(src, n, 65536, levels[i], NULL);
    }
    free(src);
}
END_TEST

START_TEST(test_codec_lz4_incompressible_stored_raw)
{
    const size_t n = 10000;
    unsigned char *const src = malloc(n);
    fill_random(src, n);
    size_t en = 0;
    unsigned char *const enc = encode_alloc(src, n, 4096, 1, &en);
    /* 3 blocks, each stored raw: 12 + 3 * 4 + n. */
    ck_assert_uint_eq(en, 12 + 3 * 4 + n);
    ck_assert_uint_eq(en, codec_lz4_bound(n, 4096));
    /* First block prefix announces its raw size, big-endian. */
    ck_assert_uint_eq(enc[12], 0);
    ck_assert_uint_eq(enc[13], 0);
    ck_assert_uint_eq(enc[14], 0x10);
    ck_assert_uint_eq(enc[15], 0);
    free(enc);
    round_trip(src, n, 4096, 1, NULL);
    round_trip(src, n, 4096, 9, NULL);
    free(src);
}
END_TEST

START_TEST(test_codec_lz4_store_level_is_raw)
{
    const size_t n = 8192;
    unsigned char *const src = malloc(n);
    fill_compressible(src, n);
    size_t en = 0;
    unsigned char *const enc = encode_alloc(src, n, 4096, CODEC_LZ4_STORE, &en);
    ck_assert_uint_eq(en, codec_lz4_bound(n, 4096)); /* compressible, yet stored raw */
    ck_assert_int_eq(memcmp(enc + 16, src, 4096), 0);
    free(enc);
    round_trip(src, n, 4096, CODEC_LZ4_STORE, NULL);
    free(src);
}
END_TEST

/* Encode one chunk of `content` bytes from src, zero-padded to `chunk`,
 * through the gate the way a writer does, check that it decodes to the
 * same bytes, and return the content block's level: 1 (LZ4 tried) or
 * CODEC_LZ4_STORE (stored raw without trying). */
static int gate_chunk(codec_lz4_gate *g, const unsigned char *src, size_t content, size_t chunk)
{
    unsigned char *const buf = calloc(chunk, 1);
    memcpy(buf, src, content);
    const size_t cap = codec_lz4_bound(chunk, (uint32_t)chunk);
    unsigned char *const enc = malloc(cap);
    const uint32_t skip_before = g->skip;
    const size_t en = codec_lz4_encode_chunk(buf, content, chunk, enc, cap, g);
    ck_assert_uint_gt(en, 0);
    unsigned char *const dec = malloc(chunk);
    ck_assert_uint_eq(codec_lz4_decode(enc, en, dec, chunk), chunk);
    ck_assert_int_eq(memcmp(dec, buf, chunk), 0);
    const size_t block = codec_lz4_padded_block(content, chunk);
    const uint32_t c = (uint32_t)enc[12] << 24 | (uint32_t)enc[13] << 16 |
                       (uint32_t)enc[14] << 8 | enc[15];
    /* stored raw with the gate skipping: the skip count went down */
    const int skipped = c == block && g->skip + 1 == skip_before;
    free(dec);
    free(enc);
    free(buf);
    return skipped ? CODEC_LZ4_STORE : 1;
}

START_TEST(test_codec_lz4_gate_skips_incompressible_then_retries)
{
    const size_t chunk = 16384;
    unsigned char *const src = malloc(chunk);
    fill_random(src, chunk);
    codec_lz4_gate g = {1, 1, 0};
    ck_assert_int_eq(gate_chunk(&g, src, chunk, chunk), 1); /* tried: did not shrink */
    ck_assert_uint_eq(g.skip, CODEC_LZ4_GATE_SKIP);
    for (int i = 0; i < CODEC_LZ4_GATE_SKIP; i++) {
        ck_assert_int_eq(gate_chunk(&g, src, chunk, chunk), CODEC_LZ4_STORE);
    }
    ck_assert_uint_eq(g.skip, 0);
    /* a short blob that fills its content block (at least chunk/4): gated too */
    g.skip = 2;
    ck_assert_int_eq(gate_chunk(&g, src, 3900, chunk), CODEC_LZ4_STORE);
    ck_assert_uint_eq(g.skip, 1);
    /* a content block mostly padding (the n/4 floor) is always tried,
     * and does not count as one of the skipped */
    ck_assert_int_eq(gate_chunk(&g, src, 100, chunk), 1);
    ck_assert_uint_eq(g.skip, 1);
    ck_assert_int_eq(gate_chunk(&g, src, chunk, chunk), CODEC_LZ4_STORE);
    ck_assert_int_eq(gate_chunk(&g, src, chunk, chunk), 1); /* tried again */
    ck_assert_uint_eq(g.skip, CODEC_LZ4_GATE_SKIP);
    codec_lz4_gate fixed = {1, 0, 0}; /* not adaptive: always tries */
    ck_assert_int_eq(gate_chunk(&fixed, src, chunk, chunk), 1);
    ck_assert_int_eq(gate_chunk(&fixed, src, chunk, chunk), 1);
    ck_assert_uint_eq(fixed.skip, 0);
    free(src);
}
END_TEST

START_TEST(test_codec_lz4_gate_keeps_compressing_what_shrinks)
{
    const size_t chunk = 16384;
    unsigned char *const src = malloc(chunk);
    codec_lz4_gate g = {1, 1, 0};
    for (int i = 0; i < 40; i++) {
        fill_compressible(src, chunk);
        ck_assert_int_eq(gate_chunk(&g, src, chunk - (size_t)i * 300, chunk), 1);
        ck_assert_uint_eq(g.skip, 0);
    }
    /* random after compressible: skipped from the next chunk on */
    fill_random(src, chunk);
    ck_assert_int_eq(gate_chunk(&g, src, chunk, chunk), 1);
    ck_assert_int_eq(gate_chunk(&g, src, chunk, chunk), CODEC_LZ4_STORE);
    free(src);
}
END_TEST

/* Padded chunks: every content length and chunk size decodes to the
 * content then zeros, the padding costs a few bytes per block, and LZ4
 * reads only the content block. */
START_TEST(test_codec_lz4_padded_chunks_round_trip)
{
    static const size_t chunks[] = {512, 4096, 65536, 100000};
    unsigned char *const src = malloc(100000);
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        const size_t n = chunks[k];
        for (size_t content = 0; content <= n; content += content < 600 ? 1 : 977) {
            memset(src, 0, n);
            fill_random(src, content);
            codec_lz4_gate g = {1, 1, 0};
            ck_assert_int_eq(gate_chunk(&g, src, content, n), 1);
            const size_t b = codec_lz4_padded_block(content, n);
            ck_assert_uint_ge(b, content);
            ck_assert(b == n || (b % 256 == 0 && b >= n / 4));
        }
    }
    /* the padding of a short blob: a few hundred bytes, not 64 KiB */
    memset(src, 0, 65536);
    fill_compressible(src, 2000);
    codec_lz4_gate g = {1, 1, 0};
    const size_t cap = codec_lz4_bound(65536, 65536);
    unsigned char *const enc = malloc(cap);
    const size_t en = codec_lz4_encode_chunk(src, 2000, 65536, enc, cap, &g);
    ck_assert_uint_lt(en, 2000 + 16 * 20);
    free(enc);
    free(src);
}
END_TEST

START_TEST(test_codec_lz4_header_is_big_endian)
{
    unsigned char src[300];
    memset(src, 'a', sizeof src);
    size_t en = 0;
    unsigned char *const enc = encode_alloc(src, sizeof src, 65536, 1, &en);
    static const unsigned char want[12] = {0, 0, 0, 0, 0, 0, 0x01, 0x2c, 0, 0, 0x01, 0x2c};
    ck_assert_int_eq(memcmp(enc, want, 12), 0);
    free(enc);
}
END_TEST

START_TEST(test_codec_lz4_multiple_blocks_with_short_last)
{
    const size_t n = 3 * 1000 + 17;
    unsigned char *const src = malloc(n);
    fill_compressible(src, n);
    memset(src + 1000, 0, 1000); /* one very compressible block among others */
    round_trip(src, n, 1000, 1, NULL);
    round_trip(src, n, 1, 1, NULL); /* one byte per block */
    round_trip(src, n, 3, 2, NULL);
    free(src);
}
END_TEST

START_TEST(test_codec_lz4_empty_input)
{
    unsigned char enc[12];
    ck_assert_uint_eq(codec_lz4_bound(0, 65536), 12);
    ck_assert_uint_eq(codec_lz4_encode("", 0, enc, sizeof enc, 65536, 1), 12);
    ck_assert_uint_eq(codec_lz4_decoded_size(enc, 12), 0);
    unsigned char dst[1];
    ck_assert_uint_eq(codec_lz4_decode(enc, 12, dst, 0), 0);
    ck_assert_uint_eq(codec_lz4_decode(enc, 12, NULL, 0), 0);
}
END_TEST

START_TEST(test_codec_lz4_encode_rejects_small_capacity)
{
    unsigned char src[100] = {0};
    unsigned char dst[200];
    const size_t bound = codec_lz4_bound(sizeof src, 64);
    ck_assert_uint_eq(codec_lz4_encode(src, sizeof src, dst, bound - 1, 64, 1), 0);
    ck_assert_uint_eq(codec_lz4_encode(src, sizeof src, dst, sizeof dst, 0, 1), 0);
    ck_assert_uint_eq(codec_lz4_bound(sizeof src, 0), 0);
}
END_TEST

/* Copy data into a heap buffer of exactly n bytes and decode it. */
static size_t decode_exact(const unsigned char *data, size_t n, size_t cap)
{
    unsigned char *const in = malloc(n == 0 ? 1 : n);
    unsigned char *const out = malloc(cap == 0 ? 1 : cap);
    memcpy(in, data, n);
    const size_t r = codec_lz4_decode(in, n, out, cap);
    free(out);
    free(in);
    return r;
}

START_TEST(test_codec_lz4_corrupt_truncated_header)
{
    unsigned char src[1000];
    fill_compressible(src, sizeof src);
    size_t en = 0;
    unsigned char *const enc = encode_alloc(src, sizeof src, 256, 1, &en);
    for (size_t cut = 0; cut < 12; cut++) {
        ck_assert_uint_eq(codec_lz4_decoded_size(enc, cut), 0);
        ck_assert_uint_eq(decode_exact(enc, cut, sizeof src), SIZE_MAX);
    }
    /* Every truncation inside the blocks fails too. */
    for (size_t cut = 12; cut < en; cut++) {
        ck_assert_uint_eq(decode_exact(enc, cut, sizeof src), SIZE_MAX);
    }
    ck_assert_uint_eq(decode_exact(enc, en, sizeof src), sizeof src);
    free(enc);
}
END_TEST

START_TEST(test_codec_lz4_corrupt_block_size_lies)
{
    unsigned char src[1000];
    fill_compressible(src, sizeof src);
    size_t en = 0;
    unsigned char *const enc = encode_alloc(src, sizeof src, 256, 1, &en);
    unsigned char *const bad = malloc(en);
    static const uint32_t lies[] = {0, 1, 255, 257, 512, 1000, 0xffffffffu};
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        memcpy(bad, enc, en);
        bad[8] = (unsigned char)(lies[i] >> 24);
        bad[9] = (unsigned char)(lies[i] >> 16);
        bad[10] = (unsigned char)(lies[i] >> 8);
        bad[11] = (unsigned char)lies[i];
        ck_assert_uint_eq(decode_exact(bad, en, sizeof src), SIZE_MAX);
    }
    free(bad);
    free(enc);
}
END_TEST

START_TEST(test_codec_lz4_corrupt_original_size_lies)
{
    unsigned char src[1000];
    fill_compressible(src, sizeof src);
    size_t en = 0;
    unsigned char *const enc = encode_alloc(src, sizeof src, 256, 1, &en);
    unsigned char *const bad = malloc(en);
    static const uint64_t lies[] = {1, 999, 1001, 4096, UINT64_MAX};
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        memcpy(bad, enc, en);
        for (int k = 0; k < 8; k++) {
            bad[k] = (unsigned char)(lies[i] >> (56 - 8 * k));
        }
        ck_assert_uint_eq(decode_exact(bad, en, 8192), SIZE_MAX);
    }
    /* Destination too small for the announced size. */
    ck_assert_uint_eq(decode_exact(enc, en, sizeof src - 1), SIZE_MAX);
    free(bad);
    free(enc);
}
END_TEST

START_TEST(test_codec_lz4_corrupt_compressed_size_past_end)
{
    unsigned char src[1000];
    fill_compressible(src, sizeof src);
    size_t en = 0;
    unsigned char *const enc = encode_alloc(src, sizeof src, 256, 1, &en);
    unsigned char *const bad = malloc(en);
    static const uint32_t lies[] = {0, 1, 100000, 0x7fffffffu, 0xffffffffu};
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        memcpy(bad, enc, en);
        bad[12] = (unsigned char)(lies[i] >> 24);
        bad[13] = (unsigned char)(lies[i] >> 16);
        bad[14] = (unsigned char)(lies[i] >> 8);
        bad[15] = (unsigned char)lies[i];
        ck_assert_uint_eq(decode_exact(bad, en, sizeof src), SIZE_MAX);
    }
    free(bad);
    free(enc);
}
END_TEST

START_TEST(test_codec_lz4_corrupt_trailing_bytes)
{
    unsigned char src[500];
    fill_compressible(src, sizeof src);
    size_t en = 0;
    unsigned char *const enc = encode_alloc(src, sizeof src, 256, 1, &en);
    unsigned char *const longer = calloc(1, en + 1);
    memcpy(longer, enc, en);
    ck_assert_uint_eq(decode_exact(longer, en + 1, sizeof src), SIZE_MAX);
    free(longer);
    free(enc);
}
END_TEST

START_TEST(test_codec_lz4_corrupt_random_bytes_never_crash)
{
    unsigned char src[2048];
    fill_compressible(src, sizeof src);
    size_t en = 0;
    unsigned char *const enc = encode_alloc(src, sizeof src, 512, 1, &en);
    unsigned char *const bad = malloc(en);
    for (int round = 0; round < 2000; round++) {
        memcpy(bad, enc, en);
        const int flips = 1 + (int)(rng_next() % 4);
        for (int f = 0; f < flips; f++) {
            bad[rng_next() % en] ^= (unsigned char)(1u + rng_next() % 255);
        }
        const size_t r = decode_exact(bad, en, sizeof src);
        ck_assert(r == SIZE_MAX || r <= sizeof src);
    }
    free(bad);
    free(enc);
}
END_TEST

static Suite *codec_lz4_suite(void)
{
    Suite *const s = suite_create("codec_lz4");
    struct {
        const char *name;
        const TTest *fn;
    } tests[] = {
        {"round_trip_compressible", test_codec_lz4_round_trip_compressible},
        {"round_trip_hc_levels", test_codec_lz4_round_trip_hc_levels},
        {"incompressible_stored_raw", test_codec_lz4_incompressible_stored_raw},
        {"store_level_is_raw", test_codec_lz4_store_level_is_raw},
        {"gate_skips_incompressible_then_retries",
         test_codec_lz4_gate_skips_incompressible_then_retries},
        {"gate_keeps_compressing_what_shrinks", test_codec_lz4_gate_keeps_compressing_what_shrinks},
        {"padded_chunks_round_trip", test_codec_lz4_padded_chunks_round_trip},
        {"header_is_big_endian", test_codec_lz4_header_is_big_endian},
        {"multiple_blocks_with_short_last", test_codec_lz4_multiple_blocks_with_short_last},
        {"empty_input", test_codec_lz4_empty_input},
        {"encode_rejects_small_capacity", test_codec_lz4_encode_rejects_small_capacity},
        {"corrupt_truncated_header", test_codec_lz4_corrupt_truncated_header},
        {"corrupt_block_size_lies", test_codec_lz4_corrupt_block_size_lies},
        {"corrupt_original_size_lies", test_codec_lz4_corrupt_original_size_lies},
        {"corrupt_compressed_size_past_end", test_codec_lz4_corrupt_compressed_size_past_end},
        {"corrupt_trailing_bytes", test_codec_lz4_corrupt_trailing_bytes},
        {"corrupt_random_bytes_never_crash", test_codec_lz4_corrupt_random_bytes_never_crash},
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        TCase *const tc = tcase_create(tests[i].name);
        tcase_add_test(tc, tests[i].fn);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    SRunner *const sr = srunner_create(codec_lz4_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
