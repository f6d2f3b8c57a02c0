/* SPDX-License-Identifier: MIT
 *
 * import_otf2.c - the `otf2` importer: an OTF2 archive (anchor file or its
 * directory) read through libotf2 into the libslog writer.
 *
 * Two passes over the definitions, one over the events:
 *   1. read the global definitions into tables (otf2_defs.c) and check
 *      every reference;
 *   2. define timelines: system tree nodes, then location groups, then
 *      locations, each under its parent; categories are defined on first use;
 *   3. read the local definitions (mapping tables, clock offsets, applied by
 *      libotf2) and then all events through the global event reader, which
 *      merges the locations by timestamp.  Each location keeps its own stack
 *      of open Enters, so states are appended when they end, with the depth
 *      of the stack; message ends wait in FIFO queues (otf2_match.c) until
 *      their partner arrives.  Memory is bounded by stack depth and messages
 *      in flight.
 * Every event record type has a callback: mapped, turned into an event, or
 * counted as skipped -- never dropped silently.  Ticks become ns exactly
 * (otf2_ticks_to_ns).  The mapping is documented in doc/IMPORT-OTF2.md.
 * libotf2 reports errors through one process-wide callback: it is
 * registered once and hands each message to the import running on the
 * calling thread (a thread-local pointer), so parallel imports keep their
 * own messages.  Opening the archive and reading its definitions run under
 * import_guard (a bounded wait, cancellable), because libotf2 never returns
 * from some damaged archives.
 * Import library, otf2: public libslog headers, libotf2, pthreads.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "importer.h"

/* "OTF2" at byte 2 of an anchor file (byte 0 and 1 are the format's chunk
 * and endianness marks). */
static bool otf2_head_is_anchor(const unsigned char *head, size_t n)
{
    return head && n >= 6 && memcmp(head + 2, "OTF2", 4) == 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    const size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static bool file_is_anchor(const char *path)
{
    unsigned char head[8];
    FILE *const f = fopen(path, "rb");
    if (!f) {
        return false;
    }
    const size_t n = fread(head, 1, sizeof head, f);
    (void)fclose(f);
    return otf2_head_is_anchor(head, n);
}

/* Find the anchor file(s) in directory `dir`: returns how many, and the
 * first in out (malloc'd). */
static unsigned dir_find_anchor(const char *dir, char **out)
{
    DIR *const d = opendir(dir);
    unsigned found = 0;
    *out = NULL;
    if (!d) {
        return 0;
    }
    for (const struct dirent *e = readdir(d); e; e = readdir(d)) {
        if (!ends_with(e->d_name, ".otf2")) {
            continue;
        }
        const size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *const p = malloc(len);
        if (!p) {
            break;
        }
        (void)snprintf(p, len, "%s/%s", dir, e->d_name);
        if (file_is_anchor(p) && found++ == 0) {
            *out = p;
        } else {
            free(p);
        }
    }
    closedir(d);
    return found;
}

static int otf2_probe(const char *path, const unsigned char *head, size_t n)
{
    if (!head) {
        char *anchor;
        const unsigned found = dir_find_anchor(path, &anchor);
        free(anchor);
        return found > 0 ? 95 : 0;
    }
    if (!otf2_head_is_anchor(head, n)) {
        return 0;
    }
    return ends_with(path, ".otf2") ? 100 : 80;
}

#ifndef SLOG_HAVE_OTF2

static int otf2_run(import_ctx *ctx, const char *path)
{
    (void)path;
    return import_fail(ctx, 0, 0, UINT64_MAX,
                       "OTF2 support was not built (rebuild with libotf2-trace-dev and "
                       "-Dotf2=enabled)");
}

#else /* SLOG_HAVE_OTF2 */

#    include <inttypes.h>
#    include <pthread.h>
#    include <stdarg.h>

#    include "import_guard.h"
#    include "otf2_defer.h"
#    include "otf2_defs.h"
#    include "path_bytes.h"
#    include "otf2_match.h"

/* Record kinds, for the summary: OTF2 record names as otf2-print spells
 * them, plus outcomes that deserve their own line. */
#    define OTF2_RECORDS(X)                                                                        \
        X(ENTER, "ENTER")                                                                          \
        X(LEAVE, "LEAVE")                                                                          \
        X(MPI_SEND, "MPI_SEND")                                                                    \
        X(MPI_ISEND, "MPI_ISEND")                                                                  \
        X(MPI_ISEND_COMPLETE, "MPI_ISEND_COMPLETE")                                                \
        X(MPI_IRECV_REQUEST, "MPI_IRECV_REQUEST")                                                  \
        X(MPI_RECV, "MPI_RECV")                                                                    \
        X(MPI_IRECV, "MPI_IRECV")                                                                  \
        X(MPI_REQUEST_TEST, "MPI_REQUEST_TEST")                                                    \
        X(MPI_REQUEST_CANCELLED, "MPI_REQUEST_CANCELLED")                                          \
        X(MPI_COLLECTIVE_BEGIN, "MPI_COLLECTIVE_BEGIN")                                            \
        X(MPI_COLLECTIVE_END, "MPI_COLLECTIVE_END")                                                \
        X(METRIC, "METRIC")                                                                        \
        X(PARAMETER_STRING, "PARAMETER_STRING")                                                    \
        X(PARAMETER_INT64, "PARAMETER_INT64")                                                      \
        X(PARAMETER_UINT64, "PARAMETER_UINT64")                                                    \
        X(PROGRAM_BEGIN, "PROGRAM_BEGIN")                                                          \
        X(PROGRAM_END, "PROGRAM_END")                                                              \
        X(BUFFER_FLUSH, "BUFFER_FLUSH")                                                            \
        X(MEASUREMENT_ON_OFF, "MEASUREMENT_ON_OFF")                                                \
        X(CALLING_CONTEXT_ENTER, "CALLING_CONTEXT_ENTER")                                          \
        X(CALLING_CONTEXT_LEAVE, "CALLING_CONTEXT_LEAVE")                                          \
        X(CALLING_CONTEXT_SAMPLE, "CALLING_CONTEXT_SAMPLE")                                        \
        X(OMP_FORK, "OMP_FORK")                                                                    \
        X(OMP_JOIN, "OMP_JOIN")                                                                    \
        X(OMP_ACQUIRE_LOCK, "OMP_ACQUIRE_LOCK")                                                    \
        X(OMP_RELEASE_LOCK, "OMP_RELEASE_LOCK")                                                    \
        X(OMP_TASK_CREATE, "OMP_TASK_CREATE")                                                      \
        X(OMP_TASK_SWITCH, "OMP_TASK_SWITCH")                                                      \
        X(OMP_TASK_COMPLETE, "OMP_TASK_COMPLETE")                                                  \
        X(RMA_WIN_CREATE, "RMA_WIN_CREATE")                                                        \
        X(RMA_WIN_DESTROY, "RMA_WIN_DESTROY")                                                      \
        X(RMA_COLLECTIVE_BEGIN, "RMA_COLLECTIVE_BEGIN")                                            \
        X(RMA_COLLECTIVE_END, "RMA_COLLECTIVE_END")                                                \
        X(RMA_GROUP_SYNC, "RMA_GROUP_SYNC")                                                        \
        X(RMA_REQUEST_LOCK, "RMA_REQUEST_LOCK")                                                    \
        X(RMA_ACQUIRE_LOCK, "RMA_ACQUIRE_LOCK")                                                    \
        X(RMA_TRY_LOCK, "RMA_TRY_LOCK")                                                            \
        X(RMA_RELEASE_LOCK, "RMA_RELEASE_LOCK")                                                    \
        X(RMA_SYNC, "RMA_SYNC")                                                                    \
        X(RMA_WAIT_CHANGE, "RMA_WAIT_CHANGE")                                                      \
        X(RMA_PUT, "RMA_PUT")                                                                      \
        X(RMA_GET, "RMA_GET")                                                                      \
        X(RMA_ATOMIC, "RMA_ATOMIC")                                                                \
        X(RMA_OP_COMPLETE_BLOCKING, "RMA_OP_COMPLETE_BLOCKING")                                    \
        X(RMA_OP_COMPLETE_NON_BLOCKING, "RMA_OP_COMPLETE_NON_BLOCKING")                            \
        X(RMA_OP_TEST, "RMA_OP_TEST")                                                              \
        X(RMA_OP_COMPLETE_REMOTE, "RMA_OP_COMPLETE_REMOTE")                                        \
        X(THREAD_FORK, "THREAD_FORK")                                                              \
        X(THREAD_JOIN, "THREAD_JOIN")                                                              \
        X(THREAD_TEAM_BEGIN, "THREAD_TEAM_BEGIN")                                                  \
        X(THREAD_TEAM_END, "THREAD_TEAM_END")                                                      \
        X(THREAD_ACQUIRE_LOCK, "THREAD_ACQUIRE_LOCK")                                              \
        X(THREAD_RELEASE_LOCK, "THREAD_RELEASE_LOCK")                                              \
        X(THREAD_TASK_CREATE, "THREAD_TASK_CREATE")                                                \
        X(THREAD_TASK_SWITCH, "THREAD_TASK_SWITCH")                                                \
        X(THREAD_TASK_COMPLETE, "THREAD_TASK_COMPLETE")                                            \
        X(THREAD_CREATE, "THREAD_CREATE")                                                          \
        X(THREAD_BEGIN, "THREAD_BEGIN")                                                            \
        X(THREAD_WAIT, "THREAD_WAIT")                                                              \
        X(THREAD_END, "THREAD_END")                                                                \
        X(IO_CREATE_HANDLE, "IO_CREATE_HANDLE")                                                    \
        X(IO_DESTROY_HANDLE, "IO_DESTROY_HANDLE")                                                  \
        X(IO_DUPLICATE_HANDLE, "IO_DUPLICATE_HANDLE")                                              \
        X(IO_SEEK, "IO_SEEK")                                                                      \
        X(IO_CHANGE_STATUS_FLAGS, "IO_CHANGE_STATUS_FLAGS")                                        \
        X(IO_DELETE_FILE, "IO_DELETE_FILE")                                                        \
        X(IO_OPERATION_BEGIN, "IO_OPERATION_BEGIN")                                                \
        X(IO_OPERATION_TEST, "IO_OPERATION_TEST")                                                  \
        X(IO_OPERATION_ISSUED, "IO_OPERATION_ISSUED")                                              \
        X(IO_OPERATION_COMPLETE, "IO_OPERATION_COMPLETE")                                          \
        X(IO_OPERATION_CANCELLED, "IO_OPERATION_CANCELLED")                                        \
        X(IO_ACQUIRE_LOCK, "IO_ACQUIRE_LOCK")                                                      \
        X(IO_RELEASE_LOCK, "IO_RELEASE_LOCK")                                                      \
        X(IO_TRY_LOCK, "IO_TRY_LOCK")                                                              \
        X(NON_BLOCKING_COLLECTIVE_REQUEST, "NON_BLOCKING_COLLECTIVE_REQUEST")                      \
        X(NON_BLOCKING_COLLECTIVE_COMPLETE, "NON_BLOCKING_COLLECTIVE_COMPLETE")                    \
        X(COMM_CREATE, "COMM_CREATE")                                                              \
        X(COMM_DESTROY, "COMM_DESTROY")                                                            \
        X(UNKNOWN, "unknown OTF2 record")                                                          \
        X(LEAVE_UNMATCHED, "LEAVE without matching ENTER (ignored)")                               \
        X(ENTER_UNCLOSED, "ENTER without LEAVE (closed at the location's last event)")             \
        X(ENTER_TOO_DEEP, "ENTER nested deeper than 100000 levels (skipped with its LEAVE)")       \
        X(TIME_RANGE, "event time past +-2^63 ns from the clock's offset (skipped)")              \
        X(COLLECTIVE_UNMATCHED, "MPI_COLLECTIVE_END without BEGIN (ignored)")                      \
        X(P2P_UNRESOLVED, "MPI message with an unresolvable rank (no arrow)")                      \
        X(SEND_UNMATCHED, "MPI send without receive (no arrow)")                                   \
        X(RECV_UNMATCHED, "MPI receive without send (no arrow)")                                   \
        X(REQUEST_UNCOMPLETED, "MPI non-blocking request never completed")                         \
        X(REQUEST_UNKNOWN, "MPI request completion without a request")                             \
        X(ARROW_SKEW, "MPI message received before sent (clock skew; end set to start)")           \
        X(FLUSH_SKEW, "BUFFER_FLUSH ending before it starts (end set to start)")                   \
        X(P2P_ATTRS, "attribute on an MPI point-to-point or METRIC record (not kept)")

enum {
#    define X(id, name) REC_##id,
    OTF2_RECORDS(X)
#    undef X
    REC_COUNT
};

static const char *const rec_names[REC_COUNT] = {
#    define X(id, name) name,
    OTF2_RECORDS(X)
#    undef X
};

#    define COLLECTIVE_OPS    24

/* Descriptions that slog-query's OTF2 exporter gives regions and metric
 * members (export_otf2.c), so that a re-import restores kinds and groups. */
#    define SLOG_STATE_MARK   "slog:state:"
#    define SLOG_EVENT_MARK   "slog:event:"
#    define SLOG_COUNTER_MARK "slog:counter:"

typedef struct otf2_imp {
    import_ctx *ctx;
    slog_writer *w;
    otf2_defs defs;
    otf2_clock clock; /* defs' offset and resolution, prepared for per-event use */
    otf2_match *match;
    char trace_dir[4096]; /* <archive>/<name>: where <location>.evt live */
    uint64_t counts[REC_COUNT][IMPORT_OUTCOMES];
    uint32_t rec_category[REC_COUNT];
    uint32_t coll_category[COLLECTIVE_OPS];
    uint32_t arrow_category;
    otf2_idmap scoped; /* (instance << 8 | member index) -> category, for shared recorders */
    otf2_args scratch; /* args of one event */
    uint64_t events_seen, events_total;
    char otf2_msg[512]; /* last message from libotf2's error handler */
    bool no_clock;      /* no CLOCK_PROPERTIES: ticks taken as ns (warned) */
    otf2_def_loc skipped; /* event_loc's answer for an event skipped (never written) */
    bool two_threads;     /* map records on a thread of their own (read_events) */
    otf2_pipe *pipe;      /* while reading events on two threads: to the mapping thread */
    char err[768];      /* why the import stops, "" while fine */
} otf2_imp;

/* The record being handled: its kind, location and OTF2 timestamp. */
typedef struct rec_ctx {
    int rec;
    uint64_t loc;
    uint64_t t;
} rec_ctx;

#    define RC(r, l, tt) (&(const rec_ctx){(r), (l), (tt)})

static void imp_error(otf2_imp *imp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void imp_error(otf2_imp *imp, const char *fmt, ...)
{
    if (imp->err[0]) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): false positive
    (void)vsnprintf(imp->err, sizeof imp->err, fmt, ap);
    va_end(ap);
}

/* libotf2 hands over a printf format and its arguments (the attribute lets
 * clang check the vsnprintf below without a literal format). */
static OTF2_ErrorCode otf2_error_hook(void *ud, const char *file, uint64_t line, const char *function,
                         OTF2_ErrorCode code, const char *fmt, va_list va)
    __attribute__((format(printf, 6, 0)));
/* The import libotf2 works for on this thread (NULL: none). */
static _Thread_local otf2_imp *hook_imp;

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_ErrorCode otf2_error_hook(void *ud,
                                      const char *file,
                                      uint64_t line,
                                      const char *function,
                                      OTF2_ErrorCode code,
                                      const char *fmt,
                                      va_list va)
{
    otf2_imp *const imp = hook_imp;
    (void)ud, (void)file, (void)line, (void)function;
    if (imp) {
        char msg[384];
        (void)vsnprintf(msg, sizeof msg, fmt, va);
        (void)snprintf(imp->otf2_msg, sizeof imp->otf2_msg, "%s (%s)", msg,
                       OTF2_Error_GetDescription(code));
    }
    return code;
}

#    define CB_RET(imp) ((imp)->err[0] ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS)

static void count(otf2_imp *imp, int rec, import_outcome o)
{
    imp->counts[rec][o]++;
}

/* "traces/3.evt" style name of a location's event file, for messages. */
static const char *evt_name(const otf2_imp *imp, uint64_t loc, char *buf, size_t n)
{
    (void)snprintf(buf, n, "%s/%" PRIu64 ".evt", imp->trace_dir, loc);
    return buf;
}

/* Stop with an error about record `rec` on location `loc` at tick `t`. */
static OTF2_CallbackCode rec_error(otf2_imp *imp, const rec_ctx *rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static OTF2_CallbackCode rec_error(otf2_imp *imp, const rec_ctx *rc, const char *fmt, ...)
{
    char what[256], file[4200];
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): false positive
    (void)vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    imp_error(imp, "%s: %s record at tick %" PRIu64 ": %s",
              evt_name(imp, rc->loc, file, sizeof file), rec_names[rc->rec], rc->t, what);
    return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode write_failed(otf2_imp *imp, const slog_error *e, const char *what)
{
    imp_error(imp, "Failed to write %s: %s (%s)", what, e->message, slog_status_name(e->code));
    return OTF2_CALLBACK_INTERRUPT;
}

/* ---- categories ---------------------------------------------------------- */

static int
add_category(otf2_imp *imp, slog_kind kind, const char *name, const char *group, uint32_t *out)
{
    slog_error e;
    if (slog_writer_add_category(imp->w, kind, name, 0, group, out, &e) != SLOG_OK) {
        write_failed(imp, &e, "a category");
        return -1;
    }
    return 0;
}

static uint32_t region_category(otf2_imp *imp, otf2_def_region *r)
{
    if (r->category != OTF2_NO_INDEX) {
        return r->category;
    }
    char pbuf[32], group[128], name[64];
    const char *s = otf2_defs_string(&imp->defs, r->name);
    if (!s || !s[0]) {
        (void)snprintf(name, sizeof name, "region %" PRIu64, r->id);
        s = name;
    }
    (void)snprintf(group, sizeof group, "%s/%s",
                   otf2_paradigm_name(&imp->defs, r->paradigm, pbuf, sizeof pbuf),
                   otf2_role_name(r->role));
    /* regions written by slog-query's exporter carry their category's kind
     * and group in the description */
    const char *const descr = otf2_defs_string(&imp->defs, r->description);
    slog_kind kind = SLOG_KIND_STATE;
    if (strncmp(descr, SLOG_STATE_MARK, strlen(SLOG_STATE_MARK)) == 0) {
        (void)snprintf(group, sizeof group, "%s", descr + strlen(SLOG_STATE_MARK));
    } else if (strncmp(descr, SLOG_EVENT_MARK, strlen(SLOG_EVENT_MARK)) == 0) {
        (void)snprintf(group, sizeof group, "%s", descr + strlen(SLOG_EVENT_MARK));
        kind = SLOG_KIND_EVENT;
        r->event = true;
    }
    if (add_category(imp, kind, s, group, &r->category) != 0) {
        return OTF2_NO_INDEX;
    }
    return r->category;
}

static uint32_t rec_category(otf2_imp *imp, int rec, slog_kind kind, const char *group)
{
    if (imp->rec_category[rec] == OTF2_NO_INDEX &&
        add_category(imp, kind, rec_names[rec], group, &imp->rec_category[rec]) != 0) {
        return OTF2_NO_INDEX;
    }
    return imp->rec_category[rec];
}

/* ---- timelines --------------------------------------------------------- */

static int add_timeline(otf2_imp *imp,
                        uint32_t parent,
                        slog_timeline_kind kind,
                        const char *name,
                        int64_t sort_key,
                        uint32_t *out)
{
    slog_error e;
    if (slog_writer_add_timeline(imp->w, parent, kind, name, sort_key, out, &e) != SLOG_OK) {
        write_failed(imp, &e, "a timeline");
        return -1;
    }
    return 0;
}

static int stn_timeline(otf2_imp *imp, otf2_def_stn *n)
{
    const int64_t sort_key = n - imp->defs.stns.v;
    if (n->visit == 2) {
        return 0;
    }
    if (n->visit == 1) {
        imp_error(imp, "%s.def: SYSTEM_TREE_NODE %" PRIu64 " is its own ancestor", imp->trace_dir,
                  n->id);
        return -1;
    }
    n->visit = 1;
    uint32_t parent = SLOG_NO_PARENT;
    if (n->parent != OTF2_UNDEFINED_SYSTEM_TREE_NODE) {
        otf2_def_stn *const p = &imp->defs.stns.v[otf2_idmap_get(&imp->defs.stns.map, n->parent)];
        if (stn_timeline(imp, p) != 0) {
            return -1;
        }
        parent = p->timeline;
    }
    const char *const cls = otf2_defs_string(&imp->defs, n->class_name);
    const char *const nm = otf2_defs_string(&imp->defs, n->name);
    char name[512];
    (void)snprintf(name, sizeof name, "%s%s%s", cls, cls[0] && nm[0] ? " " : "", nm);
    slog_timeline_kind kind = SLOG_TIMELINE_GENERIC;
    if (n->domains & (1u << OTF2_SYSTEM_TREE_DOMAIN_ACCELERATOR_DEVICE)) {
        kind = SLOG_TIMELINE_GPU;
    } else if ((n->domains & (1u << OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY)) ||
               strcmp(cls, "node") == 0) {
        kind = SLOG_TIMELINE_HOST;
    }
    if (add_timeline(imp, parent, kind, name[0] ? name : "system tree node", sort_key,
                     &n->timeline) != 0) {
        return -1;
    }
    n->visit = 2;
    return 0;
}

/* Whether an earlier instance of metrics.v[i]'s class has the same recorder. */
static bool class_listed(const otf2_defs *d, uint32_t i)
{
    const otf2_def_metric *const m = &d->metrics.v[i];
    for (uint32_t j = 0; m->shared && j < i; j++) {
        const otf2_def_metric *const o = &d->metrics.v[j];
        if (o->instance && o->recorder == m->recorder && o->class_id == m->class_id) {
            return true;
        }
    }
    return false;
}

/* Name of a location with an empty name: the metrics it records, else its id. */
static void loc_fallback_name(otf2_imp *imp, const otf2_def_loc *l, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < imp->defs.metrics.n && used + 1 < n; i++) {
        const otf2_def_metric *const m = &imp->defs.metrics.v[i];
        if (!m->instance || m->recorder != l->id || class_listed(&imp->defs, i)) {
            continue;
        }
        const otf2_def_metric *const c = otf2_defs_metric(&imp->defs, m->class_id);
        for (uint32_t k = 0; c && k < c->nmembers && used + 1 < n; k++) {
            const otf2_def_member *const mm = otf2_defs_member(&imp->defs, c->members[k]);
            const int w = snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
                                   otf2_defs_string(&imp->defs, mm->name));
            used += w > 0 ? (size_t)w : 0;
        }
    }
    if (used == 0 || used >= n) {
        (void)snprintf(buf, n, "location %" PRIu64, l->id);
    }
}

static int define_group_timeline(otf2_imp *imp, otf2_def_lgroup *g, int64_t sort_key)
{
    const otf2_defs *const d = &imp->defs;
    uint32_t parent = SLOG_NO_PARENT;
    if (g->stn != OTF2_UNDEFINED_SYSTEM_TREE_NODE) {
        parent = d->stns.v[otf2_idmap_get(&d->stns.map, g->stn)].timeline;
    }
    slog_timeline_kind kind = SLOG_TIMELINE_GENERIC;
    if (g->type == OTF2_LOCATION_GROUP_TYPE_PROCESS) {
        kind = g->mpi ? SLOG_TIMELINE_RANK : SLOG_TIMELINE_PROCESS;
    } else if (g->type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR) {
        kind = SLOG_TIMELINE_GPU;
    }
    char fallback[64];
    const char *name = otf2_defs_string(d, g->name);
    if (!name[0]) {
        (void)snprintf(fallback, sizeof fallback, "location group %" PRIu64, g->id);
        name = fallback;
    }
    return add_timeline(imp, parent, kind, name, sort_key, &g->timeline);
}

static int define_location_timeline(otf2_imp *imp, otf2_def_loc *l, int64_t sort_key)
{
    static const slog_timeline_kind kinds[] = {SLOG_TIMELINE_GENERIC, SLOG_TIMELINE_THREAD,
                                               SLOG_TIMELINE_GPU, SLOG_TIMELINE_COUNTER};
    const slog_timeline_kind kind = l->type < 4 ? kinds[l->type] : SLOG_TIMELINE_GENERIC;
    char fallback[256];
    const char *name = otf2_defs_string(&imp->defs, l->name);
    if (!name[0]) {
        loc_fallback_name(imp, l, fallback, sizeof fallback);
        name = fallback;
    }
    imp->events_total += l->events;
    return add_timeline(imp, imp->defs.lgroups.v[l->group_index].timeline, kind, name, sort_key,
                        &l->timeline);
}

/* Parents before children: system tree nodes, groups, locations. */
static int define_timelines(otf2_imp *imp)
{
    otf2_defs *const d = &imp->defs;
    for (uint32_t i = 0; i < d->stns.n; i++) {
        if (stn_timeline(imp, &d->stns.v[i]) != 0) {
            return -1;
        }
    }
    for (uint32_t i = 0; i < d->lgroups.n; i++) {
        if (define_group_timeline(imp, &d->lgroups.v[i], (int64_t)i) != 0) {
            return -1;
        }
    }
    for (uint32_t i = 0; i < d->locs.n; i++) {
        if (define_location_timeline(imp, &d->locs.v[i], (int64_t)i) != 0) {
            return -1;
        }
    }
    return 0;
}

/* ---- args -------------------------------------------------------------- */

static int args_reserve(otf2_args *a, uint32_t need)
{
    if (need <= a->cap) {
        return 0;
    }
    uint32_t ncap = a->cap ? a->cap * 2 : 4;
    while (ncap < need) {
        ncap *= 2;
    }
    slog_arg *const p = realloc(a->v, ncap * sizeof *p);
    if (!p) {
        return -1;
    }
    a->v = p;
    a->cap = ncap;
    return 0;
}

/* Convert one attribute value to an arg value; 0 ok, -1 undefined ref. */
static int attr_value(otf2_imp *imp, OTF2_Type type, OTF2_AttributeValue v, slog_arg *a)
{
    a->type = SLOG_ARG_INT;
    switch (type) {
    case OTF2_TYPE_UINT8:
        a->v.i = v.uint8;
        break;
    case OTF2_TYPE_UINT16:
        a->v.i = v.uint16;
        break;
    case OTF2_TYPE_UINT32:
        a->v.i = v.uint32;
        break;
    case OTF2_TYPE_INT8:
        a->v.i = (int64_t)v.int8;
        break;
    case OTF2_TYPE_INT16:
        a->v.i = v.int16;
        break;
    case OTF2_TYPE_INT32:
        a->v.i = v.int32;
        break;
    case OTF2_TYPE_INT64:
        a->v.i = v.int64;
        break;
    case OTF2_TYPE_FLOAT:
        a->type = SLOG_ARG_DOUBLE;
        a->v.d = v.float32;
        break;
    case OTF2_TYPE_DOUBLE:
        a->type = SLOG_ARG_DOUBLE;
        a->v.d = v.float64;
        break;
    case OTF2_TYPE_STRING:
        a->type = SLOG_ARG_STRING;
        a->v.s = otf2_defs_string(&imp->defs, v.stringRef);
        return a->v.s ? 0 : -1;
    case OTF2_TYPE_REGION: {
        otf2_def_region *const r = otf2_defs_region(&imp->defs, v.regionRef);
        a->type = SLOG_ARG_STRING;
        a->v.s = r ? otf2_defs_string(&imp->defs, r->name) : NULL;
        return a->v.s ? 0 : -1;
    }
    default: /* UINT64 and references to other definitions: their id */
        if (v.uint64 > (uint64_t)INT64_MAX) {
            a->type = SLOG_ARG_UINT;
            a->v.u = v.uint64;
        } else {
            a->v.i = (int64_t)v.uint64;
        }
        break;
    }
    return 0;
}

/* Append the attributes of `al` to `out`.  0 ok, -1 error (set). */
static int
attrs_append(otf2_imp *imp, const OTF2_AttributeList *al, otf2_args *out, const rec_ctx *rc)
{
    const uint32_t na = al ? OTF2_AttributeList_GetNumberOfElements(al) : 0;
    if (na == 0) {
        return 0;
    }
    if (args_reserve(out, out->n + na) != 0) {
        imp_error(imp, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < na; i++) {
        OTF2_AttributeRef ref;
        OTF2_Type type;
        OTF2_AttributeValue val;
        if (OTF2_AttributeList_GetAttributeByIndex(al, i, &ref, &type, &val) != OTF2_SUCCESS) {
            continue;
        }
        const otf2_def_named *const def = otf2_defs_attr(&imp->defs, ref);
        slog_arg *const a = &out->v[out->n];
        if (!def) {
            rec_error(imp, rc, "undefined ATTRIBUTE %u", ref);
            return -1;
        }
        a->key = otf2_defs_string(&imp->defs, def->name);
        if (attr_value(imp, type, val, a) != 0) {
            rec_error(imp, rc, "attribute \"%s\" references an undefined definition", a->key);
            return -1;
        }
        out->n++;
    }
    return 0;
}

/* ---- per-location state -------------------------------------------------- */

/* Location of an event and its time in ns; NULL (error set) if undefined;
 * &imp->skipped for an event whose time is past the int64 nanoseconds
 * around the clock's offset (counted, skipped: see usable()). */
static otf2_def_loc *event_loc(otf2_imp *imp, int rec, uint64_t loc, uint64_t t, int64_t *ns)
{
    otf2_def_loc *const l = otf2_defs_loc(&imp->defs, loc);
    if (!l) {
        rec_error(imp, RC(rec, loc, t), "undefined LOCATION %" PRIu64, loc);
        return NULL;
    }
    *ns = otf2_clock_ns(&imp->clock, t);
    if (*ns == INT64_MAX || *ns == INT64_MIN) { /* saturated: the time cannot be told */
        count(imp, REC_TIME_RANGE, IMPORT_SKIPPED);
        return &imp->skipped;
    }
    if (*ns > l->last_time) {
        l->last_time = *ns;
    }
    l->seen++;
    if ((++imp->events_seen & 0xffff) == 0 &&
        import_progress(imp->ctx, imp->events_seen, imp->events_total) != 0) {
        imp_error(imp, "Import cancelled");
        return NULL;
    }
    return l;
}

/* Is event_loc's answer a location to use?  If not, what the callback
 * returns: interrupt on an error, success for a skipped event. */
static bool usable(const otf2_imp *imp, const otf2_def_loc *l)
{
    return l != NULL && l != &imp->skipped;
}

static OTF2_CallbackCode not_usable(const otf2_def_loc *l)
{
    return l == NULL ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

_Static_assert(SLOG_MAX_DEPTH == 100000u, "REC_ENTER_TOO_DEEP's text names the limit");

/* Would a frame pushed now nest deeper than a writer takes?  Then it is
 * skipped and counted (the stack holds at most SLOG_MAX_DEPTH + 1 frames). */
static bool skip_too_deep(otf2_imp *imp, otf2_def_loc *l)
{
    if (l->depth <= SLOG_MAX_DEPTH) {
        return false;
    }
    l->deep++;
    count(imp, REC_ENTER_TOO_DEEP, IMPORT_SKIPPED);
    return true;
}

/* Does this LEAVE (or collective end) end a frame skipped as too deep? */
static bool ends_skipped(otf2_imp *imp, otf2_def_loc *l, int rec)
{
    if (l->deep == 0) {
        return false;
    }
    l->deep--;
    count(imp, rec, IMPORT_SKIPPED);
    return true;
}

static otf2_frame *push_frame(otf2_imp *imp, otf2_def_loc *l)
{
    if (l->depth == l->cap_stack) {
        const uint32_t cap = l->cap_stack ? l->cap_stack * 2 : 16;
        otf2_frame *const s = realloc(l->stack, cap * sizeof *s);
        if (!s) {
            imp_error(imp, "out of memory");
            return NULL;
        }
        memset(s + l->cap_stack, 0, (cap - l->cap_stack) * sizeof *s);
        l->stack = s;
        l->cap_stack = cap;
    }
    otf2_frame *const f = &l->stack[l->depth++];
    f->args.n = 0;
    return f;
}

/* Pop the top frame and append it as a state ending at `end`. */
static int pop_frame(otf2_imp *imp, otf2_def_loc *l, int64_t end)
{
    otf2_frame *const f = &l->stack[--l->depth];
    if (f->event) {
        const slog_event ev = {.timeline = l->timeline,
                               .category = f->category,
                               .time = f->start,
                               .nargs = f->args.n,
                               .args = f->args.n ? f->args.v : NULL};
        slog_error e;
        if (slog_writer_append_event(imp->w, &ev, &e) != SLOG_OK) {
            write_failed(imp, &e, "an event");
            return -1;
        }
        return 0;
    }
    const slog_state s = {.timeline = l->timeline,
                          .category = f->category,
                          .start = f->start,
                          .end = end < f->start ? f->start : end,
                          .depth = l->depth,
                          .nargs = f->args.n,
                          .args = f->args.n ? f->args.v : NULL};
    slog_error e;
    if (slog_writer_append_state(imp->w, &s, &e) != SLOG_OK) {
        write_failed(imp, &e, "a state");
        return -1;
    }
    return 0;
}

static OTF2_CallbackCode enter_region(
    otf2_imp *imp, int rec, uint64_t loc, uint64_t t, const OTF2_AttributeList *al, uint64_t region)
{
    int64_t ns;
    otf2_def_loc *const l = event_loc(imp, rec, loc, t, &ns);
    if (!usable(imp, l)) {
        return not_usable(l);
    }
    otf2_def_region *const r = otf2_defs_region(&imp->defs, region);
    if (!r) {
        return rec_error(imp, RC(rec, loc, t), "undefined REGION %" PRIu64, region);
    }
    if (skip_too_deep(imp, l)) {
        return OTF2_CALLBACK_SUCCESS;
    }
    const uint32_t cat = region_category(imp, r);
    otf2_frame *const f = cat == OTF2_NO_INDEX ? NULL : push_frame(imp, l);
    if (!f) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    f->category = cat;
    f->region = region;
    f->start = ns;
    f->event = r->event;
    if (attrs_append(imp, al, &f->args, RC(rec, loc, t)) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    count(imp, rec, IMPORT_IMPORTED);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode leave_region(
    otf2_imp *imp, int rec, uint64_t loc, uint64_t t, const OTF2_AttributeList *al, uint64_t region)
{
    int64_t ns;
    otf2_def_loc *const l = event_loc(imp, rec, loc, t, &ns);
    if (!usable(imp, l)) {
        return not_usable(l);
    }
    if (!otf2_defs_region(&imp->defs, region)) {
        return rec_error(imp, RC(rec, loc, t), "undefined REGION %" PRIu64, region);
    }
    if (ends_skipped(imp, l, rec)) {
        return OTF2_CALLBACK_SUCCESS;
    }
    uint32_t k = l->depth;
    while (k > 0 && l->stack[k - 1].region != region) {
        k--;
    }
    if (k == 0) {
        count(imp, REC_LEAVE_UNMATCHED, IMPORT_REPAIRED);
        return OTF2_CALLBACK_SUCCESS;
    }
    while (l->depth > k) { /* frames left open inside this one end with it */
        if (pop_frame(imp, l, ns) != 0) {
            return OTF2_CALLBACK_INTERRUPT;
        }
        count(imp, REC_ENTER_UNCLOSED, IMPORT_REPAIRED);
    }
    otf2_frame *const f = &l->stack[l->depth - 1];
    if (attrs_append(imp, al, &f->args, RC(rec, loc, t)) != 0 || pop_frame(imp, l, ns) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    count(imp, rec, IMPORT_IMPORTED);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode cb_enter(
    OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al, OTF2_RegionRef region)
{
    return enter_region(ud, REC_ENTER, loc, t, al, region);
}

static OTF2_CallbackCode cb_leave(
    OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al, OTF2_RegionRef region)
{
    return leave_region(ud, REC_LEAVE, loc, t, al, region);
}

static OTF2_CallbackCode cb_cc_enter(OTF2_LocationRef loc,
                                     OTF2_TimeStamp t,
                                     void *ud,
                                     OTF2_AttributeList *al,
                                     OTF2_CallingContextRef cc,
                                     uint32_t unwind)
{
    otf2_imp *const imp = ud;
    const otf2_def_context *const c = otf2_defs_context(&imp->defs, cc);
    (void)unwind;
    if (!c) {
        return rec_error(imp, RC(REC_CALLING_CONTEXT_ENTER, loc, t), "undefined CALLING_CONTEXT %u",
                         cc);
    }
    return enter_region(imp, REC_CALLING_CONTEXT_ENTER, loc, t, al, c->region);
}

static OTF2_CallbackCode cb_cc_leave(OTF2_LocationRef loc,
                                     OTF2_TimeStamp t,
                                     void *ud,
                                     OTF2_AttributeList *al,
                                     OTF2_CallingContextRef cc)
{
    otf2_imp *const imp = ud;
    const otf2_def_context *const c = otf2_defs_context(&imp->defs, cc);
    if (!c) {
        return rec_error(imp, RC(REC_CALLING_CONTEXT_LEAVE, loc, t), "undefined CALLING_CONTEXT %u",
                         cc);
    }
    return leave_region(imp, REC_CALLING_CONTEXT_LEAVE, loc, t, al, c->region);
}

/* ---- collectives ------------------------------------------------------- */

static OTF2_CallbackCode
cb_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al)
{
    otf2_imp *const imp = ud;
    int64_t ns;
    otf2_def_loc *const l = event_loc(imp, REC_MPI_COLLECTIVE_BEGIN, loc, t, &ns);
    if (!usable(imp, l) || skip_too_deep(imp, l)) {
        return not_usable(l);
    }
    otf2_frame *const f = push_frame(imp, l);
    if (!f) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    f->category = OTF2_NO_INDEX; /* known at the end */
    f->region = UINT64_MAX;
    f->start = ns;
    f->event = false;
    if (attrs_append(imp, al, &f->args, RC(REC_MPI_COLLECTIVE_BEGIN, loc, t)) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    count(imp, REC_MPI_COLLECTIVE_BEGIN, IMPORT_IMPORTED);
    return OTF2_CALLBACK_SUCCESS;
}

static int coll_args(
    otf2_imp *imp, otf2_frame *f, const char *comm, uint32_t root, uint64_t sent, uint64_t received)
{
    if (args_reserve(&f->args, f->args.n + 4) != 0) {
        imp_error(imp, "out of memory");
        return -1;
    }
    slog_arg *const a = f->args.v + f->args.n;
    a[0] = (slog_arg){.key = "communicator", .type = SLOG_ARG_STRING, .v.s = comm};
    a[1] = (slog_arg){.key = "bytes_sent", .type = SLOG_ARG_UINT, .v.u = sent};
    a[2] = (slog_arg){.key = "bytes_received", .type = SLOG_ARG_UINT, .v.u = received};
    f->args.n += 3;
    if (root != OTF2_UNDEFINED_UINT32 && root != OTF2_COLLECTIVE_ROOT_NONE) {
        a[3] = (slog_arg){.key = "root", .type = SLOG_ARG_INT, .v.i = root};
        f->args.n++;
    }
    return 0;
}

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_CallbackCode cb_coll_end(OTF2_LocationRef loc,
                                     OTF2_TimeStamp t,
                                     void *ud,
                                     OTF2_AttributeList *al,
                                     OTF2_CollectiveOp op,
                                     OTF2_CommRef comm,
                                     uint32_t root,
                                     uint64_t sent,
                                     uint64_t received)
{
    otf2_imp *const imp = ud;
    int64_t ns;
    otf2_def_loc *const l = event_loc(imp, REC_MPI_COLLECTIVE_END, loc, t, &ns);
    if (!usable(imp, l)) {
        return not_usable(l);
    }
    const otf2_def_comm *const c = otf2_defs_comm(&imp->defs, comm);
    if (!c) {
        return rec_error(imp, RC(REC_MPI_COLLECTIVE_END, loc, t), "undefined COMM %u", comm);
    }
    if (ends_skipped(imp, l, REC_MPI_COLLECTIVE_END)) {
        return OTF2_CALLBACK_SUCCESS;
    }
    if (l->depth == 0 || l->stack[l->depth - 1].region != UINT64_MAX) {
        count(imp, REC_COLLECTIVE_UNMATCHED, IMPORT_REPAIRED);
        return OTF2_CALLBACK_SUCCESS;
    }
    const uint32_t slot = op < COLLECTIVE_OPS - 1 ? op : COLLECTIVE_OPS - 1;
    if (imp->coll_category[slot] == OTF2_NO_INDEX &&
        add_category(imp, SLOG_KIND_STATE, otf2_collective_name(op), "MPI/collective",
                     &imp->coll_category[slot]) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    otf2_frame *const f = &l->stack[l->depth - 1];
    f->category = imp->coll_category[slot];
    if (coll_args(imp, f, otf2_defs_string(&imp->defs, c->name), root, sent, received) != 0 ||
        attrs_append(imp, al, &f->args, RC(REC_MPI_COLLECTIVE_END, loc, t)) != 0 ||
        pop_frame(imp, l, ns) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    count(imp, REC_MPI_COLLECTIVE_END, IMPORT_IMPORTED);
    return OTF2_CALLBACK_SUCCESS;
}

/* ---- point-to-point messages --------------------------------------------- */

static OTF2_CallbackCode emit_arrow(otf2_imp *imp,
                                    const otf2_msg_end *send,
                                    const otf2_msg_end *recv,
                                    const char *comm,
                                    uint32_t tag)
{
    const slog_arg args[3] = {
        {.key = "tag", .type = SLOG_ARG_INT, .v.i = tag},
        {.key = "bytes", .type = SLOG_ARG_UINT, .v.u = send->bytes},
        {.key = "communicator", .type = SLOG_ARG_STRING, .v.s = comm},
    };
    slog_arrow a = {.category = imp->arrow_category,
                    .from = send->timeline,
                    .to = recv->timeline,
                    .start = send->time,
                    .end = recv->time,
                    .nargs = 3,
                    .args = args};
    if (a.end < a.start) {
        a.end = a.start;
        count(imp, REC_ARROW_SKEW, IMPORT_REPAIRED);
    }
    slog_error e;
    if (slog_writer_append_arrow(imp->w, &a, &e) != SLOG_OK) {
        return write_failed(imp, &e, "an arrow");
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* One message end: a send (peer = receiver rank) or a receive (peer =
 * sender rank).  Pairs it with the other end when that is already known. */
/* The fields of an MPI point-to-point record. */
typedef struct p2p_fields {
    uint32_t peer; /* receiver rank of a send, sender rank of a receive */
    OTF2_CommRef comm;
    uint32_t tag;
    uint64_t bytes;
} p2p_fields;

static OTF2_CallbackCode p2p(otf2_imp *imp,
                             const rec_ctx *rc,
                             bool is_send,
                             const OTF2_AttributeList *al,
                             const p2p_fields *m)
{
    const int rec = rc->rec;
    const uint64_t loc = rc->loc, t = rc->t, bytes = m->bytes;
    const uint32_t peer = m->peer, tag = m->tag;
    const OTF2_CommRef comm = m->comm;
    int64_t ns;
    const otf2_def_loc *const l = event_loc(imp, rec, loc, t, &ns);
    if (!usable(imp, l)) {
        return not_usable(l);
    }
    const otf2_def_comm *const c = otf2_defs_comm(&imp->defs, comm);
    if (!c) {
        return rec_error(imp, RC(rec, loc, t), "undefined COMM %u", comm);
    }
    if (al && OTF2_AttributeList_GetNumberOfElements(al) > 0) {
        imp->counts[REC_P2P_ATTRS][IMPORT_SKIPPED] += OTF2_AttributeList_GetNumberOfElements(al);
    }
    const uint32_t other = otf2_defs_rank_group(&imp->defs, comm, peer, loc);
    if (other == OTF2_NO_INDEX) {
        count(imp, rec, IMPORT_SKIPPED);
        count(imp, REC_P2P_UNRESOLVED, IMPORT_SKIPPED);
        return OTF2_CALLBACK_SUCCESS;
    }
    const otf2_msg_key key = {.comm = comm,
                              .sender = is_send ? l->group_index : other,
                              .receiver = is_send ? other : l->group_index,
                              .tag = tag};
    const otf2_msg_end end = {.time = ns, .timeline = l->timeline, .bytes = bytes};
    otf2_msg_end match;
    const int r = otf2_match_offer(imp->match, &key, is_send, &end, &match);
    count(imp, rec, IMPORT_IMPORTED);
    if (r < 0) {
        imp_error(imp, "out of memory");
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (r == 0) {
        return OTF2_CALLBACK_SUCCESS;
    }
    const char *const cname = otf2_defs_string(&imp->defs, c->name);
    return is_send ? emit_arrow(imp, &end, &match, cname, tag)
                   : emit_arrow(imp, &match, &end, cname, tag);
}

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_CallbackCode cb_send(OTF2_LocationRef loc,
                                 OTF2_TimeStamp t,
                                 void *ud,
                                 OTF2_AttributeList *al,
                                 uint32_t receiver,
                                 OTF2_CommRef comm,
                                 uint32_t tag,
                                 uint64_t len)
{
    return p2p(ud, RC(REC_MPI_SEND, loc, t), true, al,
               &(const p2p_fields){receiver, comm, tag, len});
}

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_CallbackCode cb_recv(OTF2_LocationRef loc,
                                 OTF2_TimeStamp t,
                                 void *ud,
                                 OTF2_AttributeList *al,
                                 uint32_t sender,
                                 OTF2_CommRef comm,
                                 uint32_t tag,
                                 uint64_t len)
{
    return p2p(ud, RC(REC_MPI_RECV, loc, t), false, al,
               &(const p2p_fields){sender, comm, tag, len});
}

static OTF2_CallbackCode
request(otf2_imp *imp, int rec, uint64_t loc, uint64_t t, uint64_t req, bool open)
{
    const otf2_def_loc *const l = otf2_defs_loc(&imp->defs, loc);
    if (!l) {
        return rec_error(imp, RC(rec, loc, t), "undefined LOCATION %" PRIu64, loc);
    }
    const uint32_t idx = otf2_idmap_get(&imp->defs.locs.map, loc);
    if (open) {
        if (otf2_request_open(imp->match, idx, req) < 0) {
            imp_error(imp, "out of memory");
            return OTF2_CALLBACK_INTERRUPT;
        }
    } else if (otf2_request_close(imp->match, idx, req) == 0) {
        count(imp, REC_REQUEST_UNKNOWN, IMPORT_REPAIRED);
    }
    return OTF2_CALLBACK_SUCCESS;
}

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_CallbackCode cb_isend(OTF2_LocationRef loc,
                                  OTF2_TimeStamp t,
                                  void *ud,
                                  OTF2_AttributeList *al,
                                  uint32_t receiver,
                                  OTF2_CommRef comm,
                                  uint32_t tag,
                                  uint64_t len,
                                  uint64_t req)
{
    const OTF2_CallbackCode r =
        p2p(ud, RC(REC_MPI_ISEND, loc, t), true, al, &(const p2p_fields){receiver, comm, tag, len});
    return r == OTF2_CALLBACK_SUCCESS ? request(ud, REC_MPI_ISEND, loc, t, req, true) : r;
}

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_CallbackCode cb_irecv(OTF2_LocationRef loc,
                                  OTF2_TimeStamp t,
                                  void *ud,
                                  OTF2_AttributeList *al,
                                  uint32_t sender,
                                  OTF2_CommRef comm,
                                  uint32_t tag,
                                  uint64_t len,
                                  uint64_t req)
{
    const OTF2_CallbackCode r =
        p2p(ud, RC(REC_MPI_IRECV, loc, t), false, al, &(const p2p_fields){sender, comm, tag, len});
    return r == OTF2_CALLBACK_SUCCESS ? request(ud, REC_MPI_IRECV, loc, t, req, false) : r;
}

/* Request records carry no drawable of their own: they open or close a
 * non-blocking request (checked for completion). */
static OTF2_CallbackCode
request_record(void *ud, const rec_ctx *rc, uint64_t req, bool open, import_outcome o)
{
    otf2_imp *const imp = ud;
    int64_t ns;
    const otf2_def_loc *const l = event_loc(imp, rc->rec, rc->loc, rc->t, &ns);
    if (!usable(imp, l)) {
        return not_usable(l);
    }
    count(imp, rc->rec, o);
    return request(imp, rc->rec, rc->loc, rc->t, req, open);
}

static OTF2_CallbackCode cb_isend_complete(
    OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al, uint64_t req)
{
    (void)al;
    return request_record(ud, RC(REC_MPI_ISEND_COMPLETE, loc, t), req, false, IMPORT_IMPORTED);
}

static OTF2_CallbackCode cb_irecv_request(
    OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al, uint64_t req)
{
    (void)al;
    return request_record(ud, RC(REC_MPI_IRECV_REQUEST, loc, t), req, true, IMPORT_IMPORTED);
}

static OTF2_CallbackCode cb_request_cancelled(
    OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al, uint64_t req)
{
    (void)al;
    return request_record(ud, RC(REC_MPI_REQUEST_CANCELLED, loc, t), req, false, IMPORT_SKIPPED);
}

static OTF2_CallbackCode cb_request_test(
    OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al, uint64_t req)
{
    otf2_imp *const imp = ud;
    int64_t ns;
    (void)al, (void)req;
    const otf2_def_loc *const l = event_loc(imp, REC_MPI_REQUEST_TEST, loc, t, &ns);
    if (!usable(imp, l)) {
        return not_usable(l);
    }
    count(imp, REC_MPI_REQUEST_TEST, IMPORT_SKIPPED);
    return OTF2_CALLBACK_SUCCESS;
}

/* ---- metrics ----------------------------------------------------------- */

static uint32_t member_category(otf2_imp *imp, otf2_def_member *m)
{
    if (m->category == OTF2_NO_INDEX) {
        const char *const unit = otf2_defs_string(&imp->defs, m->unit);
        const char *const descr = otf2_defs_string(&imp->defs, m->description);
        char group[512];
        if (strncmp(descr, SLOG_COUNTER_MARK, strlen(SLOG_COUNTER_MARK)) == 0) {
            (void)snprintf(group, sizeof group, "%s", descr + strlen(SLOG_COUNTER_MARK));
        } else {
            (void)snprintf(group, sizeof group, "metric%s%s", unit[0] ? "/" : "", unit);
        }
        if (add_category(imp, SLOG_KIND_COUNTER, otf2_defs_string(&imp->defs, m->name), group,
                         &m->category) != 0) {
            return OTF2_NO_INDEX;
        }
    }
    return m->category;
}

/* Name of what a metric instance measures ("HIP Context 0"). */
static const char *scope_name(otf2_imp *imp, const otf2_def_metric *inst, char *buf, size_t n)
{
    otf2_defs *const d = &imp->defs;
    const char *name = NULL;
    if (inst->scope_kind == OTF2_SCOPE_LOCATION) {
        const otf2_def_loc *const l = otf2_defs_loc(d, inst->scope);
        name = l ? otf2_defs_string(d, l->name) : NULL;
    } else if (inst->scope_kind == OTF2_SCOPE_LOCATION_GROUP) {
        const uint32_t g = otf2_idmap_get(&d->lgroups.map, inst->scope);
        name = g != OTF2_NO_INDEX ? otf2_defs_string(d, d->lgroups.v[g].name) : NULL;
    } else if (inst->scope_kind == OTF2_SCOPE_SYSTEM_TREE_NODE) {
        const uint32_t t = otf2_idmap_get(&d->stns.map, inst->scope);
        name = t != OTF2_NO_INDEX ? otf2_defs_string(d, d->stns.v[t].name) : NULL;
    } else if (inst->scope_kind == OTF2_SCOPE_GROUP) {
        const otf2_def_group *const g = otf2_defs_group(d, inst->scope);
        name = g ? otf2_defs_string(d, g->name) : NULL;
    }
    if (!name || !name[0]) {
        (void)snprintf(buf, n, "scope %" PRIu64, inst->scope);
        return buf;
    }
    return name;
}

/* Category of member k of a sample recorded through `inst` (NULL: through
 * the class).  Instances whose recorder records the class for several
 * scopes get "member @ scope" categories (see mark_shared_recorders). */
static uint32_t
sample_category(otf2_imp *imp, const otf2_def_metric *inst, otf2_def_member *mm, uint32_t k)
{
    if (!inst || !inst->shared) {
        return member_category(imp, mm);
    }
    const uint64_t key = inst->id << 8 | k;
    uint32_t cat = otf2_idmap_get(&imp->scoped, key);
    if (cat != OTF2_NO_INDEX) {
        return cat;
    }
    char sbuf[64], name[600], group[512];
    const char *const unit = otf2_defs_string(&imp->defs, mm->unit);
    (void)snprintf(name, sizeof name, "%s @ %s", otf2_defs_string(&imp->defs, mm->name),
                   scope_name(imp, inst, sbuf, sizeof sbuf));
    (void)snprintf(group, sizeof group, "metric%s%s", unit[0] ? "/" : "", unit);
    if (add_category(imp, SLOG_KIND_COUNTER, name, group, &cat) != 0) {
        return OTF2_NO_INDEX;
    }
    if (otf2_idmap_put(&imp->scoped, key, cat) != 0) {
        imp_error(imp, "out of memory");
        return OTF2_NO_INDEX;
    }
    return cat;
}

static double metric_double(OTF2_Type type, OTF2_MetricValue v)
{
    switch (type) {
    case OTF2_TYPE_INT64:
        return (double)v.signed_int;
    case OTF2_TYPE_DOUBLE:
        return v.floating_point;
    default:
        return (double)v.unsigned_int;
    }
}

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_CallbackCode cb_metric(OTF2_LocationRef loc,
                                   OTF2_TimeStamp t,
                                   void *ud,
                                   OTF2_AttributeList *al,
                                   OTF2_MetricRef metric,
                                   uint8_t n,
                                   const OTF2_Type *types,
                                   const OTF2_MetricValue *values)
{
    otf2_imp *const imp = ud;
    int64_t ns;
    const otf2_def_loc *const l = event_loc(imp, REC_METRIC, loc, t, &ns);
    if (!usable(imp, l)) {
        return not_usable(l);
    }
    const otf2_def_metric *m = otf2_defs_metric(&imp->defs, metric);
    const otf2_def_metric *const inst = m && m->instance ? m : NULL;
    if (inst) {
        m = otf2_defs_metric(&imp->defs, m->class_id);
    }
    if (!m) {
        return rec_error(imp, RC(REC_METRIC, loc, t), "undefined METRIC %u", metric);
    }
    if (m->nmembers != n) {
        return rec_error(imp, RC(REC_METRIC, loc, t), "%u values for METRIC %u of %u members", n,
                         metric, m->nmembers);
    }
    if (al && OTF2_AttributeList_GetNumberOfElements(al) > 0) { /* counters carry no args */
        imp->counts[REC_P2P_ATTRS][IMPORT_SKIPPED] += OTF2_AttributeList_GetNumberOfElements(al);
    }
    for (uint8_t i = 0; i < n; i++) {
        otf2_def_member *const mm = otf2_defs_member(&imp->defs, m->members[i]);
        const slog_counter c = {.timeline = l->timeline,
                                .category = sample_category(imp, inst, mm, i),
                                .time = ns,
                                .value = metric_double(types[i], values[i])};
        slog_error e;
        if (c.category == OTF2_NO_INDEX) {
            return OTF2_CALLBACK_INTERRUPT;
        }
        if (slog_writer_append_counter(imp->w, &c, &e) != SLOG_OK) {
            return write_failed(imp, &e, "a counter sample");
        }
    }
    count(imp, REC_METRIC, IMPORT_IMPORTED);
    return OTF2_CALLBACK_SUCCESS;
}

/* ---- events -------------------------------------------------------------- */

/* Emit an event of record kind `rec` with imp->scratch args plus the
 * record's attributes. */
static OTF2_CallbackCode emit_event(otf2_imp *imp,
                                    int rec,
                                    const char *group,
                                    uint64_t loc,
                                    uint64_t t,
                                    const OTF2_AttributeList *al)
{
    int64_t ns;
    const otf2_def_loc *const l = event_loc(imp, rec, loc, t, &ns);
    if (!usable(imp, l)) {
        imp->scratch.n = 0; /* a parameter may have left its value there */
        return not_usable(l);
    }
    if (attrs_append(imp, al, &imp->scratch, RC(rec, loc, t)) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    const slog_event ev = {.timeline = l->timeline,
                           .category = rec_category(imp, rec, SLOG_KIND_EVENT, group),
                           .time = ns,
                           .nargs = imp->scratch.n,
                           .args = imp->scratch.n ? imp->scratch.v : NULL};
    imp->scratch.n = 0;
    if (ev.category == OTF2_NO_INDEX) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    slog_error e;
    if (slog_writer_append_event(imp->w, &ev, &e) != SLOG_OK) {
        return write_failed(imp, &e, "an event");
    }
    count(imp, rec, IMPORT_IMPORTED);
    return OTF2_CALLBACK_SUCCESS;
}

static int scratch_add(otf2_imp *imp, slog_arg a)
{
    if (args_reserve(&imp->scratch, imp->scratch.n + 1) != 0) {
        imp_error(imp, "out of memory");
        return -1;
    }
    imp->scratch.v[imp->scratch.n++] = a;
    return 0;
}

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_CallbackCode cb_program_begin(OTF2_LocationRef loc,
                                          OTF2_TimeStamp t,
                                          void *ud,
                                          OTF2_AttributeList *al,
                                          OTF2_StringRef name,
                                          uint32_t argc,
                                          const OTF2_StringRef *argv)
{
    otf2_imp *const imp = ud;
    const char *const s = otf2_defs_string(&imp->defs, name);
    (void)argv;
    if (!s) {
        return rec_error(imp, RC(REC_PROGRAM_BEGIN, loc, t), "undefined STRING %u", name);
    }
    if (scratch_add(imp, (slog_arg){.key = "program", .type = SLOG_ARG_STRING, .v.s = s}) != 0 ||
        scratch_add(imp, (slog_arg){.key = "argc", .type = SLOG_ARG_INT, .v.i = argc}) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    return emit_event(imp, REC_PROGRAM_BEGIN, "OTF2/program", loc, t, al);
}

static OTF2_CallbackCode cb_program_end(
    OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al, int64_t status)
{
    otf2_imp *const imp = ud;
    if (status != (int64_t)OTF2_UNDEFINED_INT64 &&
        scratch_add(imp, (slog_arg){.key = "exit_status", .type = SLOG_ARG_INT, .v.i = status}) !=
            0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    return emit_event(imp, REC_PROGRAM_END, "OTF2/program", loc, t, al);
}

static OTF2_CallbackCode cb_measurement(OTF2_LocationRef loc,
                                        OTF2_TimeStamp t,
                                        void *ud,
                                        OTF2_AttributeList *al,
                                        OTF2_MeasurementMode mode)
{
    otf2_imp *const imp = ud;
    const char *const m = mode == OTF2_MEASUREMENT_ON ? "on" : "off";
    if (scratch_add(imp, (slog_arg){.key = "mode", .type = SLOG_ARG_STRING, .v.s = m}) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    return emit_event(imp, REC_MEASUREMENT_ON_OFF, "OTF2/measurement", loc, t, al);
}

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_CallbackCode cb_cc_sample(OTF2_LocationRef loc,
                                      OTF2_TimeStamp t,
                                      void *ud,
                                      OTF2_AttributeList *al,
                                      OTF2_CallingContextRef cc,
                                      uint32_t unwind,
                                      OTF2_InterruptGeneratorRef gen)
{
    otf2_imp *const imp = ud;
    const otf2_def_context *const c = otf2_defs_context(&imp->defs, cc);
    otf2_def_region *const r = c ? otf2_defs_region(&imp->defs, c->region) : NULL;
    (void)unwind, (void)gen;
    if (!c) {
        return rec_error(imp, RC(REC_CALLING_CONTEXT_SAMPLE, loc, t),
                         "undefined CALLING_CONTEXT %u", cc);
    }
    const char *const name = r ? otf2_defs_string(&imp->defs, r->name) : "";
    if (scratch_add(imp, (slog_arg){.key = "region", .type = SLOG_ARG_STRING, .v.s = name}) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    return emit_event(imp, REC_CALLING_CONTEXT_SAMPLE, "OTF2/sampling", loc, t, al);
}

/* A parameter becomes an arg of the innermost open state of its location,
 * or an event when none is open. */
static OTF2_CallbackCode parameter(otf2_imp *imp,
                                   const rec_ctx *rc,
                                   const OTF2_AttributeList *al,
                                   OTF2_ParameterRef param,
                                   slog_arg value)
{
    const int rec = rc->rec;
    const uint64_t loc = rc->loc, t = rc->t;
    const otf2_def_named *const p = otf2_defs_param(&imp->defs, param);
    if (!p) {
        return rec_error(imp, RC(rec, loc, t), "undefined PARAMETER %u", param);
    }
    value.key = otf2_defs_string(&imp->defs, p->name);
    otf2_def_loc *const l = otf2_defs_loc(&imp->defs, loc);
    if (l && l->depth > 0) {
        int64_t ns;
        otf2_frame *const f = &l->stack[l->depth - 1];
        const otf2_def_loc *const at = event_loc(imp, rec, loc, t, &ns);
        if (!usable(imp, at)) {
            return not_usable(at);
        }
        if (args_reserve(&f->args, f->args.n + 1) != 0) {
            imp_error(imp, "out of memory");
            return OTF2_CALLBACK_INTERRUPT;
        }
        f->args.v[f->args.n++] = value;
        if (attrs_append(imp, al, &f->args, RC(rec, loc, t)) != 0) {
            return OTF2_CALLBACK_INTERRUPT;
        }
        count(imp, rec, IMPORT_IMPORTED);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (scratch_add(imp, value) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    return emit_event(imp, rec, "OTF2/parameter", loc, t, al);
}

static OTF2_CallbackCode cb_param_string(OTF2_LocationRef loc,
                                         OTF2_TimeStamp t,
                                         void *ud,
                                         OTF2_AttributeList *al,
                                         OTF2_ParameterRef p,
                                         OTF2_StringRef s)
{
    otf2_imp *const imp = ud;
    const char *const str = otf2_defs_string(&imp->defs, s);
    if (!str) {
        return rec_error(imp, RC(REC_PARAMETER_STRING, loc, t), "undefined STRING %u", s);
    }
    return parameter(imp, RC(REC_PARAMETER_STRING, loc, t), al, p,
                     (slog_arg){.type = SLOG_ARG_STRING, .v.s = str});
}

static OTF2_CallbackCode cb_param_int(OTF2_LocationRef loc,
                                      OTF2_TimeStamp t,
                                      void *ud,
                                      OTF2_AttributeList *al,
                                      OTF2_ParameterRef p,
                                      int64_t v)
{
    return parameter(ud, RC(REC_PARAMETER_INT64, loc, t), al, p,
                     (slog_arg){.type = SLOG_ARG_INT, .v.i = v});
}

static OTF2_CallbackCode cb_param_uint(OTF2_LocationRef loc,
                                       OTF2_TimeStamp t,
                                       void *ud,
                                       OTF2_AttributeList *al,
                                       OTF2_ParameterRef p,
                                       uint64_t v)
{
    const slog_arg a = v > (uint64_t)INT64_MAX
                           ? (slog_arg){.type = SLOG_ARG_UINT, .v.u = v}
                           : (slog_arg){.type = SLOG_ARG_INT, .v.i = (int64_t)v};
    return parameter(ud, RC(REC_PARAMETER_UINT64, loc, t), al, p, a);
}

static OTF2_CallbackCode cb_buffer_flush(
    OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al, OTF2_TimeStamp stop)
{
    otf2_imp *const imp = ud;
    int64_t ns;
    otf2_def_loc *const l = event_loc(imp, REC_BUFFER_FLUSH, loc, t, &ns);
    (void)al;
    if (!usable(imp, l)) {
        return not_usable(l);
    }
    int64_t end = otf2_clock_ns(&imp->clock, stop);
    if (end < ns) {
        end = ns;
        count(imp, REC_FLUSH_SKEW, IMPORT_REPAIRED);
    }
    const slog_state s = {
        .timeline = l->timeline,
        .category = rec_category(imp, REC_BUFFER_FLUSH, SLOG_KIND_STATE, "OTF2/measurement"),
        .start = ns,
        .end = end,
        .depth = l->depth};
    slog_error e;
    if (s.category == OTF2_NO_INDEX) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (slog_writer_append_state(imp->w, &s, &e) != SLOG_OK) {
        return write_failed(imp, &e, "a state");
    }
    count(imp, REC_BUFFER_FLUSH, IMPORT_IMPORTED);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
cb_unknown(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al)
{
    otf2_imp *const imp = ud;
    int64_t ns;
    (void)al;
    const otf2_def_loc *const l = event_loc(imp, REC_UNKNOWN, loc, t, &ns);
    if (!usable(imp, l)) {
        return not_usable(l);
    }
    count(imp, REC_UNKNOWN, IMPORT_SKIPPED);
    return OTF2_CALLBACK_SUCCESS;
}

/* Records libslog has no drawable for (threading, OpenMP, RMA, I/O, ...):
 * an event named by the record type on its location, with its attributes;
 * the record's own fields are not kept (see doc/IMPORT-OTF2.md). */
static OTF2_CallbackCode generic(
    void *ud, int rec, const char *group, uint64_t loc, uint64_t t, const OTF2_AttributeList *al)
{
    return emit_event(ud, rec, group, loc, t, al);
}

/* ---- two threads: records packed on the reading thread -------------------
 * With two threads (read_events), libotf2 calls the *_pack functions below:
 * each packs its record into imp->pipe (otf2_defer.h), and the mapping
 * thread replays it through *_replay into the callback above, in the order
 * libotf2 read them.  A record too large for a batch, and PROGRAM_BEGIN
 * (an array of arguments), are mapped on the reading thread once the
 * mapping thread is idle. */

/* Map a record here, after everything before it (the pipe drained). */
static OTF2_CallbackCode
map_here(otf2_imp *imp, const otf2_deferred *head, OTF2_AttributeList *al, const uint64_t *a)
{
    union { /* room for the fields after the header, without a cast */
        otf2_deferred head;
        uint64_t words[sizeof(otf2_deferred) / 8 + OTF2_DEFER_MAX_ARGS];
    } rec;
    otf2_deferred *const r = &rec.head;
    *r = *head;
    if (a != NULL && r->nargs > 0) {
        memcpy(r->a, a, (size_t)r->nargs * 8);
    }
    if (otf2_pipe_drain(imp->pipe) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    return r->replay(imp, r, al);
}

/* Pack the record @p head names (its fields in @p a) for the mapping thread. */
static OTF2_CallbackCode
defer(void *ud, const otf2_deferred *head, OTF2_AttributeList *al, const uint64_t *a)
{
    otf2_imp *const imp = ud;
    const int rc = otf2_defer_put(imp->pipe, head, al, a);
    if (rc == 0) {
        return OTF2_CALLBACK_SUCCESS;
    }
    return rc < 0 ? OTF2_CALLBACK_INTERRUPT : map_here(imp, head, al, a);
}

#    define W(x)       ((uint64_t)(x))
#    define HEAD(fn, n) (&(const otf2_deferred){fn##_replay, loc, t, (n), 0})
#    define REPLAY(fn) static OTF2_CallbackCode fn##_replay(void *ud, const otf2_deferred *r, OTF2_AttributeList *al)
#    define PACK(fn, ...)                                                                          \
        static OTF2_CallbackCode fn##_pack(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,       \
                                           OTF2_AttributeList *al, __VA_ARGS__)
#    define DEFER1(fn, T1)                                                                         \
        REPLAY(fn) { return fn(r->loc, r->t, ud, al, (T1)r->a[0]); }                               \
        PACK(fn, T1 a1)                                                                            \
        {                                                                                          \
            const uint64_t a[] = {W(a1)};                                                          \
            return defer(ud, HEAD(fn, 1), al, a);                                                  \
        }
#    define DEFER2(fn, T1, T2)                                                                     \
        REPLAY(fn) { return fn(r->loc, r->t, ud, al, (T1)r->a[0], (T2)r->a[1]); }                  \
        PACK(fn, T1 a1, T2 a2)                                                                     \
        {                                                                                          \
            const uint64_t a[] = {W(a1), W(a2)};                                                   \
            return defer(ud, HEAD(fn, 2), al, a);                                                  \
        }
#    define DEFER3(fn, T1, T2, T3)                                                                 \
        REPLAY(fn) { return fn(r->loc, r->t, ud, al, (T1)r->a[0], (T2)r->a[1], (T3)r->a[2]); }     \
        PACK(fn, T1 a1, T2 a2, T3 a3)                                                              \
        {                                                                                          \
            const uint64_t a[] = {W(a1), W(a2), W(a3)};                                            \
            return defer(ud, HEAD(fn, 3), al, a);                                                  \
        }
#    define DEFER4(fn, T1, T2, T3, T4)                                                             \
        REPLAY(fn)                                                                                 \
        {                                                                                          \
            return fn(r->loc, r->t, ud, al, (T1)r->a[0], (T2)r->a[1], (T3)r->a[2], (T4)r->a[3]);   \
        }                                                                                          \
        PACK(fn, T1 a1, T2 a2, T3 a3, T4 a4)                                                       \
        {                                                                                          \
            const uint64_t a[] = {W(a1), W(a2), W(a3), W(a4)};                                     \
            return defer(ud, HEAD(fn, 4), al, a);                                                  \
        }
#    define DEFER5(fn, T1, T2, T3, T4, T5)                                                         \
        REPLAY(fn)                                                                                 \
        {                                                                                          \
            return fn(r->loc, r->t, ud, al, (T1)r->a[0], (T2)r->a[1], (T3)r->a[2], (T4)r->a[3],    \
                      (T5)r->a[4]);                                                                \
        }                                                                                          \
        PACK(fn, T1 a1, T2 a2, T3 a3, T4 a4, T5 a5)                                                \
        {                                                                                          \
            const uint64_t a[] = {W(a1), W(a2), W(a3), W(a4), W(a5)};                              \
            return defer(ud, HEAD(fn, 5), al, a);                                                  \
        }

// NOLINTBEGIN(readability-function-size): OTF2 fixes the parameters
REPLAY(cb_unknown)
{
    return cb_unknown(r->loc, r->t, ud, al);
}
static OTF2_CallbackCode
cb_unknown_pack(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al)
{
    return defer(ud, HEAD(cb_unknown, 0), al, NULL);
}

REPLAY(cb_coll_begin)
{
    return cb_coll_begin(r->loc, r->t, ud, al);
}
static OTF2_CallbackCode
cb_coll_begin_pack(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al)
{
    return defer(ud, HEAD(cb_coll_begin, 0), al, NULL);
}

_Static_assert(sizeof(OTF2_MetricValue) == 8 && sizeof(OTF2_Type) == 1, "metric words");

/* A METRIC record's fields: metric, n, the n types in (n + 7) / 8 words,
 * the n values. */
REPLAY(cb_metric)
{
    const uint8_t n = (uint8_t)r->a[1];
    const uint32_t type_words = (n + 7u) / 8u;
    return cb_metric(r->loc, r->t, ud, al, (OTF2_MetricRef)r->a[0], n,
                     (const OTF2_Type *)(const void *)(r->a + 2),
                     (const OTF2_MetricValue *)(const void *)(r->a + 2 + type_words));
}
PACK(cb_metric, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types, const OTF2_MetricValue *values)
{
    uint64_t a[OTF2_DEFER_MAX_ARGS];
    const uint32_t type_words = (n + 7u) / 8u;
    a[0] = metric;
    a[1] = n;
    memset(a + 2, 0, (size_t)type_words * 8);
    memcpy(a + 2, types, n);
    memcpy(a + 2 + type_words, values, (size_t)n * 8);
    return defer(ud, HEAD(cb_metric, 2 + type_words + n), al, a);
}

PACK(cb_program_begin, OTF2_StringRef name, uint32_t argc, const OTF2_StringRef *argv)
{
    otf2_imp *const imp = ud;
    if (otf2_pipe_drain(imp->pipe) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    return cb_program_begin(loc, t, ud, al, name, argc, argv);
}

DEFER1(cb_buffer_flush, OTF2_TimeStamp)
DEFER1(cb_measurement, OTF2_MeasurementMode)
DEFER1(cb_enter, OTF2_RegionRef)
DEFER1(cb_leave, OTF2_RegionRef)
DEFER4(cb_send, uint32_t, OTF2_CommRef, uint32_t, uint64_t)
DEFER5(cb_isend, uint32_t, OTF2_CommRef, uint32_t, uint64_t, uint64_t)
DEFER1(cb_isend_complete, uint64_t)
DEFER1(cb_irecv_request, uint64_t)
DEFER4(cb_recv, uint32_t, OTF2_CommRef, uint32_t, uint64_t)
DEFER5(cb_irecv, uint32_t, OTF2_CommRef, uint32_t, uint64_t, uint64_t)
DEFER1(cb_request_test, uint64_t)
DEFER1(cb_request_cancelled, uint64_t)
DEFER5(cb_coll_end, OTF2_CollectiveOp, OTF2_CommRef, uint32_t, uint64_t, uint64_t)
DEFER2(cb_param_string, OTF2_ParameterRef, OTF2_StringRef)
DEFER2(cb_param_int, OTF2_ParameterRef, int64_t)
DEFER2(cb_param_uint, OTF2_ParameterRef, uint64_t)
DEFER1(cb_program_end, int64_t)
DEFER2(cb_cc_enter, OTF2_CallingContextRef, uint32_t)
DEFER1(cb_cc_leave, OTF2_CallingContextRef)
DEFER3(cb_cc_sample, OTF2_CallingContextRef, uint32_t, OTF2_InterruptGeneratorRef)

// NOLINTEND(readability-function-size)

/* Records without a drawable of their own (generic below) keep only their
 * kind and group: the group is a string literal, passed as its address. */
_Static_assert(sizeof(const char *) <= sizeof(uint64_t), "a group's address fits a word");

static OTF2_CallbackCode generic_replay(void *ud, const otf2_deferred *r, OTF2_AttributeList *al)
{
    const char *group;
    memcpy(&group, &r->a[1], sizeof group);
    return generic(ud, (int)r->a[0], group, r->loc, r->t, al);
}

static OTF2_CallbackCode generic_pack(
    void *ud, int rec, const char *group, uint64_t loc, uint64_t t, OTF2_AttributeList *al)
{
    uint64_t a[] = {W(rec), 0};
    memcpy(&a[1], &group, sizeof group);
    return defer(ud, HEAD(generic, 2), al, a);
}

#    define GENERIC0(fn, rec, group)                                                               \
        static OTF2_CallbackCode fn(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,              \
                                    OTF2_AttributeList *al)                                        \
        {                                                                                          \
            return generic(ud, REC_##rec, group, loc, t, al);                                      \
        }                                                                                          \
        static OTF2_CallbackCode fn##_pack(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,       \
                                           OTF2_AttributeList *al)                                 \
        {                                                                                          \
            return generic_pack(ud, REC_##rec, group, loc, t, al);                                 \
        }
#    define GENERIC(fn, rec, group, ...)                                                           \
        static OTF2_CallbackCode fn(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,              \
                                    OTF2_AttributeList *al, __VA_ARGS__)                           \
        {                                                                                          \
            return generic(ud, REC_##rec, group, loc, t, al);                                      \
        }                                                                                          \
        static OTF2_CallbackCode fn##_pack(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,       \
                                           OTF2_AttributeList *al, __VA_ARGS__)                    \
        {                                                                                          \
            return generic_pack(ud, REC_##rec, group, loc, t, al);                                 \
        }

#    pragma GCC diagnostic push
#    pragma GCC diagnostic ignored "-Wunused-parameter"
// NOLINTBEGIN(readability-function-size): OTF2 fixes the parameters
GENERIC(g_omp_fork, OMP_FORK, "OTF2/OpenMP", uint32_t a)
GENERIC0(g_omp_join, OMP_JOIN, "OTF2/OpenMP")
GENERIC(g_omp_acquire, OMP_ACQUIRE_LOCK, "OTF2/OpenMP", uint32_t a, uint32_t b)
GENERIC(g_omp_release, OMP_RELEASE_LOCK, "OTF2/OpenMP", uint32_t a, uint32_t b)
GENERIC(g_omp_task_create, OMP_TASK_CREATE, "OTF2/OpenMP", uint64_t a)
GENERIC(g_omp_task_switch, OMP_TASK_SWITCH, "OTF2/OpenMP", uint64_t a)
GENERIC(g_omp_task_complete, OMP_TASK_COMPLETE, "OTF2/OpenMP", uint64_t a)
GENERIC(g_rma_win_create, RMA_WIN_CREATE, "OTF2/RMA", OTF2_RmaWinRef a)
GENERIC(g_rma_win_destroy, RMA_WIN_DESTROY, "OTF2/RMA", OTF2_RmaWinRef a)
GENERIC0(g_rma_coll_begin, RMA_COLLECTIVE_BEGIN, "OTF2/RMA")
GENERIC(g_rma_coll_end,
        RMA_COLLECTIVE_END,
        "OTF2/RMA",
        OTF2_CollectiveOp a,
        OTF2_RmaSyncLevel b,
        OTF2_RmaWinRef c,
        uint32_t d,
        uint64_t e,
        uint64_t f)
GENERIC(g_rma_group_sync,
        RMA_GROUP_SYNC,
        "OTF2/RMA",
        OTF2_RmaSyncLevel a,
        OTF2_RmaWinRef b,
        OTF2_GroupRef c)
GENERIC(g_rma_request_lock,
        RMA_REQUEST_LOCK,
        "OTF2/RMA",
        OTF2_RmaWinRef a,
        uint32_t b,
        uint64_t c,
        OTF2_LockType d)
GENERIC(g_rma_acquire_lock,
        RMA_ACQUIRE_LOCK,
        "OTF2/RMA",
        OTF2_RmaWinRef a,
        uint32_t b,
        uint64_t c,
        OTF2_LockType d)
GENERIC(g_rma_try_lock,
        RMA_TRY_LOCK,
        "OTF2/RMA",
        OTF2_RmaWinRef a,
        uint32_t b,
        uint64_t c,
        OTF2_LockType d)
GENERIC(g_rma_release_lock, RMA_RELEASE_LOCK, "OTF2/RMA", OTF2_RmaWinRef a, uint32_t b, uint64_t c)
GENERIC(g_rma_sync, RMA_SYNC, "OTF2/RMA", OTF2_RmaWinRef a, uint32_t b, OTF2_RmaSyncType c)
GENERIC(g_rma_wait_change, RMA_WAIT_CHANGE, "OTF2/RMA", OTF2_RmaWinRef a)
GENERIC(g_rma_put, RMA_PUT, "OTF2/RMA", OTF2_RmaWinRef a, uint32_t b, uint64_t c, uint64_t d)
GENERIC(g_rma_get, RMA_GET, "OTF2/RMA", OTF2_RmaWinRef a, uint32_t b, uint64_t c, uint64_t d)
GENERIC(g_rma_atomic,
        RMA_ATOMIC,
        "OTF2/RMA",
        OTF2_RmaWinRef a,
        uint32_t b,
        OTF2_RmaAtomicType c,
        uint64_t d,
        uint64_t e,
        uint64_t f)
GENERIC(g_rma_op_blocking, RMA_OP_COMPLETE_BLOCKING, "OTF2/RMA", OTF2_RmaWinRef a, uint64_t b)
GENERIC(
    g_rma_op_nonblocking, RMA_OP_COMPLETE_NON_BLOCKING, "OTF2/RMA", OTF2_RmaWinRef a, uint64_t b)
GENERIC(g_rma_op_test, RMA_OP_TEST, "OTF2/RMA", OTF2_RmaWinRef a, uint64_t b)
GENERIC(g_rma_op_remote, RMA_OP_COMPLETE_REMOTE, "OTF2/RMA", OTF2_RmaWinRef a, uint64_t b)
GENERIC(g_thread_fork, THREAD_FORK, "OTF2/threads", OTF2_Paradigm a, uint32_t b)
GENERIC(g_thread_join, THREAD_JOIN, "OTF2/threads", OTF2_Paradigm a)
GENERIC(g_thread_team_begin, THREAD_TEAM_BEGIN, "OTF2/threads", OTF2_CommRef a)
GENERIC(g_thread_team_end, THREAD_TEAM_END, "OTF2/threads", OTF2_CommRef a)
GENERIC(
    g_thread_acquire, THREAD_ACQUIRE_LOCK, "OTF2/threads", OTF2_Paradigm a, uint32_t b, uint32_t c)
GENERIC(
    g_thread_release, THREAD_RELEASE_LOCK, "OTF2/threads", OTF2_Paradigm a, uint32_t b, uint32_t c)
GENERIC(g_thread_task_create,
        THREAD_TASK_CREATE,
        "OTF2/threads",
        OTF2_CommRef a,
        uint32_t b,
        uint32_t c)
GENERIC(g_thread_task_switch,
        THREAD_TASK_SWITCH,
        "OTF2/threads",
        OTF2_CommRef a,
        uint32_t b,
        uint32_t c)
GENERIC(g_thread_task_complete,
        THREAD_TASK_COMPLETE,
        "OTF2/threads",
        OTF2_CommRef a,
        uint32_t b,
        uint32_t c)
GENERIC(g_thread_create, THREAD_CREATE, "OTF2/threads", OTF2_CommRef a, uint64_t b)
GENERIC(g_thread_begin, THREAD_BEGIN, "OTF2/threads", OTF2_CommRef a, uint64_t b)
GENERIC(g_thread_wait, THREAD_WAIT, "OTF2/threads", OTF2_CommRef a, uint64_t b)
GENERIC(g_thread_end, THREAD_END, "OTF2/threads", OTF2_CommRef a, uint64_t b)
GENERIC(g_io_create,
        IO_CREATE_HANDLE,
        "OTF2/IO",
        OTF2_IoHandleRef a,
        OTF2_IoAccessMode b,
        OTF2_IoCreationFlag c,
        OTF2_IoStatusFlag d)
GENERIC(g_io_destroy, IO_DESTROY_HANDLE, "OTF2/IO", OTF2_IoHandleRef a)
GENERIC(g_io_dup,
        IO_DUPLICATE_HANDLE,
        "OTF2/IO",
        OTF2_IoHandleRef a,
        OTF2_IoHandleRef b,
        OTF2_IoStatusFlag c)
GENERIC(
    g_io_seek, IO_SEEK, "OTF2/IO", OTF2_IoHandleRef a, int64_t b, OTF2_IoSeekOption c, uint64_t d)
GENERIC(g_io_status, IO_CHANGE_STATUS_FLAGS, "OTF2/IO", OTF2_IoHandleRef a, OTF2_IoStatusFlag b)
GENERIC(g_io_delete, IO_DELETE_FILE, "OTF2/IO", OTF2_IoParadigmRef a, OTF2_IoFileRef b)
GENERIC(g_io_op_begin,
        IO_OPERATION_BEGIN,
        "OTF2/IO",
        OTF2_IoHandleRef a,
        OTF2_IoOperationMode b,
        OTF2_IoOperationFlag c,
        uint64_t d,
        uint64_t e)
GENERIC(g_io_op_test, IO_OPERATION_TEST, "OTF2/IO", OTF2_IoHandleRef a, uint64_t b)
GENERIC(g_io_op_issued, IO_OPERATION_ISSUED, "OTF2/IO", OTF2_IoHandleRef a, uint64_t b)
GENERIC(
    g_io_op_complete, IO_OPERATION_COMPLETE, "OTF2/IO", OTF2_IoHandleRef a, uint64_t b, uint64_t c)
GENERIC(g_io_op_cancelled, IO_OPERATION_CANCELLED, "OTF2/IO", OTF2_IoHandleRef a, uint64_t b)
GENERIC(g_io_acquire, IO_ACQUIRE_LOCK, "OTF2/IO", OTF2_IoHandleRef a, OTF2_LockType b)
GENERIC(g_io_release, IO_RELEASE_LOCK, "OTF2/IO", OTF2_IoHandleRef a, OTF2_LockType b)
GENERIC(g_io_try, IO_TRY_LOCK, "OTF2/IO", OTF2_IoHandleRef a, OTF2_LockType b)
GENERIC(g_nbc_request, NON_BLOCKING_COLLECTIVE_REQUEST, "MPI/collective", uint64_t a)
GENERIC(g_nbc_complete,
        NON_BLOCKING_COLLECTIVE_COMPLETE,
        "MPI/collective",
        OTF2_CollectiveOp a,
        OTF2_CommRef b,
        uint32_t c,
        uint64_t d,
        uint64_t e,
        uint64_t f)
GENERIC(g_comm_create, COMM_CREATE, "MPI/communicator", OTF2_CommRef a)
GENERIC(g_comm_destroy, COMM_DESTROY, "MPI/communicator", OTF2_CommRef a)
// NOLINTEND(readability-function-size)
#    pragma GCC diagnostic pop

/* The event callbacks, as lists of (OTF2 record, mapping callback); with two
 * threads libotf2 calls each callback's packer, <callback>_pack, instead. */
/* regions, MPI, metrics, parameters, program and measurement records */
#    define CORE_CALLBACKS(X)                                                                      \
        X(Unknown, cb_unknown)                                                                     \
        X(BufferFlush, cb_buffer_flush)                                                            \
        X(MeasurementOnOff, cb_measurement)                                                        \
        X(Enter, cb_enter)                                                                         \
        X(Leave, cb_leave)                                                                         \
        X(MpiSend, cb_send)                                                                        \
        X(MpiIsend, cb_isend)                                                                      \
        X(MpiIsendComplete, cb_isend_complete)                                                     \
        X(MpiIrecvRequest, cb_irecv_request)                                                       \
        X(MpiRecv, cb_recv)                                                                        \
        X(MpiIrecv, cb_irecv)                                                                      \
        X(MpiRequestTest, cb_request_test)                                                         \
        X(MpiRequestCancelled, cb_request_cancelled)                                               \
        X(MpiCollectiveBegin, cb_coll_begin)                                                       \
        X(MpiCollectiveEnd, cb_coll_end)                                                           \
        X(Metric, cb_metric)                                                                       \
        X(ParameterString, cb_param_string)                                                        \
        X(ParameterInt, cb_param_int)                                                              \
        X(ParameterUnsignedInt, cb_param_uint)                                                     \
        X(ProgramBegin, cb_program_begin)                                                          \
        X(ProgramEnd, cb_program_end)                                                              \
        X(CallingContextEnter, cb_cc_enter)                                                        \
        X(CallingContextLeave, cb_cc_leave)
/* calling-context samples, OpenMP and RMA records */
#    define OMP_RMA_CALLBACKS(X)                                                                   \
        X(CallingContextSample, cb_cc_sample)                                                      \
        X(OmpFork, g_omp_fork)                                                                     \
        X(OmpJoin, g_omp_join)                                                                     \
        X(OmpAcquireLock, g_omp_acquire)                                                           \
        X(OmpReleaseLock, g_omp_release)                                                           \
        X(OmpTaskCreate, g_omp_task_create)                                                        \
        X(OmpTaskSwitch, g_omp_task_switch)                                                        \
        X(OmpTaskComplete, g_omp_task_complete)                                                    \
        X(RmaWinCreate, g_rma_win_create)                                                          \
        X(RmaWinDestroy, g_rma_win_destroy)                                                        \
        X(RmaCollectiveBegin, g_rma_coll_begin)                                                    \
        X(RmaCollectiveEnd, g_rma_coll_end)                                                        \
        X(RmaGroupSync, g_rma_group_sync)                                                          \
        X(RmaRequestLock, g_rma_request_lock)                                                      \
        X(RmaAcquireLock, g_rma_acquire_lock)                                                      \
        X(RmaTryLock, g_rma_try_lock)                                                              \
        X(RmaReleaseLock, g_rma_release_lock)                                                      \
        X(RmaSync, g_rma_sync)                                                                     \
        X(RmaWaitChange, g_rma_wait_change)                                                        \
        X(RmaPut, g_rma_put)                                                                       \
        X(RmaGet, g_rma_get)                                                                       \
        X(RmaAtomic, g_rma_atomic)                                                                 \
        X(RmaOpCompleteBlocking, g_rma_op_blocking)                                                \
        X(RmaOpCompleteNonBlocking, g_rma_op_nonblocking)                                          \
        X(RmaOpTest, g_rma_op_test)                                                                \
        X(RmaOpCompleteRemote, g_rma_op_remote)
/* threading, I/O, non-blocking collective and communicator records */
#    define THREADS_IO_CALLBACKS(X)                                                                \
        X(ThreadFork, g_thread_fork)                                                               \
        X(ThreadJoin, g_thread_join)                                                               \
        X(ThreadTeamBegin, g_thread_team_begin)                                                    \
        X(ThreadTeamEnd, g_thread_team_end)                                                        \
        X(ThreadAcquireLock, g_thread_acquire)                                                     \
        X(ThreadReleaseLock, g_thread_release)                                                     \
        X(ThreadTaskCreate, g_thread_task_create)                                                  \
        X(ThreadTaskSwitch, g_thread_task_switch)                                                  \
        X(ThreadTaskComplete, g_thread_task_complete)                                              \
        X(ThreadCreate, g_thread_create)                                                           \
        X(ThreadBegin, g_thread_begin)                                                             \
        X(ThreadWait, g_thread_wait)                                                               \
        X(ThreadEnd, g_thread_end)                                                                 \
        X(IoCreateHandle, g_io_create)                                                             \
        X(IoDestroyHandle, g_io_destroy)                                                           \
        X(IoDuplicateHandle, g_io_dup)                                                             \
        X(IoSeek, g_io_seek)                                                                       \
        X(IoChangeStatusFlags, g_io_status)                                                        \
        X(IoDeleteFile, g_io_delete)                                                               \
        X(IoOperationBegin, g_io_op_begin)                                                         \
        X(IoOperationTest, g_io_op_test)                                                           \
        X(IoOperationIssued, g_io_op_issued)                                                       \
        X(IoOperationComplete, g_io_op_complete)                                                   \
        X(IoOperationCancelled, g_io_op_cancelled)                                                 \
        X(IoAcquireLock, g_io_acquire)                                                             \
        X(IoReleaseLock, g_io_release)                                                             \
        X(IoTryLock, g_io_try)                                                                     \
        X(NonBlockingCollectiveRequest, g_nbc_request)                                             \
        X(NonBlockingCollectiveComplete, g_nbc_complete)                                           \
        X(CommCreate, g_comm_create)                                                               \
        X(CommDestroy, g_comm_destroy)

/* Registration never fails for valid callbacks: each setter adds 1 to `bad`
 * when it does (no branches: one setter per line). */
#    define SET_MAP(what, fn)                                                                      \
        bad += OTF2_GlobalEvtReaderCallbacks_Set##what##Callback(cb, fn) != OTF2_SUCCESS;
#    define SET_PACK(what, fn)                                                                     \
        bad += OTF2_GlobalEvtReaderCallbacks_Set##what##Callback(cb, fn##_pack) != OTF2_SUCCESS;

/* The mapping callbacks, or with @p pack their packers (two threads). */
static int register_events(OTF2_GlobalEvtReaderCallbacks *cb, bool pack)
{
    int bad = 0;
    if (pack) {
        CORE_CALLBACKS(SET_PACK)
        OMP_RMA_CALLBACKS(SET_PACK)
        THREADS_IO_CALLBACKS(SET_PACK)
    } else {
        CORE_CALLBACKS(SET_MAP)
        OMP_RMA_CALLBACKS(SET_MAP)
        THREADS_IO_CALLBACKS(SET_MAP)
    }
    return bad == 0 ? 0 : -1;
}

/* ---- driver ------------------------------------------------------------ */

/* Message for a failed libotf2 call. */
static void otf2_failed(otf2_imp *imp, OTF2_ErrorCode code, const char *what)
{
    imp_error(imp, "%s: %s", what,
              imp->otf2_msg[0] ? imp->otf2_msg : OTF2_Error_GetDescription(code));
}

static int read_definitions(otf2_imp *imp, OTF2_Reader *rd)
{
    char where[4200];
    (void)snprintf(where, sizeof where, "%s.def", imp->trace_dir);
    OTF2_GlobalDefReader *const gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *const cb = OTF2_GlobalDefReaderCallbacks_New();
    uint64_t n = 0;
    if (!gdr || !cb || otf2_defs_register(cb) != 0) {
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        otf2_failed(imp, OTF2_ERROR_FILE_INTERACTION, where);
        return -1;
    }
    OTF2_ErrorCode e = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, cb, &imp->defs);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    if (e == OTF2_SUCCESS) {
        e = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n);
    }
    OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    if (imp->defs.error[0]) {
        imp_error(imp, "%s: %s", where, imp->defs.error);
        return -1;
    }
    if (e != OTF2_SUCCESS) {
        otf2_failed(imp, e, where);
        return -1;
    }
    if (!imp->defs.have_clock) {
        /* older writers, libotf2's own test archives: ticks taken as given */
        imp->defs.resolution = 1000000000u;
        imp->defs.offset = 0;
        imp->no_clock = true;
    }
    if (otf2_defs_check(&imp->defs) != 0) {
        imp_error(imp, "%s: %s", where, imp->defs.error);
        return -1;
    }
    return 0;
}

/* Are the archive's files plain POSIX files (<id>.def, <id>.evt)? */
static bool posix_files(OTF2_Reader *rd)
{
    OTF2_FileSubstrate sub = OTF2_SUBSTRATE_UNDEFINED;
    return OTF2_Reader_GetFileSubstrate(rd, &sub) == OTF2_SUCCESS && sub == OTF2_SUBSTRATE_POSIX;
}

/* May location @p id have local definitions?  A POSIX archive tells by a
 * file, <id>.def; on other substrates (@p posix false) libotf2 is asked. */
static bool has_def_file(const otf2_imp *imp, bool posix, uint64_t id)
{
    if (!posix) {
        return true;
    }
    char path[4200];
    struct stat st;
    (void)snprintf(path, sizeof path, "%s/%" PRIu64 ".def", imp->trace_dir, id);
    return stat(path, &st) == 0 || errno != ENOENT;
}

/* Select every location, read its local definitions (libotf2 applies the
 * mapping tables and clock offsets found there) and open its event reader. */
static int prepare_locations(otf2_imp *imp, OTF2_Reader *rd)
{
    for (uint32_t i = 0; i < imp->defs.locs.n; i++) {
        const OTF2_ErrorCode e = OTF2_Reader_SelectLocation(rd, imp->defs.locs.v[i].id);
        if (e != OTF2_SUCCESS) {
            otf2_failed(imp, e, "Cannot select a location");
            return -1;
        }
    }
    const bool have_defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
    const bool posix = posix_files(rd);
    for (uint32_t i = 0; i < imp->defs.locs.n; i++) {
        const uint64_t id = imp->defs.locs.v[i].id;
        /* libotf2 keeps the definition chunk buffer (often 4 MiB) of a
         * location whose .def file is missing: 4 GiB for 1000 such */
        OTF2_DefReader *const dr =
            have_defs && has_def_file(imp, posix, id) ? OTF2_Reader_GetDefReader(rd, id) : NULL;
        if (dr) {
            uint64_t n = 0;
            const OTF2_ErrorCode e = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
            OTF2_Reader_CloseDefReader(rd, dr);
            if (e != OTF2_SUCCESS) {
                char where[4200];
                (void)snprintf(where, sizeof where, "%s/%" PRIu64 ".def", imp->trace_dir, id);
                otf2_failed(imp, e, where);
                return -1;
            }
        }
    }
    if (have_defs) {
        OTF2_Reader_CloseDefFiles(rd);
    }
    imp->otf2_msg[0] = '\0'; /* a missing local definition file is fine */
    OTF2_ErrorCode e = OTF2_Reader_OpenEvtFiles(rd);
    if (e != OTF2_SUCCESS) {
        otf2_failed(imp, e, "Cannot open the event files");
        return -1;
    }
    for (uint32_t i = 0; i < imp->defs.locs.n; i++) {
        if (!OTF2_Reader_GetEvtReader(rd, imp->defs.locs.v[i].id)) {
            char where[4200];
            otf2_failed(imp, OTF2_ERROR_FILE_INTERACTION,
                        evt_name(imp, imp->defs.locs.v[i].id, where, sizeof where));
            return -1;
        }
    }
    return 0;
}

/* After the global reader failed: read each location's events alone, with
 * a fresh reader, to name the event file that is damaged.  Returns the
 * location index, or OTF2_NO_INDEX if every file reads. */
static uint32_t find_bad_location(otf2_imp *imp, const char *anchor, uint64_t *good_events)
{
    OTF2_Reader *const rd = OTF2_Reader_Open(anchor);
    uint32_t bad = OTF2_NO_INDEX;
    if (!rd || OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS) {
        OTF2_Reader_Close(rd);
        return bad;
    }
    for (uint32_t i = 0; i < imp->defs.locs.n; i++) {
        OTF2_Reader_SelectLocation(rd, imp->defs.locs.v[i].id);
    }
    if (OTF2_Reader_OpenEvtFiles(rd) == OTF2_SUCCESS) {
        for (uint32_t i = 0; i < imp->defs.locs.n && bad == OTF2_NO_INDEX; i++) {
            OTF2_EvtReader *const er = OTF2_Reader_GetEvtReader(rd, imp->defs.locs.v[i].id);
            uint64_t n = 0;
            if (!er || OTF2_Reader_ReadAllLocalEvents(rd, er, &n) != OTF2_SUCCESS) {
                bad = i;
                *good_events = n;
            }
            if (er) {
                OTF2_Reader_CloseEvtReader(rd, er);
            }
        }
        OTF2_Reader_CloseEvtFiles(rd);
    }
    OTF2_Reader_Close(rd);
    return bad;
}

/* Start the mapping thread when the import runs on two threads; false when
 * it runs on this one (by choice, or for want of memory or a thread). */
static bool start_mapping_thread(otf2_imp *imp, otf2_replayer *rp)
{
    rp->ud = imp;
    rp->al = imp->two_threads ? OTF2_AttributeList_New() : NULL;
    imp->pipe = rp->al ? otf2_pipe_start(otf2_defer_replay, rp) : NULL;
    if (!imp->pipe) {
        OTF2_AttributeList_Delete(rp->al);
        rp->al = NULL;
    }
    return imp->pipe != NULL;
}

/* Map what is still in the pipe, then stop the mapping thread. */
static void stop_mapping_thread(otf2_imp *imp, otf2_replayer *rp)
{
    if (imp->pipe) {
        (void)otf2_pipe_drain(imp->pipe);
        otf2_pipe_stop(imp->pipe);
        imp->pipe = NULL;
        OTF2_AttributeList_Delete(rp->al);
    }
}

/* Reading events failed with code e after n of them: name the event file
 * at fault when one location's own reader finds it (a truncated .evt can
 * make libotf2's global reader fail to open, saying only that it "could not
 * be done with the given memory"), else all of them. */
static void events_failed(otf2_imp *imp, const char *anchor, OTF2_ErrorCode e, uint64_t n)
{
    char msg[sizeof imp->otf2_msg], where[4200];
    uint64_t good = 0;
    (void)snprintf(msg, sizeof msg, "%s",
                   imp->otf2_msg[0] ? imp->otf2_msg : OTF2_Error_GetDescription(e));
    const uint32_t bad = find_bad_location(imp, anchor, &good);
    if (bad == OTF2_NO_INDEX) {
        imp_error(imp, "%s/*.evt: reading events failed after %" PRIu64 " events: %s",
                  imp->trace_dir, n, msg);
    } else {
        const otf2_def_loc *const l = &imp->defs.locs.v[bad];
        imp_error(imp,
                  "%s: truncated or damaged: record %" PRIu64 " of %" PRIu64 " cannot be read: %s",
                  evt_name(imp, l->id, where, sizeof where), good + 1, l->events, msg);
    }
}

static int read_events(otf2_imp *imp, OTF2_Reader *rd, const char *anchor)
{
    OTF2_GlobalEvtReader *const ger = OTF2_Reader_GetGlobalEvtReader(rd);
    OTF2_GlobalEvtReaderCallbacks *const cb = OTF2_GlobalEvtReaderCallbacks_New();
    otf2_replayer rp;
    const bool two = start_mapping_thread(imp, &rp);
    if (!ger || !cb || register_events(cb, two) != 0) {
        OTF2_GlobalEvtReaderCallbacks_Delete(cb);
        stop_mapping_thread(imp, &rp);
        if (!ger) {
            events_failed(imp, anchor, OTF2_ERROR_FILE_INTERACTION, 0);
        } else {
            otf2_failed(imp, OTF2_ERROR_FILE_INTERACTION, "Cannot open the global event reader");
        }
        return -1;
    }
    OTF2_ErrorCode e = OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, cb, imp);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    if (e == OTF2_SUCCESS) {
        e = OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n);
    }
    stop_mapping_thread(imp, &rp);
    OTF2_Reader_CloseGlobalEvtReader(rd, ger);
    if (imp->err[0]) {
        return -1;
    }
    if (e != OTF2_SUCCESS) {
        events_failed(imp, anchor, e, n);
        return -1;
    }
    return 0;
}

/* Close what is still open at the end: Enters without Leave end at their
 * location's last event. */
static int close_open_frames(otf2_imp *imp)
{
    for (uint32_t i = 0; i < imp->defs.locs.n; i++) {
        otf2_def_loc *const l = &imp->defs.locs.v[i];
        while (l->depth > 0) {
            otf2_frame *const f = &l->stack[l->depth - 1];
            if (f->category == OTF2_NO_INDEX) { /* collective without end */
                l->depth--;
                count(imp, REC_COLLECTIVE_UNMATCHED, IMPORT_SKIPPED);
                continue;
            }
            if (pop_frame(imp, l, l->last_time) != 0) {
                return -1;
            }
            count(imp, REC_ENTER_UNCLOSED, IMPORT_REPAIRED);
        }
    }
    return 0;
}

/* The counts, also of an archive that failed part way (what it gave
 * before the damage); messages left unmatched only of a whole archive. */
static void report(otf2_imp *imp, bool whole)
{
    uint64_t sends = 0, recvs = 0;
    if (whole) {
        otf2_match_pending(imp->match, &sends, &recvs);
        imp->counts[REC_SEND_UNMATCHED][IMPORT_SKIPPED] += sends;
        imp->counts[REC_RECV_UNMATCHED][IMPORT_SKIPPED] += recvs;
        imp->counts[REC_REQUEST_UNCOMPLETED][IMPORT_SKIPPED] +=
            otf2_request_outstanding(imp->match);
    }
    if (sends || recvs) {
        import_warn(imp->ctx, 0, 0, UINT64_MAX,
                    "%" PRIu64 " MPI sends and %" PRIu64 " receives found no partner", sends,
                    recvs);
    }
    if (imp->defs.unknown_defs) {
        import_count(imp->ctx, "unknown OTF2 definition", IMPORT_SKIPPED, imp->defs.unknown_defs);
    }
    if (imp->defs.ignored_defs) {
        import_count(imp->ctx, "OTF2 property/topology/I/O definition", IMPORT_SKIPPED,
                     imp->defs.ignored_defs);
    }
    for (int r = 0; r < REC_COUNT; r++) {
        for (int o = 0; o < IMPORT_OUTCOMES; o++) {
            if (imp->counts[r][o]) {
                import_count(imp->ctx, rec_names[r], (import_outcome)o, imp->counts[r][o]);
            }
        }
    }
}

/* A path that is not a directory: the anchor file itself, or a failure
 * that says why libotf2 cannot open it (it opens only a file named *.otf2
 * and reads the archive's other files beside it: no pipe). */
static char *anchor_file(import_ctx *ctx, const char *path)
{
    const char *why = NULL;
    if (strcmp(path, "-") == 0) {
        why = "Cannot read an OTF2 archive from a pipe or standard input (it is a directory "
              "of files): give its anchor file (*.otf2) or its directory";
    } else if (!file_is_anchor(path)) {
        why = "Not an OTF2 anchor file (no \"OTF2\" at byte 2): give the archive's anchor "
              "file (*.otf2) or its directory";
    } else if (!ends_with(path, ".otf2")) {
        why = "An OTF2 anchor file whose name does not end in .otf2: libotf2 opens only "
              "*.otf2 (rename it or give its directory)";
    }
    if (why != NULL) {
        import_fail(ctx, 0, 0, UINT64_MAX, "%s", why);
        return NULL;
    }
    return strdup(path);
}

/* Resolve the user's path (anchor file or directory) to the anchor file. */
static char *resolve_anchor(import_ctx *ctx, const char *path)
{
    if (strcmp(path, "-") == 0) {
        return anchor_file(ctx, path);
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        import_fail(ctx, 0, 0, UINT64_MAX, "Cannot open the OTF2 archive %s: %s", path,
                    strerror(errno));
        return NULL;
    }
    if (!S_ISDIR(st.st_mode)) {
        return anchor_file(ctx, path);
    }
    char *anchor;
    const unsigned n = dir_find_anchor(path, &anchor);
    if (n != 1) {
        free(anchor);
        if (n) {
            import_fail(ctx, 0, 0, UINT64_MAX,
                        "Cannot choose among %u OTF2 anchor files in %s: name one", n, path);
        } else {
            import_fail(ctx, 0, 0, UINT64_MAX, "No OTF2 anchor file (*.otf2) in %s", path);
        }
        return NULL;
    }
    return anchor;
}

/* libotf2 3.0.2 loops forever on some damaged anchor files (otf2-print
 * too).  Opening the archive and reading its definitions run as a job under
 * import_guard: on a private otf2_imp (no import_ctx: the job may outlive
 * the import), handed over when the job returns in time. */
typedef struct defs_job {
    otf2_imp *imp; /* private: trace_dir, defs, messages */
    char *anchor;
    OTF2_Reader *rd;
    bool ok;       /* definitions read and checked */
} defs_job;

static void defs_job_main(void *arg)
{
    defs_job *const j = arg;
    hook_imp = j->imp;
    j->rd = OTF2_Reader_Open(j->anchor);
    if (!j->rd || OTF2_Reader_SetSerialCollectiveCallbacks(j->rd) != OTF2_SUCCESS) {
        otf2_failed(j->imp, OTF2_ERROR_FILE_INTERACTION, j->anchor);
    } else {
        j->ok = read_definitions(j->imp, j->rd) == 0;
    }
    hook_imp = NULL;
}

static void defs_job_free(void *arg)
{
    defs_job *const j = arg;
    if (!j) {
        return;
    }
    if (j->rd) {
        OTF2_Reader_Close(j->rd);
    }
    if (j->imp) {
        otf2_defs_free(&j->imp->defs);
    }
    free(j->imp);
    free(j->anchor);
    free(j);
}

/* The job's results into @p imp; the job is freed. */
static OTF2_Reader *defs_take(otf2_imp *imp, defs_job *j)
{
    OTF2_Reader *const rd = j->rd;
    imp->defs = j->imp->defs;
    memcpy(imp->err, j->imp->err, sizeof imp->err);
    memcpy(imp->otf2_msg, j->imp->otf2_msg, sizeof imp->otf2_msg);
    imp->no_clock = j->imp->no_clock;
    const bool ok = j->ok;
    j->rd = NULL;
    memset(&j->imp->defs, 0, sizeof j->imp->defs);
    defs_job_free(j);
    if (!ok && rd) {
        OTF2_Reader_Close(rd);
    }
    return ok ? rd : NULL;
}

/* Open @p anchor and read its definitions into imp->defs, in bounded time.
 * The reader, or NULL with the reason reported (import_fail). */
static OTF2_Reader *open_guarded(otf2_imp *imp, const char *anchor)
{
    defs_job *const j = calloc(1, sizeof *j);
    if (!j || !(j->imp = calloc(1, sizeof *j->imp)) || !(j->anchor = strdup(anchor))) {
        defs_job_free(j);
        import_fail_code(imp->ctx, SLOG_ENOMEM, UINT64_MAX, "out of memory");
        return NULL;
    }
    memcpy(j->imp->trace_dir, imp->trace_dir, sizeof imp->trace_dir);
    const uint32_t ms = import_options(imp->ctx)->otf2_definitions_timeout_ms;
    switch (import_guard_run(defs_job_main, defs_job_free, j, ms, import_options(imp->ctx)->cancel)) {
    case IMPORT_GUARD_DONE: {
        OTF2_Reader *const rd = defs_take(imp, j);
        if (!rd) {
            import_fail(imp->ctx, 0, 0, UINT64_MAX, "%s", imp->err);
        } else if (imp->no_clock) {
            import_warn(imp->ctx, 0, 0, UINT64_MAX,
                        "%s.def: no CLOCK_PROPERTIES definition: timestamps taken as nanoseconds "
                        "(timer resolution 1 GHz, global offset 0)",
                        imp->trace_dir);
            import_count(imp->ctx, "CLOCK_PROPERTIES missing (ticks as ns)", IMPORT_REPAIRED, 1);
        }
        return rd;
    }
    case IMPORT_GUARD_TIMEOUT:
        import_fail_code(imp->ctx, SLOG_EINTR, UINT64_MAX,
                         "libotf2 did not finish reading the archive's definitions in %u %s: "
                         "the anchor or a definition file is probably damaged",
                         ms % 1000 == 0 ? ms / 1000 : ms, ms % 1000 == 0 ? "s" : "ms");
        return NULL;
    case IMPORT_GUARD_CANCELLED:
        import_fail_code(imp->ctx, SLOG_EINTR, UINT64_MAX, "Import cancelled");
        return NULL;
    case IMPORT_GUARD_NO_THREAD:
    default:
        defs_job_free(j);
        import_fail_code(imp->ctx, SLOG_ENOMEM, UINT64_MAX, "Cannot start a thread");
        return NULL;
    }
}

/* 0 ok; -1 failed, already reported through import_fail. */
static int import_archive(otf2_imp *imp, const char *anchor)
{
    OTF2_Reader *const rd = open_guarded(imp, anchor);
    if (!rd) {
        return -1;
    }
    otf2_clock_init(&imp->clock, imp->defs.offset, imp->defs.resolution);
    int rc = -1;
    if (define_timelines(imp) == 0 &&
        add_category(imp, SLOG_KIND_ARROW, "MPI message", "MPI/point2point",
                     &imp->arrow_category) == 0 &&
        prepare_locations(imp, rd) == 0 && read_events(imp, rd, anchor) == 0 &&
        close_open_frames(imp) == 0) {
        rc = 0;
    }
    OTF2_Reader_CloseEvtFiles(rd);
    OTF2_Reader_Close(rd);
    if (rc != 0) {
        import_fail(imp->ctx, 0, 0, UINT64_MAX, "%s", imp->err);
    }
    return rc;
}

/* libotf2's error callback is process-wide: set it once; otf2_error_hook
 * routes by thread. */
static pthread_once_t hook_once = PTHREAD_ONCE_INIT;

static void hook_register(void)
{
    (void)OTF2_Error_RegisterCallback(otf2_error_hook, NULL);
}

/* The archive's bytes: anchor, global definitions and the event folder. */
static uint64_t archive_bytes(const otf2_imp *imp, const char *anchor)
{
    char def[4200];
    (void)snprintf(def, sizeof def, "%s.def", imp->trace_dir);
    uint64_t n = path_bytes(anchor) + path_bytes(def);
    if (strcmp(imp->trace_dir, anchor) != 0) {
        n += path_bytes(imp->trace_dir);
    }
    return n;
}

static int otf2_run(import_ctx *ctx, const char *path)
{
    char *const anchor = resolve_anchor(ctx, path);
    if (!anchor) {
        return 1;
    }
    otf2_imp *const imp = calloc(1, sizeof *imp);
    if (!imp || !(imp->match = otf2_match_create())) {
        free(imp);
        free(anchor);
        return import_fail(ctx, 0, 0, UINT64_MAX, "out of memory");
    }
    imp->ctx = ctx;
    imp->w = ctx->writer;
    imp->two_threads = import_processors() > 1 &&
                       (import_options(ctx)->flags & SLOG_IMPORT_OTF2_ONE_THREAD) == 0;
    memset(imp->rec_category, 0xff, sizeof imp->rec_category);
    memset(imp->coll_category, 0xff, sizeof imp->coll_category);
    /* <dir>/traces.otf2 keeps its events in <dir>/traces/ */
    (void)snprintf(imp->trace_dir, sizeof imp->trace_dir, "%.*s", (int)(strlen(anchor) - 5),
                   anchor);
    if (!ends_with(anchor, ".otf2")) {
        (void)snprintf(imp->trace_dir, sizeof imp->trace_dir, "%s", anchor);
    }
    (void)pthread_once(&hook_once, hook_register);
    import_input_bytes(ctx, archive_bytes(imp, anchor));
    hook_imp = imp;
    const int rc = import_archive(imp, anchor) == 0 ? 0 : 1;
    hook_imp = NULL;
    report(imp, rc == 0);
    otf2_match_destroy(imp->match);
    otf2_idmap_free(&imp->scoped);
    otf2_defs_free(&imp->defs);
    free(imp->scratch.v);
    free(imp);
    free(anchor);
    return rc;
}

#endif /* SLOG_HAVE_OTF2 */

const importer import_otf2 = {"otf2", otf2_probe, otf2_run, NULL, true, 1};
