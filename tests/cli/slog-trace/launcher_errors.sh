# The launcher refuses what cannot be traced before the program runs, with
# one message each: -o naming a regular file, an unknown option, an option
# without its value; an earlier run's files in DIR are named.
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
