/* SPDX-License-Identifier: MIT
 *
 * merge_cli_inputs.c - slog-merge's input list (see merge_cli_inputs.h):
 * directory expansion in byte order of the names (the same order in any
 * locale, so a directory of rank files merges the same way everywhere),
 * IN=VALUE specs, the output clock for --slice, and which inputs were
 * incomplete (the library only counts them).
 * Tools layer: public libslog headers and utils/common only.
 */
#include "merge_cli_inputs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <slog/slog.h>

#include "cli.h"
#include <shared_grow.h>
#include <shared_lcm.h>

#define PROG "slog-merge"
#define MAX_TICKS_PER_SECOND UINT64_C(1000000000000)

static int add_path(cli_inputs *in, const char *dir, const char *name)
{
    const size_t n = (dir != NULL ? strlen(dir) + 1 : 0) + strlen(name) + 1;
    char *const p = malloc(n);
    if (p == NULL || shared_grow(&in->paths, &in->cap, in->n + 1, sizeof *in->paths) != 0) {
        free(p);
        (void)fprintf(stderr, PROG ": out of memory\n");
        return 1;
    }
    (void)snprintf(p, n, "%s%s%s", dir != NULL ? dir : "", dir != NULL ? "/" : "", name);
    in->paths[in->n++] = p;
    return 0;
}

static int is_slog_name(const struct dirent *d)
{
    const size_t n = strlen(d->d_name);
    return d->d_name[0] != '.' && n > 5 && strcmp(d->d_name + n - 5, ".slog") == 0;
}

static int by_bytes(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Is dir/name the output (same name, or the same file)? */
static int is_output(const char *dir, const char *name, const char *out, const struct stat *so)
{
    char path[4096];
    struct stat st;
    (void)snprintf(path, sizeof path, "%s/%s", dir, name);
    return strcmp(path, out) == 0 ||
           (so != NULL && stat(path, &st) == 0 && st.st_dev == so->st_dev &&
            st.st_ino == so->st_ino);
}

static int add_dir(cli_inputs *in, const char *dir, const char *out)
{
    struct dirent **ents = NULL;
    const int n = scandir(dir, &ents, is_slog_name, by_bytes);
    if (n < 0) {
        (void)fprintf(stderr, PROG ": %s: Cannot list the directory: %s\n", dir, strerror(errno));
        return 1;
    }
    struct stat so;
    const int out_exists = stat(out, &so) == 0;
    const size_t before = in->n;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (rc == 0 && !is_output(dir, ents[i]->d_name, out, out_exists ? &so : NULL)) {
            rc = add_path(in, dir, ents[i]->d_name);
        }
        free(ents[i]);
    }
    free(ents);
    if (rc == 0 && in->n == before) {
        return cli_usage_error(PROG, "%s: no .slog file in the directory", dir);
    }
    return rc;
}

int cli_inputs_expand(cli_inputs *in, char *const *args, size_t nargs, const char *out)
{
    for (size_t i = 0; i < nargs; i++) {
        struct stat st;
        const int rc = stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)
                           ? add_dir(in, args[i], out)
                           : add_path(in, NULL, args[i]);
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}

void cli_inputs_free(cli_inputs *in)
{
    for (size_t i = 0; i < in->n; i++) {
        free(in->paths[i]);
    }
    free(in->paths);
    memset(in, 0, sizeof *in);
}

static int names_input(const char *path, const char *what, size_t len)
{
    const char *const slash = strrchr(path, '/');
    const char *const base = slash != NULL ? slash + 1 : path;
    return (strlen(path) == len && memcmp(path, what, len) == 0) ||
           (strlen(base) == len && memcmp(base, what, len) == 0);
}

size_t cli_inputs_spec(const cli_inputs *in, const char *opt, const char *spec,
                       const char **value)
{
    for (const char *eq = strchr(spec, '='); eq != NULL; eq = strchr(eq + 1, '=')) {
        const size_t len = (size_t)(eq - spec);
        size_t found = SIZE_MAX;
        size_t count = 0;
        for (size_t i = 0; i < in->n; i++) {
            if (names_input(in->paths[i], spec, len)) {
                found = count++ == 0 ? i : found;
            }
        }
        if (count > 1) {
            (void)cli_usage_error(PROG, "%s %s: '%.*s' names %zu inputs", opt, spec, (int)len,
                                  spec, count);
            return SIZE_MAX;
        }
        if (count == 1) {
            *value = eq + 1;
            return found;
        }
    }
    (void)cli_usage_error(PROG, "%s %s: expected IN=VALUE where IN is an input", opt, spec);
    return SIZE_MAX;
}

uint64_t cli_inputs_clock(const cli_inputs *in)
{
    uint64_t tps = 1;
    for (size_t i = 0; i < in->n && tps != 0; i++) {
        slog_reader *r = NULL;
        if (slog_reader_open(&r, in->paths[i], NULL, NULL) != SLOG_OK) {
            return 0;
        }
        const uint64_t t = slog_reader_info(r)->ticks_per_second;
        slog_reader_destroy(r);
        tps = shared_lcm_bounded(tps, t, MAX_TICKS_PER_SECOND);
    }
    return tps;
}

void cli_inputs_warn_incomplete(const cli_inputs *in, const char *out)
{
    for (size_t i = 0; i < in->n; i++) {
        slog_reader *r = NULL;
        if (slog_reader_open(&r, in->paths[i], NULL, NULL) != SLOG_OK) {
            continue; /* it opened for the merge: gone since, nothing to say of it */
        }
        if (!slog_reader_info(r)->complete) {
            (void)fprintf(stderr,
                          PROG ": %s: warning: incomplete (its writer did not finish): merged "
                          "what it holds; %s is marked incomplete\n",
                          in->paths[i], out);
        }
        slog_reader_destroy(r);
    }
}
