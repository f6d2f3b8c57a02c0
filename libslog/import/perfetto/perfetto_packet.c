/* SPDX-License-Identifier: MIT
 *
 * perfetto_packet.c - one TracePacket.  Its fields are read first (a packet
 * that does not parse is skipped whole and counted, with its offset); then,
 * in this order: the sequence's flags (SEQ_INCREMENTAL_STATE_CLEARED or the
 * old bool clears its interning, defaults and incremental counters;
 * previous_packet_dropped without a clear marks its state lost, and packets
 * that need incremental state are then dropped until the next clear),
 * TracePacketDefaults, InternedData, a ClockSnapshot, the timestamp
 * (converted to BOOTTIME ns), and the payload: track_event, track_descriptor,
 * ftrace_events, thread_descriptor, gpu_counter_event.  Every packet is
 * counted by its payload field (the last member of the oneof read); the
 * others are skipped by wire type.
 * Import library, perfetto folder: public libslog headers, libc.
 */
#include <string.h>

#include "perfetto.h"

#define P_FTRACE 1
#define P_TRUSTED_UID 3
#define P_CLOCK_SNAPSHOT 6
#define P_TIMESTAMP 8
#define P_SEQ_ID 10
#define P_TRACK_EVENT 11
#define P_INTERNED 12
#define P_FLAGS 13
#define P_CLEARED_BOOL 41
#define P_DROPPED 42
#define P_THREAD_DESCRIPTOR 44
#define P_GPU_COUNTERS 52
#define P_CLOCK_ID 58
#define P_DEFAULTS 59
#define P_TRACK_DESCRIPTOR 60
#define P_TRUSTED_PID 79
#define P_FIRST_ON_SEQ 87
#define FLAG_CLEARED 1u
#define FLAG_NEEDS 2u
#define BOOTTIME 6u

typedef struct packet {
    bool has_ts, has_clock, cleared_bool, dropped, first;
    uint64_t ts;
    uint32_t clock, seq_id, flags;
    pb_field interned, defaults, payload; /* num 0: absent */
} packet;

void pf_note_time(pf_importer *pf, int64_t ns)
{
    if (!pf->any_time || ns < pf->t_min) {
        pf->t_min = ns;
    }
    if (!pf->any_time || ns > pf->t_max) {
        pf->t_max = ns;
    }
    pf->any_time = true;
}

static void packet_field(packet *p, const pb_field *e)
{
    switch (e->num) {
    case P_TIMESTAMP: p->has_ts = true; p->ts = e->value; break;
    case P_CLOCK_ID: p->has_clock = true; p->clock = (uint32_t)e->value; break;
    case P_SEQ_ID: p->seq_id = (uint32_t)e->value; break;
    case P_FLAGS: p->flags = (uint32_t)e->value; break;
    case P_CLEARED_BOOL: p->cleared_bool = e->value != 0; break;
    case P_DROPPED: p->dropped = e->value != 0; break;
    case P_FIRST_ON_SEQ: p->first = e->value != 0; break;
    case P_INTERNED: p->interned = *e; break;
    case P_DEFAULTS: p->defaults = *e; break;
    case P_TRUSTED_UID:
    case P_TRUSTED_PID: break;
    default:
        /* the data oneof: the last member read wins, as in protobuf; a field
         * the public protos do not name only when no named one is there */
        if (p->payload.num == 0 || pf_packet_field_name(e->num) != NULL ||
            pf_packet_field_name(p->payload.num) == NULL) {
            p->payload = *e;
        }
    }
}

static void count_flags(pf_importer *pf, const packet *p)
{
    const uint32_t kind = p->payload.num;
    pf->packet_kind[kind < 1024 ? kind : 1024]++;
    pf_count(pf, K_FLAG_CLEARED, (p->flags & FLAG_CLEARED) != 0);
    pf_count(pf, K_FLAG_NEEDS, (p->flags & FLAG_NEEDS) != 0);
    pf_count(pf, K_FLAG_CLEARED_BOOL, p->cleared_bool);
    pf_count(pf, K_FLAG_DROPPED, p->dropped);
    pf_count(pf, K_FLAG_FIRST, p->first);
}

/* Flags of the sequence; false when the packet must be dropped. */
static bool sequence_flags(pf_importer *pf, pf_seq *s, const packet *p)
{
    if ((p->flags & FLAG_CLEARED) || p->cleared_bool) {
        pf_seq_clear(s);
        for (size_t i = 0; i < pf->ntracks; i++) {
            if (pf->tracks[i].counter_incremental && pf->tracks[i].counter_seq == s->id) {
                pf->tracks[i].counter_last = 0;
            }
        }
    } else if (p->dropped) {
        s->state_valid = false;
    }
    if ((p->flags & FLAG_NEEDS) && !s->state_valid) {
        pf_count(pf, K_NEEDS_STATE_DROPPED, 1);
        return false;
    }
    return true;
}

static int dispatch(pf_importer *pf, pf_seq *s, pb_reader *r, const packet *p, int64_t ts)
{
    const pb_field *f = &p->payload;
    if (f->wire != PB_WIRE_LEN) {
        return PF_OK;
    }
    switch (f->num) {
    case P_TRACK_EVENT:
        return pf_track_event(pf, s, r, f, ts, p->has_ts);
    case P_TRACK_DESCRIPTOR:
        return pf_track_descriptor(pf, r, f);
    case P_FTRACE:
        return pf_ftrace_bundle(pf, r, f);
    case P_THREAD_DESCRIPTOR:
        return pf_thread_descriptor(pf, s, r, f);
    case P_GPU_COUNTERS:
        return p->has_ts ? pf_gpu_counters(pf, r, f, ts) : PF_OK;
    default:
        return PF_OK;
    }
}

/* Defaults, interned data and a clock snapshot, before the timestamp. */
static int sequence_state(pf_importer *pf, pf_seq *s, pb_reader *r, const packet *p)
{
    int rc = PF_OK;
    if (p->defaults.num != 0 && p->defaults.wire == PB_WIRE_LEN) {
        rc = pf_defaults(pf, s, r, &p->defaults);
    }
    if (rc == PF_OK && p->interned.num != 0 && p->interned.wire == PB_WIRE_LEN) {
        rc = pf_interned_data(pf, s, r, &p->interned);
    }
    if (rc == PF_OK && p->payload.num == P_CLOCK_SNAPSHOT && p->payload.wire == PB_WIRE_LEN) {
        rc = pf_clock_snapshot(pf, s, r, &p->payload);
    }
    return rc;
}

int pf_packet(pf_importer *pf, const uint8_t *data, size_t len, uint64_t offset)
{
    pf_arena_reset(&pf->scratch);
    pf->packet_offset = offset;
    pf->order++;
    pf_count(pf, K_PACKETS, 1);
    pb_reader r;
    pb_reader_init(&r, data, len, offset);
    packet p;
    memset(&p, 0, sizeof p);
    pb_field e;
    int rc;
    while ((rc = pb_next(&r, &e)) == PB_OK) {
        packet_field(&p, &e);
    }
    if (rc != PB_END) {
        return PF_DAMAGED;
    }
    count_flags(pf, &p);
    pf_seq *s = pf_seq_get(pf, p.seq_id);
    if (s == NULL) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (sequences)");
    }
    if (!sequence_flags(pf, s, &p)) {
        return PF_OK;
    }
    rc = sequence_state(pf, s, &r, &p);
    if (rc != PF_OK) {
        return rc;
    }
    int64_t ts = 0;
    if (p.has_ts) {
        const uint32_t clock = p.has_clock             ? p.clock
                               : s->has_default_clock ? s->default_clock
                                                      : BOOTTIME;
        ts = pf_clock_to_ns(pf, s, clock, p.ts);
    }
    return dispatch(pf, s, &r, &p, ts);
}

bool pf_packet_plausible(const uint8_t *data, size_t len)
{
    pb_reader r;
    pb_field e;
    pb_reader_init(&r, data, len, 0);
    size_t n = 0;
    int rc;
    while ((rc = pb_next(&r, &e)) == PB_OK) {
        n++;
    }
    return rc == PB_END && n > 0;
}
