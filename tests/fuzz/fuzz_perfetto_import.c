/* SPDX-License-Identifier: MIT
 *
 * fuzz_perfetto_import.c - libFuzzer target for the Perfetto importer
 * (libslog/import/perfetto): byte 0 picks how the input is fed (0: all at
 * once, else reads of 1..255 bytes), the rest is the trace.  It is walked
 * by the wire reader alone (every length-delimited field read as a
 * sub-message, as deep as the reader allows), then imported into a writer
 * and the file finished.  Must hold: no crash, hang, leak or out-of-bounds
 * read; the import ends with SLOG_OK or an error that has a message.
 */
#include <slog/slog.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_wire.h"
#include "perfetto_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct feed {
    const uint8_t *p;
    size_t n, at, chunk;
} feed;

static long feed_read(void *user, void *buf, size_t n)
{
    feed *f = user;
    size_t k = f->n - f->at;
    k = k < n ? k : n;
    k = f->chunk != 0 && k > f->chunk ? f->chunk : k;
    memcpy(buf, f->p + f->at, k);
    f->at += k;
    return (long)k;
}

/* Every field, every LEN field again as a message (the reader's depth limit
 * bounds the recursion). */
static void walk(pb_reader *r)
{
    pb_field f;
    while (pb_next(r, &f) == PB_OK) {
        pb_reader sub;
        if (f.wire == PB_WIRE_LEN && pb_sub(r, &f, &sub) == PB_OK) {
            walk(&sub);
        }
        pb_packed it;
        uint64_t v;
        if (pb_packed_init(&it, &f, PB_WIRE_VARINT) == PB_OK) {
            while (pb_packed_next(&it, &v) == PB_OK) {
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    pb_reader r;
    pb_reader_init(&r, data + 1, size - 1, 0);
    walk(&r);
    char path[64];
    (void)snprintf(path, sizeof path, "/tmp/fuzz_perfetto_%d.slog", (int)getpid());
    slog_writer *w = NULL;
    if (slog_writer_create(&w, path, NULL, NULL) != SLOG_OK) {
        return 0;
    }
    feed in = {data + 1, size - 1, 0, data[0]};
    slog_error err;
    const int rc = perfetto_import(w, feed_read, &in, NULL, &err);
    if (rc != SLOG_OK && err.message[0] == '\0') {
        abort(); /* an error must say what went wrong */
    }
    (void)slog_writer_finish(w, NULL);
    slog_writer_destroy(w);
    (void)unlink(path);
    return 0;
}
