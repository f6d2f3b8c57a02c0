/* SPDX-License-Identifier: MIT
 *
 * trace_merge_join.c - a process's Python tracing file joined to its own
 * file by `slog-trace merge` (see trace_merge_join.h): the processes merged
 * so far by <host>-<pid>, their threads by name, the timelines both files
 * share, and the nesting of those timelines' states by time.
 * Layer: slog-trace tool; public API only.
 */
#define _GNU_SOURCE
#include "trace_merge_join.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PYTHON_SUFFIX "-python.slog"

typedef struct join_thread {
    char *name;
    uint32_t id;
} join_thread;

typedef struct join_proc {
    char *stem; /* <host>-<pid> */
    uint32_t top;
    int64_t start;
    join_thread *threads;
    size_t nthreads;
} join_proc;

struct merge_join {
    join_proc *procs;
    size_t nprocs;
    join_proc *selected; /* the process the current Python file joins */
    uint32_t *joined;    /* timelines both files share */
    size_t njoined;
};

merge_join *merge_join_create(void)
{
    return calloc(1, sizeof(merge_join));
}

void merge_join_destroy(merge_join *j)
{
    for (size_t i = 0; j != NULL && i < j->nprocs; i++) {
        for (size_t t = 0; t < j->procs[i].nthreads; t++) {
            free(j->procs[i].threads[t].name);
        }
        free(j->procs[i].threads);
        free(j->procs[i].stem);
    }
    if (j != NULL) {
        free(j->procs);
        free(j->joined);
    }
    free(j);
}

static int ends_with(const char *s, const char *suffix)
{
    const size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

int merge_join_is_python(const char *file_name)
{
    return ends_with(file_name, PYTHON_SUFFIX);
}

/* <host>-<pid> of a process file: the name less ".slog" and an exec's
 * ".<n>" (doc/TRACE.md, "Files and naming"). */
static char *process_stem(const char *file_name)
{
    char *const stem = strdup(file_name);
    if (stem == NULL) {
        return NULL;
    }
    char *dot = strrchr(stem, '.');
    if (dot != NULL) {
        *dot = '\0'; /* ".slog" */
    }
    dot = strrchr(stem, '.');
    if (dot != NULL && dot[1] != '\0' && strspn(dot + 1, "0123456789") == strlen(dot + 1)) {
        *dot = '\0';
    }
    return stem;
}

int merge_join_add_process(merge_join *j, const char *file_name, uint32_t top, int64_t start)
{
    join_proc *const p = realloc(j->procs, (j->nprocs + 1) * sizeof *p);
    if (p == NULL) {
        return -1;
    }
    j->procs = p;
    join_proc *const np = &p[j->nprocs];
    *np = (join_proc){process_stem(file_name), top, start, NULL, 0};
    if (np->stem == NULL) {
        return -1;
    }
    j->nprocs++;
    return 0;
}

int merge_join_add_thread(merge_join *j, const char *name, uint32_t id)
{
    join_proc *const p = &j->procs[j->nprocs - 1];
    join_thread *const t = realloc(p->threads, (p->nthreads + 1) * sizeof *t);
    if (t == NULL) {
        return -1;
    }
    p->threads = t;
    t[p->nthreads].name = strdup(name);
    t[p->nthreads].id = id;
    if (t[p->nthreads].name == NULL) {
        return -1;
    }
    p->nthreads++;
    return 0;
}

/* Whether process p suits a Python file that began at start better than
 * s: one that had begun by then beats one that had not; of two that had,
 * the later (an exec's file); of two that had not, the earlier. */
static int suits_better(const join_proc *p, const join_proc *s, int64_t start)
{
    const int p_began = p->start <= start, s_began = s->start <= start;
    if (p_began != s_began) {
        return p_began;
    }
    return p_began ? p->start > s->start : p->start < s->start;
}

/* The <host>-<pid> of a Python tracing file's name: less "-python.slog"
 * and the ".<n>" of a program run after an exec (py_trace.c). */
static size_t python_stem_len(const char *name)
{
    size_t n = strlen(name) - strlen(PYTHON_SUFFIX);
    size_t d = n;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9') {
        d--;
    }
    return d < n && d > 0 && name[d - 1] == '.' ? d - 1 : n;
}

uint32_t merge_join_select(merge_join *j, const char *python_file_name, int64_t start)
{
    const size_t stem_len = python_stem_len(python_file_name);
    j->selected = NULL;
    for (size_t i = 0; i < j->nprocs; i++) {
        join_proc *const p = &j->procs[i];
        if (strlen(p->stem) == stem_len && strncmp(p->stem, python_file_name, stem_len) == 0 &&
            (j->selected == NULL || suits_better(p, j->selected, start))) {
            j->selected = p;
        }
    }
    return j->selected != NULL ? j->selected->top : SLOG_NO_PARENT;
}

uint32_t merge_join_thread(merge_join *j, const char *name, int *oom)
{
    const join_proc *const p = j->selected;
    for (size_t t = 0; p != NULL && t < p->nthreads; t++) {
        if (strcmp(p->threads[t].name, name) != 0) {
            continue;
        }
        uint32_t *const v = realloc(j->joined, (j->njoined + 1) * sizeof *v);
        if (v == NULL) {
            *oom = 1;
            return SLOG_NO_PARENT;
        }
        j->joined = v;
        v[j->njoined++] = p->threads[t].id;
        return p->threads[t].id;
    }
    return SLOG_NO_PARENT;
}

/* A mark per timeline id up to the highest joined one: 1 for those joined
 * (*top: the array's length); NULL when none is or memory is short. */
static uint8_t *joined_marks(const merge_join *j, size_t *top)
{
    uint32_t hi = 0;
    for (size_t i = 0; i < j->njoined; i++) {
        hi = j->joined[i] > hi ? j->joined[i] : hi;
    }
    uint8_t *const mark = j->njoined > 0 ? calloc((size_t)hi + 1, 1) : NULL;
    for (size_t i = 0; mark != NULL && i < j->njoined; i++) {
        mark[j->joined[i]] = 1;
    }
    *top = (size_t)hi + 1;
    return mark;
}

/* A state of a joined timeline, in the order its depth is taken. */
typedef struct nest_ref {
    merge_item *item;
} nest_ref;

/* Timeline, then start, then the longer, then Python's first. */
static int cmp_nesting(const void *pa, const void *pb)
{
    const merge_item *const a = ((const nest_ref *)pa)->item;
    const merge_item *const b = ((const nest_ref *)pb)->item;
    if (a->timeline != b->timeline) {
        return a->timeline < b->timeline ? -1 : 1;
    }
    if (a->start != b->start) {
        return a->start < b->start ? -1 : 1;
    }
    if (a->end != b->end) {
        return a->end > b->end ? -1 : 1;
    }
    return b->outer - a->outer;
}

/* Depths of v[0..n) (one timeline's states, in nesting order); ends is
 * room for n ends, the stack of the states still open. */
static void nest_timeline(const nest_ref *v, size_t n, int64_t *ends)
{
    size_t open = 0;
    for (size_t i = 0; i < n; i++) {
        merge_item *const x = v[i].item;
        while (open > 0 && ends[open - 1] <= x->start) {
            open--; /* ended before this one began */
        }
        x->depth = open < SLOG_MAX_DEPTH ? (uint32_t)open : SLOG_MAX_DEPTH;
        ends[open++] = x->end;
    }
}

static bool joined_state(const merge_item *x, const uint8_t *mark, size_t top)
{
    return x->kind == SLOG_KIND_STATE && x->timeline < top && mark[x->timeline];
}

int merge_join_renest(const merge_join *j, merge_item *items, size_t n)
{
    size_t top = 0, k = 0;
    uint8_t *const mark = joined_marks(j, &top);
    if (mark == NULL) {
        return j->njoined > 0 ? -1 : 0;
    }
    for (size_t i = 0; i < n; i++) {
        k += joined_state(&items[i], mark, top) ? 1 : 0;
    }
    nest_ref *const v = malloc((k > 0 ? k : 1) * sizeof *v);
    int64_t *const ends = malloc((k > 0 ? k : 1) * sizeof *ends);
    for (size_t i = 0, m = 0; v != NULL && i < n; i++) {
        if (joined_state(&items[i], mark, top)) {
            v[m++].item = &items[i];
        }
    }
    free(mark);
    if (v == NULL || ends == NULL) {
        free(v);
        free(ends);
        return -1;
    }
    qsort(v, k, sizeof *v, cmp_nesting);
    for (size_t first = 0, i = 1; i <= k; i++) {
        if (i == k || v[i].item->timeline != v[first].item->timeline) {
            nest_timeline(v + first, i - first, ends);
            first = i;
        }
    }
    free(v);
    free(ends);
    return 0;
}
