/* SPDX-License-Identifier: MIT
 *
 * codec_crc32c.h - CRC32C (Castagnoli, reflected polynomial 0x82F63B78,
 * initial value and final xor 0xFFFFFFFF), the checksum of every blob and
 * table row of a format-2 file (doc/FORMAT.md §11).  "123456789" gives
 * 0xE3069283.  On x86-64 with SSE4.2 it runs on the crc32 instruction
 * (chosen once at run time with __builtin_cpu_supports), elsewhere on a
 * slicing-by-8 table.
 * Layer 1: may use util.
 */
#ifndef CODEC_CRC32C_H
#define CODEC_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC32C of p[0..n), continuing from crc (0 to start; passing the result of
 * a previous call extends it over more bytes).  p may be NULL when n is 0.
 * Thread-safe. */
uint32_t codec_crc32c(uint32_t crc, const void *p, size_t n);

/* The portable table version (the hardware one must agree with it). */
uint32_t codec_crc32c_sw(uint32_t crc, const void *p, size_t n);

/* Benchmarks only (bench/bench_crc_cost.c links the internal library to
 * measure what checksums cost): when nonzero, codec_crc32c computes nothing
 * (returns 0) and the node reader (tree_read.c) verifies no row or blob.
 * Not exported from libslog.so; the product never sets it, so it always
 * computes and verifies.  Not thread-safe: set it with no reader or writer busy. */
extern int codec_crc32c_bench_off;

/* 1 when codec_crc32c uses the hardware instruction. */
int codec_crc32c_hw(void);

#endif /* CODEC_CRC32C_H */
