/* SPDX-License-Identifier: MIT
 *
 * input_pipe.c - inputs that can be read only once: "-" (standard input), a
 * pipe, a FIFO, a character device.  slog-import reads an input's first
 * bytes to recognise its format, closes it, and the importer opens it
 * again; a pipe would have lost those bytes.  So the first open of such an
 * input records the raw bytes it reads (its tape, at most TAPE_MAX bytes),
 * its close keeps the descriptor and the tape, and the next open of the
 * same path replays the tape before reading on.  A third open, or a second
 * one after more than TAPE_MAX bytes were read, fails with a clear message:
 * formats read in two passes need a file.
 * Tools layer: libc, POSIX.
 */
#include "input_pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAPE_MAX ((size_t)4 << 20) /* a probe reads far less (256 KiB reads) */

struct input_pipe {
    char *path;
    int fd;
    unsigned char *replay; /* bytes to serve before the descriptor's */
    size_t nreplay, replay_at;
    unsigned char *tape;   /* first open: every byte read, for the next */
    size_t ntape, captape;
    bool taping;
    bool overflow;         /* the tape would have exceeded TAPE_MAX */
};

/* What a first open left for the next one. */
typedef struct held_pipe {
    struct held_pipe *next;
    char *path;
    int fd;                /* -1 once taken */
    unsigned char *tape;
    size_t ntape;
    bool overflow;
} held_pipe;

static held_pipe *held;
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;

int input_path_stat(const char *path, struct stat *st)
{
    return strcmp(path, "-") == 0 ? fstat(STDIN_FILENO, st) : stat(path, st);
}

static bool seekable(const struct stat *st)
{
    return S_ISREG(st->st_mode) || S_ISDIR(st->st_mode) || S_ISBLK(st->st_mode);
}

static int pipe_fail(char *err, size_t errlen, const char *msg)
{
    (void)snprintf(err, errlen, "%s", msg);
    return -1;
}

/* The held entry of @p path, or NULL; under held_lock. */
static held_pipe *held_find(const char *path)
{
    for (held_pipe *h = held; h != NULL; h = h->next) {
        if (strcmp(h->path, path) == 0) {
            return h;
        }
    }
    return NULL;
}

int input_pipe_open(input_pipe **out, const char *path, char *err, size_t errlen)
{
    *out = NULL;
    struct stat st;
    if (input_path_stat(path, &st) != 0) {
        (void)snprintf(err, errlen, "Cannot open: %s", strerror(errno));
        return -1;
    }
    if (seekable(&st)) {
        return 0; /* a file: the caller opens it itself */
    }
    input_pipe *p = calloc(1, sizeof *p);
    char *name = strdup(path);
    if (p == NULL || name == NULL) {
        free(p);
        free(name);
        return pipe_fail(err, errlen, "Out of memory");
    }
    p->path = name;
    pthread_mutex_lock(&held_lock);
    held_pipe *h = held_find(path);
    if (h != NULL && (h->fd < 0 || h->overflow)) {
        pthread_mutex_unlock(&held_lock);
        free(name);
        free(p);
        return pipe_fail(err, errlen,
                         "Cannot read a pipe or standard input twice (this format reads its "
                         "input in two passes, or the input was named twice): save it to a file");
    }
    if (h != NULL) { /* the importer's open after the probe's: replay */
        p->fd = h->fd;
        p->replay = h->tape;
        p->nreplay = h->ntape;
        h->fd = -1;
        h->tape = NULL;
        pthread_mutex_unlock(&held_lock);
        *out = p;
        return 1;
    }
    pthread_mutex_unlock(&held_lock);
    p->fd = strcmp(path, "-") == 0 ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
    if (p->fd < 0) {
        (void)snprintf(err, errlen, "Cannot open: %s", strerror(errno));
        free(name);
        free(p);
        return -1;
    }
#ifdef F_SETPIPE_SZ
    if (S_ISFIFO(st.st_mode)) {
        /* 64 KiB by default: a writer and this reader would take turns
         * every 64 KiB; a bigger pipe lets them overlap (a hint) */
        (void)fcntl(p->fd, F_SETPIPE_SZ, 1 << 20);
    }
#endif
    p->taping = true;
    *out = p;
    return 1;
}

static void tape_add(input_pipe *p, const unsigned char *b, size_t n)
{
    if (!p->taping || p->overflow) {
        return;
    }
    if (p->ntape + n > TAPE_MAX) {
        p->overflow = true; /* a next open will say why it cannot replay */
        free(p->tape);
        p->tape = NULL;
        p->ntape = p->captape = 0;
        return;
    }
    if (p->ntape + n > p->captape) {
        size_t cap = p->captape ? p->captape : 65536;
        while (cap < p->ntape + n) {
            cap *= 2;
        }
        unsigned char *t = realloc(p->tape, cap);
        if (t == NULL) {
            p->overflow = true;
            return;
        }
        p->tape = t;
        p->captape = cap;
    }
    memcpy(p->tape + p->ntape, b, n);
    p->ntape += n;
}

/* read(2), EINTR retried; what it reads goes on the tape. */
static ssize_t fd_read_taped(input_pipe *p, void *buf, size_t n)
{
    ssize_t r;
    do {
        r = read(p->fd, buf, n);
    } while (r < 0 && errno == EINTR);
    if (r > 0) {
        tape_add(p, buf, (size_t)r);
    }
    return r;
}

ssize_t input_pipe_read(input_pipe *p, void *buf, size_t n)
{
    if (p->replay_at < p->nreplay) {
        const size_t left = p->nreplay - p->replay_at;
        const size_t k = n < left ? n : left;
        memcpy(buf, p->replay + p->replay_at, k);
        p->replay_at += k;
        return (ssize_t)k;
    }
    return fd_read_taped(p, buf, n);
}

ssize_t input_pipe_peek(input_pipe *p, void *buf, size_t n)
{
    /* make the first n bytes (or all there are) replayable, then copy */
    while (p->nreplay - p->replay_at < n) {
        const size_t have = p->nreplay - p->replay_at;
        unsigned char *r = malloc(n);
        if (r == NULL) {
            errno = ENOMEM;
            return -1;
        }
        if (have > 0) {
            memcpy(r, p->replay + p->replay_at, have);
        }
        free(p->replay);
        p->replay = r;
        p->nreplay = have;
        p->replay_at = 0;
        const ssize_t got = fd_read_taped(p, r + have, n - have);
        if (got < 0) {
            return -1;
        }
        if (got == 0) {
            break;
        }
        p->nreplay += (size_t)got;
    }
    const size_t k = p->nreplay - p->replay_at < n ? p->nreplay - p->replay_at : n;
    if (k > 0) {
        memcpy(buf, p->replay + p->replay_at, k);
    }
    return (ssize_t)k;
}

void input_pipe_close(input_pipe *p)
{
    if (p == NULL) {
        return;
    }
    held_pipe *h = NULL;
    if (p->taping) {
        h = calloc(1, sizeof *h);
    }
    if (h != NULL) { /* the probe's open: keep the input for the next one */
        h->path = p->path;
        h->fd = p->fd;
        h->tape = p->tape;
        h->ntape = p->ntape;
        h->overflow = p->overflow;
        pthread_mutex_lock(&held_lock);
        h->next = held;
        held = h;
        pthread_mutex_unlock(&held_lock);
    } else {
        /* the importer's open (its held entry stays, taken: a third open
         * fails), or no memory to keep the probe's */
        (void)close(p->fd);
        free(p->tape);
        free(p->path);
    }
    free(p->replay);
    free(p);
}
