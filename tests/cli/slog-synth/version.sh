# --version names the tool and the library
"$SLOG_SYNTH" --version | sed -e 's/[0-9][0-9.]*/V/g'
