/* SPDX-License-Identifier: MIT
 *
 * out_file.h - how the tools write their outputs safely: an output that is
 * one of the inputs (the same name, or the same file by st_dev/st_ino) is
 * refused before anything is written; a new file is written under a
 * temporary name beside it (OUT.part, same directory, so the rename stays
 * on one file system) and renamed over OUT when it is complete; standard
 * output is checked at exit (a full disk or /dev/full is a failure, not
 * exit 0).  Tools layer: libc only.
 */
#ifndef SLOG_OUT_FILE_H
#define SLOG_OUT_FILE_H

#include <stddef.h>
#include <stdio.h>

#define OUT_FILE_SUFFIX ".part"

/* Index + 1 of the first of inputs[0..n) that names the same file as out
 * (equal strings, or an existing out with the same device and inode), or
 * 0 when none does.  "-" (standard input) matches nothing. */
size_t out_file_input_clash(const char *out, const char *const *inputs, size_t n);

/* Index + 1 of the first of inputs[0..n) that names the same file as an
 * earlier one (equal strings, or the same device and inode), its earlier
 * one in *earlier; 0 when none repeats.  "-" matches nothing. */
size_t out_file_repeated_input(const char *const *inputs, size_t n, size_t *earlier);

/* temp = out + OUT_FILE_SUFFIX; -1 when it does not fit cap, or when out
 * exists and is not a regular file (renaming over /dev/null as root would
 * replace the device). */
int out_file_temp_name(char *temp, size_t cap, const char *out);

/* Renames temp over out; 0, or -1 with errno set (EBUSY: out is a file a
 * libslog writer is still writing, locked). */
int out_file_commit(const char *temp, const char *out);

/* Flushes and checks a stream the tool wrote (stdout when it is the
 * output): 0, or -1 after printing "PROG: Failed to write WHAT: reason" on
 * stderr.  Call once, at the end of main. */
int out_file_check_stream(FILE *f, const char *prog, const char *what);

/* Registers (atexit) the check of stdout for every way main ends, --help
 * included: when stdout cannot be written the process exits 1 after the
 * message above.  Call first in main. */
void out_file_guard_stdout(const char *prog);

#endif /* SLOG_OUT_FILE_H */
