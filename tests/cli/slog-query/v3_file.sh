# A format version 3 file (tests/data/slog/v3, written before format 4 added
# the chunks' file addresses to /nodes) still opens and answers exactly what
# it answered when it was written, with v2_file.sh's checks.
OLD_FORMAT=v3 source "$CLI_DIR/slog-query/v2_file.sh"
