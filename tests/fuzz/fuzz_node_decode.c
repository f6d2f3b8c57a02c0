/* SPDX-License-Identifier: MIT
 *
 * fuzz_node_decode.c - libFuzzer target for the two node blob decoders
 * (drawables and preview).  The first input byte picks the decoder; the
 * rest is the blob.  Decoders must reject or accept without reading or
 * writing out of bounds, and an accepted blob's items must be consistent.
 */
#include "node_format.h"
#include "preview.h"
#include "util_alloc.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char heap[] = "key\0value\0path\0";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    const int which = data[0] & 1;
    const size_t n = size - 1;
    uint64_t bad = 0;
    if (which == 0) {
        uint8_t *const raw = util_malloc(n);
        if (raw == NULL) {
            return 0;
        }
        memcpy(raw, data + 1, n);
        const fmt_strings fs = {heap, sizeof heap};
        fmt_decoded d;
        if (fmt_node_decode(raw, n, &fs, &d, &bad) != SLOG_OK) {
            util_free(raw);
            return 0;
        }
        for (uint64_t i = 0; i < d.n[0]; i++) {
            if (d.states[i].end < d.states[i].start) {
                __builtin_trap();
            }
            for (uint32_t a = 0; a < d.states[i].nargs; a++) {
                (void)strlen(d.states[i].args[a].key);
            }
        }
        fmt_decoded_free(&d);
        return 0;
    }
    pv_entry *v = NULL;
    uint64_t count = 0;
    uint32_t fold = 0;
    if (pv_decode(data + 1, n, &v, &count, &fold, &bad) == SLOG_OK) {
        util_free(v);
    }
    return 0;
}
