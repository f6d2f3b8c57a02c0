// SPDX-License-Identifier: MIT
//
// merge_header.cpp - <slog/slog_merge.h> from C++ with -Wpedantic -Werror:
// the options initialiser, std::atomic_int as the cancel flag (a merge
// cancelled before its first slice ends with SLOG_EINTR), a lambda as the
// progress callback, the summary.  Argument: a scratch directory.
#include <slog/slog.h>
#include <slog/slog_merge.h>

#include <atomic>
#include <cstdio>
#include <string>

int main(int argc, char **argv)
{
    const std::string dir = argc > 1 ? argv[1] : ".";
    const std::string in = dir + "/merge_header_in.slog";
    const std::string out = dir + "/merge_header_out.slog";
    slog_writer *w = nullptr;
    uint32_t tl = 0, cat = 0;
    if (slog_writer_create(&w, in.c_str(), nullptr, nullptr) != SLOG_OK ||
        slog_writer_add_timeline(w, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "t", 0, &tl, nullptr) ||
        slog_writer_add_category(w, SLOG_KIND_EVENT, "e", 0, nullptr, &cat, nullptr)) {
        return 1;
    }
    const slog_event e = {tl, cat, 5, 0, nullptr};
    const int wrc = slog_writer_append_event(w, &e, nullptr) || slog_writer_finish(w, nullptr);
    slog_writer_destroy(w);
    if (wrc != 0) {
        return 1;
    }
    const char *const inputs[] = {in.c_str()};
    slog_merge_options o = SLOG_MERGE_OPTIONS_INIT;
    uint64_t seen = 0;
    o.progress = [](uint64_t done, uint64_t, void *user) { *static_cast<uint64_t *>(user) = done; };
    o.user = &seen;
    slog_merge_summary s;
    if (slog_merge_files(inputs, 1, out.c_str(), &o, &s, nullptr) != SLOG_OK || s.events != 1 ||
        seen != 1) {
        return 1;
    }
    std::atomic_int stop(1);
    o.cancel = &stop;
    const int rc = slog_merge_files(inputs, 1, out.c_str(), &o, &s, nullptr);
    std::remove(in.c_str());
    std::remove(out.c_str());
    return rc == SLOG_EINTR ? 0 : 1;
}
