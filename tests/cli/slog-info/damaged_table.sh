# a damaged table names itself: a byte of the /nodes object header, a byte of
# the deflated /strings chunk (both caught by HDF5, which said only "Cannot
# open dataset" and "Failed to read a table")
"$SLOG_SYNTH" --states 3000 --seed 4 -q -o t.slog
"$PYTHON" - <<'PY'
import os
import subprocess
regions = [l.split() for l in subprocess.check_output([os.environ["H5MAP"], "t.slog"]).decode().splitlines()]
data = open("t.slog", "rb").read()
for kind, name, off in (("ohdr", "nodes", 40), ("chunk", "strings", 20)):
    r = [x for x in regions if x[0] == kind and len(x) > 3 and x[3] == name][0]
    d = bytearray(data)
    d[int(r[1]) + off] ^= 0x40
    open("d_%s.slog" % name, "wb").write(d)
PY
for f in d_nodes.slog d_strings.slog; do
    # only the tool's own lines: an ASan build's LeakSanitizer adds its
    # report of HDF5's suppressed allocations to stderr
    "$SLOG_INFO" "$f" 2>&1 | grep '^slog-info:' | sed -e 's/ (HDF5: .*//'
done
exit 0
