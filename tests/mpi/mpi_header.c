/* SPDX-License-Identifier: MIT
 *
 * mpi_header.c - slog_mpi.h compiles on its own (with <mpi.h> on the
 * include path) under -Wpedantic -Werror, and slog_mpi_options_init fills
 * what SLOG_MPI_OPTIONS_INIT does.  Built as C and as C++ (mpi_header.cpp).
 */
#include <slog/slog_mpi.h>
#include <string.h>

int main(void)
{
    const slog_mpi_options a = SLOG_MPI_OPTIONS_INIT;
    slog_mpi_options b;
    memset(&b, 0xff, sizeof b);
    slog_mpi_options_init(&b);
    return memcmp(&a, &b, sizeof a) != 0 || a.struct_size != sizeof a;
}
