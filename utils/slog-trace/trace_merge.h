/* SPDX-License-Identifier: MIT
 *
 * trace_merge.h - `slog-trace merge DIR -o OUT.slog`: the per-process files
 * of a trace directory joined into one file, with MPI messages as arrows.
 * Layer: slog-trace tool; public API only.
 */
#ifndef SLOG_TRACE_MERGE_H
#define SLOG_TRACE_MERGE_H

/* The merge subcommand (argv[0] is "merge"); returns the exit status. */
int trace_merge_main(int argc, char **argv);

#endif /* SLOG_TRACE_MERGE_H */
