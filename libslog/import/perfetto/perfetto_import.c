/* SPDX-License-Identifier: MIT
 *
 * perfetto_import.c - the Perfetto importer's entry (perfetto_import.h):
 * set up one pf_importer, stream the Trace through it, then close what is
 * still open (slices, async spans, CPU periods; at the trace's end), give
 * every described track its timeline, report the summary and free
 * everything.  Also the probe: a Trace starts with the tag of field 1
 * (0x0a), a length, and a TracePacket whose fields parse.
 * Import library, perfetto folder: public libslog headers, libc.
 */
#include <stdlib.h>
#include <string.h>

#include "perfetto.h"

static int finish(pf_importer *pf)
{
    if (pf_events_finish(pf) != PF_OK || pf_legacy_finish(pf) != PF_OK ||
        pf_flows_finish(pf) != PF_OK ||
        pf_ftrace_finish(pf) != PF_OK || pf_tracks_finish(pf) != PF_OK) {
        return PF_FATAL;
    }
    if (pf->counts[K_PACKETS] == 0 && pf->first_damage != UINT64_MAX) {
        return pf_fail(pf, SLOG_EPARSE, pf->first_damage,
                       "No TracePacket in the input: the bytes from offset %llu on do not "
                       "follow the Trace format (expected tag 0x0a of a TracePacket)",
                       (unsigned long long)pf->first_damage);
    }
    if (pf->counts[K_PACKETS] == 0) {
        return pf_fail(pf, SLOG_EPARSE, 0, "No TracePacket in the input (empty file)");
    }
    return PF_OK;
}

static void release(pf_importer *pf)
{
    for (size_t i = 0; i < pf->nseqs; i++) {
        pf_seq_free(&pf->seqs[i]);
    }
    free(pf->seqs);
    pf_u64map_free(&pf->seq_index);
    pf_tracks_free(pf);
    pf_flows_free(pf);
    pf_legacy_free(pf);
    pf_ftrace_free(pf);
    pf_u64map_free(&pf->gpu_names);
    pf_strvec_free(&pf->gpu_strs);
    pf_arena_free(&pf->names_arena);
    pf_arena_free(&pf->scratch);
    free(pf->args);
    for (size_t i = 0; i < sizeof pf->rep / sizeof pf->rep[0]; i++) {
        free(pf->rep[i].v);
    }
}

int perfetto_import(slog_writer *w, pf_read_fn read, void *read_user, const pf_hooks *hooks,
                    slog_error *err)
{
    pf_importer *pf = calloc(1, sizeof *pf);
    slog_error local = {0};
    slog_error *e = err != NULL ? err : &local;
    memset(e, 0, sizeof *e);
    e->offset = UINT64_MAX;
    if (pf == NULL) {
        e->code = SLOG_ENOMEM;
        (void)strcpy(e->message, "Out of memory");
        return SLOG_ENOMEM;
    }
    pf->w = w;
    if (hooks != NULL) {
        pf->hooks = *hooks;
    }
    pf->err = e;
    pf->cpu_root = PF_NO_ID;
    pf->first_damage = UINT64_MAX;
    pf->gpu_track = PF_NO_ID;
    int rc = pf_stream_run(pf, read, read_user);
    if (rc == PF_OK) {
        rc = finish(pf);
    }
    pf_report(pf);
    release(pf);
    free(pf);
    return rc == PF_OK ? SLOG_OK : (e->code != SLOG_OK ? e->code : SLOG_EPARSE);
}

int perfetto_probe(const unsigned char *head, size_t n)
{
    if (head == NULL || n < 2 || head[0] != 0x0a) {
        return 0;
    }
    size_t text = 0;
    for (size_t i = 0; i < n && i < 64; i++) {
        text += (head[i] >= 0x20 && head[i] < 0x7f) || head[i] == '\n' || head[i] == '\t' ||
                head[i] == '\r';
    }
    if (text == (n < 64 ? n : 64)) {
        return 0; /* all text: a JSON or log file starting with a newline */
    }
    const uint8_t *p = head + 1;
    uint64_t len;
    if (pb_varint(&p, head + n, &len) != PB_OK || len == 0) {
        return 0;
    }
    const size_t avail = (size_t)(head + n - p);
    if (len <= avail) {
        return pf_packet_plausible(p, (size_t)len) ? 90 : 0;
    }
    /* the first packet is longer than the probe: its fields so far must parse */
    pb_reader r;
    pb_field f;
    pb_reader_init(&r, p, avail, 0);
    int rc;
    size_t fields = 0;
    while ((rc = pb_next(&r, &f)) == PB_OK) {
        fields++;
    }
    return (rc == PB_END || rc == PB_ETRUNC) && fields > 0 ? 60 : 0;
}
