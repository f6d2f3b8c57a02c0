/* SPDX-License-Identifier: MIT
 *
 * chrome_dump.c - test tool: run the Chrome/.pfw importer pipeline on
 * inputs without libslog and print what would reach the writer: one JSON
 * line of counts per kind (default), or every drawable (--items).
 *   chrome_dump [--items] [--window N] [--lines] [--warnings] FILE...
 * Exit 0 imported, 1 import failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_harness.h"

int main(int argc, char **argv)
{
    bool items = false, warns = false;
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
        } else if (strcmp(argv[i], "--window") == 0 && i + 1 < argc) {
            window = strtoull(argv[++i], NULL, 10);
        } else {
            (void)fprintf(stderr, "usage: chrome_dump [--items] [--window N] [--lines] "
                                  "[--warnings] FILE...\n");
            return 2;
        }
    }
    if (i >= argc) {
        (void)fprintf(stderr, "chrome_dump: no input\n");
        return 2;
    }
    harness h;
    harness_init(&h, window, items);
    h.warn_out = warns ? stderr : NULL;
    const int rc = harness_import(&h, (const char *const *)(argv + i), (size_t)(argc - i), mode);
    if (items) {
        static const char *const kn[] = {"state", "event", "arrow", "counter"};
        for (size_t k = 0; k < h.nitems; k++) {
            const h_item *it = &h.items[k];
            const h_category *c = &h.cat[it->category];
            (void)printf("%s tl=%s cat=%s/%s start=%lld end=%lld", kn[it->kind],
                         h.tl[it->timeline].name, c->name, c->group ? c->group : "",
                         (long long)it->start, (long long)it->end);
            if (it->kind == SLOG_KIND_STATE) {
                (void)printf(" depth=%u", it->depth);
            } else if (it->kind == SLOG_KIND_ARROW) {
                (void)printf(" to=%s", h.tl[it->to].name);
            } else if (it->kind == SLOG_KIND_COUNTER) {
                (void)printf(" value=%.17g", it->value);
            }
            (void)printf(" args={%s}\n", it->args ? it->args : "");
        }
    }
    (void)printf("{\"ok\": %s, \"states\": %llu, \"events\": %llu, \"arrows\": %llu, "
                 "\"counters\": %llu, \"timelines\": %zu, \"categories\": %zu, \"warnings\": %llu}\n",
                 rc == 0 ? "true" : "false", (unsigned long long)h.count[0],
                 (unsigned long long)h.count[1], (unsigned long long)h.count[2],
                 (unsigned long long)h.count[3], h.ntl, h.ncat, (unsigned long long)h.warnings);
    if (rc != 0) {
        (void)fprintf(stderr, "chrome_dump: %s:%llu:%llu: %s\n", argv[i],
                      (unsigned long long)h.fail_line, (unsigned long long)h.fail_col,
                      h.fail_message);
    }
    harness_free(&h);
    return rc == 0 ? 0 : 1;
}
