/* SPDX-License-Identifier: MIT
 *
 * slog-serve - serve the timeline viewer and a read-only HTTP API over
 * .slog files (doc/VIEWER.md).  This file owns the process policy: the
 * command line, opening the files (one that does not open or import is
 * reported on stderr and listed as failed while the others are served;
 * exit 1 when none can be served), printing the URL on one stdout line, --open, and a
 * clean stop: SIGINT and SIGTERM are blocked in every thread and taken by
 * sigwait in main, which stops the HTTP daemon (waiting for requests in
 * progress) and closes every reader.  Exit status: 0 after SIGTERM, 130
 * after SIGINT, 1 when no file can be served or the listening socket
 * fails, 2 bad usage.
 * Tools layer: public libslog headers and utils/common.
 */
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <slog/slog.h>

#include "cli.h"
#include "progress.h"
#include "serve.h"
#include "serve_files.h"
#include "serve_http.h"
#include "serve_import.h"
#include "units.h"
#include "out_file.h"

#ifndef SLOG_TOOL_VERSION
#    define SLOG_TOOL_VERSION SLOG_VERSION_STRING
#endif

#define PROG "slog-serve"

#define SERVE_DEFAULT_CACHE    (UINT64_C(256) << 20)
#define SERVE_MIN_READER_CACHE (UINT64_C(8) << 20)

extern char **environ;

typedef struct serve_opts {
    serve_http_options http;
    uint32_t max_items;
    uint64_t cache_bytes;
    bool open_browser;
    const char *format;
    char *const *files;
    size_t nfiles;
} serve_opts;

static void usage(FILE *f)
{
    (void)fprintf(
        f,
        "Usage: " PROG " FILE... [--bind ADDR] [--port N] [--open] [--format NAME]\n"
        "Serve the timeline viewer and a read-only HTTP API (doc/VIEWER.md) over .slog files.\n"
        "\n"
        "  -b, --bind ADDR        numeric IPv4 or IPv6 address to listen on (default 127.0.0.1:\n"
        "                         only this machine can connect)\n"
        "  -p, --port N           port (default 0: any free port; the URL printed says which)\n"
        "      --open             open the URL in a browser (xdg-open)\n"
        "      --threads N        worker threads answering requests (default 4, 1..64)\n"
        "      --max-items N      most items of one window answer (default %u); a window\n"
        "                         with more is cut and says so\n"
        "      --cache SIZE       node caches of all readers together (default 256MiB; each\n"
        "                         file keeps up to one reader per thread, at least 8MiB each)\n"
        "  -f, --format NAME      format of the FILEs that are not .slog, as slog-import's\n"
        "                         --format: auto (default: detect), chrome, pfw, otf2,\n"
        "                         recorder, clog2, slog2 or perfetto\n"
        "  -h, --help             this help\n"
        "  -V, --version          tool and library versions\n"
        "\n"
        "Prints \"" PROG ": http://ADDR:PORT/\" on stdout once listening.  Stops on SIGINT\n"
        "(exit 130) or SIGTERM (exit 0).  A file still being written is served as it grows.\n"
        "A FILE that does not open or import is named on stderr and listed as failed; the\n"
        "others are served (exit 1 when none can be).\n",
        SERVE_DEFAULT_MAX_ITEMS);
}

enum {
    OPT_OPEN = 256,
    OPT_THREADS,
    OPT_MAX_ITEMS,
    OPT_CACHE
};

static const struct option long_opts[] = {
    {"bind", required_argument, NULL, 'b'},
    {"port", required_argument, NULL, 'p'},
    {"open", no_argument, NULL, OPT_OPEN},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"max-items", required_argument, NULL, OPT_MAX_ITEMS},
    {"cache", required_argument, NULL, OPT_CACHE},
    {"format", required_argument, NULL, 'f'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static int parse_count(const char *opt, const char *arg, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char why[160];
    if (units_parse_count(arg, out, why, sizeof why) != 0) {
        return cli_usage_error(PROG, "--%s: %s", opt, why);
    }
    if (*out < lo || *out > hi) {
        return cli_usage_error(PROG, "--%s: %s is out of range %llu..%llu", opt, arg,
                               (unsigned long long)lo, (unsigned long long)hi);
    }
    return 0;
}

/* One option: 0 go on, -1 done (help/version), else an exit status. */
static int parse_one(int c, const char *arg, const char *argtext, serve_opts *o)
{
    uint64_t v = 0;
    char why[160];
    int rc = 0;
    switch (c) {
    case 'b':
        o->http.bind = arg;
        return 0;
    case 'p':
        rc = parse_count("port", arg, 0, 65535, &v);
        o->http.port = (uint16_t)v;
        return rc;
    case OPT_OPEN:
        o->open_browser = true;
        return 0;
    case OPT_THREADS:
        rc = parse_count("threads", arg, 1, 64, &v);
        o->http.threads = (uint32_t)v;
        return rc;
    case OPT_MAX_ITEMS:
        rc = parse_count("max-items", arg, 1, 10000000, &v);
        o->max_items = (uint32_t)v;
        return rc;
    case OPT_CACHE:
        if (units_parse_size(arg, &o->cache_bytes, why, sizeof why) != 0) {
            return cli_usage_error(PROG, "--cache: %s", why);
        }
        return 0;
    case 'f':
        o->format = arg;
        return serve_import_format_known(arg) ? 0
                                               : cli_usage_error(PROG, "unknown format '%s'", arg);
    case 'h':
        usage(stdout);
        return -1;
    case 'V':
        cli_print_version(PROG, SLOG_TOOL_VERSION, SLOG_VERSION_NUMBER, SLOG_VERSION_STRING);
        return -1;
    default:
        return cli_usage_error(PROG, "invalid or incomplete option '%s'", argtext);
    }
}

/* -2 to go on, otherwise the exit status. */
static int parse_args(int argc, char **argv, serve_opts *o)
{
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "b:p:f:hV", long_opts, NULL)) != -1) {
        const int r = parse_one(c, optarg, argv[optind - 1], o);
        if (r != 0) {
            return r < 0 ? EXIT_SUCCESS : r;
        }
    }
    if (optind >= argc) {
        return cli_usage_error(PROG, "missing FILE");
    }
    o->files = argv + optind;
    o->nfiles = (size_t)(argc - optind);
    return -2;
}

static void open_browser(const char *url)
{
    pid_t pid;
    char xdg[] = "xdg-open";
    char *const arg = strdup(url); /* posix_spawnp's argv is not const */
    char *const args[] = {xdg, arg, NULL};
    if (arg == NULL || posix_spawnp(&pid, "xdg-open", NULL, NULL, args, environ) != 0) {
        (void)fprintf(stderr, PROG ": Cannot run xdg-open; open %s yourself\n", url);
        free(arg);
        return;
    }
    free(arg);
    (void)waitpid(pid, NULL, WNOHANG);
}

/* The files to serve (imported when they are other traces); NULL when none
 * can be served (each failure printed). */
static serve_files *open_files(const serve_opts *o)
{
    serve_source *src = NULL;
    const serve_import_options import = {o->format, progress_default_enabled(false, false)};
    if (serve_import_resolve(o->files, o->nfiles, &import, &src) != 0) {
        return NULL;
    }
    serve_files *files = NULL;
    /* --cache is the budget of all readers: each file keeps up to one per thread */
    const uint64_t readers = (uint64_t)o->nfiles * o->http.threads;
    uint64_t per_reader = readers > 0 ? o->cache_bytes / readers : o->cache_bytes;
    per_reader = per_reader < SERVE_MIN_READER_CACHE ? SERVE_MIN_READER_CACHE : per_reader;
    const serve_files_budget budget = {o->http.threads, per_reader};
    size_t servable = 0;
    const int made = serve_files_create(&files, src, o->nfiles, budget, &servable);
    serve_import_free(src, o->nfiles);
    if (made == 0 && servable == 0) {
        if (o->nfiles > 1) {
            (void)fprintf(stderr, PROG ": none of the %zu files can be served\n", o->nfiles);
        }
        serve_files_destroy(files);
        return NULL;
    }
    if (made == 0 && servable < o->nfiles) {
        (void)fprintf(stderr,
                      PROG ": serving %zu of %zu files (/api/files lists the others as failed)\n",
                      servable, o->nfiles);
    }
    return files;
}

/* Serve until SIGINT or SIGTERM; returns the exit status. */
static int serve(const serve_opts *o, const sigset_t *stop)
{
    char why[512];
    serve_files *const files = open_files(o);
    if (files == NULL) {
        return EXIT_FAILURE;
    }
    const serve_ctx ctx = {files, o->max_items};
    serve_http *http = NULL;
    if (serve_http_start(&http, &ctx, &o->http, why, sizeof why) != 0) {
        (void)fprintf(stderr, PROG ": %s\n", why);
        serve_files_destroy(files);
        return EXIT_FAILURE;
    }
    char url[128];
    const bool v6 = strchr(o->http.bind, ':') != NULL;
    (void)snprintf(url, sizeof url, "http://%s%s%s:%u/", v6 ? "[" : "", o->http.bind, v6 ? "]" : "",
                   (unsigned)serve_http_port(http));
    (void)printf(PROG ": %s\n", url);
    (void)fflush(stdout);
    if (o->open_browser) {
        open_browser(url);
    }
    int sig = 0;
    while (sigwait(stop, &sig) != 0) {
    }
    serve_http_stop(http);
    serve_files_destroy(files);
    return sig == SIGINT ? 130 : EXIT_SUCCESS;
}

/* Every request allocates its answer's columns and bytes and frees them
 * when sent.  glibc would map the large ones afresh and give freed heap tops
 * back at once, so each request faulted its memory in again (about 10 us a
 * 4 KiB page on the virtual machines of doc/PERFORMANCE.md); fixed
 * thresholds keep freed blocks for the next request.  What is kept is
 * bounded by the largest answers (--max-items), not by the file. */
static void keep_freed_memory(void)
{
    (void)mallopt(M_MMAP_THRESHOLD, 64 << 20);
    (void)mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

int main(int argc, char **argv)
{
    out_file_guard_stdout(PROG);
    serve_opts o = {.http = {"127.0.0.1", 0, 4, 15},
                    .max_items = SERVE_DEFAULT_MAX_ITEMS,
                    .cache_bytes = SERVE_DEFAULT_CACHE};
    const int status = parse_args(argc, argv, &o);
    if (status != -2) {
        return status;
    }
    /* Block the stop signals before any thread starts, so every thread
     * inherits the mask and only sigwait sees them; a client that goes
     * away must not kill the server. */
    sigset_t stop;
    (void)sigemptyset(&stop);
    (void)sigaddset(&stop, SIGINT);
    (void)sigaddset(&stop, SIGTERM);
    (void)pthread_sigmask(SIG_BLOCK, &stop, NULL);
    (void)signal(SIGPIPE, SIG_IGN);
    keep_freed_memory();
    return serve(&o, &stop);
}
