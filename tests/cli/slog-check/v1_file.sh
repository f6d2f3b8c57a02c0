# a format-1 file has no checksums: it is checked by its decoders only and
# says it is unverified
"$SLOG_CHECK" "$CLI_DIR/../data/slog/v1/synth.slog" | sed -n -e 's/^format: *//p' -e 's/^status: *//p'
