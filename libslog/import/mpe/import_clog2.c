/* SPDX-License-Identifier: MIT
 *
 * import_clog2.c - slog-import entry "clog2": MPE CLOG2 logs (.clog2, also
 * gzipped).  Two passes over the input: pass 1 reads every record and
 * learns the state/event definitions (MPE writes those of the MPI states at
 * MPI_Finalize, i.e. at the end) and the communicators' world ranks; pass 2
 * reads it again and converts (clog2_decode.c) while import_mpe.c writes.
 * A damaged or cut file keeps what comes before the damage: pass 1 stops
 * there with the definitions seen so far (the others keep their MPE_state_N
 * names), pass 2 converts the records up to the same point, counts what
 * stays open as unmatched, then fails naming the byte, so the output is
 * left incomplete.  A record that cannot be mapped (a line out of range,
 * an event type without definition) is skipped and counted, and the import
 * fails at the end with the first one.  Memory: one block plus what is open.
 * Import library, mpe: public libslog API and the import core (importer.h).
 */
#include <stdio.h>
#include <string.h>

#include "clog2_decode.h"
#include "import_mpe.h"
#include "importer.h"

static int clog2_probe_fn(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    return clog2_probe(head, n) ? 100 : 0;
}

static const mpe_category *category_cb(const void *src, uint32_t slot)
{
    return clog2_conv_category(src, slot);
}

static void line_cb(const void *src, uint32_t line_id, mpe_line *out)
{
    clog2_conv_line(src, line_id, out);
}

typedef struct pass {
    import_stream *s;
    mpe_in in;
    clog2_reader *r;
} pass;

static int pass_open(import_ctx *ctx, const char *path, pass *p, mpe_err *e)
{
    char err[256];
    p->s = NULL;
    p->r = NULL;
    if (import_stream_open(&p->s, ctx, path, err, sizeof err) != 0) {
        return import_fail(ctx, 0, 0, UINT64_MAX, "%s", err);
    }
    p->in.read = mpe_stream_read;
    p->in.errstr = mpe_stream_error;
    p->in.user = p->s;
    p->in.pos = 0;
    if (clog2_reader_open(&p->r, &p->in, e) != 0) {
        return import_fail(ctx, 0, 0, e->offset, "%s", e->msg);
    }
    return 0;
}

static void pass_close(pass *p)
{
    clog2_reader_destroy(p->r);
    import_stream_close(p->s);
    p->r = NULL;
    p->s = NULL;
}

/* Pass 1.  A reader error is not fatal here: pass 2 meets it again at the
 * same record, after converting the ones before it. */
static int learn_all(import_ctx *ctx, const char *path, clog2_conv **conv, mpe_err *e)
{
    pass p;
    int rc = pass_open(ctx, path, &p, e);
    if (rc == 0 && clog2_conv_create(conv, clog2_reader_preamble(p.r), e) != 0) {
        rc = import_fail(ctx, 0, 0, e->offset, "%s", e->msg);
    }
    clog2_record rec;
    while (rc == 0 && clog2_reader_next(p.r, &rec, e) == 0) {
        if (clog2_conv_learn(*conv, &rec, e) != 0) {
            rc = import_fail(ctx, 0, 0, e->offset, "%s", e->msg);
        }
    }
    pass_close(&p);
    return rc;
}

static void report(import_ctx *ctx, const clog2_conv *conv, const mpe_out *out)
{
    clog2_conv_stats st;
    clog2_conv_stats_get(conv, &st);
    import_count(ctx, "CLOG2 state (start/final pair)", IMPORT_IMPORTED, st.states);
    import_count(ctx, "CLOG2 event (solo)", IMPORT_IMPORTED, st.events);
    import_count(ctx, "CLOG2 arrow (send/recv pair)", IMPORT_IMPORTED,
                 st.arrows - st.arrows_backwards);
    import_count(ctx, "CLOG2 arrow (send/recv pair)", IMPORT_REPAIRED, st.arrows_backwards);
    import_count(ctx, "CLOG2 unmatched start event", IMPORT_SKIPPED, st.unmatched_starts);
    import_count(ctx, "CLOG2 unmatched final event", IMPORT_SKIPPED, st.unmatched_finals);
    import_count(ctx, "CLOG2 unmatched send/recv", IMPORT_SKIPPED, st.unmatched_msgs);
    import_count(ctx, "CLOG2 const/timeshift/coll/srcloc", IMPORT_SKIPPED, st.ignored);
    if (st.arrows_backwards > 0) {
        import_warn(ctx, 0, 0, UINT64_MAX,
                    "%llu messages were received before they were sent (clock skew): their "
                    "arrows end at the send time",
                    (unsigned long long)st.arrows_backwards);
    }
    if (st.unmatched_starts + st.unmatched_finals + st.unmatched_msgs > 0) {
        import_warn(ctx, 0, 0, UINT64_MAX,
                    "unmatched records dropped: %llu start events, %llu final events, %llu "
                    "sends/receives",
                    (unsigned long long)st.unmatched_starts,
                    (unsigned long long)st.unmatched_finals, (unsigned long long)st.unmatched_msgs);
    }
    if (mpe_out_short_info(out) > 0) {
        import_warn(ctx, 0, 0, UINT64_MAX,
                    "%llu drawables carry less info than their format says (args cut short)",
                    (unsigned long long)mpe_out_short_info(out));
    }
}

/* Feed one record: 0 converted, -1 refused (a line or partner out of
 * range, an event type with no definition: *e), 1 the import must stop
 * (the writer failed or memory ran out; reported). */
static int
feed_one(import_ctx *ctx, clog2_conv *conv, const clog2_record *rec, mpe_out *out, mpe_err *e)
{
    const int frc = clog2_conv_feed(conv, rec, mpe_out_emit, out, e);
    if (frc > 0) { /* the writer failed */
        uint64_t off = 0;
        const char *msg = mpe_out_error(out, &off);
        return import_fail(ctx, 0, 0, off, "%s", msg);
    }
    if (frc < 0 && strcmp(e->msg, "out of memory") == 0) { /* mpe_fail's text for ENOMEM */
        return import_fail(ctx, 0, 0, e->offset, "%s", e->msg);
    }
    return frc < 0 ? -1 : 0;
}

/* Pass 2: every record up to the end or the damage.  A record that cannot
 * be mapped is skipped and counted, the first one reported; the records
 * after it are still converted.  1 after import_fail. */
static int convert_records(import_ctx *ctx, pass *p, clog2_conv *conv, mpe_out *out, mpe_err *e)
{
    clog2_record rec;
    uint64_t good = 0, refused = 0;
    mpe_err first = {UINT64_MAX, ""};
    int next = 0;
    while ((next = clog2_reader_next(p->r, &rec, e)) == 0) {
        const int rc = feed_one(ctx, conv, &rec, out, e);
        if (rc > 0) {
            return 1;
        }
        first = rc < 0 && refused == 0 ? *e : first;
        refused += rc < 0 ? 1u : 0u;
        good += rc == 0 ? 1u : 0u;
    }
    report(ctx, conv, out);
    if (refused > 0) {
        import_count(ctx, "CLOG2 record that cannot be mapped", IMPORT_SKIPPED, refused);
        (void)import_fail(ctx, 0, 0, first.offset,
                          "%s; %llu records that cannot be mapped skipped, the others imported",
                          first.msg, (unsigned long long)refused);
    }
    if (next < 0) {
        return import_fail(ctx, 0, 0, e->offset,
                           "%s; the %llu records before it are imported, the output is "
                           "incomplete",
                           e->msg, (unsigned long long)good);
    }
    return refused > 0 ? 1 : 0;
}

static int convert_all(import_ctx *ctx, const char *path, clog2_conv *conv, mpe_err *e)
{
    pass p;
    mpe_out *out = NULL;
    int rc = pass_open(ctx, path, &p, e);
    const mpe_source src = {conv, category_cb, line_cb, clog2_conv_threads(conv)};
    if (rc == 0 && mpe_out_create(&out, ctx, &src, p.s) != 0) {
        rc = import_fail(ctx, 0, 0, UINT64_MAX, "out of memory");
    }
    if (rc == 0) {
        rc = convert_records(ctx, &p, conv, out, e);
    }
    mpe_out_destroy(out);
    pass_close(&p);
    return rc;
}

static int clog2_run(import_ctx *ctx, const char *path)
{
    mpe_err e = {UINT64_MAX, ""};
    clog2_conv *conv = NULL;
    int rc = learn_all(ctx, path, &conv, &e);
    if (rc == 0) {
        rc = convert_all(ctx, path, conv, &e);
    }
    clog2_conv_destroy(conv);
    return rc;
}

const importer import_clog2 = {"clog2", clog2_probe_fn, clog2_run, NULL, false, 1};
