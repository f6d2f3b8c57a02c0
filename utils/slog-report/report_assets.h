/* SPDX-License-Identifier: MIT
 *
 * report_assets.h - the page's style sheet and script, kept as report.css
 * and report.js beside the sources and turned into C string arrays at
 * build time (embed_assets.py), so the report needs no file at run time
 * and the page needs no network.
 * Tools layer: libc only.
 */
#ifndef SLOG_REPORT_ASSETS_H
#define SLOG_REPORT_ASSETS_H

#include <stdio.h>

/* Lines of report.css and report.js, each NULL-terminated array. */
extern const char *const report_css[];
extern const char *const report_js[];

/* Write every line of a NULL-terminated array. */
void report_write_lines(FILE *f, const char *const *lines);

#endif /* SLOG_REPORT_ASSETS_H */
