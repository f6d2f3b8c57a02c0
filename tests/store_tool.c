/* SPDX-License-Identifier: MIT
 *
 * store_tool.c - test helper for interop_lz4.sh and the write benchmark:
 *   store_tool write FILE [CHUNK]   deterministic file: tables + blobs
 *   store_tool check FILE           read every blob back and compare
 *   store_tool payload FILE OUT     decoded /payload bytes [0, payload_bytes)
 *   store_tool bench FILE MIB [LEVEL [SOURCE]]  append MIB of blobs (trace-like, or
 *                                   every blob of SOURCE), print MB/s and ratio
 * Exit status 0 on success, 1 on any difference or error (printed on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store.h"
#include "util_alloc.h"

#define NBLOBS 12

static const size_t blob_sizes[NBLOBS] = {1,     100,    4096,  4097,  65536, 65535,
                                          70000, 200000, 12345, 65537, 3,     131072};

/* Trace-like bytes: 16-byte records of small ids and growing timestamps. */
static void fill_blob(unsigned char *p, size_t n, uint32_t seed)
{
    uint64_t t = seed;
    uint32_t x = seed * 2654435761u + 7u;
    for (size_t i = 0; i < n; i += 16) {
        x = x * 1103515245u + 12345u;
        t += (x >> 20) & 0x3ff;
        unsigned char rec[16];
        const uint32_t tid = (x >> 8) & 7u;
        const uint32_t cat = (x >> 12) & 15u;
        memcpy(rec, &tid, 4);
        memcpy(rec + 4, &cat, 4);
        memcpy(rec + 8, &t, 8);
        memcpy(p + i, rec, n - i < 16 ? n - i : 16);
    }
}

static int fail(const char *what, const slog_error *err)
{
    (void)fprintf(stderr, "store_tool: %s: %s (%s, offset %llu)\n", what, err->message, err->source,
                  (unsigned long long)err->offset);
    return 1;
}

static store_header header(uint32_t chunk, int level)
{
    store_header h;
    memset(&h, 0, sizeof h);
    h.format_read_version = STORE_FORMAT_WRITTEN_READ_VERSION;
    h.format_write_version = STORE_FORMAT_WRITE_VERSION;
    h.ticks_per_second = 1000000000u;
    h.fanout = 2;
    h.chunk_bytes = chunk;
    h.lz4_level = level;
    h.preview_bytes = 8192;
    (void)snprintf(h.creator, sizeof h.creator, "store_tool");
    return h;
}

static int write_tables(store *s, slog_error *err)
{
    static const char strings[] = "host0\0rank 0\0thread 1\0MPI_Send\0compute\0";
    const store_timeline_row tl[3] = {{0, SLOG_NO_PARENT, SLOG_TIMELINE_HOST, 0, 0, 0},
                                      {1, 0, SLOG_TIMELINE_RANK, 0, 1, 6},
                                      {2, 1, SLOG_TIMELINE_THREAD, 0, 2, 13}};
    const store_category_row cat[2] = {{0, SLOG_KIND_ARROW, 0xff0000ffu, 0, 22, UINT64_MAX},
                                       {1, SLOG_KIND_STATE, 0x00ff00ffu, 0, 31, 22}};
    if (store_append_strings(s, strings, sizeof strings, err) != 0 ||
        store_append_timelines(s, tl, 3, err) != 0 ||
        store_append_categories(s, cat, 2, err) != 0) {
        return -1;
    }
    return 0;
}

static int write_blobs(store *s, store_summary *sum, slog_error *err)
{
    for (uint32_t b = 0; b < NBLOBS; b++) {
        unsigned char *const raw = util_malloc(blob_sizes[b]);
        fill_blob(raw, blob_sizes[b], b);
        store_node_row r;
        memset(&r, 0, sizeof r);
        r.t0 = (int64_t)b * 100;
        r.t1 = (int64_t)b * 100 + 99;
        r.subtree_nodes = 1;
        r.payload_len = blob_sizes[b];
        r.counts[0] = b;
        const int rc = store_append_blob(s, raw, blob_sizes[b], &r.payload_off, err);
        util_free(raw);
        if (rc != 0 || store_append_nodes(s, &r, 1, err) != 0) {
            return -1;
        }
        sum->payload_bytes = r.payload_off + blob_sizes[b];
    }
    sum->nodes = NBLOBS;
    return 0;
}

static int cmd_write(const char *path, uint32_t chunk)
{
    slog_error err;
    store *s = NULL;
    const store_header h = header(chunk, 1);
    if (store_create(&s, path, &h, 0, &err) != 0) {
        return fail("create", &err);
    }
    store_summary sum = {.complete = 1, .depth = 1, .start = 0, .end = (int64_t)NBLOBS * 100};
    sum.timelines = 3;
    sum.categories = 2;
    if (write_tables(s, &err) != 0 || write_blobs(s, &sum, &err) != 0 ||
        store_write_summary(s, &sum, &err) != 0 || store_close(s, &err) != 0) {
        return fail("write", &err);
    }
    return 0;
}

static int cmd_check(const char *path)
{
    slog_error err;
    store *s = NULL;
    store_header h;
    if (store_open(&s, path, &h, &err) != 0) {
        return fail("open", &err);
    }
    store_node_row *nodes = NULL;
    uint64_t n = 0;
    int bad = store_read_nodes(s, &nodes, &n, &err) != 0 ? fail("nodes", &err) : n != NBLOBS;
    for (uint64_t i = 0; bad == 0 && i < n; i++) {
        const size_t len = (size_t)nodes[i].payload_len;
        unsigned char *const want = util_malloc(len);
        unsigned char *const got = util_malloc(len);
        fill_blob(want, len, (uint32_t)i);
        if (store_read_blob(s, nodes[i].payload_off, len, got, NULL, &err) != 0) {
            bad = fail("read_blob", &err);
        } else if (len != blob_sizes[i] || memcmp(want, got, len) != 0) {
            (void)fprintf(stderr, "store_tool: blob %llu differs\n", (unsigned long long)i);
            bad = 1;
        }
        util_free(got);
        util_free(want);
    }
    util_free(nodes);
    (void)store_close(s, NULL);
    return bad;
}

static int cmd_payload(const char *path, const char *out)
{
    slog_error err;
    store *s = NULL;
    store_header h;
    if (store_open(&s, path, &h, &err) != 0) {
        return fail("open", &err);
    }
    store_summary sum;
    int rc = store_read_summary(s, &sum, &err) != 0 ? fail("summary", &err) : 0;
    /* Whole chunks: the dataset's extent rounded up from the last blob. */
    const uint64_t n = (sum.payload_bytes + h.chunk_bytes - 1) / h.chunk_bytes * h.chunk_bytes;
    unsigned char *const buf = util_malloc((size_t)n);
    if (rc == 0 && store_read_blob(s, 0, n, buf, NULL, &err) != 0) {
        rc = fail("read_blob", &err);
    }
    FILE *const f = rc == 0 ? fopen(out, "wb") : NULL;
    if (f == NULL || fwrite(buf, 1, (size_t)n, f) != n || fclose(f) != 0) {
        rc = 1;
    }
    util_free(buf);
    (void)store_close(s, NULL);
    return rc;
}

static double now_s(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Blobs to replay: synthetic 64 KiB ones, or every node's payload and
 * preview blob read from a real libslog file (the writer's exact pattern). */
typedef struct blob_set {
    unsigned char *bytes;
    size_t *len;
    size_t n;
} blob_set;

static int synthetic_blobs(blob_set *b)
{
    const size_t blob = 65536;
    b->n = 16;
    b->bytes = util_malloc(blob * b->n);
    b->len = util_malloc(b->n * sizeof *b->len);
    for (uint32_t k = 0; k < b->n; k++) {
        fill_blob(b->bytes + k * blob, blob, k + 100);
        b->len[k] = blob;
    }
    return 0;
}

static int
load_blob(store *s, uint64_t off, uint64_t len, blob_set *b, size_t *used, slog_error *err)
{
    if (len == 0) {
        return 0;
    }
    b->bytes = util_realloc(b->bytes, *used + (size_t)len);
    b->len = util_realloc(b->len, (b->n + 1) * sizeof *b->len);
    if (store_read_blob(s, off, len, b->bytes + *used, NULL, err) != 0) {
        return -1;
    }
    b->len[b->n++] = (size_t)len;
    *used += (size_t)len;
    return 0;
}

static int real_blobs(const char *src, blob_set *b)
{
    slog_error err;
    store *s = NULL;
    store_header h;
    if (store_open(&s, src, &h, &err) != 0) {
        return fail("open source", &err);
    }
    store_node_row *nodes = NULL;
    uint64_t n = 0;
    size_t used = 0;
    int rc = store_read_nodes(s, &nodes, &n, &err) != 0 ? fail("nodes", &err) : 0;
    for (uint64_t i = 0; rc == 0 && i < n; i++) {
        if (load_blob(s, nodes[i].payload_off, nodes[i].payload_len, b, &used, &err) != 0 ||
            load_blob(s, nodes[i].preview_off, nodes[i].preview_len, b, &used, &err) != 0) {
            rc = fail("read source blob", &err);
        }
    }
    util_free(nodes);
    (void)store_close(s, NULL);
    return rc;
}

/* Append MIB MiB of blobs; print MB/s of raw input and the size ratio. */
static int cmd_bench(const char *path, size_t mib, int level, const char *src)
{
    blob_set b = {NULL, NULL, 0};
    if ((src != NULL ? real_blobs(src, &b) : synthetic_blobs(&b)) != 0 || b.n == 0) {
        return 1;
    }
    slog_error err;
    store *s = NULL;
    const store_header h = header(65536, level);
    if (store_create(&s, path, &h, 0, &err) != 0) {
        return fail("create", &err);
    }
    const size_t goal = mib * 1024 * 1024;
    size_t done = 0;
    size_t at = 0;
    const double t0 = now_s();
    for (size_t i = 0; done < goal; i++) {
        const size_t k = i % b.n;
        at = k == 0 ? 0 : at;
        uint64_t off = 0;
        if (store_append_blob(s, b.bytes + at, b.len[k], &off, &err) != 0) {
            return fail("append_blob", &err);
        }
        at += b.len[k];
        done += b.len[k];
        if (i % 256 == 255 && store_flush(s, &err) != 0) {
            return fail("flush", &err);
        }
    }
    if (store_close(s, &err) != 0) {
        return fail("close", &err);
    }
    const double dt = now_s() - t0;
    const double raw_mb = (double)done / 1e6;
    FILE *const f = fopen(path, "rb");
    long bytes = 0;
    if (f != NULL && fseek(f, 0, SEEK_END) == 0) {
        bytes = ftell(f);
    }
    if (f != NULL) {
        (void)fclose(f);
    }
    printf("level %d, %zu blobs from %s: %.1f MB raw in %.3f s = %.0f MB/s, file %.2f MB, "
           "ratio %.3f\n",
           level, b.n, src != NULL ? src : "synthetic records", raw_mb, dt, raw_mb / dt,
           (double)bytes / 1e6, (double)bytes / 1e6 / raw_mb);
    util_free(b.bytes);
    util_free(b.len);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "write") == 0) {
        return cmd_write(argv[2], argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 65536u);
    }
    if (argc == 3 && strcmp(argv[1], "check") == 0) {
        return cmd_check(argv[2]);
    }
    if (argc == 4 && strcmp(argv[1], "payload") == 0) {
        return cmd_payload(argv[2], argv[3]);
    }
    if (argc >= 4 && strcmp(argv[1], "bench") == 0) {
        return cmd_bench(argv[2], strtoul(argv[3], NULL, 10), argc > 4 ? atoi(argv[4]) : 1,
                         argc > 5 ? argv[5] : NULL);
    }
    (void)fprintf(stderr, "usage: store_tool write|check|payload|bench FILE ...\n");
    return 2;
}
