/* SPDX-License-Identifier: MIT
 *
 * trace_merge.c - `slog-trace merge DIR -o OUT.slog`: every .slog file in DIR (a
 * process's file, complete or cut short by a crash) is read whole through
 * the reader API and written into one file: a top timeline per file
 * ("rank R" when the process called MPI_Init, else its process name), the
 * file's thread timelines under it, categories joined by (kind, name),
 * args kept; MPI messages become arrows (trace_merge_msg.c); a Python
 * tracing file joins its process's timelines (trace_merge_join.c).  This way
 * holds everything in memory and appends by end time: it is taken when a
 * Python tracing file is there (its states are nested again with its
 * process's); any other directory is merged in bounded memory
 * (trace_merge_stream.c).
 * Layer: slog-trace tool; public API only.
 */
#define _GNU_SOURCE
#include "trace_merge.h"

#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <slog/slog.h>

#include "cli.h"
#include "trace_arg_copy.h"
#include "trace_merge_int.h"
#include "trace_merge_join.h"
#include "trace_merge_msg.h"

#define PROG "slog-trace merge"

typedef struct merge_cat {
    slog_kind kind;
    char *name;
    uint32_t id;
} merge_cat;

typedef struct merge_ctx {
    slog_writer *w;
    merge_item *items;
    size_t n, cap;
    merge_cat *cats;
    size_t ncats;
    merge_msgs *msgs;
    merge_join *join; /* processes by <host>-<pid>, for their Python files */
    int python;       /* the file being read is a Python tracing file */
    uint64_t ticks_per_second;
    size_t incomplete; /* merged files whose writer did not finish (a killed process) */
    const char *out;   /* the output's path, for messages */
    int64_t *ranks;    /* the MPI ranks merged so far, to tell a second run */
    size_t nranks;
} merge_ctx;

int trace_merge_fail(const char *path, const char *what, int rc, const slog_error *err)
{
    (void)fprintf(stderr, PROG ": %s: %s: %s (%s)\n", path, what,
                  err != NULL && err->message[0] != '\0' ? err->message : "failed",
                  slog_status_name(rc));
    return 1;
}

/* The output category for input category c of reader r. */
static int map_category(merge_ctx *m, slog_reader *r, uint32_t c, uint32_t *out)
{
    slog_category_info ci;
    if (slog_reader_category(r, c, &ci) != SLOG_OK) {
        return SLOG_EINVAL;
    }
    for (size_t i = 0; i < m->ncats; i++) {
        if (m->cats[i].kind == ci.kind && strcmp(m->cats[i].name, ci.name) == 0) {
            *out = m->cats[i].id;
            return SLOG_OK;
        }
    }
    merge_cat *cats = realloc(m->cats, (m->ncats + 1) * sizeof *cats);
    if (cats == NULL) {
        return SLOG_ENOMEM;
    }
    m->cats = cats;
    merge_cat *nc = &cats[m->ncats];
    nc->kind = ci.kind;
    nc->name = strdup(ci.name);
    if (nc->name == NULL) {
        return SLOG_ENOMEM;
    }
    const int rc = slog_writer_add_category(m->w, ci.kind, ci.name, ci.rgba,
                                            ci.group[0] != '\0' ? ci.group : NULL, &nc->id, NULL);
    if (rc == SLOG_OK) {
        m->ncats++;
        *out = nc->id;
    } else {
        free(nc->name);
    }
    return rc;
}

/* One query item as a merge_item (input timeline ids, output categories). */
static int take_item(merge_ctx *m, slog_reader *r, const slog_item *it)
{
    merge_item x = {it->kind, 0, 0, 0, 0, 0, 0, 0, 0.0, NULL, m->python};
    const slog_arg *args = NULL;
    uint32_t cat = 0;
    switch (it->kind) {
    case SLOG_KIND_STATE:
        x.timeline = x.timeline_to = it->u.state.timeline, cat = it->u.state.category;
        x.start = it->u.state.start, x.end = it->u.state.end, x.depth = it->u.state.depth;
        x.nargs = it->u.state.nargs, args = it->u.state.args;
        break;
    case SLOG_KIND_EVENT:
        x.timeline = x.timeline_to = it->u.event.timeline, cat = it->u.event.category;
        x.start = x.end = it->u.event.time, x.nargs = it->u.event.nargs, args = it->u.event.args;
        break;
    case SLOG_KIND_ARROW:
        x.timeline = it->u.arrow.from, x.timeline_to = it->u.arrow.to, cat = it->u.arrow.category;
        x.start = it->u.arrow.start, x.end = it->u.arrow.end;
        x.nargs = it->u.arrow.nargs, args = it->u.arrow.args;
        break;
    case SLOG_KIND_COUNTER:
        x.timeline = x.timeline_to = it->u.counter.timeline, cat = it->u.counter.category;
        x.start = x.end = it->u.counter.time, x.value = it->u.counter.value;
        break;
    default:
        return SLOG_OK;
    }
    int rc = map_category(m, r, cat, &x.category);
    if (rc != SLOG_OK) {
        return rc;
    }
    x.args = trace_arg_copy(args, x.nargs);
    if (x.nargs > 0 && x.args == NULL) {
        return SLOG_ENOMEM;
    }
    if (m->n == m->cap) {
        const size_t cap = m->cap == 0 ? 1024 : m->cap * 2;
        merge_item *v = realloc(m->items, cap * sizeof *v);
        if (v == NULL) {
            free(x.args);
            return SLOG_ENOMEM;
        }
        m->items = v, m->cap = cap;
    }
    m->items[m->n++] = x;
    return SLOG_OK;
}

int trace_merge_each_item(slog_reader *r,
                          int (*fn)(void *ctx, const slog_item *it),
                          void *ctx,
                          slog_error *err)
{
    const slog_file_info *info = slog_reader_info(r);
    if (info->start > info->end) {
        return SLOG_OK; /* no drawable (a process that recorded nothing): nothing to read */
    }
    slog_query_options qo;
    slog_query_options_init(&qo);
    qo.t0 = info->start;
    qo.t1 = info->end == INT64_MAX ? INT64_MAX : info->end + 1;
    qo.kinds = 0xfu;
    qo.flags = SLOG_QUERY_ARGS;
    slog_query *q = NULL;
    int rc = slog_query_create(&q, r, &qo, err);
    const slog_item *it = NULL;
    while (rc == SLOG_OK && (rc = slog_query_next(q, &it, err)) == SLOG_OK) {
        rc = fn(ctx, it);
    }
    slog_query_destroy(q);
    return rc == SLOG_END ? SLOG_OK : rc;
}

typedef struct take_ctx {
    merge_ctx *m;
    slog_reader *r;
} take_ctx;

static int take_one(void *ctx, const slog_item *it)
{
    const take_ctx *t = ctx;
    return take_item(t->m, t->r, it);
}

/* Every drawable of r, with args, into m->items. */
static int read_all(merge_ctx *m, slog_reader *r, slog_error *err)
{
    take_ctx t = {m, r};
    return trace_merge_each_item(r, take_one, &t, err);
}

/* The MPI rank the process recorded (MPI_Init's "rank" arg), or -1. */
static int64_t find_rank(const merge_ctx *m, size_t first)
{
    for (size_t i = first; i < m->n; i++) {
        for (uint32_t a = 0; a < m->items[i].nargs; a++) {
            const slog_arg *g = &m->items[i].args[a];
            if (strcmp(g->key, "world_rank") == 0 && g->type == SLOG_ARG_INT) {
                return g->v.i;
            }
        }
    }
    return -1;
}

/* A process that called MPI_Init renamed itself "rank R: NAME"
 * (trace_mpi_p2p.c): NAME alone, so the top timeline reads "rank R (NAME)". */
const char *trace_merge_strip_rank(const char *name, int64_t rank)
{
    char prefix[32];
    const int n = snprintf(prefix, sizeof prefix, "rank %" PRId64 ": ", rank);
    return n > 0 && strncmp(name, prefix, (size_t)n) == 0 ? name + n : name;
}

/* An output timeline's name, kind and sort key. */
typedef struct out_timeline {
    char name[512];
    slog_timeline_kind kind;
    int64_t key;
} out_timeline;

/* Output name, kind and sort key of input timeline ti, a top one when
 * parent is SLOG_NO_PARENT. */
static void name_timeline(
    const slog_timeline_info *ti, uint32_t parent, int64_t rank, size_t index, out_timeline *o)
{
    o->kind = ti->kind;
    o->key = ti->sort_key;
    if (parent == SLOG_NO_PARENT && rank >= 0) {
        (void)snprintf(o->name, sizeof o->name, "rank %" PRId64 " (%s)", rank,
                       trace_merge_strip_rank(ti->name, rank));
        o->kind = SLOG_TIMELINE_RANK, o->key = rank;
    } else {
        (void)snprintf(o->name, sizeof o->name, "%s", ti->name);
        o->key = parent == SLOG_NO_PARENT ? (int64_t)(1000000 + index) : o->key;
    }
}

/* A Python tracing file's timeline i joined to its process (top): the top
 * itself for its root, the process's thread of the same name, or a new
 * thread under the top.  SLOG_OK with *out set, or SLOG_ENOMEM. */
static int join_timeline(
    merge_ctx *m, const slog_timeline_info *ti, uint32_t parent, uint32_t top, uint32_t *out)
{
    if (parent == SLOG_NO_PARENT) {
        *out = top;
        return SLOG_OK;
    }
    int oom = 0;
    *out = parent == top ? merge_join_thread(m->join, ti->name, &oom) : SLOG_NO_PARENT;
    if (oom || *out != SLOG_NO_PARENT) {
        return oom ? SLOG_ENOMEM : SLOG_OK;
    }
    return slog_writer_add_timeline(m->w, parent, ti->kind, ti->name, ti->sort_key, out, NULL);
}

/* The file's timelines under one top timeline per file (a Python tracing
 * file's under its process's: top, else SLOG_NO_PARENT); map[i] is the
 * output id of input timeline i. */
static int define_timelines(
    merge_ctx *m, slog_reader *r, int64_t rank, size_t index, uint32_t top, uint32_t *map)
{
    const uint32_t n = slog_reader_info(r)->timelines;
    for (uint32_t i = 0; i < n; i++) {
        slog_timeline_info ti;
        int rc = slog_reader_timeline(r, i, &ti);
        if (rc != SLOG_OK) {
            return rc;
        }
        const uint32_t parent = ti.parent < i ? map[ti.parent] : SLOG_NO_PARENT;
        if (top != SLOG_NO_PARENT) {
            rc = join_timeline(m, &ti, parent, top, &map[i]);
        } else {
            out_timeline o;
            name_timeline(&ti, parent, rank, index, &o);
            rc = slog_writer_add_timeline(m->w, parent, o.kind, o.name, o.key, &map[i], NULL);
        }
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    return SLOG_OK;
}

/* Note a process file's top timeline and its threads (the top's children)
 * for a Python tracing file of the same process. */
static int note_process(merge_ctx *m, slog_reader *r, const char *file_name, const uint32_t *map)
{
    const slog_file_info *const info = slog_reader_info(r);
    uint32_t root = SLOG_NO_PARENT;
    for (uint32_t i = 0; i < info->timelines; i++) {
        slog_timeline_info ti;
        if (slog_reader_timeline(r, i, &ti) != SLOG_OK) {
            return SLOG_ECORRUPT;
        }
        if (root == SLOG_NO_PARENT && ti.parent == SLOG_NO_PARENT) {
            root = i;
            if (merge_join_add_process(m->join, file_name, map[i], info->start) != 0) {
                return SLOG_ENOMEM;
            }
        } else if (root != SLOG_NO_PARENT && ti.parent == root &&
                   merge_join_add_thread(m->join, ti.name, map[i]) != 0) {
            return SLOG_ENOMEM;
        }
    }
    return SLOG_OK;
}

/* A second file of one MPI rank: DIR holds more than one run (a job traced
 * again into the same DIR: under mpirun the launcher cannot tell an earlier
 * run's files from the other ranks'), whose files are merged, and whose
 * messages are matched, as one job's.  Said once per such file; the merge
 * goes on. */
int trace_merge_note_rank(int64_t **ranks, size_t *n, int64_t rank, const char *path)
{
    for (size_t i = 0; rank >= 0 && i < *n; i++) {
        if ((*ranks)[i] == rank) {
            (void)fprintf(stderr,
                          PROG ": %s: warning: a second file of MPI rank %" PRId64
                          ": the directory holds more than one run, merged (their messages "
                          "matched) as one job; trace each run into a directory of its own\n",
                          path, rank);
            return SLOG_OK;
        }
    }
    if (rank < 0) {
        return SLOG_OK;
    }
    int64_t *v = realloc(*ranks, (*n + 1) * sizeof *v);
    if (v == NULL) {
        return SLOG_ENOMEM;
    }
    *ranks = v;
    v[(*n)++] = rank;
    return SLOG_OK;
}

/* The creator of an MPI job's arrows.slog (libslog/mpi/mw_arrows.c). */
#define MPI_ARROWS_CREATOR "slog-mpi messages"

/* The creator of this merge's output (both ways: trace_merge_stream.c's
 * too), and the start of its arrows file's. */
#define MERGE_CREATOR "slog-trace merge"

/* Files of a directory that hold no process's own data: an index
 * (DIR/index.slog, slog-merge --index) reads the rank files, which are
 * merged themselves; an MPI job's arrows.slog holds the arrows of the
 * messages this merge pairs from the send/recv states; an earlier merge's
 * output (slog-trace merge DIR -o DIR/all.slog, run again) holds the
 * files again.  Merged, each doubles them. */
bool trace_merge_not_process_file(const slog_reader *r)
{
    const char *const creator = slog_reader_info(r)->creator;
    return slog_reader_index_inputs(r) > 0 ||
           (creator != NULL && (strcmp(creator, MPI_ARROWS_CREATOR) == 0 ||
                                strncmp(creator, MERGE_CREATOR, strlen(MERGE_CREATOR)) == 0));
}

/* What became of one file: left out (an index or an arrows file: nothing
 * merged), or merged, complete or not. */
typedef struct file_outcome {
    bool left_out;
    bool complete;
} file_outcome;

/* Merge one file (path, its name in DIR); *o says what became of it. */
static int merge_file(merge_ctx *m,
                      const char *path,
                      const char *name,
                      size_t index,
                      file_outcome *o,
                      slog_error *err)
{
    slog_reader *r = NULL;
    int rc = slog_reader_open(&r, path, NULL, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    o->left_out = trace_merge_not_process_file(r);
    if (o->left_out) {
        slog_reader_destroy(r);
        return SLOG_OK;
    }
    const slog_file_info *info = slog_reader_info(r);
    o->complete = info->complete;
    if (m->ticks_per_second == 0) {
        m->ticks_per_second = info->ticks_per_second;
    }
    const size_t first = m->n;
    uint32_t *map = calloc(info->timelines + 1u, sizeof *map);
    rc = map == NULL                                     ? SLOG_ENOMEM
         : info->ticks_per_second != m->ticks_per_second ? SLOG_EINVAL
                                                         : SLOG_OK;
    m->python = merge_join_is_python(name);
    if (rc == SLOG_OK && (rc = read_all(m, r, err)) == SLOG_OK) {
        const uint32_t top =
            m->python ? merge_join_select(m->join, name, info->start) : SLOG_NO_PARENT;
        const int64_t rank = find_rank(m, first);
        rc = define_timelines(m, r, rank, index, top, map);
        rc = rc == SLOG_OK && !m->python ? trace_merge_note_rank(&m->ranks, &m->nranks, rank, path)
                                         : rc;
    }
    if (rc == SLOG_OK && !m->python) {
        rc = note_process(m, r, name, map);
    }
    for (size_t i = first; rc == SLOG_OK && i < m->n; i++) {
        merge_item *x = &m->items[i];
        x->timeline = map[x->timeline], x->timeline_to = map[x->timeline_to];
        rc = merge_msgs_note(m->msgs, x->timeline, x->start, x->end, x->args, x->nargs) == 0
                 ? SLOG_OK
                 : SLOG_ENOMEM;
    }
    free(map);
    slog_reader_destroy(r);
    return rc;
}

static int cmp_item_end(const void *pa, const void *pb)
{
    const merge_item *a = pa;
    const merge_item *b = pb;
    if (a->end != b->end) {
        return a->end < b->end ? -1 : 1;
    }
    return a->depth > b->depth ? -1 : a->depth < b->depth ? 1 : 0; /* children first */
}

static int append_item(slog_writer *w, const merge_item *x, slog_error *err)
{
    switch (x->kind) {
    case SLOG_KIND_STATE: {
        const slog_state s = {x->timeline, x->category, x->start, x->end,
                              x->depth,    x->nargs,    x->args};
        return slog_writer_append_state(w, &s, err);
    }
    case SLOG_KIND_EVENT: {
        const slog_event e = {x->timeline, x->category, x->start, x->nargs, x->args};
        return slog_writer_append_event(w, &e, err);
    }
    case SLOG_KIND_ARROW: {
        const slog_arrow a = {x->category, x->timeline, x->timeline_to, x->start,
                              x->end,      x->nargs,    x->args};
        return slog_writer_append_arrow(w, &a, err);
    }
    default: {
        const slog_counter c = {x->timeline, x->category, x->start, x->value};
        return slog_writer_append_counter(w, &c, err);
    }
    }
}

/* Drawables by end time, then the matched messages; seal, unless an input
 * was incomplete (a process killed, or still running): the output is then
 * flushed and left incomplete, as slog-merge leaves it, since it holds what
 * those writers flushed, not what they would have written. */
static int
write_out(merge_ctx *m, const char *out, uint64_t *matched, uint64_t *unmatched, slog_error *err)
{
    if (merge_join_renest(m->join, m->items, m->n) != 0) {
        return SLOG_ENOMEM;
    }
    if (m->n > 0) { /* items is NULL when no file held a drawable */
        qsort(m->items, m->n, sizeof *m->items, cmp_item_end);
    }
    int rc = SLOG_OK;
    for (size_t i = 0; rc == SLOG_OK && i < m->n; i++) {
        rc = append_item(m->w, &m->items[i], err);
    }
    uint32_t cat = 0;
    if (rc == SLOG_OK) {
        rc = slog_writer_add_category(m->w, SLOG_KIND_ARROW, "MPI message", 0, "mpi", &cat, err);
    }
    if (rc == SLOG_OK) {
        rc = merge_msgs_write(m->msgs, m->w, cat, matched, unmatched, err);
    }
    (void)out;
    if (rc != SLOG_OK) {
        return rc;
    }
    return m->incomplete > 0 ? slog_writer_flush(m->w, err) : slog_writer_finish(m->w, err);
}

static int is_trace_file(const struct dirent *d)
{
    const size_t n = strlen(d->d_name);
    return n > 5 && strcmp(d->d_name + n - 5, ".slog") == 0;
}

/* By name, a Python tracing file after every process file (it joins its
 * process's timelines). */
static int python_files_last(const struct dirent **a, const struct dirent **b)
{
    const int pa = merge_join_is_python((*a)->d_name), pb = merge_join_is_python((*b)->d_name);
    return pa != pb ? pa - pb : alphasort(a, b);
}

static void free_ctx(merge_ctx *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->items[i].args);
    }
    for (size_t i = 0; i < m->ncats; i++) {
        free(m->cats[i].name);
    }
    free(m->items);
    free(m->cats);
    free(m->ranks);
    merge_msgs_destroy(m->msgs);
    merge_join_destroy(m->join);
    slog_writer_destroy(m->w);
}

/* Forget the items a file added before it failed (its args are ours). */
static void drop_items_from(merge_ctx *m, size_t first)
{
    for (size_t i = first; i < m->n; i++) {
        free(m->items[i].args);
    }
    m->n = first;
}

/* Merge one file, or leave it out: an empty file (a process that ended
 * before it recorded anything) and an MPI job's index or arrows file
 * quietly (counted), an unreadable one with its error, so that one bad file
 * does not lose the others.  Running out of memory stops the merge
 * (returns 1). */
static int merge_or_skip(
    merge_ctx *m, const char *path, const char *name, size_t index, trace_merge_tally *count)
{
    struct stat st;
    if (stat(path, &st) == 0 && st.st_size == 0) {
        count->empty++;
        return 0;
    }
    slog_error err = {0};
    const size_t first = m->n;
    file_outcome o = {false, true};
    const int rc = merge_file(m, path, name, index, &o, &err);
    if (rc == SLOG_OK) {
        *(o.left_out ? &count->jobfiles : &count->merged) += 1;
        trace_merge_warn_incomplete(path, o.complete, m->out, count);
        return 0;
    }
    (void)trace_merge_fail(path, rc == SLOG_ENOMEM ? "cannot merge" : "skipped, cannot read", rc,
                           &err);
    if (rc == SLOG_ENOMEM) {
        return 1;
    }
    drop_items_from(m, first);
    count->skipped++;
    return 0;
}

void trace_merge_warn_incomplete(const char *path,
                                 bool complete,
                                 const char *out,
                                 trace_merge_tally *t)
{
    if (complete) {
        return;
    }
    t->incomplete++;
    (void)fprintf(stderr,
                  PROG ": %s: warning: incomplete (its writer did not finish: the process was "
                       "killed or is still running): merged what it holds; %s is marked "
                       "incomplete\n",
                  path, out);
}

void trace_merge_summary_line(const trace_merge_tally *t,
                              uint64_t drawables,
                              uint64_t matched,
                              uint64_t unmatched,
                              const char *out)
{
    char job[160] = "";
    if (t->jobfiles > 0) {
        (void)snprintf(job, sizeof job, ", index, MPI arrows and merged files left out: %zu",
                       t->jobfiles);
    }
    if (t->incomplete > 0) {
        const size_t used = strlen(job);
        (void)snprintf(job + used, sizeof job - used, ", incomplete: %zu", t->incomplete);
    }
    (void)fprintf(stderr,
                  PROG ": %zu files, %" PRIu64 " drawables, %" PRIu64 " messages matched, %" PRIu64
                       " unmatched -> %s (empty files left out: %zu, unreadable skipped: %zu%s)\n",
                  t->merged, drawables, matched, unmatched, out, t->empty, t->skipped, job);
}

/* Whether any of the directory's files is a Python tracing file (they
 * sort last). */
static bool has_python_file(struct dirent *const *ents, int nents)
{
    return nents > 0 && merge_join_is_python(ents[nents - 1]->d_name);
}

/* The in-memory merge (a Python tracing file among the files). */
static int merge_in_memory(const char *dir, struct dirent *const *ents, int nents, const char *out)
{
    merge_ctx m = {0};
    m.out = out;
    slog_error err = {0};
    char path[4096];
    int status = 0;
    slog_writer_options wo;
    slog_writer_options_init(&wo);
    wo.creator = MERGE_CREATOR;
    m.join = merge_join_create();
    int rc = (m.msgs = merge_msgs_create()) == NULL || m.join == NULL
                 ? SLOG_ENOMEM
                 : slog_writer_create(&m.w, out, &wo, &err);
    if (rc != SLOG_OK) {
        status = trace_merge_fail(out, "cannot create", rc, &err);
    }
    trace_merge_tally count = {0};
    for (int i = 0; status == 0 && i < nents; i++) {
        (void)snprintf(path, sizeof path, "%s/%s", dir, ents[i]->d_name);
        status = merge_or_skip(&m, path, ents[i]->d_name, (size_t)i, &count);
    }
    m.incomplete = count.incomplete;
    uint64_t matched = 0, unmatched = 0;
    if (status == 0 && (rc = write_out(&m, out, &matched, &unmatched, &err)) != SLOG_OK) {
        status = trace_merge_fail(out, "cannot write", rc, &err);
    }
    if (status == 0) {
        trace_merge_summary_line(&count, m.n, matched, unmatched, out);
        status = count.skipped > 0 ? 1 : 0; /* the rest is written; the loss is not silent */
    }
    free_ctx(&m);
    return status;
}

/* The listing without the output when it lies in DIR already (a merge run
 * again onto DIR/all.slog): it is to be replaced, not read.  Returns the
 * entries left. */
static int drop_output(struct dirent **ents, int nents, const char *dir, const char *out)
{
    struct stat so, si;
    if (stat(out, &so) != 0) {
        return nents;
    }
    char path[4096];
    for (int i = 0; i < nents; i++) {
        (void)snprintf(path, sizeof path, "%s/%s", dir, ents[i]->d_name);
        if (stat(path, &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            free(ents[i]);
            memmove(&ents[i], &ents[i + 1], (size_t)(nents - i - 1) * sizeof(struct dirent *));
            return nents - 1;
        }
    }
    return nents;
}

static int merge_dir(const char *dir, const char *out)
{
    struct dirent **ents = NULL;
    int nents = scandir(dir, &ents, is_trace_file, python_files_last);
    nents = nents > 0 ? drop_output(ents, nents, dir, out) : nents;
    if (nents < 0) {
        (void)fprintf(stderr, PROG ": %s: cannot list the directory\n", dir);
        return 1;
    }
    if (nents == 0) {
        (void)fprintf(stderr, PROG ": %s: no .slog files to merge\n", dir);
        free(ents);
        return 1;
    }
    const bool streamed = !has_python_file(ents, nents) && trace_merge_stream_fits(dir, ents, nents);
    const int status = streamed ? trace_merge_streamed(dir, ents, nents, out)
                                : merge_in_memory(dir, ents, nents, out);
    for (int i = 0; i < nents; i++) {
        free(ents[i]);
    }
    free(ents);
    return status;
}

int trace_merge_main(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *out = NULL;
    int c;
    opterr = 0; /* one message, ours */
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        if (c == 'o') {
            out = optarg;
        } else if (c == 'h') {
            (void)printf("usage: " PROG " DIR -o OUT.slog\n");
            return 0;
        } else {
            return cli_option_error(PROG, argv);
        }
    }
    if (optind + 1 != argc || out == NULL) {
        return cli_usage_error(PROG, "expected DIR and -o OUT.slog");
    }
    return merge_dir(argv[optind], out);
}
