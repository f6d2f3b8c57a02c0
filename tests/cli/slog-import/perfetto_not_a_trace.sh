# --format perfetto on a text file: exit 1, the message says from which byte
# the input does not follow the format and what was expected; the output is
# left incomplete.
printf '{"traceEvents": []}\n' > t.json
"$SLOG_IMPORT" -q --format perfetto -o out.slog t.json
echo "exit $?"
"$SLOG_INFO" out.slog | grep '^complete:'
