/* SPDX-License-Identifier: MIT
 *
 * trace_fn.h - every call slog-trace records, as one list: the enum value
 * of a function is its category id in the trace file (categories are
 * defined in this order when a process's file is created), and the group
 * says which family it belongs to ("posix", "stdio", "mpi", "mpiio", "hdf5", "process").
 * Layer: slog-trace preload library.
 */
#ifndef SLOG_TRACE_FN_H
#define SLOG_TRACE_FN_H

#include <stdint.h>

#include "trace_sink.h"

/* X(enum name, category name, group, kind) */
#define TRACE_FUNCTIONS(X)                                                                         \
    X(OPEN, "open", "posix", STATE)                                                                \
    X(OPENAT, "openat", "posix", STATE)                                                            \
    X(CREAT, "creat", "posix", STATE)                                                              \
    X(CLOSE, "close", "posix", STATE)                                                              \
    X(READ, "read", "posix", STATE)                                                                \
    X(WRITE, "write", "posix", STATE)                                                              \
    X(PREAD, "pread", "posix", STATE)                                                              \
    X(PWRITE, "pwrite", "posix", STATE)                                                            \
    X(READV, "readv", "posix", STATE)                                                              \
    X(WRITEV, "writev", "posix", STATE)                                                            \
    X(PREADV, "preadv", "posix", STATE)                                                            \
    X(PWRITEV, "pwritev", "posix", STATE)                                                          \
    X(LSEEK, "lseek", "posix", STATE)                                                              \
    X(FSYNC, "fsync", "posix", STATE)                                                              \
    X(FDATASYNC, "fdatasync", "posix", STATE)                                                      \
    X(FTRUNCATE, "ftruncate", "posix", STATE)                                                      \
    X(MMAP, "mmap", "posix", STATE)                                                                \
    X(MUNMAP, "munmap", "posix", STATE)                                                            \
    X(MSYNC, "msync", "posix", STATE)                                                              \
    X(STAT, "stat", "posix", STATE)                                                                \
    X(LSTAT, "lstat", "posix", STATE)                                                              \
    X(FSTAT, "fstat", "posix", STATE)                                                              \
    X(FSTATAT, "fstatat", "posix", STATE)                                                          \
    X(STATX, "statx", "posix", STATE)                                                              \
    X(DUP, "dup", "posix", STATE)                                                                  \
    X(DUP2, "dup2", "posix", STATE)                                                                \
    X(DUP3, "dup3", "posix", STATE)                                                                \
    X(UNLINK, "unlink", "posix", STATE)                                                            \
    X(FOPEN, "fopen", "stdio", STATE)                                                              \
    X(FDOPEN, "fdopen", "stdio", STATE)                                                            \
    X(FREOPEN, "freopen", "stdio", STATE)                                                          \
    X(FCLOSE, "fclose", "stdio", STATE)                                                            \
    X(FREAD, "fread", "stdio", STATE)                                                              \
    X(FWRITE, "fwrite", "stdio", STATE)                                                            \
    X(FSEEK, "fseek", "stdio", STATE)                                                              \
    X(FTELL, "ftell", "stdio", STATE)                                                              \
    X(FFLUSH, "fflush", "stdio", STATE)                                                            \
    X(FGETS, "fgets", "stdio", STATE)                                                              \
    X(FPUTS, "fputs", "stdio", STATE)                                                              \
    X(FPRINTF, "fprintf", "stdio", STATE)                                                          \
    X(FGETC, "fgetc", "stdio", STATE)                                                              \
    X(FPUTC, "fputc", "stdio", STATE)                                                              \
    X(UNGETC, "ungetc", "stdio", STATE)                                                            \
    X(GETLINE, "getline", "stdio", STATE)                                                          \
    X(DPRINTF, "dprintf", "stdio", STATE)                                                          \
    X(FORK, "fork", "process", STATE)                                                              \
    X(EXEC, "exec", "process", EVENT)                                                              \
    X(EXIT, "_exit", "process", EVENT)                                                             \
    X(EXIT_CALL, "exit", "process", EVENT)                                                         \
    X(KILL, "kill", "process", EVENT)                                                              \
    X(MPI_INIT, "MPI_Init", "mpi", STATE)                                                          \
    X(MPI_FINALIZE, "MPI_Finalize", "mpi", STATE)                                                  \
    X(MPI_ABORT, "MPI_Abort", "mpi", EVENT)                                                        \
    X(MPI_SEND, "MPI_Send", "mpi", STATE)                                                          \
    X(MPI_SSEND, "MPI_Ssend", "mpi", STATE)                                                        \
    X(MPI_ISEND, "MPI_Isend", "mpi", STATE)                                                        \
    X(MPI_RECV, "MPI_Recv", "mpi", STATE)                                                          \
    X(MPI_IRECV, "MPI_Irecv", "mpi", STATE)                                                        \
    X(MPI_SENDRECV, "MPI_Sendrecv", "mpi", STATE)                                                  \
    X(MPI_WAIT, "MPI_Wait", "mpi", STATE)                                                          \
    X(MPI_WAITALL, "MPI_Waitall", "mpi", STATE)                                                    \
    X(MPI_RECV_DONE, "MPI message received", "mpi", EVENT)                                         \
    X(MPI_BARRIER, "MPI_Barrier", "mpi", STATE)                                                    \
    X(MPI_BCAST, "MPI_Bcast", "mpi", STATE)                                                        \
    X(MPI_REDUCE, "MPI_Reduce", "mpi", STATE)                                                      \
    X(MPI_ALLREDUCE, "MPI_Allreduce", "mpi", STATE)                                                \
    X(MPI_GATHER, "MPI_Gather", "mpi", STATE)                                                      \
    X(MPI_ALLGATHER, "MPI_Allgather", "mpi", STATE)                                                \
    X(MPI_SCATTER, "MPI_Scatter", "mpi", STATE)                                                    \
    X(MPI_ALLTOALL, "MPI_Alltoall", "mpi", STATE)                                                  \
    X(PIPE, "pipe", "posix", STATE)                                                                \
    X(SOCKET, "socket", "posix", STATE)                                                            \
    X(ACCEPT, "accept", "posix", STATE)                                                            \
    X(FSCANF, "fscanf", "stdio", STATE)                                                            \
    X(COPY_FILE_RANGE, "copy_file_range", "posix", STATE)                                          \
    X(SENDFILE, "sendfile", "posix", STATE)                                                        \
    X(MPI_FILE_OPEN, "MPI_File_open", "mpiio", STATE)                                              \
    X(MPI_FILE_CLOSE, "MPI_File_close", "mpiio", STATE)                                            \
    X(MPI_FILE_DELETE, "MPI_File_delete", "mpiio", STATE)                                          \
    X(MPI_FILE_READ, "MPI_File_read", "mpiio", STATE)                                              \
    X(MPI_FILE_READ_ALL, "MPI_File_read_all", "mpiio", STATE)                                      \
    X(MPI_FILE_READ_AT, "MPI_File_read_at", "mpiio", STATE)                                        \
    X(MPI_FILE_READ_AT_ALL, "MPI_File_read_at_all", "mpiio", STATE)                                \
    X(MPI_FILE_WRITE, "MPI_File_write", "mpiio", STATE)                                            \
    X(MPI_FILE_WRITE_ALL, "MPI_File_write_all", "mpiio", STATE)                                    \
    X(MPI_FILE_WRITE_AT, "MPI_File_write_at", "mpiio", STATE)                                      \
    X(MPI_FILE_WRITE_AT_ALL, "MPI_File_write_at_all", "mpiio", STATE)                              \
    X(MPI_FILE_READ_SHARED, "MPI_File_read_shared", "mpiio", STATE)                                \
    X(MPI_FILE_WRITE_SHARED, "MPI_File_write_shared", "mpiio", STATE)                              \
    X(MPI_FILE_READ_ORDERED, "MPI_File_read_ordered", "mpiio", STATE)                              \
    X(MPI_FILE_WRITE_ORDERED, "MPI_File_write_ordered", "mpiio", STATE)                            \
    X(MPI_FILE_IREAD, "MPI_File_iread", "mpiio", STATE)                                            \
    X(MPI_FILE_IWRITE, "MPI_File_iwrite", "mpiio", STATE)                                          \
    X(MPI_FILE_IREAD_ALL, "MPI_File_iread_all", "mpiio", STATE)                                    \
    X(MPI_FILE_IWRITE_ALL, "MPI_File_iwrite_all", "mpiio", STATE)                                  \
    X(MPI_FILE_IREAD_AT, "MPI_File_iread_at", "mpiio", STATE)                                      \
    X(MPI_FILE_IWRITE_AT, "MPI_File_iwrite_at", "mpiio", STATE)                                    \
    X(MPI_FILE_IREAD_AT_ALL, "MPI_File_iread_at_all", "mpiio", STATE)                              \
    X(MPI_FILE_IWRITE_AT_ALL, "MPI_File_iwrite_at_all", "mpiio", STATE)                            \
    X(MPI_FILE_IREAD_SHARED, "MPI_File_iread_shared", "mpiio", STATE)                              \
    X(MPI_FILE_IWRITE_SHARED, "MPI_File_iwrite_shared", "mpiio", STATE)                            \
    X(MPI_FILE_SEEK, "MPI_File_seek", "mpiio", STATE)                                              \
    X(MPI_FILE_SEEK_SHARED, "MPI_File_seek_shared", "mpiio", STATE)                                \
    X(MPI_FILE_SET_VIEW, "MPI_File_set_view", "mpiio", STATE)                                      \
    X(MPI_FILE_SYNC, "MPI_File_sync", "mpiio", STATE)                                              \
    X(MPI_FILE_SET_SIZE, "MPI_File_set_size", "mpiio", STATE)                                      \
    X(MPI_FILE_PREALLOCATE, "MPI_File_preallocate", "mpiio", STATE)                                \
    X(MPI_WAITANY, "MPI_Waitany", "mpi", STATE)                                                    \
    X(MPI_WAITSOME, "MPI_Waitsome", "mpi", STATE)                                                  \
    X(MPI_TEST, "MPI_Test", "mpi", STATE)                                                          \
    X(MPI_TESTALL, "MPI_Testall", "mpi", STATE)                                                    \
    X(MPI_TESTANY, "MPI_Testany", "mpi", STATE)                                                    \
    X(MPI_TESTSOME, "MPI_Testsome", "mpi", STATE)                                                  \
    X(MPI_BSEND, "MPI_Bsend", "mpi", STATE)                                                        \
    X(MPI_RSEND, "MPI_Rsend", "mpi", STATE)                                                        \
    X(MPI_ISSEND, "MPI_Issend", "mpi", STATE)                                                      \
    X(MPI_IBSEND, "MPI_Ibsend", "mpi", STATE)                                                      \
    X(MPI_IRSEND, "MPI_Irsend", "mpi", STATE)                                                      \
    X(MPI_SENDRECV_REPLACE, "MPI_Sendrecv_replace", "mpi", STATE)                                  \
    X(MPI_PROBE, "MPI_Probe", "mpi", STATE)                                                        \
    X(MPI_IPROBE, "MPI_Iprobe", "mpi", STATE)                                                      \
    X(MPI_GATHERV, "MPI_Gatherv", "mpi", STATE)                                                    \
    X(MPI_SCATTERV, "MPI_Scatterv", "mpi", STATE)                                                  \
    X(MPI_ALLGATHERV, "MPI_Allgatherv", "mpi", STATE)                                              \
    X(MPI_ALLTOALLV, "MPI_Alltoallv", "mpi", STATE)                                                \
    X(MPI_REDUCE_SCATTER, "MPI_Reduce_scatter", "mpi", STATE)                                      \
    X(MPI_REDUCE_SCATTER_BLOCK, "MPI_Reduce_scatter_block", "mpi", STATE)                          \
    X(MPI_SCAN, "MPI_Scan", "mpi", STATE)                                                          \
    X(MPI_EXSCAN, "MPI_Exscan", "mpi", STATE)                                                      \
    X(MPI_IBARRIER, "MPI_Ibarrier", "mpi", STATE)                                                  \
    X(MPI_IBCAST, "MPI_Ibcast", "mpi", STATE)                                                      \
    X(MPI_IREDUCE, "MPI_Ireduce", "mpi", STATE)                                                    \
    X(MPI_IALLREDUCE, "MPI_Iallreduce", "mpi", STATE)                                              \
    X(MPI_IGATHER, "MPI_Igather", "mpi", STATE)                                                    \
    X(MPI_IALLGATHER, "MPI_Iallgather", "mpi", STATE)                                              \
    X(MPI_ISCATTER, "MPI_Iscatter", "mpi", STATE)                                                  \
    X(MPI_IALLTOALL, "MPI_Ialltoall", "mpi", STATE)                                                \
    X(UNLINKAT, "unlinkat", "posix", STATE)                                                        \
    X(RENAME, "rename", "posix", STATE)                                                            \
    X(MKSTEMP, "mkstemp", "posix", STATE)                                                          \
    X(H5FCREATE, "H5Fcreate", "hdf5", STATE)                                                       \
    X(H5FOPEN, "H5Fopen", "hdf5", STATE)                                                           \
    X(H5FFLUSH, "H5Fflush", "hdf5", STATE)                                                         \
    X(H5FCLOSE, "H5Fclose", "hdf5", STATE)                                                         \
    X(H5GCREATE, "H5Gcreate2", "hdf5", STATE)                                                      \
    X(H5GOPEN, "H5Gopen2", "hdf5", STATE)                                                          \
    X(H5GCLOSE, "H5Gclose", "hdf5", STATE)                                                         \
    X(H5DCREATE, "H5Dcreate2", "hdf5", STATE)                                                      \
    X(H5DOPEN, "H5Dopen2", "hdf5", STATE)                                                          \
    X(H5DREAD, "H5Dread", "hdf5", STATE)                                                           \
    X(H5DWRITE, "H5Dwrite", "hdf5", STATE)                                                         \
    X(H5DCLOSE, "H5Dclose", "hdf5", STATE)                                                         \
    X(H5ACREATE, "H5Acreate2", "hdf5", STATE)                                                      \
    X(H5AOPEN, "H5Aopen", "hdf5", STATE)                                                           \
    X(H5AREAD, "H5Aread", "hdf5", STATE)                                                           \
    X(H5AWRITE, "H5Awrite", "hdf5", STATE)                                                         \
    X(H5ACLOSE, "H5Aclose", "hdf5", STATE)                                                         \
    X(H5OOPEN, "H5Oopen", "hdf5", STATE)                                                           \
    X(H5OCLOSE, "H5Oclose", "hdf5", STATE)                                                         \
    X(MPI_SEND_INIT, "MPI_Send_init", "mpi", STATE)                                                \
    X(MPI_SSEND_INIT, "MPI_Ssend_init", "mpi", STATE)                                              \
    X(MPI_BSEND_INIT, "MPI_Bsend_init", "mpi", STATE)                                              \
    X(MPI_RSEND_INIT, "MPI_Rsend_init", "mpi", STATE)                                              \
    X(MPI_RECV_INIT, "MPI_Recv_init", "mpi", STATE)                                                \
    X(MPI_START, "MPI_Start", "mpi", STATE)                                                        \
    X(MPI_STARTALL, "MPI_Startall", "mpi", STATE)                                                  \
    X(MPI_SEND_STARTED, "MPI message sent", "mpi", EVENT)

#define TRACE_FN_ENUM(e, n, g, k) TRACE_FN_##e,
typedef enum trace_fn {
    TRACE_FUNCTIONS(TRACE_FN_ENUM) TRACE_FN_COUNT
} trace_fn;
#undef TRACE_FN_ENUM

/* The categories in enum order (trace_core.c passes them to sink_open). */
extern const sink_category trace_fn_categories[TRACE_FN_COUNT];

#endif /* SLOG_TRACE_FN_H */
