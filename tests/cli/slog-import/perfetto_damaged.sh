# A Perfetto trace with damage between good packets: garbage framing (bytes
# 14-15) and a packet cut by the end of the file (byte 30).  Both good
# packets import, each damage is a warning naming its byte, the file is
# complete.  Packet: timestamp, track_event {INSTANT, track 1, name "a"}.
pkt() { printf '\012\014\100'"$1"'\132\010\110\003\130\001\272\001\001'"$2"; }
{ pkt '\012' a; printf '\377\007'; pkt '\024' b; printf '\012\014\100\036\132'; } > t.pftrace
"$SLOG_IMPORT" --json -o out.slog t.pftrace > summary.json
echo "exit $?"
"$PYTHON" - <<'PY'
import json
rows = {r["what"]: r for r in json.load(open("summary.json"))["records"]}
for what in ("packets", "instant -> event", "bytes skipped to resynchronise",
             "packet truncated at end of input"):
    r = rows[what]
    print(what, r["imported"], r["skipped"], r["repaired"])
PY
"$SLOG_INFO" out.slog | grep -E '^(complete|drawables):'
