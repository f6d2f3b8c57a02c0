/* SPDX-License-Identifier: MIT
 *
 * perfetto_counts.c - what happened to each kind of record of a Perfetto
 * trace: the fixed summary rows (text and outcome), the rows by TracePacket
 * field number and by ftrace event field number (named when the public
 * protos name them, "field N" otherwise), legacy phases; warnings and the
 * one fatal error.  Nothing is printed here: rows go to the count hook.
 * Import library, perfetto folder: public libslog headers, libc.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto.h"

static const struct {
    const char *what;
    int outcome;
} rows[K_COUNT] = {
    [K_PACKETS] = {"packets", PF_IMPORTED},
    [K_SEQUENCES] = {"packet sequences", PF_IMPORTED},
    [K_PACKET_DAMAGED] = {"packet damaged (skipped whole)", PF_SKIPPED},
    [K_PACKET_TRUNCATED] = {"packet truncated at end of input", PF_SKIPPED},
    [K_RESYNC_BYTES] = {"bytes skipped to resynchronise", PF_SKIPPED},
    [K_TRACE_FIELD] = {"Trace field other than packet", PF_SKIPPED},
    [K_NEEDS_STATE_DROPPED] = {"packet needing lost incremental state", PF_SKIPPED},
    [K_INTERNED_PACKETS] = {"packets with interned_data", PF_IMPORTED},
    [K_FLAG_CLEARED] = {"flag SEQ_INCREMENTAL_STATE_CLEARED", PF_IMPORTED},
    [K_FLAG_NEEDS] = {"flag SEQ_NEEDS_INCREMENTAL_STATE", PF_IMPORTED},
    [K_FLAG_CLEARED_BOOL] = {"flag incremental_state_cleared (bool)", PF_IMPORTED},
    [K_FLAG_DROPPED] = {"flag previous_packet_dropped", PF_IMPORTED},
    [K_FLAG_FIRST] = {"flag first_packet_on_sequence", PF_IMPORTED},
    [K_TS_NO_SNAPSHOT] = {"timestamp on a clock without snapshot (as BOOTTIME)",
                          PF_REPAIRED},
    [K_TS_NONE] = {"track_event without timestamp", PF_SKIPPED},
    [K_TD_PROCESS] = {"track_descriptor process", PF_IMPORTED},
    [K_TD_THREAD] = {"track_descriptor thread", PF_IMPORTED},
    [K_TD_COUNTER] = {"track_descriptor counter", PF_IMPORTED},
    [K_TD_OTHER] = {"track_descriptor other (async/custom)", PF_IMPORTED},
    [K_TD_REPEAT] = {"track_descriptor repeated uuid", PF_IMPORTED},
    [K_TL_DESCRIBED] = {"timeline for a track descriptor", PF_IMPORTED},
    [K_TL_PID] = {"timeline for a pid without descriptor", PF_IMPORTED},
    [K_TL_THREAD] = {"timeline for a thread without descriptor", PF_IMPORTED},
    [K_TL_SEQ] = {"timeline for a sequence without track", PF_IMPORTED},
    [K_TL_GLOBAL] = {"timeline for the global track (uuid 0)", PF_IMPORTED},
    [K_TL_UNDESCRIBED] = {"timeline for a uuid without descriptor", PF_REPAIRED},
    [K_TL_ASYNC] = {"timeline for a legacy async id", PF_IMPORTED},
    [K_TL_CPU] = {"timeline for a CPU (ftrace)", PF_IMPORTED},
    [K_TL_LCOUNTER] = {"timeline for a legacy counter", PF_IMPORTED},
    [K_TL_GPU] = {"timeline for GPU counters", PF_IMPORTED},
    [K_TE_BEGIN] = {"track_event TYPE_SLICE_BEGIN", PF_IMPORTED},
    [K_TE_END] = {"track_event TYPE_SLICE_END", PF_IMPORTED},
    [K_TE_INSTANT] = {"track_event TYPE_INSTANT", PF_IMPORTED},
    [K_TE_COUNTER] = {"track_event TYPE_COUNTER", PF_IMPORTED},
    [K_TE_UNSPEC] = {"track_event without type (legacy)", PF_IMPORTED},
    [K_TE_NOTYPE] = {"track_event without type or legacy phase", PF_SKIPPED},
    [K_NAME_IID] = {"name_iid references", PF_IMPORTED},
    [K_NAME_IID_UNRESOLVED] = {"name_iid not interned", PF_REPAIRED},
    [K_SLICE] = {"slice begin/end -> state", PF_IMPORTED},
    [K_SLICE_STRAY_END] = {"slice end without begin", PF_SKIPPED},
    [K_SLICE_OPEN] = {"slice begin never ended (closed at trace end)", PF_REPAIRED},
    [K_SLICE_BACKWARDS] = {"slice ending before its begin", PF_SKIPPED},
    [K_TOO_DEEP] = {"slice nested deeper than 100000 levels", PF_SKIPPED},
    [K_INSTANT] = {"instant -> event", PF_IMPORTED},
    [K_COUNTER] = {"counter value -> counter sample", PF_IMPORTED},
    [K_COUNTER_NOT_COUNTER_TRACK] = {"counter value on a non-counter track", PF_IMPORTED},
    [K_EXTRA_COUNTER] = {"extra_counter_values -> counter sample", PF_IMPORTED},
    [K_EXTRA_COUNTER_NOUUID] = {"extra counter value without track uuid", PF_SKIPPED},
    [K_ARGS] = {"debug annotation -> arg", PF_IMPORTED},
    [K_ARGS_BAD] = {"debug annotation without name or value", PF_SKIPPED},
    [K_FLOW_REF] = {"flow_ids references", PF_IMPORTED},
    [K_FLOW_OLD_REF] = {"flow_ids_old references", PF_IMPORTED},
    [K_FLOW_TERM_REF] = {"terminating_flow_ids references", PF_IMPORTED},
    [K_FLOW_ARROW] = {"flow -> arrow", PF_IMPORTED},
    [K_FLOW_REVERSED] = {"flow step earlier than its source (direction by time)",
                         PF_REPAIRED},
    [K_FLOW_TERM_STRAY] = {"terminating flow id never opened", PF_SKIPPED},
    [K_BIND_IDS] = {"legacy bind_id references", PF_IMPORTED},
    [K_BIND_DISTINCT] = {"legacy bind_id distinct ids", PF_IMPORTED},
    [K_BIND_ARROW] = {"legacy bind_id flow -> arrow", PF_IMPORTED},
    [K_BIND_STRAY_IN] = {"legacy FLOW_IN without FLOW_OUT", PF_SKIPPED},
    [K_L_X] = {"legacy X -> state", PF_IMPORTED},
    [K_L_BE] = {"legacy B/E -> state", PF_IMPORTED},
    [K_L_E_STRAY] = {"legacy E without B", PF_SKIPPED},
    [K_L_B_OPEN] = {"legacy B never ended (closed at trace end)", PF_REPAIRED},
    [K_L_INSTANT] = {"legacy I/R/O -> event", PF_IMPORTED},
    [K_L_ASYNC_INSTANT] = {"legacy n/T/p -> event on async timeline", PF_IMPORTED},
    [K_L_ASYNC] = {"legacy async b/e S/F -> state", PF_IMPORTED},
    [K_L_ASYNC_STRAY] = {"legacy async end without begin", PF_SKIPPED},
    [K_L_ASYNC_OPEN] = {"legacy async begin never ended (closed at trace end)", PF_REPAIRED},
    [K_L_ASYNC_IDS] = {"legacy async ids with begin/end", PF_IMPORTED},
    [K_L_COUNTER] = {"legacy C -> counter sample", PF_IMPORTED},
    [K_L_META] = {"legacy M metadata (not mapped)", PF_SKIPPED},
    [K_L_CONTEXT] = {"legacy ( ) context (not mapped)", PF_SKIPPED},
    [K_L_OTHER] = {"legacy phase not mapped", PF_SKIPPED},
    [K_FTRACE_EVENTS] = {"ftrace events", PF_IMPORTED},
    [K_FTRACE_LOST] = {"ftrace bundles with lost_events", PF_IMPORTED},
    [K_SWITCH] = {"sched_switch", PF_IMPORTED},
    [K_SWITCH_STATE] = {"sched_switch -> CPU state", PF_IMPORTED},
    [K_SWITCH_IDLE] = {"CPU idle (pid 0) periods (not drawn)", PF_SKIPPED},
    [K_SWITCH_OPEN] = {"CPU state running at trace end (closed there)", PF_REPAIRED},
    [K_SWITCH_BACKWARDS] = {"sched_switch earlier than the previous on its CPU",
                            PF_SKIPPED},
    [K_COMPACT_SWITCH] = {"compact_sched switch", PF_IMPORTED},
    [K_COMPACT_WAKING] = {"compact_sched waking (not drawn)", PF_SKIPPED},
    [K_COMPACT_BAD] = {"compact_sched with unequal columns", PF_SKIPPED},
    [K_GPU_VALUES] = {"gpu counter value -> counter sample", PF_IMPORTED},
    [K_GPU_SPECS] = {"gpu counter descriptor specs", PF_IMPORTED},
};

/* TracePacket fields of the public protos, by number (the `data` oneof and
 * the Android out-of-tree extensions). */
static const struct {
    uint16_t num;
    const char *name;
} packet_names[] = {
    {1, "ftrace_events"}, {2, "process_tree"}, {4, "inode_file_map"}, {5, "chrome_events"},
    {6, "clock_snapshot"}, {7, "sys_stats"}, {9, "process_stats"}, {11, "track_event"},
    {33, "trace_config"}, {34, "ftrace_stats"}, {35, "trace_stats"}, {36, "synchronization_marker"},
    {37, "profile_packet"}, {38, "battery"}, {39, "android_log"}, {40, "power_rails"},
    {43, "process_descriptor"}, {44, "thread_descriptor"}, {45, "system_info"}, {46, "trigger"},
    {47, "packages_list"}, {48, "chrome_benchmark_metadata"}, {49, "perfetto_metatrace"},
    {50, "compressed_packets"}, {51, "chrome_metadata"}, {52, "gpu_counter_event"},
    {53, "gpu_render_stage_event"}, {54, "streaming_profile_packet"}, {56, "heap_graph"},
    {57, "graphics_frame_event"}, {60, "track_descriptor"}, {61, "module_symbols"},
    {62, "vulkan_memory_event"}, {63, "gpu_log"}, {64, "deobfuscation_mapping"},
    {65, "vulkan_api_event"}, {66, "perf_sample"}, {67, "cpu_info"}, {68, "smaps_packet"},
    {69, "service_event"}, {70, "initial_display_state"}, {71, "gpu_mem_total_event"},
    {72, "extension_descriptor"}, {73, "memory_tracker_snapshot"}, {74, "streaming_allocation"},
    {75, "streaming_free"}, {76, "frame_timeline_event"}, {77, "android_energy_estimation"},
    {78, "ui_state"}, {82, "translation_table"}, {83, "android_game_intervention_list"},
    {84, "statsd_atom"}, {86, "android_system_property"}, {88, "network_packet"},
    {89, "trace_uuid"}, {90, "track_event_range_of_interest"}, {91, "entity_state_residency"},
    {92, "network_packet_bundle"}, {93, "surfaceflinger_layers_snapshot"},
    {94, "surfaceflinger_transactions"}, {95, "etw_events"}, {96, "shell_transition"},
    {97, "shell_handler_mappings"}, {104, "protolog_message"}, {105, "protolog_viewer_config"},
    {109, "chrome_trigger"}, {112, "winscope_extensions"}, {900, "for_testing"},
};

static const struct {
    uint16_t num;
    const char *name;
} ftrace_names[] = {
    {3, "print"}, {4, "sched_switch"}, {11, "cpu_frequency"}, {12, "cpu_frequency_limits"},
    {13, "cpu_idle"}, {17, "sched_wakeup"}, {18, "sched_blocked_reason"}, {20, "sched_waking"},
    {24, "softirq_entry"}, {25, "softirq_exit"}, {36, "irq_handler_entry"},
    {37, "irq_handler_exit"}, {97, "mm_filemap_add_to_page_cache"},
    {98, "mm_filemap_delete_from_page_cache"}, {114, "sched_wakeup_new"},
    {235, "task_newtask"}, {236, "task_rename"}, {237, "sched_process_exec"},
    {238, "sched_process_exit"}, {239, "sched_process_fork"}, {240, "sched_process_free"},
    {241, "sched_process_hang"}, {242, "sched_process_wait"}, {326, "oom_score_adj_update"},
};

const char *pf_packet_field_name(uint32_t num)
{
    for (size_t i = 0; i < sizeof packet_names / sizeof packet_names[0]; i++) {
        if (packet_names[i].num == num) {
            return packet_names[i].name;
        }
    }
    return NULL;
}

const char *pf_ftrace_field_name(uint32_t num)
{
    for (size_t i = 0; i < sizeof ftrace_names / sizeof ftrace_names[0]; i++) {
        if (ftrace_names[i].num == num) {
            return ftrace_names[i].name;
        }
    }
    return NULL;
}

void pf_count(pf_importer *pf, pf_kcount k, uint64_t n)
{
    pf->counts[k] += n;
}

static void report_row(pf_importer *pf, const char *what, int outcome, uint64_t n)
{
    if (n > 0 && pf->hooks.count != NULL) {
        pf->hooks.count(pf->hooks.user, what, outcome, n);
    }
}

/* Rows by field number: "packet 11 track_event" (mapped kinds imported). */
static void report_fields(pf_importer *pf, const uint64_t *counts, const char *prefix,
                          const char *(*name_of)(uint32_t), bool (*mapped)(uint32_t))
{
    char what[96];
    for (uint32_t i = 0; i <= 1024; i++) {
        if (counts[i] == 0) {
            continue;
        }
        const char *name = i < 1024 ? name_of(i) : NULL;
        if (i == 1024) {
            (void)snprintf(what, sizeof what, "%s field >= 1024", prefix);
        } else {
            (void)snprintf(what, sizeof what, "%s %u %s", prefix, i,
                           name != NULL ? name : "(not in the public protos)");
        }
        report_row(pf, what, mapped(i) ? PF_IMPORTED : PF_SKIPPED, counts[i]);
    }
}

static bool packet_mapped(uint32_t num)
{
    return num == 0 || num == 1 || num == 6 || num == 11 || num == 43 || num == 44 ||
           num == 52 || num == 60;
}

static bool ftrace_mapped(uint32_t num)
{
    return num == 4;
}

static const char *packet_kind_name(uint32_t num)
{
    return num == 0 ? "without payload (flags, defaults or interned data only)"
                    : pf_packet_field_name(num);
}

void pf_report(pf_importer *pf)
{
    for (int k = 0; k < K_COUNT; k++) {
        report_row(pf, rows[k].what, rows[k].outcome, pf->counts[k]);
    }
    report_fields(pf, pf->packet_kind, "packet", packet_kind_name, packet_mapped);
    report_fields(pf, pf->ftrace_kind, "ftrace", pf_ftrace_field_name, ftrace_mapped);
    char what[64];
    for (int c = 0; c < 256; c++) {
        if (pf->legacy_phase[c] > 0) {
            (void)snprintf(what, sizeof what, "legacy phase %c", c > 32 && c < 127 ? c : '?');
            report_row(pf, what, PF_IMPORTED, pf->legacy_phase[c]);
        }
    }
}

void pf_warn(pf_importer *pf, uint64_t offset, const char *fmt, ...)
{
    if (pf->hooks.warn == NULL) {
        return;
    }
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above; analyzer false positive
    (void)vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pf->hooks.warn(pf->hooks.user, offset, msg);
}

int pf_fail(pf_importer *pf, int code, uint64_t offset, const char *fmt, ...)
{
    if (pf->err != NULL && pf->err->code == SLOG_OK) {
        pf->err->code = code;
        pf->err->offset = offset;
        va_list ap;
        va_start(ap, fmt);
        // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above; false positive
        (void)vsnprintf(pf->err->message, sizeof pf->err->message, fmt, ap);
        va_end(ap);
    }
    return PF_FATAL;
}

int pf_writer_failed(pf_importer *pf, const slog_error *werr)
{
    return pf_fail(pf, werr->code, UINT64_MAX, "Failed to write: %s", werr->message);
}

int pf_vec_push(pf_vec *v, uint64_t x)
{
    if (v->n == v->cap) {
        const size_t cap = v->cap ? v->cap * 2 : 16;
        uint64_t *p = realloc(v->v, cap * sizeof *p);
        if (p == NULL) {
            return -1;
        }
        v->v = p;
        v->cap = cap;
    }
    v->v[v->n++] = x;
    return 0;
}
