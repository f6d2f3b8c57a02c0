# a zip with two members is refused before anything is imported
"$SLOG_IMPORT" "$CLI_DIR/../data/chrome/n_zip_multi.zip" -o out.slog
