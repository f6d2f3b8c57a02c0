/* SPDX-License-Identifier: MIT
 *
 * serve_files.c - the served files and their reader pools (serve_files.h).
 * Each file has a mutex, a generation number, the size and modification
 * time seen when the generation began, the generation since which it is
 * the same file (device and inode), and a stack of idle readers tagged
 * with their generation; an older one is brought up to date with
 * slog_reader_refresh when it is checked out.  Opening and closing readers happens outside the
 * mutex (both take the library's HDF5 lock and may be slow), except for the
 * purge of stale idle readers when a file changed.  A file that could not
 * be opened (or imported) at start stays in the list, so /api/files shows
 * it failed with its error while the others are served.
 * Tools layer (slog-serve): public libslog headers, libc and pthreads.
 */
#include "serve_files.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct pooled_reader {
    slog_reader *r;
    uint64_t generation;
} pooled_reader;

#define PROG "slog-serve"

typedef struct served_file {
    char *path;       /* the .slog, or the argument that could not be imported */
    char *error;      /* not imported: why (every checkout fails with it); else NULL */
    const char *name; /* base name inside path */
    pthread_mutex_t lock;
    bool lock_ok;
    uint64_t generation;
    bool seen; /* size, mtime, dev and ino below are valid */
    int64_t size;
    struct timespec mtime;
    dev_t dev;
    ino_t ino;
    uint64_t since; /* first generation of this dev/ino: older readers read another file */
    pooled_reader *idle;
    uint32_t nidle;
} served_file;

struct serve_files {
    served_file *files;
    size_t n;
    uint32_t pool_size;
    uint64_t cache_bytes;
};

size_t serve_files_count(const serve_files *fs)
{
    return fs->n;
}

void serve_files_status(const serve_files *fs, size_t f, serve_file_status *out)
{
    struct stat st;
    out->name = fs->files[f].name;
    out->exists = fs->files[f].error == NULL && stat(fs->files[f].path, &st) == 0;
    out->bytes = out->exists && st.st_size > 0 ? (uint64_t)st.st_size : 0;
}

static int
open_reader(const serve_files *fs, const served_file *sf, slog_reader **out, slog_error *err)
{
    slog_reader_options o = SLOG_READER_OPTIONS_INIT;
    o.cache_bytes = fs->cache_bytes;
    return slog_reader_open(out, sf->path, &o, err);
}

/* Under sf->lock: a new generation when the file's size or mtime changed;
 * when it is another file (device or inode), idle readers are closed. */
static void observe_change(served_file *sf, const struct stat *st)
{
    const bool same = sf->seen && sf->size == (int64_t)st->st_size &&
                      sf->mtime.tv_sec == st->st_mtim.tv_sec &&
                      sf->mtime.tv_nsec == st->st_mtim.tv_nsec;
    if (same) {
        return;
    }
    const bool replaced = !sf->seen || sf->dev != st->st_dev || sf->ino != st->st_ino;
    sf->seen = true;
    sf->size = (int64_t)st->st_size;
    sf->mtime = st->st_mtim;
    sf->dev = st->st_dev;
    sf->ino = st->st_ino;
    sf->generation++;
    if (!replaced) {
        return; /* grown: idle readers refresh at checkout */
    }
    sf->since = sf->generation;
    for (uint32_t i = 0; i < sf->nidle; i++) {
        slog_reader_destroy(sf->idle[i].r);
    }
    sf->nidle = 0;
}

/* The import's error of a source that is no .slog: SLOG_EIO. */
static int not_imported(const served_file *sf, slog_error *err)
{
    if (err != NULL) {
        memset(err, 0, sizeof *err);
        err->code = SLOG_EIO;
        err->offset = UINT64_MAX;
        (void)snprintf(err->source, sizeof err->source, "%s", sf->path);
        (void)snprintf(err->message, sizeof err->message, "%s", sf->error);
    }
    return SLOG_EIO;
}

int serve_files_checkout(serve_files *fs, size_t f, serve_lease *out, slog_error *err)
{
    served_file *const sf = &fs->files[f];
    if (sf->error != NULL) {
        return not_imported(sf, err);
    }
    struct stat st;
    const bool stat_ok = stat(sf->path, &st) == 0;
    (void)pthread_mutex_lock(&sf->lock);
    if (stat_ok) {
        observe_change(sf, &st);
    }
    const uint64_t generation = sf->generation;
    const pooled_reader idle = sf->nidle > 0 ? sf->idle[--sf->nidle] : (pooled_reader){NULL, 0};
    (void)pthread_mutex_unlock(&sf->lock);
    slog_reader *r = idle.r;
    if (r != NULL && idle.generation != generation && slog_reader_refresh(r, NULL, NULL) != SLOG_OK) {
        slog_reader_destroy(r); /* rewritten in place: open it again */
        r = NULL;
    }
    if (r == NULL) {
        const int rc = open_reader(fs, sf, &r, err);
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    out->r = r;
    out->fi = slog_reader_info(r);
    out->origin = out->fi->start <= out->fi->end ? out->fi->start : 0;
    out->file = f;
    out->generation = generation;
    return SLOG_OK;
}

void serve_files_checkin(serve_files *fs, serve_lease *lease)
{
    if (lease->r == NULL) {
        return;
    }
    served_file *const sf = &fs->files[lease->file];
    slog_reader *drop = lease->r;
    (void)pthread_mutex_lock(&sf->lock);
    if (lease->generation >= sf->since && sf->nidle < fs->pool_size) {
        sf->idle[sf->nidle++] = (pooled_reader){lease->r, lease->generation};
        drop = NULL;
    }
    (void)pthread_mutex_unlock(&sf->lock);
    slog_reader_destroy(drop);
    lease->r = NULL;
}

/* Set up one file and try to open it (its first reader stays idle); one
 * that does not open is printed and stays, failed.  -1: out of memory. */
static int init_file(serve_files *fs, served_file *sf, const serve_source *src, bool *opened)
{
    *opened = false;
    sf->path = strdup(src->path != NULL ? src->path : src->arg);
    sf->error = src->path != NULL ? NULL : strdup(src->error != NULL ? src->error : "not imported");
    sf->idle = calloc(fs->pool_size, sizeof *sf->idle);
    sf->lock_ok = sf->path != NULL && (src->path != NULL || sf->error != NULL) &&
                  sf->idle != NULL && pthread_mutex_init(&sf->lock, NULL) == 0;
    if (!sf->lock_ok) {
        return -1;
    }
    const char *const slash = strrchr(sf->path, '/');
    sf->name = slash != NULL ? slash + 1 : sf->path;
    if (sf->error != NULL) {
        return 0; /* serve_import printed why */
    }
    slog_error err;
    memset(&err, 0, sizeof err);
    serve_lease lease;
    const int rc = serve_files_checkout(fs, (size_t)(sf - fs->files), &lease, &err);
    if (rc != SLOG_OK) {
        (void)fprintf(stderr, PROG ": %s: Cannot open: %s (%s)\n", sf->path,
                      err.message[0] != '\0' ? err.message : "unknown error",
                      slog_status_name(rc));
        return 0;
    }
    serve_files_checkin(fs, &lease);
    *opened = true;
    return 0;
}

int serve_files_create(serve_files **out,
                       const serve_source *src,
                       size_t n,
                       serve_files_budget budget,
                       size_t *servable)
{
    serve_files *const fs = calloc(1, sizeof *fs);
    *out = NULL;
    *servable = 0;
    if (fs == NULL || (fs->files = calloc(n > 0 ? n : 1, sizeof *fs->files)) == NULL) {
        free(fs);
        (void)fprintf(stderr, PROG ": out of memory\n");
        return -1;
    }
    fs->pool_size = budget.pool_size > 0 ? budget.pool_size : 1;
    fs->cache_bytes = budget.cache_bytes;
    for (size_t i = 0; i < n; i++) {
        fs->n = i + 1; /* so destroy releases what init_file set up */
        bool opened = false;
        if (init_file(fs, &fs->files[i], &src[i], &opened) != 0) {
            (void)fprintf(stderr, PROG ": out of memory\n");
            serve_files_destroy(fs);
            return -1;
        }
        *servable += opened;
    }
    *out = fs;
    return 0;
}

void serve_files_destroy(serve_files *fs)
{
    if (fs == NULL) {
        return;
    }
    for (size_t i = 0; i < fs->n; i++) {
        served_file *const sf = &fs->files[i];
        for (uint32_t k = 0; k < sf->nidle; k++) {
            slog_reader_destroy(sf->idle[k].r);
        }
        if (sf->lock_ok) {
            (void)pthread_mutex_destroy(&sf->lock);
        }
        free(sf->idle);
        free(sf->path);
        free(sf->error);
    }
    free(fs->files);
    free(fs);
}
