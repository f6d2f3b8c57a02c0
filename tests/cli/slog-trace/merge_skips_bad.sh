# slog-trace merge: an empty directory is an error; in a directory with a
# process's trace, an empty file (a process that recorded nothing) and a
# damaged one, the good trace is merged, the empty file left out, the
# damaged one skipped with its error, and the exit status says so.
mkdir empty
"$SLOG_TRACE" merge empty -o none.slog
echo "exit $?"
test -e none.slog && echo "none.slog written"
"$SLOG_TRACE" -o run -- sh -c 'cat /dev/null'
: > run/zero.slog
echo "not a trace" > run/junk.slog
"$SLOG_TRACE" merge run -o all.slog
echo "exit $?"
"$SLOG_INFO" all.slog | grep '^complete:'
