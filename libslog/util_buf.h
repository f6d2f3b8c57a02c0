/* SPDX-License-Identifier: MIT
 *
 * util_buf.h - growable byte buffer used to assemble encoded blobs.
 * Layer 0: libc only (varint helpers live in codec_varint.h).
 */
#ifndef UTIL_BUF_H
#define UTIL_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct util_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} util_buf;

/* Make room for n more bytes; 0 ok, -1 out of memory. */
int util_buf_reserve(util_buf *b, size_t n);
/* Append n bytes; 0 ok, -1 out of memory.  Inline while they fit: the
 * writer's args encoder appends a few bytes at a time. */
int util_buf_append_grow(util_buf *b, const void *src, size_t n);
static inline int util_buf_append(util_buf *b, const void *src, size_t n)
{
    if (n > 0 && b->cap - b->len >= n) {
        memcpy(b->data + b->len, src, n);
        b->len += n;
        return 0;
    }
    return util_buf_append_grow(b, src, n);
}
void util_buf_free(util_buf *b);

#endif /* UTIL_BUF_H */
