/* SPDX-License-Identifier: MIT
 *
 * info_index.c - slog-info's part for an index file (slog_index.h): how
 * many inputs it joins, in what state (complete, incomplete, missing), and
 * per input its path, drawables, size when indexed and clock offset.  It
 * opens no input file: everything comes from the index's input table.
 */
#include "info_index.h"

#include <inttypes.h>
#include <stdio.h>

#include "units.h"

static const char *state_name(slog_index_input_state s)
{
    switch (s) {
    case SLOG_INDEX_INPUT_OK:
        return "ok";
    case SLOG_INDEX_INPUT_INCOMPLETE:
        return "incomplete";
    default:
        return "missing";
    }
}

static uint64_t drawables(const slog_index_input_info *in)
{
    return in->counts[0] + in->counts[1] + in->counts[2] + in->counts[3];
}

void info_index_text(const slog_reader *r, bool all, unsigned max_lines)
{
    const uint32_t n = slog_reader_index_inputs(r);
    if (n == 0) {
        return;
    }
    uint32_t missing = 0;
    uint32_t incomplete = 0;
    for (uint32_t i = 0; i < n; i++) {
        slog_index_input_info in;
        if (slog_reader_index_input(r, i, &in) == SLOG_OK) {
            missing += in.state == SLOG_INDEX_INPUT_MISSING;
            incomplete += in.state == SLOG_INDEX_INPUT_INCOMPLETE;
        }
    }
    slog_index_input_info first;
    const bool whole = slog_reader_index_input(r, 0, &first) == SLOG_OK && first.embedded;
    (void)printf("%s %" PRIu32 " input files (%" PRIu32 " incomplete, %" PRIu32 " missing), %s\n",
                 whole ? "copies of:      " : "index of:       ", n, incomplete, missing,
                 whole ? "copied whole: the inputs are not read" : "read on demand");
    for (uint32_t i = 0; i < n && (all || i < max_lines); i++) {
        slog_index_input_info in;
        if (slog_reader_index_input(r, i, &in) != SLOG_OK) {
            continue;
        }
        char b[64];
        (void)printf("  %s  [%s, %" PRIu64 " drawables, %s, offset %" PRId64 " ticks]\n", in.path,
                     state_name(in.state), drawables(&in),
                     units_format_bytes(in.file_bytes, b, sizeof b), in.offset);
    }
    if (!all && n > max_lines) {
        (void)printf("  ... %" PRIu32 " more (--all lists every input)\n", n - max_lines);
    }
}

void info_index_json(json_writer *j, const slog_reader *r)
{
    const uint32_t n = slog_reader_index_inputs(r);
    if (n == 0) {
        return;
    }
    json_key(j, "index");
    json_begin_object(j);
    json_key(j, "inputs");
    json_begin_array(j);
    for (uint32_t i = 0; i < n; i++) {
        slog_index_input_info in;
        if (slog_reader_index_input(r, i, &in) != SLOG_OK) {
            continue;
        }
        json_begin_object(j);
        json_kv_string(j, "path", in.path);
        json_kv_string(j, "state", state_name(in.state));
        json_kv_uint(j, "top_timeline", in.top_timeline);
        json_kv_int(j, "offset_ticks", in.offset);
        json_kv_uint(j, "drawables", drawables(&in));
        json_kv_uint(j, "file_bytes", in.file_bytes);
        json_kv_bool(j, "embedded", in.embedded);
        json_end_object(j);
    }
    json_end_array(j);
    json_end_object(j);
}
