/* SPDX-License-Identifier: MIT
 *
 * import_detect.h - format detection inside an import (import_detect.c).
 * Import library, core.
 */
#ifndef SLOG_IMPORT_DETECT_H
#define SLOG_IMPORT_DETECT_H

#include "importer.h"

/* The entry named @p name, or NULL. */
const importer *import_find(const char *name);
/* The format of input @p path of ctx's run; *bytes gets the file size of a
 * regular file (0 otherwise).  SLOG_OK, or an error already reported
 * through import_run_fail.  A directory no probe claims gives SLOG_OK with
 * *out NULL. */
int import_detect_one(import_ctx *ctx, const char *path, const importer **out, uint64_t *bytes);

#endif
