/* SPDX-License-Identifier: MIT
 *
 * fuzz_node_decode.c - libFuzzer target for the node blob decoders: the
 * geometry blob (versions 1 and 2), the args blob attached to a decoded
 * geometry (format 2) and the preview blob.  Byte 0 picks the decoder:
 * odd = preview (versions 1 and 2, with time bins); 0 mod 4 = geometry alone; 2 mod 4 = bytes 1-2 give the
 * geometry blob's length L (little-endian u16, clamped), then L bytes of
 * geometry, then the args blob.  Decoders must reject or accept without
 * reading or writing out of bounds, a rejected args blob must leave the
 * geometry as it was, and an accepted blob's items must be consistent.
 */
#include "node_format.h"
#include "preview.h"
#include "util_alloc.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char heap[] = "key\0value\0path\0";

static uint8_t *copy(const uint8_t *p, size_t n)
{
    uint8_t *const raw = util_malloc(n + 1);
    if (raw != NULL && n > 0) {
        memcpy(raw, p, n);
    }
    return raw;
}

static void check_items(const fmt_decoded *d)
{
    for (uint64_t i = 0; i < d->n[0]; i++) {
        if (d->states[i].end < d->states[i].start) {
            __builtin_trap();
        }
        for (uint32_t a = 0; a < d->states[i].nargs; a++) {
            (void)strlen(d->states[i].args[a].key);
        }
    }
    for (uint64_t i = 0; i < d->n[1]; i++) {
        for (uint32_t a = 0; a < d->events[i].nargs; a++) {
            (void)strlen(d->events[i].args[a].key);
        }
    }
}

/* Geometry, then (when args is not NULL) the args blob attached to it. */
static void decode_node(const uint8_t *geo, size_t ng, const uint8_t *args, size_t na)
{
    const fmt_strings fs = {heap, sizeof heap};
    uint64_t bad = 0;
    uint8_t *const raw = copy(geo, ng);
    fmt_decoded d;
    if (raw == NULL || fmt_node_decode(raw, ng, &fs, &d, &bad) != SLOG_OK) {
        util_free(raw);
        return;
    }
    if (args != NULL && !d.args_attached) {
        uint8_t *const araw = copy(args, na);
        if (araw != NULL && fmt_args_attach(&d, araw, na, &fs, &bad) != SLOG_OK) {
            util_free(araw);
            for (uint64_t i = 0; i < d.n[0]; i++) {
                if (d.states[i].nargs != 0 || d.args_attached) {
                    __builtin_trap(); /* a rejected args blob leaves no args behind */
                }
            }
        }
    }
    check_items(&d);
    fmt_decoded_free(&d);
}

/* A preview blob (versions 1 and 2): an accepted one's time bins lie in
 * their span, ascending within a key, with bounds that are int64 ticks. */
static void decode_preview(const uint8_t *p, size_t n)
{
    pv_list l;
    uint64_t bad = 0;
    pv_bins bins;
    if (pv_decode_binned(p, n, &l, &bins, &bad) != SLOG_OK) {
        return;
    }
    for (uint64_t c = 0; c < bins.n; c++) {
        const pv_entry *const e = &bins.cells[c];
        if (bins.k > 62 || e->bin > (INT64_MAX >> bins.k) - 1 || e->bin < -(INT64_MAX >> bins.k)) {
            __builtin_trap();
        }
        if (c > 0 && e[-1].kind == e->kind && e[-1].row == e->row && e[-1].cat == e->cat &&
            e[-1].row_to == e->row_to && e[-1].bin >= e->bin) {
            __builtin_trap();
        }
    }
    util_free(l.v);
    util_free(bins.cells);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    const size_t n = size - 1;
    if (data[0] & 1) {
        decode_preview(data + 1, n);
        return 0;
    }
    if ((data[0] & 2) == 0 || n < 2) {
        decode_node(data + 1, n, NULL, 0);
        return 0;
    }
    size_t ng = (size_t)data[1] | (size_t)data[2] << 8;
    ng = ng > n - 2 ? n - 2 : ng;
    decode_node(data + 3, ng, data + 3 + ng, n - 2 - ng);
    return 0;
}
