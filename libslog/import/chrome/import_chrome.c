/* SPDX-License-Identifier: MIT
 *
 * import_chrome.c - the "chrome" and "pfw" entries of the importer table,
 * and the output that sends the importer's drawables to the libslog writer
 * (chrome_drive.c does the work; tests use it with a recording output).
 * Import library, chrome: public libslog headers, libc.
 */
#include <string.h>

#include "chrome.h"

typedef struct writer_out {
    slog_writer *w;
    slog_error err;
    bool failed;
} writer_out;

/* ------------------------------------------------------- writer output */

#define RUN(u) writer_out *r = (writer_out *)(u)
#define WCALL(call) ((r->failed = (call) != SLOG_OK) ? 1 : 0)

static int w_add_timeline(void *u, uint32_t parent, slog_timeline_kind kind, const char *name,
                          int64_t sort_key, uint32_t *id)
{
    RUN(u);
    return WCALL(slog_writer_add_timeline(r->w, parent, kind, name, sort_key, id, &r->err));
}

static int w_set_timeline(void *u, uint32_t id, const char *name, int64_t sort_key)
{
    RUN(u);
    return WCALL(slog_writer_set_timeline(r->w, id, name, sort_key, &r->err));
}

static int w_add_category(void *u, slog_kind kind, const char *name, const char *group,
                          uint32_t *id)
{
    RUN(u);
    return WCALL(slog_writer_add_category(r->w, kind, name, 0, group, id, &r->err));
}

static int w_state(void *u, const slog_state *s)
{
    RUN(u);
    return WCALL(slog_writer_append_state(r->w, s, &r->err));
}

static int w_event(void *u, const slog_event *e)
{
    RUN(u);
    return WCALL(slog_writer_append_event(r->w, e, &r->err));
}

static int w_arrow(void *u, const slog_arrow *a)
{
    RUN(u);
    return WCALL(slog_writer_append_arrow(r->w, a, &r->err));
}

static int w_counter(void *u, const slog_counter *c)
{
    RUN(u);
    return WCALL(slog_writer_append_counter(r->w, c, &r->err));
}

static const char *w_last_error(void *u)
{
    RUN(u);
    return r->failed ? r->err.message : NULL;
}

/* ------------------------------------------------------------ the table */

static int chrome_probe(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    return head == NULL ? 0 : chrome_probe_json(head, n);
}

static int pfw_probe(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    return head == NULL ? 0 : chrome_probe_lines(head, n);
}

static int import_to_writer(import_ctx *ctx, const char *const *paths, size_t n, chrome_mode mode)
{
    writer_out wo;
    memset(&wo, 0, sizeof wo);
    wo.w = ctx->writer;
    const chrome_out out = {&wo, w_add_timeline, w_set_timeline, w_add_category, w_state,
                            w_event, w_arrow, w_counter, w_last_error};
    return chrome_import(ctx, paths, n, mode, &out, true);
}

static int chrome_run_one(import_ctx *ctx, const char *path)
{
    return import_to_writer(ctx, &path, 1, CHROME_MODE_AUTO);
}

static int chrome_run_many(import_ctx *ctx, const char *const *paths, size_t n)
{
    return import_to_writer(ctx, paths, n, CHROME_MODE_AUTO);
}

static int pfw_run_one(import_ctx *ctx, const char *path)
{
    return import_to_writer(ctx, &path, 1, CHROME_MODE_LINES);
}

static int pfw_run_many(import_ctx *ctx, const char *const *paths, size_t n)
{
    return import_to_writer(ctx, paths, n, CHROME_MODE_LINES);
}

const importer import_chrome = {"chrome", chrome_probe, chrome_run_one, chrome_run_many, false, 2};
const importer import_pfw = {"pfw", pfw_probe, pfw_run_one, pfw_run_many, false, 2};
