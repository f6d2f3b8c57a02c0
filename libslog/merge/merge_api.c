/* SPDX-License-Identifier: MIT
 *
 * merge_api.c - slog_merge_files, the public entry of libslog-merge, and
 * the error helpers.  A merge runs its steps in order and stops at the
 * first failure: options; input names (none twice, none the output); open
 * every input (incomplete ones refused unless allowed); the links; the
 * output clock; the output range; only then create the output, so a
 * refused merge writes nothing; timelines and categories; the slices; finish.  A failure
 * after the output exists destroys its writer without finish, which leaves
 * the file marked incomplete; so does a merge of an incomplete input (its
 * output is flushed, never finished: it cannot be more complete than its
 * inputs).  The summary is filled on every return.
 * Merge library (libslog/merge/): public libslog headers and libslog/shared
 * only; it never prints and never exits.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge_int.h"

int merge_err(slog_error *err, int code, const char *source, const char *fmt, ...)
{
    if (err == NULL) {
        return code;
    }
    memset(err, 0, sizeof *err);
    err->code = code;
    err->offset = UINT64_MAX;
    (void)snprintf(err->source, sizeof err->source, "%s", source != NULL ? source : "");
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

int merge_err_source(slog_error *err, int code, const char *source)
{
    if (err != NULL && code < 0) {
        err->code = code;
        if (err->source[0] == '\0') {
            (void)snprintf(err->source, sizeof err->source, "%s", source);
        }
    }
    return code;
}

static int check_args(const char *const *inputs, size_t n, const char *out, slog_error *err)
{
    if (inputs == NULL || n == 0 || out == NULL) {
        return merge_err(err, SLOG_EINVAL, "", "A merge needs at least one input and an output");
    }
    if (n > UINT32_MAX - 1) {
        return merge_err(err, SLOG_EINVAL, "", "%zu inputs: at most 2^32 - 2", n);
    }
    for (size_t i = 0; i < n; i++) {
        if (inputs[i] == NULL) {
            return merge_err(err, SLOG_EINVAL, "", "Input %zu is NULL", i);
        }
    }
    return SLOG_OK;
}

/* Everything up to the output's creation: nothing is written on failure. */
static int prepare(merge_ctx *m, const char *const *inputs, const slog_merge_options *opts)
{
    int rc = merge_options_load(&m->opts, opts, m->err);
    if (rc == SLOG_OK) {
        rc = merge_inputs_check_paths(inputs, m->n, m->out, m->err);
    }
    if (rc == SLOG_OK) {
        m->in = calloc(m->n, sizeof *m->in);
        rc = m->in != NULL ? merge_inputs_open(m, inputs)
                           : merge_err(m->err, SLOG_ENOMEM, "", "Cannot hold %zu inputs", m->n);
    }
    if (rc == SLOG_OK) {
        rc = merge_links_load(m);
    }
    if (rc == SLOG_OK) {
        rc = merge_inputs_clock(m);
    }
    return rc == SLOG_OK ? merge_inputs_range(m) : rc;
}

/* An input did not finish, so neither does the output: it holds all the
 * inputs held, but not what the unfinished writer would have added.  It is
 * flushed (so a write error is still reported) and never sealed: release()
 * destroys its writer without finish, which leaves it marked incomplete. */
static int end_incomplete(merge_ctx *m)
{
    return merge_err_source(m->err, slog_writer_flush(m->w, m->err), m->out);
}

static int run(merge_ctx *m, const char *const *inputs, const slog_merge_options *opts)
{
    int rc = prepare(m, inputs, opts);
    if (rc != SLOG_OK) {
        return rc;
    }
    rc = slog_writer_create(&m->w, m->out, &m->opts.wo, m->err);
    if (rc != SLOG_OK) {
        m->w = NULL;
        return merge_err_source(m->err, rc, m->out);
    }
    m->sum.output_created = true;
    rc = merge_meta_define(m);
    if (rc == SLOG_OK) {
        rc = merge_slices_run(m);
    }
    if (rc == SLOG_OK) {
        rc = m->sum.incomplete_inputs > 0
                 ? end_incomplete(m)
                 : merge_err_source(m->err, slog_writer_finish(m->w, m->err), m->out);
    }
    return rc;
}

static void release(merge_ctx *m)
{
    slog_writer_destroy(m->w); /* without finish after a failure: marked incomplete */
    for (size_t i = 0; m->in != NULL && i < m->n; i++) {
        slog_reader_destroy(m->in[i].r);
        free(m->in[i].tl_map);
        free(m->in[i].cat_map);
    }
    free(m->in);
    free(m->links.v);
    merge_items_free(&m->items);
}

int slog_merge_files(const char *const *inputs, size_t n, const char *out,
                     const slog_merge_options *opts, slog_merge_summary *summary,
                     slog_error *err)
{
    merge_ctx m;
    memset(&m, 0, sizeof m);
    m.err = err;
    m.out = out;
    m.n = n;
    int rc = check_args(inputs, n, out, err);
    if (rc == SLOG_OK) {
        rc = run(&m, inputs, opts);
    }
    release(&m);
    m.sum.inputs = (uint32_t)(n <= UINT32_MAX ? n : UINT32_MAX);
    if (summary != NULL) {
        *summary = m.sum;
    }
    return rc;
}
