/* SPDX-License-Identifier: MIT
 *
 * trace_mpi_io.c - PMPI wrappers of MPI-IO, group "mpiio": MPI_File_open,
 * close and delete; the data calls (explicit offset, individual and shared
 * file pointer; blocking, collective and nonblocking), recorded with the
 * file's name, the bytes asked (count), the offset in etypes of the view
 * (the one given, or the individual file pointer before the call) and,
 * for a blocking call, the bytes its status says moved; seek, set_view,
 * sync, set_size and preallocate.  Every record has the MPI result (ret).
 * The POSIX calls MPI-IO makes on the program's behalf are recorded too,
 * one level deeper on the same thread.
 * Layer: slog-trace preload library; Open MPI's mpi.h.
 */
#include <limits.h>

#include "trace_core.h"
#include "trace_mpi.h"

TRACE_WEAK(PMPI_File_open);
TRACE_WEAK(PMPI_File_close);
TRACE_WEAK(PMPI_File_delete);
TRACE_WEAK(PMPI_File_read);
TRACE_WEAK(PMPI_File_read_all);
TRACE_WEAK(PMPI_File_read_at);
TRACE_WEAK(PMPI_File_read_at_all);
TRACE_WEAK(PMPI_File_write);
TRACE_WEAK(PMPI_File_write_all);
TRACE_WEAK(PMPI_File_write_at);
TRACE_WEAK(PMPI_File_write_at_all);
TRACE_WEAK(PMPI_File_read_shared);
TRACE_WEAK(PMPI_File_write_shared);
TRACE_WEAK(PMPI_File_read_ordered);
TRACE_WEAK(PMPI_File_write_ordered);
TRACE_WEAK(PMPI_File_iread);
TRACE_WEAK(PMPI_File_iwrite);
TRACE_WEAK(PMPI_File_iread_all);
TRACE_WEAK(PMPI_File_iwrite_all);
TRACE_WEAK(PMPI_File_iread_at);
TRACE_WEAK(PMPI_File_iwrite_at);
TRACE_WEAK(PMPI_File_iread_at_all);
TRACE_WEAK(PMPI_File_iwrite_at_all);
TRACE_WEAK(PMPI_File_iread_shared);
TRACE_WEAK(PMPI_File_iwrite_shared);
TRACE_WEAK(PMPI_File_seek);
TRACE_WEAK(PMPI_File_seek_shared);
TRACE_WEAK(PMPI_File_set_view);
TRACE_WEAK(PMPI_File_sync);
TRACE_WEAK(PMPI_File_set_size);
TRACE_WEAK(PMPI_File_preallocate);

MPI_Offset trace_mpi_io_position(MPI_File fh)
{
    MPI_Offset pos = -1;
    return PMPI_File_get_position(fh, &pos) == MPI_SUCCESS ? pos : -1;
}

int trace_mpi_io_file_done(
    const trace_call *c, trace_fn fn, MPI_File fh, const trace_args *extra, int r)
{
    char path[PATH_MAX];
    trace_mpi_file_name(fh, path, sizeof path);
    trace_args a = *extra;
    targ_str(&a, "path", path);
    targ_int(&a, "ret", r);
    trace_leave(c, fn, &a);
    return r;
}

int trace_mpi_io_data_done(
    const trace_call *c, trace_fn fn, const trace_mpi_io_data *d, const MPI_Status *st, int r)
{
    trace_args a = {.n = 0};
    targ_int(&a, "count", d->asked);
    if (d->offset >= 0) {
        targ_int(&a, "offset", d->offset);
    }
    int n = 0;
    if (st != NULL && r == MPI_SUCCESS && PMPI_Get_count(st, d->type, &n) == MPI_SUCCESS &&
        n != MPI_UNDEFINED) {
        targ_int(&a, "bytes", trace_mpi_bytes(n, d->type));
    }
    return trace_mpi_io_file_done(c, fn, d->fh, &a, r);
}

/* A blocking data call.  A program that ignores the status gets the
 * wrapper's own in its place, so that the bytes moved are known; it sees
 * no difference. */
#define DATA_BODY(fn, offset_, call)                                                               \
    MPI_Status *st_ = status;                                                                      \
    TRACE_MPI_ENTER(call);                                                                         \
    MPI_Status own_ = {0};                                                                         \
    st_ = st_ == MPI_STATUS_IGNORE ? &own_ : st_;                                                  \
    const trace_mpi_io_data d_ = {fh, type, trace_mpi_bytes(count, type), offset_};                \
    return trace_mpi_io_data_done(&c, fn, &d_, st_, call)

/* A nonblocking data call: recorded when started, with the bytes asked. */
#define START_BODY(fn, offset_, call)                                                              \
    TRACE_MPI_ENTER(call);                                                                         \
    const trace_mpi_io_data d_ = {fh, type, trace_mpi_bytes(count, type), offset_};                \
    return trace_mpi_io_data_done(&c, fn, &d_, NULL, call)

/* Any other call on fh; extra: statements adding args to a. */
#define FILE_BODY(fn, call, ...)                                                                   \
    TRACE_MPI_ENTER(call);                                                                         \
    const int r = call;                                                                            \
    trace_args a = {.n = 0};                                                                       \
    __VA_ARGS__;                                                                                   \
    return trace_mpi_io_file_done(&c, fn, fh, &a, r)

int trace_mpi_io_open_done(
    const trace_call *c, MPI_Comm comm, const char *path, int amode, const MPI_File *fh, int r)
{
    if (r == MPI_SUCCESS) {
        trace_mpi_file_opened(*fh, path);
    }
    uint64_t key = 0;
    (void)trace_mpi_world(comm, 0, &key);
    trace_args a = {.n = 0};
    targ_str(&a, "path", path);
    targ_int(&a, "amode", amode);
    targ_uint(&a, "comm", key);
    targ_int(&a, "ret", r);
    trace_leave(c, TRACE_FN_MPI_FILE_OPEN, &a);
    return r;
}

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    TRACE_MPI_ENTER(PMPI_File_open(comm, filename, amode, info, fh));
    return trace_mpi_io_open_done(&c, comm, filename, amode, fh,
                                  PMPI_File_open(comm, filename, amode, info, fh));
}

int trace_mpi_io_close_done(const trace_call *c, MPI_File fh, const char *path, int r)
{
    if (r == MPI_SUCCESS) {
        trace_mpi_file_closed(fh);
    }
    trace_args a = {.n = 0};
    targ_str(&a, "path", path);
    targ_int(&a, "ret", r);
    trace_leave(c, TRACE_FN_MPI_FILE_CLOSE, &a);
    return r;
}

int MPI_File_close(MPI_File *fhp)
{
    TRACE_MPI_ENTER(PMPI_File_close(fhp));
    const MPI_File fh = fhp != NULL ? *fhp : NULL;
    char path[PATH_MAX];
    trace_mpi_file_name(fh, path, sizeof path);
    return trace_mpi_io_close_done(&c, fh, path, PMPI_File_close(fhp));
}

int trace_mpi_io_delete_done(const trace_call *c, const char *path, int r)
{
    trace_args a = {.n = 0};
    targ_str(&a, "path", path);
    targ_int(&a, "ret", r);
    trace_leave(c, TRACE_FN_MPI_FILE_DELETE, &a);
    return r;
}

int MPI_File_delete(const char *filename, MPI_Info info)
{
    TRACE_MPI_ENTER(PMPI_File_delete(filename, info));
    return trace_mpi_io_delete_done(&c, filename, PMPI_File_delete(filename, info));
}

int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    DATA_BODY(TRACE_FN_MPI_FILE_READ, trace_mpi_io_position(fh),
              PMPI_File_read(fh, buf, count, type, st_));
}

int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    DATA_BODY(TRACE_FN_MPI_FILE_READ_ALL, trace_mpi_io_position(fh),
              PMPI_File_read_all(fh, buf, count, type, st_));
}

int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    DATA_BODY(TRACE_FN_MPI_FILE_WRITE, trace_mpi_io_position(fh),
              PMPI_File_write(fh, buf, count, type, st_));
}

int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype type,
                       MPI_Status *status)
{
    DATA_BODY(TRACE_FN_MPI_FILE_WRITE_ALL, trace_mpi_io_position(fh),
              PMPI_File_write_all(fh, buf, count, type, st_));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype type,
                     MPI_Status *status)
{
    DATA_BODY(TRACE_FN_MPI_FILE_READ_AT, offset,
              PMPI_File_read_at(fh, offset, buf, count, type, st_));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype type,
                         MPI_Status *status)
{
    DATA_BODY(TRACE_FN_MPI_FILE_READ_AT_ALL, offset,
              PMPI_File_read_at_all(fh, offset, buf, count, type, st_));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                      MPI_Datatype type, MPI_Status *status)
{
    DATA_BODY(TRACE_FN_MPI_FILE_WRITE_AT, offset,
              PMPI_File_write_at(fh, offset, buf, count, type, st_));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                          MPI_Datatype type, MPI_Status *status)
{
    DATA_BODY(TRACE_FN_MPI_FILE_WRITE_AT_ALL, offset,
              PMPI_File_write_at_all(fh, offset, buf, count, type, st_));
}

int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    DATA_BODY(TRACE_FN_MPI_FILE_READ_SHARED, -1,
              PMPI_File_read_shared(fh, buf, count, type, st_));
}

int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype type,
                          MPI_Status *status)
{
    DATA_BODY(TRACE_FN_MPI_FILE_WRITE_SHARED, -1,
              PMPI_File_write_shared(fh, buf, count, type, st_));
}

int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype type,
                          MPI_Status *status)
{
    DATA_BODY(TRACE_FN_MPI_FILE_READ_ORDERED, -1,
              PMPI_File_read_ordered(fh, buf, count, type, st_));
}

int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype type,
                           MPI_Status *status)
{
    DATA_BODY(TRACE_FN_MPI_FILE_WRITE_ORDERED, -1,
              PMPI_File_write_ordered(fh, buf, count, type, st_));
}

int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Request *req)
{
    START_BODY(TRACE_FN_MPI_FILE_IREAD, trace_mpi_io_position(fh),
               PMPI_File_iread(fh, buf, count, type, req));
}

int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype type, MPI_Request *req)
{
    START_BODY(TRACE_FN_MPI_FILE_IWRITE, trace_mpi_io_position(fh),
               PMPI_File_iwrite(fh, buf, count, type, req));
}

int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Request *req)
{
    START_BODY(TRACE_FN_MPI_FILE_IREAD_ALL, trace_mpi_io_position(fh),
               PMPI_File_iread_all(fh, buf, count, type, req));
}

int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype type,
                        MPI_Request *req)
{
    START_BODY(TRACE_FN_MPI_FILE_IWRITE_ALL, trace_mpi_io_position(fh),
               PMPI_File_iwrite_all(fh, buf, count, type, req));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype type,
                      MPI_Request *req)
{
    START_BODY(TRACE_FN_MPI_FILE_IREAD_AT, offset,
               PMPI_File_iread_at(fh, offset, buf, count, type, req));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype type, MPI_Request *req)
{
    START_BODY(TRACE_FN_MPI_FILE_IWRITE_AT, offset,
               PMPI_File_iwrite_at(fh, offset, buf, count, type, req));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype type, MPI_Request *req)
{
    START_BODY(TRACE_FN_MPI_FILE_IREAD_AT_ALL, offset,
               PMPI_File_iread_at_all(fh, offset, buf, count, type, req));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                           MPI_Datatype type, MPI_Request *req)
{
    START_BODY(TRACE_FN_MPI_FILE_IWRITE_AT_ALL, offset,
               PMPI_File_iwrite_at_all(fh, offset, buf, count, type, req));
}

int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Request *req)
{
    START_BODY(TRACE_FN_MPI_FILE_IREAD_SHARED, -1,
               PMPI_File_iread_shared(fh, buf, count, type, req));
}

int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype type,
                           MPI_Request *req)
{
    START_BODY(TRACE_FN_MPI_FILE_IWRITE_SHARED, -1,
               PMPI_File_iwrite_shared(fh, buf, count, type, req));
}

int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    FILE_BODY(TRACE_FN_MPI_FILE_SEEK, PMPI_File_seek(fh, offset, whence),
              targ_int(&a, "offset", offset), targ_int(&a, "whence", whence));
}

int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    FILE_BODY(TRACE_FN_MPI_FILE_SEEK_SHARED, PMPI_File_seek_shared(fh, offset, whence),
              targ_int(&a, "offset", offset), targ_int(&a, "whence", whence));
}

// NOLINTNEXTLINE(readability-function-size): the MPI standard fixes the parameters
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info)
{
    FILE_BODY(TRACE_FN_MPI_FILE_SET_VIEW,
              PMPI_File_set_view(fh, disp, etype, filetype, datarep, info),
              targ_int(&a, "disp", disp), targ_int(&a, "etype_bytes", trace_mpi_bytes(1, etype)),
              targ_str(&a, "datarep", datarep));
}

int MPI_File_sync(MPI_File fh)
{
    FILE_BODY(TRACE_FN_MPI_FILE_SYNC, PMPI_File_sync(fh), (void)0);
}

int MPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    FILE_BODY(TRACE_FN_MPI_FILE_SET_SIZE, PMPI_File_set_size(fh, size),
              targ_int(&a, "size", size));
}

int MPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    FILE_BODY(TRACE_FN_MPI_FILE_PREALLOCATE, PMPI_File_preallocate(fh, size),
              targ_int(&a, "size", size));
}
