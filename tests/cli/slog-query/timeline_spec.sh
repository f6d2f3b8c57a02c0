# --timeline SPEC on a trace with two threads named CrRendererMain: an id
# (#3), a path from any ancestor ("pid 6/CrRendererMain"), a path from the
# top ("/pid 5/CrRendererMain"), a process name (its threads too); an
# ambiguous name lists every candidate with its id and path; an unknown id,
# name or path names the argument; each bad one exits 2
"$SLOG_IMPORT" -q "$CLI_DIR/slog-query/dup_threads.json" -o t.slog
q() {
    echo "-- $*"
    "$SLOG_QUERY" t.slog -f jsonl "$@" 2>&1 | sed -e 's/"category_id".*//'
    echo "exit ${PIPESTATUS[0]}"
}
q --timeline '#3'
q --timeline 'pid 6/CrRendererMain'
q --timeline '/pid 5/CrRendererMain'
q --timeline 'pid 6'
q --timeline '#1' --timeline Browser
q --timeline CrRendererMain
q --timeline '/CrRendererMain'
q --timeline 'pid 7/CrRendererMain'
q --timeline '#7'
q --timeline '#99999999999'
q --timeline '#'
