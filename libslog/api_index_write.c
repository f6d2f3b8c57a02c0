/* SPDX-License-Identifier: MIT
 *
 * api_index_write.c - slog_index_write: the index over many libslog files
 * (slog_index.h).  Input by input, it joins the timelines under a new top
 * timeline, unifies the categories by (kind, name, group), and copies the
 * top levels of the input's tree, breadth first down to the deepest level
 * whose blobs still fit the per-input budget: node rows (a node whose
 * children stay behind is marked TREE_NODE_CUT) and their geometry and
 * preview blobs, verified against their checksums and written again as
 * they were (args stay in the input).  The input table (node_format_index.h)
 * goes last, located by a final TREE_NODE_INDEX row.  Inputs are read one
 * at a time, so memory is one input's budget plus the global tables.
 * Layer 5: api.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <slog/slog_index.h>

#include "api_index_build.h"
#include "api_options.h"
#include "codec_crc32c.h"
#include "util_alloc.h"
#include "util_error.h"

#define INPUT_CACHE_BYTES ((size_t)4 << 20)

void slog_index_options_init(slog_index_options *opts)
{
    const slog_index_options d = SLOG_INDEX_OPTIONS_INIT;
    *opts = d;
}

/* The directory part of path ("." when none) into dir. */
static void dir_of(const char *path, char *dir, size_t cap)
{
    (void)snprintf(dir, cap, "%s", path);
    char *const slash = strrchr(dir, '/');
    if (slash == NULL) {
        (void)snprintf(dir, cap, ".");
    } else {
        slash[slash == dir ? 1 : 0] = '\0';
    }
}

/* path made absolute: realpath, or for a file that does not exist (a
 * missing input) its directory's realpath and its name. */
static int absolute(const char *path, char *out)
{
    if (realpath(path, out) != NULL) {
        return 0;
    }
    char dir[PATH_MAX];
    char abs_dir[PATH_MAX];
    dir_of(path, dir, sizeof dir);
    const char *const slash = strrchr(path, '/');
    if (realpath(dir, abs_dir) == NULL) {
        return -1;
    }
    const int n = snprintf(out, PATH_MAX, "%s/%s", abs_dir, slash ? slash + 1 : path);
    return n < 0 || n >= PATH_MAX ? -1 : 0;
}

/* The name the index keeps for input: relative to the index's directory
 * when it lies under it, else absolute. */
static int input_name(const char *input, const char *out, char *name, size_t cap)
{
    char dir[PATH_MAX];
    char abs_dir[PATH_MAX];
    char abs_in[PATH_MAX];
    dir_of(out, dir, sizeof dir);
    if (realpath(dir, abs_dir) == NULL || absolute(input, abs_in) != 0) {
        return -1;
    }
    const size_t nd = strlen(abs_dir);
    const int under = strncmp(abs_in, abs_dir, nd) == 0 && abs_in[nd] == '/';
    const char *const chosen = under ? abs_in + nd + 1 : abs_in;
    return snprintf(name, cap, "%s", chosen) >= (int)cap ? -1 : 0;
}

static const char *base_label(const char *path, char *buf, size_t cap)
{
    const char *const slash = strrchr(path, '/');
    (void)snprintf(buf, cap, "%s", slash ? slash + 1 : path);
    const size_t n = strlen(buf);
    if (n > 5 && strcmp(buf + n - 5, ".slog") == 0) {
        buf[n - 5] = '\0';
    }
    return buf;
}

/* Every input before anything is written: none named twice (by device and
 * inode) or the index itself, so a refused index never truncates an input.
 * An input that does not exist is judged when it is opened. */
static int check_paths(ixb *b, const char *const *inputs, size_t n, slog_error *err)
{
    struct stat os;
    const int out_exists = stat(b->out, &os) == 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (inputs[i] == NULL || stat(inputs[i], &st) != 0) {
            continue;
        }
        if (out_exists && os.st_dev == st.st_dev && os.st_ino == st.st_ino) {
            return util_err(err, SLOG_EINVAL, UINT64_MAX, inputs[i],
                            "Input %zu is the index itself: refusing to overwrite it", i);
        }
        for (size_t j = 0; j < i; j++) {
            if (b->ids[j].dev == (uint64_t)st.st_dev && b->ids[j].ino == (uint64_t)st.st_ino) {
                return util_err(err, SLOG_EINVAL, UINT64_MAX, inputs[i],
                                "The same file is input %zu and input %zu", j, i);
            }
        }
        b->ids[i].dev = (uint64_t)st.st_dev;
        b->ids[i].ino = (uint64_t)st.st_ino;
    }
    return SLOG_OK;
}

static int open_input(ixb *b, size_t i, const char *path, slog_reader **r, slog_error *err)
{
    *r = NULL;
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT && (b->o.flags & SLOG_INDEX_ALLOW_MISSING)) {
            return SLOG_END;
        }
        return util_err(err, SLOG_EIO, UINT64_MAX, path, "Cannot read input %zu: %s", i,
                        strerror(errno));
    }
    b->cur_bytes = (uint64_t)st.st_size;
    const slog_reader_options ro = {sizeof ro, 0, INPUT_CACHE_BYTES};
    int rc = slog_reader_open(r, path, &ro, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    const slog_file_info *const f = slog_reader_info(*r);
    if ((*r)->index != NULL) {
        rc = util_err(err, SLOG_EINVAL, UINT64_MAX, path, "An index cannot be an input");
    } else if (b->tps == 0) {
        b->tps = f->ticks_per_second;
    } else if (b->tps != f->ticks_per_second) {
        rc = util_err(err, SLOG_EINVAL, UINT64_MAX, path,
                      "Input %zu counts %llu ticks per second, input 0 %llu: an index needs one "
                      "clock (slog-merge converts clocks into one file)",
                      i, (unsigned long long)f->ticks_per_second, (unsigned long long)b->tps);
    }
    if (rc == SLOG_OK && !f->complete && !(b->o.flags & SLOG_INDEX_ALLOW_INCOMPLETE)) {
        rc = util_err(err, SLOG_ESTATE, UINT64_MAX, path,
                      "Input %zu is incomplete (its writer did not finish)", i);
    }
    if (rc != SLOG_OK) {
        slog_reader_destroy(*r);
        *r = NULL;
    }
    return rc;
}

/* The input row of input i from its reader (NULL: missing). */
static void fill_input_row(ixb *b, size_t i, const slog_reader *r, ix_input *in)
{
    in->offset = b->o.offsets ? b->o.offsets[i] : 0;
    in->start = INT64_MAX;
    in->end = INT64_MIN;
    in->state = IX_MISSING;
    if (r == NULL) {
        return;
    }
    const slog_file_info *const f = slog_reader_info(r);
    in->state = f->complete ? IX_OK : IX_INCOMPLETE;
    in->file_bytes = b->cur_bytes;
    in->summary_crc = r->sum.crc;
    in->start = f->start;
    in->end = f->end;
    in->counts[0] = f->states;
    in->counts[1] = f->events;
    in->counts[2] = f->arrows;
    in->counts[3] = f->counters;
    in->nodes = r->tree.nnodes;
    in->depth = tree_read_depth(&r->tree);
}

static int add_input(ixb *b, size_t i, const char *path, slog_error *err)
{
    slog_reader *r = NULL;
    int rc = open_input(b, i, path, &r, err);
    if (rc < 0) {
        return rc;
    }
    ix_input *const in = &b->t.inputs[i];
    memset(in, 0, sizeof *in);
    char name[PATH_MAX];
    if (input_name(path, b->out, name, sizeof name) != 0) {
        (void)snprintf(name, sizeof name, "%s", path);
    }
    in->path = util_intern_add(&b->strings, name, strlen(name), 0);
    char lb[256];
    const char *label =
        b->o.labels && b->o.labels[i] ? b->o.labels[i] : base_label(path, lb, sizeof lb);
    fill_input_row(b, i, r, in);
    rc = in->path == UINT64_MAX ? util_err(err, SLOG_ENOMEM, UINT64_MAX, b->out, "Out of memory")
                                : ixb_add_timelines(b, i, r, label, err);
    if (rc == SLOG_OK && r != NULL) {
        rc = ixb_add_categories(b, i, r, err);
    }
    if (rc == SLOG_OK && (b->o.flags & SLOG_INDEX_COPY_ALL)) {
        rc = ixb_embed_strings(b, i, r, err);
    }
    if (rc == SLOG_OK && r != NULL) {
        rc = ixb_copy_top(b, i, r, err);
    }
    slog_reader_destroy(r);
    return rc;
}

static void add_totals(ixb *b, const ix_input *in)
{
    if (in->state == IX_MISSING) {
        b->summary.missing++;
        return;
    }
    b->summary.incomplete += in->state == IX_INCOMPLETE;
    for (int k = 0; k < 4; k++) {
        b->sum.counts[k] += in->counts[k];
    }
    if (in->start <= in->end) {
        const int64_t s = util_sat_add_i64(in->start, in->offset);
        const int64_t e = util_sat_add_i64(in->end, in->offset);
        b->sum.start = s < b->sum.start ? s : b->sum.start;
        b->sum.end = e > b->sum.end ? e : b->sum.end;
    }
    b->sum.depth = in->depth > b->sum.depth ? in->depth : b->sum.depth;
}

static void fill_summary(ixb *b, slog_index_summary *s)
{
    b->summary.inputs = b->t.h.ninputs;
    b->summary.timelines = (uint32_t)b->ntl;
    b->summary.categories = (uint32_t)b->ncat;
    b->summary.states = b->sum.counts[0];
    b->summary.events = b->sum.counts[1];
    b->summary.arrows = b->sum.counts[2];
    b->summary.counters = b->sum.counts[3];
    struct stat st;
    b->summary.file_bytes = stat(b->out, &st) == 0 ? (uint64_t)st.st_size : 0;
    if (s != NULL) {
        *s = b->summary;
    }
}

int slog_index_write(const char *const *inputs,
                     size_t n,
                     const char *out,
                     const slog_index_options *opts,
                     slog_index_summary *summary,
                     slog_error *err)
{
    if (summary != NULL) {
        memset(summary, 0, sizeof *summary);
    }
    if (inputs == NULL || out == NULL || n == 0 || n > (1u << 24)) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, out ? out : "",
                        "An index needs 1 to 2^24 inputs and an output path");
    }
    ixb b;
    int rc = ixb_init(&b, n, out, err);
    if (rc == SLOG_OK) {
        rc = api_index_options_load(&b.o, opts, out, err);
    }
    if (rc == SLOG_OK) {
        rc = check_paths(&b, inputs, n, err);
    }
    if (rc == SLOG_OK) {
        rc = ixb_check_links(&b, n, err);
    }
    for (size_t i = 0; rc == SLOG_OK && i < n; i++) {
        rc = add_input(&b, i, inputs[i], err);
        if (rc == SLOG_OK) {
            add_totals(&b, &b.t.inputs[i]);
        }
    }
    if (rc == SLOG_OK && b.tps == 0) {
        rc = util_err(err, SLOG_EINVAL, UINT64_MAX, out, "Every input is missing");
    }
    if (rc == SLOG_OK) {
        rc = ixb_finish(&b, err);
    }
    fill_summary(&b, summary);
    ixb_free(&b, rc == SLOG_OK);
    return rc;
}
