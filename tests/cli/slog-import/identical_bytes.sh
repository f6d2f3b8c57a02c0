# Identical input gives byte-identical files (doc/FORMAT.md): HDF5 object
# timestamps (1 s resolution) are off, so two runs a second apart compare
# equal byte for byte, for slog-import and slog-synth.
"$SLOG_IMPORT" -q "$CLI_DIR/../data/chrome/y_async.json" -o a.slog
"$SLOG_SYNTH" --states 2000 --seed 3 -q -o c.slog
sleep 1.1
"$SLOG_IMPORT" -q "$CLI_DIR/../data/chrome/y_async.json" -o b.slog
"$SLOG_SYNTH" --states 2000 --seed 3 -q -o d.slog
cmp a.slog b.slog && echo "import: identical"
cmp c.slog d.slog && echo "synth: identical"
