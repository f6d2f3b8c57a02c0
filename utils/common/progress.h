/* SPDX-License-Identifier: MIT
 *
 * progress.h - a one-line progress bar on stderr for long-running tools.
 * Drawn only when enabled (the caller decides from isatty, --quiet, --json
 * and --[no-]progress; progress_default_enabled() gives the usual rule),
 * redrawn at most every 100 ms, and erased by progress_end so later output
 * starts on a clean line.  Tools layer: libc only.
 */
#ifndef SLOG_UTILS_PROGRESS_H
#define SLOG_UTILS_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct progress {
    FILE *out;
    bool enabled;
    bool drawn;          /* something is on the line now */
    uint64_t last_ns;    /* monotonic time of the last redraw */
    uint64_t start_ns;
    char label[64];
} progress;

/* True when stderr is a terminal and neither quiet nor json output is on. */
bool progress_default_enabled(bool quiet, bool json);

void progress_init(progress *p, FILE *out, bool enabled);
/* Set the label shown before the bar (copied; longer than 40 bytes, its end
 * is kept after "...": a path's file name). */
void progress_label(progress *p, const char *label);
/* Report done of total units (total 0 = unknown: a counter is shown).
 * Cheap when called often: it returns at once inside the 100 ms window. */
void progress_update(progress *p, uint64_t done, uint64_t total);
/* Erase the line if anything was drawn. */
void progress_end(progress *p);

#endif /* SLOG_UTILS_PROGRESS_H */
