// SPDX-License-Identifier: MIT
//
// header_compile.cpp - the umbrella header compiles as C++ (-Wpedantic
// -Werror) and its functions link with C linkage; the RAII scope guard of
// slog_thread.h (slog::scope, SLOG_SCOPE) begins and ends a state.
#include <slog/slog.h>

#include <cstdio>
#include <cstring>
#include <ctime>

static int scope_guard_writes_a_state()
{
    char path[64];
    std::snprintf(path, sizeof path, "/tmp/header_compile_%ld.slog", static_cast<long>(std::clock()));
    slog_twriter *tw = nullptr;
    slog_location *loc = nullptr;
    uint32_t cat = 0;
    if (slog_twriter_create(&tw, path, nullptr, nullptr) != SLOG_OK ||
        slog_twriter_open_location(tw, SLOG_NO_PARENT, SLOG_TIMELINE_THREAD, "main", &loc,
                                   nullptr) != SLOG_OK ||
        slog_twriter_category(tw, SLOG_KIND_STATE, "scope", &cat, nullptr) != SLOG_OK) {
        return 1;
    }
    {
        SLOG_SCOPE(loc, cat);
        slog::scope inner(loc, cat);
        if (slog_location_depth(loc) != 2) {
            return 1;
        }
    }
    const uint32_t depth_after = slog_location_depth(loc);
    slog_location_close(loc);
    slog_twriter_stats st;
    const int rc = slog_twriter_finish(tw, nullptr);
    slog_twriter_get_stats(tw, &st);
    slog_twriter_destroy(tw);
    std::remove(path);
    return rc == SLOG_OK && depth_after == 0 && st.records == 2 ? 0 : 1;
}

int main()
{
    if (scope_guard_writes_a_state() != 0) {
        std::fprintf(stderr, "slog::scope did not begin and end its states\n");
        return 1;
    }
    slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    qo.kinds = 1u << SLOG_KIND_STATE;
    slog_item item;
    item.kind = SLOG_KIND_PREVIEW;
    item.u.preview.count = 1;
    if (qo.struct_size != sizeof qo || item.u.preview.count != 1) {
        return 1;
    }
    if (slog_version_number() != SLOG_VERSION_NUMBER) {
        std::fprintf(stderr, "header %s, library %s\n", SLOG_VERSION_STRING,
                     slog_version_string());
        return 1;
    }
    return std::strcmp(slog_status_name(SLOG_OK), "SLOG_OK") == 0 ? 0 : 1;
}
