# the text report: every section, the timeline tree indented, capped lists
"$SLOG_SYNTH" --states 2000 --timelines 100 --seed 3 -q -o t.slog
"$SLOG_INFO" t.slog > out.txt
grep -c -E '^(file|format|complete|creator|clock|time range|drawables|tree|size|bytes/drawable):' out.txt
grep -E '^  process 0  \[process, id 0' out.txt | head -n 1 | cut -c1-27
grep -E '^    thread 0.0  \[thread' out.txt | cut -c1-23
grep -E '^  \.\.\. [0-9]+ more' out.txt | sed -e 's/[0-9]\+/N/'
"$SLOG_INFO" --all t.slog | grep -c 'more (--all' || true
