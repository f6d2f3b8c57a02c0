/* SPDX-License-Identifier: MIT
 *
 * trace_fdtab.c - the descriptor -> file name table: an array of pointers
 * indexed by fd (descriptors above FDTAB_MAX stay nameless) into a set of
 * interned names (open addressing under one mutex, taken only by opens).
 * Layer: slog-trace preload library.
 */
#include "trace_fdtab.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FDTAB_MAX 65536

typedef struct fd_name {
    bool own;
    char path[];
} fd_name;

static fd_name *table[FDTAB_MAX];

static struct {
    pthread_mutex_t lock;
    fd_name **slots;
    size_t cap, used;
} names = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

static uint64_t hash_text(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s != '\0'; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    }
    return h;
}

static bool grow_names(void)
{
    const size_t cap = names.cap == 0 ? 256 : names.cap * 2;
    // NOLINTNEXTLINE(bugprone-sizeof-expression): slots are pointers; a pointer's size is meant
    fd_name **slots = calloc(cap, sizeof *slots);
    if (slots == NULL) {
        return false;
    }
    for (size_t i = 0; i < names.cap; i++) {
        if (names.slots[i] != NULL) {
            size_t j = hash_text(names.slots[i]->path) & (cap - 1);
            while (slots[j] != NULL) {
                j = (j + 1) & (cap - 1);
            }
            slots[j] = names.slots[i];
        }
    }
    free(names.slots);
    names.slots = slots;
    names.cap = cap;
    return true;
}

/* The interned copy of path; NULL when out of memory. */
static fd_name *intern(const char *path)
{
    fd_name *found = NULL;
    pthread_mutex_lock(&names.lock);
    if ((names.used + 1) * 2 > names.cap && !grow_names()) {
        pthread_mutex_unlock(&names.lock);
        return NULL;
    }
    size_t j = hash_text(path) & (names.cap - 1);
    while (names.slots[j] != NULL && strcmp(names.slots[j]->path, path) != 0) {
        j = (j + 1) & (names.cap - 1);
    }
    found = names.slots[j];
    if (found == NULL) {
        const size_t len = strlen(path);
        found = malloc(sizeof *found + len + 1);
        if (found != NULL) {
            memcpy(found->path, path, len + 1);
            found->own = trace_path_own(path);
            names.slots[j] = found;
            names.used++;
        }
    }
    pthread_mutex_unlock(&names.lock);
    return found;
}

static fd_name *entry(int fd)
{
    if (fd < 0 || fd >= FDTAB_MAX) {
        return NULL;
    }
    return __atomic_load_n(&table[fd], __ATOMIC_ACQUIRE);
}

const char *fdtab_path(int fd)
{
    const fd_name *e = entry(fd);
    return e != NULL ? e->path : "";
}

bool fdtab_own(int fd)
{
    const fd_name *e = entry(fd);
    return e != NULL && e->own;
}

bool trace_path_own(const char *path)
{
    const char *dir = trace_dir();
    const size_t n = strlen(dir);
    return n > 0 && path != NULL && strncmp(path, dir, n) == 0 &&
           (path[n] == '/' || path[n] == '\0');
}

void fdtab_opened(int fd, const char *path)
{
    if (fd >= 0 && fd < FDTAB_MAX && path != NULL) {
        __atomic_store_n(&table[fd], intern(path), __ATOMIC_RELEASE);
    }
}

void fdtab_closed(int fd)
{
    if (fd >= 0 && fd < FDTAB_MAX) {
        __atomic_store_n(&table[fd], NULL, __ATOMIC_RELEASE);
    }
}

void fdtab_dup(int oldfd, int newfd)
{
    if (newfd >= 0 && newfd < FDTAB_MAX) {
        __atomic_store_n(&table[newfd], entry(oldfd), __ATOMIC_RELEASE);
    }
}
