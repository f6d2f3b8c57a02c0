/* SPDX-License-Identifier: MIT
 *
 * flush_log.h - `--flush-log FILE` of slog-synth and slog-import: one line
 * per writer flush event (slog_writer_options.on_flush), written with one
 * write(2) each so it survives a kill -9 of the tool:
 *   pending|durable NODES STATES EVENTS ARROWS COUNTERS COMPLETE
 * The crash matrix (tests/crash) compares a killed writer's file with it.
 * Tools layer: libc and the public writer header.
 */
#ifndef SLOG_FLUSH_LOG_H
#define SLOG_FLUSH_LOG_H

#include <slog/slog.h>

typedef struct flush_log {
    int fd; /* -1: no log */
} flush_log;

/* Open (create, truncate) path; 0, or -1 with errno set.  NULL path: no log. */
int flush_log_open(flush_log *l, const char *path);
/* Set wo->on_flush to write into l when l is open. */
void flush_log_attach(flush_log *l, slog_writer_options *wo);
/* Close (safe when not open). */
void flush_log_close(flush_log *l);

#endif /* SLOG_FLUSH_LOG_H */
