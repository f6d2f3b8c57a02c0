/* SPDX-License-Identifier: MIT
 *
 * chrome_dump.c - test tool: run the Chrome/.pfw importer pipeline on
 * inputs without libslog and print what would reach the writer: one JSON
 * line of counts per kind (default), or every drawable (--items).
 *   chrome_dump [--items] [--window N] [--lines] [--warnings] [--counts]
 *               [--chunk N] FILE...
 * --counts prints every import_count row; --chunk N reads the (one, not
 * compressed) file into memory and feeds it N bytes at a time.
 * Exit 0 imported, 1 import failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_harness.h"

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *data = malloc(cap);
    for (size_t got = 1; data != NULL && got > 0;) {
        if (n == cap) {
            unsigned char *d = realloc(data, cap * 2);
            if (d == NULL) {
                free(data);
                data = NULL;
                break;
            }
            data = d;
            cap *= 2;
        }
        got = fread(data + n, 1, cap - n, f);
        n += got;
    }
    (void)fclose(f);
    *len = n;
    return data;
}

/* One line per imported drawable, in import order (--items). */
static void print_items(const harness *h)
{
    static const char *const kn[] = {"state", "event", "arrow", "counter"};
    for (size_t k = 0; k < h->nitems; k++) {
        const h_item *it = &h->items[k];
        const h_category *c = &h->cat[it->category];
        (void)printf("%s tl=%s cat=%s/%s start=%lld end=%lld", kn[it->kind],
                     h->tl[it->timeline].name, c->name, c->group ? c->group : "",
                     (long long)it->start, (long long)it->end);
        if (it->kind == SLOG_KIND_STATE) {
            (void)printf(" depth=%u", it->depth);
        } else if (it->kind == SLOG_KIND_ARROW) {
            (void)printf(" to=%s", h->tl[it->to].name);
        } else if (it->kind == SLOG_KIND_COUNTER) {
            (void)printf(" value=%.17g", it->value);
        }
        (void)printf(" args={%s}\n", it->args ? it->args : "");
    }
}

int main(int argc, char **argv)
{
    bool items = false, warns = false, counts = false;
    size_t chunk = 0;
    uint64_t window = 1000000;
    chrome_mode mode = CHROME_MODE_AUTO;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        if (strcmp(argv[i], "--items") == 0) {
            items = true;
        } else if (strcmp(argv[i], "--warnings") == 0) {
            warns = true;
        } else if (strcmp(argv[i], "--lines") == 0) {
            mode = CHROME_MODE_LINES;
        } else if (strcmp(argv[i], "--counts") == 0) {
            counts = true;
        } else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc) {
            chunk = (size_t)strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--window") == 0 && i + 1 < argc) {
            window = strtoull(argv[++i], NULL, 10);
        } else {
            (void)fprintf(stderr, "usage: chrome_dump [--items] [--window N] [--lines] "
                                  "[--warnings] [--counts] [--chunk N] FILE...\n");
            return 2;
        }
    }
    if (i >= argc) {
        (void)fprintf(stderr, "chrome_dump: no input\n");
        return 2;
    }
    harness h;
    harness_init(&h, window, items);
    const char *const fast = getenv("SLOG_CHROME_FAST"); /* chrome_fast_equiv.py: 0 = off */
    h.no_fast_scan = fast != NULL && strcmp(fast, "0") == 0;
    h.warn_out = warns ? stderr : NULL;
    int rc;
    if (chunk > 0) {
        size_t len = 0;
        unsigned char *data = read_file(argv[i], &len);
        if (data == NULL) {
            harness_free(&h);
            return 2;
        }
        rc = harness_import_bytes(&h, data, len, chunk, mode);
        free(data);
    } else {
        rc = harness_import(&h, (const char *const *)(argv + i), (size_t)(argc - i), mode);
    }
    if (items) {
        print_items(&h);
    }
    (void)printf("{\"ok\": %s, \"states\": %llu, \"events\": %llu, \"arrows\": %llu, "
                 "\"counters\": %llu, \"timelines\": %zu, \"categories\": %zu, \"warnings\": %llu}\n",
                 rc == 0 ? "true" : "false", (unsigned long long)h.count[0],
                 (unsigned long long)h.count[1], (unsigned long long)h.count[2],
                 (unsigned long long)h.count[3], h.ntl, h.ncat, (unsigned long long)h.warnings);
    for (size_t k = 0; counts && k < h.nwhat; k++) {
        (void)printf("count %s: %llu %llu %llu\n", h.what[k], (unsigned long long)h.n[k][0],
                     (unsigned long long)h.n[k][1], (unsigned long long)h.n[k][2]);
    }
    if (rc != 0) {
        (void)fprintf(stderr, "chrome_dump: %s:%llu:%llu: %s\n", argv[i],
                      (unsigned long long)h.fail_line, (unsigned long long)h.fail_col,
                      h.fail_message);
    }
    harness_free(&h);
    return rc == 0 ? 0 : 1;
}
