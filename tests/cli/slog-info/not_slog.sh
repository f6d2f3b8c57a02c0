# a text file is not a libslog file: exit 1, the slog_error fields in one line
echo "hello" > junk.txt
"$SLOG_INFO" junk.txt
