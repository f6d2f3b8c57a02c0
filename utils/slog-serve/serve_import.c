/* SPDX-License-Identifier: MIT
 *
 * serve_import.c - other trace formats imported into cached .slog files
 * (serve_import.h).  A file starting with the HDF5 signature, or named
 * *.slog, is taken as a .slog; anything else goes through
 * slog_import_file.  The cache is "SOURCE.slog" beside the source when its folder is writable, else
 * $XDG_CACHE_HOME/slog-serve (or ~/.cache/slog-serve) with the source's
 * name and a hash of its full path.  "Writable" is stricter than
 * access(2), which says yes to root everywhere: a folder whose mode has no
 * write bit at all, or on a read-only mount, is not written into even by
 * root (a shared corpus is kept read-only that way).  --format names the
 * import format instead of detecting it.  A cached file is reused when it is
 * newer than the source and complete; an import writes to a temporary name
 * and renames it when finished, so a killed import never leaves a cache
 * that looks valid.  Imports run before the server listens.  A source that
 * cannot be imported keeps its error (serve_source): slog-serve serves the
 * others and lists it as failed.
 * Tools layer (slog-serve): public libslog headers and utils/common.
 */
#include "serve_import.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <slog/slog.h>
#include <slog/slog_import.h>

#include "progress.h"

#define PROG "slog-serve"

static bool is_hdf5(const char *path)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char head[8];
    const int fd = open(path, O_RDONLY);
    if (fd < 0) {
        return false;
    }
    const ssize_t got = read(fd, head, sizeof head);
    (void)close(fd);
    return got == (ssize_t)sizeof head && memcmp(head, sig, sizeof sig) == 0;
}

/* A name ending in ".slog" is a libslog file even when its first bytes are
 * damaged: the reader says what is wrong with it (importing it would only
 * say its format is unknown). */
static bool named_slog(const char *path)
{
    const size_t n = strlen(path);
    return n > 5 && strcmp(path + n - 5, ".slog") == 0;
}

/* FNV-1a of the source's full path: cache names of equal base names differ. */
static unsigned long long path_hash(const char *path)
{
    char full[PATH_MAX];
    const char *const p = realpath(path, full) != NULL ? full : path;
    unsigned long long h = 1469598103934665603ull;
    for (const unsigned char *c = (const unsigned char *)p; *c != '\0'; c++) {
        h = (h ^ *c) * 1099511628211ull;
    }
    return h;
}

/* The cache may go into folder: access(2) allows it, and (for root, whom
 * access always allows) the folder has a write bit and is not on a
 * read-only mount. */
static bool folder_writable(const char *folder)
{
    struct stat st;
    struct statvfs fs;
    if (access(folder, W_OK) != 0 || stat(folder, &st) != 0) {
        return false;
    }
    if ((st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) {
        return false;
    }
    return statvfs(folder, &fs) != 0 || (fs.f_flag & ST_RDONLY) == 0;
}

/* The cache path of src (malloc'd), beside it or in the cache folder. */
static char *cache_path(const char *src)
{
    char buf[PATH_MAX + 64];
    char dir[PATH_MAX];
    (void)snprintf(dir, sizeof dir, "%s", src);
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') {
        dir[--len] = '\0';
    }
    const char *const slash = strrchr(dir, '/');
    const char *const base = slash != NULL ? slash + 1 : dir;
    char folder[PATH_MAX];
    (void)snprintf(folder, sizeof folder, "%.*s", slash != NULL ? (int)(slash - dir) + 1 : 1,
                   slash != NULL ? dir : ".");
    if (folder_writable(folder)) {
        (void)snprintf(buf, sizeof buf, "%s.slog", dir);
        return strdup(buf);
    }
    const char *const xdg = getenv("XDG_CACHE_HOME");
    const char *const home = getenv("HOME");
    if (xdg == NULL && home == NULL) {
        return NULL;
    }
    /* the cache home may be missing too; a deeper missing parent fails the import */
    (void)snprintf(folder, sizeof folder, "%s%s", xdg != NULL ? xdg : home,
                   xdg != NULL ? "" : "/.cache");
    (void)mkdir(folder, 0700);
    (void)strncat(folder, "/slog-serve", sizeof folder - strlen(folder) - 1);
    (void)mkdir(folder, 0700);
    (void)snprintf(buf, sizeof buf, "%s/%s-%016llx.slog", folder, base, path_hash(src));
    return strdup(buf);
}

/* The cache is newer than the source and a complete .slog. */
static bool cache_valid(const char *cache, const char *src)
{
    struct stat sc, ss;
    if (stat(cache, &sc) != 0 || stat(src, &ss) != 0 ||
        (sc.st_mtim.tv_sec < ss.st_mtim.tv_sec ||
         (sc.st_mtim.tv_sec == ss.st_mtim.tv_sec && sc.st_mtim.tv_nsec < ss.st_mtim.tv_nsec))) {
        return false;
    }
    slog_reader *r = NULL;
    const bool ok =
        slog_reader_open(&r, cache, NULL, NULL) == SLOG_OK && slog_reader_info(r)->complete;
    slog_reader_destroy(r);
    return ok;
}

static void on_progress(const char *input, uint64_t done, uint64_t total, void *user)
{
    (void)input;
    progress_update(user, done, total);
}

/* Import src into cache (through a temporary file); 0, or -1 with the
 * error in why. */
static int import_one(const char *src, const char *cache, const serve_import_options *opts,
                      char *why, size_t why_len)
{
    char tmp[PATH_MAX + 32];
    (void)snprintf(tmp, sizeof tmp, "%s.tmp-%ld", cache, (long)getpid());
    (void)fprintf(stderr, PROG ": importing %s into %s\n", src, cache);
    progress bar;
    progress_init(&bar, stderr, opts->show_progress);
    progress_label(&bar, "importing");
    slog_import_options o = SLOG_IMPORT_OPTIONS_INIT;
    o.progress = on_progress;
    o.user = &bar;
    o.format = opts->format;
    const slog_import_input in = {.name = src};
    slog_import_summary *sum = NULL;
    slog_error err;
    memset(&err, 0, sizeof err);
    const int rc = slog_import_file(&sum, tmp, &in, 1, &o, &err);
    progress_end(&bar);
    int status = 0;
    if (rc != SLOG_OK) {
        (void)snprintf(why, why_len, "%s: Cannot import: %s (%s)", src,
                       err.message[0] != '\0' ? err.message : "unknown error",
                       slog_status_name(rc));
        status = -1;
    } else if (rename(tmp, cache) != 0) {
        (void)snprintf(why, why_len, "%s: Cannot rename its import to %s: %s", src, cache,
                       strerror(errno));
        status = -1;
    } else {
        (void)fprintf(stderr, PROG ": imported %s: %llu records in %.1f s\n", src,
                      (unsigned long long)(sum != NULL ? sum->imported : 0),
                      sum != NULL ? sum->seconds : 0.0);
    }
    if (status != 0) {
        (void)unlink(tmp);
    }
    slog_import_summary_destroy(sum);
    return status;
}

/* The path to serve for one argument (malloc'd), or NULL with the error
 * in why. */
static char *resolve_one(const char *arg, const serve_import_options *opts, char *why,
                         size_t why_len)
{
    if (is_hdf5(arg) || named_slog(arg) || access(arg, R_OK) != 0) {
        char *const path = strdup(arg); /* a .slog, or a missing file the reader will name */
        if (path == NULL) {
            (void)snprintf(why, why_len, "%s: out of memory", arg);
        }
        return path;
    }
    char *const cache = cache_path(arg);
    if (cache == NULL) {
        (void)snprintf(why, why_len, "%s: no folder to cache its import in (set HOME)", arg);
        return NULL;
    }
    if (cache_valid(cache, arg)) {
        (void)fprintf(stderr, PROG ": %s: using %s (imported before)\n", arg, cache);
        return cache;
    }
    if (import_one(arg, cache, opts, why, why_len) != 0) {
        free(cache);
        return NULL;
    }
    return cache;
}

bool serve_import_format_known(const char *name)
{
    const char *const *const formats = slog_import_formats();
    for (size_t i = 0; formats[i] != NULL; i++) {
        if (strcmp(formats[i], name) == 0) {
            return true;
        }
    }
    return strcmp(name, "auto") == 0;
}

int serve_import_resolve(char *const *args, size_t n, const serve_import_options *opts,
                         serve_source **out)
{
    serve_source *const src = calloc(n > 0 ? n : 1, sizeof *src);
    *out = NULL;
    if (src == NULL) {
        (void)fprintf(stderr, PROG ": out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char why[1024];
        src[i].arg = args[i];
        src[i].path = resolve_one(args[i], opts, why, sizeof why);
        if (src[i].path != NULL) {
            continue;
        }
        (void)fprintf(stderr, PROG ": %s\n", why);
        src[i].error = strdup(why);
        if (src[i].error == NULL) {
            (void)fprintf(stderr, PROG ": out of memory\n");
            serve_import_free(src, i + 1);
            return -1;
        }
    }
    *out = src;
    return 0;
}

void serve_import_free(serve_source *src, size_t n)
{
    if (src == NULL) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        free(src[i].path);
        free(src[i].error);
    }
    free(src);
}
