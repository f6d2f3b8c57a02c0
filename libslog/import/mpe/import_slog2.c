/* SPDX-License-Identifier: MIT
 *
 * import_slog2.c - slog-import entry "slog2": SLOG-2 2.0.6 files (.slog2,
 * also gzipped).  Pass 1 (slog2_file_scan) walks and checks every tree node
 * and reads the category map, line-ID maps and tree directory at the end of
 * the file; pass 2 reads the input again and emits the real drawables of
 * every node through import_mpe.c.  SLOG-2's preview shadows are checked
 * and counted as skipped: libslog computes its own previews.
 * Import library, mpe: public libslog API and the import core (importer.h).
 */
#include <stdio.h>

#include "import_mpe.h"
#include "importer.h"
#include "slog2_decode.h"

static int slog2_probe_fn(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    return slog2_probe(head, n) ? 100 : 0;
}

static const mpe_category *category_cb(const void *src, uint32_t slot)
{
    return slog2_file_category(src, slot);
}

static void line_cb(const void *src, uint32_t line_id, mpe_line *out)
{
    slog2_file_line(src, line_id, out);
}

static int open_input(import_ctx *ctx, const char *path, import_stream **s, mpe_in *in)
{
    char err[256];
    if (import_stream_open(s, ctx, path, err, sizeof err) != 0) {
        return import_fail(ctx, 0, 0, UINT64_MAX, "%s", err);
    }
    in->read = mpe_stream_read;
    in->errstr = mpe_stream_error;
    in->user = *s;
    in->pos = 0;
    return 0;
}

static void report(import_ctx *ctx, const slog2_file *f, const mpe_out *out)
{
    slog2_stats st;
    slog2_file_stats(f, &st);
    import_count(ctx, "SLOG-2 state", IMPORT_IMPORTED, st.states);
    import_count(ctx, "SLOG-2 event", IMPORT_IMPORTED, st.events);
    import_count(ctx, "SLOG-2 arrow", IMPORT_IMPORTED, st.arrows - st.arrows_backwards);
    import_count(ctx, "SLOG-2 arrow", IMPORT_REPAIRED, st.arrows_backwards);
    import_count(ctx, "SLOG-2 preview shadow", IMPORT_SKIPPED, st.shadows);
    if (st.composites > 0) {
        import_warn(ctx, 0, 0, UINT64_MAX,
                    "%llu composite drawables were imported as their separate parts",
                    (unsigned long long)st.composites);
    }
    if (st.arrows_backwards > 0) {
        import_warn(ctx, 0, 0, UINT64_MAX,
                    "%llu arrows end before they start (clock skew): they now end at their "
                    "start",
                    (unsigned long long)st.arrows_backwards);
    }
    if (mpe_out_short_info(out) > 0) {
        import_warn(ctx, 0, 0, UINT64_MAX,
                    "%llu drawables carry less info than their category says (args cut short)",
                    (unsigned long long)mpe_out_short_info(out));
    }
}

static int emit_all(import_ctx *ctx, const char *path, slog2_file *f, mpe_err *e)
{
    import_stream *s = NULL;
    mpe_in in;
    mpe_out *out = NULL;
    int rc = open_input(ctx, path, &s, &in);
    const mpe_source src = {f, category_cb, line_cb, slog2_file_threads(f)};
    if (rc == 0 && mpe_out_create(&out, ctx, &src, s) != 0) {
        rc = import_fail(ctx, 0, 0, UINT64_MAX, "out of memory");
    }
    if (rc == 0) {
        const int erc = slog2_file_emit(f, &in, mpe_out_emit, out, e);
        if (erc > 0) {
            uint64_t off = 0;
            const char *msg = mpe_out_error(out, &off);
            rc = import_fail(ctx, 0, 0, off, "%s", msg);
        } else if (erc < 0) {
            rc = import_fail(ctx, 0, 0, e->offset, "%s", e->msg);
        } else {
            report(ctx, f, out);
        }
    }
    mpe_out_destroy(out);
    import_stream_close(s);
    return rc;
}

static int slog2_run(import_ctx *ctx, const char *path)
{
    mpe_err e = {UINT64_MAX, ""};
    import_stream *s = NULL;
    mpe_in in;
    slog2_file *f = NULL;
    int rc = open_input(ctx, path, &s, &in);
    if (rc == 0 && slog2_file_scan(&f, &in, &e) != 0) {
        rc = import_fail(ctx, 0, 0, e.offset, "%s", e.msg);
    }
    import_stream_close(s);
    if (rc == 0) {
        rc = emit_all(ctx, path, f, &e);
    }
    slog2_file_destroy(f);
    return rc;
}

const importer import_slog2 = {"slog2", slog2_probe_fn, slog2_run, NULL, false, 1};
