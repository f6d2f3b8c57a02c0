/* SPDX-License-Identifier: MIT
 *
 * slog-trace - run a program with the slog-trace preload library, which
 * records its POSIX and stdio I/O (and MPI calls, through PMPI) into one
 * libslog file per process in a directory:
 *     slog-trace [-o DIR] [--flush MS] -- PROGRAM ARGS...
 *     slog-trace merge DIR -o OUT.slog
 * The launcher sets LD_PRELOAD, SLOG_TRACE_DIR and SLOG_TRACE_FLUSH_MS and
 * execs the program in its own process, so the program's exit status or
 * signal is the launcher's.  Exit status: the program's; 126/127 when it
 * cannot be run; 2 bad arguments.  See doc/TRACE.md.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slog/slog.h>

#include "cli.h"
#include "out_file.h"
#include "trace_merge.h"
#include "trace_version.h"

#define PROG "slog-trace"
#define PRELOAD_NAME "libslog-trace.so"

#ifndef SLOG_TRACE_LIBDIR
#    define SLOG_TRACE_LIBDIR "/usr/local/lib"
#endif

static void print_help(void)
{
    (void)printf("usage: " PROG " [-o DIR] [--flush MS] [--writer locked|thread] -- PROGRAM [ARGS...]\n"
                 "       " PROG " merge DIR -o OUT.slog\n\n"
                 "Runs PROGRAM with its POSIX, stdio, HDF5, MPI and MPI-IO calls recorded: one\n"
                 "libslog file per process, DIR/<host>-<pid>.slog, listed in\n"
                 "DIR/manifest.jsonl.\n\n"
                 "  -o, --output DIR  trace directory (default: ./<program>.trace)\n"
                 "  -f, --flush MS    write out every MS milliseconds (default 1000;\n"
                 "                    0: only at exit)\n"
                 "  -w, --writer W    thread (default): per-thread buffers and a background\n"
                 "                    writer (slog_thread.h); locked: one writer behind a\n"
                 "                    lock, on the program's threads\n"
                 "  -h, --help        this help\n"
                 "  -V, --version     versions of slog-trace and libslog\n\n"
                 "merge joins the files of DIR into one, a timeline group per process\n"
                 "(per MPI rank), MPI point-to-point messages as arrows.\n"
                 "The exit status is the program's (126/127: it could not be run).\n");
}

/* mkdir -p of dir (absolute or relative). */
static int make_dirs(const char *dir)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p != '\0'; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
                return -1;
            }
            *p = '/';
        }
    }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* Before the program runs: DIR must be a directory the processes can
 * create their files in (a run that cannot be traced is not started), and
 * a DIR that holds an earlier run's files is named, since `slog-trace
 * merge` would join them with this run's.  The ranks of an MPI job start
 * one launcher each into the same DIR: their files belong together. */
static int check_output_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        (void)fprintf(stderr, PROG ": %s: not a directory\n", dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        (void)fprintf(stderr, PROG ": cannot write into %s: %s\n", dir, strerror(errno));
        return -1;
    }
    const bool mpi = getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL ||
                     getenv("PMIX_RANK") != NULL;
    DIR *const d = mpi ? NULL : opendir(dir);
    size_t earlier = 0;
    for (const struct dirent *e = d != NULL ? readdir(d) : NULL; e != NULL; e = readdir(d)) {
        const size_t n = strlen(e->d_name);
        earlier += n > 5 && strcmp(e->d_name + n - 5, ".slog") == 0;
    }
    if (d != NULL) {
        (void)closedir(d);
    }
    if (earlier > 0) {
        (void)fprintf(stderr,
                      PROG ": note: %s already holds %zu .slog file%s of an earlier run; "
                           "`slog-trace merge` will join them with this run's (-o DIR keeps "
                           "runs apart)\n",
                      dir, earlier, earlier == 1 ? "" : "s");
    }
    return 0;
}

/* The preload library: $SLOG_TRACE_LIB, beside this executable (the build
 * tree), else the install directory. */
static int find_library(char *out, size_t size)
{
    const char *env = getenv("SLOG_TRACE_LIB");
    if (env != NULL && env[0] != '\0') {
        return snprintf(out, size, "%s", env) < (int)size && access(out, R_OK) == 0 ? 0 : -1;
    }
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash != NULL) {
            *slash = '\0';
            if (snprintf(out, size, "%s/%s", self, PRELOAD_NAME) < (int)size &&
                access(out, R_OK) == 0) {
                return 0;
            }
        }
    }
    return snprintf(out, size, "%s/%s", SLOG_TRACE_LIBDIR, PRELOAD_NAME) < (int)size &&
                   access(out, R_OK) == 0
               ? 0
               : -1;
}

/* Set the environment the preload library reads. */
static int set_environment(const char *dir, const char *flush, const char *writer)
{
    char lib[PATH_MAX];
    if (find_library(lib, sizeof lib) != 0) {
        (void)fprintf(stderr, PROG ": cannot find " PRELOAD_NAME " (set SLOG_TRACE_LIB)\n");
        return -1;
    }
    const char *old = getenv("LD_PRELOAD");
    char *preload = NULL;
    /* a preloaded sanitizer runtime must stay first */
    if (asprintf(&preload, "%s%s%s", old != NULL && old[0] != '\0' ? old : "",
                 old != NULL && old[0] != '\0' ? ":" : "", lib) < 0) {
        return -1;
    }
    char abs[PATH_MAX];
    if (realpath(dir, abs) == NULL) {
        (void)fprintf(stderr, PROG ": %s: %s\n", dir, strerror(errno));
        free(preload);
        return -1;
    }
    const int rc = setenv("LD_PRELOAD", preload, 1) | setenv("SLOG_TRACE_DIR", abs, 1) |
                   setenv("SLOG_TRACE_FLUSH_MS", flush, 1) |
                   (writer != NULL ? setenv("SLOG_TRACE_WRITER", writer, 1) : 0);
    free(preload);
    return rc == 0 ? 0 : -1;
}

static int check_flush(const char *text)
{
    char *end = NULL;
    errno = 0;
    const long v = strtol(text, &end, 10);
    return errno == 0 && end != text && *end == '\0' && v >= 0 && v <= 86400000 ? 0 : -1;
}

typedef struct run_opts {
    const char *dir; /* NULL: ./PROGRAM.trace */
    const char *flush;
    const char *writer; /* NULL: the library's default */
} run_opts;

/* Parse the options before the program; -1 to go on, else the exit status. */
static int parse_run(int argc, char **argv, run_opts *o)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"flush", required_argument, NULL, 'f'},
        {"writer", required_argument, NULL, 'w'}, {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0}};
    int c;
    opterr = 0; /* one message, ours */
    while ((c = getopt_long(argc, argv, "+o:f:w:hV", longopts, NULL)) != -1) {
        if (c == 'o') {
            o->dir = optarg;
        } else if (c == 'f' && check_flush(optarg) == 0) {
            o->flush = optarg;
        } else if (c == 'f') {
            return cli_usage_error(PROG, "--flush: expected milliseconds 0..86400000, got '%s'",
                                   optarg);
        } else if (c == 'w' && (strcmp(optarg, "locked") == 0 || strcmp(optarg, "thread") == 0)) {
            o->writer = optarg;
        } else if (c == 'w') {
            return cli_usage_error(PROG, "--writer: expected locked or thread, got '%s'", optarg);
        } else if (c == 'h') {
            print_help();
            return 0;
        } else if (c == 'V') {
            cli_print_version(PROG, TRACE_VERSION, SLOG_VERSION_NUMBER, SLOG_VERSION_STRING);
            return 0;
        } else {
            return cli_option_error(PROG, argv);
        }
    }
    return optind >= argc ? cli_usage_error(PROG, "expected a program to run after --") : -1;
}

static int run(int argc, char **argv)
{
    run_opts o = {NULL, "1000", NULL};
    const int status = parse_run(argc, argv, &o);
    if (status >= 0) {
        return status;
    }
    char defdir[PATH_MAX];
    if (o.dir == NULL) {
        const char *base = strrchr(argv[optind], '/');
        (void)snprintf(defdir, sizeof defdir, "%s.trace", base != NULL ? base + 1 : argv[optind]);
        o.dir = defdir;
    }
    if (make_dirs(o.dir) != 0) {
        (void)fprintf(stderr, PROG ": cannot create %s: %s\n", o.dir, strerror(errno));
        return 1;
    }
    if (check_output_dir(o.dir) != 0) {
        return 1;
    }
    if (set_environment(o.dir, o.flush, o.writer) != 0) {
        return 1;
    }
    execvp(argv[optind], argv + optind);
    (void)fprintf(stderr, PROG ": cannot run %s: %s\n", argv[optind], strerror(errno));
    return errno == ENOENT ? 127 : 126;
}

int main(int argc, char **argv)
{
    out_file_guard_stdout(PROG);
    if (argc > 1 && strcmp(argv[1], "merge") == 0) {
        return trace_merge_main(argc - 1, argv + 1);
    }
    return run(argc, argv);
}
