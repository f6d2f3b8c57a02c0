/* SPDX-License-Identifier: MIT
 *
 * out_file.c - output safety shared by the tools (see out_file.h): the
 * input clash test, the OUT.part temporary name and its rename, and the
 * end-of-run check of a written stream.  Tools layer: libc only.
 */
#include "out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int same_file(const struct stat *a, const char *path)
{
    struct stat b;
    return stat(path, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

size_t out_file_input_clash(const char *out, const char *const *inputs, size_t n)
{
    struct stat st;
    const int exists = stat(out, &st) == 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(inputs[i], "-") == 0) {
            continue;
        }
        if (strcmp(inputs[i], out) == 0 || (exists && same_file(&st, inputs[i]))) {
            return i + 1;
        }
    }
    return 0;
}

static bool same_input(const char *a,
                       const struct stat *sa,
                       bool a_ok,
                       const char *b,
                       const struct stat *sb,
                       bool b_ok)
{
    return strcmp(a, b) == 0 ||
           (a_ok && b_ok && sa->st_dev == sb->st_dev && sa->st_ino == sb->st_ino);
}

size_t out_file_repeated_input(const char *const *inputs, size_t n, size_t *earlier)
{
    struct stat *const st = calloc(n > 0 ? n : 1, sizeof *st);
    bool *const ok = calloc(n > 0 ? n : 1, sizeof *ok);
    size_t found = 0;
    for (size_t i = 0; st != NULL && ok != NULL && found == 0 && i < n; i++) {
        ok[i] = strcmp(inputs[i], "-") != 0 && stat(inputs[i], &st[i]) == 0;
        for (size_t j = 0; strcmp(inputs[i], "-") != 0 && found == 0 && j < i; j++) {
            if (same_input(inputs[j], &st[j], ok[j], inputs[i], &st[i], ok[i])) {
                *earlier = j;
                found = i + 1;
            }
        }
    }
    free(st);
    free(ok);
    return found;
}

int out_file_temp_name(char *temp, size_t cap, const char *out)
{
    const size_t n = strlen(out);
    struct stat st;
    if (n + sizeof OUT_FILE_SUFFIX > cap || (stat(out, &st) == 0 && !S_ISREG(st.st_mode))) {
        return -1;
    }
    (void)snprintf(temp, cap, "%s%s", out, OUT_FILE_SUFFIX); /* fits: checked above */
    return 0;
}

int out_file_commit(const char *temp, const char *out)
{
    /* a file a writer still holds (libslog's flock) is not replaced */
    const int fd = open(out, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        const int busy = flock(fd, LOCK_EX | LOCK_NB) != 0;
        (void)close(fd);
        if (busy) {
            errno = EBUSY;
            return -1;
        }
    }
    return rename(temp, out) == 0 ? 0 : -1;
}

int out_file_check_stream(FILE *f, const char *prog, const char *what)
{
    errno = 0;
    const int bad = fflush(f) != 0 || ferror(f);
    if (!bad) {
        return 0;
    }
    const int e = errno;
    (void)fprintf(stderr, "%s: Failed to write %s: %s\n", prog, what,
                  e != 0 ? strerror(e) : "write error");
    return -1;
}

static const char *guard_prog = "";

static void check_stdout_at_exit(void)
{
    if (out_file_check_stream(stdout, guard_prog, "standard output") != 0) {
        _exit(1); /* allowed in an exit handler: the status must say it failed */
    }
}

void out_file_guard_stdout(const char *prog)
{
    guard_prog = prog;
    (void)atexit(check_stdout_at_exit);
}
