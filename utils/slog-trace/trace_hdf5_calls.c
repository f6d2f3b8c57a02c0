/* SPDX-License-Identifier: MIT
 *
 * trace_hdf5_calls.c - wrappers of HDF5's file, group, dataset and
 * attribute calls, group "hdf5", as Recorder records that layer above
 * MPI-IO and POSIX: H5Fcreate, H5Fopen, H5Fflush, H5Fclose; H5Gcreate2,
 * H5Gopen2, H5Gclose; H5Dcreate2, H5Dopen2, H5Dread, H5Dwrite, H5Dclose;
 * H5Oopen, H5Oclose (h5py opens and closes objects so); H5Acreate2,
 * H5Acreate_by_name, H5Aopen, H5Aopen_by_name, H5Aread, H5Awrite, H5Aclose.
 * Each records the file's name (path), the object's path in the file
 * (name; an attribute is OBJECT@ATTR), the bytes a read or write moves
 * (points selected x the memory type's size) and ret (the id, or the
 * herr_t; negative: failed).
 * The POSIX calls HDF5 makes inside are recorded one level deeper.  The
 * names are asked of HDF5 (H5Fget_name, H5Iget_name: calls this file does
 * not wrap) with its error printing off.  The tracer's own HDF5 calls (its
 * writer's, under the guard) pass through unrecorded, and so do the calls
 * on the trace directory's files (Python tracing's writer in the program).
 * Layer: slog-trace preload library.
 */
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

#include "trace_core.h"
#include "trace_fdtab.h"

#define NAME_MAX_BYTES 512

/* A call's file name and object path ("" where HDF5 cannot say). */
typedef struct h5_names {
    char path[NAME_MAX_BYTES];
    char name[NAME_MAX_BYTES];
} h5_names;

/* HDF5's error printing off around the tracer's own questions (a closed
 * or foreign id is no error of the program's); *saved restores it. */
typedef struct h5_quiet {
    H5E_auto2_t fn;
    void *data;
} h5_quiet;

static void quiet_begin(h5_quiet *saved)
{
    if (H5Eget_auto2(H5E_DEFAULT, &saved->fn, &saved->data) < 0) {
        saved->fn = NULL;
        saved->data = NULL;
    }
    (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void quiet_end(const h5_quiet *saved)
{
    (void)H5Eset_auto2(H5E_DEFAULT, saved->fn, saved->data);
}

/* An attribute's name after its object's path: OBJECT@ATTR. */
static void add_attribute_name(hid_t attr, char *name, size_t size)
{
    const size_t len = strlen(name);
    if (len + 2 < size) {
        name[len] = '@';
        if (H5Aget_name(attr, size - len - 1, name + len + 1) < 0) {
            name[len] = '\0';
        }
    }
}

/* The file name and object path of id ("" where HDF5 cannot say). */
static void names_of(hid_t id, h5_names *n)
{
    n->path[0] = n->name[0] = '\0';
    if (id < 0) {
        return;
    }
    h5_quiet q;
    quiet_begin(&q);
    if (H5Fget_name(id, n->path, sizeof n->path) < 0) {
        n->path[0] = '\0';
    }
    const H5I_type_t type = H5Iget_type(id);
    if (type != H5I_FILE && H5Iget_name(id, n->name, sizeof n->name) < 0) {
        n->name[0] = '\0';
    }
    if (type == H5I_ATTR) {
        add_attribute_name(id, n->name, sizeof n->name);
    }
    quiet_end(&q);
}

/* Record the call with path, name (unless file-level), extra args and ret;
 * a call on a file of the trace directory (another libslog writer in the
 * program: Python tracing's) is the tracer's own, not recorded. */
static void h5_leave(const trace_call *c, trace_fn fn, const h5_names *n, int64_t bytes,
                     int64_t ret)
{
    if (trace_path_own(n->path)) {
        trace_skip(c);
        return;
    }
    trace_args a = {.n = 0};
    targ_str(&a, "path", n->path);
    if (n->name[0] != '\0') {
        targ_str(&a, "name", n->name);
    }
    if (bytes >= 0) {
        targ_int(&a, "bytes", bytes);
    }
    targ_int(&a, "ret", ret);
    trace_leave(c, fn, &a);
}

/* Bytes a transfer of mem_type over the selection moves (-1: unknown). */
static int64_t transfer_bytes(hid_t space, hid_t mem_type)
{
    const hssize_t points = H5Sget_select_npoints(space);
    const size_t size = H5Tget_size(mem_type);
    return points >= 0 && size > 0 ? (int64_t)points * (int64_t)size : -1;
}

/* The selection a dataset transfer moves: the memory or file selection
 * given, else the whole dataset; its bytes. */
static int64_t dataset_bytes(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space)
{
    h5_quiet q;
    quiet_begin(&q);
    const hid_t given = mem_space != H5S_ALL ? mem_space : file_space;
    const hid_t whole = given != H5S_ALL ? H5I_INVALID_HID : H5Dget_space(dset);
    const hid_t space = given != H5S_ALL ? given : whole;
    const int64_t bytes = space >= 0 ? transfer_bytes(space, mem_type) : -1;
    if (whole >= 0) {
        (void)H5Sclose(whole);
    }
    quiet_end(&q);
    return bytes;
}

/* Bytes of an attribute's whole dataspace in mem_type. */
static int64_t attribute_bytes(hid_t attr, hid_t mem_type)
{
    h5_quiet q;
    quiet_begin(&q);
    const hid_t space = H5Aget_space(attr);
    const int64_t bytes = space >= 0 ? transfer_bytes(space, mem_type) : -1;
    if (space >= 0) {
        (void)H5Sclose(space);
    }
    quiet_end(&q);
    return bytes;
}

/* ---- files ---- */

hid_t H5Fcreate(const char *filename, unsigned flags, hid_t fcpl, hid_t fapl)
{
    trace_call c;
    if (!trace_enter(&c)) {
        return TRACE_REAL(H5Fcreate)(filename, flags, fcpl, fapl);
    }
    const hid_t r = TRACE_REAL(H5Fcreate)(filename, flags, fcpl, fapl);
    h5_names n = {.name = ""};
    (void)snprintf(n.path, sizeof n.path, "%s", filename != NULL ? filename : "");
    h5_leave(&c, TRACE_FN_H5FCREATE, &n, -1, r);
    return r;
}

hid_t H5Fopen(const char *filename, unsigned flags, hid_t fapl)
{
    trace_call c;
    if (!trace_enter(&c)) {
        return TRACE_REAL(H5Fopen)(filename, flags, fapl);
    }
    const hid_t r = TRACE_REAL(H5Fopen)(filename, flags, fapl);
    h5_names n = {.name = ""};
    (void)snprintf(n.path, sizeof n.path, "%s", filename != NULL ? filename : "");
    h5_leave(&c, TRACE_FN_H5FOPEN, &n, -1, r);
    return r;
}

herr_t H5Fflush(hid_t obj, H5F_scope_t scope)
{
    trace_call c;
    if (!trace_enter(&c)) {
        return TRACE_REAL(H5Fflush)(obj, scope);
    }
    h5_names n;
    names_of(obj, &n);
    const herr_t r = TRACE_REAL(H5Fflush)(obj, scope);
    h5_leave(&c, TRACE_FN_H5FFLUSH, &n, -1, r);
    return r;
}

/* A call that ends id's use (H5Fclose, H5Gclose...): names first. */
#define CLOSE_BODY(fn, real, id)                                                                   \
    trace_call c;                                                                                  \
    if (!trace_enter(&c)) {                                                                        \
        return TRACE_REAL(real)(id);                                                               \
    }                                                                                              \
    h5_names n;                                                                                    \
    names_of(id, &n);                                                                              \
    const herr_t r = TRACE_REAL(real)(id);                                                         \
    h5_leave(&c, fn, &n, -1, r);                                                                   \
    return r

herr_t H5Fclose(hid_t file)
{
    CLOSE_BODY(TRACE_FN_H5FCLOSE, H5Fclose, file);
}

herr_t H5Gclose(hid_t group)
{
    CLOSE_BODY(TRACE_FN_H5GCLOSE, H5Gclose, group);
}

herr_t H5Dclose(hid_t dset)
{
    CLOSE_BODY(TRACE_FN_H5DCLOSE, H5Dclose, dset);
}

herr_t H5Aclose(hid_t attr)
{
    CLOSE_BODY(TRACE_FN_H5ACLOSE, H5Aclose, attr);
}

herr_t H5Oclose(hid_t obj)
{
    CLOSE_BODY(TRACE_FN_H5OCLOSE, H5Oclose, obj);
}

/* A call that makes an id (create, open): names of the result. */
#define OPEN_BODY(fn, real, ...)                                                                   \
    trace_call c;                                                                                  \
    if (!trace_enter(&c)) {                                                                        \
        return TRACE_REAL(real)(__VA_ARGS__);                                                      \
    }                                                                                              \
    const hid_t r = TRACE_REAL(real)(__VA_ARGS__);                                                 \
    h5_names n;                                                                                    \
    names_of(r, &n);                                                                               \
    h5_leave(&c, fn, &n, -1, r);                                                                   \
    return r

hid_t H5Gcreate2(hid_t loc, const char *name, hid_t lcpl, hid_t gcpl, hid_t gapl)
{
    OPEN_BODY(TRACE_FN_H5GCREATE, H5Gcreate2, loc, name, lcpl, gcpl, gapl);
}

hid_t H5Gopen2(hid_t loc, const char *name, hid_t gapl)
{
    OPEN_BODY(TRACE_FN_H5GOPEN, H5Gopen2, loc, name, gapl);
}

// NOLINTNEXTLINE(readability-function-size): HDF5 fixes the parameters
hid_t H5Dcreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t lcpl, hid_t dcpl,
                 hid_t dapl)
{
    OPEN_BODY(TRACE_FN_H5DCREATE, H5Dcreate2, loc, name, type, space, lcpl, dcpl, dapl);
}

hid_t H5Dopen2(hid_t loc, const char *name, hid_t dapl)
{
    OPEN_BODY(TRACE_FN_H5DOPEN, H5Dopen2, loc, name, dapl);
}

hid_t H5Acreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t acpl, hid_t aapl)
{
    OPEN_BODY(TRACE_FN_H5ACREATE, H5Acreate2, loc, name, type, space, acpl, aapl);
}

hid_t H5Aopen(hid_t obj, const char *name, hid_t aapl)
{
    OPEN_BODY(TRACE_FN_H5AOPEN, H5Aopen, obj, name, aapl);
}

hid_t H5Oopen(hid_t loc, const char *name, hid_t lapl)
{
    OPEN_BODY(TRACE_FN_H5OOPEN, H5Oopen, loc, name, lapl);
}

// NOLINTNEXTLINE(readability-function-size): HDF5 fixes the parameters
hid_t H5Acreate_by_name(hid_t loc, const char *obj_name, const char *attr_name, hid_t type,
                        hid_t space, hid_t acpl, hid_t aapl, hid_t lapl)
{
    OPEN_BODY(TRACE_FN_H5ACREATE, H5Acreate_by_name, loc, obj_name, attr_name, type, space, acpl,
              aapl, lapl);
}

hid_t H5Aopen_by_name(hid_t loc, const char *obj_name, const char *attr_name, hid_t aapl,
                      hid_t lapl)
{
    OPEN_BODY(TRACE_FN_H5AOPEN, H5Aopen_by_name, loc, obj_name, attr_name, aapl, lapl);
}

/* ---- data ---- */

/* A read or write of @p id: its names and the bytes it moves first. */
#define TRANSFER_BODY(fn, real, id, bytes_of, ...)                                                 \
    trace_call c;                                                                                  \
    if (!trace_enter(&c)) {                                                                        \
        return TRACE_REAL(real)(__VA_ARGS__);                                                      \
    }                                                                                              \
    h5_names n;                                                                                    \
    names_of(id, &n);                                                                              \
    const int64_t bytes = (bytes_of);                                                              \
    const herr_t r = TRACE_REAL(real)(__VA_ARGS__);                                                \
    h5_leave(&c, fn, &n, bytes, r);                                                                \
    return r

// NOLINTNEXTLINE(readability-function-size): HDF5 fixes the parameters
herr_t H5Dread(hid_t dset_id, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id,
               hid_t dxpl_id, void *buf)
{
    TRANSFER_BODY(TRACE_FN_H5DREAD, H5Dread, dset_id,
                  dataset_bytes(dset_id, mem_type_id, mem_space_id, file_space_id), dset_id,
                  mem_type_id, mem_space_id, file_space_id, dxpl_id, buf);
}

// NOLINTNEXTLINE(readability-function-size): HDF5 fixes the parameters
herr_t H5Dwrite(hid_t dset_id, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id,
                hid_t dxpl_id, const void *buf)
{
    TRANSFER_BODY(TRACE_FN_H5DWRITE, H5Dwrite, dset_id,
                  dataset_bytes(dset_id, mem_type_id, mem_space_id, file_space_id), dset_id,
                  mem_type_id, mem_space_id, file_space_id, dxpl_id, buf);
}

herr_t H5Aread(hid_t attr_id, hid_t type_id, void *buf)
{
    TRANSFER_BODY(TRACE_FN_H5AREAD, H5Aread, attr_id, attribute_bytes(attr_id, type_id), attr_id,
                  type_id, buf);
}

herr_t H5Awrite(hid_t attr_id, hid_t type_id, const void *buf)
{
    TRANSFER_BODY(TRACE_FN_H5AWRITE, H5Awrite, attr_id, attribute_bytes(attr_id, type_id),
                  attr_id, type_id, buf);
}
