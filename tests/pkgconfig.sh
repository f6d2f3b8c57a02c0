#!/usr/bin/env bash
# Installs the build into a temporary DESTDIR and builds a small program
# against it with `pkg-config --cflags --libs slog` only; the program writes a
# trace and reads it back through the installed shared library.  Then the
# same for the import library (`pkg-config slog-import`, <slog/slog_import.h>):
# a program imports a Chrome trace held in memory; and for the merge library
# (`pkg-config slog-merge`, <slog/slog_merge.h>): a program merges two files.
# TAP output.
set -u
builddir=$1
sanitize=${2:-none}
san_flags=
if [ "$sanitize" != none ]; then
    san_flags="-fsanitize=$sanitize" # the installed library is instrumented too
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..7"
if DESTDIR="$tmp/root" meson install -C "$builddir" --no-rebuild >"$tmp/install.log" 2>&1; then
    echo "ok 1 - meson install into DESTDIR"
else
    echo "not ok 1 - meson install into DESTDIR"; sed 's/^/# /' "$tmp/install.log"; exit 1
fi
pc=$(find "$tmp/root" -name slog.pc | head -n 1)
prefix=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=prefix slog)
cat >"$tmp/prog.c" <<'C'
#include <slog/slog.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    (void)argc;
    slog_writer *w;
    slog_error err;
    uint32_t tl, cat;
    if (slog_writer_create(&w, argv[1], NULL, &err) != SLOG_OK ||
        slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t", 0, &tl, &err) ||
        slog_writer_add_category(w, SLOG_KIND_STATE, "work", 0, NULL, &cat, &err) ||
        slog_writer_begin(w, tl, cat, 10, NULL, 0, &err) || slog_writer_end(w, tl, 20, &err) ||
        slog_writer_finish(w, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    slog_writer_destroy(w);
    slog_reader *r;
    if (slog_reader_open(&r, argv[1], NULL, &err) != SLOG_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    const int ok = slog_reader_info(r)->states == 1 && slog_reader_info(r)->complete;
    printf("%s states=%llu\n", slog_version_string(),
           (unsigned long long)slog_reader_info(r)->states);
    slog_reader_destroy(r);
    return ok ? 0 : 1;
}
C
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-variable=prefix="$tmp/root$prefix" --cflags --libs slog)
if cc -std=c11 -Wall -Werror $san_flags -o "$tmp/prog" "$tmp/prog.c" $flags 2>"$tmp/cc.log"; then
    echo "ok 2 - compiles and links with: pkg-config --cflags --libs slog"
else
    echo "not ok 2 - compile with pkg-config flags ($flags)"; sed 's/^/# /' "$tmp/cc.log"; exit 1
fi
libdir=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-variable=prefix="$tmp/root$prefix" --variable=libdir slog)
if LD_LIBRARY_PATH=$libdir "$tmp/prog" "$tmp/t.slog" >"$tmp/run.log" 2>&1; then
    echo "ok 3 - the installed library writes and reads a trace: $(cat "$tmp/run.log")"
else
    echo "not ok 3 - run against the installed library"; sed 's/^/# /' "$tmp/run.log"; exit 1
fi

cat >"$tmp/imp.c" <<'C'
#include <slog/slog_import.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    (void)argc;
    static const char json[] = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}]";
    const slog_import_input in = {.name = "mem.json", .data = json, .size = strlen(json)};
    slog_import_summary *s = NULL;
    slog_error err;
    if (slog_import_file(&s, argv[1], &in, 1, NULL, &err) != SLOG_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    printf("%s imported=%llu\n", s->formats[0], (unsigned long long)s->imported);
    const int ok = s->complete && s->imported > 0;
    slog_import_summary_destroy(s);
    return ok ? 0 : 1;
}
C
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-variable=prefix="$tmp/root$prefix" --cflags --libs slog-import)
if cc -std=c11 -Wall -Werror $san_flags -o "$tmp/imp" "$tmp/imp.c" $flags 2>"$tmp/cc2.log"; then
    echo "ok 4 - compiles and links with: pkg-config --cflags --libs slog-import"
else
    echo "not ok 4 - compile with pkg-config slog-import flags ($flags)"; sed 's/^/# /' "$tmp/cc2.log"; exit 1
fi
if LD_LIBRARY_PATH=$libdir "$tmp/imp" "$tmp/i.slog" >"$tmp/run2.log" 2>&1; then
    echo "ok 5 - the installed import library imports a trace: $(cat "$tmp/run2.log")"
else
    echo "not ok 5 - run against the installed import library"; sed 's/^/# /' "$tmp/run2.log"; exit 1
fi

cat >"$tmp/merge.c" <<'C'
#include <slog/slog.h>
#include <slog/slog_merge.h>
#include <stdio.h>
static int one(const char *path, int64_t t)
{
    slog_writer *w;
    uint32_t tl, cat;
    if (slog_writer_create(&w, path, NULL, NULL) != SLOG_OK) {
        return 1;
    }
    const int rc = slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t", 0, &tl,
                                            NULL) ||
                   slog_writer_add_category(w, SLOG_KIND_STATE, "work", 0, NULL, &cat, NULL) ||
                   slog_writer_begin(w, tl, cat, t, NULL, 0, NULL) ||
                   slog_writer_end(w, tl, t + 10, NULL) || slog_writer_finish(w, NULL);
    slog_writer_destroy(w);
    return rc;
}
int main(int argc, char **argv)
{
    (void)argc;
    const char *const in[] = {argv[1], argv[2]};
    slog_merge_summary s;
    slog_error err;
    if (one(in[0], 10) || one(in[1], 20) ||
        slog_merge_files(in, 2, argv[3], NULL, &s, &err) != SLOG_OK) {
        fprintf(stderr, "%s: %s\n", err.source, err.message);
        return 1;
    }
    printf("merged states=%llu timelines=%u\n", (unsigned long long)s.states, s.timelines);
    return s.states == 2 && s.timelines == 4 ? 0 : 1;
}
C
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-variable=prefix="$tmp/root$prefix" --cflags --libs slog-merge)
if cc -std=c11 -Wall -Werror $san_flags -o "$tmp/merge" "$tmp/merge.c" $flags 2>"$tmp/cc3.log"; then
    echo "ok 6 - compiles and links with: pkg-config --cflags --libs slog-merge"
else
    echo "not ok 6 - compile with pkg-config slog-merge flags ($flags)"; sed 's/^/# /' "$tmp/cc3.log"; exit 1
fi
if LD_LIBRARY_PATH=$libdir "$tmp/merge" "$tmp/m1.slog" "$tmp/m2.slog" "$tmp/m.slog" >"$tmp/run3.log" 2>&1; then
    echo "ok 7 - the installed merge library merges two files: $(cat "$tmp/run3.log")"
else
    echo "not ok 7 - run against the installed merge library"; sed 's/^/# /' "$tmp/run3.log"; exit 1
fi
