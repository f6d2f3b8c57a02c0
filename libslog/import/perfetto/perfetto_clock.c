/* SPDX-License-Identifier: MIT
 *
 * perfetto_clock.c - ClockSnapshot and the conversion of packet timestamps
 * to one time base, BOOTTIME nanoseconds (Perfetto's default trace clock).
 * A snapshot gives, at one instant, the value of several clocks: for a
 * global clock (id < 64) we keep its offset to BOOTTIME from the latest
 * snapshot; for a sequence-scoped clock (64..127, Chrome's 64 absolute µs
 * and 65 incremental µs) the sequence keeps the reference value, its
 * BOOTTIME, the unit (unit_multiplier_ns) and, for incremental clocks, the
 * running value that each packet's timestamp adds to.  A timestamp on a
 * clock no snapshot described is taken as BOOTTIME and counted.
 * Import library, perfetto folder: public libslog headers, libc.
 */
#include <string.h>

#include "perfetto.h"

#define CS_CLOCKS 1
#define CLOCK_ID 1
#define CLOCK_TIMESTAMP 2
#define CLOCK_INCREMENTAL 3
#define CLOCK_MULT 4
#define BOOTTIME 6u
#define MAX_SNAPSHOT_CLOCKS 64

typedef struct snap_clock {
    uint64_t value;
    int64_t mult;
    uint32_t id;
    bool incremental;
} snap_clock;

static int read_clock(pb_reader *r, const pb_field *f, snap_clock *c)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    memset(c, 0, sizeof *c);
    c->mult = 1;
    int rc;
    while ((rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.wire != PB_WIRE_VARINT) {
            continue;
        }
        if (e.num == CLOCK_ID) {
            c->id = (uint32_t)e.value;
        } else if (e.num == CLOCK_TIMESTAMP) {
            c->value = e.value;
        } else if (e.num == CLOCK_INCREMENTAL) {
            c->incremental = e.value != 0;
        } else if (e.num == CLOCK_MULT && e.value > 0 && e.value < 1000000000000u) {
            c->mult = (int64_t)e.value;
        }
    }
    return rc == PB_END ? PF_OK : PF_DAMAGED;
}

/* BOOTTIME at the snapshot: its own entry, else a global clock with a known
 * offset.  false when neither is there. */
static bool snapshot_boottime(const pf_importer *pf, const snap_clock *c, size_t n, int64_t *boot)
{
    for (size_t i = 0; i < n; i++) {
        if (c[i].id == BOOTTIME) {
            *boot = (int64_t)c[i].value * c[i].mult;
            return true;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (c[i].id < 64 && pf->global_known[c[i].id]) {
            *boot = (int64_t)c[i].value * c[i].mult + pf->global_offset[c[i].id];
            return true;
        }
    }
    return false;
}

static void apply_snapshot(pf_importer *pf, pf_seq *s, const snap_clock *c, size_t n,
                           int64_t boot)
{
    for (size_t i = 0; i < n; i++) {
        if (c[i].id < 64 && c[i].id != BOOTTIME) {
            pf->global_offset[c[i].id] = boot - (int64_t)c[i].value * c[i].mult;
            pf->global_known[c[i].id] = true;
        } else if (c[i].id >= 64 && c[i].id < 64 + PF_SEQ_CLOCKS) {
            pf_seq_clock *k = &s->clocks[c[i].id - 64];
            k->known = true;
            k->incremental = c[i].incremental;
            k->ref_value = (int64_t)c[i].value;
            k->last = (int64_t)c[i].value;
            k->ref_ns = boot;
            k->mult = c[i].mult;
        }
    }
}

int pf_clock_snapshot(pf_importer *pf, pf_seq *s, pb_reader *r, const pb_field *f)
{
    snap_clock clocks[MAX_SNAPSHOT_CLOCKS];
    size_t n = 0;
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    int rc;
    while ((rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == CS_CLOCKS && e.wire == PB_WIRE_LEN && n < MAX_SNAPSHOT_CLOCKS) {
            if (read_clock(&sub, &e, &clocks[n]) != PF_OK) {
                return PF_DAMAGED;
            }
            n++;
        }
    }
    if (rc != PB_END) {
        return PF_DAMAGED;
    }
    int64_t boot = 0;
    if (snapshot_boottime(pf, clocks, n, &boot)) {
        apply_snapshot(pf, s, clocks, n, boot);
    }
    return PF_OK;
}

int64_t pf_clock_to_ns(pf_importer *pf, pf_seq *s, uint32_t clock, uint64_t raw)
{
    if (clock == BOOTTIME) {
        return (int64_t)raw;
    }
    if (clock < 64) {
        if (pf->global_known[clock]) {
            return (int64_t)(raw + (uint64_t)pf->global_offset[clock]);
        }
    } else if (clock < 64 + PF_SEQ_CLOCKS && s->clocks[clock - 64].known) {
        pf_seq_clock *k = &s->clocks[clock - 64];
        int64_t v = (int64_t)raw;
        if (k->incremental) {
            k->last = (int64_t)((uint64_t)k->last + raw);
            v = k->last;
        }
        return k->ref_ns + (v - k->ref_value) * k->mult;
    }
    pf_count(pf, K_TS_NO_SNAPSHOT, 1);
    return (int64_t)raw;
}
