/* SPDX-License-Identifier: MIT
 *
 * yajl_bare.c - benchmark baseline: a bare yajl SAX parse of a file (same
 * 256 KiB chunks and options as slog-import's reader, callbacks that only
 * count), printing bytes, seconds, MB/s and the number of map starts.
 *   yajl_bare FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <yajl/yajl_parse.h>

static unsigned long long maps;

static int on_start_map(void *ctx)
{
    (void)ctx;
    maps++;
    return 1;
}

static int on_any(void *ctx)
{
    (void)ctx;
    return 1;
}

static int on_bool(void *ctx, int b)
{
    (void)ctx;
    (void)b;
    return 1;
}

static int on_text(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    (void)s;
    (void)n;
    return 1;
}

static int on_str(void *ctx, const unsigned char *s, size_t n)
{
    (void)ctx;
    (void)s;
    (void)n;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        (void)fprintf(stderr, "usage: yajl_bare FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        perror(argv[1]);
        return 1;
    }
    yajl_callbacks cb = {on_any, on_bool, NULL, NULL, on_text, on_str, on_start_map,
                         on_str, on_any, on_any, on_any};
    yajl_handle h = yajl_alloc(&cb, NULL, NULL);
    (void)yajl_config(h, yajl_dont_validate_strings, 1);
    static unsigned char buf[256 * 1024];
    struct timespec t0, t1;
    (void)clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long long total = 0;
    size_t n;
    int rc = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        total += n;
        if (yajl_parse(h, buf, n) != yajl_status_ok) {
            rc = 1;
            break;
        }
    }
    if (rc == 0 && yajl_complete_parse(h) != yajl_status_ok) {
        rc = 1;
    }
    (void)clock_gettime(CLOCK_MONOTONIC, &t1);
    const double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    (void)printf("{\"bytes\": %llu, \"seconds\": %.3f, \"mb_per_s\": %.1f, \"objects\": %llu, "
                 "\"ok\": %s}\n",
                 total, s, (double)total / 1e6 / s, maps, rc == 0 ? "true" : "false");
    yajl_free(h);
    (void)fclose(f);
    return rc;
}
