/* SPDX-License-Identifier: MIT
 *
 * trace_merge_join.h - `slog-trace merge` joins a process's Python tracing
 * file (DIR/<host>-<pid>-python.slog, doc/PYTHON.md) to the process's own
 * file (DIR/<host>-<pid>.slog, or the <host>-<pid>.<n>.slog of a later exec
 * that was running when Python tracing began): the Python threads go under
 * the process's top timeline, a thread both files name alike ("main TID")
 * is one timeline, and the states of such a joined timeline are nested
 * again by time, so that a Python region stands above the calls it made.
 * Layer: slog-trace tool; public API only.
 */
#ifndef SLOG_TRACE_MERGE_JOIN_H
#define SLOG_TRACE_MERGE_JOIN_H

#include <stddef.h>
#include <stdint.h>

#include <slog/slog.h>

/* One drawable of a merged file (input or output ids, as trace_merge.c
 * says where). */
typedef struct merge_item {
    slog_kind kind;
    uint32_t timeline, timeline_to, category, depth, nargs;
    int64_t start, end;
    double value;
    slog_arg *args;
    int outer;           /* from a Python tracing file: first of equal intervals */
} merge_item;

typedef struct merge_join merge_join;

merge_join *merge_join_create(void);
void merge_join_destroy(merge_join *j);

/* Whether a file name is a Python tracing file's (ends in "-python.slog"). */
int merge_join_is_python(const char *file_name);

/* A process file merged: its top timeline and first time; its threads
 * follow with merge_join_add_thread.  0, or -1 (out of memory). */
int merge_join_add_process(merge_join *j, const char *file_name, uint32_t top, int64_t start);
int merge_join_add_thread(merge_join *j, const char *name, uint32_t id);

/* Pick the process a Python tracing file joins: the file of the same
 * <host>-<pid> that began last at or before @p start (else the first);
 * its top timeline, or SLOG_NO_PARENT when no such file was merged. */
uint32_t merge_join_select(merge_join *j, const char *python_file_name, int64_t start);
/* The selected process's thread named @p name, marked as joined; or
 * SLOG_NO_PARENT.  -1 on out of memory is SLOG_NO_PARENT too, with
 * *oom set. */
uint32_t merge_join_thread(merge_join *j, const char *name, int *oom);

/* Nest the states of every joined timeline again by time: sorted by
 * start, longer first, Python's first of equal intervals, each one level
 * below the innermost earlier state that has not ended by its start.
 * 0, or -1 (out of memory; items unchanged). */
int merge_join_renest(const merge_join *j, merge_item *items, size_t n);

#endif /* SLOG_TRACE_MERGE_JOIN_H */
