# Usage errors: exit 2 with a one-line hint.
"$SLOG_SYNTH" -q --states 10 --timelines 1 -o a.slog
"$SLOG_MERGE"; echo "exit $?"
"$SLOG_MERGE" a.slog; echo "exit $?"
"$SLOG_MERGE" a.slog -o out.slog --offset a.slog=1.5; echo "exit $?"
"$SLOG_MERGE" a.slog -o out.slog --label z.slog=x; echo "exit $?"
"$SLOG_MERGE" a.slog -o out.slog --slice 0s; echo "exit $?"
"$SLOG_MERGE" a.slog -o out.slog --bogus; echo "exit $?"
mkdir empty
"$SLOG_MERGE" empty -o out.slog; echo "exit $?"
ls
