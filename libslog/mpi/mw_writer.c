/* SPDX-License-Identifier: MIT
 *
 * mw_writer.c - slog_mpi_writer: its options (the struct_size rule of
 * slog_common.h), create and destroy, the accessors, and the agreement
 * that ends every collective step: the lowest failing rank's status and
 * error reach every rank, so all ranks take the same path and return the
 * same thing (no rank waits in a collective the others have left).
 * libslog/mpi: the public API of libslog only, plus MPI.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mw_internal.h"

#define END_OF(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))
#define COUNT(a)             (sizeof(a) / sizeof((a)[0]))
#define OPTIONS_MAX_SIZE     4096u
#define SYNC_ROUNDS_DEFAULT  8u
#define SYNC_ROUNDS_MAX      1000u
#define MAX_MESSAGES_DEFAULT (1u << 20)
#define MAX_MESSAGES_LIMIT   (1u << 30)

/* NOLINTBEGIN(bugprone-sizeof-expression): the members are pointers, on purpose */
static const size_t options_ends[] = {
    END_OF(slog_mpi_options, struct_size), /* 0.3 */
    END_OF(slog_mpi_options, flags),       END_OF(slog_mpi_options, writer),
    END_OF(slog_mpi_options, clock),       END_OF(slog_mpi_options, clock_user),
    END_OF(slog_mpi_options, sync_rounds), END_OF(slog_mpi_options, max_messages),
};
/* NOLINTEND(bugprone-sizeof-expression) */
_Static_assert(sizeof(slog_mpi_options) - END_OF(slog_mpi_options, max_messages) <
                   alignof(slog_mpi_options),
               "a slog_mpi_options member is missing from options_ends");

void slog_mpi_options_init(slog_mpi_options *opts)
{
    const slog_mpi_options init = SLOG_MPI_OPTIONS_INIT;
    *opts = init;
}

int64_t slog_mpi_now(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int mw_fail(slog_error *e, int code, const char *source, const char *fmt, ...)
{
    if (e != NULL) {
        e->code = code;
        e->offset = UINT64_MAX;
        (void)snprintf(e->source, sizeof e->source, "%s", source != NULL ? source : "");
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(e->message, sizeof e->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

int mw_fail_mpi(slog_error *e, int mpi_rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(mpi_rc, text, &len) != MPI_SUCCESS) {
        text[0] = '\0';
    }
    return mw_fail(e, SLOG_EIO, "", "Failed to %s: MPI error %d (%s)", what, mpi_rc, text);
}

int mw_agree(const slog_mpi_writer *m, int rc, slog_error *e)
{
    struct {
        int ok;
        int rank;
    } in = {rc == SLOG_OK ? 1 : 0, m->rank}, low = {1, 0};
    int r = MPI_Allreduce(&in, &low, 1, MPI_2INT, MPI_MINLOC, m->comm);
    if (r != MPI_SUCCESS) {
        return mw_fail_mpi(e, r, "agree on a status");
    }
    if (low.ok == 1) {
        return SLOG_OK;
    }
    slog_error theirs = *e;
    theirs.code = rc;
    r = MPI_Bcast(&theirs, (int)sizeof theirs, MPI_BYTE, low.rank, m->comm);
    if (r != MPI_SUCCESS) {
        return mw_fail_mpi(e, r, "agree on a status");
    }
    *e = theirs;
    return theirs.code;
}

int mw_root_alloc(const slog_mpi_writer *m, size_t bytes, void **p, slog_error *e)
{
    *p = NULL;
    if (m->rank == 0 && bytes < SIZE_MAX / 2) {
        *p = malloc(bytes + 1);
    }
    int ok = m->rank != 0 || *p != NULL;
    const int r = MPI_Bcast(&ok, 1, MPI_INT, 0, m->comm);
    if (r != MPI_SUCCESS) {
        free(*p);
        *p = NULL;
        return mw_fail_mpi(e, r, "share a status");
    }
    return ok ? SLOG_OK : mw_fail(e, SLOG_ENOMEM, "", "Out of memory on rank 0 (%zu bytes)", bytes);
}

int64_t mw_clock_now(const slog_mpi_writer *m)
{
    return m->opts.clock != NULL ? m->opts.clock(m->opts.clock_user) : slog_mpi_now();
}

/* The caller's options: members its struct_size wholly holds, then defaults. */
static int load_options(slog_mpi_options *dst, const slog_mpi_options *src, slog_error *e)
{
    slog_mpi_options_init(dst);
    const size_t n = src != NULL ? src->struct_size : 0;
    if (n > 0 && (n < sizeof(uint32_t) || n > OPTIONS_MAX_SIZE)) {
        return mw_fail(e, SLOG_EINVAL, "", "Invalid slog_mpi_options: struct_size %zu", n);
    }
    for (size_t i = sizeof *dst; i < n; i++) {
        if (((const unsigned char *)src)[i] != 0) {
            return mw_fail(e, SLOG_EINVAL, "",
                           "Invalid slog_mpi_options: a newer member is set (byte %zu)", i);
        }
    }
    size_t held = 0;
    for (size_t i = 0; i < COUNT(options_ends) && options_ends[i] <= n; i++) {
        held = options_ends[i];
    }
    if (held > 0) {
        memcpy(dst, src, held);
    }
    dst->struct_size = sizeof *dst;
    if ((dst->flags & ~SLOG_MPI_OFFSET_PER_RANK) != 0) {
        return mw_fail(e, SLOG_EINVAL, "", "Invalid slog_mpi_options: unknown flags 0x%x",
                       dst->flags & ~SLOG_MPI_OFFSET_PER_RANK);
    }
    dst->sync_rounds = dst->sync_rounds == 0 ? SYNC_ROUNDS_DEFAULT : dst->sync_rounds;
    dst->max_messages = dst->max_messages == 0 ? MAX_MESSAGES_DEFAULT : dst->max_messages;
    if (dst->sync_rounds > SYNC_ROUNDS_MAX || dst->max_messages > MAX_MESSAGES_LIMIT) {
        return mw_fail(e, SLOG_EINVAL, "",
                       "Invalid slog_mpi_options: sync_rounds %u (1..%u) or max_messages %u "
                       "(up to %u)",
                       dst->sync_rounds, SYNC_ROUNDS_MAX, dst->max_messages, MAX_MESSAGES_LIMIT);
    }
    return SLOG_OK;
}

/* The rank files' clock: 1e9 unless the writer options say otherwise. */
static uint64_t writer_ticks(const slog_writer_options *wo)
{
    if (wo == NULL || wo->struct_size < END_OF(slog_writer_options, ticks_per_second) ||
        wo->ticks_per_second == 0) {
        return 1000000000u;
    }
    return wo->ticks_per_second;
}

static int setup(slog_mpi_writer *m, const char *dir, const slog_mpi_options *opts, slog_error *e)
{
    m->w = NULL;
    m->cat_send = m->cat_recv = MW_NO_CATEGORY;
    m->self.rank = m->rank;
    int rc = load_options(&m->opts, opts, e);
    if (rc != SLOG_OK) {
        return rc;
    }
    m->ticks_per_second = writer_ticks(m->opts.writer);
    if (m->opts.clock == NULL && m->ticks_per_second != 1000000000u) {
        return mw_fail(e, SLOG_EINVAL, "",
                       "Invalid slog_mpi_options: the default clock counts ns, the writer's "
                       "ticks_per_second is %llu: set clock",
                       (unsigned long long)m->ticks_per_second);
    }
    if (gethostname(m->self.host, sizeof m->self.host - 1) != 0) {
        (void)snprintf(m->self.host, sizeof m->self.host, "unknown");
    }
    const size_t len = strlen(dir);
    m->dir = malloc(len + 1);
    m->path = malloc(len + 32);
    if (m->dir == NULL || m->path == NULL) {
        return mw_fail(e, SLOG_ENOMEM, dir, "Out of memory");
    }
    memcpy(m->dir, dir, len + 1);
    (void)snprintf(m->path, len + 32, "%s/rank-%06d.slog", dir, m->rank);
    return SLOG_OK;
}

/* Rank 0: the job directory, if missing. */
static int make_dir(slog_mpi_writer *m, slog_error *e)
{
    struct stat st;
    if (m->rank != 0 || (stat(m->dir, &st) == 0 && S_ISDIR(st.st_mode))) {
        return SLOG_OK;
    }
    if (mkdir(m->dir, 0777) != 0 && errno != EEXIST) {
        return mw_fail(e, SLOG_EIO, m->dir, "Cannot create the job directory: %s", strerror(errno));
    }
    return SLOG_OK;
}

static int open_rank_file(slog_mpi_writer *m, slog_error *e)
{
    int rc = slog_writer_create(&m->w, m->path, m->opts.writer, e);
    if (rc != SLOG_OK) {
        return rc;
    }
    char name[MW_HOST_BYTES + 32];
    (void)snprintf(name, sizeof name, "rank %d (%s)", m->rank, m->self.host);
    return slog_writer_add_timeline(m->w, SLOG_NO_PARENT, SLOG_TIMELINE_RANK, name, m->rank,
                                    &m->rank_timeline, e);
}

static int measure_create(slog_mpi_writer *m, slog_error *e)
{
    return mw_clock_measure(m, &m->self.clock[0], e);
}

/* Rank 0 lists every rank's file as running (a dead rank shows as such). */
static int write_running(slog_mpi_writer *m, slog_error *e)
{
    mw_rank_rec *all = NULL;
    int rc = mw_manifest_gather(m, &all, e);
    if (rc == SLOG_OK && m->rank == 0) {
        const mw_job job = {.status = "running",
                            .ranks = m->size,
                            .default_clock = m->opts.clock == NULL,
                            .ticks_per_second = m->ticks_per_second};
        rc = mw_manifest_write(m->dir, &job, all, e);
    }
    free(all);
    return rc;
}

typedef int (*create_step)(slog_mpi_writer *m, slog_error *e);

/* Out of memory here: still take part in the first agreement, so that the
 * other ranks return too. */
static int create_without_memory(MPI_Comm comm, slog_error *e)
{
    slog_mpi_writer oom = {.comm = MPI_COMM_NULL};
    const int r = MPI_Comm_dup(comm, &oom.comm);
    if (r != MPI_SUCCESS) {
        return mw_fail_mpi(e, r, "duplicate the communicator");
    }
    (void)MPI_Comm_rank(oom.comm, &oom.rank);
    const int rc = mw_agree(&oom, mw_fail(e, SLOG_ENOMEM, "", "Out of memory"), e);
    (void)MPI_Comm_free(&oom.comm);
    return rc;
}

static int create_steps(
    slog_mpi_writer *m, MPI_Comm comm, const char *dir, const slog_mpi_options *opts, slog_error *e)
{
    const int r = MPI_Comm_dup(comm, &m->comm);
    if (r != MPI_SUCCESS) {
        m->comm = MPI_COMM_NULL;
        return mw_fail_mpi(e, r, "duplicate the communicator");
    }
    (void)MPI_Comm_rank(m->comm, &m->rank);
    (void)MPI_Comm_size(m->comm, &m->size);
    int rc = mw_agree(m, setup(m, dir, opts, e), e);
    static const create_step steps[] = {make_dir, open_rank_file, measure_create, write_running};
    for (size_t i = 0; i < COUNT(steps) && rc == SLOG_OK; i++) {
        rc = mw_agree(m, steps[i](m, e), e);
    }
    return rc;
}

int slog_mpi_writer_create(slog_mpi_writer **out,
                           MPI_Comm comm,
                           const char *dir,
                           const slog_mpi_options *opts,
                           slog_error *err)
{
    *out = NULL;
    slog_error e = {SLOG_OK, UINT64_MAX, "", ""};
    slog_mpi_writer *const m = calloc(1, sizeof *m);
    int rc = SLOG_OK;
    if (m == NULL) {
        rc = create_without_memory(comm, &e);
    } else {
        m->comm = MPI_COMM_NULL;
        rc = create_steps(m, comm, dir, opts, &e);
        if (rc == SLOG_OK) {
            m->opts.writer = NULL; /* borrowed for create only */
            *out = m;
        } else {
            slog_mpi_writer_destroy(m);
        }
    }
    if (err != NULL && rc != SLOG_OK) {
        *err = e;
    }
    return rc;
}

slog_writer *slog_mpi_writer_handle(slog_mpi_writer *m)
{
    return m->w;
}

uint32_t slog_mpi_writer_rank_timeline(const slog_mpi_writer *m)
{
    return m->rank_timeline;
}

/* The public signatures take the message's fields one by one (8 parameters). */
// NOLINTNEXTLINE(readability-function-size)
int slog_mpi_writer_send(slog_mpi_writer *m,
                         uint32_t timeline,
                         int dst,
                         int tag,
                         int64_t bytes,
                         int64_t t0,
                         int64_t t1,
                         slog_error *err)
{
    const mw_msg_rec r = {t0, t1, bytes, m->rank, dst, tag, MW_SIDE_SEND, timeline, 0};
    return mw_msg_record(m, &r, err);
}

// NOLINTNEXTLINE(readability-function-size)
int slog_mpi_writer_recv(slog_mpi_writer *m,
                         uint32_t timeline,
                         int src,
                         int tag,
                         int64_t bytes,
                         int64_t t0,
                         int64_t t1,
                         slog_error *err)
{
    const mw_msg_rec r = {t0, t1, bytes, src, m->rank, tag, MW_SIDE_RECV, timeline, 0};
    return mw_msg_record(m, &r, err);
}

void slog_mpi_writer_destroy(slog_mpi_writer *m)
{
    if (m == NULL) {
        return;
    }
    slog_writer_destroy(m->w);
    int finalized = 1;
    if (m->comm != MPI_COMM_NULL && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) {
        (void)MPI_Comm_free(&m->comm);
    }
    free(m->msgs);
    free(m->dir);
    free(m->path);
    free(m);
}
