/* SPDX-License-Identifier: MIT
 *
 * input_pipe.c - inputs that are not plain files: "-" (standard input), a
 * pipe, a FIFO, a character device, a caller's read callback (read once,
 * like a pipe) and a caller's memory buffer (read from its start at every
 * open).  An import reads an input's first bytes to recognise its format,
 * closes it, and the importer opens it again; a pipe would have lost those
 * bytes.  So the first open of a read-once input records the raw bytes it
 * reads (its tape, at most TAPE_MAX bytes), its close keeps the descriptor
 * (or callback) and the tape in the import's input_sources, and the next
 * open of the same name replays the tape before reading on.  A third open,
 * or a second one after more than TAPE_MAX bytes were read, fails with a
 * clear message: formats read in two passes need a file.
 * Import library, core: libc, POSIX, pthreads.
 */
#include "input_pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAPE_MAX ((size_t)4 << 20) /* a probe reads far less (256 KiB reads) */

/* Where a read-once input's bytes come from. */
typedef struct once_src {
    int fd;                          /* -1 for a callback */
    const slog_import_input *input;  /* callback or memory input, else NULL */
} once_src;

struct input_pipe {
    input_sources *srcs;   /* NULL: nothing kept for a next open */
    char *path;
    once_src src;
    size_t mem_at;         /* memory input: next byte */
    unsigned char *replay; /* bytes to serve before the source's */
    size_t nreplay, replay_at;
    unsigned char *tape;   /* first open: every byte read, for the next */
    size_t ntape, captape;
    uint64_t consumed;     /* bytes handed out */
    bool taping;
    bool overflow;         /* the tape would have exceeded TAPE_MAX */
    char err[128];
};

/* What a first open left for the next one. */
struct held_pipe {
    held_pipe *next;
    char *path;
    once_src src;          /* fd -1 and input NULL once taken */
    bool taken;
    unsigned char *tape;
    size_t ntape;
    bool overflow;
};

int input_sources_init(input_sources *s, const slog_import_input *inputs, size_t n)
{
    memset(s, 0, sizeof *s);
    s->inputs = inputs;
    s->n = inputs != NULL ? n : 0;
    if (s->n > 0 && (s->read_bytes = calloc(s->n, sizeof *s->read_bytes)) == NULL) {
        return -1;
    }
    return pthread_mutex_init(&s->lock, NULL) == 0 ? 0 : -1;
}

void input_sources_destroy(input_sources *s)
{
    held_pipe *h = s->held;
    while (h != NULL) {
        held_pipe *const next = h->next;
        if (h->src.fd >= 0) {
            (void)close(h->src.fd);
        }
        free(h->tape);
        free(h->path);
        free(h);
        h = next;
    }
    free(s->read_bytes);
    (void)pthread_mutex_destroy(&s->lock);
    memset(s, 0, sizeof *s);
}

const slog_import_input *input_sources_find(const input_sources *s, const char *name)
{
    for (size_t i = 0; s != NULL && i < s->n; i++) {
        const slog_import_input *in = &s->inputs[i];
        if ((in->read != NULL || in->data != NULL) && strcmp(in->name, name) == 0) {
            return in;
        }
    }
    return NULL;
}

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

/* The held entry of @p path, or NULL; under the sources' lock. */
static held_pipe *held_find(const input_sources *s, const char *path)
{
    for (held_pipe *h = s->held; h != NULL; h = h->next) {
        if (strcmp(h->path, path) == 0) {
            return h;
        }
    }
    return NULL;
}

static input_pipe *pipe_new(input_sources *srcs, const char *path)
{
    input_pipe *p = calloc(1, sizeof *p);
    char *name = strdup(path);
    if (p == NULL || name == NULL) {
        free(p);
        free(name);
        return NULL;
    }
    p->srcs = srcs;
    p->path = name;
    p->src.fd = -1;
    return p;
}

static void pipe_free(input_pipe *p)
{
    free(p->path);
    free(p->replay);
    free(p);
}

/* The importer's open after the probe's: take what the probe kept.
 * 1 taken, 0 nothing held, -1 a third open (message). */
static int take_held(input_pipe *p, char *err, size_t errlen)
{
    if (p->srcs == NULL) {
        return 0;
    }
    pthread_mutex_lock(&p->srcs->lock);
    held_pipe *h = held_find(p->srcs, p->path);
    if (h != NULL && (h->taken || h->overflow)) {
        pthread_mutex_unlock(&p->srcs->lock);
        const bool cb = input_sources_find(p->srcs, p->path) != NULL;
        (void)snprintf(err, errlen,
                       "Cannot read %s twice (this format reads its input in two passes, or "
                       "the input was named twice): %s",
                       cb ? "a read callback" : "a pipe or standard input",
                       cb ? "give it as a path or in memory" : "save it to a file");
        return -1;
    }
    if (h != NULL) {
        p->src = h->src;
        p->replay = h->tape;
        p->nreplay = h->ntape;
        h->src.fd = -1;
        h->tape = NULL;
        h->taken = true;
    }
    pthread_mutex_unlock(&p->srcs->lock);
    return h != NULL;
}

/* Open a path that is not seekable: a descriptor of its own. */
static int open_fd(input_pipe *p, const struct stat *st, char *err, size_t errlen)
{
    p->src.fd = strcmp(p->path, "-") == 0 ? dup(STDIN_FILENO)
                                          : open(p->path, O_RDONLY | O_CLOEXEC);
    if (p->src.fd < 0) {
        (void)snprintf(err, errlen, "Cannot open: %s", strerror(errno));
        return -1;
    }
#ifdef F_SETPIPE_SZ
    if (S_ISFIFO(st->st_mode)) {
        /* 64 KiB by default: a writer and this reader would take turns
         * every 64 KiB; a bigger pipe lets them overlap (a hint) */
        (void)fcntl(p->src.fd, F_SETPIPE_SZ, 1 << 20);
    }
#else
    (void)st;
#endif
    return 0;
}

int input_pipe_open(input_pipe **out, input_sources *srcs, const char *path, char *err,
                    size_t errlen)
{
    *out = NULL;
    const slog_import_input *const in = input_sources_find(srcs, path);
    struct stat st;
    memset(&st, 0, sizeof st);
    if (in == NULL && input_path_stat(path, &st) != 0) {
        (void)snprintf(err, errlen, "Cannot open: %s", strerror(errno));
        return -1;
    }
    if (in == NULL && seekable(&st)) {
        return 0; /* a file: the caller opens it itself */
    }
    input_pipe *p = pipe_new(srcs, path);
    if (p == NULL) {
        return pipe_fail(err, errlen, "Out of memory");
    }
    if (in != NULL && in->data != NULL) { /* memory: every open from the start */
        p->src.input = in;
        *out = p;
        return 1;
    }
    const int held = take_held(p, err, errlen);
    if (held == 0 && in != NULL) {
        p->src.input = in;
    }
    if (held < 0 || (held == 0 && in == NULL && open_fd(p, &st, err, errlen) != 0)) {
        pipe_free(p);
        return -1;
    }
    p->taping = held == 0;
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

/* One read from the source: memory, callback or descriptor (EINTR retried). */
static ssize_t src_read(input_pipe *p, void *buf, size_t n)
{
    const slog_import_input *const in = p->src.input;
    if (in != NULL && in->data != NULL) {
        const size_t left = in->size - p->mem_at;
        const size_t k = n < left ? n : left;
        memcpy(buf, (const unsigned char *)in->data + p->mem_at, k);
        p->mem_at += k;
        return (ssize_t)k;
    }
    if (in != NULL) {
        size_t got = 0;
        const int rc = in->read(buf, n, &got, in->read_user);
        if (rc != SLOG_OK || got > n) {
            (void)snprintf(p->err, sizeof p->err, "the read callback failed (status %d)", rc);
            errno = EIO;
            return -1;
        }
        return (ssize_t)got;
    }
    ssize_t r;
    do {
        r = read(p->src.fd, buf, n);
    } while (r < 0 && errno == EINTR);
    return r;
}

/* A source read; what it reads goes on the tape. */
static ssize_t read_taped(input_pipe *p, void *buf, size_t n)
{
    const ssize_t r = src_read(p, buf, n);
    if (r > 0) {
        tape_add(p, buf, (size_t)r);
    }
    return r;
}

ssize_t input_pipe_read(input_pipe *p, void *buf, size_t n)
{
    ssize_t r;
    if (p->replay_at < p->nreplay) {
        const size_t left = p->nreplay - p->replay_at;
        const size_t k = n < left ? n : left;
        memcpy(buf, p->replay + p->replay_at, k);
        p->replay_at += k;
        r = (ssize_t)k;
    } else {
        r = read_taped(p, buf, n);
    }
    if (r > 0) {
        p->consumed += (uint64_t)r;
    }
    return r;
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
        const ssize_t got = read_taped(p, r + have, n - have);
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

const char *input_pipe_error(const input_pipe *p)
{
    return p->err;
}

const char *input_pipe_what(const input_pipe *p)
{
    if (p->src.input == NULL) {
        return "a pipe or standard input";
    }
    return p->src.input->data != NULL ? "memory" : "a read callback";
}

/* Note how far this open read its input (the summary's bytes of a pipe). */
static void note_consumed(const input_pipe *p)
{
    input_sources *const s = p->srcs;
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->inputs[i].name, p->path) == 0 && s->read_bytes[i] < p->consumed) {
            s->read_bytes[i] = p->consumed;
        }
    }
}

/* Keep a probe's open for the importer's; false if there is no memory. */
static bool hold(input_pipe *p)
{
    held_pipe *h = calloc(1, sizeof *h);
    if (h == NULL) {
        return false;
    }
    h->path = p->path;
    h->src = p->src;
    h->tape = p->tape;
    h->ntape = p->ntape;
    h->overflow = p->overflow;
    h->next = p->srcs->held;
    p->srcs->held = h;
    return true;
}

void input_pipe_close(input_pipe *p)
{
    if (p == NULL) {
        return;
    }
    bool kept = false;
    if (p->srcs != NULL) {
        pthread_mutex_lock(&p->srcs->lock);
        note_consumed(p);
        kept = p->taping && hold(p); /* memory inputs never tape */
        pthread_mutex_unlock(&p->srcs->lock);
    }
    if (!kept) {
        /* the importer's open (its held entry stays, taken: a third open
         * fails), a memory input, or no memory to keep the probe's */
        if (p->src.fd >= 0) {
            (void)close(p->src.fd);
        }
        free(p->tape);
        free(p->path);
    }
    free(p->replay);
    free(p);
}
