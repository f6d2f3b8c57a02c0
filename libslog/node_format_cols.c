/* SPDX-License-Identifier: MIT
 *
 * node_format_cols.c - the state columns a node writes as its states arrive
 * (see node_format_cols.h): the block's growth and the copy into the
 * geometry blob.
 * Layer 3: may use codec and util.
 */
#include "node_format_cols.h"

#include <string.h>

#include "util_alloc.h"

#define FMT_COLS_MIN_CAP 256u

void fmt_cols_init(fmt_cols *c)
{
    memset(c, 0, sizeof *c);
    fmt_cols_reset(c);
}

void fmt_cols_reset(fmt_cols *c)
{
    for (int k = 0; k < FMT_COLS_REGIONS; k++) {
        c->at[k] = c->block == NULL ? NULL : c->block + (size_t)k * c->cap;
    }
}

void fmt_cols_free(fmt_cols *c)
{
    util_free(c->block);
    memset(c, 0, sizeof *c);
}

int fmt_cols_grow(fmt_cols *c, uint64_t encoded)
{
    const uint64_t need = encoded + CODEC_VARINT_MAX + 1;
    uint64_t cap = c->cap ? c->cap : FMT_COLS_MIN_CAP;
    while (cap < need) {
        cap *= 2;
    }
    if (cap > SIZE_MAX / FMT_COLS_REGIONS) {
        return -1;
    }
    uint8_t *const block = util_malloc((size_t)cap * FMT_COLS_REGIONS);
    if (block == NULL) {
        return -1;
    }
    for (int k = 0; k < FMT_COLS_REGIONS; k++) {
        const size_t len = c->block == NULL ? 0 : fmt_cols_len(c, k);
        if (len > 0) {
            memcpy(block + (size_t)k * cap, c->block + (size_t)k * c->cap, len);
        }
        c->at[k] = block + (size_t)k * cap + len;
    }
    util_free(c->block);
    c->block = block;
    c->cap = (size_t)cap;
    return 0;
}

uint8_t *fmt_cols_copy(const fmt_cols *c, uint8_t *p)
{
    for (int k = 0; k < FMT_COLS_REGIONS && c->block != NULL; k++) {
        const size_t len = fmt_cols_len(c, k);
        memcpy(p, c->block + (size_t)k * c->cap, len);
        p += len;
    }
    return p;
}
