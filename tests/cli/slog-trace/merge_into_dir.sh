# slog-trace merge DIR -o DIR/all.slog, as a user keeps a run together: run
# again, the first merge's output was merged as one more process (every
# drawable twice), and a merge onto an existing DIR/all.slog read the file
# it was writing (with a Python tracing file: an incomplete input, which
# marked the output incomplete) or refused to overwrite it (without one).
# An earlier merge's output and the output file itself are left out.
drawables() { "$SLOG_INFO" --json "$1" | "$PYTHON" -c 'import json, sys; d = json.load(sys.stdin); print(d["drawables"], "complete" if d["complete"] else "incomplete")'; }
for d in run.d py.d; do
    mkdir $d
    "$SLOG_SYNTH" -q --states 300 --timelines 2 --seed 1 -o $d/host-100.slog
    "$SLOG_SYNTH" -q --states 200 --timelines 2 --seed 2 -o $d/host-101.slog
done
"$SLOG_SYNTH" -q --states 100 --timelines 1 --seed 3 -o py.d/host-100-python.slog
for d in run.d py.d; do
    for out in all.slog all.slog again.slog; do
        "$SLOG_TRACE" merge $d -o "$d/$out" 2> merge.err
        echo "exit $? -> $d/$out: $(drawables "$d/$out")"
        sed -e 's/ -> .*(/ -> OUT (/' merge.err
    done
done
exit 0
