/* SPDX-License-Identifier: MIT
 *
 * trace_mpif_io.c - wrappers of Open MPI's Fortran bindings (see
 * trace_mpif.h) of MPI-IO: MPI_File_open, close and delete, the data
 * calls, seek, set_view, sync, set_size and preallocate, recorded as their
 * C wrappers record them (trace_mpi_io.c).  Fortran passes a file name's
 * length after the other arguments and pads the name with blanks: the
 * name recorded is trimmed.  Offsets are INTEGER(MPI_OFFSET_KIND), by
 * reference.
 * Layer: slog-trace preload library; Open MPI's mpi.h and Fortran ABI.
 */
#include <limits.h>
#include <string.h>

#include "trace_core.h"
#include "trace_mpif.h"

/* The Fortran string s of len characters, trailing blanks dropped, as a C
 * string in buf (PATH_MAX bytes; longer names are cut). */
static void f_string(const char *s, int len, char *buf)
{
    size_t k = len > 0 ? (size_t)len : 0;
    while (k > 0 && s[k - 1] == ' ') {
        k--;
    }
    k = k < PATH_MAX - 1 ? k : PATH_MAX - 1;
    memcpy(buf, s, k);
    buf[k] = '\0';
}

static MPI_File f_file(const MPI_Fint *h)
{
    return PMPI_File_f2c(*h);
}

/* A data call's record: its file, items, bytes asked and offset. */
static trace_mpi_io_data
f_data(const MPI_Fint *fh, const MPI_Fint *count, const MPI_Fint *type, MPI_Offset offset)
{
    const MPI_Datatype t = f_type(type);
    return (trace_mpi_io_data){f_file(fh), t, trace_mpi_bytes((int)*count, t), offset};
}

/* NOLINTBEGIN(readability-function-size): the MPI standard fixes the parameters */

FORTRAN_WRAPPER(file_open,
                (MPI_Fint * comm,
                 char *filename,
                 MPI_Fint *amode,
                 MPI_Fint *info,
                 MPI_Fint *fh,
                 MPI_Fint *ierr,
                 int filename_len))
{
    F_ENTER(pmpi_file_open_(comm, filename, amode, info, fh, ierr, filename_len));
    pmpi_file_open_(comm, filename, amode, info, fh, ierr, filename_len);
    char path[PATH_MAX];
    f_string(filename, filename_len, path);
    const int r = f_ret(ierr);
    const MPI_File cfh = r == MPI_SUCCESS ? f_file(fh) : NULL; /* not MPI_FILE_NULL: a symbol of libmpi */
    (void)trace_mpi_io_open_done(&c, f_comm(comm), path, (int)*amode, &cfh, r);
}

FORTRAN_WRAPPER(file_close, (MPI_Fint * fh, MPI_Fint *ierr))
{
    F_ENTER(pmpi_file_close_(fh, ierr));
    const MPI_File cfh = f_file(fh);
    char path[PATH_MAX];
    trace_mpi_file_name(cfh, path, sizeof path);
    pmpi_file_close_(fh, ierr);
    (void)trace_mpi_io_close_done(&c, cfh, path, f_ret(ierr));
}

FORTRAN_WRAPPER(file_delete, (char *filename, MPI_Fint *info, MPI_Fint *ierr, int filename_len))
{
    F_ENTER(pmpi_file_delete_(filename, info, ierr, filename_len));
    pmpi_file_delete_(filename, info, ierr, filename_len);
    char path[PATH_MAX];
    f_string(filename, filename_len, path);
    (void)trace_mpi_io_delete_done(&c, path, f_ret(ierr));
}

/* A blocking data call at offset_ (evaluated before the call); the
 * program's MPI_STATUS_IGNORE gets the wrapper's own status (st_). */
#define F_DATA(fn, offset_, call)                                                                  \
    MPI_Fint *st_ = status;                                                                        \
    F_ENTER(call);                                                                                 \
    MPI_Fint own_[F_STATUS_WORDS];                                                                 \
    st_ = f_status(status, own_);                                                                  \
    const trace_mpi_io_data d_ = f_data(fh, count, type, offset_);                                 \
    call;                                                                                          \
    const MPI_Status cst_ = f_status_c(st_);                                                       \
    (void)trace_mpi_io_data_done(&c, fn, &d_, &cst_, f_ret(ierr))

/* A nonblocking data call: recorded when started, with the bytes asked. */
#define F_START(fn, offset_, call)                                                                 \
    F_ENTER(call);                                                                                 \
    const trace_mpi_io_data d_ = f_data(fh, count, type, offset_);                                 \
    call;                                                                                          \
    (void)trace_mpi_io_data_done(&c, fn, &d_, NULL, f_ret(ierr))

#define F_DATA_PARAMS                                                                              \
    (MPI_Fint * fh, void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *status, MPI_Fint *ierr)
#define F_DATA_AT_PARAMS                                                                           \
    (MPI_Fint * fh, MPI_Offset * offset, void *buf, MPI_Fint *count, MPI_Fint *type,               \
     MPI_Fint *status, MPI_Fint *ierr)
#define F_START_PARAMS                                                                             \
    (MPI_Fint * fh, void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *req, MPI_Fint *ierr)
#define F_START_AT_PARAMS                                                                          \
    (MPI_Fint * fh, MPI_Offset * offset, void *buf, MPI_Fint *count, MPI_Fint *type,               \
     MPI_Fint *req, MPI_Fint *ierr)

/* The individual file pointer of Fortran file fh before the call. */
#define F_POSITION trace_mpi_io_position(f_file(fh))

FORTRAN_WRAPPER(file_read, F_DATA_PARAMS)
{
    F_DATA(TRACE_FN_MPI_FILE_READ, F_POSITION, pmpi_file_read_(fh, buf, count, type, st_, ierr));
}

FORTRAN_WRAPPER(file_read_all, F_DATA_PARAMS)
{
    F_DATA(TRACE_FN_MPI_FILE_READ_ALL, F_POSITION,
           pmpi_file_read_all_(fh, buf, count, type, st_, ierr));
}

FORTRAN_WRAPPER(file_write, F_DATA_PARAMS)
{
    F_DATA(TRACE_FN_MPI_FILE_WRITE, F_POSITION, pmpi_file_write_(fh, buf, count, type, st_, ierr));
}

FORTRAN_WRAPPER(file_write_all, F_DATA_PARAMS)
{
    F_DATA(TRACE_FN_MPI_FILE_WRITE_ALL, F_POSITION,
           pmpi_file_write_all_(fh, buf, count, type, st_, ierr));
}

FORTRAN_WRAPPER(file_read_at, F_DATA_AT_PARAMS)
{
    F_DATA(TRACE_FN_MPI_FILE_READ_AT, *offset,
           pmpi_file_read_at_(fh, offset, buf, count, type, st_, ierr));
}

FORTRAN_WRAPPER(file_read_at_all, F_DATA_AT_PARAMS)
{
    F_DATA(TRACE_FN_MPI_FILE_READ_AT_ALL, *offset,
           pmpi_file_read_at_all_(fh, offset, buf, count, type, st_, ierr));
}

FORTRAN_WRAPPER(file_write_at, F_DATA_AT_PARAMS)
{
    F_DATA(TRACE_FN_MPI_FILE_WRITE_AT, *offset,
           pmpi_file_write_at_(fh, offset, buf, count, type, st_, ierr));
}

FORTRAN_WRAPPER(file_write_at_all, F_DATA_AT_PARAMS)
{
    F_DATA(TRACE_FN_MPI_FILE_WRITE_AT_ALL, *offset,
           pmpi_file_write_at_all_(fh, offset, buf, count, type, st_, ierr));
}

FORTRAN_WRAPPER(file_read_shared, F_DATA_PARAMS)
{
    F_DATA(TRACE_FN_MPI_FILE_READ_SHARED, -1,
           pmpi_file_read_shared_(fh, buf, count, type, st_, ierr));
}

FORTRAN_WRAPPER(file_write_shared, F_DATA_PARAMS)
{
    F_DATA(TRACE_FN_MPI_FILE_WRITE_SHARED, -1,
           pmpi_file_write_shared_(fh, buf, count, type, st_, ierr));
}

FORTRAN_WRAPPER(file_read_ordered, F_DATA_PARAMS)
{
    F_DATA(TRACE_FN_MPI_FILE_READ_ORDERED, -1,
           pmpi_file_read_ordered_(fh, buf, count, type, st_, ierr));
}

FORTRAN_WRAPPER(file_write_ordered, F_DATA_PARAMS)
{
    F_DATA(TRACE_FN_MPI_FILE_WRITE_ORDERED, -1,
           pmpi_file_write_ordered_(fh, buf, count, type, st_, ierr));
}

FORTRAN_WRAPPER(file_iread, F_START_PARAMS)
{
    F_START(TRACE_FN_MPI_FILE_IREAD, F_POSITION, pmpi_file_iread_(fh, buf, count, type, req, ierr));
}

FORTRAN_WRAPPER(file_iwrite, F_START_PARAMS)
{
    F_START(TRACE_FN_MPI_FILE_IWRITE, F_POSITION,
            pmpi_file_iwrite_(fh, buf, count, type, req, ierr));
}

FORTRAN_WRAPPER(file_iread_all, F_START_PARAMS)
{
    F_START(TRACE_FN_MPI_FILE_IREAD_ALL, F_POSITION,
            pmpi_file_iread_all_(fh, buf, count, type, req, ierr));
}

FORTRAN_WRAPPER(file_iwrite_all, F_START_PARAMS)
{
    F_START(TRACE_FN_MPI_FILE_IWRITE_ALL, F_POSITION,
            pmpi_file_iwrite_all_(fh, buf, count, type, req, ierr));
}

FORTRAN_WRAPPER(file_iread_at, F_START_AT_PARAMS)
{
    F_START(TRACE_FN_MPI_FILE_IREAD_AT, *offset,
            pmpi_file_iread_at_(fh, offset, buf, count, type, req, ierr));
}

FORTRAN_WRAPPER(file_iwrite_at, F_START_AT_PARAMS)
{
    F_START(TRACE_FN_MPI_FILE_IWRITE_AT, *offset,
            pmpi_file_iwrite_at_(fh, offset, buf, count, type, req, ierr));
}

FORTRAN_WRAPPER(file_iread_at_all, F_START_AT_PARAMS)
{
    F_START(TRACE_FN_MPI_FILE_IREAD_AT_ALL, *offset,
            pmpi_file_iread_at_all_(fh, offset, buf, count, type, req, ierr));
}

FORTRAN_WRAPPER(file_iwrite_at_all, F_START_AT_PARAMS)
{
    F_START(TRACE_FN_MPI_FILE_IWRITE_AT_ALL, *offset,
            pmpi_file_iwrite_at_all_(fh, offset, buf, count, type, req, ierr));
}

FORTRAN_WRAPPER(file_iread_shared, F_START_PARAMS)
{
    F_START(TRACE_FN_MPI_FILE_IREAD_SHARED, -1,
            pmpi_file_iread_shared_(fh, buf, count, type, req, ierr));
}

FORTRAN_WRAPPER(file_iwrite_shared, F_START_PARAMS)
{
    F_START(TRACE_FN_MPI_FILE_IWRITE_SHARED, -1,
            pmpi_file_iwrite_shared_(fh, buf, count, type, req, ierr));
}

/* Any other call on fh: the call, then extra args (statements on a). */
#define F_FILE(fn, call, ...)                                                                      \
    F_ENTER(call);                                                                                 \
    call;                                                                                          \
    trace_args a = {.n = 0};                                                                       \
    __VA_ARGS__;                                                                                   \
    (void)trace_mpi_io_file_done(&c, fn, f_file(fh), &a, f_ret(ierr))

FORTRAN_WRAPPER(file_seek, (MPI_Fint * fh, MPI_Offset *offset, MPI_Fint *whence, MPI_Fint *ierr))
{
    F_FILE(TRACE_FN_MPI_FILE_SEEK, pmpi_file_seek_(fh, offset, whence, ierr),
           targ_int(&a, "offset", *offset), targ_int(&a, "whence", *whence));
}

FORTRAN_WRAPPER(file_seek_shared,
                (MPI_Fint * fh, MPI_Offset *offset, MPI_Fint *whence, MPI_Fint *ierr))
{
    F_FILE(TRACE_FN_MPI_FILE_SEEK_SHARED, pmpi_file_seek_shared_(fh, offset, whence, ierr),
           targ_int(&a, "offset", *offset), targ_int(&a, "whence", *whence));
}

FORTRAN_WRAPPER(file_set_view,
                (MPI_Fint * fh,
                 MPI_Offset *disp,
                 MPI_Fint *etype,
                 MPI_Fint *filetype,
                 char *datarep,
                 MPI_Fint *info,
                 MPI_Fint *ierr,
                 int datarep_len))
{
    char rep[PATH_MAX];
    f_string(datarep, datarep_len, rep);
    F_FILE(TRACE_FN_MPI_FILE_SET_VIEW,
           pmpi_file_set_view_(fh, disp, etype, filetype, datarep, info, ierr, datarep_len),
           targ_int(&a, "disp", *disp),
           targ_int(&a, "etype_bytes", trace_mpi_bytes(1, f_type(etype))),
           targ_str(&a, "datarep", rep));
}

FORTRAN_WRAPPER(file_sync, (MPI_Fint * fh, MPI_Fint *ierr))
{
    F_FILE(TRACE_FN_MPI_FILE_SYNC, pmpi_file_sync_(fh, ierr), (void)0);
}

FORTRAN_WRAPPER(file_set_size, (MPI_Fint * fh, MPI_Offset *size, MPI_Fint *ierr))
{
    F_FILE(TRACE_FN_MPI_FILE_SET_SIZE, pmpi_file_set_size_(fh, size, ierr),
           targ_int(&a, "size", *size));
}

FORTRAN_WRAPPER(file_preallocate, (MPI_Fint * fh, MPI_Offset *size, MPI_Fint *ierr))
{
    F_FILE(TRACE_FN_MPI_FILE_PREALLOCATE, pmpi_file_preallocate_(fh, size, ierr),
           targ_int(&a, "size", *size));
}

/* NOLINTEND(readability-function-size) */
