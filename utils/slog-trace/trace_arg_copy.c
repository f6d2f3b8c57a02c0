/* SPDX-License-Identifier: MIT
 *
 * trace_arg_copy.c - args and their strings copied into one block
 * (trace_arg_copy.h): the slog_arg array first, the strings after it, so
 * the block is aligned for the array and freed at once.
 * Layer: slog-trace (preload library and tool); public API only.
 */
#include "trace_arg_copy.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool has_text(const slog_arg *a)
{
    return a->type == SLOG_ARG_STRING || a->type == SLOG_ARG_JSON;
}

slog_arg *trace_arg_copy(const slog_arg *args, uint32_t n)
{
    size_t bytes = n * sizeof(slog_arg);
    for (uint32_t i = 0; i < n; i++) {
        bytes += strlen(args[i].key) + 1;
        if (has_text(&args[i])) {
            bytes += strlen(args[i].v.s) + 1;
        }
    }
    slog_arg *c = n > 0 ? malloc(bytes) : NULL;
    if (c == NULL) {
        return NULL;
    }
    char *text = (char *)(c + n);
    for (uint32_t i = 0; i < n; i++) {
        c[i] = args[i];
        const size_t k = strlen(args[i].key) + 1;
        c[i].key = memcpy(text, args[i].key, k);
        text += k;
        if (has_text(&args[i])) {
            const size_t l = strlen(args[i].v.s) + 1;
            c[i].v.s = memcpy(text, args[i].v.s, l);
            text += l;
        }
    }
    return c;
}
