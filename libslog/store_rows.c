/* SPDX-License-Identifier: MIT
 *
 * store_rows.c - checksums of table rows (format 2, doc/FORMAT.md §11): the
 * CRC32C of a row's bytes as stored, with its own crc member taken as 0.
 * Rows are stored little-endian at the struct's offsets (store.h asserts
 * the sizes), so on the supported little-endian platforms the struct's
 * bytes are the stored bytes.  No HDF5 here.
 * Layer 2: may use codec and util.
 */
#include "codec_crc32c.h"
#include "store.h"

#include <stddef.h>

/* CRC of a row of `size` bytes whose 4-byte crc member sits at crc_off. */
static uint32_t row_crc(const void *row, size_t size, size_t crc_off)
{
    static const unsigned char zero[4] = {0, 0, 0, 0};
    const unsigned char *const p = row;
    uint32_t c = codec_crc32c(0, p, crc_off);
    c = codec_crc32c(c, zero, sizeof zero);
    return codec_crc32c(c, p + crc_off + 4, size - crc_off - 4);
}

uint32_t store_node_row_crc(const store_node_row *row)
{
    return row_crc(row, STORE_NODE_ROW_V2_BYTES, offsetof(store_node_row, row_crc));
}

uint32_t store_node_addr_crc(const store_node_row *row)
{
    const size_t from = offsetof(store_node_row, payload_addr);
    return codec_crc32c(0, (const unsigned char *)row + from,
                        offsetof(store_node_row, addr_crc) - from);
}

uint32_t store_timeline_row_crc(const store_timeline_row *row)
{
    return row_crc(row, sizeof *row, offsetof(store_timeline_row, crc));
}

uint32_t store_category_row_crc(const store_category_row *row)
{
    return row_crc(row, sizeof *row, offsetof(store_category_row, crc));
}

uint32_t store_summary_crc(const store_summary *row)
{
    return row_crc(row, sizeof *row, offsetof(store_summary, crc));
}
