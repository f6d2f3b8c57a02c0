# an OTF2 event file cut to its first bytes: libotf2's global event reader
# does not open and says only "This could not be done with the given
# memory"; the error names the event file and the record that cannot be
# read, as it does for a file cut later
cp -r "$CLI_DIR/../data/demo/sst-macro-otf2" a
chmod -R u+w a
head -c 20 "$CLI_DIR/../data/demo/sst-macro-otf2/traces/0.evt" > a/traces/0.evt
"$SLOG_IMPORT" -q a/traces.otf2 -o out.slog 2> err
echo "exit $?"
head -n 1 err | sed -e 's|^slog-import: [^:]*/a/|slog-import: a/|' -e 's|cannot be read: .*|cannot be read: ...|'
