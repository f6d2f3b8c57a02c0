/* SPDX-License-Identifier: MIT
 *
 * util_intern.h - string interning for the /strings heap: each distinct
 * string is stored once, NUL-terminated, and named by its byte offset.
 * The heap is kept in memory (the writer appends its new tail to the file
 * at each flush); optional strings (arg values) stop being interned when
 * the heap reaches a cap, so memory stays bounded.
 * Layer 0: libc only.
 */
#ifndef UTIL_INTERN_H
#define UTIL_INTERN_H

#include "util_buf.h"

#include <stdint.h>

typedef struct util_intern {
    util_buf heap;       /* all strings, NUL-terminated */
    uint64_t *slots;     /* hash tag | (offset + 1), 0 = empty (util_intern.c) */
    size_t cap, used;
    size_t optional_cap; /* heap size above which optional strings are refused */
} util_intern;

void util_intern_init(util_intern *t, size_t optional_cap);
void util_intern_free(util_intern *t);

/* Offset of the string (interned now if new).  UINT64_MAX when out of
 * memory, or when optional and the heap is over its cap. */
uint64_t util_intern_add(util_intern *t, const char *s, size_t len, int optional);

#endif /* UTIL_INTERN_H */
