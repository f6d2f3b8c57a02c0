/* SPDX-License-Identifier: MIT
 *
 * fuzz_mpe_decode.c - libFuzzer target for the MPE decoders of slog-import:
 * byte 0 picks the format (even: CLOG2, odd: SLOG-2), the rest is the file.
 * Both passes run over the bytes as slog-import runs them (learn + convert,
 * scan + emit).  Any outcome but a crash, a hang or a leak is fine; emitted
 * drawables must have end >= start.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clog2_decode.h"
#include "slog2_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct mem_src {
    const uint8_t *p;
    size_t len, at;
} mem_src;

static long mem_read(void *user, void *buf, size_t n)
{
    mem_src *m = user;
    const size_t k = n < m->len - m->at ? n : m->len - m->at;
    memcpy(buf, m->p + m->at, k);
    m->at += k;
    return (long)k;
}

static int check_drawable(void *user, const mpe_drawable *d)
{
    (void)user;
    if (d->end < d->start) {
        abort();
    }
    return 0;
}

static void run_clog2(const uint8_t *p, size_t n)
{
    mpe_err e;
    clog2_conv *conv = NULL;
    int rc = 0;
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        mem_src m = {p, n, 0};
        mpe_in in = {mem_read, NULL, &m, 0};
        clog2_reader *r = NULL;
        clog2_record rec;
        rc = clog2_reader_open(&r, &in, &e);
        if (rc == 0 && pass == 0) {
            rc = clog2_conv_create(&conv, clog2_reader_preamble(r), &e);
        }
        while (rc == 0 && (rc = clog2_reader_next(r, &rec, &e)) == 0) {
            rc = pass == 0 ? clog2_conv_learn(conv, &rec, &e)
                           : clog2_conv_feed(conv, &rec, check_drawable, NULL, &e);
        }
        rc = rc == 1 ? 0 : rc;
        clog2_reader_destroy(r);
    }
    clog2_conv_destroy(conv);
}

static void run_slog2(const uint8_t *p, size_t n)
{
    mpe_err e;
    slog2_file *f = NULL;
    mem_src m = {p, n, 0};
    mpe_in in = {mem_read, NULL, &m, 0};
    if (slog2_file_scan(&f, &in, &e) == 0) {
        mem_src m2 = {p, n, 0};
        mpe_in in2 = {mem_read, NULL, &m2, 0};
        (void)slog2_file_emit(f, &in2, check_drawable, NULL, &e);
    }
    slog2_file_destroy(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    if ((data[0] & 1u) == 0) {
        run_clog2(data + 1, size - 1);
    } else {
        run_slog2(data + 1, size - 1);
    }
    return 0;
}
