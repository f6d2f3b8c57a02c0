/* SPDX-License-Identifier: MIT
 *
 * ck_files.h - whole files in Check suites: read one into memory, assert
 * that two are the same byte for byte (a writer's or importer's two paths
 * that must give the same file).  Header-only: static functions.
 */
#ifndef CK_FILES_H
#define CK_FILES_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The whole file at @p path (malloc'd, one spare byte); its size in *n. */
static inline uint8_t *ck_read_file(const char *path, size_t *n)
{
    FILE *const f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    const long len = ftell(f);
    ck_assert_int_ge(len, 0);
    rewind(f);
    uint8_t *const p = malloc((size_t)len + 1);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(fread(p, 1, (size_t)len, f), (size_t)len);
    ck_assert_int_eq(fclose(f), 0);
    *n = (size_t)len;
    return p;
}

/* Files @p a and @p b hold the same bytes (the first difference named). */
static inline void ck_assert_same_file(const char *a, const char *b)
{
    size_t na, nb;
    uint8_t *const pa = ck_read_file(a, &na), *const pb = ck_read_file(b, &nb);
    ck_assert_msg(na == nb, "%s and %s differ in size: %zu and %zu bytes", a, b, na, nb);
    size_t i = 0;
    while (i < na && pa[i] == pb[i]) {
        i++;
    }
    ck_assert_msg(i == na, "%s and %s differ at byte %zu of %zu", a, b, i, na);
    free(pa);
    free(pb);
}

#endif /* CK_FILES_H */
