/* SPDX-License-Identifier: MIT
 *
 * trace_fdtab.c - the descriptor -> file name table: an array of pointers
 * indexed by fd (descriptors above FDTAB_MAX stay nameless) into a set of
 * interned names (open addressing under one mutex, taken only by opens);
 * and the tracer's own descriptors, one bit per fd set and cleared
 * atomically (close looks at it on every call, and a fork child reads it
 * with no lock to take).  A vfork child, which shares this memory with its
 * parent but has its own descriptors, changes neither.
 * Layer: slog-trace preload library.
 */
#include "trace_fdtab.h"

#include "trace_core.h"

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
static int table_top = -1; /* no fd above it has a name (bounds range closes) */
static uint64_t tracer_bits[FDTAB_MAX / 64];

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

/* Name fd e (NULL: nameless); nothing in a vfork child. */
static void set_entry(int fd, fd_name *e)
{
    if (fd < 0 || fd >= FDTAB_MAX || trace_vfork_child()) {
        return;
    }
    if (e != NULL) {
        int top = __atomic_load_n(&table_top, __ATOMIC_RELAXED);
        while (fd > top && !__atomic_compare_exchange_n(&table_top, &top, fd, true,
                                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        }
    }
    __atomic_store_n(&table[fd], e, __ATOMIC_RELEASE);
}

void fdtab_opened(int fd, const char *path)
{
    if (fd >= 0 && fd < FDTAB_MAX && path != NULL) {
        set_entry(fd, intern(path));
    }
}

const char *fdtab_closing(int fd)
{
    const char *path = fdtab_path(fd);
    set_entry(fd, NULL);
    return path;
}

void fdtab_dup(int oldfd, int newfd)
{
    set_entry(newfd, entry(oldfd));
}

void fdtab_closed_range(unsigned lo, unsigned hi)
{
    const int top = __atomic_load_n(&table_top, __ATOMIC_RELAXED);
    if (top < 0) {
        return;
    }
    const unsigned end = hi < (unsigned)top ? hi : (unsigned)top;
    for (unsigned fd = lo; fd <= end; fd++) {
        set_entry((int)fd, NULL);
    }
}

void fdtab_tracer_add(int fd)
{
    if (fd >= 0 && fd < FDTAB_MAX && !trace_vfork_child()) {
        set_entry(fd, NULL); /* a name the number had before is not the tracer's file */
        __atomic_or_fetch(&tracer_bits[fd / 64], UINT64_C(1) << (fd % 64), __ATOMIC_RELEASE);
    }
}

void fdtab_tracer_remove(int fd)
{
    if (fd >= 0 && fd < FDTAB_MAX && !trace_vfork_child()) {
        __atomic_and_fetch(&tracer_bits[fd / 64], ~(UINT64_C(1) << (fd % 64)), __ATOMIC_RELEASE);
    }
}

bool fdtab_tracer(int fd)
{
    return fd >= 0 && fd < FDTAB_MAX &&
           (__atomic_load_n(&tracer_bits[fd / 64], __ATOMIC_ACQUIRE) >> (fd % 64) & 1) != 0;
}

int fdtab_tracer_next(unsigned lo, unsigned hi)
{
    for (unsigned w = lo / 64; w < FDTAB_MAX / 64 && w <= hi / 64; w++) {
        uint64_t bits = __atomic_load_n(&tracer_bits[w], __ATOMIC_ACQUIRE);
        if (w == lo / 64) {
            bits &= ~UINT64_C(0) << (lo % 64);
        }
        if (bits != 0) {
            const unsigned fd = w * 64 + (unsigned)__builtin_ctzll(bits);
            return fd <= hi ? (int)fd : -1;
        }
    }
    return -1;
}
