# --timeline with a name no timeline has: the error lists those whose name
# begins so, with id and path (a merged MPI job names its ranks "rank 0 (app
# pid 12)", and "rank 0" found nothing, with no hint)
"$SLOG_SYNTH" -q -n 1000 -t 4 -o s.slog
"$SLOG_QUERY" s.slog -t "thread 0"
