/* SPDX-License-Identifier: MIT
 *
 * trace_hdf5.c - a program that uses HDF5 itself (the same library as the
 * tracer's writer), for trace_hdf5_test.py:
 *
 *     trace_hdf5 FILE.h5 N [thread]
 *
 * writes a dataset of 4096 int64 in 16 chunks and reads it back, then
 * iterates over the file's links with a callback that makes N write()
 * calls to /dev/null: HDF5 holds its global lock through the callback, so
 * every one of those calls is recorded while the tracer's writer cannot
 * use HDF5.  With "thread", the callback then sleeps 1.5 s (the tracer's
 * timer flushes meanwhile, and waits for HDF5's lock) and starts a thread
 * whose first call is a write(), and joins it.  Prints "ok N" and exits 0
 * when the data read back is right.
 */
#include <fcntl.h>
#include <hdf5.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VALUES 4096

static long writes_in_callback;
static int thread_in_callback;

static void *first_call(void *unused)
{
    (void)unused;
    const int fd = open("/dev/null", O_WRONLY);
    const int bad = fd < 0 || write(fd, "y", 1) != 1 || close(fd) != 0;
    return bad ? (void *)1 : NULL;
}

/* A thread started inside HDF5: its first call opens its timeline. */
static int thread_inside(void)
{
    (void)usleep(1500000);
    pthread_t th;
    void *res = (void *)1;
    return pthread_create(&th, NULL, first_call, NULL) != 0 || pthread_join(th, &res) != 0 ||
           res != NULL;
}

static herr_t make_calls(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
    (void)group;
    (void)name;
    (void)info;
    (void)data;
    const int fd = open("/dev/null", O_WRONLY);
    for (long i = 0; fd >= 0 && i < writes_in_callback; i++) {
        if (write(fd, "x", 1) != 1) {
            (void)close(fd);
            return -1;
        }
    }
    if (fd < 0 || close(fd) != 0) {
        return -1;
    }
    return thread_in_callback && thread_inside() != 0 ? -1 : 0;
}

/* A chunked dataset written and read back; 0 when the values match. */
static int write_and_read(hid_t file)
{
    static long long out[VALUES], in[VALUES];
    for (int i = 0; i < VALUES; i++) {
        out[i] = 3LL * i;
    }
    const hsize_t dims[1] = {VALUES}, chunk[1] = {VALUES / 16};
    const hid_t space = H5Screate_simple(1, dims, NULL);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    (void)H5Pset_chunk(dcpl, 1, chunk);
    const hid_t d = H5Dcreate2(file, "values", H5T_NATIVE_LLONG, space, H5P_DEFAULT, dcpl,
                               H5P_DEFAULT);
    int bad = d < 0 || H5Dwrite(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0 ||
              H5Fflush(file, H5F_SCOPE_GLOBAL) < 0 ||
              H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, in) < 0;
    for (int i = 0; !bad && i < VALUES; i++) {
        bad = in[i] != out[i];
    }
    (void)H5Dclose(d);
    (void)H5Pclose(dcpl);
    (void)H5Sclose(space);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 3 && !(argc == 4 && strcmp(argv[3], "thread") == 0)) {
        (void)fprintf(stderr, "usage: trace_hdf5 FILE.h5 N [thread]\n");
        return 2;
    }
    writes_in_callback = atol(argv[2]);
    thread_in_callback = argc == 4;
    const hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0 || write_and_read(file) != 0) {
        return 1;
    }
    hsize_t idx = 0;
    const herr_t rc = H5Literate(file, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, make_calls, NULL);
    if (H5Fclose(file) < 0 || rc < 0) {
        return 1;
    }
    (void)printf("ok %ld\n", writes_in_callback);
    return 0;
}
