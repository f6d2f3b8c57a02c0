/* SPDX-License-Identifier: MIT
 *
 * trace_arg_copy.h - a copy of a record's args that outlives the record:
 * the args and every string they point to (keys, string and JSON values)
 * in one allocation, so one free() releases it.  Shared by the per-thread
 * sink (calls set aside until their outer call returns) and the merge
 * (a whole job's records held in memory).
 * Layer: slog-trace (preload library and tool); public API only.
 */
#ifndef SLOG_TRACE_ARG_COPY_H
#define SLOG_TRACE_ARG_COPY_H

#include <stdint.h>

#include <slog/slog.h>

/* args[0..n) and their strings in one block for free(); NULL when n is 0
 * or out of memory. */
slog_arg *trace_arg_copy(const slog_arg *args, uint32_t n);

#endif /* SLOG_TRACE_ARG_COPY_H */
