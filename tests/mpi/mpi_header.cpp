// SPDX-License-Identifier: MIT
//
// mpi_header.cpp - mpi_header.c compiled as C++: slog_mpi.h (and the
// <mpi.h> it includes) from C++ under -Wpedantic -Werror.
#include "mpi_header.c"
