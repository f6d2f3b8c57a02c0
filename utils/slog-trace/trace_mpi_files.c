/* SPDX-License-Identifier: MIT
 *
 * trace_mpi_files.c - the names of the MPI-IO files a process has open,
 * by handle (MPI has no call that gives a file handle's name back): set by
 * MPI_File_open, read by every data call's record, dropped by
 * MPI_File_close.  A few files are open at a time: one array searched
 * from its start, under one lock.
 * Layer: slog-trace preload library; Open MPI's mpi.h.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "trace_mpi.h"

typedef struct open_file {
    MPI_File fh; /* NULL: a free slot (Open MPI's handles are pointers) */
    char *path;
} open_file;

static open_file *files;
static size_t nfiles, cap;
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;

static open_file *slot_of(MPI_File fh)
{
    for (size_t i = 0; i < nfiles; i++) {
        if (files[i].fh == fh) {
            return &files[i];
        }
    }
    return NULL;
}

/* A free slot (a closed file's, or a new one); NULL without memory. */
static open_file *free_slot(void)
{
    open_file *s = slot_of(NULL);
    if (s != NULL || (nfiles == cap && cap > SIZE_MAX / 2 / sizeof *files)) {
        return s;
    }
    if (nfiles == cap) {
        const size_t grown = cap == 0 ? 8 : cap * 2;
        open_file *const p = realloc(files, grown * sizeof *files);
        if (p == NULL) {
            return NULL;
        }
        files = p;
        cap = grown;
    }
    files[nfiles] = (open_file){NULL, NULL};
    return &files[nfiles++];
}

void trace_mpi_file_opened(MPI_File fh, const char *path)
{
    char *const copy = strdup(path != NULL ? path : "");
    pthread_mutex_lock(&files_lock);
    open_file *s = slot_of(fh); /* a handle MPI reuses after a close we missed */
    s = s != NULL ? s : free_slot();
    if (s != NULL && copy != NULL) {
        free(s->path);
        *s = (open_file){fh, copy};
    } else {
        free(copy); /* unnamed: the records say path "" */
    }
    pthread_mutex_unlock(&files_lock);
}

void trace_mpi_file_name(MPI_File fh, char *buf, size_t n)
{
    pthread_mutex_lock(&files_lock);
    const open_file *const s = fh != NULL ? slot_of(fh) : NULL;
    const char *const name = s != NULL ? s->path : "";
    const size_t len = strnlen(name, n - 1);
    memcpy(buf, name, len);
    buf[len] = '\0';
    pthread_mutex_unlock(&files_lock);
}

void trace_mpi_file_closed(MPI_File fh)
{
    pthread_mutex_lock(&files_lock);
    open_file *const s = fh != NULL ? slot_of(fh) : NULL;
    if (s != NULL) {
        free(s->path);
        *s = (open_file){NULL, NULL};
    }
    pthread_mutex_unlock(&files_lock);
}
