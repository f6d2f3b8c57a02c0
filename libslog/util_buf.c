/* SPDX-License-Identifier: MIT
 *
 * util_buf.c - growable byte buffer.
 * Layer 0: libc only.
 */
#include "util_buf.h"

#include "util_alloc.h"

#include <string.h>

int util_buf_reserve(util_buf *b, size_t n)
{
    if (b->cap - b->len >= n) {
        return 0;
    }
    void *p = b->data;
    size_t cap = b->cap;
    if (util_grow(&p, &cap, b->len + n, 1) != 0) {
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

int util_buf_append_grow(util_buf *b, const void *src, size_t n)
{
    if (util_buf_reserve(b, n) != 0) {
        return -1;
    }
    if (n > 0) {
        memcpy(b->data + b->len, src, n);
    }
    b->len += n;
    return 0;
}

void util_buf_free(util_buf *b)
{
    util_free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}
