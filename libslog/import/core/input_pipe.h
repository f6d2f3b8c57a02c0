/* SPDX-License-Identifier: MIT
 *
 * input_pipe.h - inputs read once (standard input as "-", pipes, FIFOs):
 * the format probe's bytes are replayed to the importer (input_pipe.c).
 */
#ifndef SLOG_INPUT_PIPE_H
#define SLOG_INPUT_PIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

typedef struct input_pipe input_pipe;

/* stat(2) of an input path; "-" is standard input. */
int input_path_stat(const char *path, struct stat *st);
/* 1 and *out set when @p path cannot be seeked (read it through *out);
 * 0 when it is a file or directory (open it as usual); -1 with a message. */
int input_pipe_open(input_pipe **out, const char *path, char *err, size_t errlen);
/* read(2) after the replayed bytes; -1 with errno. */
ssize_t input_pipe_read(input_pipe *p, void *buf, size_t n);
/* The next n bytes (fewer at the end) without consuming them; -1 with errno. */
ssize_t input_pipe_peek(input_pipe *p, void *buf, size_t n);
/* After the first open, keeps the input for the next open of its path. */
void input_pipe_close(input_pipe *p);

#endif
