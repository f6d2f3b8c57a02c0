// SPDX-License-Identifier: MIT
//
// import_header.cpp - the import API (slog_import.h) used from C++
// (-Wpedantic -Werror): its options struct with the C++ cancel flag
// (std::atomic_int), callbacks from captureless lambdas, detection, an
// import of a Chrome trace held in memory into a file that the reader then
// opens with the counts the summary gave, and a cancelled import.
// Exit 0 when all holds, 1 with a line saying what did not.
// Usage: import_header OUTPUT_DIR
#include <slog/slog.h>
#include <slog/slog_import.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

const char trace[] = "{\"traceEvents\":["
                     "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":5},"
                     "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":2,\"ts\":11,\"dur\":2},"
                     "{\"ph\":\"i\",\"name\":\"c\",\"pid\":1,\"tid\":3,\"ts\":12,\"s\":\"t\"}]}";

int fail(const char *what)
{
    std::fprintf(stderr, "import_header: %s\n", what);
    return 1;
}

bool lists_format(const char *name)
{
    for (const char *const *f = slog_import_formats(); *f != nullptr; f++) {
        if (std::strcmp(*f, name) == 0) {
            return true;
        }
    }
    return false;
}

// The import of the trace into path; its summary checked, then the file's.
int import_and_read(const std::string &path)
{
    std::atomic_int cancel(0);
    unsigned long counted = 0;
    slog_import_options opts = SLOG_IMPORT_OPTIONS_INIT;
    opts.cancel = &cancel;
    opts.user = &counted;
    opts.count = [](const char *, slog_import_outcome outcome, uint64_t n, void *user) {
        if (outcome == SLOG_IMPORT_IMPORTED) {
            *static_cast<unsigned long *>(user) += n;
        }
    };
    const slog_import_input in = {"memory.json", nullptr, nullptr, trace, sizeof trace - 1};
    slog_import_summary *s = nullptr;
    slog_error err;
    const int rc = slog_import_file(&s, path.c_str(), &in, 1, &opts, &err);
    const bool summary_ok = rc == SLOG_OK && s != nullptr && s->complete && s->ninputs == 1 &&
                            std::strcmp(s->formats[0], "chrome") == 0 &&
                            s->imported >= 3 && counted == s->imported;
    slog_import_summary_destroy(s);
    if (!summary_ok) {
        return fail(rc != SLOG_OK ? err.message : "the summary disagrees with the trace");
    }
    slog_reader *r = nullptr;
    if (slog_reader_open(&r, path.c_str(), nullptr, &err) != SLOG_OK) {
        return fail(err.message);
    }
    const slog_file_info *const fi = slog_reader_info(r);
    const bool file_ok = fi->states == 2 && fi->events == 1;
    slog_reader_destroy(r);
    return file_ok ? 0 : fail("the file holds other drawables than the trace");
}

// A cancel flag set before the call stops the import with SLOG_EINTR.
int cancelled(const std::string &path)
{
    std::atomic_int cancel(1);
    slog_import_options opts;
    slog_import_options_init(&opts);
    opts.cancel = &cancel;
    const slog_import_input in = {"memory.json", nullptr, nullptr, trace, sizeof trace - 1};
    slog_import_summary *s = nullptr;
    const int rc = slog_import_file(&s, path.c_str(), &in, 1, &opts, nullptr);
    slog_import_summary_destroy(s);
    return rc == SLOG_EINTR ? 0 : fail("a cancelled import did not end with SLOG_EINTR");
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        return fail("usage: import_header OUTPUT_DIR");
    }
    slog_import_options a = SLOG_IMPORT_OPTIONS_INIT;
    slog_import_options b;
    slog_import_options_init(&b);
    if (a.struct_size != sizeof a || b.struct_size != sizeof b || a.format != nullptr) {
        return fail("SLOG_IMPORT_OPTIONS_INIT and slog_import_options_init disagree");
    }
    if (!lists_format("chrome") || !lists_format("pfw") || !lists_format("perfetto")) {
        return fail("slog_import_formats misses chrome, pfw or perfetto");
    }
    const char *format = nullptr;
    if (slog_import_detect(&format, "memory.json", trace, sizeof trace - 1) != SLOG_OK ||
        format == nullptr || std::strcmp(format, "chrome") != 0) {
        return fail("a Chrome trace is not detected as chrome");
    }
    const std::string dir = argv[1];
    if (import_and_read(dir + "/import_header.slog") != 0) {
        return 1;
    }
    return cancelled(dir + "/import_header_cancelled.slog");
}
