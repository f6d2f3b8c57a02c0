/* SPDX-License-Identifier: MIT
 *
 * fuzz_chrome_import.c - libFuzzer target for slog-import's Chrome / .pfw
 * pipeline (parser with its repairs, reorder windows, phase mapping) run
 * without libslog through tests/chrome_harness.c.  Byte 0 picks the mode
 * (bits 0-1: auto, document, JSON-lines) and the chunk size the input is
 * fed in (bits 2-7: 1..64 bytes, or all at once), so token and UTF-8
 * boundaries fall everywhere.  Must hold: no crash, leak or hang; success
 * or a clean failure with a message; every drawable that reaches the
 * output is valid (the recorder rejects end < start and unknown ids, which
 * fails the import, so a valid-looking success means valid drawables).
 * Differential: the same input is imported with the scanner fast path off
 * (SLOG_IMPORT_NO_FAST_SCAN) and on; drawables, warnings, counts and the failure
 * message must be identical.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_text(const char *a, const char *b)
{
    return (a == NULL || b == NULL) ? a == b : strcmp(a, b) == 0;
}

static bool same_result(const harness *a, const harness *b)
{
    if (a->nitems != b->nitems || a->ntl != b->ntl || a->ncat != b->ncat ||
        a->warnings != b->warnings || a->nwhat != b->nwhat ||
        strcmp(a->fail_message, b->fail_message) != 0 || a->fail_line != b->fail_line ||
        a->fail_col != b->fail_col || memcmp(a->count, b->count, sizeof a->count) != 0 ||
        memcmp(a->n, b->n, sizeof a->n) != 0) {
        return false;
    }
    for (size_t i = 0; i < a->nitems; i++) {
        const h_item *x = &a->items[i], *y = &b->items[i];
        if (x->kind != y->kind || x->timeline != y->timeline || x->to != y->to ||
            x->category != y->category || x->depth != y->depth || x->start != y->start ||
            x->end != y->end || memcmp(&x->value, &y->value, sizeof x->value) != 0 ||
            !same_text(x->args, y->args)) {
            return false;
        }
    }
    for (size_t i = 0; i < a->ncat; i++) {
        if (!same_text(a->cat[i].name, b->cat[i].name) ||
            !same_text(a->cat[i].group, b->cat[i].group)) {
            return false;
        }
    }
    for (size_t i = 0; i < a->ntl; i++) {
        if (!same_text(a->tl[i].name, b->tl[i].name) || a->tl[i].parent != b->tl[i].parent) {
            return false;
        }
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    static const chrome_mode modes[4] = {CHROME_MODE_AUTO, CHROME_MODE_JSON, CHROME_MODE_LINES,
                                         CHROME_MODE_AUTO};
    const chrome_mode mode = modes[data[0] & 3u];
    const size_t chunk = (size_t)(data[0] >> 2); /* 0 = all at once */
    harness h[2];
    int rc[2];
    for (int fast = 0; fast < 2; fast++) {
        harness_init(&h[fast], 64, true); /* a small window: late records are exercised too */
        h[fast].no_fast_scan = !fast;
        rc[fast] = harness_import_bytes(&h[fast], data + 1, size - 1, chunk, mode);
        if (rc[fast] != 0 && h[fast].fail_message[0] == '\0') {
            abort(); /* a failure must say why */
        }
    }
    if (!same_result(&h[0], &h[1]) || rc[0] != rc[1]) {
        abort(); /* the fast path changed something */
    }
    harness_free(&h[0]);
    harness_free(&h[1]);
    return 0;
}
