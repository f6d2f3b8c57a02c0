/* SPDX-License-Identifier: MIT
 *
 * path_bytes.c - the size in bytes of a file, or of every regular file
 * under a directory (an OTF2 archive, a Recorder folder), for the import
 * summary's throughput.  Symbolic links are not followed inside a folder;
 * depth is bounded so a cycle cannot recurse forever.
 * Import library, core: POSIX.
 */
#include "path_bytes.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEPTH 8

static uint64_t dir_bytes(const char *dir, int depth)
{
    DIR *const d = opendir(dir);
    if (d == NULL) {
        return 0;
    }
    uint64_t total = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        char path[4096];
        struct stat st;
        const int n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (n < 0 || (size_t)n >= sizeof path || lstat(path, &st) != 0) {
            continue;
        }
        if (S_ISREG(st.st_mode)) {
            total += (uint64_t)st.st_size;
        } else if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH) {
            total += dir_bytes(path, depth + 1);
        }
    }
    (void)closedir(d);
    return total;
}

uint64_t path_bytes(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        return 0;
    }
    if (S_ISDIR(st.st_mode)) {
        return dir_bytes(path, 0);
    }
    return S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}
