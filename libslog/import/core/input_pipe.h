/* SPDX-License-Identifier: MIT
 *
 * input_pipe.h - the sources of one import's inputs (input_pipe.c): inputs
 * read once (standard input as "-", pipes, FIFOs, caller read callbacks)
 * replay the bytes the format probe read to the importer; memory inputs
 * are read from the start at each open.  The registry belongs to one
 * import (import_run.h), so two imports never see each other's pipes.
 * Import library, core: libc, POSIX, pthreads.
 */
#ifndef SLOG_INPUT_PIPE_H
#define SLOG_INPUT_PIPE_H

#include <pthread.h>
#include <slog/slog_import.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

typedef struct input_pipe input_pipe;
typedef struct held_pipe held_pipe;

/* The inputs of one import and what their first opens left behind. */
typedef struct input_sources {
    const slog_import_input *inputs; /* borrowed; NULL: paths only */
    size_t n;
    uint64_t *read_bytes;            /* per input: most bytes one open read */
    held_pipe *held;                 /* probes' tapes awaiting the importer's open */
    pthread_mutex_t lock;
} input_sources;

/* 0, or -1 when out of memory. */
int input_sources_init(input_sources *s, const slog_import_input *inputs, size_t n);
/* Closes held descriptors and frees tapes. */
void input_sources_destroy(input_sources *s);
/* The input named @p name, or NULL (then @p name is a plain path). */
const slog_import_input *input_sources_find(const input_sources *s, const char *name);

/* stat(2) of an input path; "-" is standard input. */
int input_path_stat(const char *path, struct stat *st);
/* 1 and *out set when @p path is read through *out (not seekable: a pipe,
 * "-" not redirected from a file, a callback or memory input of @p srcs);
 * 0 when it is a file or directory (open it as usual); -1 with a message.
 * @p srcs may be NULL (paths only, nothing kept for a second open). */
int input_pipe_open(input_pipe **out, input_sources *srcs, const char *path, char *err,
                    size_t errlen);
/* read(2) after the replayed bytes; -1 with errno (and the message). */
ssize_t input_pipe_read(input_pipe *p, void *buf, size_t n);
/* The next n bytes (fewer at the end) without consuming them; -1 with errno. */
ssize_t input_pipe_peek(input_pipe *p, void *buf, size_t n);
/* The reason of the last -1, "" if none. */
const char *input_pipe_error(const input_pipe *p);
/* What the input is, for messages: "a pipe or standard input", "a read
 * callback" or "memory". */
const char *input_pipe_what(const input_pipe *p);
/* After the first open, keeps the input for the next open of its name. */
void input_pipe_close(input_pipe *p);

#endif
