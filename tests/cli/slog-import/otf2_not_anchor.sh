# OTF2 inputs libotf2 cannot open say why, in slog-import's words (was:
# libotf2's "This no valid file extension! (Parameter value out of range)"
# and "Cannot open OTF2 archive: -"): a file that is no anchor file, an
# anchor file not named *.otf2, a pipe, a path that does not exist.
demo="$CLI_DIR/../data/demo/sst-macro-otf2"
"$SLOG_IMPORT" -q -f otf2 "$CLI_DIR/../data/chrome/y_async.json" -o a.slog 2> e1
echo "not an anchor: exit $?"
cp "$demo/traces.otf2" anchor.bin
"$SLOG_IMPORT" -q -f otf2 anchor.bin -o b.slog 2> e2
echo "anchor.bin: exit $?"
"$SLOG_IMPORT" -q - -o c.slog < "$demo/traces.otf2" 2> e3
echo "pipe: exit $?"
"$SLOG_IMPORT" -q -f otf2 gone.otf2 -o d.slog 2> e4
echo "missing: exit $?"
"$SLOG_IMPORT" -q "$demo" -o ok.slog && echo "the archive's directory: exit 0"
for e in e1 e2 e3 e4; do head -n 1 "$e" | sed -e "s|^slog-import: [^:]*/||"; done
