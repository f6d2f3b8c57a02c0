/* SPDX-License-Identifier: MIT
 *
 * mw_manifest.c - DIR/manifest.jsonl, the job directory's table of
 * contents (doc/FORMAT.md, "MPI job directory"): a "job" line (status,
 * clock, the merged file and the index with their results, the arrows),
 * then one line per rank with its file (relative to DIR), host, status,
 * time range, drawable counts, clock offsets and round trips.  Rank 0
 * writes it at create (every rank "running", so a rank that died leaves
 * its mark) and at finish, each time whole: a temporary file, flushed to
 * disk, renamed over the old one, so a reader never sees half a manifest.
 * libslog/mpi: the public API of libslog only, plus MPI.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mw_internal.h"

int mw_manifest_gather(const slog_mpi_writer *m, mw_rank_rec **all, slog_error *e)
{
    const size_t one = sizeof(mw_rank_rec);
    void *mem = NULL; /* through a void *: no mw_rank_rec * written as void * */
    int rc = mw_root_alloc(m, (size_t)m->size * one, &mem, e);
    *all = mem;
    if (rc != SLOG_OK) {
        return rc;
    }
    const int r = MPI_Gather(&m->self, (int)one, MPI_BYTE, *all, (int)one, MPI_BYTE, 0, m->comm);
    if (r != MPI_SUCCESS) {
        free(*all);
        *all = NULL;
        return mw_fail_mpi(e, r, "gather the ranks' outcomes");
    }
    return SLOG_OK;
}

/* A JSON string: quotes, backslashes and control characters escaped; other
 * bytes as they are (UTF-8 passes through). */
static void put_str(FILE *f, const char *s)
{
    (void)fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\') {
            (void)fprintf(f, "\\%c", *p);
        } else if (*p < 0x20) {
            (void)fprintf(f, "\\u%04x", *p);
        } else {
            (void)fputc(*p, f);
        }
    }
    (void)fputc('"', f);
}

/* ,"key":"value" or ,"key":null */
static void put_opt_str(FILE *f, const char *key, const char *value)
{
    (void)fprintf(f, ",\"%s\":", key);
    if (value != NULL) {
        put_str(f, value);
    } else {
        (void)fputs("null", f);
    }
}

static void put_job(FILE *f, const mw_job *job)
{
    (void)fprintf(f, "{\"kind\":\"job\",\"schema\":1,\"ranks\":%d,\"status\":", job->ranks);
    put_str(f, job->status);
    (void)fprintf(f, ",\"clock\":\"%s\",\"ticks_per_second\":%" PRIu64,
                  job->default_clock ? "CLOCK_REALTIME" : "program", job->ticks_per_second);
    put_opt_str(f, "merged", job->merged);
    put_opt_str(f, "merge", job->merge_code);
    put_opt_str(f, "index", job->index);
    put_opt_str(f, "index_code", job->index_code);
    if (job->matched) {
        (void)fprintf(f, ",\"arrows\":%" PRIu64 ",\"unmatched\":%" PRIu64, job->arrows,
                      job->unmatched);
    } else {
        (void)fputs(",\"arrows\":null,\"unmatched\":null", f);
    }
    (void)fprintf(f, ",\"library\":\"%s\"}\n", slog_version_string());
}

static const char *state_name(int32_t state)
{
    return state == MW_RANK_OK ? "ok" : state == MW_RANK_FAILED ? "failed" : "running";
}

/* What only finish knows: the file's range and counts, the second clock
 * measurement, the merge offset; null while running. */
static void put_outcome(FILE *f, const mw_rank_rec *r, const int64_t *offset)
{
    if (r->have_info) {
        (void)fprintf(f,
                      ",\"complete\":%s,\"start\":%" PRId64 ",\"end\":%" PRId64
                      ",\"states\":%" PRIu64 ",\"events\":%" PRIu64 ",\"arrows\":%" PRIu64
                      ",\"counters\":%" PRIu64,
                      r->complete ? "true" : "false", r->start, r->end, r->counts[0], r->counts[1],
                      r->counts[2], r->counts[3]);
    } else {
        (void)fputs(",\"complete\":null,\"start\":null,\"end\":null,\"states\":null,"
                    "\"events\":null,\"arrows\":null,\"counters\":null",
                    f);
    }
    if (r->state == MW_RANK_RUNNING) {
        (void)fputs(",\"clock_offset_finish\":null,\"rtt_finish\":null", f);
    } else {
        (void)fprintf(f, ",\"clock_offset_finish\":%" PRId64 ",\"rtt_finish\":%" PRId64,
                      r->clock[1].offset, r->clock[1].rtt);
    }
    if (offset != NULL) {
        (void)fprintf(f, ",\"merge_offset\":%" PRId64, *offset);
    } else {
        (void)fputs(",\"merge_offset\":null", f);
    }
}

static void put_rank(FILE *f, const mw_rank_rec *r, const int64_t *offset)
{
    (void)fprintf(f, "{\"kind\":\"rank\",\"rank\":%d,\"file\":\"rank-%06d.slog\",\"host\":",
                  (int)r->rank, (int)r->rank);
    put_str(f, r->host);
    (void)fprintf(f, ",\"status\":\"%s\",\"code\":\"%s\",\"error\":", state_name(r->state),
                  slog_status_name(r->code));
    put_str(f, r->error);
    (void)fprintf(f, ",\"clock_offset_create\":%" PRId64 ",\"rtt_create\":%" PRId64,
                  r->clock[0].offset, r->clock[0].rtt);
    put_outcome(f, r, offset);
    (void)fprintf(f, ",\"messages\":%" PRIu64 ",\"messages_dropped\":%" PRIu64 "}\n", r->messages,
                  r->messages_dropped);
}

static int write_lines(FILE *f, const mw_job *job, const mw_rank_rec *recs)
{
    put_job(f, job);
    for (int i = 0; i < job->ranks; i++) {
        put_rank(f, &recs[i], job->offsets != NULL ? &job->offsets[i] : NULL);
    }
    const int bad = ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0;
    const int saved = bad ? (errno != 0 ? errno : EIO) : 0;
    if (fclose(f) != 0 && saved == 0) {
        return errno != 0 ? errno : EIO;
    }
    return saved;
}

int mw_manifest_write(const char *dir, const mw_job *job, const mw_rank_rec *recs, slog_error *e)
{
    const size_t len = strlen(dir) + sizeof "/manifest.jsonl.tmp";
    char *const tmp = malloc(2 * len);
    if (tmp == NULL) {
        return mw_fail(e, SLOG_ENOMEM, dir, "Out of memory");
    }
    char *const path = tmp + len;
    (void)snprintf(tmp, len, "%s/manifest.jsonl.tmp", dir);
    (void)snprintf(path, len, "%s/manifest.jsonl", dir);
    FILE *const f = fopen(tmp, "w");
    int rc = SLOG_OK;
    const int bad = f == NULL ? errno : write_lines(f, job, recs);
    if (bad != 0 || rename(tmp, path) != 0) {
        rc = mw_fail(e, SLOG_EIO, path, "Cannot write the manifest: %s",
                     strerror(bad != 0 ? bad : errno));
        (void)unlink(tmp);
    }
    free(tmp);
    return rc;
}
