// SPDX-License-Identifier: MIT
//
// header_compile.cpp - the umbrella header compiles as C++ (-Wpedantic
// -Werror) and its functions link with C linkage.
#include <slog/slog.h>

#include <cstdio>
#include <cstring>

int main()
{
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
