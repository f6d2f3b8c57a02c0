/* SPDX-License-Identifier: MIT
 *
 * flush_log.c - the flush log of the writing tools (flush_log.h).
 * Tools layer: libc and the public writer header.
 */
#include "flush_log.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

int flush_log_open(flush_log *l, const char *path)
{
    l->fd = -1;
    if (path == NULL) {
        return 0;
    }
    l->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return l->fd >= 0 ? 0 : -1;
}

static void on_flush(void *ctx, const slog_flush_info *fi)
{
    const flush_log *const l = ctx;
    char line[192];
    const int n = snprintf(line, sizeof line,
                           "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d\n",
                           fi->durable ? "durable" : "pending", fi->nodes, fi->counts[0],
                           fi->counts[1], fi->counts[2], fi->counts[3], fi->complete ? 1 : 0);
    if (n > 0 && (size_t)n < sizeof line) {
        (void)!write(l->fd, line, (size_t)n);
    }
}

void flush_log_attach(flush_log *l, slog_writer_options *wo)
{
    if (l->fd >= 0) {
        wo->on_flush = on_flush;
        wo->on_flush_ctx = l;
    }
}

void flush_log_close(flush_log *l)
{
    if (l->fd >= 0) {
        (void)close(l->fd);
        l->fd = -1;
    }
}
