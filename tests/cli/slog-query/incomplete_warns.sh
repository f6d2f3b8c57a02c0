# A file whose writer did not finish (an import that failed half way): the
# query prints what it holds on stdout, as for any file, and says that the
# file is incomplete in one warning line on stderr; a complete file gets
# no warning.
printf '[\n{"name":"a","ph":"X","pid":1,"tid":1,"ts":1,"dur":1},\n{"name":"b","ph":"X" "pid":1}\n]\n' > cut.json
"$SLOG_IMPORT" -q cut.json -o cut.slog 2>/dev/null
echo "import exit $?"
"$SLOG_QUERY" cut.slog -f csv --no-args
echo "exit $?"
"$SLOG_SYNTH" -q --states 10 -o done.slog
"$SLOG_QUERY" done.slog -f csv --no-args 2>done.err | wc -l
echo "complete file: $(wc -c < done.err) bytes on stderr"
