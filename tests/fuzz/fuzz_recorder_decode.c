/* SPDX-License-Identifier: MIT
 *
 * fuzz_recorder_decode.c - libFuzzer target for slog-import's Recorder
 * decoder (libslog/import/recorder/recorder_decode.c).  A Recorder trace is a
 * folder, so the input is a list of files: each entry is u8 name index
 * (into the table below, modulo its size), u32 little-endian length, then
 * that many bytes.  The files are written into one temporary folder per
 * process and the whole folder is decoded (every rank, every record, every
 * argument split).  Any outcome but a crash, a hang or a leak is fine; a
 * failure must carry a message, and a rank must yield exactly as many
 * records as its grammar promised.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
    "VERSION", "recorder.mt", "recorder.cst", "recorder.ts", "ug.cfg", "ug.mt",
    "0.cst",   "0.cfg",       "0.ts",         "1.cst",       "1.cfg",  "1.ts",
    "2.cst",   "2.cfg",       "2.ts",         "3.cst",       "3.cfg",  "3.ts",
};
#define NNAMES (sizeof names / sizeof names[0])

static char dir[64];

static void path_of(char *out, size_t n, size_t i)
{
    (void)snprintf(out, n, "%s/%s", dir, names[i]);
}

static void cleanup(void)
{
    char path[128];
    for (size_t i = 0; i < NNAMES; i++) {
        path_of(path, sizeof path, i);
        (void)unlink(path);
    }
    (void)rmdir(dir);
}

static int setup(void)
{
    if (dir[0] != '\0') {
        return 0;
    }
    (void)snprintf(dir, sizeof dir, "/tmp/fuzz_recorder_XXXXXX");
    if (mkdtemp(dir) == NULL) {
        return -1;
    }
    return atexit(cleanup);
}

/* Lay the input's files out in dir (earlier files of the same name are
 * replaced; a truncated entry keeps what is there). */
static void write_files(const uint8_t *data, size_t size)
{
    char path[128];
    for (size_t i = 0; i < NNAMES; i++) {
        path_of(path, sizeof path, i);
        (void)unlink(path);
    }
    size_t at = 0;
    while (size - at >= 5) {
        const size_t idx = data[at] % NNAMES;
        size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8 | (size_t)data[at + 3] << 16 |
                     (size_t)data[at + 4] << 24;
        at += 5;
        len = len < size - at ? len : size - at;
        path_of(path, sizeof path, idx);
        FILE *const f = fopen(path, "wb");
        if (f == NULL) {
            abort();
        }
        if (len > 0 && fwrite(data + at, 1, len, f) != len) {
            abort();
        }
        if (fclose(f) != 0) {
            abort();
        }
        at += len;
    }
}

static void decode_rank(rec_trace *t, uint32_t r)
{
    rec_rank *rk = NULL;
    slog_error err;
    if (rec_rank_open(&rk, t, r, &err) != SLOG_OK) {
        if (err.message[0] == '\0') {
            abort();
        }
        return;
    }
    static const char *starts[256];
    static uint32_t lens[256];
    rec_record rec;
    uint64_t n = 0;
    while (rec_rank_next(rk, &rec) == SLOG_OK) {
        uint32_t rest = 0;
        (void)rec_split_args(rec.sig, starts, lens, 256, &rest);
        (void)rec_trace_func_name(t, rec.sig->func_id);
        n++;
    }
    if (n != rec_rank_record_count(rk)) {
        abort();
    }
    rec_rank_close(rk);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (setup() != 0) {
        abort();
    }
    write_files(data, size);
    rec_trace *t = NULL;
    slog_error err;
    if (rec_trace_open(&t, dir, &err) != SLOG_OK) {
        if (err.message[0] == '\0') {
            abort();
        }
        return 0;
    }
    const int32_t nranks = rec_trace_header(t)->total_ranks;
    /* ranks past the table's files fail with "Cannot open": bound the work */
    for (int32_t r = 0; r < nranks && r < 8; r++) {
        decode_rank(t, (uint32_t)r);
    }
    rec_trace_close(t);
    return 0;
}
