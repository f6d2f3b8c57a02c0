# An index whose input file is gone: every way of reading it fails naming that
# file (--stats, --top and --find said only "Cannot open file: No such file
# or directory", not which one, nor did --format otf2; a window query said it)
"$SLOG_SYNTH" -q --states 2000 --timelines 2 --seed 1 -o a.slog
"$SLOG_SYNTH" -q --states 2000 --timelines 2 --seed 2 -o b.slog
"$SLOG_MERGE" -q --index a.slog b.slog -o ix.slog
rm b.slog
for how in "--stats" "--top 3" "--find compute --after 0" "--format jsonl" "--format otf2 -o o"; do
    # shellcheck disable=SC2086  # $how is several words on purpose
    "$SLOG_QUERY" ix.slog $how > /dev/null 2> err
    echo "$how: exit $?, $(grep -c "in .*/b\.slog)" err) line(s) naming b.slog"
done
