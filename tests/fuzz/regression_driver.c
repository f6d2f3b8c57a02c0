/* SPDX-License-Identifier: MIT
 *
 * regression_driver.c - replays saved fuzz inputs (files or directories
 * given as arguments) through a fuzz target's LLVMFuzzerTestOneInput, so
 * `meson test` runs every saved corpus without clang or libFuzzer.
 * Prints TAP: one line per input.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count;

static int run_file(const char *path)
{
    FILE *const f = fopen(path, "rb");
    if (f == NULL) {
        printf("not ok %d - %s: cannot open\n", ++count, path);
        return 1;
    }
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            uint8_t *const nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                (void)fclose(f);
                return 1;
            }
            buf = nb;
        }
        const size_t n = fread(buf + len, 1, cap - len, f);
        if (n == 0) {
            break;
        }
        len += n;
    }
    (void)fclose(f);
    (void)LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    printf("ok %d - %s\n", ++count, path);
    return 0;
}

static int run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        printf("not ok %d - %s: missing\n", ++count, path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        return run_file(path);
    }
    DIR *const d = opendir(path);
    if (d == NULL) {
        return 1;
    }
    int bad = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') {
            continue;
        }
        char sub[4096];
        (void)snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        bad |= run_path(sub);
    }
    (void)closedir(d);
    return bad;
}

int main(int argc, char **argv)
{
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        bad |= run_path(argv[i]);
    }
    printf("1..%d\n", count);
    return bad;
}
