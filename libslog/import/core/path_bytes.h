/* SPDX-License-Identifier: MIT
 *
 * path_bytes.h - bytes of a file or of a folder's files (path_bytes.c).
 * Import library, core.
 */
#ifndef SLOG_IMPORT_PATH_BYTES_H
#define SLOG_IMPORT_PATH_BYTES_H

#include <stdint.h>

/* Size of a regular file, or the sum over a directory's regular files
 * (recursively); 0 when @p path cannot be read. */
uint64_t path_bytes(const char *path);

#endif
