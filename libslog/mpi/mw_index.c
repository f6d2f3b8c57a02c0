/* SPDX-License-Identifier: MIT
 *
 * mw_index.c - rank 0 writes DIR/index.slog at finish: slog_index_write
 * over the job's inputs (mw_inputs.c: the rank files labelled "rank R",
 * top timelines of kind SLOG_TIMELINE_RANK, moved by the merge offsets;
 * the arrows input with its links), so the job reads like one file
 * without a merge.  Rank 0 reads each rank file's top levels (at most the
 * index's per-input budget, 256 KiB) from the shared file system the rank
 * files are already on, instead of gathering them through MPI.  A rank
 * whose file is incomplete (its finish failed) or absent is marked so in
 * the index instead of failing it.  The index is written whole: a
 * temporary file, flushed to disk, renamed over the old one, so a reader
 * never finds half an index under the name.
 * libslog/mpi: the public API of libslog only, plus MPI.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mw_internal.h"

/* The merge's links as the index takes them. */
static slog_index_link *index_links(const mw_inputs *in)
{
    slog_index_link *const v = malloc(in->nlinks * sizeof *v + 1);
    for (size_t i = 0; v != NULL && i < in->nlinks; i++) {
        const slog_merge_link *const l = &in->links[i];
        v[i] = (slog_index_link){l->input, l->timeline, l->to_input, l->to_timeline};
    }
    return v;
}

static int write_index(const mw_inputs *in, const char *out, slog_error *e)
{
    slog_index_link *const links = index_links(in);
    if (links == NULL) {
        return mw_fail(e, SLOG_ENOMEM, out, "Out of memory");
    }
    slog_index_options io = SLOG_INDEX_OPTIONS_INIT;
    io.flags = SLOG_INDEX_ALLOW_INCOMPLETE | SLOG_INDEX_ALLOW_MISSING;
    io.labels = in->labels;
    io.offsets = in->offsets;
    io.top_kind = SLOG_TIMELINE_RANK;
    io.links = links;
    io.nlinks = in->nlinks;
    const int rc = slog_index_write(in->paths, in->n, out, &io, NULL, e);
    free(links);
    return rc;
}

/* The written file on disk before its name moves over the old one. */
static int sync_file(const char *path)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return errno;
    }
    const int bad = fsync(fd) != 0 ? errno : 0;
    (void)close(fd);
    return bad;
}

int mw_index_job(const char *dir, const mw_inputs *in, slog_error *e)
{
    const size_t len = strlen(dir) + sizeof "/" MW_INDEX_FILE ".tmp";
    char *const tmp = malloc(2 * len);
    if (tmp == NULL) {
        return mw_fail(e, SLOG_ENOMEM, dir, "Out of memory");
    }
    char *const path = tmp + len;
    (void)snprintf(tmp, len, "%s/" MW_INDEX_FILE ".tmp", dir);
    (void)snprintf(path, len, "%s/" MW_INDEX_FILE, dir);
    int rc = write_index(in, tmp, e);
    if (rc == SLOG_OK) {
        const int bad = sync_file(tmp);
        if (bad != 0 || rename(tmp, path) != 0) {
            rc = mw_fail(e, SLOG_EIO, path, "Cannot write the index: %s",
                         strerror(bad != 0 ? bad : errno));
        }
    }
    if (rc != SLOG_OK) {
        (void)unlink(tmp);
    }
    free(tmp);
    return rc;
}
