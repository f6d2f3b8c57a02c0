# repairs are warned with file:line:col and counted in the --json summary
"$SLOG_IMPORT" --json "$CLI_DIR/../data/chrome/y_trailing_comma.json" \
    "$CLI_DIR/../data/chrome/y_missing_bracket.json" -o out.slog |
    "$PYTHON" -c 'import json,sys
d = json.load(sys.stdin)
print("schema", d["schema"], "ok", d["ok"], "inputs", len(d["inputs"]), d["inputs"][0]["format"])
for r in d["records"]:
    print(r["what"], r["imported"], r["skipped"], r["repaired"])'
