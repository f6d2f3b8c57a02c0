/* SPDX-License-Identifier: MIT
 *
 * trace_merge_stream.c - `slog-trace merge` of a directory without Python
 * tracing files, in memory bounded by the messages, not the drawables: a
 * first pass reads each process file once and keeps only its MPI rank and
 * its messages' ends; the matched messages become arrows in a file of
 * their own (beside the output, removed after), whose timelines stand for
 * the ranks' thread timelines; libslog-merge then streams every process
 * file, ranks first in rank order, and the arrows file into the output in
 * time slices.  Each process file's root timeline becomes its top ("rank R
 * (NAME)" once MPI_Init told the rank; SLOG_MERGE_LABEL_ROOT), so the
 * output reads process -> thread as the in-memory merge writes it.
 * Layer: slog-trace tool; public API only.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slog/slog.h>
#include <slog/slog_merge.h>

#include "trace_merge_int.h"
#include "trace_merge_msg.h"

/* A process file to merge. */
typedef struct stream_file {
    char *path;
    char *label;  /* its top timeline's name */
    int64_t rank; /* its MPI rank, or -1 */
    size_t order; /* position in the directory */
} stream_file;

typedef struct stream_ctx {
    stream_file *files;
    size_t n;
    merge_msgs *msgs;       /* the messages' ends, on arrows-file timelines */
    slog_merge_link *links; /* arrows-file timeline j stands for links[j].to_* */
    size_t nlinks;
    uint64_t ticks_per_second;
    trace_merge_tally tally;
    int64_t *ranks; /* MPI ranks seen, to tell a second run */
    size_t nranks;
    const char *out;
} stream_ctx;

/* One file's first pass: its messages (in msgs, on the arrows file's
 * timelines pair[tl], added to the links as file index `file`), its rank. */
typedef struct scan {
    stream_ctx *m;
    size_t file;
    uint32_t *pair; /* per timeline of the file: arrows-file timeline, or UINT32_MAX */
    merge_msgs *msgs;
    int64_t rank;
    uint32_t ntl; /* the file's timelines */
} scan;

/* The arrows-file timeline for timeline tl of the scanned file. */
static int pair_of(scan *s, uint32_t tl, uint32_t *out)
{
    if (s->pair[tl] == UINT32_MAX) {
        stream_ctx *const m = s->m;
        slog_merge_link *v = realloc(m->links, (m->nlinks + 1) * sizeof *v);
        if (v == NULL) {
            return -1;
        }
        m->links = v;
        s->pair[tl] = (uint32_t)m->nlinks;
        v[m->nlinks++] = (slog_merge_link){0, s->pair[tl], (uint32_t)s->file, tl};
    }
    *out = s->pair[tl];
    return 0;
}

/* Keep what item it tells: the rank (MPI_Init's world_rank), a message end. */
static int scan_item(scan *s, const slog_item *it, uint32_t ntl)
{
    const slog_arg *args = NULL;
    uint32_t nargs = 0, tl = 0;
    int64_t start = 0, end = 0;
    if (it->kind == SLOG_KIND_STATE) {
        args = it->u.state.args, nargs = it->u.state.nargs, tl = it->u.state.timeline;
        start = it->u.state.start, end = it->u.state.end;
    } else if (it->kind == SLOG_KIND_EVENT) {
        args = it->u.event.args, nargs = it->u.event.nargs, tl = it->u.event.timeline;
        start = end = it->u.event.time;
    }
    bool message = false;
    for (uint32_t a = 0; a < nargs; a++) {
        if (strcmp(args[a].key, "world_rank") == 0 && args[a].type == SLOG_ARG_INT && s->rank < 0) {
            s->rank = args[a].v.i;
        }
        message |= strcmp(args[a].key, "msg") == 0;
    }
    uint32_t pair = 0;
    if (!message || tl >= ntl) {
        return 0;
    }
    return pair_of(s, tl, &pair) == 0 ? merge_msgs_note(s->msgs, pair, start, end, args, nargs)
                                      : -1;
}

static int scan_one(void *ctx, const slog_item *it)
{
    scan *const s = ctx;
    return scan_item(s, it, s->ntl) == 0 ? SLOG_OK : SLOG_ENOMEM;
}

/* The label of r's top timeline: its root's name, "rank R (NAME)" with a rank. */
static char *label_of(slog_reader *r, int64_t rank)
{
    slog_timeline_info ti = {.name = ""};
    for (uint32_t i = 0; i < slog_reader_info(r)->timelines; i++) {
        if (slog_reader_timeline(r, i, &ti) == SLOG_OK && ti.parent == SLOG_NO_PARENT) {
            break;
        }
    }
    char *label = NULL;
    const int n = rank >= 0 ? asprintf(&label, "rank %" PRId64 " (%s)", rank,
                                       trace_merge_strip_rank(ti.name, rank))
                            : asprintf(&label, "%s", ti.name);
    return n < 0 ? NULL : label;
}

/* Add the scanned file (its messages, path, label) to m. */
static int keep_file(stream_ctx *m, scan *s, slog_reader *r, const char *path)
{
    stream_file *v = realloc(m->files, (m->n + 1) * sizeof *v);
    if (v == NULL) {
        return SLOG_ENOMEM;
    }
    m->files = v;
    stream_file *const f = &v[m->n];
    *f = (stream_file){strdup(path), label_of(r, s->rank), s->rank, s->file};
    if (f->path == NULL || f->label == NULL || merge_msgs_take(m->msgs, s->msgs) != 0) {
        free(f->path);
        free(f->label);
        return SLOG_ENOMEM;
    }
    m->n++;
    return trace_merge_note_rank(&m->ranks, &m->nranks, s->rank, path);
}

/* Open and check path: *r set when it is a process file to merge (the
 * clock the others have); else counted, and said when unreadable. */
static int open_process_file(stream_ctx *m, const char *path, slog_reader **r)
{
    slog_error err = {0};
    struct stat st;
    *r = NULL;
    if (stat(path, &st) == 0 && st.st_size == 0) {
        m->tally.empty++;
        return SLOG_OK;
    }
    int rc = slog_reader_open(r, path, NULL, &err);
    if (rc == SLOG_OK && trace_merge_not_process_file(*r)) {
        m->tally.jobfiles++;
        slog_reader_destroy(*r);
        *r = NULL;
        return SLOG_OK;
    }
    if (rc == SLOG_OK && m->ticks_per_second != 0 &&
        slog_reader_info(*r)->ticks_per_second != m->ticks_per_second) {
        rc = SLOG_EINVAL;
        (void)snprintf(err.message, sizeof err.message, "another clock than the files before");
    }
    if (rc != SLOG_OK) {
        slog_reader_destroy(*r);
        *r = NULL;
        m->tally.skipped++;
        (void)trace_merge_fail(path, "skipped, cannot read", rc, &err);
    }
    return rc == SLOG_ENOMEM ? rc : SLOG_OK;
}

/* The first pass over one file; a file that cannot be read to its end is
 * left out whole (its messages too).  Returns SLOG_OK or SLOG_ENOMEM. */
static int scan_file(stream_ctx *m, const char *path)
{
    slog_reader *r = NULL;
    int rc = open_process_file(m, path, &r);
    if (r == NULL) {
        return rc;
    }
    const slog_file_info *info = slog_reader_info(r);
    scan s = {
        m,  m->n,           calloc(info->timelines + 1u, sizeof(uint32_t)), merge_msgs_create(),
        -1, info->timelines};
    const size_t nlinks = m->nlinks;
    slog_error err = {0};
    rc = s.pair == NULL || s.msgs == NULL ? SLOG_ENOMEM : SLOG_OK;
    if (rc == SLOG_OK) {
        memset(s.pair, 0xff, (info->timelines + 1u) * sizeof(uint32_t));
        rc = trace_merge_each_item(r, scan_one, &s, &err);
    }
    rc = rc == SLOG_OK ? keep_file(m, &s, r, path) : rc;
    if (rc == SLOG_OK) {
        m->ticks_per_second = info->ticks_per_second;
        m->tally.merged++;
        trace_merge_warn_incomplete(path, info->complete, m->out, &m->tally);
    } else {
        m->nlinks = nlinks; /* forget its messages' timelines */
        (void)trace_merge_fail(path, rc == SLOG_ENOMEM ? "cannot merge" : "skipped, cannot read",
                               rc, &err);
        m->tally.skipped += rc != SLOG_ENOMEM;
    }
    free(s.pair);
    merge_msgs_destroy(s.msgs);
    slog_reader_destroy(r);
    return rc == SLOG_ENOMEM ? rc : SLOG_OK;
}

/* Ranks first, by rank; then the other processes in directory order. */
static int cmp_files(const void *pa, const void *pb)
{
    const stream_file *a = pa;
    const stream_file *b = pb;
    if ((a->rank >= 0) != (b->rank >= 0)) {
        return a->rank >= 0 ? -1 : 1;
    }
    if (a->rank != b->rank) {
        return a->rank < b->rank ? -1 : 1;
    }
    return a->order < b->order ? -1 : a->order > b->order ? 1 : 0;
}

/* Put the files in merge order; the links follow them (to_input), and
 * come from the arrows file, the last input. */
static int order_files(stream_ctx *m)
{
    uint32_t *const where = malloc((m->n + 1) * sizeof *where);
    if (where == NULL) {
        return SLOG_ENOMEM;
    }
    for (size_t i = 0; i < m->n; i++) {
        m->files[i].order = i; /* scan order, which is directory order */
    }
    qsort(m->files, m->n, sizeof *m->files, cmp_files);
    for (size_t i = 0; i < m->n; i++) {
        where[m->files[i].order] = (uint32_t)i;
    }
    for (size_t j = 0; j < m->nlinks; j++) {
        m->links[j].input = (uint32_t)m->n;
        m->links[j].to_input = where[m->links[j].to_input];
    }
    free(where);
    return SLOG_OK;
}

/* The arrows of the matched messages into a new file at path: timeline j
 * stands for links[j]. */
static int write_arrows(
    stream_ctx *m, const char *path, uint64_t *matched, uint64_t *unmatched, slog_error *err)
{
    slog_writer_options wo;
    slog_writer_options_init(&wo);
    wo.ticks_per_second = m->ticks_per_second;
    wo.creator = "slog-trace merge: MPI messages";
    slog_writer *w = NULL;
    int rc = slog_writer_create(&w, path, &wo, err);
    for (size_t j = 0; rc == SLOG_OK && j < m->nlinks; j++) {
        uint32_t id = 0;
        rc = slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "messages", 0, &id,
                                      err);
    }
    uint32_t cat = 0;
    if (rc == SLOG_OK) {
        rc = slog_writer_add_category(w, SLOG_KIND_ARROW, "MPI message", 0, "mpi", &cat, err);
    }
    if (rc == SLOG_OK) {
        rc = merge_msgs_write(m->msgs, w, cat, matched, unmatched, err);
    }
    rc = rc == SLOG_OK ? slog_writer_finish(w, err) : rc;
    slog_writer_destroy(w);
    return rc;
}

/* The process files and the arrows file (when any message) into out. */
static int merge_all(stream_ctx *m, const char *arrows, slog_merge_summary *sum, slog_error *err)
{
    const size_t n = m->n + (arrows != NULL ? 1u : 0u);
    const char **paths = calloc(n + 1, sizeof *paths);
    const char **labels = calloc(n + 1, sizeof *labels);
    bool all_ranks = m->n > 0;
    for (size_t i = 0; paths != NULL && labels != NULL && i < m->n; i++) {
        paths[i] = m->files[i].path, labels[i] = m->files[i].label;
        all_ranks &= m->files[i].rank >= 0;
    }
    int rc = paths == NULL || labels == NULL ? SLOG_ENOMEM : SLOG_OK;
    if (rc == SLOG_OK) {
        paths[m->n] = arrows; /* the last input, when there is one */
        slog_writer_options wo;
        slog_writer_options_init(&wo);
        wo.creator = "slog-trace merge";
        slog_merge_options o;
        slog_merge_options_init(&o);
        o.flags = SLOG_MERGE_ALLOW_INCOMPLETE | SLOG_MERGE_LABEL_ROOT;
        o.labels = labels;
        o.top_kind = all_ranks ? SLOG_TIMELINE_RANK : 0;
        o.writer = &wo;
        o.links = arrows != NULL ? m->links : NULL;
        o.nlinks = arrows != NULL ? m->nlinks : 0;
        rc = slog_merge_files(paths, n, m->out, &o, sum, err);
    }
    free(paths);
    free(labels);
    return rc;
}

/* The output when no file holds a process's drawables (all empty or
 * unreadable): a file with none, as a merge of empty inputs. */
static int write_empty(const char *out, slog_error *err)
{
    slog_writer *w = NULL;
    int rc = slog_writer_create(&w, out, NULL, err);
    rc = rc == SLOG_OK ? slog_writer_finish(w, err) : rc;
    slog_writer_destroy(w);
    return rc;
}

/* After the first pass: order, arrows, merge; the summary line.  Returns
 * the exit status. */
static int finish(stream_ctx *m)
{
    slog_error err = {0};
    uint64_t matched = 0, unmatched = 0;
    char *arrows = NULL;
    int rc = m->n == 0 ? write_empty(m->out, &err) : order_files(m);
    if (rc == SLOG_OK && m->nlinks > 0) {
        rc = asprintf(&arrows, "%s.messages-%ld.slog", m->out, (long)getpid()) < 0
                 ? (arrows = NULL, SLOG_ENOMEM)
                 : write_arrows(m, arrows, &matched, &unmatched, &err);
    }
    slog_merge_summary sum = {0};
    if (rc == SLOG_OK && m->n > 0) {
        rc = merge_all(m, arrows, &sum, &err);
    }
    if (arrows != NULL) {
        (void)unlink(arrows);
        free(arrows);
    }
    if (rc != SLOG_OK) {
        return trace_merge_fail(m->out, "cannot write", rc, &err);
    }
    const uint64_t drawables = sum.states + sum.events + sum.arrows + sum.counters - matched;
    trace_merge_summary_line(&m->tally, drawables, matched, unmatched, m->out);
    return m->tally.skipped > 0 ? 1 : 0; /* the rest is written; the loss is not silent */
}

/* What each way costs, measured (bench/bench_trace_merge.py and 1 100
 * files of a few drawables, 2026-12-07): the streamed merge keeps every
 * input open (its HDF5 file, reader and node cache: ~0.75 MiB each, one
 * descriptor each) over ~80 MiB of slices; the in-memory merge ~300 bytes
 * a drawable, one file open at a time. */
#define STREAM_INPUT_BYTES       ((uint64_t)1 << 20)
#define STREAM_BASE_BYTES        ((uint64_t)96 << 20)
#define IN_MEMORY_DRAWABLE_BYTES 320u

/* Room for n more open files, the soft limit raised to the hard one if
 * need be. */
static bool descriptors_for(uint64_t n)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        return false;
    }
    const rlim_t want = (rlim_t)n + 64; /* the tool's own, HDF5's */
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want && rl.rlim_max > rl.rlim_cur) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
        (void)getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want;
}

bool trace_merge_stream_fits(const char *dir, struct dirent *const *ents, int nents)
{
    if (!descriptors_for((uint64_t)nents)) {
        return false;
    }
    uint64_t drawables = 0;
    char path[4096];
    for (int i = 0; i < nents; i++) {
        (void)snprintf(path, sizeof path, "%s/%s", dir, ents[i]->d_name);
        slog_reader *r = NULL;
        if (slog_reader_open(&r, path, NULL, NULL) == SLOG_OK) {
            const slog_file_info *info = slog_reader_info(r);
            drawables += info->states + info->events + info->arrows + info->counters;
        }
        slog_reader_destroy(r);
    }
    return (uint64_t)nents * STREAM_INPUT_BYTES + STREAM_BASE_BYTES <
           drawables * IN_MEMORY_DRAWABLE_BYTES;
}

int trace_merge_streamed(const char *dir, struct dirent *const *ents, int nents, const char *out)
{
    stream_ctx m = {0};
    m.out = out;
    m.msgs = merge_msgs_create();
    int status = m.msgs == NULL ? 1 : 0;
    char path[4096];
    for (int i = 0; status == 0 && i < nents; i++) {
        (void)snprintf(path, sizeof path, "%s/%s", dir, ents[i]->d_name);
        status = scan_file(&m, path) == SLOG_OK ? 0 : 1;
    }
    status = status == 0 ? finish(&m) : 1;
    for (size_t i = 0; i < m.n; i++) {
        free(m.files[i].path);
        free(m.files[i].label);
    }
    free(m.files);
    free(m.links);
    free(m.ranks);
    merge_msgs_destroy(m.msgs);
    return status;
}
