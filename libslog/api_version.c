/* SPDX-License-Identifier: MIT
 *
 * api_version.c - runtime version and status code names.
 * Layer 5: api.
 */
#include <slog/slog_common.h>

const char *slog_status_name(int code)
{
    switch (code) {
    case SLOG_OK:
        return "SLOG_OK";
    case SLOG_END:
        return "SLOG_END";
    case SLOG_ENOMEM:
        return "SLOG_ENOMEM";
    case SLOG_EIO:
        return "SLOG_EIO";
    case SLOG_ECORRUPT:
        return "SLOG_ECORRUPT";
    case SLOG_EPARSE:
        return "SLOG_EPARSE";
    case SLOG_EVERSION:
        return "SLOG_EVERSION";
    case SLOG_ESTATE:
        return "SLOG_ESTATE";
    case SLOG_EINVAL:
        return "SLOG_EINVAL";
    case SLOG_EINTR:
        return "SLOG_EINTR";
    case SLOG_EFORMAT:
        return "SLOG_EFORMAT";
    default:
        return "SLOG_UNKNOWN";
    }
}

unsigned slog_version_number(void)
{
    return SLOG_VERSION_NUMBER;
}

const char *slog_version_string(void)
{
    return SLOG_VERSION_STRING;
}
