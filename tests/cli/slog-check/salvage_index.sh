# --salvage of an index is refused before anything is done, saying what to do
# instead (it failed after the scan with "An index's nodes are copies: query
# its input files' nodes", exit 3 as if OUT could not be written)
"$SLOG_SYNTH" --states 300 --seed 4 -q -o a.slog
"$SLOG_SYNTH" --states 300 --seed 5 -q -o b.slog
"$SLOG_MERGE" -q --index a.slog b.slog -o ix.slog
"$SLOG_CHECK" ix.slog --salvage -o out.slog
status=$?
ls
exit $status
