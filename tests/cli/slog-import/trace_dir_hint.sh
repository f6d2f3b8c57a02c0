# slog-import of a directory slog-trace wrote (its manifest.jsonl there):
# the error says its files are libslog files and how to join them (it said
# only that the directory holds no OTF2, Recorder or DFTracer trace)
mkdir run
printf '{"file":"host-1.slog"}\n' > run/manifest.jsonl
"$SLOG_IMPORT" run -o out.slog
