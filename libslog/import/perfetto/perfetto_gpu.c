/* SPDX-License-Identifier: MIT
 *
 * perfetto_gpu.c - GpuCounterEvent -> counter samples on one "GPU counters"
 * timeline, one category per counter (named from the descriptor's specs
 * when a descriptor packet named it, "gpu counter N" otherwise).
 * Import library, perfetto folder: public libslog headers, libc.
 */
#include <stdio.h>
#include <string.h>

#include "perfetto.h"

#define GC_DESCRIPTOR 1
#define GC_COUNTERS 2
#define GD_SPECS 1
#define SPEC_ID 1
#define SPEC_NAME 2
#define GV_ID 1
#define GV_INT 2
#define GV_DOUBLE 3

static int read_spec(pf_importer *pf, pb_reader *r, const pb_field *f)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    uint64_t id = 0;
    const uint8_t *name = NULL;
    size_t len = 0;
    int rc;
    while ((rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == SPEC_ID && e.wire == PB_WIRE_VARINT) {
            id = e.value;
        } else if (e.num == SPEC_NAME && e.wire == PB_WIRE_LEN) {
            name = e.data;
            len = e.len;
        }
    }
    if (rc != PB_END) {
        return PF_DAMAGED;
    }
    pf_count(pf, K_GPU_SPECS, 1);
    const char *copy = name ? pf_arena_strdup(&pf->names_arena, name, len) : NULL;
    const int64_t at = copy != NULL ? pf_strvec_push(&pf->gpu_strs, copy) : 0;
    if (at < 0 || (copy != NULL && pf_u64map_put(&pf->gpu_names, id, (uint64_t)at) != 0)) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory");
    }
    return PF_OK;
}

static int read_descriptor(pf_importer *pf, pb_reader *r, const pb_field *f)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    int rc, st = PF_OK;
    while (st == PF_OK && (rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == GD_SPECS && e.wire == PB_WIRE_LEN) {
            st = read_spec(pf, &sub, &e);
        }
    }
    return st != PF_OK ? st : rc == PB_END ? PF_OK : PF_DAMAGED;
}

static int read_value(pb_reader *r, const pb_field *f, uint64_t *id, double *v)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    *id = 0;
    *v = 0;
    int rc;
    while ((rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == GV_ID && e.wire == PB_WIRE_VARINT) {
            *id = e.value;
        } else if (e.num == GV_INT && e.wire == PB_WIRE_VARINT) {
            *v = (double)(int64_t)e.value;
        } else if (e.num == GV_DOUBLE && e.wire == PB_WIRE_I64) {
            *v = pb_double(e.value);
        }
    }
    return rc == PB_END ? PF_OK : PF_DAMAGED;
}

static int sample(pf_importer *pf, uint64_t id, int64_t ts, double v)
{
    const pf_synth gpu = {"gpu", SLOG_TIMELINE_GPU, "GPU counters", PF_NO_ID, K_TL_GPU};
    if (pf->gpu_track == PF_NO_ID && pf_track_synthetic(pf, &gpu, &pf->gpu_track) != PF_OK) {
        return PF_FATAL;
    }
    uint64_t p;
    char name[48];
    const char *n = pf_u64map_get(&pf->gpu_names, id, &p) && p < pf->gpu_strs.n
                        ? pf->gpu_strs.v[p]
                        : NULL;
    if (n == NULL) {
        (void)snprintf(name, sizeof name, "gpu counter %llu", (unsigned long long)id);
        n = name;
    }
    pf_count(pf, K_GPU_VALUES, 1);
    return pf_counter_sample(pf, pf->gpu_track, n, ts, v);
}

int pf_gpu_counters(pf_importer *pf, pb_reader *r, const pb_field *f, int64_t ts)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    pb_reader scan = sub;
    int rc, st = PF_OK;
    while (st == PF_OK && (rc = pb_next(&scan, &e)) == PB_OK) {
        if (e.num == GC_DESCRIPTOR && e.wire == PB_WIRE_LEN) {
            st = read_descriptor(pf, &scan, &e);
        }
    }
    if (st != PF_OK || rc != PB_END) {
        return st != PF_OK ? st : PF_DAMAGED;
    }
    while (st == PF_OK && pb_next(&sub, &e) == PB_OK) {
        uint64_t id;
        double v;
        if (e.num == GC_COUNTERS && e.wire == PB_WIRE_LEN) {
            st = read_value(&sub, &e, &id, &v);
            st = st == PF_OK ? sample(pf, id, ts, v) : st;
        }
    }
    return st;
}
