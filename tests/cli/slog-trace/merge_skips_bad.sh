# slog-trace merge: an empty directory is an error; in a directory with a
# process's trace, an empty file (a process that recorded nothing) and a
# damaged one, the good trace is merged, the empty file left out, the
# damaged one skipped with its error, and the exit status says so.
# Under AddressSanitizer (SLOG_TRACE_TEST_PRELOAD) the traced programs get the
# ASan runtime first; their own leaks are not this test's subject.
if [ -n "${SLOG_TRACE_TEST_PRELOAD:-}" ]; then
    export LD_PRELOAD="$SLOG_TRACE_TEST_PRELOAD" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
fi
mkdir empty
"$SLOG_TRACE" merge empty -o none.slog
echo "exit $?"
test -e none.slog && echo "none.slog written"
"$SLOG_TRACE" -o run -- sh -c 'echo one > /dev/null'
: > run/zero.slog
echo "not a trace" > run/junk.slog
"$SLOG_TRACE" merge run -o all.slog
echo "exit $?"
"$SLOG_INFO" all.slog | grep '^complete:'
