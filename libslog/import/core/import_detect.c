/* SPDX-License-Identifier: MIT
 *
 * import_detect.c - which format an input is: its first bytes (gzip and
 * single-member zip undone by input_stream.c; gzip also in caller-given
 * bytes) go to every entry's probe, and the highest score wins; a directory
 * is probed by path with no bytes.  Content decides, never the name alone.
 * Import library, core: public libslog headers, zlib.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#define ZLIB_CONST /* next_in is const: the head is only read */
#include <zlib.h>

#include "import_detect.h"
#include "import_run.h"

#define PROBE_BYTES 65536u

const char *const *slog_import_formats(void)
{
    return import_table_names;
}

const importer *import_find(const char *name)
{
    for (size_t i = 0; name != NULL && import_table[i] != NULL; i++) {
        if (strcmp(import_table[i]->name, name) == 0) {
            return import_table[i];
        }
    }
    return NULL;
}

/* The entry whose probe scores highest, or NULL. */
static const importer *probe_all(const char *path, const unsigned char *head, size_t n)
{
    const importer *best = NULL;
    int best_score = 0;
    for (size_t i = 0; import_table[i] != NULL; i++) {
        const int score = import_table[i]->probe(path != NULL ? path : "", head, n);
        if (score > best_score) {
            best_score = score;
            best = import_table[i];
        }
    }
    return best;
}

/* Inflate as much of a gzip head as there is into out[0, PROBE_BYTES). */
static size_t gunzip_head(const unsigned char *head, size_t n, unsigned char *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        return 0;
    }
    z.next_in = head;
    z.avail_in = (uInt)(n < UINT32_MAX ? n : UINT32_MAX);
    z.next_out = out;
    z.avail_out = PROBE_BYTES;
    (void)inflate(&z, Z_SYNC_FLUSH); /* a truncated stream yields what it can */
    const size_t got = PROBE_BYTES - z.avail_out;
    (void)inflateEnd(&z);
    return got;
}

int slog_import_detect(const char **format, const char *name, const void *head, size_t n)
{
    const unsigned char *const h = head;
    *format = NULL;
    if (h != NULL && n >= 2 && h[0] == 0x1f && h[1] == 0x8b) {
        unsigned char *const plain = malloc(PROBE_BYTES);
        if (plain == NULL) {
            return SLOG_ENOMEM;
        }
        const importer *const imp = probe_all(name, plain, gunzip_head(h, n, plain));
        free(plain);
        *format = imp != NULL ? imp->name : NULL;
        return SLOG_OK;
    }
    const importer *const imp = probe_all(name, h, h != NULL ? n : 0);
    *format = imp != NULL ? imp->name : NULL;
    return SLOG_OK;
}

/* Read up to PROBE_BYTES decompressed bytes of @p path into @p head. */
static int read_head(const import_ctx *ctx, const char *path, unsigned char *head, size_t *n,
                     char *why, size_t whylen)
{
    char err[256];
    import_stream *s = NULL;
    if (import_stream_open(&s, ctx, path, err, sizeof err) != 0) {
        return import_run_fail(ctx->run, SLOG_EIO, path, "%s", err);
    }
    while (*n < PROBE_BYTES) {
        const long r = import_stream_read(s, head + *n, PROBE_BYTES - *n);
        if (r < 0) { /* shown below if no importer recognises the bytes read */
            (void)snprintf(why, whylen, "%s (compressed byte %llu)", import_stream_error(s),
                           (unsigned long long)import_stream_pos(s));
        }
        if (r <= 0) {
            break; /* a read error shows again, with context, on import */
        }
        *n += (size_t)r;
    }
    import_stream_close(s);
    return SLOG_OK;
}

/* Is @p path a directory (a callback or memory input is not)?  -1: error. */
static int is_directory(import_ctx *ctx, const char *path, uint64_t *file_bytes)
{
    if (input_sources_find(&ctx->run->sources, path) != NULL) {
        return 0;
    }
    struct stat st;
    if (input_path_stat(path, &st) != 0) {
        return import_run_fail(ctx->run, SLOG_EIO, path, "Cannot open: %s", strerror(errno));
    }
    *file_bytes = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    return S_ISDIR(st.st_mode) ? 1 : 0;
}

int import_detect_one(import_ctx *ctx, const char *path, const importer **out, uint64_t *bytes)
{
    *out = NULL;
    const int dir = is_directory(ctx, path, bytes);
    if (dir < 0) {
        return dir;
    }
    unsigned char *head = NULL;
    size_t n = 0;
    char why[512] = "";
    if (dir == 0) {
        head = malloc(PROBE_BYTES);
        if (head == NULL) {
            return import_run_fail(ctx->run, SLOG_ENOMEM, path, "Out of memory");
        }
        const int rc = read_head(ctx, path, head, &n, why, sizeof why);
        if (rc != SLOG_OK) {
            free(head);
            return rc;
        }
    }
    *out = probe_all(path, head, n);
    free(head);
    if (*out == NULL && dir == 1) {
        return SLOG_OK; /* the caller looks for DFTracer files in it */
    }
    if (*out == NULL && why[0] != '\0') {
        return import_run_fail(ctx->run, SLOG_EIO, path, "Cannot read: %s", why);
    }
    if (*out == NULL) {
        return import_run_fail(ctx->run, SLOG_EPARSE, path,
                               "Cannot recognise the input format: name it "
                               "(slog_import_options.format, slog-import --format)");
    }
    return SLOG_OK;
}

int slog_import_detect_input(const char **format, const slog_import_input *input,
                             slog_error *err)
{
    *format = NULL;
    import_run run;
    int rc = import_run_init(&run, input, 1, NULL, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    import_ctx ctx = {NULL, 0, 1, input->name, &run};
    const importer *imp = NULL;
    uint64_t bytes = 0;
    rc = import_detect_one(&ctx, input->name, &imp, &bytes);
    if (rc != SLOG_OK && err != NULL) {
        *err = run.err;
    }
    *format = imp != NULL ? imp->name : NULL;
    import_run_destroy(&run);
    return rc;
}
