/* SPDX-License-Identifier: MIT
 *
 * merge_cli_inputs.h - what slog-merge makes of its command line before it
 * merges: the input list (a directory stands for the *.slog files in it,
 * sorted by name, the output left out), the --label and --offset specs
 * IN=VALUE matched to inputs (IN is an input as listed or its file name),
 * the output clock that --slice DURATION is converted with, and the
 * warnings that name the incomplete inputs of a merge.
 * Tools layer: public libslog headers and utils/common only.
 */
#ifndef SLOG_MERGE_CLI_INPUTS_H
#define SLOG_MERGE_CLI_INPUTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct cli_inputs {
    char **paths; /* malloc'ed, each malloc'ed */
    size_t n, cap;
} cli_inputs;

/* Add args[0..nargs) to @p in, a directory as its *.slog files (sorted by
 * name, the output @p out left out).  0, or 2 after a usage message, or 1
 * after a failure message (on stderr). */
int cli_inputs_expand(cli_inputs *in, char *const *args, size_t nargs, const char *out);
void cli_inputs_free(cli_inputs *in);

/* The input a spec IN=VALUE names: the first '=' whose left side is an
 * input path or an input's file name, and only one input matches.
 * Returns its index and sets *value, or prints a usage message and
 * returns SIZE_MAX. */
size_t cli_inputs_spec(const cli_inputs *in, const char *opt, const char *spec,
                       const char **value);

/* The least common multiple of the inputs' clocks (the merge's output
 * clock), 0 when an input does not open or it passes 10^12 (the merge then
 * reports the error). */
uint64_t cli_inputs_clock(const cli_inputs *in);

/* One warning line on stderr for each input whose writer did not finish
 * (its complete flag is false), saying that @p out is marked incomplete
 * for it; called after a merge that took such inputs. */
void cli_inputs_warn_incomplete(const cli_inputs *in, const char *out);

#endif /* SLOG_MERGE_CLI_INPUTS_H */
