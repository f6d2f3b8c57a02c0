# The launcher refuses what cannot be traced before the program runs, with
# one message each: -o naming a regular file, an unknown option, an option
# without its value; an earlier run's files in DIR are named.
# Under AddressSanitizer (SLOG_TRACE_TEST_PRELOAD) the traced programs get the
# ASan runtime first; their own leaks are not this test's subject.
if [ -n "${SLOG_TRACE_TEST_PRELOAD:-}" ]; then
    export LD_PRELOAD="$SLOG_TRACE_TEST_PRELOAD" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
fi
touch afile
"$SLOG_TRACE" -o afile -- sh -c 'echo ran'
echo "exit $?"
"$SLOG_TRACE" --bogus -- true
echo "exit $?"
"$SLOG_TRACE" -o
echo "exit $?"
"$SLOG_TRACE" -o run -- true
echo "exit $?"
"$SLOG_TRACE" -o run -- true
echo "exit $?"
