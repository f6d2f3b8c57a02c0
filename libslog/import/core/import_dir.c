/* SPDX-License-Identifier: MIT
 *
 * import_dir.c - a directory of DFTracer files (one run: a .pfw or .pfw.gz
 * per process) as the list of its files, sorted by name, so the directory
 * imports like the files given one by one (merged by time: the pfw
 * importer's run_many).  Only the directory's own entries are listed.
 * Import library, core: POSIX.
 */
#include "import_dir.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool ends_with(const char *s, const char *suffix)
{
    const size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append dir/name to the list; -1 when out of memory. */
static int list_add(import_file_list *l, const char *dir, const char *name)
{
    if (l->n == l->cap) {
        const size_t cap = l->cap ? l->cap * 2 : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (v == NULL) {
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    const size_t len = strlen(dir) + strlen(name) + 2;
    char *path = malloc(len);
    if (path == NULL) {
        return -1;
    }
    (void)snprintf(path, len, "%s/%s", dir, name);
    l->v[l->n++] = path;
    return 0;
}

int import_dir_pfw(const char *dir, import_file_list *out)
{
    memset(out, 0, sizeof *out);
    DIR *const d = opendir(dir);
    if (d == NULL) {
        return 0;
    }
    int rc = 0;
    const struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (ends_with(e->d_name, ".pfw") || ends_with(e->d_name, ".pfw.gz")) {
            rc = list_add(out, dir, e->d_name);
        }
    }
    (void)closedir(d);
    if (rc != 0) {
        import_file_list_free(out);
        return -1;
    }
    if (out->n > 1) {
        qsort(out->v, out->n, sizeof *out->v, by_name);
    }
    return 0;
}

void import_file_list_free(import_file_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i]);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}
