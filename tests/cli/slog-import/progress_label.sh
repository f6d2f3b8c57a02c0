# --progress names the input by the end of its path, where the file name is
# (a long path showed its first 40 bytes: "a-rather-long-directory-name-for-the-tra")
d=a-rather-long-directory-name-for-the-trace-files/and-another-level
mkdir -p "$d"
cp "$CLI_DIR/../data/chrome/y_async.json" "$d/my_trace_file.json"
"$SLOG_IMPORT" --progress -q "$d/my_trace_file.json" -o p.slog 2> err
echo "exit $?"
# the label: what each redraw prints between the carriage return and " ["
tr '\r' '\n' < err | sed -n 's/^\(.*\) \[[#.]*\].*/\1/p' | sort -u
cp "$CLI_DIR/../data/chrome/y_async.json" short.json
"$SLOG_IMPORT" --progress -q short.json -o s.slog 2> err
tr '\r' '\n' < err | sed -n 's/^\(.*\) \[[#.]*\].*/\1/p' | sort -u
