/* SPDX-License-Identifier: MIT
 *
 * report_output.c - writing the page so that a failure never leaves a
 * half-written report: the page goes to a temporary file in the output's
 * directory (so the rename cannot cross file systems), is flushed and
 * synced, takes the mode a new file would get, and only then is renamed
 * over the output.  On any error the temporary file is removed and the
 * output is left as it was.
 * Tools layer: libc and POSIX.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"

static int fail(const char *what, const char *path, int e)
{
    (void)fprintf(stderr, REPORT_PROG ": %s %s: %s\n", what, path, strerror(e));
    return EXIT_FAILURE;
}

/* The mode a file created with 0666 gets under the process's umask. */
static mode_t new_file_mode(void)
{
    const mode_t mask = umask(022);
    (void)umask(mask);
    return (mode_t)(0666 & ~mask);
}

static int write_page(const report *rp, FILE *f, const char *tmp)
{
    static char buf[1 << 16];
    (void)setvbuf(f, buf, _IOFBF, sizeof buf);
    if (report_write_html(rp, f) != 0) {
        (void)fprintf(stderr, REPORT_PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    if (fflush(f) != 0 || ferror(f)) {
        return fail("Failed to write", tmp, errno);
    }
    if (fsync(fileno(f)) != 0 && errno != EINVAL) {
        return fail("Failed to sync", tmp, errno);
    }
    if (fchmod(fileno(f), new_file_mode()) != 0) {
        return fail("Failed to set the mode of", tmp, errno);
    }
    return 0;
}

int report_output(const report *rp, const char *path)
{
    const size_t len = strlen(path) + sizeof ".tmp-XXXXXX";
    char *tmp = malloc(len);
    if (tmp == NULL) {
        (void)fprintf(stderr, REPORT_PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    (void)snprintf(tmp, len, "%s.tmp-XXXXXX", path);
    const int fd = mkstemp(tmp);
    if (fd < 0) {
        const int e = errno;
        free(tmp);
        return fail("Cannot create", path, e);
    }
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        const int e = errno;
        (void)close(fd);
        (void)unlink(tmp);
        free(tmp);
        return fail("Cannot write", path, e);
    }
    int status = write_page(rp, f, tmp);
    if (fclose(f) != 0 && status == 0) {
        status = fail("Failed to write", tmp, errno);
    }
    if (status == 0 && rename(tmp, path) != 0) {
        status = fail("Cannot replace", path, errno);
    }
    if (status != 0) {
        (void)unlink(tmp);
    }
    free(tmp);
    return status;
}
