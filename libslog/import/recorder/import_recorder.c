/* SPDX-License-Identifier: MIT
 *
 * import_recorder.c - slog-import entry for Recorder 2.4.x / 2.5.x trace
 * folders.  recorder_decode.c does the decoding; this file maps records to
 * drawables: one RANK timeline "rank N" per rank (THREAD children
 * "thread T" for records that carry a thread id), one state category per
 * function name (group = its layer: POSIX, MPI, MPI-IO, HDF5, user), one
 * state per record with depth = call depth and the arguments as args.
 *
 * Order of work:
 *   1. open the folder and every rank once (validates every file; collects
 *      each rank's MPI_Barrier(MPI_COMM_WORLD) calls for clock alignment);
 *      a damaged folder-wide file (VERSION, recorder.mt, a merged CST or
 *      grammar) fails here, before anything is written, but a rank whose
 *      own files are damaged is reported and left out, and a rank whose
 *      timestamps are cut short keeps the records before the cut;
 *   2. define timelines, then stream the ranks' records merged by end time;
 *      after a damaged rank the import fails once all that could be
 *      mapped is written, so the output is left incomplete.
 * Per rank, records come in start order and a parent ends after its
 * children, so each rank keeps a small min-heap of records whose end time
 * lies after the latest start seen; a record leaves the heap once no later
 * record can end before it.  A heap over the ranks then yields records in
 * nondecreasing end time, the writer's best case.  When the decoded
 * timestamps of all ranks would exceed slog_import_options.recorder_merge_bytes
 * (1 GiB by default), ranks are streamed one after another instead
 * (the writer places late drawables correctly).
 *
 * Times: epoch ns = start_ts (rank 0's start, the only absolute time in
 * the format) + the rank's ticks x time_resolution + the rank's alignment
 * shift; see doc/IMPORT-RECORDER.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "importer.h"
#include "path_bytes.h"
#include "recorder_decode.h"

#define MAX_ARGS     256u
#define MAX_BARRIERS 65536u /* world barriers kept per rank for alignment */

/* `return FAIL(ctx, ...)`: report through import_fail and yield 1, visibly
 * to static analysis. */
#define FAIL(...) (import_fail(__VA_ARGS__), 1)

/* ------------------------------------------------------------------ */
/* folder detection                                                   */

static bool is_file(const char *dir, const char *name)
{
    const size_t n = strlen(dir) + strlen(name) + 2;
    char *const path = malloc(n);
    if (path == NULL) {
        return false;
    }
    (void)snprintf(path, n, "%s/%s", dir, name);
    struct stat st;
    const bool yes = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    free(path);
    return yes;
}

/* The trace folder for an input path: the path itself if it is a folder,
 * else the folder of a VERSION or recorder.mt file.  Caller frees. */
static char *trace_folder(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        return strdup(path);
    }
    const char *const slash = strrchr(path, '/');
    const char *const base = slash != NULL ? slash + 1 : path;
    if (strcmp(base, "VERSION") != 0 && strcmp(base, "recorder.mt") != 0) {
        return NULL;
    }
    if (slash == NULL) {
        return strdup(".");
    }
    const size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *const dir = malloc(n + 1);
    if (dir != NULL) {
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    return dir;
}

static int recorder_probe(const char *path, const unsigned char *head, size_t n)
{
    (void)head;
    (void)n;
    char *const dir = trace_folder(path);
    if (dir == NULL) {
        return 0;
    }
    const bool yes = is_file(dir, "VERSION") && is_file(dir, "recorder.mt");
    struct stat st;
    const bool given_dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    free(dir);
    return yes ? (given_dir ? 100 : 90) : 0;
}

/* ------------------------------------------------------------------ */
/* categories: one per function name                                 */

typedef struct cat_entry {
    char *name;
    uint32_t id;
    uint64_t counts[IMPORT_OUTCOMES];
    rec_layer layer;
} cat_entry;

typedef struct cat_map {
    cat_entry *slots; /* open addressing, power-of-two size */
    uint32_t cap, used;
    int64_t by_func[256]; /* slot of a (non-user) function id, -1 unknown */
} cat_map;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603u;
    while (*s != '\0') {
        h = (h ^ (unsigned char)*s++) * 1099511628211u;
    }
    return h;
}

static int cat_map_init(cat_map *m)
{
    memset(m, 0, sizeof *m);
    m->cap = 512;
    m->slots = calloc(m->cap, sizeof *m->slots);
    for (size_t i = 0; i < 256; i++) {
        m->by_func[i] = -1;
    }
    return m->slots != NULL ? 0 : -1;
}

static void cat_map_free(cat_map *m)
{
    for (uint32_t i = 0; m->slots != NULL && i < m->cap; i++) {
        free(m->slots[i].name);
    }
    free(m->slots);
    memset(m, 0, sizeof *m);
}

/* Categories outlive one input: all inputs of an import go into one
 * writer, and a function keeps one legend entry across Recorder folders.
 * The map is attached to the import (import_attach), freed when it ends. */
static const char shared_cats_key = 0;

static void cats_destroy(void *p)
{
    cat_map_free(p);
    free(p);
}

/* The import's category map (made on first use), with per-input state
 * reset: function ids differ between Recorder versions, counts are per
 * input.  NULL when out of memory. */
static cat_map *cats_for(import_ctx *ctx)
{
    cat_map *m = import_attached(ctx, &shared_cats_key);
    if (m == NULL) {
        m = calloc(1, sizeof *m);
        if (m == NULL || cat_map_init(m) != 0 ||
            import_attach(ctx, &shared_cats_key, m, cats_destroy) != 0) {
            if (m != NULL) {
                cat_map_free(m);
            }
            free(m);
            return NULL;
        }
    }
    for (size_t i = 0; i < 256; i++) {
        m->by_func[i] = -1;
    }
    for (uint32_t i = 0; i < m->cap; i++) {
        memset(m->slots[i].counts, 0, sizeof m->slots[i].counts);
    }
    return m;
}

static uint32_t cat_find_slot(const cat_map *m, const char *name)
{
    uint32_t i = (uint32_t)hash_str(name) & (m->cap - 1);
    while (m->slots[i].name != NULL && strcmp(m->slots[i].name, name) != 0) {
        i = (i + 1) & (m->cap - 1);
    }
    return i;
}

static int cat_grow(cat_map *m)
{
    cat_map bigger = *m;
    bigger.cap = m->cap * 2;
    bigger.slots = calloc(bigger.cap, sizeof *bigger.slots);
    if (bigger.slots == NULL) {
        return -1;
    }
    for (uint32_t i = 0; i < m->cap; i++) {
        if (m->slots[i].name != NULL) {
            bigger.slots[cat_find_slot(&bigger, m->slots[i].name)] = m->slots[i];
        }
    }
    /* by_func holds slot numbers: rebuild them */
    for (size_t f = 0; f < 256; f++) {
        if (m->by_func[f] >= 0) {
            bigger.by_func[f] = cat_find_slot(&bigger, m->slots[m->by_func[f]].name);
        }
    }
    free(m->slots);
    *m = bigger;
    return 0;
}

/* ------------------------------------------------------------------ */
/* per-rank streams                                                   */

typedef struct pending {
    int64_t start, end; /* ns, shifted */
    const rec_sig *sig;
    uint64_t seq; /* call order, to break ties */
} pending;

typedef struct thread_tl {
    uint64_t tid;
    uint32_t timeline;
} thread_tl;

typedef struct rank_src {
    uint32_t rank;
    uint32_t timeline;
    int64_t (*barriers)[2]; /* [start, end] ticks of its MPI_Barrier(MPI_COMM_WORLD) calls */
    uint32_t nbarriers, barrier_cap;
    int64_t shift; /* ns added to this rank's times */
    uint64_t nrec;
    rec_rank *rk;
    pending *heap;
    size_t n, cap;
    int64_t last_start;
    bool exhausted;
    bool broken; /* its files cannot be read: left out */
    thread_tl *threads;
    uint32_t nthreads, thread_cap;
} rank_src;

typedef struct rec_import {
    import_ctx *ctx;
    rec_trace *t;
    const rec_header *h;
    const char *dir;
    int64_t start_ns;
    rank_src *ranks;
    uint32_t nranks;
    uint32_t parent; /* SLOG_NO_PARENT, or the folder's timeline with several inputs */
    cat_map *cats;   /* shared_cats.map */
    slog_arg *args;
    const char **arg_starts; /* MAX_ARGS each: argument split scratch */
    uint32_t *arg_lens;
    char *argtext;
    size_t argtext_cap;
    uint64_t done, total;
    uint64_t repaired;
    uint32_t damaged; /* ranks broken or cut short (reported) */
    uint64_t lost;    /* records of ranks cut short that have no timestamps */
    bool keep_offsets_text;
    const char *const *argnames[256]; /* names_for() per function id, cached */
    bool argnames_known[256];
} rec_import;

static bool pend_less(const pending *a, const pending *b)
{
    return a->end < b->end || (a->end == b->end && a->seq < b->seq);
}

static int heap_push(rank_src *s, const pending *p)
{
    if (s->n == s->cap) {
        const size_t cap = s->cap != 0 ? s->cap * 2 : 64;
        pending *const nh = realloc(s->heap, cap * sizeof *nh);
        if (nh == NULL) {
            return -1;
        }
        s->heap = nh;
        s->cap = cap;
    }
    size_t i = s->n++;
    while (i > 0 && pend_less(p, &s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = *p;
    return 0;
}

static pending heap_pop(rank_src *s)
{
    const pending top = s->heap[0];
    const pending last = s->heap[--s->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->n) {
            break;
        }
        if (c + 1 < s->n && pend_less(&s->heap[c + 1], &s->heap[c])) {
            c++;
        }
        if (!pend_less(&s->heap[c], &last)) {
            break;
        }
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->n > 0) {
        s->heap[i] = last;
    }
    return top;
}

static int64_t to_ns(const rec_import *im, const rank_src *s, int64_t ticks)
{
    return im->start_ns + rec_ticks_to_ns(im->h, ticks) + s->shift;
}

/* Read records until the heap's smallest end can no longer be undercut:
 * later records start at or after last_start, and end no earlier. */
static int src_fill(rec_import *im, rank_src *s)
{
    while (!s->exhausted && (s->n == 0 || s->heap[0].end > s->last_start)) {
        rec_record rec;
        if (rec_rank_next(s->rk, &rec) != SLOG_OK) {
            s->exhausted = true;
            break;
        }
        /* 2^52 ticks are > 14 years at 100 ns: far past any run, and safe
         * from int64 overflow once scaled to ns and offset by the epoch. */
        if (rec.tend >= (INT64_C(1) << 52) || rec.tstart >= (INT64_C(1) << 52)) {
            return FAIL(im->ctx, 0, 0, UINT64_MAX,
                        "Rank %u record %llu: time %lld ticks is out of range", s->rank,
                        (unsigned long long)rec.index, (long long)rec.tend);
        }
        pending p = {to_ns(im, s, rec.tstart), to_ns(im, s, rec.tend), rec.sig, rec.index};
        if (p.end < p.start) {
            /* the deltas are truncated independently; never seen in the
             * corpus, but a corrupted pair could do it */
            im->repaired++;
            if (im->repaired == 1) {
                import_warn(im->ctx, 0, 0, UINT64_MAX,
                            "Rank %u record %llu ends before it starts; end set to its start",
                            s->rank, (unsigned long long)rec.index);
            }
            p.end = p.start;
        }
        if (heap_push(s, &p) != 0) {
            return FAIL(im->ctx, 0, 0, UINT64_MAX, "Out of memory");
        }
        s->last_start = p.start;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* mapping one record                                                 */

#define writer_fail(im, what, err)                                                                 \
    FAIL((im)->ctx, 0, 0, UINT64_MAX, "Failed to %s: %s", (what), (err)->message)

static int thread_timeline(rec_import *im, rank_src *s, uint64_t tid, uint32_t *out)
{
    for (uint32_t i = 0; i < s->nthreads; i++) {
        if (s->threads[i].tid == tid) {
            *out = s->threads[i].timeline;
            return 0;
        }
    }
    if (s->nthreads == s->thread_cap) {
        const uint32_t cap = s->thread_cap != 0 ? s->thread_cap * 2 : 4;
        thread_tl *const nt = realloc(s->threads, cap * sizeof *nt);
        if (nt == NULL) {
            return FAIL(im->ctx, 0, 0, UINT64_MAX, "Out of memory");
        }
        s->threads = nt;
        s->thread_cap = cap;
    }
    char name[64];
    (void)snprintf(name, sizeof name, "thread %llu", (unsigned long long)tid);
    slog_error err;
    uint32_t id = 0;
    if (slog_writer_add_timeline(im->ctx->writer, s->timeline, SLOG_TIMELINE_THREAD, name,
                                 (int64_t)(tid & INT64_MAX), &id, &err) != SLOG_OK) {
        return writer_fail(im, "add a thread timeline", &err);
    }
    s->threads[s->nthreads++] = (thread_tl){tid, id};
    *out = id;
    return 0;
}

static int category_of(rec_import *im, const rec_sig *sig, const char *user_symbol, cat_entry **out)
{
    cat_map *const m = im->cats;
    const bool user = sig->func_id == REC_USER_FUNC_ID;
    if (!user && m->by_func[sig->func_id] >= 0) {
        *out = &m->slots[m->by_func[sig->func_id]];
        return 0;
    }
    const char *const name =
        user ? (user_symbol != NULL && user_symbol[0] != '\0' ? user_symbol : "user_function")
             : rec_trace_func_name(im->t, sig->func_id);
    if (2 * (m->used + 1) > m->cap && cat_grow(m) != 0) {
        return FAIL(im->ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    const uint32_t slot = cat_find_slot(m, name);
    cat_entry *const e = &m->slots[slot];
    if (e->name == NULL) {
        const rec_layer layer = rec_trace_func_layer(im->t, sig->func_id);
        slog_error err;
        if (slog_writer_add_category(im->ctx->writer, SLOG_KIND_STATE, name, 0,
                                     rec_layer_name(layer), &e->id, &err) != SLOG_OK) {
            return writer_fail(im, "add a category", &err);
        }
        e->name = strdup(name);
        if (e->name == NULL) {
            return FAIL(im->ctx, 0, 0, UINT64_MAX, "Out of memory");
        }
        e->layer = layer;
        m->used++;
    }
    if (!user) {
        m->by_func[sig->func_id] = slot;
    }
    *out = e;
    return 0;
}

/* Argument names for common calls, from Recorder's argument order (checked
 * against the corpus).  Arguments past the list, or of other calls, are
 * "arg<i>". */
typedef struct arg_names {
    const char *func;
    const char *names[7];
} arg_names;

static const arg_names known_args[] = {
    {"open", {"path", "flags", "mode"}},
    {"open64", {"path", "flags", "mode"}},
    {"creat", {"path", "mode"}},
    {"creat64", {"path", "mode"}},
    {"close", {"path"}},
    {"fsync", {"path"}},
    {"fdatasync", {"path"}},
    {"fclose", {"path"}},
    {"fflush", {"path"}},
    {"unlink", {"path"}},
    {"remove", {"path"}},
    {"read", {"path", "buf", "count"}},
    {"write", {"path", "buf", "count"}},
    {"pread", {"path", "buf", "count", "offset"}},
    {"pwrite", {"path", "buf", "count", "offset"}},
    {"pread64", {"path", "buf", "count", "offset"}},
    {"pwrite64", {"path", "buf", "count", "offset"}},
    {"lseek", {"path", "offset", "whence"}},
    {"lseek64", {"path", "offset", "whence"}},
    {"fopen", {"path", "mode"}},
    {"fopen64", {"path", "mode"}},
    {"fread", {"buf", "size", "count", "path"}},
    {"fwrite", {"buf", "size", "count", "path"}},
    {"fcntl", {"path", "cmd", "arg"}},
    {"mmap", {"addr", "length", "prot", "flags", "path", "offset"}},
    {"mmap64", {"addr", "length", "prot", "flags", "path", "offset"}},
    {"umask", {"mask"}},
    {"MPI_File_open", {"comm", "path", "amode", "info", "fh"}},
    {"MPI_File_close", {"fh"}},
    {"MPI_File_read_at", {"fh", "offset", "buf", "count", "datatype", "status"}},
    {"MPI_File_write_at", {"fh", "offset", "buf", "count", "datatype", "status"}},
    {"MPI_File_read_at_all", {"fh", "offset", "buf", "count", "datatype", "status"}},
    {"MPI_File_write_at_all", {"fh", "offset", "buf", "count", "datatype", "status"}},
    {"MPI_File_set_view", {"fh", "disp", "etype", "filetype", "datarep", "info"}},
    {"MPI_File_get_size", {"fh", "size"}},
    {"MPI_Send", {"buf", "count", "datatype", "dest", "tag", "comm"}},
    {"MPI_Recv", {"buf", "count", "datatype", "source", "tag", "comm", "status"}},
    {"MPI_Barrier", {"comm"}},
    {"MPI_Bcast", {"buf", "count", "datatype", "root", "comm"}},
    {"MPI_Allreduce", {"sendbuf", "recvbuf", "count", "datatype", "op", "comm"}},
    {"MPI_Comm_rank", {"comm", "rank"}},
    {"MPI_Comm_size", {"comm", "size"}},
    {"H5Fcreate", {"path", "flags", "fcpl", "fapl"}},
    {"H5Dread", {"dset", "mem_type", "mem_space", "file_space", "dxpl", "buf"}},
    {"H5Dwrite", {"dset", "mem_type", "mem_space", "file_space", "dxpl", "buf"}},
};

static const char *const *names_for(const char *func)
{
    for (size_t i = 0; i < sizeof known_args / sizeof known_args[0]; i++) {
        if (strcmp(known_args[i].func, func) == 0) {
            return known_args[i].names;
        }
    }
    return NULL;
}

/* A decimal integer argument becomes INT (or UINT past INT64_MAX). */
static void set_value(slog_arg *a, const char *text, bool keep_text)
{
    a->type = SLOG_ARG_STRING;
    a->v.s = text;
    const char *p = text + (text[0] == '-');
    const size_t n = strlen(p);
    if (keep_text || n == 0 || n > 20 || strspn(p, "0123456789") != n) {
        return;
    }
    errno = 0;
    char *end = NULL;
    if (text[0] == '-') {
        const long long v = strtoll(text, &end, 10);
        if (errno == 0 && *end == '\0') {
            a->type = SLOG_ARG_INT;
            a->v.i = v;
        }
        return;
    }
    const unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0') {
        return;
    }
    if (v <= (unsigned long long)INT64_MAX) {
        a->type = SLOG_ARG_INT;
        a->v.i = (int64_t)v;
    } else {
        a->type = SLOG_ARG_UINT;
        a->v.u = v;
    }
}

/* Fill im->args from a signature; returns the count, or -1 (failed). */
static int64_t build_args(rec_import *im, const rec_sig *sig, const char *func)
{
    const char **const starts = im->arg_starts;
    const uint32_t *const lens = im->arg_lens;
    uint32_t rest = 0;
    const uint32_t n = rec_split_args(sig, starts, im->arg_lens, MAX_ARGS, &rest);
    /* key text "argNNN" (8) + value, each NUL-terminated */
    const size_t need = (size_t)sig->args_len + (size_t)n * 10 + 16;
    if (need > im->argtext_cap) {
        char *const nb = realloc(im->argtext, need);
        if (nb == NULL) {
            import_fail(im->ctx, 0, 0, UINT64_MAX, "Out of memory");
            return -1;
        }
        im->argtext = nb;
        im->argtext_cap = need;
    }
    const bool user = sig->func_id == REC_USER_FUNC_ID;
    static const char *const user_names[] = {"object", "symbol"};
    if (!im->argnames_known[sig->func_id]) {
        im->argnames[sig->func_id] = user ? user_names : names_for(func);
        im->argnames_known[sig->func_id] = true;
    }
    const char *const *const names = im->argnames[sig->func_id];
    const size_t nnames = user ? 2 : 7;
    char *out = im->argtext;
    for (uint32_t i = 0; i < n; i++) {
        slog_arg *const a = &im->args[i];
        if (names != NULL && i < nnames && names[i] != NULL) {
            a->key = names[i];
        } else {
            a->key = out;
            out += (size_t)sprintf(out, "arg%u", i) + 1;
        }
        memcpy(out, starts[i], lens[i]);
        out[lens[i]] = '\0';
        /* pattern recognition turns offsets into text such as 4096*r+0 or
         * -96 (relative): offsets then stay text, never numbers */
        const bool keep = im->keep_offsets_text && strcmp(a->key, "offset") == 0;
        set_value(a, out, keep || user);
        out += lens[i] + 1;
    }
    return n;
}

static int emit(rec_import *im, rank_src *s, const pending *p)
{
    const rec_sig *const sig = p->sig;
    uint32_t timeline = s->timeline;
    if (sig->tid != 0 && thread_timeline(im, s, sig->tid, &timeline) != 0) {
        return 1;
    }
    const char *const func = rec_trace_func_name(im->t, sig->func_id);
    const int64_t nargs = build_args(im, sig, func != NULL ? func : "");
    if (nargs < 0) {
        return 1;
    }
    const char *symbol = NULL;
    if (sig->func_id == REC_USER_FUNC_ID && nargs >= 2) {
        symbol = im->args[1].v.s;
    }
    cat_entry *cat = NULL;
    if (category_of(im, sig, symbol, &cat) != 0) {
        return 1;
    }
    const slog_state st = {timeline,   cat->id,         p->start, p->end,
                           sig->depth, (uint32_t)nargs, im->args};
    slog_error err;
    if (slog_writer_append_state(im->ctx->writer, &st, &err) != SLOG_OK) {
        return writer_fail(im, "append a state", &err);
    }
    cat->counts[IMPORT_IMPORTED]++;
    im->done++;
    if ((im->done & 0xffff) == 0 && import_progress(im->ctx, im->done, im->total) != 0) {
        return FAIL(im->ctx, 0, 0, UINT64_MAX, "Import cancelled");
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* merge                                                              */

static bool src_less(const rank_src *a, const rank_src *b)
{
    return pend_less(&a->heap[0], &b->heap[0]) ||
           (a->heap[0].end == b->heap[0].end && a->heap[0].seq == b->heap[0].seq &&
            a->rank < b->rank);
}

/* Min-heap of rank indices, keyed by each rank's next record. */
static void sift_down(const rank_src *ranks, uint32_t *h, size_t n, size_t i)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) {
            return;
        }
        if (c + 1 < n && src_less(&ranks[h[c + 1]], &ranks[h[c]])) {
            c++;
        }
        if (!src_less(&ranks[h[c]], &ranks[h[i]])) {
            return;
        }
        const uint32_t tmp = h[c];
        h[c] = h[i];
        h[i] = tmp;
        i = c;
    }
}

static int rank_start(rec_import *im, rank_src *s)
{
    slog_error err;
    s->exhausted = true;
    if (s->broken) {
        return 0;
    }
    if (rec_rank_open_cut(&s->rk, im->t, s->rank, &err) != SLOG_OK) {
        /* validated before; only memory can fail here */
        im->ctx->display_name = err.source;
        return FAIL(im->ctx, 0, 0, err.offset, "%s", err.message);
    }
    s->exhausted = false;
    s->last_start = INT64_MIN;
    return src_fill(im, s);
}

static void rank_stop(rank_src *s)
{
    rec_rank_close(s->rk);
    s->rk = NULL;
    free(s->heap);
    s->heap = NULL;
    s->n = s->cap = 0;
}

/* Stream ranks [first, first + count) merged by end time. */
static int merge_ranks(rec_import *im, uint32_t first, uint32_t count)
{
    uint32_t *const h = calloc(count, sizeof *h);
    if (h == NULL) {
        return FAIL(im->ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    size_t n = 0;
    int rc = 0;
    for (uint32_t i = 0; i < count && rc == 0; i++) {
        rank_src *const s = &im->ranks[first + i];
        rc = rank_start(im, s);
        if (rc == 0 && s->n > 0) {
            h[n++] = first + i;
        }
    }
    for (size_t i = n; i-- > 0;) {
        sift_down(im->ranks, h, n, i);
    }
    while (rc == 0 && n > 0) {
        rank_src *const s = &im->ranks[h[0]];
        const pending p = heap_pop(s);
        rc = emit(im, s, &p);
        if (rc == 0) {
            rc = src_fill(im, s);
        }
        if (s->n == 0) {
            h[0] = h[--n];
        }
        sift_down(im->ranks, h, n, 0);
    }
    for (uint32_t i = 0; i < count; i++) {
        rank_stop(&im->ranks[first + i]);
    }
    free(h);
    return rc;
}

/* ------------------------------------------------------------------ */
/* validation pass and clock alignment                                */

static bool is_world_barrier(const rec_import *im, const rec_sig *sig)
{
    const char *const f = rec_trace_func_name(im->t, sig->func_id);
    return f != NULL && strcmp(f, "MPI_Barrier") == 0 && sig->args_len >= 15 &&
           memcmp(sig->args, "MPI_COMM_WORLD ", 15) == 0;
}

static int keep_barrier(rank_src *s, const rec_record *rec)
{
    if (s->nbarriers == MAX_BARRIERS) {
        return 0;
    }
    if (s->nbarriers == s->barrier_cap) {
        const uint32_t cap = s->barrier_cap != 0 ? 2 * s->barrier_cap : 16;
        int64_t(*const nb)[2] = realloc(s->barriers, cap * sizeof *nb);
        if (nb == NULL) {
            return -1;
        }
        s->barriers = nb;
        s->barrier_cap = cap;
    }
    s->barriers[s->nbarriers][0] = rec->tstart;
    s->barriers[s->nbarriers][1] = rec->tend;
    s->nbarriers++;
    return 0;
}

/* A rank that is damaged: reported with its file and offset; the import
 * goes on with the others (out of memory stops it). */
static int rank_damaged(rec_import *im, rank_src *s, const slog_error *err, uint64_t kept)
{
    if (err->code == SLOG_ENOMEM) {
        return FAIL(im->ctx, 0, 0, err->offset, "%s", err->message);
    }
    const char *const shown = im->ctx->display_name;
    im->ctx->display_name = err->source;
    if (s->broken) {
        (void)import_fail(im->ctx, 0, 0, err->offset,
                          "%s; rank %u is left out, the other ranks are imported", err->message,
                          s->rank);
    } else {
        (void)import_fail(im->ctx, 0, 0, err->offset,
                          "%s; rank %u keeps its first %llu of %llu records", err->message, s->rank,
                          (unsigned long long)kept, (unsigned long long)s->nrec);
    }
    im->ctx->display_name = shown;
    im->damaged++;
    return 0;
}

/* Open one rank: counts its records, collects its world barriers. */
static int validate_rank(rec_import *im, rank_src *s, uint64_t *ts_bytes)
{
    rec_rank *rk = NULL;
    slog_error err;
    if (rec_rank_open_cut(&rk, im->t, s->rank, &err) != SLOG_OK) {
        s->broken = true;
        return rank_damaged(im, s, &err, 0);
    }
    s->nrec = rec_rank_record_count(rk);
    const uint64_t avail = rec_rank_available(rk);
    im->total += avail;
    *ts_bytes += 8 * avail;
    rec_record rec;
    int rc = 0;
    while (rc == 0 && rec_rank_next(rk, &rec) == SLOG_OK) {
        if (is_world_barrier(im, rec.sig)) {
            rc = keep_barrier(s, &rec);
        }
    }
    const bool cut = rec_rank_damage(rk, &err);
    rec_rank_close(rk);
    im->lost += s->nrec - avail;
    if (rc != 0) {
        return FAIL(im->ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    return cut ? rank_damaged(im, s, &err, avail) : 0;
}

/* Open every rank once: checks every file before anything is written,
 * counts records and collects the MPI_Barrier(MPI_COMM_WORLD) calls. */
static int validate_ranks(rec_import *im, uint64_t *ts_bytes)
{
    *ts_bytes = 0;
    for (uint32_t r = 0; r < im->nranks; r++) {
        im->ranks[r].rank = r;
        if (validate_rank(im, &im->ranks[r], ts_bytes) != 0) {
            return 1;
        }
    }
    return 0;
}

/* Ranks count their ticks from their own start, but the format stores only
 * rank 0's start time (see doc/IMPORT-RECORDER.md).  Barriers on
 * MPI_COMM_WORLD are the only synchronisation every rank records, and the
 * k-th one is the same call on every rank.  Each rank r > 0 is shifted by
 * d so that (1) its first world barrier ends when rank 0's does, then
 * (2) d is clamped into the interval where no world barrier on r ends
 * before rank 0 entered it, nor on rank 0 before r entered it (when that
 * interval is not empty).  Without a world barrier on every rank nothing is
 * shifted.  SLOG_RECORDER_ALIGN=none keeps the raw per-rank clocks. */
static int64_t barrier_shift(const rank_src *r0, const rank_src *rr, uint32_t n)
{
    const int64_t(*const b0)[2] = (const int64_t(*)[2])r0->barriers;
    const int64_t(*const br)[2] = (const int64_t(*)[2])rr->barriers;
    const int64_t d = b0[0][1] - br[0][1];
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    for (uint32_t k = 0; k < n; k++) {
        lo = b0[k][0] - br[k][1] > lo ? b0[k][0] - br[k][1] : lo;
        hi = b0[k][1] - br[k][0] < hi ? b0[k][1] - br[k][0] : hi;
    }
    if (lo > hi) {
        return d;
    }
    return d < lo ? lo : d > hi ? hi : d;
}

static void align_clocks(rec_import *im)
{
    if (import_options(im->ctx)->flags & SLOG_IMPORT_RECORDER_RAW) {
        return;
    }
    /* ranks left out have no records to move */
    uint32_t n = UINT32_MAX;
    for (uint32_t r = 0; r < im->nranks; r++) {
        if (!im->ranks[r].broken) {
            n = im->ranks[r].nbarriers < n ? im->ranks[r].nbarriers : n;
        }
    }
    if (n == 0 || n == UINT32_MAX || im->ranks[0].broken) {
        return;
    }
    for (uint32_t r = 1; r < im->nranks; r++) {
        if (im->ranks[r].broken) {
            continue;
        }
        const int64_t d = barrier_shift(&im->ranks[0], &im->ranks[r], n);
        /* ticks -> ns keeps the sign: the conversion is linear */
        im->ranks[r].shift = d >= 0 ? rec_ticks_to_ns(im->h, d) : -rec_ticks_to_ns(im->h, -d);
    }
}

static int define_timelines(rec_import *im)
{
    slog_error err;
    slog_writer *const w = im->ctx->writer;
    im->parent = SLOG_NO_PARENT;
    if (im->ctx->input_count > 1) {
        /* several inputs in one file: keep each run's ranks apart */
        const char *const slash = strrchr(im->dir, '/');
        const char *const base = slash != NULL && slash[1] != '\0' ? slash + 1 : im->dir;
        if (slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_GENERIC, base,
                                     (int64_t)im->ctx->input_index, &im->parent, &err) != SLOG_OK) {
            return writer_fail(im, "add a timeline", &err);
        }
    }
    for (uint32_t r = 0; r < im->nranks; r++) {
        char name[32];
        (void)snprintf(name, sizeof name, "rank %u", r);
        if (slog_writer_add_timeline(w, im->parent, SLOG_TIMELINE_RANK, name, (int64_t)r,
                                     &im->ranks[r].timeline, &err) != SLOG_OK) {
            return writer_fail(im, "add a timeline", &err);
        }
    }
    return 0;
}

typedef struct id_slot {
    uint32_t id, slot;
} id_slot;

static int cmp_cat_id(const void *a, const void *b)
{
    const uint32_t x = ((const id_slot *)a)->id, y = ((const id_slot *)b)->id;
    return (x > y) - (x < y);
}

/* Counts per function, in category order (first use). */
static void report_counts(rec_import *im)
{
    const cat_map *const m = im->cats;
    id_slot *const list = calloc(m->used + 1u, sizeof *list);
    uint32_t n = 0;
    for (uint32_t i = 0; list != NULL && i < m->cap; i++) {
        if (m->slots[i].name != NULL && m->slots[i].counts[IMPORT_IMPORTED] > 0) {
            list[n++] = (id_slot){m->slots[i].id, i};
        }
    }
    if (list != NULL) {
        qsort(list, n, sizeof *list, cmp_cat_id);
    }
    for (uint32_t i = 0; i < n; i++) {
        const cat_entry *const e = &m->slots[list[i].slot];
        char what[300];
        (void)snprintf(what, sizeof what, "%s %s", rec_layer_name(e->layer), e->name);
        import_count(im->ctx, what, IMPORT_IMPORTED, e->counts[IMPORT_IMPORTED]);
    }
    free(list);
    if (im->repaired > 0) {
        import_count(im->ctx, "Recorder record ending before its start", IMPORT_REPAIRED,
                     im->repaired);
    }
    import_count(im->ctx, "Recorder record cut off (no timestamps)", IMPORT_SKIPPED, im->lost);
}


static int import_records(rec_import *im)
{
    uint64_t ts_bytes = 0;
    int rc = validate_ranks(im, &ts_bytes);
    if (rc != 0) {
        return rc;
    }
    align_clocks(im);
    rc = define_timelines(im);
    if (rc != 0) {
        return rc;
    }
    if (ts_bytes <= import_options(im->ctx)->recorder_merge_bytes) {
        rc = merge_ranks(im, 0, im->nranks);
    } else {
        for (uint32_t r = 0; r < im->nranks && rc == 0; r++) {
            rc = merge_ranks(im, r, 1);
        }
    }
    if (rc == 0) {
        (void)import_progress(im->ctx, im->done, im->total);
        report_counts(im);
    }
    return rc != 0 || im->damaged > 0 ? 1 : 0; /* damage was reported (rank_damaged) */
}

static int recorder_run(import_ctx *ctx, const char *path)
{
    rec_import im;
    memset(&im, 0, sizeof im);
    im.ctx = ctx;
    const char *const shown = ctx->display_name;
    char *const dir = trace_folder(path); /* a local: freed at out */
    if (dir == NULL) {
        return FAIL(ctx, 0, 0, UINT64_MAX,
                    "Cannot use this path: a Recorder trace is a folder (or its "
                    "VERSION / recorder.mt file)");
    }
    im.dir = dir;
    import_input_bytes(ctx, path_bytes(dir));
    slog_error err;
    int rc = 0;
    if (rec_trace_open(&im.t, dir, &err) != SLOG_OK) {
        ctx->display_name = err.source;
        rc = import_fail(ctx, 0, 0, err.offset, "%s", err.message);
        goto out;
    }
    im.h = rec_trace_header(im.t);
    im.start_ns = rec_start_ns(im.h);
    im.keep_offsets_text =
        im.h->interprocess_pattern_recognition || im.h->intraprocess_pattern_recognition;
    im.nranks = (uint32_t)im.h->total_ranks;
    im.ranks = calloc(im.nranks, sizeof *im.ranks);
    im.args = calloc(MAX_ARGS, sizeof *im.args);
    im.arg_starts = calloc(MAX_ARGS, sizeof *im.arg_starts);
    im.arg_lens = calloc(MAX_ARGS, sizeof *im.arg_lens);
    if (im.ranks == NULL || im.args == NULL || im.arg_starts == NULL || im.arg_lens == NULL ||
        (im.cats = cats_for(ctx)) == NULL) {
        rc = import_fail(ctx, 0, 0, UINT64_MAX, "Out of memory");
        goto out;
    }
    rc = import_records(&im);
out:
    ctx->display_name = shown;
    for (uint32_t r = 0; im.ranks != NULL && r < im.nranks; r++) {
        rank_stop(&im.ranks[r]);
        free(im.ranks[r].threads);
        free(im.ranks[r].barriers);
    }
    free(im.ranks);
    free(im.args);
    free((void *)im.arg_starts);
    free(im.arg_lens);
    free(im.argtext);
    rec_trace_close(im.t);
    free(dir);
    return rc;
}

const importer import_recorder = {"recorder", recorder_probe, recorder_run, NULL, true, 1};
