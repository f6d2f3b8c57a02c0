/* SPDX-License-Identifier: MIT
 *
 * header_compile.c - the umbrella header compiles alone as strict ISO C11
 * (-Wpedantic -Werror, see tests/meson.build) and the runtime library is
 * the version the header names.
 */
#include <slog/slog.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    const slog_writer_options wo = SLOG_WRITER_OPTIONS_INIT;
    const slog_reader_options ro = SLOG_READER_OPTIONS_INIT;
    const slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    if (wo.struct_size != sizeof wo || ro.struct_size != sizeof ro || qo.struct_size != sizeof qo) {
        fputs("options INIT macros do not set struct_size\n", stderr);
        return 1;
    }
    if (slog_version_number() != SLOG_VERSION_NUMBER ||
        strcmp(slog_version_string(), SLOG_VERSION_STRING) != 0) {
        fprintf(stderr, "header %s, library %s\n", SLOG_VERSION_STRING, slog_version_string());
        return 1;
    }
    if (strcmp(slog_status_name(SLOG_ECORRUPT), "SLOG_ECORRUPT") != 0) {
        fprintf(stderr, "slog_status_name(SLOG_ECORRUPT) = %s\n", slog_status_name(SLOG_ECORRUPT));
        return 1;
    }
    return 0;
}
