# slog-trace merge of a job in which a process was killed (its file
# incomplete: here an import that failed half way stands for it): every
# drawable is merged, the file is named in a warning, counted on the summary
# line, and the output is marked incomplete (it was sealed: slog-info said
# "complete: yes" for the merge of a job whose ranks MPI_Abort killed).
# A merge of complete files stays complete.
if [ -n "${SLOG_TRACE_TEST_PRELOAD:-}" ]; then
    export LD_PRELOAD="$SLOG_TRACE_TEST_PRELOAD" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
fi
"$SLOG_TRACE" -o run -- sh -c 'echo one > /dev/null'
"$SLOG_TRACE" merge run -o whole.slog 2>/dev/null
echo "complete files: exit $?, $("$SLOG_INFO" whole.slog | grep '^complete:')"
printf '[\n{"name":"a","ph":"X","pid":1,"tid":1,"ts":1,"dur":1},\n{"name":"b","ph":"X" "pid":1}\n]\n' > cut.json
"$SLOG_IMPORT" -q cut.json -o run/cut.slog 2>/dev/null
"$SLOG_TRACE" merge run -o all.slog
echo "exit $?"
"$SLOG_INFO" all.slog | grep '^complete:'
whole=$("$SLOG_QUERY" whole.slog -f csv --no-args | tail -n +2 | wc -l)
all=$("$SLOG_QUERY" all.slog -f csv --no-args 2>/dev/null | tail -n +2 | wc -l)
echo "drawables added by the cut file: $((all - whole))"
