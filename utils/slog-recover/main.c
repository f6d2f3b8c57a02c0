/* SPDX-License-Identifier: MIT
 *
 * slog-recover - seal libslog files whose writer was killed (kill -9, a
 * crash, power loss), so that tools opening them without SWMR (h5dump,
 * h5py) read them too: slog_file_seal, then the file is opened again and
 * what it holds is printed.  The file stays marked incomplete, with the
 * drawables of its last flush.  (slog-check --salvage is the other tool:
 * it rewrites the data that verifies into a new file.)  Options go anywhere
 * before "--"; an unknown one is a usage error (exit 2).
 * Tools layer: public libslog headers and utils/common.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slog/slog.h>

#include "cli.h"
#include "out_file.h"

#define PROG "slog-recover"

#ifndef SLOG_TOOL_VERSION
#    define SLOG_TOOL_VERSION SLOG_VERSION_STRING
#endif

static void usage(FILE *f)
{
    (void)fprintf(f,
                  "Usage: " PROG " FILE...\n"
                  "Seal libslog files left by a killed writer so that tools that open them\n"
                  "without SWMR (h5dump, h5py) can read them, as h5clear -s --increment=0\n"
                  "does (h5clear -s alone destroys their data).  Each file keeps what its last\n"
                  "flush wrote and stays marked incomplete.  No writer or reader may have the\n"
                  "file open.  Exit status 0 when every file is sealed or needed nothing.\n"
                  "\n"
                  "  -h, --help     this help\n"
                  "  -V, --version  tool and library versions\n");
}

/* Seal one file and say what it holds; 0 or 1. */
static int recover(const char *path)
{
    slog_error err;
    memset(&err, 0, sizeof err);
    bool sealed = false;
    int rc = slog_file_seal(path, &sealed, &err);
    slog_reader *r = NULL;
    if (rc == SLOG_OK) {
        rc = slog_reader_open(&r, path, NULL, &err);
    }
    if (rc != SLOG_OK) {
        (void)fprintf(stderr, PROG ": %s: %s (%s)\n", path,
                      err.message[0] != '\0' ? err.message : "cannot seal", slog_status_name(rc));
        return 1;
    }
    const slog_file_info *const fi = slog_reader_info(r);
    (void)printf("%s: %s; %s: %" PRIu64 " states, %" PRIu64 " events, %" PRIu64 " arrows, %" PRIu64
                 " counters in %" PRIu64 " nodes\n",
                 path, sealed ? "sealed" : "nothing to seal",
                 fi->complete ? "complete" : "incomplete", fi->states, fi->events, fi->arrows,
                 fi->counters, fi->nodes);
    slog_reader_destroy(r);
    return 0;
}

/* -1 to go on (files from optind), otherwise the exit status: options
 * anywhere before "--", as in the other tools. */
static int parse_args(int argc, char **argv)
{
    static const struct option longs[] = {
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hV", longs, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c == 'V') {
            cli_print_version(PROG, SLOG_TOOL_VERSION, SLOG_VERSION_NUMBER, SLOG_VERSION_STRING);
            return 0;
        }
        return cli_option_error(PROG, argv);
    }
    if (optind >= argc) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    return -1;
}

int main(int argc, char **argv)
{
    out_file_guard_stdout(PROG);
    const int rc = parse_args(argc, argv);
    if (rc >= 0) {
        return rc;
    }
    int status = 0;
    for (int i = optind; i < argc; i++) {
        status |= recover(argv[i]);
    }
    return status;
}
