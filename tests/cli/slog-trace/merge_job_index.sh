# slog-trace merge of a job directory that also holds an index over its files
# (doc/MPI.md: after a crash, "slog-merge --index --allow-incomplete run.d -o
# run.d/index.slog", then "slog-trace merge run.d"): the index reads the rank
# files, so merged too it doubled every drawable and timeline.  It is left
# out and counted; the merge holds each rank's drawables once.
mkdir run.d
"$SLOG_SYNTH" -q --states 300 --timelines 2 --seed 1 -o run.d/rank-000000.slog
"$SLOG_SYNTH" -q --states 200 --timelines 2 --seed 2 -o run.d/rank-000001.slog
"$SLOG_MERGE" -q --index run.d -o run.d/index.slog
"$SLOG_TRACE" merge run.d -o all.slog 2> merge.err
echo "exit $?"
sed -e 's/ -> .*(/ -> all.slog (/' merge.err
drawables() { "$SLOG_INFO" --json "$1" | "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["drawables"])'; }
echo "ranks: $(( $(drawables run.d/rank-000000.slog) + $(drawables run.d/rank-000001.slog) )) drawables"
echo "merged: $(drawables all.slog) drawables"
