/* SPDX-License-Identifier: MIT
 *
 * cli.c - usage errors and --version for the tools (see cli.h).
 * Tools layer.
 */
#include "cli.h"

#include <slog/slog.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>

int cli_usage_error(const char *prog, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(msg, sizeof msg, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized): va_start above
    va_end(ap);
    if (n < 0) {
        msg[0] = '\0';
    }
    for (char *p = msg; *p != '\0'; p++) {
        if ((unsigned char)*p < 0x20) {
            *p = '?'; /* user text stays on one line */
        }
    }
    (void)fprintf(stderr, "%s: %s (see %s --help)\n", prog, msg, prog);
    return CLI_EXIT_USAGE;
}

void cli_print_version(const char *prog, const char *tool_version, unsigned built_number,
                       const char *built_string)
{
    (void)printf("%s %s (libslog %s)\n", prog, tool_version, slog_version_string());
    if (slog_version_number() != built_number) {
        (void)fprintf(stderr, "%s: warning: built with libslog %s, running with %s\n", prog,
                      built_string, slog_version_string());
    }
}

int cli_option_error(const char *prog, char *const *argv)
{
    if (optopt != 0) {
        return cli_usage_error(prog, "option '-%c' is unknown or lacks its value", optopt);
    }
    return cli_usage_error(prog, "unknown option '%s'", argv[optind - 1]);
}
