/* SPDX-License-Identifier: MIT
 *
 * trace_version.h - the version slog-trace writes into its files' creator
 * field and prints with --version (the build passes the project version).
 * Layer: slog-trace.
 */
#ifndef SLOG_TRACE_VERSION_H
#define SLOG_TRACE_VERSION_H

#ifndef SLOG_TOOL_VERSION
#    define SLOG_TOOL_VERSION "unknown"
#endif
#define TRACE_VERSION SLOG_TOOL_VERSION

#endif /* SLOG_TRACE_VERSION_H */
