#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# perfetto_corpus.py - TAP test of the Perfetto importer on the real traces of
# ../shared/corpus/perfetto: every file imports (autodetected, and with
# --format perfetto), and every count of REFERENCE_COUNTS.json (written by an
# independent decoder, see SOURCES.md) equals what the import summary
# reports; the drawables in the .slog file (counted back through the reader
# API by slog_counts) equal the reference's slices, spans, flows and
# counter values, and the timelines equal the summary's timeline rows.
# Usage: perfetto_corpus.py SLOG_IMPORT SLOG_COUNTS CORPUS_DIR
# Exit 77 (skipped) when the corpus is absent.
import json
import os
import subprocess
import sys
import tempfile

PACKET_FIELDS = {  # reference packet kind name -> TracePacket field number
    "ftrace_events": 1, "process_tree": 2, "chrome_events": 5, "clock_snapshot": 6,
    "sys_stats": 7, "process_stats": 9, "track_event": 11, "trace_config": 33,
    "ftrace_stats": 34, "trace_stats": 35, "synchronization_marker": 36, "android_log": 39,
    "system_info": 45, "chrome_metadata": 51, "gpu_counter_event": 52,
    "track_descriptor": 60, "perf_sample": 66, "service_event": 69,
    "extension_descriptor": 72,
}
FLAGS = {
    "SEQ_INCREMENTAL_STATE_CLEARED": "flag SEQ_INCREMENTAL_STATE_CLEARED",
    "SEQ_NEEDS_INCREMENTAL_STATE": "flag SEQ_NEEDS_INCREMENTAL_STATE",
    "previous_packet_dropped": "flag previous_packet_dropped",
    "incremental_state_cleared(bool)": "flag incremental_state_cleared (bool)",
    "first_packet_on_sequence": "flag first_packet_on_sequence",
}
TYPES = {
    "TYPE_SLICE_BEGIN": "track_event TYPE_SLICE_BEGIN",
    "TYPE_SLICE_END": "track_event TYPE_SLICE_END",
    "TYPE_INSTANT": "track_event TYPE_INSTANT",
    "TYPE_COUNTER": "track_event TYPE_COUNTER",
    "TYPE_UNSPECIFIED(field absent)": "track_event without type (legacy)",
}

n = 0
failed = 0


def check(desc, got, want):
    global n, failed
    n += 1
    if got == want:
        print(f"ok {n} - {desc}: {got}")
    else:
        failed += 1
        print(f"not ok {n} - {desc}: got {got}, want {want}")


class Summary:
    def __init__(self, records):
        self.rows = {r["what"]: r["imported"] + r["skipped"] + r["repaired"] for r in records}

    def get(self, what):
        return self.rows.get(what, 0)

    def prefix(self, start):
        """Total of the rows whose text starts with `start`."""
        return sum(v for k, v in self.rows.items() if k.startswith(start))


def import_file(tool, path, out, fmt):
    args = [tool, "--json", path, "-o", out] + (["--format", fmt] if fmt else [])
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check_packets(name, ref, s):
    check(f"{name} packets", s.get("packets"), ref["packets"])
    check(f"{name} sequences", s.get("packet sequences"), ref["sequences"])
    no_payload = 0
    for kind, count in ref["packet_kinds"].items():
        if kind.startswith("("):
            if kind != "(unmodeled payload field)":
                no_payload += count
            continue
        check(f"{name} packet kind {kind}", s.prefix(f"packet {PACKET_FIELDS[kind]} "), count)
    for field, count in ref.get("unmodeled_packet_fields", {}).items():
        num = field.split(":")[0]
        check(f"{name} packet field {field}", s.prefix(f"packet {num} "), count)
    check(f"{name} packets without payload", s.prefix("packet 0 "), no_payload)
    for flag, count in ref["sequence_flags"].items():
        check(f"{name} {flag}", s.get(FLAGS[flag]), count)
    check(f"{name} packets with interned_data", s.get("packets with interned_data"),
          ref["meta"].get("packets_with_interned_data", 0))


def check_track_events(name, ref, s):
    te = ref["track_event"]
    for t, count in te["by_type"].items():
        check(f"{name} {t}", s.get(TYPES[t]), count)
    for ph, count in te["legacy_phase"].items():
        check(f"{name} legacy phase {ph}", s.get(f"legacy phase {ph}"), count)
    check(f"{name} name_iid refs", s.get("name_iid references"), te["name_iid_refs"])
    check(f"{name} name_iid unresolved", s.get("name_iid not interned"), te["name_iid_unresolved"])
    check(f"{name} extra counter values", s.get("extra_counter_values -> counter sample"),
          te["extra_counter_values"])
    sl = ref["slices"]
    check(f"{name} slices matched", s.get("slice begin/end -> state"), sl["matched_begin_end"])
    check(f"{name} slice end without begin", s.get("slice end without begin"), sl["unmatched_end"])
    check(f"{name} slice begin never ended",
          s.get("slice begin never ended (closed at trace end)"), sl["unclosed_begin"])
    check(f"{name} legacy async matched", s.get("legacy async b/e S/F -> state"),
          sl["legacy_async_matched(b/e,S/F)"])
    check(f"{name} legacy async unmatched end", s.get("legacy async end without begin"),
          sl["legacy_async_unmatched_end"])
    check(f"{name} legacy async unclosed",
          s.get("legacy async begin never ended (closed at trace end)"), sl["legacy_async_unclosed"])
    check(f"{name} legacy async ids", s.get("legacy async ids with begin/end"),
          sl["legacy_async_ids"])


def check_flows_tracks(name, ref, s):
    fl = ref["flows"]
    check(f"{name} flow_ids refs", s.get("flow_ids references"), fl["flow_id_refs"])
    check(f"{name} flow_ids_old refs", s.get("flow_ids_old references"), fl["flow_ids_old_refs"])
    check(f"{name} terminating refs", s.get("terminating_flow_ids references"),
          fl["terminating_flow_id_refs"])
    check(f"{name} flow arrows", s.get("flow -> arrow"), fl["flow_arrows"])
    check(f"{name} legacy bind ids", s.get("legacy bind_id distinct ids"), fl["legacy_bind_ids"])
    check(f"{name} legacy bind refs", s.get("legacy bind_id references"),
          sum(fl["legacy_flow_direction"].values()))
    check(f"{name} legacy bind arrows", s.get("legacy bind_id flow -> arrow"),
          fl["legacy_flow_arrows(approx)"])
    td = ref["track_descriptors"]
    for kind, row in (("process", "process"), ("thread", "thread"), ("counter", "counter"),
                      ("other", "other (async/custom)")):
        check(f"{name} track descriptors {kind}", s.get(f"track_descriptor {row}"), td[kind])
    gpu = ref.get("gpu_counters", {"values": 0, "descriptor_specs": 0})
    check(f"{name} gpu counter values", s.get("gpu counter value -> counter sample"), gpu["values"])
    check(f"{name} gpu counter specs", s.get("gpu counter descriptor specs"),
          gpu["descriptor_specs"])
    ft = ref["ftrace_events"]
    check(f"{name} ftrace events", s.get("ftrace events"), ft["total"])
    for ev, count in ft.items():
        if ev != "total":
            check(f"{name} ftrace {ev}", sum(v for k, v in s.rows.items()
                                             if k.startswith("ftrace ") and k.endswith(" " + ev)),
                  count)


def check_file(name, ref, s, counts):
    """What the .slog file holds against the reference and the summary."""
    sl, fl = ref["slices"], ref["flows"]
    states = (sl["matched_begin_end"] + sl["unclosed_begin"] + sl["legacy_async_matched(b/e,S/F)"]
              + sl["legacy_async_unclosed"] + s.get("sched_switch -> CPU state")
              + s.get("CPU state running at trace end (closed there)"))
    check(f"{name} states in the file", counts["states"], states)
    check(f"{name} arrows in the file", counts["arrows"],
          fl["flow_arrows"] + fl["legacy_flow_arrows(approx)"])
    te = ref["track_event"]
    by_type = te["by_type"]
    events = (by_type.get("TYPE_INSTANT", 0) + sum(te["legacy_phase"].get(p, 0) for p in "IiROnTp"))
    check(f"{name} events in the file", counts["events"], events)
    counters = (te["extra_counter_values"] + ref.get("gpu_counters", {}).get("values", 0)
                + s.get("legacy C -> counter sample") + s.get("counter value -> counter sample"))
    check(f"{name} counter samples in the file", counts["counters"], counters)
    check(f"{name} timelines in the file", counts["timelines"], s.prefix("timeline for "))
    check(f"{name} file complete", counts["complete"], True)


def main(argv):
    if len(argv) != 4:
        print("usage: perfetto_corpus.py SLOG_IMPORT SLOG_COUNTS CORPUS_DIR", file=sys.stderr)
        return 2
    tool, counter, corpus = argv[1], argv[2], os.path.join(argv[3], "perfetto")
    ref_path = os.path.join(corpus, "REFERENCE_COUNTS.json")
    if not os.path.exists(ref_path):
        print(f"1..0 # SKIP no corpus at {corpus}")
        return 77
    with open(ref_path) as f:
        refs = json.load(f)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.slog")
        for ref in refs:
            name = ref["file"]
            path = os.path.join(corpus, name)
            for fmt in ("", "perfetto"):
                rc, stdout, stderr = import_file(tool, path, out, fmt)
                check(f"{name} imports ({'--format ' + fmt if fmt else 'detected'})",
                      (rc, stderr.strip()[:200]), (0, ""))
            s = Summary(json.loads(stdout)["records"])
            counts = json.loads(subprocess.run([counter, out], capture_output=True,
                                               text=True).stdout)
            check_packets(name, ref, s)
            check_track_events(name, ref, s)
            check_flows_tracks(name, ref, s)
            check_file(name, ref, s, counts)
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
