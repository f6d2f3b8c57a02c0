# a gzip file cut after 100 bytes: the read error (with its byte) is reported,
# not "Cannot recognise the input format"; exit 1
head -c 100 "$CLI_DIR/../../tests/data/demo/chrome-69_simple.json" | gzip -c > full.json.gz
head -c 30 full.json.gz > cut.json.gz
"$SLOG_IMPORT" cut.json.gz -o out.slog
