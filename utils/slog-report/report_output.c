/* SPDX-License-Identifier: MIT
 *
 * report_output.c - writing the page so that a failure never leaves a
 * half-written report: the page goes to a temporary file in the output's
 * directory (so the rename cannot cross file systems), is flushed and
 * synced, takes the mode a new file would get, and only then is renamed
 * over the output.  On any error, or SIGINT/SIGTERM/SIGHUP while it is
 * written, the temporary file is removed and the output is left as it was.
 * Tools layer: libc and POSIX.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
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

/* The temporary file while it exists, for the signal handler: an
 * interrupted run removes it and exits 128 + signal (130 for SIGINT). */
static char pending[4096];
static volatile sig_atomic_t pending_set;

static void on_signal(int sig)
{
    if (pending_set) {
        (void)unlink(pending);
    }
    _exit(128 + sig);
}

static void watch_signals(bool on)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on ? on_signal : SIG_DFL;
    (void)sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        (void)sigaction(sigs[i], &sa, NULL);
    }
}

/* Close, then rename over @p path or remove the temporary file. */
static int finish(FILE *f, int status, const char *path)
{
    if (fclose(f) != 0 && status == 0) {
        status = fail("Failed to write", pending, errno);
    }
    if (status == 0 && rename(pending, path) != 0) {
        status = fail("Cannot replace", path, errno);
    }
    if (status != 0) {
        (void)unlink(pending);
    }
    pending_set = 0;
    watch_signals(false);
    return status;
}

int report_output(const report *rp, const char *path)
{
    if ((size_t)snprintf(pending, sizeof pending, "%s.tmp-XXXXXX", path) >= sizeof pending) {
        return fail("Cannot create", path, ENAMETOOLONG);
    }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* a device (/dev/null): renaming over it, as root, would replace it */
        (void)fprintf(stderr, REPORT_PROG ": Refusing to replace %s: not a regular file\n", path);
        return EXIT_FAILURE;
    }
    watch_signals(true);
    const int fd = mkstemp(pending);
    pending_set = fd >= 0;
    if (fd < 0) {
        const int e = errno;
        watch_signals(false);
        return fail("Cannot create", path, e);
    }
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        const int e = errno;
        (void)close(fd);
        (void)unlink(pending);
        pending_set = 0;
        watch_signals(false);
        return fail("Cannot write", path, e);
    }
    return finish(f, write_page(rp, f, pending), path);
}
