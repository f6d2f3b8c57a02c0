/* SPDX-License-Identifier: MIT
 *
 * import_dir.h - the DFTracer files of a directory (import_dir.c).
 * Import library, core.
 */
#ifndef SLOG_IMPORT_DIR_H
#define SLOG_IMPORT_DIR_H

#include <stdbool.h>
#include <stddef.h>

typedef struct import_file_list {
    char **v; /* paths "dir/name", sorted */
    size_t n, cap;
} import_file_list;

/* The .pfw and .pfw.gz files directly in @p dir (none when it cannot be
 * read).  0, or -1 when out of memory. */
int import_dir_pfw(const char *dir, import_file_list *out);
void import_file_list_free(import_file_list *l);

#endif
