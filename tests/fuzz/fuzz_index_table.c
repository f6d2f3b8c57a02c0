/* SPDX-License-Identifier: MIT
 *
 * fuzz_index_table.c - libFuzzer target for the input table of an index
 * file (node_format_index.c, doc/FORMAT.md §13): ix_decode accepts or
 * rejects any bytes without reading or writing out of bounds; an accepted
 * table's every input has its map and roots inside the table, and encoding
 * it again gives the same bytes.  Seeds: the tables of small indexes (with
 * and without the self-contained heaps array), with their CRC fixed.
 */
#include "node_format_index.h"
#include "util_alloc.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_table(const ix_table *t)
{
    for (uint32_t i = 0; i < t->h.ninputs; i++) {
        const ix_input *const in = &t->inputs[i];
        const uint64_t n = (uint64_t)in->ntimelines + in->ncategories;
        if (n > 0 && t->map[in->map_first + n - 1] == 0xdeadbeefu + 1u) {
            (void)0; /* reads the last entry: ASan checks the range */
        }
        if (in->nroots > 0 && t->roots[in->roots_first + in->nroots - 1] == 1) {
            (void)0;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ix_table t;
    const char *what = NULL;
    const int rc = ix_decode(data, size, &t, &what);
    if (rc > 0 && what == NULL) {
        __builtin_trap(); /* a rejection says why */
    }
    if (rc != 0) {
        return 0;
    }
    check_table(&t);
    uint8_t *again = NULL;
    size_t n = 0;
    if (ix_encode(&t, &again, &n) == 0) {
        if (n != size || memcmp(again, data, size) != 0) {
            __builtin_trap(); /* decode then encode is the identity */
        }
        util_free(again);
    }
    ix_free(&t);
    return 0;
}
