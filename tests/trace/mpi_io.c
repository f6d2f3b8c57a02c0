/* SPDX-License-Identifier: MIT
 *
 * mpi_io.c - the MPI-IO program slog-trace's MPI-IO test traces
 * (trace_mpiio_test.py knows every call below and its args).  Each of N
 * ranks, on one shared file (argv[1]) opened by all: writes 1 KiB at
 * offset rank*1 KiB (write_at, with a status), 256 ints at (N + rank)
 * KiB (write_at_all, status ignored), 512 bytes through its individual
 * file pointer after a seek to 2N KiB + rank*512 (write), 100 bytes at
 * 3N KiB + rank*100 (iwrite_at + MPI_Wait); then sync, reads its first
 * KiB back (read_at_all), reads 1 KiB from 24 bytes before the end (read_at:
 * 24 bytes move; Open MPI's collective read would report 1 KiB there),
 * writes 8 bytes in rank order (write_ordered), sets an int view,
 * sets the size to 8N KiB and closes; rank 0 deletes the file.  Exit 0,
 * or 1 when a value read back or a count is wrong.
 */
#include <mpi.h>
#include <string.h>

#define KIB 1024

static int write_all_kinds(MPI_File fh, int rank, int n, char *buf)
{
    MPI_Status st;
    MPI_Request req;
    int got = 0;
    MPI_File_write_at(fh, (MPI_Offset)rank * KIB, buf, KIB, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &got);
    MPI_File_write_at_all(fh, (MPI_Offset)(n + rank) * KIB, buf, KIB / 4, MPI_INT,
                          MPI_STATUS_IGNORE);
    MPI_File_seek(fh, (MPI_Offset)2 * n * KIB + rank * 512, MPI_SEEK_SET);
    MPI_File_write(fh, buf, 512, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_iwrite_at(fh, (MPI_Offset)3 * n * KIB + rank * 100, buf, 100, MPI_BYTE, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return got == KIB ? 0 : 1;
}

static int read_back(MPI_File fh, int rank, int n, const char *buf)
{
    char in[KIB];
    MPI_Status st;
    int got = 0;
    MPI_File_sync(fh);
    MPI_File_read_at_all(fh, (MPI_Offset)rank * KIB, in, KIB, MPI_BYTE, MPI_STATUS_IGNORE);
    const int bad = memcmp(in, buf, KIB) != 0;
    const MPI_Offset end = (MPI_Offset)3 * n * KIB + (MPI_Offset)n * 100;
    MPI_File_read_at(fh, end - 24, in, KIB, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &got);
    return bad || got != 24;
}

int main(int argc, char **argv)
{
    int rank = 0, n = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    char buf[KIB];
    for (int i = 0; i < KIB; i++) {
        buf[i] = (char)(rank * 31 + i);
    }
    MPI_File fh;
    int bad = argc < 2 || MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR,
                                        MPI_INFO_NULL, &fh) != MPI_SUCCESS;
    if (!bad) {
        bad = write_all_kinds(fh, rank, n, buf) | read_back(fh, rank, n, buf);
        MPI_File_write_ordered(fh, buf, 8, MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
        MPI_File_set_size(fh, (MPI_Offset)8 * n * KIB);
        MPI_File_close(&fh);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && !bad) {
        MPI_File_delete(argv[1], MPI_INFO_NULL);
    }
    MPI_Finalize();
    return bad;
}
