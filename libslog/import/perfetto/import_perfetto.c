/* SPDX-License-Identifier: MIT
 *
 * import_perfetto.c - the "perfetto" entry of the importer table: the input
 * stream of core/ (gzip undone) feeds perfetto_import(), whose summary rows
 * and warnings go to the run's hooks.
 * Import library, perfetto folder: public libslog headers, core/, libc.
 */
#include <stdio.h>

#include "importer.h"
#include "perfetto_import.h"

static long stream_read(void *user, void *buf, size_t n)
{
    return import_stream_read(user, buf, n);
}

static const char *stream_error(void *user)
{
    return import_stream_error(user);
}

typedef struct glue {
    import_ctx *ctx;
    import_stream *in;
} glue;

static void hook_count(void *user, const char *what, int outcome, uint64_t n)
{
    const glue *g = user;
    import_count(g->ctx, what, (import_outcome)outcome, n);
}

static void hook_warn(void *user, uint64_t offset, const char *message)
{
    const glue *g = user;
    import_warn(g->ctx, 0, 0, offset, "%s", message);
}

static void hook_progress(void *user, uint64_t done)
{
    (void)done;
    const glue *g = user;
    /* a cancel shows as the stream's next read failing */
    (void)import_progress(g->ctx, import_stream_pos(g->in), import_stream_size(g->in));
}

static const char *hook_read_error(void *user)
{
    const glue *g = user;
    return stream_error(g->in);
}

static int perfetto_run(import_ctx *ctx, const char *path)
{
    char why[256];
    import_stream *in = NULL;
    if (import_stream_open(&in, ctx, path, why, sizeof why) != 0) {
        return import_fail(ctx, 0, 0, UINT64_MAX, "%s", why);
    }
    glue g = {ctx, in};
    const pf_hooks hooks = {&g, hook_count, hook_warn, hook_progress, hook_read_error};
    slog_error err;
    const int rc = perfetto_import(ctx->writer, stream_read, in, &hooks, &err);
    import_stream_close(in);
    if (rc != SLOG_OK) {
        return import_fail(ctx, 0, 0, err.offset, "%s", err.message);
    }
    return 0;
}

static int perfetto_probe_entry(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    return perfetto_probe(head, n);
}

const importer import_perfetto = {"perfetto", perfetto_probe_entry, perfetto_run, NULL, false, 1};
