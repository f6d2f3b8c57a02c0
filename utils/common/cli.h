/* SPDX-License-Identifier: MIT
 *
 * cli.h - what every tool's main says the same way: a one-line usage error
 * (exit status 2) and --version with a check that the library the tool runs
 * with is the one it was built with.  Tools layer: libc and the public API.
 */
#ifndef SLOG_CLI_H
#define SLOG_CLI_H

#define CLI_EXIT_USAGE 2

/* Print "PROG: MSG (see PROG --help)" on stderr, control characters of MSG
 * replaced so it stays on one line; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The usage error for an option getopt/getopt_long (with opterr = 0) did not
 * take: the unknown option, or the option that lacks its value. */
int cli_option_error(const char *prog, char *const *argv);

/* Print "PROG VERSION (libslog X)" on stdout; warn on stderr when the
 * library's runtime version differs from built_number/built_string (pass
 * SLOG_VERSION_NUMBER and SLOG_VERSION_STRING from the tool). */
void cli_print_version(const char *prog, const char *tool_version, unsigned built_number,
                       const char *built_string);

#endif /* SLOG_CLI_H */
