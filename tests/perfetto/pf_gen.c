/* SPDX-License-Identifier: MIT
 *
 * pf_gen.c - writes Perfetto traces with the test encoder (pf_craft.c):
 *   pf_gen slices N OUT   N slices (B/E pairs, nested 4 deep) spread over 16
 *                         threads of 2 processes, names interned per sequence
 *                         (cleared every 10^4 packets), one int and one
 *                         string debug annotation per slice, a flow every
 *                         100 slices, a counter sample every 10 slices: the
 *                         import benchmark's input (bench/perfetto_import.sh)
 *   pf_gen seeds DIR      small traces of every kind the importer maps, as
 *                         the seed corpus of fuzz_perfetto_import (byte 0 of
 *                         each file is the fuzz target's feeding mode)
 *   pf_gen walk FILE      read FILE (not gzip) and walk every field with the
 *                         wire reader alone, every LEN field as a message:
 *                         the benchmark's anchor (decoding without mapping)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_wire.h"
#include "pf_craft.h"

#define THREADS 16u
#define NAMES 64u

static void describe(pbe *e)
{
    for (uint32_t p = 0; p < 2; p++) {
        pk_track(e, 1000 + p, 0, p ? "renderer" : "browser", (int32_t)(100 + p), 0, 0, 0);
    }
    for (uint32_t t = 0; t < THREADS; t++) {
        char name[32];
        (void)snprintf(name, sizeof name, "worker %u", t);
        pk_track(e, 2000 + t, 1000 + t % 2, name, (int32_t)(100 + t % 2), (int32_t)(200 + t), 0,
                 0);
    }
    pk_track(e, 3000, 1000, "queue length", 0, 0, 1, 0);
}

/* One slice event on thread t's sequence; BEGIN carries name and args.
 * clear: this packet clears the sequence; intern: it (re)defines its name. */
static void slice_event(pbe *e, uint32_t t, uint64_t ts, int type, uint64_t n, bool clear,
                        bool intern)
{
    const uint32_t seq = 10 + t;
    const uint64_t iid = 1 + n % NAMES;
    const size_t m = pk_open(e, seq, ts);
    pbe_uint(e, PK_FLAGS, clear ? SEQ_CLEARED | SEQ_NEEDS : SEQ_NEEDS);
    if (type == T_BEGIN && (intern || n < NAMES * THREADS)) {
        char name[32];
        (void)snprintf(name, sizeof name, "function_%llu", (unsigned long long)iid);
        pk_interned(e, 2, iid, name);
    }
    const size_t te = te_open(e, type, 2000 + t, NULL);
    if (type == T_BEGIN) {
        pbe_uint(e, TE_NAME_IID, iid);
        size_t a = pbe_open(e, TE_ANNOTATIONS);
        pbe_string(e, 10, "n");
        pbe_int(e, 4, (int64_t)n);
        pbe_close(e, a);
        a = pbe_open(e, TE_ANNOTATIONS);
        pbe_string(e, 10, "phase");
        pbe_string(e, 6, n % 2 ? "odd" : "even");
        pbe_close(e, a);
        if (n % 100 == 0) {
            pbe_fixed64(e, TE_FLOW, n / 200);
        }
    }
    pbe_close(e, te);
    pbe_close(e, m);
}

static int gen_slices(uint64_t n, const char *out)
{
    FILE *f = fopen(out, "wb");
    pbe e = {0};
    if (f == NULL) {
        return 1;
    }
    describe(&e);
    uint64_t ts = 1000000;
    for (uint64_t i = 0; i < n; i += 4) {
        const uint32_t t = (uint32_t)((i / 4) % THREADS);
        const bool clear = (i / 4) % 10000 < THREADS;
        for (int d = 0; d < 4 && i + (uint64_t)d < n; d++) {
            slice_event(&e, t, ts + (uint64_t)d * 100, T_BEGIN, i + (uint64_t)d, clear && d == 0,
                        clear);
        }
        for (int d = 3; d >= 0; d--) {
            if (i + (uint64_t)d < n) {
                slice_event(&e, t, ts + 1000 - (uint64_t)d * 100, T_END, i + (uint64_t)d, false,
                            false);
            }
        }
        if (i % 40 == 0) {
            const size_t m = pk_open(&e, 9, ts);
            const size_t te = te_open(&e, T_COUNTER, 3000, NULL);
            pbe_int(&e, TE_COUNTER, (int64_t)(i % 1000));
            pbe_close(&e, te);
            pbe_close(&e, m);
        }
        ts += 1500;
        if (e.len > (1u << 24) || i + 4 >= n) {
            if (fwrite(e.data, 1, e.len, f) != e.len) {
                break;
            }
            e.len = 0;
        }
    }
    const int bad = e.failed || fclose(f) != 0;
    pbe_free(&e);
    return bad;
}

/* ---------------------------------------------------------------- seeds */

static int save(const pbe *e, const char *dir, const char *name, uint8_t mode)
{
    char path[512];
    (void)snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return 1;
    }
    const int bad = fputc(mode, f) == EOF || fwrite(e->data, 1, e->len, f) != e->len;
    return fclose(f) != 0 || bad || e->failed;
}

static void seed_legacy(pbe *e)
{
    const int phases[] = {'b', 'n', 'e', 'S', 'T', 'F', 'X', 'I', 'C', 'M', '('};
    for (size_t k = 0; k < sizeof phases / sizeof phases[0]; k++) {
        const size_t m = pk_open(e, 3, 100 + 10 * k);
        const size_t t = te_open(e, 0, 2000, "legacy");
        const size_t l = pbe_open(e, TE_LEGACY);
        pbe_uint(e, 2, (uint64_t)phases[k]);
        pbe_uint(e, 6, 5);
        pbe_uint(e, 3, 7);
        pbe_uint(e, 8, 9);
        pbe_uint(e, 13, 1 + k % 3);
        pbe_close(e, l);
        pbe_close(e, t);
        pbe_close(e, m);
    }
}

static int gen_seeds(const char *dir)
{
    pbe e = {0};
    int bad = 0;
    describe(&e);
    for (uint64_t i = 0; i < 8; i++) {
        slice_event(&e, (uint32_t)(i % 2), 1000 + 10 * i, T_BEGIN, i, i == 0, true);
    }
    for (uint64_t i = 8; i-- > 0;) {
        slice_event(&e, (uint32_t)(i % 2), 2000 - 10 * i, T_END, i, false, false);
    }
    bad |= save(&e, dir, "slices", 0);
    bad |= save(&e, dir, "slices_chunked", 3);
    e.len = 0;
    seed_legacy(&e);
    pk_switch(&e, 1, 500, "a", 1, "b", 2);
    pk_switch(&e, 1, 600, "b", 2, "swapper/1", 0);
    bad |= save(&e, dir, "legacy_sched", 0);
    e.len = 0;
    describe(&e);
    e.len -= 5; /* a cut packet */
    bad |= save(&e, dir, "cut", 1);
    pbe_free(&e);
    return bad;
}

/* ------------------------------------------------------------------ walk */

static uint64_t walk(pb_reader *r)
{
    pb_field f;
    uint64_t n = 0;
    while (pb_next(r, &f) == PB_OK) {
        pb_reader sub;
        n++;
        if (f.wire == PB_WIRE_LEN && pb_sub(r, &f, &sub) == PB_OK) {
            pb_reader probe = sub;
            pb_field g;
            int rc;
            while ((rc = pb_next(&probe, &g)) == PB_OK) {
            }
            n += rc == PB_END ? walk(&sub) : 0; /* strings and bytes are not messages */
        }
    }
    return n;
}

static int walk_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    pbe e = {0};
    uint8_t buf[1 << 16];
    size_t got;
    while (f != NULL && (got = fread(buf, 1, sizeof buf, f)) > 0) {
        pbe_raw(&e, buf, got);
    }
    if (f == NULL || fclose(f) != 0 || e.failed) {
        return 1;
    }
    pb_reader r;
    pb_reader_init(&r, e.data, e.len, 0);
    (void)printf("%llu fields\n", (unsigned long long)walk(&r));
    pbe_free(&e);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "walk") == 0) {
        return walk_file(argv[2]);
    }
    if (argc == 4 && strcmp(argv[1], "slices") == 0) {
        return gen_slices(strtoull(argv[2], NULL, 10), argv[3]);
    }
    if (argc == 3 && strcmp(argv[1], "seeds") == 0) {
        return gen_seeds(argv[2]);
    }
    (void)fprintf(stderr, "usage: pf_gen slices N OUT | seeds DIR | walk FILE\n");
    return 2;
}
