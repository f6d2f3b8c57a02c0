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
 */
#include <stdint.h>
#include <stdlib.h>

#include "chrome_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    static const chrome_mode modes[4] = {CHROME_MODE_AUTO, CHROME_MODE_JSON, CHROME_MODE_LINES,
                                         CHROME_MODE_AUTO};
    const chrome_mode mode = modes[data[0] & 3u];
    const size_t chunk = (size_t)(data[0] >> 2); /* 0 = all at once */
    harness h;
    harness_init(&h, 64, false); /* a small window: late records are exercised too */
    const int rc = harness_import_bytes(&h, data + 1, size - 1, chunk, mode);
    if (rc != 0 && h.fail_message[0] == '\0') {
        abort(); /* a failure must say why */
    }
    harness_free(&h);
    return 0;
}
