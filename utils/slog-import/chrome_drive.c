/* SPDX-License-Identifier: MIT
 *
 * chrome_drive.c - drives stream -> parser -> stage-1 window -> mapper ->
 * output for one input, or for several inputs at once merged by time
 * (run_many: DFTracer writes one file per process).  In run_many each input keeps its own
 * parser; the input whose last timestamp is smallest is fed next, so the
 * shared reorder window sees a nearly merged stream.
 * Metadata (ph M) and stack frames bypass the window: they name timelines,
 * and names do not depend on time.
 * Tools layer: public libslog headers, yajl (through chrome_parse), libc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "import_main.h"

#define CHUNK_BYTES (256u * 1024u)
#define STAGE1_BYTES (64ull << 20) /* memory the stage-1 window may hold */
#define STAGE2_BYTES (16ull << 20)
#define MERGE_MAX_OPEN 64           /* run_many: inputs open at once */

typedef struct chrome_run {
    import_ctx *ctx;
    chrome_map *map;
    chrome_window in_win;
    uint64_t window;
    uint64_t held;
    uint64_t seq;
} chrome_run;

#define RUN(u) chrome_run *r = (chrome_run *)(u)

/* -------------------------------------------------------------- stage 1 */

static int stage1_pop(chrome_run *r)
{
    chrome_event *ev = chrome_window_pop(&r->in_win);
    r->held -= ev->bytes;
    return chrome_map_event(r->map, ev);
}

static int sink_event(void *u, chrome_event *ev)
{
    RUN(u);
    if (ev->ph[0] == 'M' && ev->ph[1] == '\0') {
        const int rc = chrome_map_metadata(r->map, ev);
        free(ev);
        return rc;
    }
    if (r->window == 0) {
        return chrome_map_event(r->map, ev);
    }
    if (chrome_window_push(&r->in_win, ev->ts, 0, ev->seq, ev) != 0) {
        free(ev);
        return import_fail(r->ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    r->held += ev->bytes;
    while (chrome_window_size(&r->in_win) > r->window || r->held > STAGE1_BYTES) {
        if (stage1_pop(r) != 0) {
            return 1;
        }
    }
    return 0;
}

static int sink_frame(void *u, uint32_t input, const char *id, const char *name, const char *parent)
{
    RUN(u);
    return chrome_map_frame(r->map, input, id, name, parent);
}

static int run_setup(chrome_run *r, import_ctx *ctx, const chrome_out *out,
                     const char *const *names, uint32_t n)
{
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->window = import_sort_window(ctx);
    chrome_window_init(&r->in_win);
    chrome_map_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.window = r->window;
    cfg.window_bytes = STAGE2_BYTES;
    cfg.input_names = names;
    cfg.ninputs = n;
    if (chrome_map_create(&r->map, out, ctx, &cfg) != 0) {
        return import_fail(ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    return 0;
}

/* Drain the window and close everything; 0 ok. */
static int run_finish(chrome_run *r)
{
    while (chrome_window_size(&r->in_win) > 0) {
        if (stage1_pop(r) != 0) {
            return 1;
        }
    }
    return chrome_map_finish(r->map) != 0 ? 1 : 0;
}

static void run_teardown(chrome_run *r)
{
    chrome_event *ev;
    while ((ev = chrome_window_pop(&r->in_win)) != NULL) {
        free(ev);
    }
    chrome_window_free(&r->in_win);
    chrome_map_destroy(r->map);
}

/* ---------------------------------------------------------------- input */

typedef struct input {
    const char *path;
    import_stream *s;
    chrome_parser *p;
    chrome_run *r;
    bool done;
    int64_t last_ts;    /* largest ts seen in this input (merge order) */
    bool any_ts;
} input;

static int input_sink_event(void *u, chrome_event *ev)
{
    input *in = u;
    if ((ev->flags & CEV_HAS_TS) && (!in->any_ts || ev->ts > in->last_ts)) {
        in->last_ts = ev->ts;
        in->any_ts = true;
    }
    return sink_event(in->r, ev);
}

static int input_sink_frame(void *u, uint32_t input_no, const char *id, const char *name,
                            const char *parent)
{
    const input *in = u;
    return sink_frame(in->r, input_no, id, name, parent);
}

static int input_open(input *in, chrome_run *r, chrome_mode mode, uint32_t no)
{
    char err[256];
    in->r = r;
    r->ctx->display_name = in->path;
    if (import_stream_open(&in->s, in->path, err, sizeof err) != 0) {
        return import_fail(r->ctx, 0, 0, UINT64_MAX, "%s", err);
    }
    const chrome_sink sink = {in, input_sink_event, input_sink_frame};
    if (chrome_parser_create(&in->p, r->ctx, mode, no, &r->seq, &sink) != 0) {
        return import_fail(r->ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    return 0;
}

/* Feed one chunk; sets done at the end.  0 ok, 1 failed. */
static int input_step(input *in, unsigned char *buf)
{
    import_ctx *ctx = in->r->ctx;
    ctx->display_name = in->path;
    const long got = import_stream_read(in->s, buf, CHUNK_BYTES);
    if (got < 0) {
        return import_fail(ctx, 0, 0, import_stream_pos(in->s), "%s",
                           import_stream_error(in->s));
    }
    if (got == 0) {
        in->done = true;
        const int rc = chrome_parser_finish(in->p);
        chrome_parser_report(in->p);
        return rc;
    }
    import_progress(ctx, import_stream_pos(in->s), import_stream_size(in->s));
    return chrome_parser_feed(in->p, buf, (size_t)got);
}

static void input_close(input *in)
{
    chrome_parser_destroy(in->p);
    import_stream_close(in->s);
    in->p = NULL;
    in->s = NULL;
}

int chrome_import(import_ctx *ctx, const char *const *paths, size_t n, chrome_mode mode,
                  const chrome_out *out)
{
    chrome_run r;
    int rc = run_setup(&r, ctx, out, paths, (uint32_t)n);
    input *ins = calloc(n, sizeof *ins);
    unsigned char *buf = malloc(CHUNK_BYTES);
    if (rc == 0 && (ins == NULL || buf == NULL)) {
        rc = import_fail(ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    /* Inputs are merged in batches of MERGE_MAX_OPEN open at once. */
    for (size_t first = 0; rc == 0 && first < n; first += MERGE_MAX_OPEN) {
        const size_t last = n - first > MERGE_MAX_OPEN ? first + MERGE_MAX_OPEN : n;
        for (size_t i = first; rc == 0 && i < last; i++) {
            ins[i].path = paths[i];
            rc = input_open(&ins[i], &r, mode, (uint32_t)i);
        }
        while (rc == 0) {
            input *next = NULL;
            for (size_t i = first; i < last; i++) {
                input *in = &ins[i];
                if (!in->done && (next == NULL || (next->any_ts && !in->any_ts) ||
                                  (in->any_ts && next->any_ts && in->last_ts < next->last_ts))) {
                    next = in;
                }
            }
            if (next == NULL) {
                break;
            }
            rc = input_step(next, buf);
        }
        for (size_t i = first; i < last; i++) {
            input_close(&ins[i]);
        }
    }
    if (rc == 0) {
        rc = run_finish(&r);
    }
    if (r.map != NULL) {
        chrome_map_report(r.map);
    }
    run_teardown(&r);
    free(ins);
    free(buf);
    return rc != 0 ? 1 : 0;
}

int chrome_import_buffer(import_ctx *ctx, const unsigned char *data, size_t len, size_t chunk,
                         chrome_mode mode, const chrome_out *out)
{
    static const char *const names[] = {"(buffer)"};
    chrome_run r;
    int rc = run_setup(&r, ctx, out, names, 1);
    input in;
    memset(&in, 0, sizeof in);
    in.r = &r;
    const chrome_sink sink = {&in, input_sink_event, input_sink_frame};
    if (rc == 0 && chrome_parser_create(&in.p, ctx, mode, 0, &r.seq, &sink) != 0) {
        rc = import_fail(ctx, 0, 0, UINT64_MAX, "Out of memory");
    }
    if (chunk == 0) {
        chunk = len > 0 ? len : 1;
    }
    for (size_t at = 0; rc == 0 && at < len; at += chunk) {
        rc = chrome_parser_feed(in.p, data + at, len - at < chunk ? len - at : chunk);
    }
    if (rc == 0) {
        rc = chrome_parser_finish(in.p);
    }
    if (in.p != NULL) {
        chrome_parser_report(in.p);
    }
    chrome_parser_destroy(in.p);
    if (rc == 0) {
        rc = run_finish(&r);
    }
    if (r.map != NULL) {
        chrome_map_report(r.map);
    }
    run_teardown(&r);
    return rc != 0 ? 1 : 0;
}
