/* SPDX-License-Identifier: MIT
 *
 * perfetto_ftrace.c - ftrace bundles -> per-CPU states.  Every FtraceEvent
 * is counted by its event field (sched_switch, cpu_idle, ...); sched_switch,
 * explicit or in a bundle's compact_sched columns (timestamps delta-coded,
 * comms from the bundle's intern table), ends the running period of the
 * CPU's previous task and starts the next one: a state on the timeline
 * "CPU n" whose category is the task's comm (group "sched"), with args pid,
 * prio and the end state.  pid 0 (idle) periods are counted, not drawn; a
 * task still running at the end is closed at the trace's end.  Timestamps
 * are ftrace's clock, taken as BOOTTIME ns.
 * Import library, perfetto folder: public libslog headers, libc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto.h"

#define FB_CPU 1
#define FB_EVENT 2
#define FB_LOST 3
#define FB_COMPACT 4
#define FE_TIMESTAMP 1
#define FE_PID 2
#define FE_COMMON_FLAGS 5
#define FE_SCHED_SWITCH 4
#define SS_PREV_STATE 4
#define SS_NEXT_COMM 5
#define SS_NEXT_PID 6
#define SS_NEXT_PRIO 7
#define CS_SWITCH_TS 1
#define CS_PREV_STATE 2
#define CS_NEXT_PID 3
#define CS_NEXT_PRIO 4
#define CS_INTERN 5
#define CS_NEXT_COMM 6
#define CS_WAKING_TS 7
#define MAX_CPUS 4096u

typedef struct sw {
    int64_t ts;
    int64_t prev_state;
    int32_t next_pid, next_prio;
    const uint8_t *next_comm;
    size_t next_comm_len;
} sw;

static int cpu_get(pf_importer *pf, uint32_t cpu, pf_cpu **out)
{
    *out = NULL;
    if (cpu >= MAX_CPUS) {
        return PF_DAMAGED;
    }
    if (cpu >= pf->ncpus) {
        pf_cpu *c = realloc(pf->cpus, (cpu + 1) * sizeof *c);
        if (c == NULL) {
            return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (CPUs)");
        }
        memset(c + pf->ncpus, 0, (cpu + 1 - pf->ncpus) * sizeof *c);
        for (uint32_t i = pf->ncpus; i <= cpu; i++) {
            c[i].track = PF_NO_ID;
        }
        pf->cpus = c;
        pf->ncpus = cpu + 1;
    }
    pf_cpu *c = &pf->cpus[cpu];
    if (c->track == PF_NO_ID) {
        char key[32], name[32];
        (void)snprintf(key, sizeof key, "cpu:%u", cpu);
        (void)snprintf(name, sizeof name, "CPU %u", cpu);
        uint32_t root = PF_NO_ID, track = PF_NO_ID;
        const pf_synth group = {"cpus", SLOG_TIMELINE_HOST, "CPUs", PF_NO_ID, K_TL_CPU};
        if (pf_track_synthetic(pf, &group, &root) != PF_OK) {
            return PF_FATAL;
        }
        const pf_synth one = {key, SLOG_TIMELINE_GENERIC, name, root, K_TL_CPU};
        if (pf_track_synthetic(pf, &one, &track) != PF_OK) {
            return PF_FATAL;
        }
        pf->tracks[track].sort_key = cpu;
        pf->cpus[cpu].track = track;
    }
    *out = &pf->cpus[cpu];
    return PF_OK;
}

/* The state of the task that ran on c until `end`. */
static int running_state(pf_importer *pf, pf_cpu *c, int64_t end, int64_t end_state, bool open)
{
    if (c->pid == 0) {
        pf_count(pf, K_SWITCH_IDLE, 1);
        return PF_OK;
    }
    uint32_t tl, cat;
    if (pf_timeline(pf, c->track, &tl) != PF_OK ||
        pf_category(pf, SLOG_KIND_STATE, c->comm ? c->comm : "?", "sched", &cat) != PF_OK) {
        return PF_FATAL;
    }
    const slog_arg args[3] = {{"pid", SLOG_ARG_INT, {.i = c->pid}},
                              {"prio", SLOG_ARG_INT, {.i = c->prio}},
                              {"end_state", SLOG_ARG_INT, {.i = end_state}}};
    const slog_state st = {tl, cat, c->since, end, 0, open ? 2 : 3, args};
    if (open) {
        return pf_close_open(pf, &st);
    }
    pf_count(pf, K_SWITCH_STATE, 1);
    slog_error werr;
    if (slog_writer_append_state(pf->w, &st, &werr) != SLOG_OK) {
        return pf_writer_failed(pf, &werr);
    }
    return PF_OK;
}

static int apply_switch(pf_importer *pf, uint32_t cpu, const sw *s)
{
    pf_cpu *c = NULL;
    const int rc = cpu_get(pf, cpu, &c);
    if (rc != PF_OK || c == NULL) {
        return rc != PF_OK ? rc : PF_FATAL;
    }
    if (c->running && s->ts < c->since) {
        pf_count(pf, K_SWITCH_BACKWARDS, 1);
        return PF_OK;
    }
    if (c->running && running_state(pf, c, s->ts, s->prev_state, false) != PF_OK) {
        return PF_FATAL;
    }
    char *comm = malloc(s->next_comm_len + 1);
    if (comm == NULL) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory");
    }
    if (s->next_comm_len > 0) {
        memcpy(comm, s->next_comm, s->next_comm_len);
    }
    comm[s->next_comm_len] = '\0';
    free(c->comm);
    c->comm = comm;
    c->running = true;
    c->pid = s->next_pid;
    c->prio = s->next_prio;
    c->since = s->ts;
    pf_note_time(pf, s->ts);
    return PF_OK;
}

static int read_switch(pb_reader *r, const pb_field *f, sw *s)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    int rc;
    while ((rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == SS_NEXT_COMM && e.wire == PB_WIRE_LEN) {
            s->next_comm = e.data;
            s->next_comm_len = e.len;
        } else if (e.wire != PB_WIRE_VARINT) {
            continue;
        } else if (e.num == SS_PREV_STATE) {
            s->prev_state = (int64_t)e.value;
        } else if (e.num == SS_NEXT_PID) {
            s->next_pid = (int32_t)e.value;
        } else if (e.num == SS_NEXT_PRIO) {
            s->next_prio = (int32_t)e.value;
        }
    }
    return rc == PB_END ? PF_OK : PF_DAMAGED;
}

/* One FtraceEvent: counted by its event field; sched_switch applied. */
static int ftrace_event(pf_importer *pf, uint32_t cpu, pb_reader *r, const pb_field *f)
{
    pb_reader sub;
    pb_field e, payload = {0};
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    uint64_t ts = 0;
    int rc;
    while ((rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == FE_TIMESTAMP && e.wire == PB_WIRE_VARINT) {
            ts = e.value;
        } else if (e.num != FE_PID && e.num != FE_COMMON_FLAGS && payload.num == 0) {
            payload = e;
        }
    }
    if (rc != PB_END) {
        return PF_DAMAGED;
    }
    pf_count(pf, K_FTRACE_EVENTS, 1);
    pf->ftrace_kind[payload.num < 1024 ? payload.num : 1024]++;
    if (payload.num != FE_SCHED_SWITCH) {
        pf_note_time(pf, (int64_t)ts);
        return PF_OK;
    }
    pf_count(pf, K_SWITCH, 1);
    sw s;
    memset(&s, 0, sizeof s);
    s.ts = (int64_t)ts;
    rc = read_switch(&sub, &payload, &s);
    return rc == PF_OK ? apply_switch(pf, cpu, &s) : rc;
}

/* ---------------------------------------------------------- compact_sched */

typedef struct compact {
    pf_vec col[5]; /* ts deltas, prev_state, next_pid, next_prio, comm index */
    const uint8_t *intern[1024];
    size_t intern_len[1024];
    size_t nintern;
    uint64_t waking;
} compact;

static int compact_column(pf_importer *pf, compact *c, const pb_field *e)
{
    static const uint32_t nums[5] = {CS_SWITCH_TS, CS_PREV_STATE, CS_NEXT_PID, CS_NEXT_PRIO,
                                     CS_NEXT_COMM};
    pb_packed it;
    uint64_t x;
    for (int k = 0; k < 5; k++) {
        if (e->num != nums[k]) {
            continue;
        }
        int rc = pb_packed_init(&it, e, PB_WIRE_VARINT);
        while (rc == PB_OK && (rc = pb_packed_next(&it, &x)) == PB_OK) {
            if (pf_vec_push(&c->col[k], x) != 0) {
                return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory");
            }
        }
        return rc == PB_END ? PF_OK : PF_DAMAGED;
    }
    if (e->num == CS_INTERN && e->wire == PB_WIRE_LEN && c->nintern < 1024) {
        c->intern[c->nintern] = e->data;
        c->intern_len[c->nintern++] = e->len;
    } else if (e->num == CS_WAKING_TS && pb_packed_init(&it, e, PB_WIRE_VARINT) == PB_OK) {
        while (pb_packed_next(&it, &x) == PB_OK) {
            c->waking++;
        }
    }
    return PF_OK;
}

static int compact_apply(pf_importer *pf, uint32_t cpu, const compact *c)
{
    const size_t n = c->col[0].n;
    for (int k = 1; k < 5; k++) {
        if (c->col[k].n != n) {
            pf_count(pf, K_COMPACT_BAD, 1);
            return PF_OK;
        }
    }
    int64_t ts = 0;
    for (size_t i = 0; i < n; i++) {
        ts += (int64_t)c->col[0].v[i];
        const uint64_t ci = c->col[4].v[i];
        const sw s = {ts, (int64_t)c->col[1].v[i], (int32_t)c->col[2].v[i],
                      (int32_t)c->col[3].v[i], ci < c->nintern ? c->intern[ci] : NULL,
                      ci < c->nintern ? c->intern_len[ci] : 0};
        pf_count(pf, K_COMPACT_SWITCH, 1);
        pf_count(pf, K_SWITCH, 1);
        const int rc = apply_switch(pf, cpu, &s);
        if (rc != PF_OK) {
            return rc;
        }
    }
    pf_count(pf, K_COMPACT_WAKING, c->waking);
    return PF_OK;
}

static int compact_sched(pf_importer *pf, uint32_t cpu, pb_reader *r, const pb_field *f)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    compact *c = calloc(1, sizeof *c);
    if (c == NULL) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory");
    }
    int rc, st = PF_OK;
    while (st == PF_OK && (rc = pb_next(&sub, &e)) == PB_OK) {
        st = compact_column(pf, c, &e);
    }
    if (st == PF_OK) {
        st = rc == PB_END ? compact_apply(pf, cpu, c) : PF_DAMAGED;
    }
    for (int k = 0; k < 5; k++) {
        free(c->col[k].v);
    }
    free(c);
    return st;
}

int pf_ftrace_bundle(pf_importer *pf, pb_reader *r, const pb_field *f)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    uint32_t cpu = 0;
    pb_reader scan = sub;
    int rc;
    while ((rc = pb_next(&scan, &e)) == PB_OK) {
        if (e.num == FB_CPU && e.wire == PB_WIRE_VARINT) {
            cpu = (uint32_t)(e.value < MAX_CPUS ? e.value : MAX_CPUS);
        } else if (e.num == FB_LOST && e.wire == PB_WIRE_VARINT && e.value != 0) {
            pf_count(pf, K_FTRACE_LOST, 1);
        }
    }
    if (rc != PB_END) {
        return PF_DAMAGED;
    }
    int st = PF_OK;
    while (st == PF_OK && pb_next(&sub, &e) == PB_OK) {
        if (e.num == FB_EVENT && e.wire == PB_WIRE_LEN) {
            st = ftrace_event(pf, cpu, &sub, &e);
        } else if (e.num == FB_COMPACT && e.wire == PB_WIRE_LEN) {
            st = compact_sched(pf, cpu, &sub, &e);
        }
    }
    return st;
}

int pf_ftrace_finish(pf_importer *pf)
{
    for (uint32_t i = 0; i < pf->ncpus; i++) {
        pf_cpu *c = &pf->cpus[i];
        if (c->running && c->pid != 0) {
            pf_count(pf, K_SWITCH_OPEN, 1);
        }
        if (c->running && running_state(pf, c, pf->t_max, 0, true) != PF_OK) {
            return PF_FATAL;
        }
        c->running = false;
    }
    return PF_OK;
}

void pf_ftrace_free(pf_importer *pf)
{
    for (uint32_t i = 0; i < pf->ncpus; i++) {
        free(pf->cpus[i].comm);
    }
    free(pf->cpus);
}
