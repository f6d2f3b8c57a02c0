# '[' nested in the events array: the nesting cap of args (4096) applies,
# with an error, instead of memory growing with the stream (994 MB for a
# 1 GB stream, exit 0).  1 MiB of '[' through a pipe here; tests/hostile
# runs 64 MiB (1 GiB in the slow suite) with a peak-RSS limit.
{ printf '{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":1,"pid":1,"tid":1},'
  head -c 1048576 /dev/zero | tr '\0' '['; } | "$SLOG_IMPORT" -q - -o out.slog
echo "exit $?"
