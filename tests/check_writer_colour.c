/* SPDX-License-Identifier: MIT
 *
 * check_writer_colour.c - the colours a writer gives categories added
 * without one (rgba 0), through the public API (write, finish, read the
 * category table back): categories of one kind get distinct colours while
 * the palette lasts (also names that all had one colour in the old
 * 12-colour palette) and then share it evenly; other kinds are avoided
 * while that costs nothing; a name gets the colour it gets alone unless an
 * earlier category took it; colours given by the caller are kept exactly
 * and defaults avoid them; the same calls give the same colours, with and
 * without SLOG_WRITER_BACKGROUND; every default colour is opaque and
 * darker than what the viewer redraws as too light.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slog/slog.h>

#include "ck_quiet.h"

#define MAX_CATS 128
#define PALETTE  32 /* colours the writer has (api_writer_colour.c) */

typedef struct cat_spec {
    slog_kind kind;
    char name[32];
    uint32_t rgba;
} cat_spec;

static const char *const mpi_names[] = {
    "MPI_Init",   "MPI_Comm_size", "MPI_Comm_rank", "MPI_Send",    "MPI_Recv",      "MPI_Isend",
    "MPI_Irecv",  "MPI_Wait",      "MPI_Waitall",   "MPI_Bcast",   "MPI_Allreduce", "MPI_Reduce",
    "MPI_Gather", "MPI_Scatter",   "MPI_Alltoall",  "MPI_Barrier", "MPI_Sendrecv",  "MPI_Finalize",
};
#define N_MPI (sizeof mpi_names / sizeof mpi_names[0])

static char tmpdir[256];
static char path[512];

static void tmpdir_setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/check_writer_colour.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void tmpdir_teardown(void)
{
    (void)rmdir(tmpdir);
}

static void path_setup(void)
{
    snprintf(path, sizeof path, "%s/t.slog", tmpdir);
}

static void path_teardown(void)
{
    (void)unlink(path);
}

/* Write a file with categories @p c[0..n) (writer @p flags), read their
 * colours back into @p out. */
static void write_colours(const cat_spec *c, size_t n, uint32_t flags, uint32_t *out)
{
    slog_writer_options o = SLOG_WRITER_OPTIONS_INIT;
    o.flags = flags;
    slog_writer *w = NULL;
    slog_error err;
    ck_assert_int_eq(slog_writer_create(&w, path, &o, &err), SLOG_OK);
    for (size_t i = 0; i < n; i++) {
        uint32_t id = UINT32_MAX;
        ck_assert_int_eq(
            slog_writer_add_category(w, c[i].kind, c[i].name, c[i].rgba, NULL, &id, &err), SLOG_OK);
        ck_assert_uint_eq(id, i);
    }
    ck_assert_int_eq(slog_writer_finish(w, &err), SLOG_OK);
    slog_writer_destroy(w);
    slog_reader *r = NULL;
    ck_assert_int_eq(slog_reader_open(&r, path, NULL, &err), SLOG_OK);
    for (size_t i = 0; i < n; i++) {
        slog_category_info ci;
        ck_assert_int_eq(slog_reader_category(r, (uint32_t)i, &ci), SLOG_OK);
        ck_assert_str_eq(ci.name, c[i].name);
        out[i] = ci.rgba;
    }
    slog_reader_destroy(r);
    ck_assert_int_eq(unlink(path), 0);
}

/* The colour @p name gets as the only category of a file. */
static uint32_t colour_alone(slog_kind kind, const char *name)
{
    cat_spec c = {kind, "", 0};
    snprintf(c.name, sizeof c.name, "%s", name);
    uint32_t rgba = 0;
    write_colours(&c, 1, 0, &rgba);
    return rgba;
}

static size_t count_of(const uint32_t *v, size_t n, uint32_t x)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        k += v[i] == x ? 1u : 0u;
    }
    return k;
}

static size_t distinct(const uint32_t *v, size_t n)
{
    size_t d = 0;
    for (size_t i = 0; i < n; i++) {
        d += count_of(v, i, v[i]) == 0 ? 1u : 0u;
    }
    return d;
}

/* The slot the writer's first palette (12 colours) gave @p name. */
static uint32_t old_slot(const char *name)
{
    uint32_t h = 2166136261u;
    for (const char *p = name; *p != '\0'; p++) {
        h = (h ^ (uint8_t)*p) * 16777619u;
    }
    return h % 12;
}

/* @p n state names ("region K") that the old palette gave one colour. */
static void old_colliders(cat_spec *c, size_t n)
{
    size_t got = 0;
    for (unsigned k = 0; got < n; k++) {
        cat_spec s = {SLOG_KIND_STATE, "", 0};
        snprintf(s.name, sizeof s.name, "region %u", k);
        if (old_slot(s.name) == 5) {
            c[got++] = s;
        }
    }
}

START_TEST(test_writer_colour_old_collisions_get_distinct_colours)
{
    cat_spec c[16];
    uint32_t rgba[16];
    old_colliders(c, 16);
    write_colours(c, 16, _i == 0 ? 0 : SLOG_WRITER_BACKGROUND, rgba);
    ck_assert_uint_eq(distinct(rgba, 16), 16);
}
END_TEST

START_TEST(test_writer_colour_kind_uses_whole_palette_then_shares_evenly)
{
    const slog_kind kind = (slog_kind)_i;
    cat_spec c[3 * PALETTE];
    uint32_t rgba[3 * PALETTE];
    for (size_t i = 0; i < 3 * PALETTE; i++) {
        c[i] = (cat_spec){kind, "", 0};
        snprintf(c[i].name, sizeof c[i].name, "function_%zu", i * 7919);
    }
    write_colours(c, 3 * PALETTE, 0, rgba);
    ck_assert_uint_eq(distinct(rgba, PALETTE), PALETTE);
    ck_assert_uint_eq(distinct(rgba, 3 * PALETTE), PALETTE);
    for (size_t i = 0; i < PALETTE; i++) {
        ck_assert_uint_eq(count_of(rgba, 3 * PALETTE, rgba[i]), 3);
    }
}
END_TEST

static double linear(uint32_t byte)
{
    const double x = byte / 255.0;
    return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4);
}

START_TEST(test_writer_colour_palette_is_opaque_and_not_light)
{
    cat_spec c[PALETTE];
    uint32_t rgba[PALETTE];
    for (size_t i = 0; i < PALETTE; i++) {
        c[i] = (cat_spec){SLOG_KIND_STATE, "", 0};
        snprintf(c[i].name, sizeof c[i].name, "s%zu", i);
    }
    write_colours(c, PALETTE, 0, rgba);
    for (size_t i = 0; i < PALETTE; i++) {
        const uint32_t r = rgba[i] >> 24, g = (rgba[i] >> 16) & 0xffu, b = (rgba[i] >> 8) & 0xffu;
        const double lum = 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
        ck_assert_uint_eq(rgba[i] & 0xffu, 0xffu);
        ck_assert_msg(lum <= 0.5 && lum >= 0.05, "#%08x: luminance %.3f", rgba[i], lum);
    }
}
END_TEST

START_TEST(test_writer_colour_other_kinds_avoided_while_free)
{
    cat_spec c[2 * 16];
    uint32_t rgba[2 * 16];
    old_colliders(c, 16);
    for (size_t i = 0; i < 16; i++) {
        c[16 + i] = c[i];
        c[16 + i].kind = i % 2 ? SLOG_KIND_EVENT : SLOG_KIND_COUNTER;
    }
    write_colours(c, 32, 0, rgba);
    ck_assert_uint_eq(distinct(rgba, 32), 32);
}
END_TEST

START_TEST(test_writer_colour_full_palette_of_states_leaves_events_their_own)
{
    cat_spec c[PALETTE + 1];
    uint32_t rgba[PALETTE + 1];
    for (size_t i = 0; i < PALETTE; i++) {
        c[i] = (cat_spec){SLOG_KIND_STATE, "", 0};
        snprintf(c[i].name, sizeof c[i].name, "state %zu", i);
    }
    c[PALETTE] = (cat_spec){SLOG_KIND_EVENT, "MPI_Send", 0};
    write_colours(c, PALETTE + 1, 0, rgba);
    ck_assert_uint_eq(rgba[PALETTE], colour_alone(SLOG_KIND_EVENT, "MPI_Send"));
}
END_TEST

START_TEST(test_writer_colour_name_keeps_its_colour_unless_taken)
{
    cat_spec c[N_MPI];
    uint32_t rgba[N_MPI];
    size_t kept = 0;
    for (size_t i = 0; i < N_MPI; i++) {
        c[i] = (cat_spec){SLOG_KIND_STATE, "", 0};
        snprintf(c[i].name, sizeof c[i].name, "%s", mpi_names[i]);
    }
    write_colours(c, N_MPI, 0, rgba);
    for (size_t i = 0; i < N_MPI; i++) {
        const uint32_t alone = colour_alone(SLOG_KIND_STATE, mpi_names[i]);
        ck_assert_uint_eq(count_of(rgba, i, rgba[i]), 0);
        if (count_of(rgba, i, alone) == 0) {
            ck_assert_msg(rgba[i] == alone, "%s: #%08x, alone #%08x", mpi_names[i], rgba[i], alone);
            kept++;
        }
    }
    ck_assert_uint_gt(kept, N_MPI / 2);
}
END_TEST

START_TEST(test_writer_colour_given_colours_kept_and_avoided)
{
    const uint32_t send = colour_alone(SLOG_KIND_STATE, "MPI_Send");
    const uint32_t given[] = {send, send ^ 0x01020300u, 0xffffffffu, 0x1f77b480u, 0x00000001u};
    enum {
        NG = sizeof given / sizeof given[0]
    };
    cat_spec c[2 * NG];
    uint32_t rgba[2 * NG];
    for (size_t i = 0; i < NG; i++) {
        c[2 * i] = (cat_spec){SLOG_KIND_STATE, "", given[i]};
        snprintf(c[2 * i].name, sizeof c[2 * i].name, "given %zu", i);
        c[2 * i + 1] = (cat_spec){SLOG_KIND_STATE, "", 0};
        snprintf(c[2 * i + 1].name, sizeof c[2 * i + 1].name, "%s", mpi_names[3 + 3 * i]);
    }
    write_colours(c, 2 * NG, _i == 0 ? 0 : SLOG_WRITER_BACKGROUND, rgba);
    for (size_t i = 0; i < NG; i++) {
        ck_assert_uint_eq(rgba[2 * i], given[i]);
    }
    /* MPI_Send's own colour and one a shade off are taken: it gets another */
    ck_assert_uint_ne(rgba[1], send);
    ck_assert_uint_ne(rgba[1], send ^ 0x01020300u);
    ck_assert_uint_eq(count_of(rgba, 2 * NG, send), 1);
}
END_TEST

START_TEST(test_writer_colour_same_calls_give_same_colours)
{
    cat_spec c[MAX_CATS];
    uint32_t a[MAX_CATS], b[MAX_CATS];
    for (size_t i = 0; i < MAX_CATS; i++) {
        c[i] = (cat_spec){(slog_kind)(i % 4), "", i % 9 == 0 ? 0x336699ffu : 0};
        snprintf(c[i].name, sizeof c[i].name, "%s %zu", mpi_names[i % N_MPI], i % 40);
    }
    write_colours(c, MAX_CATS, 0, a);
    write_colours(c, MAX_CATS, 0, b);
    ck_assert_mem_eq(a, b, sizeof a);
    write_colours(c, MAX_CATS, SLOG_WRITER_BACKGROUND, b);
    ck_assert_mem_eq(a, b, sizeof a);
}
END_TEST

static Suite *writer_colour_suite(void)
{
    Suite *s = suite_create("writer_colour");
    TCase *tc = tcase_create("writer_colour");
    tcase_add_unchecked_fixture(tc, tmpdir_setup, tmpdir_teardown);
    tcase_add_checked_fixture(tc, path_setup, path_teardown);
    tcase_add_loop_test(tc, test_writer_colour_old_collisions_get_distinct_colours, 0, 2);
    tcase_add_loop_test(tc, test_writer_colour_kind_uses_whole_palette_then_shares_evenly, 0, 4);
    tcase_add_test(tc, test_writer_colour_palette_is_opaque_and_not_light);
    tcase_add_test(tc, test_writer_colour_other_kinds_avoided_while_free);
    tcase_add_test(tc, test_writer_colour_full_palette_of_states_leaves_events_their_own);
    tcase_add_test(tc, test_writer_colour_name_keeps_its_colour_unless_taken);
    tcase_add_loop_test(tc, test_writer_colour_given_colours_kept_and_avoided, 0, 2);
    tcase_add_test(tc, test_writer_colour_same_calls_give_same_colours);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(writer_colour_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
